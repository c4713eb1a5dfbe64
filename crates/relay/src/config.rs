//! What a relay is started with: the one upstream, the page origins it answers, the trust
//! store's files, the bounds.

use std::path::PathBuf;
use std::time::Duration;

use crate::target;

/// The port the relay listens on unless told (ttft-sim, serving the page, has 8787).
pub const DEFAULT_PORT: u16 = 8788;

/// The page origins allowed by default: any port on loopback, by address or by name. The
/// bundled page (`scripts/serve.sh`, ttft-sim on `http://127.0.0.1:8787`) is one of them.
pub const DEFAULT_ALLOWED_ORIGINS: [&str; 3] =
    ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"];

/// Debian's CA bundle (package ca-certificates), read unless `SSL_CERT_FILE` names another.
pub const DEBIAN_CA_BUNDLE: &str = "/etc/ssl/certs/ca-certificates.crt";

/// Why a configuration was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// `--upstream` is not an http(s) base URL.
    #[error("--upstream {url}: {reason} (give the provider's base URL, e.g. https://dashscope.aliyuncs.com/compatible-mode/v1)")]
    Upstream {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `--allow-origin` is not an origin or an origin pattern.
    #[error("--allow-origin {0}: expected an origin (https://page.example, http://127.0.0.1:8787) or one with any port (http://localhost:*)")]
    Origin(String),
}

/// Whether the upstream speaks TLS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// `http://`: HTTP/1.1.
    Http,
    /// `https://`: HTTP/2 or HTTP/1.1 by ALPN.
    Https,
}

/// The one upstream: scheme, host and port fixed at start; requests choose only the path
/// under `base_path`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upstream {
    /// http or https.
    pub scheme: Scheme,
    /// The host as in the URL (a name, an IPv4 address or a bracketed IPv6 address).
    pub host: String,
    /// The port (the scheme's default when the URL has none).
    pub port: u16,
    /// `host[:port]` as in the URL: what `Host` and `:authority` carry.
    pub authority: String,
    /// The base path without a trailing `/` (`""` at the root).
    pub base_path: String,
}

impl Upstream {
    /// Parses `--upstream`: `http(s)://host[:port][/base/path]`, no user, query or fragment.
    pub fn parse(url: &str) -> Result<Self, ConfigError> {
        let refuse = |reason: &str| ConfigError::Upstream {
            url: url.to_owned(),
            reason: reason.to_owned(),
        };
        if !url.contains("://") {
            return Err(refuse("no scheme (https://...)"));
        }
        let uri: http::Uri = url.parse().map_err(|_| refuse("not a URL"))?;
        let scheme = match uri.scheme_str() {
            Some("https") => Scheme::Https,
            Some("http") => Scheme::Http,
            Some(_) => return Err(refuse("the scheme must be http or https")),
            None => return Err(refuse("no scheme (https://...)")),
        };
        let authority = uri.authority().ok_or_else(|| refuse("no host"))?;
        if authority.as_str().contains('@') {
            return Err(refuse("no user name or password in the URL, please"));
        }
        if uri.query().is_some() || url.contains('#') {
            return Err(refuse("a base URL has no query or fragment"));
        }
        let host = authority.host().to_owned();
        if host.is_empty() {
            return Err(refuse("no host"));
        }
        let port = authority.port_u16().unwrap_or(match scheme {
            Scheme::Http => 80,
            Scheme::Https => 443,
        });
        let base_path = uri.path().trim_end_matches('/').to_owned();
        if !base_path.is_empty() {
            target::check_path(&base_path)
                .map_err(|reason| refuse(&format!("its path: {reason}")))?;
        }
        Ok(Self {
            scheme,
            host,
            port,
            authority: authority.as_str().to_owned(),
            base_path,
        })
    }

    /// The host to resolve: an IPv6 address without its brackets.
    pub fn host_to_resolve(&self) -> &str {
        self.host.trim_start_matches('[').trim_end_matches(']')
    }

    /// `scheme://authority`.
    pub fn origin(&self) -> String {
        let scheme = match self.scheme {
            Scheme::Http => "http",
            Scheme::Https => "https",
        };
        format!("{scheme}://{}", self.authority)
    }
}

/// One allowed page origin: exact, or any port of a scheme and host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OriginPattern {
    /// `https://page.example` (compared ASCII-case-insensitively).
    Exact(String),
    /// `http://127.0.0.1:*`: this scheme and host, any port or none.
    AnyPort(String),
}

impl OriginPattern {
    /// Parses `scheme://host[:port]` or `scheme://host:*`.
    pub fn parse(text: &str) -> Result<Self, ConfigError> {
        let lower = text.trim().to_ascii_lowercase();
        let refuse = || ConfigError::Origin(text.to_owned());
        let (scheme, rest) = lower.split_once("://").ok_or_else(refuse)?;
        let scheme_ok = !scheme.is_empty()
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b));
        let host_ok = |host: &str| {
            !host.is_empty()
                && !host.contains(['/', '?', '#', '@', ' '])
                && host.bytes().all(|b| b.is_ascii_graphic())
        };
        if !scheme_ok {
            return Err(refuse());
        }
        if let Some(host) = rest.strip_suffix(":*") {
            return if host_ok(host) {
                Ok(Self::AnyPort(format!("{scheme}://{host}")))
            } else {
                Err(refuse())
            };
        }
        if host_ok(rest) {
            Ok(Self::Exact(lower))
        } else {
            Err(refuse())
        }
    }

    /// Whether the request's `Origin` (as the browser serialises it) matches.
    pub fn matches(&self, origin: &str) -> bool {
        let origin = origin.to_ascii_lowercase();
        match self {
            Self::Exact(exact) => origin == *exact,
            Self::AnyPort(prefix) => {
                origin == *prefix
                    || origin.strip_prefix(prefix.as_str()).is_some_and(|rest| {
                        rest.strip_prefix(':').is_some_and(|port| {
                            !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
                        })
                    })
            }
        }
    }
}

