//! Request headers per protocol: content type, the key in the protocol's style, and
//! Anthropic's version and browser-access headers. Secret values are masked whenever a
//! header is shown.

use super::key::ApiKey;
use super::secret::{is_secret_header, mask_secret_value};
use crate::protocol::{AuthStyle, Protocol, ANTHROPIC_VERSION};

/// One HTTP header.
#[derive(Clone, PartialEq, Eq)]
pub struct Header {
    /// Header name, lower case.
    pub name: String,
    /// Header value (may contain the key: never log or export it).
    pub value: String,
}

impl std::fmt::Debug for Header {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "{}: {}",
            self.name,
            masked_header_value(&self.name, &self.value)
        )
    }
}

/// A header value fit for display: secrets masked.
pub(crate) fn masked_header_value(name: &str, value: &str) -> String {
    if is_secret_header(name) {
        mask_secret_value(value)
    } else {
        value.to_owned()
    }
}

/// Request headers: content type, the key in the chosen style (only when there is one) and,
/// for Anthropic, `anthropic-version` and `anthropic-dangerous-direct-browser-access: true`
/// (without it api.anthropic.com sends no CORS headers and the browser blocks the answer).
pub fn build_headers(
    protocol: Protocol,
    auth_style: AuthStyle,
    key: Option<&ApiKey>,
) -> Vec<Header> {
    let header = |name: &str, value: String| Header {
        name: name.to_owned(),
        value,
    };
    let mut headers = vec![header("content-type", "application/json".to_owned())];
    if let Some(key) = key {
        headers.push(match auth_style {
            AuthStyle::Bearer => header("authorization", format!("Bearer {}", key.expose())),
            AuthStyle::XApiKey => header("x-api-key", key.expose().to_owned()),
        });
    }
    if protocol == Protocol::AnthropicMessages {
        headers.push(header("anthropic-version", ANTHROPIC_VERSION.to_owned()));
        headers.push(header(
            "anthropic-dangerous-direct-browser-access",
            "true".to_owned(),
        ));
    }
    headers
}

/// W3C Trace Context's header name (lowercase, as sent); see `crate::trace_context`.
pub const TRACEPARENT: &str = "traceparent";

/// Whether a request carries `traceparent`.
pub fn has_traceparent(headers: &[(String, String)]) -> bool {
    headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case(TRACEPARENT))
}
