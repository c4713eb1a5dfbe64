//! Base URL normalization: what the user typed to the endpoint actually called (the rule is
//! documented on the parent module).

use serde::{Deserialize, Serialize};

use crate::lang::Lang;
use crate::protocol::Protocol;
use crate::texts as t;

/// Something probably wrong with the typed base URL; the endpoint was still derived.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UrlWarning {
    /// Spaces or line breaks around the URL were removed.
    SurroundingWhitespace,
    /// No scheme was typed; this one was assumed.
    MissingScheme {
        /// `http` or `https`.
        assumed: String,
    },
    /// The full route was pasted; it was removed and is added back.
    FullPathPasted {
        /// The route that was removed (`chat/completions`).
        removed: String,
    },
    /// The pasted route belongs to another protocol than the one selected.
    ProtocolPathMismatch {
        /// The route that was pasted.
        pasted: String,
        /// The protocol whose route was used instead.
        selected: Protocol,
    },
    /// A models-list URL was pasted; its base was used.
    ModelsUrlPasted,
    /// `/v1/v1` was collapsed to `/v1`.
    DoubledVersion,
    /// A version prefix was added: `/v1` to a bare host, or the prefix a known host requires.
    MissingVersionAdded {
        /// The prefix inserted, e.g. `/v1` or `/api/v1`.
        added: String,
    },
    /// The path has no version segment; it was used as typed. Try adding `/v1` if 404.
    NoVersionSegment,
    /// Plain http to a non-local host: the key travels unencrypted, and an https page
    /// cannot call it (mixed content).
    InsecureHttp,
    /// https to a local server, which usually serves plain http.
    HttpsToLocalServer,
    /// A query string was kept and placed after the route.
    QueryStringKept {
        /// The query without `?`.
        query: String,
    },
    /// A `#fragment` was dropped.
    FragmentDropped,
}

/// The typed base URL cannot be used at all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UrlError {
    /// Nothing was typed.
    Empty,
    /// Whitespace inside the URL.
    InnerWhitespace,
    /// A scheme other than http or https.
    UnsupportedScheme {
        /// The scheme that was typed.
        scheme: String,
    },
    /// No host after the scheme.
    MissingHost,
    /// A user name or password before the host (`https://user:password@host`).
    Credentials,
}

/// The endpoint derived from what the user typed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Endpoint {
    /// The protocol the endpoint was derived for.
    pub protocol: Protocol,
    /// The URL the request is sent to (`https://api.openai.com/v1/chat/completions`).
    pub endpoint_url: String,
    /// The version base (`https://api.openai.com/v1`), without trailing slash.
    pub base_url: String,
    /// The models-list URL (`https://api.openai.com/v1/models`).
    pub models_url: String,
    /// Whether the host is a loopback address.
    pub local: bool,
    /// What looked wrong in the input, in the order found.
    pub warnings: Vec<UrlWarning>,
}

/// Routes recognised at the end of a pasted URL, with the protocol they belong to.
const KNOWN_ROUTES: [(&str, Option<Protocol>); 4] = [
    ("chat/completions", Some(Protocol::OpenAiChat)),
    ("messages", Some(Protocol::AnthropicMessages)),
    ("responses", Some(Protocol::OpenAiResponses)),
    ("completions", None),
];

/// Hosts whose API lives under a prefix other than the generic `/v1`, for a path that
/// lacks a version: `(host, path typed, correct path)`.
const KNOWN_PREFIXES: [(&str, &str, &str); 4] = [
    ("openrouter.ai", "", "/api/v1"),
    ("openrouter.ai", "/api", "/api/v1"),
    ("api.groq.com", "/openai", "/openai/v1"),
    ("generativelanguage.googleapis.com", "", "/v1beta/openai"),
];

/// Whether a host (without port) is a loopback address.
pub(crate) fn is_loopback_host(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host.starts_with("127.")
        || host == "[::1]"
        || host == "0.0.0.0"
}

/// Host without port (keeps IPv6 brackets).
pub(crate) fn host_without_port(authority: &str) -> &str {
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(end) => &authority[..=end],
            None => authority,
        };
    }
    authority.split(':').next().unwrap_or(authority)
}

