//! The embedder's OTLP settings: the collector endpoint (`otlp_endpoint`) and extra headers
//! (`otlp_headers`), checked before anything is sent.

use ttft_core::lang::Lang;

use super::queue::Signal;
use super::run::ServerAddress;

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
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OtlpConfigError {
    /// No endpoint.
    #[error("No OTLP endpoint was given. Set otlp_endpoint to the collector's OTLP/HTTP base URL, such as https://otel.example.com:4318.")]
    EmptyEndpoint,
    /// Longer than [`MAX_ENDPOINT_BYTES`].
    #[error("The OTLP endpoint is {length} bytes long; at most {max} are accepted.")]
    EndpointTooLong {
        /// Its length.
        length: usize,
        /// The limit.
        max: usize,
    },
    /// Not an absolute http(s) URL with a host.
    #[error("The OTLP endpoint `{endpoint}` is not an http:// or https:// URL with a host. Write it like https://otel.example.com:4318.")]
    NotHttpUrl {
        /// What was given.
        endpoint: String,
    },
    /// `user:password@` in the URL: `fetch()` refuses such URLs.
    #[error("The OTLP endpoint contains a user name or password (user:pass@host), which browsers refuse to fetch. Remove it and pass a token as an OTLP header instead.")]
    CredentialsInUrl,
    /// A query or fragment: OTLP paths have none, and a key could hide there.
    #[error("The OTLP endpoint has a query (?…) or fragment (#…). Give only the base URL, such as https://otel.example.com:4318; put tokens in OTLP headers.")]
    QueryInUrl,
    /// http endpoint from an https page (not loopback): the browser blocks mixed content.
    #[error("This page is served over https, so the browser will block the http:// OTLP endpoint `{endpoint}` (mixed content). Serve the collector over https.")]
    MixedContent {
        /// The endpoint.
        endpoint: String,
    },
    /// Header text longer than [`MAX_HEADERS_BYTES`].
    #[error("The OTLP headers are {length} bytes long; at most {max} are accepted.")]
    HeadersTooLong {
        /// Its length.
        length: usize,
        /// The limit.
        max: usize,
    },
    /// More than [`MAX_HEADERS`] headers.
    #[error("{count} OTLP headers were given; at most {max} are accepted.")]
    TooManyHeaders {
        /// How many.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// An item without `=`, or with an empty or invalid name.
    #[error("OTLP header {position} (`{item}`) is not `name=value` with a name of letters, digits and - _ . only. Write them like `x-api-token=abc123,x-team=docs`.")]
    BadHeader {
        /// 1-based.
        position: usize,
        /// The item, value hidden.
        item: String,
    },
    /// A header the page may not or must not set.
    #[error("The OTLP header `{name}` cannot be set by the page (the browser or the export sets it). Remove it.")]
    ReservedHeader {
        /// Its name.
        name: String,
    },
    /// A value with line breaks or other control characters.
    #[error(
        "The value of OTLP header `{name}` contains a line break or control character. Remove it."
    )]
    BadHeaderValue {
        /// Its name.
        name: String,
    },
    /// A header value holds the model key.
    #[error("The OTLP header `{name}` contains the model's API key. The key is only ever sent to the model endpoint: use the collector's own token here.")]
    ModelKeyInHeaders {
        /// Its name.
        name: String,
    },
}

impl OtlpConfigError {
    /// The message in the user's language.
    pub fn message(&self, lang: Lang) -> String {
        match lang {
            Lang::En => self.to_string(),
            Lang::Zh => match self {
                OtlpConfigError::EmptyEndpoint => "没有填写 OTLP 端点。请把 otlp_endpoint 设为 Collector 的 OTLP/HTTP 基础 URL，例如 https://otel.example.com:4318。".to_owned(),
                OtlpConfigError::EndpointTooLong { length, max } => format!("OTLP 端点长 {length} 字节，最多 {max} 字节。"),
                OtlpConfigError::NotHttpUrl { endpoint } => format!("OTLP 端点 `{endpoint}` 不是带主机名的 http:// 或 https:// URL。请写成 https://otel.example.com:4318 这样的形式。"),
                OtlpConfigError::CredentialsInUrl => "OTLP 端点中含有用户名或密码（user:pass@host），浏览器拒绝请求这种 URL。请删去，并改用 OTLP 请求头传递令牌。".to_owned(),
                OtlpConfigError::QueryInUrl => "OTLP 端点带有查询（?…）或片段（#…）。只需填写基础 URL，例如 https://otel.example.com:4318；令牌请放在 OTLP 请求头中。".to_owned(),
                OtlpConfigError::MixedContent { endpoint } => format!("本页面通过 https 提供，浏览器会拦截 http:// 的 OTLP 端点 `{endpoint}`（混合内容）。请让 Collector 使用 https。"),
                OtlpConfigError::HeadersTooLong { length, max } => format!("OTLP 请求头长 {length} 字节，最多 {max} 字节。"),
                OtlpConfigError::TooManyHeaders { count, max } => format!("填写了 {count} 个 OTLP 请求头，最多 {max} 个。"),
                OtlpConfigError::BadHeader { position, item } => format!("第 {position} 个 OTLP 请求头（`{item}`）不是 `名称=值`，或名称含有字母、数字和 - _ . 以外的字符。请写成 `x-api-token=abc123,x-team=docs`。"),
                OtlpConfigError::ReservedHeader { name } => format!("页面不能设置 OTLP 请求头 `{name}`（由浏览器或导出本身设置）。请删去。"),
                OtlpConfigError::BadHeaderValue { name } => format!("OTLP 请求头 `{name}` 的值含有换行或控制字符。请删去。"),
                OtlpConfigError::ModelKeyInHeaders { name } => format!("OTLP 请求头 `{name}` 中含有模型的 API 密钥。密钥只会发往模型端点：这里请使用 Collector 自己的令牌。"),
            },
        }
    }
}

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
