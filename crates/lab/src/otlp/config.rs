//! The embedder's OTLP settings: the collector endpoint (`otlp_endpoint`) and extra headers
//! (`otlp_headers`), checked before anything is sent.

use std::fmt;

use ttft_core::lang::Lang;

use super::queue::Signal;
use super::run::ServerAddress;
use crate::texts as t;

/// Longest endpoint URL accepted.
pub const MAX_ENDPOINT_BYTES: usize = 2048;
/// Longest header text accepted.
pub const MAX_HEADERS_BYTES: usize = 4096;
/// Most extra headers.
pub const MAX_HEADERS: usize = 16;

/// Headers the page must not set or that would break OTLP: the browser's forbidden request
/// headers that matter here, the ones the export sets itself, and `traceparent` (ours).
const RESERVED_HEADERS: [&str; 12] = [
    "content-type",
    "content-length",
    "content-encoding",
    "host",
    "origin",
    "referer",
    "cookie",
    "connection",
    "keep-alive",
    "transfer-encoding",
    "accept-encoding",
    "traceparent",
];

/// Why the OTLP settings were refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OtlpConfigError {
    /// No endpoint.
    EmptyEndpoint,
    /// Longer than [`MAX_ENDPOINT_BYTES`].
    EndpointTooLong {
        /// Its length.
        length: usize,
        /// The limit.
        max: usize,
    },
    /// Not an absolute http(s) URL with a host.
    NotHttpUrl {
        /// What was given.
        endpoint: String,
    },
    /// `user:password@` in the URL: `fetch()` refuses such URLs.
    CredentialsInUrl,
    /// A query or fragment: OTLP paths have none, and a key could hide there.
    QueryInUrl,
    /// http endpoint from an https page (not loopback): the browser blocks mixed content.
    MixedContent {
        /// The endpoint.
        endpoint: String,
    },
    /// Header text longer than [`MAX_HEADERS_BYTES`].
    HeadersTooLong {
        /// Its length.
        length: usize,
        /// The limit.
        max: usize,
    },
    /// More than [`MAX_HEADERS`] headers.
    TooManyHeaders {
        /// How many.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// An item without `=`, or with an empty or invalid name.
    BadHeader {
        /// 1-based.
        position: usize,
        /// The item, value hidden.
        item: String,
    },
    /// A header the page may not or must not set.
    ReservedHeader {
        /// Its name.
        name: String,
    },
    /// A value with line breaks or other control characters.
    BadHeaderValue {
        /// Its name.
        name: String,
    },
    /// A header value holds the model key.
    ModelKeyInHeaders {
        /// Its name.
        name: String,
    },
}

impl OtlpConfigError {
    /// The message in the user's language.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            OtlpConfigError::EmptyEndpoint => {
                t::OTLP_CONFIG_ERROR_EMPTY_ENDPOINT.get(lang).to_owned()
            }
            OtlpConfigError::EndpointTooLong { length, max } => {
                t::OTLP_CONFIG_ERROR_ENDPOINT_TOO_LONG
                    .fill(lang, &[("length", length), ("max", max)])
            }
            OtlpConfigError::NotHttpUrl { endpoint } => {
                t::OTLP_CONFIG_ERROR_NOT_HTTP_URL.fill(lang, &[("endpoint", endpoint)])
            }
            OtlpConfigError::CredentialsInUrl => {
                t::OTLP_CONFIG_ERROR_CREDENTIALS_IN_URL.get(lang).to_owned()
            }
            OtlpConfigError::QueryInUrl => t::OTLP_CONFIG_ERROR_QUERY_IN_URL.get(lang).to_owned(),
            OtlpConfigError::MixedContent { endpoint } => {
                t::OTLP_CONFIG_ERROR_MIXED_CONTENT.fill(lang, &[("endpoint", endpoint)])
            }
            OtlpConfigError::HeadersTooLong { length, max } => {
                t::OTLP_CONFIG_ERROR_HEADERS_TOO_LONG
                    .fill(lang, &[("length", length), ("max", max)])
            }
            OtlpConfigError::TooManyHeaders { count, max } => {
                t::OTLP_CONFIG_ERROR_TOO_MANY_HEADERS.fill(lang, &[("count", count), ("max", max)])
            }
            OtlpConfigError::BadHeader { position, item } => t::OTLP_CONFIG_ERROR_BAD_HEADER
                .fill(lang, &[("item", item), ("position", position)]),
            OtlpConfigError::ReservedHeader { name } => {
                t::OTLP_CONFIG_ERROR_RESERVED_HEADER.fill(lang, &[("name", name)])
            }
            OtlpConfigError::BadHeaderValue { name } => {
                t::OTLP_CONFIG_ERROR_BAD_HEADER_VALUE.fill(lang, &[("name", name)])
            }
            OtlpConfigError::ModelKeyInHeaders { name } => {
                t::OTLP_CONFIG_ERROR_MODEL_KEY_IN_HEADERS.fill(lang, &[("name", name)])
            }
        }
    }
}