/// Whether a path segment is an API version (`v1`, `v2`, `v1beta`, `v1alpha2`).
pub fn is_version_segment(segment: &str) -> bool {
    let Some(rest) = segment.strip_prefix('v') else {
        return false;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let suffix = &rest[digits..];
    let suffix = suffix
        .strip_prefix("alpha")
        .or_else(|| suffix.strip_prefix("beta"))
        .unwrap_or(suffix);
    suffix.chars().all(|c| c.is_ascii_digit())
}

/// Splits the path of a URL into non-empty segments.
fn segments(path: &str) -> Vec<&str> {
    path.split('/').filter(|s| !s.is_empty()).collect()
}

/// Removes a known route from the end of the path segments, warning about it.
fn strip_route(segs: &mut Vec<&str>, protocol: Protocol, warnings: &mut Vec<UrlWarning>) {
    if segs.last() == Some(&"models") {
        segs.pop();
        warnings.push(UrlWarning::ModelsUrlPasted);
        return;
    }
    for (route, route_protocol) in KNOWN_ROUTES {
        let route_segs: Vec<&str> = route.split('/').collect();
        if segs.len() >= route_segs.len() && segs.ends_with(&route_segs) {
            segs.truncate(segs.len() - route_segs.len());
            if route_protocol == Some(protocol) {
                warnings.push(UrlWarning::FullPathPasted {
                    removed: route.to_owned(),
                });
            } else {
                warnings.push(UrlWarning::ProtocolPathMismatch {
                    pasted: route.to_owned(),
                    selected: protocol,
                });
            }
            return;
        }
    }
}

/// Collapses consecutive identical version segments (`/v1/v1` → `/v1`).
fn collapse_doubled_version(segs: &mut Vec<&str>, warnings: &mut Vec<UrlWarning>) {
    let before = segs.len();
    segs.dedup_by(|later, earlier| later == earlier && is_version_segment(later));
    if segs.len() != before {
        warnings.push(UrlWarning::DoubledVersion);
    }
}

/// Turns what the user typed into the endpoint actually called (see the module docs).
pub fn normalize_base_url(input: &str, protocol: Protocol) -> Result<Endpoint, UrlError> {
    let mut warnings = Vec::new();
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return Err(UrlError::Empty);
    }
    if trimmed.len() != input.len() {
        warnings.push(UrlWarning::SurroundingWhitespace);
    }
    if trimmed.chars().any(char::is_whitespace) {
        return Err(UrlError::InnerWhitespace);
    }
    let (without_fragment, fragment) = match trimmed.split_once('#') {
        Some((before, _)) => (before, true),
        None => (trimmed, false),
    };
    let (without_query, query) = match without_fragment.split_once('?') {
        Some((before, query)) => (before, Some(query)),
        None => (without_fragment, None),
    };
    let (scheme, rest) = match without_query.split_once("://") {
        Some((scheme, rest)) => (scheme.to_ascii_lowercase(), rest),
        None => (String::new(), without_query),
    };
    let (authority, path) = match rest.find('/') {
        Some(slash) => (&rest[..slash], &rest[slash..]),
        None => (rest, ""),
    };
    if authority.contains('@') {
        return Err(UrlError::Credentials);
    }
    let host = host_without_port(authority).to_ascii_lowercase();
    if host.is_empty() {
        return Err(UrlError::MissingHost);
    }
    let local = is_loopback_host(&host);
    let scheme = match scheme.as_str() {
        "" => {
            let assumed = if local { "http" } else { "https" };
            warnings.push(UrlWarning::MissingScheme {
                assumed: assumed.to_owned(),
            });
            assumed.to_owned()
        }
        "http" | "https" => scheme,
        _ => return Err(UrlError::UnsupportedScheme { scheme }),
    };
    if scheme == "http" && !local {
        warnings.push(UrlWarning::InsecureHttp);
    }
    if scheme == "https" && local {
        warnings.push(UrlWarning::HttpsToLocalServer);
    }

    let mut segs = segments(path);
    strip_route(&mut segs, protocol, &mut warnings);
    collapse_doubled_version(&mut segs, &mut warnings);
    let typed_path: String = segs.iter().map(|s| format!("/{s}")).collect();
    let base_path = if segs.iter().any(|s| is_version_segment(s)) {
        typed_path
    } else if let Some((_, _, known)) = KNOWN_PREFIXES
        .iter()
        .find(|(known_host, typed, _)| *known_host == host && *typed == typed_path)
    {
        warnings.push(UrlWarning::MissingVersionAdded {
            added: (*known).to_owned(),
        });
        (*known).to_owned()
    } else if typed_path.is_empty() {
        warnings.push(UrlWarning::MissingVersionAdded {
            added: "/v1".to_owned(),
        });
        "/v1".to_owned()
    } else {
        warnings.push(UrlWarning::NoVersionSegment);
        typed_path
    };
    if let Some(query) = query.filter(|q| !q.is_empty()) {
        warnings.push(UrlWarning::QueryStringKept {
            query: query.to_owned(),
        });
    }
    if fragment {
        warnings.push(UrlWarning::FragmentDropped);
    }
    let base_url = format!("{scheme}://{}{base_path}", authority.to_ascii_lowercase());
    let query_suffix = query
        .filter(|q| !q.is_empty())
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    Ok(Endpoint {
        protocol,
        endpoint_url: format!("{base_url}/{}{query_suffix}", protocol.route()),
        models_url: format!("{base_url}/models{query_suffix}"),
        base_url,
        local,
        warnings,
    })
}

