//! The request-target check: which requests may reach the one upstream, and at which path.
//!
//! The relay serves the upstream's base path under its own origin: a page whose base URL is
//! `http://127.0.0.1:8788/compatible-mode/v1` sends `POST /compatible-mode/v1/chat/completions`,
//! and the relay sends the same path and query to the upstream's scheme and host, which are
//! fixed at start. So the only thing a request chooses is its path, and this module decides
//! whether that path stays under the base path, for the relay *and* for any server behind the
//! upstream that normalises paths more loosely than we do (`..;`, `%2e`, `\`, `%2f`).
//!
//! Pure: no I/O, no clock; fuzzed (crates/relay/fuzz) and proptested (tests below).

/// Why a request target was refused (all are `forbidden-target` on the wire).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TargetRefusal {
    /// Not origin-form (`/path?query`): absolute-form (`http://host/...`), authority-form
    /// (`host:443`) or `*`.
    #[error("the request target must be a path (origin-form); absolute-form, authority-form and * are refused, since this relay talks to one upstream only")]
    NotOriginForm,
    /// Longer than [`MAX_TARGET_BYTES`].
    #[error("the request target is longer than {MAX_TARGET_BYTES} bytes")]
    TooLong,
    /// A byte no URI may hold (space, control, non-ASCII) or a fragment (`#`).
    #[error("the request target holds a byte a URI may not (a space, a control character, non-ASCII or #)")]
    InvalidByte,
    /// A `%` not followed by two hex digits, an escape that only exists to hide a
    /// separator, a dot, a parameter or another escape (`%2f`, `%5c`, `%2e`, `%3b`, `%25`,
    /// `%00`), or escapes that decode to invalid UTF-8 (overlong forms of those, `%c0%ae`).
    #[error("the path holds an escape that hides a separator, a dot, a parameter, an escape or a NUL (%2f, %5c, %2e, %3b, %25, %00), escapes of invalid UTF-8 (%c0%ae), or a malformed one")]
    DisguisedByte,
    /// A backslash, which some servers read as `/`.
    #[error("the path holds a backslash")]
    Backslash,
    /// An empty segment (`//`) anywhere but at the very end.
    #[error("the path holds an empty segment (//)")]
    EmptySegment,
    /// A `.` or `..` segment (also `..;x`, as servers that strip path parameters read it).
    #[error("the path holds a . or .. segment")]
    DotSegment,
    /// A clean path, but not under the upstream's base path.
    #[error("the path is not under the upstream's base path")]
    OutsideBase,
}

/// The longest request target forwarded, bytes (longer ones are refused).
pub const MAX_TARGET_BYTES: usize = 8 * 1024;

/// The path and query to send upstream for `target` (the request-target exactly as the
/// browser sent it), or why not. `base_path` is the upstream's base path without a trailing
/// slash (`""` for an upstream at its root, `"/compatible-mode/v1"`), itself a clean path.
///
/// Accepted: origin-form targets whose path is `base_path`, or starts with `base_path/`,
/// with no dot segment, no empty segment but a trailing `/`, no backslash, no escape of
/// `/`, `\`, `.`, `;`, `%` or NUL, and escapes that decode to valid UTF-8; the query (after the first `?`) is only
/// checked for bytes a URI may hold. The target is forwarded unchanged: what was checked is
/// what is sent.
pub fn upstream_path_and_query(target: &str, base_path: &str) -> Result<String, TargetRefusal> {
    if target.len() > MAX_TARGET_BYTES {
        return Err(TargetRefusal::TooLong);
    }
    if !target.starts_with('/') {
        return Err(TargetRefusal::NotOriginForm);
    }
    if !target.bytes().all(is_uri_byte) {
        return Err(TargetRefusal::InvalidByte);
    }
    let path = target.split_once('?').map_or(target, |(path, _query)| path);
    check_path(path)?;
    let under_base = base_path.is_empty()
        || path == base_path
        || path
            .strip_prefix(base_path)
            .is_some_and(|rest| rest.starts_with('/'));
    if !under_base {
        return Err(TargetRefusal::OutsideBase);
    }
    Ok(target.to_owned())
}

/// Checks a path (starting with `/`) for every way out of its prefix.
pub fn check_path(path: &str) -> Result<(), TargetRefusal> {
    if path.contains('\\') {
        return Err(TargetRefusal::Backslash);
    }
    check_escapes(path.as_bytes())?;
    // The first segment is the empty one before the leading '/'.
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let last = segments.len().saturating_sub(1);
    for (index, segment) in segments.iter().enumerate() {
        if segment.is_empty() && index != last {
            return Err(TargetRefusal::EmptySegment);
        }
        // `..;jsessionid` is `..` to servers that drop path parameters (Tomcat, Spring).
        let bare = segment.split(';').next().unwrap_or(segment);
        if bare == "." || bare == ".." {
            return Err(TargetRefusal::DotSegment);
        }
    }
    Ok(())
}