impl fmt::Display for OtlpConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for OtlpConfigError {}

/// A checked collector endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtlpEndpoint {
    base_url: String,
    origin: String,
    /// The signal path that was pasted and removed (`/v1/traces`), if any.
    pub removed_signal_path: Option<String>,
}

impl OtlpEndpoint {
    /// Checks `otlp_endpoint`: an absolute http(s) URL without credentials, query or
    /// fragment. A pasted `/v1/metrics` or `/v1/traces` is removed (both are added per
    /// signal). With `page_origin`, an http endpoint from an https page is refused unless it
    /// is loopback (browsers block mixed content).
    pub fn parse(text: &str, page_origin: Option<&str>) -> Result<OtlpEndpoint, OtlpConfigError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(OtlpConfigError::EmptyEndpoint);
        }
        if text.len() > MAX_ENDPOINT_BYTES {
            return Err(OtlpConfigError::EndpointTooLong {
                length: text.len(),
                max: MAX_ENDPOINT_BYTES,
            });
        }
        let not_http = || OtlpConfigError::NotHttpUrl {
            endpoint: text.to_owned(),
        };
        if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(not_http());
        }
        let server = ServerAddress::from_url(text).ok_or_else(not_http)?;
        let (scheme, rest) = text.split_once("://").ok_or_else(not_http)?;
        let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, path) = rest.split_at(authority_end);
        if authority.contains('@') {
            return Err(OtlpConfigError::CredentialsInUrl);
        }
        if path.contains(['?', '#']) {
            return Err(OtlpConfigError::QueryInUrl);
        }
        let mut path = path.trim_end_matches('/').to_owned();
        let mut removed_signal_path = None;
        for signal in [Signal::Metrics, Signal::Traces] {
            if let Some(stripped) = path.strip_suffix(signal.path()) {
                removed_signal_path = Some(signal.path().to_owned());
                path = stripped.to_owned();
                break;
            }
        }
        let scheme = scheme.to_ascii_lowercase();
        if let Some(page_origin) = page_origin {
            let page_https = page_origin
                .trim()
                .to_ascii_lowercase()
                .starts_with("https://");
            if page_https && scheme == "http" && !server.is_loopback() {
                return Err(OtlpConfigError::MixedContent {
                    endpoint: text.to_owned(),
                });
            }
        }
        let origin = format!("{scheme}://{}", authority.to_ascii_lowercase());
        Ok(OtlpEndpoint {
            base_url: format!("{origin}{path}"),
            origin,
            removed_signal_path,
        })
    }

    /// The base URL, without trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The collector's origin (`https://otel.example.com:4318`).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The URL a signal is POSTed to.
    pub fn signal_url(&self, signal: Signal) -> String {
        format!("{}{}", self.base_url, signal.path())
    }
}

/// Extra request headers for the collector (its token, a tenant id), never the model key.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct OtlpHeaders {
    headers: Vec<(String, String)>,
}

impl std::fmt::Debug for OtlpHeaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Values are tokens: never in logs.
        f.debug_list()
            .entries(self.headers.iter().map(|(name, _)| format!("{name}=…")))
            .finish()
    }
}

/// Decodes `%XX` escapes (the OTEL_EXPORTER_OTLP_HEADERS form); `None` on a bad escape or
/// invalid UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = text.get(index + 1..index + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            index += 3;
        } else {
            out.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.'))
}