impl UrlWarning {
    /// A one-line explanation for the user.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            UrlWarning::SurroundingWhitespace => {
                t::URL_WARNING_SURROUNDING_WHITESPACE.get(lang).to_owned()
            }
            UrlWarning::MissingScheme { assumed } => {
                t::URL_WARNING_MISSING_SCHEME.fill(lang, &[("assumed", assumed)])
            }
            UrlWarning::FullPathPasted { removed } => {
                t::URL_WARNING_FULL_PATH_PASTED.fill(lang, &[("removed", removed)])
            }
            UrlWarning::ProtocolPathMismatch { pasted, selected } => {
                t::URL_WARNING_PROTOCOL_PATH_MISMATCH
                    .fill(lang, &[("pasted", pasted), ("selected", &selected.label())])
            }
            UrlWarning::ModelsUrlPasted => t::URL_WARNING_MODELS_URL_PASTED.get(lang).to_owned(),
            UrlWarning::DoubledVersion => t::URL_WARNING_DOUBLED_VERSION.get(lang).to_owned(),
            UrlWarning::MissingVersionAdded { added } => {
                t::URL_WARNING_MISSING_VERSION_ADDED.fill(lang, &[("added", added)])
            }
            UrlWarning::NoVersionSegment => t::URL_WARNING_NO_VERSION_SEGMENT.get(lang).to_owned(),
            UrlWarning::InsecureHttp => t::URL_WARNING_INSECURE_HTTP.get(lang).to_owned(),
            UrlWarning::HttpsToLocalServer => {
                t::URL_WARNING_HTTPS_TO_LOCAL_SERVER.get(lang).to_owned()
            }
            UrlWarning::QueryStringKept { query } => {
                t::URL_WARNING_QUERY_STRING_KEPT.fill(lang, &[("query", query)])
            }
            UrlWarning::FragmentDropped => t::URL_WARNING_FRAGMENT_DROPPED.get(lang).to_owned(),
        }
    }
}

impl UrlError {
    /// The error for the user, in a language.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            UrlError::Empty => t::URL_ERROR_EMPTY.get(lang).to_owned(),
            UrlError::InnerWhitespace => t::URL_ERROR_INNER_WHITESPACE.get(lang).to_owned(),
            UrlError::UnsupportedScheme { scheme } => {
                t::URL_ERROR_UNSUPPORTED_SCHEME.fill(lang, &[("scheme", scheme)])
            }
            UrlError::MissingHost => t::URL_ERROR_MISSING_HOST.get(lang).to_owned(),
            UrlError::Credentials => t::URL_ERROR_CREDENTIALS.get(lang).to_owned(),
        }
    }
}

impl std::fmt::Display for UrlError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for UrlError {}
