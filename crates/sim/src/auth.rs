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