/// Every `%` must start a well-formed escape of a byte that hides nothing.
fn check_escapes(path: &[u8]) -> Result<(), TargetRefusal> {
    let mut index = 0;
    while let Some(offset) = path[index..].iter().position(|&byte| byte == b'%') {
        let at = index + offset;
        let escaped = match (path.get(at + 1), path.get(at + 2)) {
            (Some(&high), Some(&low)) => match (hex_value(high), hex_value(low)) {
                (Some(high), Some(low)) => high * 16 + low,
                _ => return Err(TargetRefusal::DisguisedByte),
            },
            _ => return Err(TargetRefusal::DisguisedByte),
        };
        // '/', '\', '.', NUL, '%' (a double-decoding server would read `%252e` as '.') and
        // ';' (a server that decodes before it drops path parameters reads `.%3bx` as '.').
        if matches!(escaped, b'/' | b'\\' | b'.' | b'%' | b';' | 0) {
            return Err(TargetRefusal::DisguisedByte);
        }
        index = at + 3;
    }
    // Escapes of invalid UTF-8: never a real name, and the overlong forms of '.' and '/'
    // (`%c0%ae`, `%e0%80%ae`) that lenient decoders read as those.
    if std::str::from_utf8(&decoded_once(path)).is_err() {
        return Err(TargetRefusal::DisguisedByte);
    }
    Ok(())
}

/// `path` with each well-formed `%XX` decoded once.
fn decoded_once(path: &[u8]) -> Vec<u8> {
    let mut decoded = Vec::with_capacity(path.len());
    let mut index = 0;
    while index < path.len() {
        let escape = (path[index] == b'%')
            .then(|| {
                let high = hex_value(*path.get(index + 1)?)?;
                let low = hex_value(*path.get(index + 2)?)?;
                Some(high * 16 + low)
            })
            .flatten();
        match escape {
            Some(value) => {
                decoded.push(value);
                index += 3;
            }
            None => {
                decoded.push(path[index]);
                index += 1;
            }
        }
    }
    decoded
}

fn hex_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

/// RFC 3986's unreserved, sub-delims, `:@/?%` and, since browsers send them unescaped in
/// queries, `[]{}|^"<>\``; not a space, a control, `#` or non-ASCII.
fn is_uri_byte(byte: u8) -> bool {
    byte.is_ascii_graphic() && byte != b'#'
}

/// Properties every answer of [`upstream_path_and_query`] has, for the fuzz target and the
/// tests: an accepted target is forwarded unchanged, stays under the base path, and, read
/// the loosest way a server might read it (every `%XX` decoded, `\` as `/`, `;` parameters
/// dropped), still has no dot or empty segment; an accepted target also passes again (the
/// check is stable). Returns the violated property.
pub fn violated_property(target: &str, base_path: &str) -> Option<&'static str> {
    let Ok(forwarded) = upstream_path_and_query(target, base_path) else {
        return None;
    };
    if forwarded != target {
        return Some("an accepted target is forwarded unchanged");
    }
    let path = target.split_once('?').map_or(target, |(path, _)| path);
    if !(base_path.is_empty() || path == base_path || path.starts_with(&format!("{base_path}/"))) {
        return Some("an accepted path is under the base path");
    }
    let loose = loosely_decoded(path);
    let segments: Vec<&str> = loose.split('/').skip(1).collect();
    let last = segments.len().saturating_sub(1);
    for (index, segment) in segments.iter().enumerate() {
        let bare = segment.split(';').next().unwrap_or(segment);
        if bare == "." || bare == ".." {
            return Some("an accepted path has no dot segment, however decoded");
        }
        if segment.is_empty() && index != last {
            return Some("an accepted path has no empty segment, however decoded");
        }
    }
    if upstream_path_and_query(&forwarded, base_path).is_err() {
        return Some("the check is stable");
    }
    None
}

