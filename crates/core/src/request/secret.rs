//! Which names carry secrets: one rule for query parameters (refused in the page's own URL,
//! blanked in every URL the page shows, stores or exports) and one for request headers
//! (masked wherever a request is shown). Both the refusal and the redaction ask these
//! functions, so they cannot disagree.

/// Words that name a secret on their own (`?key=`, `?code=`, `?sig=`, `?auth=`).
const SECRET_WORDS: [&str; 14] = [
    "key",
    "apikey",
    "token",
    "secret",
    "password",
    "passwd",
    "pwd",
    "auth",
    "authorization",
    "bearer",
    "sig",
    "signature",
    "code",
    "credential",
];

/// Whether a query parameter name carries a secret. The name is compared without case and
/// split into words at `_`, `-` and `.`: a secret word anywhere (`subscription-key`,
/// `x-api-key`, `access_token`, `client_secret`, `code`, `sig`, `auth`), or a name that
/// contains `key` or `token` at all (`apikey`, `accesstoken`, `monkey`: when in doubt, a
/// parameter is treated as secret). Plural counts such as `max_tokens` are not secrets.
pub fn is_secret_param(name: &str) -> bool {
    let lower = name.trim().to_ascii_lowercase();
    let words = lower.split(['_', '-', '.']).filter(|word| !word.is_empty());
    let mut any_word = false;
    for word in words {
        any_word = true;
        if SECRET_WORDS.contains(&word) {
            return true;
        }
        let counted = word == "tokens" || word == "keys";
        if !counted && (word.contains("key") || word.contains("token")) {
            return true;
        }
    }
    // A name of separators only is odd enough to refuse.
    !any_word && !lower.is_empty()
}

/// Whether a request header carries the key (compared without case).
pub fn is_secret_header(name: &str) -> bool {
    let lower = name.trim().to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "authorization" | "proxy-authorization" | "x-api-key" | "api-key" | "x-goog-api-key"
    ) || lower.ends_with("-key")
        || lower.ends_with("-token")
        || lower == "cookie"
}

/// A secret header value in masked form: `Bearer sk-…abcd` keeps the scheme, and the first
/// 3 and last 4 characters of a long key ([`ApiKey::masked`](crate::request::ApiKey::masked)).
/// A value that already holds `…` is a masked one (real keys are ASCII: `ApiKey::parse`
/// refuses anything else) and is kept, so masking twice changes nothing.
pub fn mask_secret_value(value: &str) -> String {
    if value.contains('…') {
        return value.to_owned();
    }
    let (prefix, secret) = match value.strip_prefix("Bearer ") {
        Some(secret) => ("Bearer ", secret),
        None => ("", value),
    };
    match super::key::ApiKey::parse(secret) {
        Ok(Some(key)) => format!("{prefix}{}", key.masked()),
        _ => format!("{prefix}…"),
    }
}

/// `url` with the value of every secret query parameter replaced by `…`; the rest (path,
/// other parameters, fragment) as it was.
pub fn redact_url(url: &str) -> String {
    let Some((before, query)) = url.split_once('?') else {
        return url.to_owned();
    };
    let (query, fragment) = match query.split_once('#') {
        Some((query, fragment)) => (query, Some(fragment)),
        None => (query, None),
    };
    let params: Vec<String> = query
        .split('&')
        .map(|param| match param.split_once('=') {
            Some((name, _)) if is_secret_param(name) => format!("{name}=…"),
            _ => param.to_owned(),
        })
        .collect();
    let mut redacted = format!("{before}?{}", params.join("&"));
    if let Some(fragment) = fragment {
        redacted.push('#');
        redacted.push_str(fragment);
    }
    redacted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_parameter_names() {
        for name in [
            "key",
            "API_KEY",
            "apikey",
            "api-key",
            "x-api-key",
            "subscription-key",
            "Ocp-Apim-Subscription-Key",
            "token",
            "access_token",
            "id_token",
            "accessToken",
            "my_secret",
            "client_secret",
            "password",
            "code",
            "sig",
            "auth",
            "authorization",
            "monkey",
        ] {
            assert!(is_secret_param(name), "{name}");
        }
        for name in [
            "max_tokens",
            "model",
            "base_url",
            "runs",
            "lang",
            "prompt",
            "target_origin",
            "api-version",
            "design",
        ] {
            assert!(!is_secret_param(name), "{name}");
        }
    }

    #[test]
    fn secret_headers() {
        for name in [
            "Authorization",
            "x-api-key",
            "api-key",
            "X-Goog-Api-Key",
            "cookie",
        ] {
            assert!(is_secret_header(name), "{name}");
        }
        for name in ["content-type", "anthropic-version", "traceparent"] {
            assert!(!is_secret_header(name), "{name}");
        }
    }

    #[test]
    fn urls_keep_everything_but_secret_values() {
        assert_eq!(
            redact_url("https://h/v1?api-version=2024-10-01&key=abc&sig=x#f"),
            "https://h/v1?api-version=2024-10-01&key=…&sig=…#f"
        );
        assert_eq!(redact_url("https://h/v1"), "https://h/v1");
    }
}