impl OtlpHeaders {
    /// Parses `name=value,name2=value2` (the form of `OTEL_EXPORTER_OTLP_HEADERS`: values
    /// may be percent-encoded). Names are kept lowercase. Empty text is no header.
    pub fn parse(text: &str) -> Result<OtlpHeaders, OtlpConfigError> {
        if text.len() > MAX_HEADERS_BYTES {
            return Err(OtlpConfigError::HeadersTooLong {
                length: text.len(),
                max: MAX_HEADERS_BYTES,
            });
        }
        let items: Vec<&str> = text
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .collect();
        if items.len() > MAX_HEADERS {
            return Err(OtlpConfigError::TooManyHeaders {
                count: items.len(),
                max: MAX_HEADERS,
            });
        }
        let mut headers = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let bad = || OtlpConfigError::BadHeader {
                position: index + 1,
                item: item
                    .split_once('=')
                    .map_or_else(|| cut_item(item), |(name, _)| format!("{name}=…")),
            };
            let (name, value) = item.split_once('=').ok_or_else(bad)?;
            let name = name.trim().to_ascii_lowercase();
            if !is_header_name(&name) {
                return Err(bad());
            }
            if RESERVED_HEADERS.contains(&name.as_str())
                || name.starts_with("sec-")
                || name.starts_with("proxy-")
                || name.starts_with("access-control-")
            {
                return Err(OtlpConfigError::ReservedHeader { name });
            }
            let value = percent_decode(value.trim()).ok_or_else(bad)?;
            if value.chars().any(char::is_control) {
                return Err(OtlpConfigError::BadHeaderValue { name });
            }
            headers.push((name, value));
        }
        Ok(OtlpHeaders { headers })
    }

    /// Refuses headers that carry the model key (compared after trimming; keys shorter than
    /// 8 characters are too short to tell apart from ordinary words and are not checked).
    pub fn check_not_model_key(&self, model_key: &str) -> Result<(), OtlpConfigError> {
        let key = model_key.trim();
        if key.len() < 8 {
            return Ok(());
        }
        match self.headers.iter().find(|(_, value)| value.contains(key)) {
            Some((name, _)) => Err(OtlpConfigError::ModelKeyInHeaders { name: name.clone() }),
            None => Ok(()),
        }
    }

    /// The headers, names lowercase, for the glue's `fetch()`.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.headers
    }

    /// The names, for the collector's `cors.allowed_headers` (shown in messages and docs).
    pub fn names(&self) -> Vec<&str> {
        self.headers.iter().map(|(name, _)| name.as_str()).collect()
    }
}

/// An item shown in an error without its value.
fn cut_item(item: &str) -> String {
    super::resource::cut(item, 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_becomes_a_base_url_with_signal_paths_added() {
        let endpoint = OtlpEndpoint::parse(" https://OTel.example.com:4318/ ", None).unwrap();
        assert_eq!(
            endpoint.signal_url(Signal::Metrics),
            "https://otel.example.com:4318/v1/metrics"
        );
        assert_eq!(endpoint.origin(), "https://otel.example.com:4318");
        let pasted = OtlpEndpoint::parse("https://o.example/otlp/v1/traces", None).unwrap();
        assert_eq!(pasted.base_url(), "https://o.example/otlp");
        assert_eq!(pasted.removed_signal_path.as_deref(), Some("/v1/traces"));
    }

    #[test]
    fn bad_endpoints_are_refused_with_what_to_do() {
        let page = Some("https://docs.example.com");
        let cases: [(&str, OtlpConfigError); 5] = [
            ("", OtlpConfigError::EmptyEndpoint),
            (
                "otel.example.com:4318",
                OtlpConfigError::NotHttpUrl {
                    endpoint: "otel.example.com:4318".into(),
                },
            ),
            (
                "https://u:p@otel.example.com",
                OtlpConfigError::CredentialsInUrl,
            ),
            (
                "https://otel.example.com/?token=x",
                OtlpConfigError::QueryInUrl,
            ),
            (
                "http://otel.example.com:4318",
                OtlpConfigError::MixedContent {
                    endpoint: "http://otel.example.com:4318".into(),
                },
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(
                OtlpEndpoint::parse(text, page),
                Err(expected.clone()),
                "{text}"
            );
            assert!(!expected.message(Lang::Zh).is_empty());
        }
        assert!(OtlpEndpoint::parse("http://127.0.0.1:4318", page).is_ok());
    }

    #[test]
    fn headers_parse_in_the_otel_env_form_and_never_hold_the_key() {
        let headers = OtlpHeaders::parse("X-Api-Token=abc%3D123 , x-team=docs").unwrap();
        assert_eq!(
            headers.pairs(),
            &[
                ("x-api-token".to_owned(), "abc=123".to_owned()),
                ("x-team".to_owned(), "docs".to_owned())
            ]
        );
        assert_eq!(format!("{headers:?}"), "[\"x-api-token=…\", \"x-team=…\"]");
        assert_eq!(
            OtlpHeaders::parse("authorization=Bearer sk-secret-123456")
                .unwrap()
                .check_not_model_key("sk-secret-123456"),
            Err(OtlpConfigError::ModelKeyInHeaders {
                name: "authorization".into()
            })
        );
        assert!(matches!(
            OtlpHeaders::parse("content-type=text/plain"),
            Err(OtlpConfigError::ReservedHeader { .. })
        ));
        assert!(matches!(
            OtlpHeaders::parse("x-token"),
            Err(OtlpConfigError::BadHeader { position: 1, .. })
        ));
        assert!(matches!(
            OtlpHeaders::parse("x-token=a%0Ab"),
            Err(OtlpConfigError::BadHeaderValue { .. })
        ));
        assert_eq!(OtlpHeaders::parse("").unwrap().pairs(), &[]);
    }
}
