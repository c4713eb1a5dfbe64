//! Where a URL's host lives, as Chrome's Local Network Access sees it (Chrome 142 on): a page
//! on a public origin (the docs that embed the widget, a hosted copy) that calls a server on
//! the user's own machine or network asks the user first, and a `fetch()` says where it is
//! going with `targetAddressSpace` (`"loopback"`, `"local"`). A refused request looks to the
//! page like any network failure; only the permission's state
//! (`navigator.permissions.query`) tells them apart. docs/engines.md has what each engine
//! does.

use serde::{Deserialize, Serialize};

use super::url::host_without_port;

/// The address space of a request's target, when it is not the public internet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AddressSpace {
    /// This machine: `localhost`, `*.localhost`, `127.0.0.0/8`, `[::1]`.
    Loopback,
    /// The local network: `10/8`, `172.16/12`, `192.168/16`, `169.254/16`, `fc00::/7`,
    /// `fe80::/10`, and `*.local` (mDNS) names.
    Local,
}

impl AddressSpace {
    /// The value of `fetch()`'s `targetAddressSpace` option.
    pub fn fetch_value(self) -> &'static str {
        match self {
            AddressSpace::Loopback => "loopback",
            AddressSpace::Local => "local",
        }
    }

    /// The permission names to ask `navigator.permissions.query` about, in order: Chrome
    /// 145's own name first, then the name of Chrome 142-144 (an alias since 145). An engine
    /// that knows neither rejects both.
    pub fn permission_names(self) -> [&'static str; 2] {
        match self {
            AddressSpace::Loopback => ["loopback-network", "local-network-access"],
            AddressSpace::Local => ["local-network", "local-network-access"],
        }
    }

    /// The serialized code.
    pub fn code(self) -> &'static str {
        match self {
            AddressSpace::Loopback => "loopback",
            AddressSpace::Local => "local",
        }
    }
}

/// What the browser says of the page's permission to reach an address space
/// (`navigator.permissions.query`'s `state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpacePermission {
    /// Allowed.
    Granted,
    /// Refused (by the user, or by three dismissed prompts).
    Denied,
    /// Not decided: the user has not answered the prompt (or dismissed it).
    Prompt,
}

impl SpacePermission {
    /// Parses a `PermissionStatus.state`.
    pub fn from_state(state: &str) -> Option<SpacePermission> {
        match state {
            "granted" => Some(SpacePermission::Granted),
            "denied" => Some(SpacePermission::Denied),
            "prompt" => Some(SpacePermission::Prompt),
            _ => None,
        }
    }
}

/// The address space of `url`'s host; `None` for a public host, or a name whose address only
/// DNS knows (the browser checks it after resolving; the page cannot).
pub fn address_space_of(url: &str) -> Option<AddressSpace> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = host_without_port(authority).to_ascii_lowercase();
    let host = host.trim_end_matches('.');
    if host == "localhost" || host.ends_with(".localhost") || host == "[::1]" {
        return Some(AddressSpace::Loopback);
    }
    if let Some(v6) = host.strip_prefix('[') {
        let first = v6.split(':').next().unwrap_or_default();
        let word = u16::from_str_radix(first, 16).ok()?;
        // fc00::/7 (unique local), fe80::/10 (link local).
        let local = (word & 0xfe00) == 0xfc00 || (word & 0xffc0) == 0xfe80;
        return local.then_some(AddressSpace::Local);
    }
    if host.ends_with(".local") {
        return Some(AddressSpace::Local);
    }
    let octets: Vec<u8> = host
        .split('.')
        .map(|part| part.parse::<u8>().ok())
        .collect::<Option<Vec<u8>>>()?;
    match octets[..] {
        [127, _, _, _] => Some(AddressSpace::Loopback),
        [10, _, _, _] | [192, 168, _, _] | [169, 254, _, _] => Some(AddressSpace::Local),
        [172, second, _, _] if (16..32).contains(&second) => Some(AddressSpace::Local),
        _ => None,
    }
}

/// Whether a request from a page in `page` (`None`: public) to `target` crosses into a closer
/// address space (public → local or loopback, local → loopback): the requests Local Network
/// Access checks, and the only ones that declare `targetAddressSpace`.
pub fn crosses_into(page: Option<AddressSpace>, target: AddressSpace) -> bool {
    matches!(
        (page, target),
        (None, _) | (Some(AddressSpace::Local), AddressSpace::Loopback)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_requests_into_a_closer_space_cross() {
        use AddressSpace::{Local, Loopback};
        assert!(crosses_into(None, Loopback));
        assert!(crosses_into(None, Local));
        assert!(crosses_into(Some(Local), Loopback));
        assert!(!crosses_into(Some(Loopback), Loopback));
        assert!(!crosses_into(Some(Loopback), Local));
        assert!(!crosses_into(Some(Local), Local));
    }

    #[test]
    fn loopback_local_and_public_hosts() {
        use AddressSpace::{Local, Loopback};
        for (url, space) in [
            ("http://localhost:8000/v1", Some(Loopback)),
            ("http://LOCALHOST.:8000/v1", Some(Loopback)),
            ("http://ollama.localhost/v1", Some(Loopback)),
            ("http://127.0.0.1:11434/v1", Some(Loopback)),
            ("http://127.8.9.10/v1", Some(Loopback)),
            ("http://[::1]:8080/v1", Some(Loopback)),
            ("http://192.168.1.5:8000/v1", Some(Local)),
            ("http://10.0.0.2/v1", Some(Local)),
            ("http://172.16.0.1/v1", Some(Local)),
            ("http://172.31.255.1/v1", Some(Local)),
            ("http://169.254.1.1/v1", Some(Local)),
            ("http://[fd12:3456::1]:8000/v1", Some(Local)),
            ("http://[fe80::1]/v1", Some(Local)),
            ("http://gpu-box.local:8000/v1", Some(Local)),
            ("http://user:pw@192.168.0.9:8000/v1", Some(Local)),
            ("https://api.openai.com/v1", None),
            ("http://172.32.0.1/v1", None),
            ("http://172.15.0.1/v1", None),
            ("http://8.8.8.8/v1", None),
            ("http://[2001:db8::1]/v1", None),
            ("http://gpu-box.lan:8000/v1", None),
            ("http://1.2.3/v1", None),
            ("http://300.1.1.1/v1", None),
        ] {
            assert_eq!(address_space_of(url), space, "{url}");
        }
    }
}
