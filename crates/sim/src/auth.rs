//! `--require-key`: which header carries the key in each dialect, and the 401 it earns.

use axum::http::HeaderMap;

use crate::dialect::errors::ApiError;
use crate::request::Dialect;

/// Which header carries the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyStyle {
    /// `Authorization: Bearer KEY` (OpenAI style).
    Bearer,
    /// `x-api-key: KEY` (Anthropic style).
    XApiKey,
    /// Either (`/v1/models`, which both families serve).
    Either,
}

impl KeyStyle {
    /// The style a dialect's real provider expects.
    pub fn for_dialect(dialect: Dialect) -> Self {
        match dialect {
            Dialect::Messages => Self::XApiKey,
            Dialect::Chat | Dialect::Responses => Self::Bearer,
        }
    }
}

/// Checks the key; the error says what was wrong (missing, wrong, wrong header style).
pub fn check_key(headers: &HeaderMap, style: KeyStyle, key: &str) -> Result<(), ApiError> {
    let bearer = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.strip_prefix("Bearer ").unwrap_or(v));
    let x_api_key = headers.get("x-api-key").and_then(|v| v.to_str().ok());
    let (expected, other) = match style {
        KeyStyle::Bearer => (bearer, x_api_key),
        KeyStyle::XApiKey => (x_api_key, bearer),
        KeyStyle::Either => (bearer.or(x_api_key), None),
    };
    match (expected, other) {
        // Compared exactly: a key with a stray space is a wrong key, as upstream.
        (Some(sent), _) if sent == key => Ok(()),
        (Some(_), _) => Err(ApiError::WrongKey),
        (None, Some(_)) => Err(ApiError::WrongHeaderStyle),
        (None, None) => Err(ApiError::MissingKey),
    }
}

/// The keys a request carries, in `Authorization: Bearer KEY` (the scheme in any case) and
/// then `x-api-key: KEY`; empty or non-UTF-8 values are left out.
pub fn sent_keys(headers: &HeaderMap) -> Vec<String> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|value| std::str::from_utf8(value.as_bytes()).ok())
    };
    let bearer = text("authorization").and_then(|value| {
        let (scheme, key) = value.split_at_checked(7)?;
        scheme.eq_ignore_ascii_case("bearer ").then_some(key)
    });
    [bearer, text("x-api-key")]
        .into_iter()
        .flatten()
        .filter(|key| !key.is_empty())
        .map(str::to_string)
        .collect()
}

/// The request's key: the first of [`sent_keys`].
pub fn request_key(headers: &HeaderMap) -> Option<String> {
    sent_keys(headers).into_iter().next()
}

/// The `echo_key` faults' message: every key header of the request in full, as a naive
/// gateway logs them back, plus the key's base64 and URL-encoded forms (a scrubber must
/// catch those too).
pub fn key_echo(headers: &HeaderMap) -> String {
    use base64::Engine as _;
    let sent: Vec<(&str, &str)> = ["authorization", "x-api-key"]
        .into_iter()
        .filter_map(|name| {
            let value = headers.get(name)?.to_str().ok()?;
            Some((name, value))
        })
        .collect();
    let Some(key) = sent.first().map(|(name, value)| match *name {
        "authorization" => value.strip_prefix("Bearer ").unwrap_or(value),
        _ => value,
    }) else {
        return "Incorrect API key provided: the request had no authorization or x-api-key \
                header."
            .to_string();
    };
    let listed: Vec<String> = sent
        .iter()
        .map(|(name, value)| format!("{name}: {value}"))
        .collect();
    format!(
        "Incorrect API key provided. Received {}; the key base64-encoded: {}; URL-encoded: {}.",
        listed.join(", "),
        base64::engine::general_purpose::STANDARD.encode(key),
        encode_uri_component(key)
    )
}

/// JavaScript's `encodeURIComponent`: UTF-8 percent-encoding of everything but
/// `A-Z a-z 0-9 - _ . ! ~ * ' ( )`.
fn encode_uri_component(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&byte) {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        map
    }

    #[test]
    fn echo_lists_the_headers_and_encodings() {
        let echo = key_echo(&headers(&[("authorization", "Bearer sk-a.b/c")]));
        assert_eq!(
            echo,
            "Incorrect API key provided. Received authorization: Bearer sk-a.b/c; the key \
             base64-encoded: c2stYS5iL2M=; URL-encoded: sk-a.b%2Fc."
        );
        let both = key_echo(&headers(&[
            ("authorization", "Bearer k1"),
            ("x-api-key", "k2"),
        ]));
        assert!(
            both.contains("authorization: Bearer k1, x-api-key: k2"),
            "{both}"
        );
        assert!(key_echo(&HeaderMap::new()).contains("no authorization"));
        assert_eq!(encode_uri_component("a b+é"), "a%20b%2B%C3%A9");
    }

    #[test]
    fn sent_keys_take_bearer_then_x_api_key() {
        let both = headers(&[("authorization", "bearer k1"), ("x-api-key", "k2")]);
        assert_eq!(sent_keys(&both), ["k1", "k2"]);
        assert_eq!(request_key(&both).as_deref(), Some("k1"));
        let basic = headers(&[("authorization", "Basic abc"), ("x-api-key", "")]);
        assert!(sent_keys(&basic).is_empty());
        let mut utf8 = HeaderMap::new();
        utf8.insert(
            "x-api-key",
            axum::http::HeaderValue::from_bytes("clé".as_bytes()).unwrap(),
        );
        assert_eq!(sent_keys(&utf8), ["clé"]);
    }

    #[test]
    fn key_checks_table() {
        use KeyStyle::*;
        type Row = (
            KeyStyle,
            &'static [(&'static str, &'static str)],
            Result<(), ApiError>,
        );
        let table: &[Row] = &[
            (Bearer, &[("authorization", "Bearer k")], Ok(())),
            (
                Bearer,
                &[("authorization", "Bearer x")],
                Err(ApiError::WrongKey),
            ),
            (
                Bearer,
                &[("authorization", "Bearer  k")],
                Err(ApiError::WrongKey),
            ),
            (
                Bearer,
                &[("x-api-key", "k")],
                Err(ApiError::WrongHeaderStyle),
            ),
            (Bearer, &[], Err(ApiError::MissingKey)),
            (XApiKey, &[("x-api-key", "k")], Ok(())),
            (
                XApiKey,
                &[("authorization", "Bearer k")],
                Err(ApiError::WrongHeaderStyle),
            ),
            (XApiKey, &[("x-api-key", "x")], Err(ApiError::WrongKey)),
            (Either, &[("x-api-key", "k")], Ok(())),
            (Either, &[("authorization", "Bearer k")], Ok(())),
            (Either, &[], Err(ApiError::MissingKey)),
        ];
        for (style, pairs, expected) in table {
            assert_eq!(
                &check_key(&headers(pairs), *style, "k"),
                expected,
                "{style:?} {pairs:?}"
            );
        }
    }
}