/// `path` with every `%XX` decoded (repeatedly, as double-decoding servers do) and `\`
/// read as `/`; invalid UTF-8 replaced.
fn loosely_decoded(path: &str) -> String {
    let mut current = path.as_bytes().to_vec();
    for _ in 0..4 {
        let decoded = decoded_once(&current);
        if decoded == current {
            break;
        }
        current = decoded;
    }
    String::from_utf8_lossy(&current).replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const BASE: &str = "/compatible-mode/v1";

    #[test]
    fn paths_under_the_base_pass_unchanged() {
        for target in [
            "/compatible-mode/v1",
            "/compatible-mode/v1/",
            "/compatible-mode/v1/chat/completions",
            "/compatible-mode/v1/models?limit=10&after=a%20b",
            "/compatible-mode/v1/models/qwen-max%3Alatest",
            "/compatible-mode/v1/models/%E9%80%9A%E4%B9%89",
            "/compatible-mode/v1/files/..abc",
            "/compatible-mode/v1/a.b/c...",
            "/compatible-mode/v1/models?q=../../etc",
        ] {
            assert_eq!(
                upstream_path_and_query(target, BASE).as_deref(),
                Ok(target),
                "{target}"
            );
        }
        assert_eq!(upstream_path_and_query("/", "").as_deref(), Ok("/"));
        assert_eq!(
            upstream_path_and_query("/v1/messages", "").as_deref(),
            Ok("/v1/messages")
        );
    }

    #[test]
    fn each_escape_is_refused_with_its_reason() {
        use TargetRefusal::*;
        let cases = [
            (
                "http://evil.example/compatible-mode/v1/models",
                NotOriginForm,
            ),
            ("evil.example:443", NotOriginForm),
            ("*", NotOriginForm),
            ("", NotOriginForm),
            ("/compatible-mode/v1/../../admin", DotSegment),
            ("/compatible-mode/v1/./models", DotSegment),
            ("/compatible-mode/v1/..", DotSegment),
            ("/compatible-mode/v1/..;x=1/admin", DotSegment),
            ("/compatible-mode/v1/%2e%2e/admin", DisguisedByte),
            ("/compatible-mode/v1/%2E./admin", DisguisedByte),
            ("/compatible-mode/v1/.%2e/admin", DisguisedByte),
            ("/compatible-mode/v1%2f..%2fadmin", DisguisedByte),
            ("/compatible-mode/v1/a%5c..%5cb", DisguisedByte),
            ("/compatible-mode/v1/%c0%ae%c0%ae/admin", DisguisedByte),
            ("/compatible-mode/v1/a%00", DisguisedByte),
            // Found by the fuzzer: `.%3b` is `.` to a server that decodes, then drops `;x`.
            ("/compatible-mode/v1/.%3Bfb/x", DisguisedByte),
            ("/compatible-mode/v1/%e0%80%ae%e0%80%ae/x", DisguisedByte),
            ("/compatible-mode/v1/%ff", DisguisedByte),
            ("/compatible-mode/v1/a%zz", DisguisedByte),
            ("/compatible-mode/v1/a%2", DisguisedByte),
            ("/compatible-mode/v1\\..\\admin", Backslash),
            ("//evil.example/compatible-mode/v1", EmptySegment),
            ("/compatible-mode//v1/models", EmptySegment),
            ("/compatible-mode/v1//models", EmptySegment),
            ("/compatible-mode/v1/models#frag", InvalidByte),
            ("/compatible-mode/v1/a b", InvalidByte),
            ("/compatible-mode/v1/\u{e9}", InvalidByte),
            ("/compatible-mode/v1x/models", OutsideBase),
            ("/compatible-mode", OutsideBase),
            ("/", OutsideBase),
            ("/v1/chat/completions", OutsideBase),
        ];
        for (target, reason) in cases {
            assert_eq!(
                upstream_path_and_query(target, BASE),
                Err(reason),
                "{target}"
            );
        }
        let long = format!("{BASE}/{}", "a".repeat(MAX_TARGET_BYTES));
        assert_eq!(upstream_path_and_query(&long, BASE), Err(TooLong));
    }

    #[test]
    fn the_loose_reading_sees_what_a_double_decoding_server_sees() {
        assert_eq!(loosely_decoded("/a/%252e%252e/b"), "/a/../b");
        assert_eq!(loosely_decoded("/a\\b"), "/a/b");
        // Double encoding: refused at its first escape, so no depth of decoding finds a dot.
        assert_eq!(
            upstream_path_and_query("/compatible-mode/v1/%252e%252e/x", BASE),
            Err(TargetRefusal::DisguisedByte)
        );
    }

    proptest! {
        /// Whatever the bytes, an accepted target keeps every property.
        #[test]
        fn any_target_keeps_the_properties(target in "\\PC{0,64}") {
            prop_assert_eq!(violated_property(&target, BASE), None);
            prop_assert_eq!(violated_property(&target, ""), None);
        }

        /// Targets built from path pieces, dots, escapes and separators.
        #[test]
        fn built_targets_keep_the_properties(
            pieces in proptest::collection::vec(
                prop_oneof![
                    Just("/".to_string()), Just(".".to_string()), Just("..".to_string()),
                    Just("%2e".to_string()), Just("%2E".to_string()), Just("%2f".to_string()),
                    Just("%25".to_string()), Just("%5c".to_string()), Just("\\".to_string()),
                    Just(";".to_string()), Just("?".to_string()), Just("%c0%ae".to_string()),
                    Just("%3b".to_string()), Just("%e0%80%ae".to_string()),
                    "[a-z0-9]{1,4}",
                ],
                0..12,
            )
        ) {
            let target = format!("{BASE}/{}", pieces.concat());
            prop_assert_eq!(violated_property(&target, BASE), None);
        }

        /// Every clean path under the base passes, unchanged.
        #[test]
        fn clean_paths_under_the_base_pass(
            segments in proptest::collection::vec("[A-Za-z0-9_~:@-][A-Za-z0-9._~:@-]{0,8}", 0..6),
            query in proptest::option::of("[A-Za-z0-9=&%./]{0,16}"),
        ) {
            let segments: Vec<String> = segments.into_iter().filter(|s| s != "." && s != "..").collect();
            let mut target = BASE.to_string();
            for segment in &segments {
                target.push('/');
                target.push_str(segment);
            }
            if let Some(query) = &query {
                target.push('?');
                target.push_str(query);
            }
            prop_assert_eq!(upstream_path_and_query(&target, BASE), Ok(target.clone()));
        }
    }
}