/// The bounds on what a browser may send (the upstream's answer is streamed, never held).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The request body, bytes (413 beyond).
    pub body_bytes: usize,
    /// The request head's header lines, bytes of names and values (431 beyond).
    pub head_bytes: usize,
    /// The request's header count (431 beyond).
    pub header_count: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            body_bytes: 32 * 1024 * 1024,
            head_bytes: 64 * 1024,
            header_count: 100,
        }
    }
}

/// Everything a relay runs with.
#[derive(Clone, Debug)]
pub struct RelayConfig {
    /// The one upstream.
    pub upstream: Upstream,
    /// Page origins that get CORS headers; any other `Origin` is refused (403).
    pub allowed_origins: Vec<OriginPattern>,
    /// The system's CA bundle (PEM): `SSL_CERT_FILE`, else Debian's.
    pub ca_bundle: PathBuf,
    /// More trusted certificates (PEM), `--ca-file`.
    pub extra_ca_file: Option<PathBuf>,
    /// How long the upstream may take to its response headers, from the request's head.
    pub upstream_timeout: Duration,
    /// Bounds on the browser's request.
    pub limits: Limits,
}

impl RelayConfig {
    /// A relay in front of `upstream` with the defaults: loopback origins, the system's CA
    /// bundle, a 10-minute upstream timeout (as the OpenAI SDKs wait), [`Limits::default`].
    pub fn new(upstream: Upstream) -> Self {
        Self {
            upstream,
            allowed_origins: default_origins(),
            ca_bundle: system_ca_bundle(),
            extra_ca_file: None,
            upstream_timeout: Duration::from_secs(600),
            limits: Limits::default(),
        }
    }

    /// Whether `origin` may read the relay's answers.
    pub fn origin_allowed(&self, origin: &str) -> bool {
        self.allowed_origins
            .iter()
            .any(|pattern| pattern.matches(origin))
    }
}

/// [`DEFAULT_ALLOWED_ORIGINS`], parsed.
pub fn default_origins() -> Vec<OriginPattern> {
    DEFAULT_ALLOWED_ORIGINS
        .iter()
        .filter_map(|text| OriginPattern::parse(text).ok())
        .collect()
}

/// `SSL_CERT_FILE` if set (as OpenSSL and curl read it), else [`DEBIAN_CA_BUNDLE`].
pub fn system_ca_bundle() -> PathBuf {
    std::env::var_os("SSL_CERT_FILE")
        .filter(|value| !value.is_empty())
        .map_or_else(|| PathBuf::from(DEBIAN_CA_BUNDLE), PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upstream_base_url_is_split_into_its_fixed_parts() {
        let upstream = Upstream::parse("https://dashscope.aliyuncs.com/compatible-mode/v1/")
            .expect("a base URL");
        assert_eq!(upstream.scheme, Scheme::Https);
        assert_eq!(upstream.host, "dashscope.aliyuncs.com");
        assert_eq!(upstream.port, 443);
        assert_eq!(upstream.authority, "dashscope.aliyuncs.com");
        assert_eq!(upstream.base_path, "/compatible-mode/v1");
        let local = Upstream::parse("http://[::1]:8787").expect("a base URL");
        assert_eq!(
            (
                local.port,
                local.host_to_resolve(),
                local.base_path.as_str()
            ),
            (8787, "::1", "")
        );
        assert_eq!(local.origin(), "http://[::1]:8787");
    }

    #[test]
    fn upstreams_that_are_not_base_urls_are_refused_with_the_reason() {
        for (url, reason) in [
            ("dashscope.aliyuncs.com/v1", "no scheme"),
            ("ftp://example.com/v1", "http or https"),
            ("https://user:pw@example.com/v1", "user name"),
            ("https://example.com/v1?x=1", "no query"),
            ("https://example.com/v1/../admin", "its path"),
            ("https://example.com/%2e%2e", "its path"),
        ] {
            match Upstream::parse(url) {
                Err(error) => assert!(error.to_string().contains(reason), "{url}: {error}"),
                Ok(upstream) => panic!("{url} accepted as {upstream:?}"),
            }
        }
    }

    #[test]
    fn origin_patterns_match_exactly_or_any_port() {
        let any = OriginPattern::parse("http://127.0.0.1:*").expect("a pattern");
        assert!(any.matches("http://127.0.0.1:8787"));
        assert!(any.matches("http://127.0.0.1"));
        assert!(!any.matches("http://127.0.0.1.evil.example"));
        assert!(!any.matches("http://127.0.0.1:8787.evil.example"));
        assert!(!any.matches("https://127.0.0.1:8787"));
        assert!(!any.matches("http://127.0.0.1:"));
        let exact = OriginPattern::parse("https://Page.Example").expect("an origin");
        assert!(exact.matches("https://page.example"));
        assert!(!exact.matches("https://page.example:8443"));
        assert!(!exact.matches("null"));
        for bad in ["page.example", "https://", "https://a/b", "null"] {
            assert!(OriginPattern::parse(bad).is_err(), "{bad}");
        }
        let config = RelayConfig::new(Upstream::parse("http://127.0.0.1:1/v1").expect("url"));
        assert!(config.origin_allowed("http://localhost:8787"));
        assert!(config.origin_allowed("http://[::1]:8080"));
        assert!(!config.origin_allowed("https://evil.example"));
    }
}
