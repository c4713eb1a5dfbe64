//! Faults a request can ask for (`fault=NAME` in the model suffix, `x-sim-fault: NAME`, or
//! for every request `--fault NAME`), and the hostile payloads some of them carry.

/// One simulated failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// 400 with the dialect's invalid-request body.
    BadRequest,
    /// 401 with the dialect's authentication body.
    Unauthorized,
    /// 403 with the dialect's permission body.
    Forbidden,
    /// 404 model not found.
    NotFound,
    /// 429 with `Retry-After`.
    RateLimited,
    /// 500 server error.
    ServerError,
    /// HTTP 200, a few tokens, then the dialect's error event; no terminal marker.
    Midstream,
    /// HTTP 200 headers, then no byte at all until the client gives up.
    Stall,
    /// HTTP 200, a few tokens, then the connection is cut (no terminal marker).
    Drop,
    /// HTTP 200, a few tokens, one event whose data is invalid JSON, then the normal rest.
    Malformed,
    /// The normal stream without any CORS header, so a browser refuses it.
    NoCors,
    /// 401 whose message echoes the request's key headers in full (a naive gateway).
    EchoKey,
    /// HTTP 200, a few tokens, then an error event echoing the key headers in full.
    EchoKeyMidstream,
    /// A normal stream whose texts and model id are [`XSS_PAYLOADS`].
    Xss,
    /// Like `Xss`, then an error event whose message is [`xss_all`].
    XssError,
    /// One SSE data line of `huge_line_bytes` bytes with no line end, then the body ends.
    HugeLine,
    /// 502 with an HTML page body, as nginx or a CDN answers when the upstream fails.
    HtmlError,
    /// 307 to another origin (`redirect_to`, `--redirect-to`, else the port after this one).
    Redirect,
    /// HTTP 200, then `: keep-alive` comments every 100 ms forever, never a token.
    Drip,
    /// Usage whose counts are 1e308, negative, fractional and 2^64+1.
    BadUsage,
}

/// Every fault with its name, in documentation order: the one list that parsing, the
/// error message for unknown names and the help test read.
pub const FAULTS: &[(&str, Fault)] = &[
    ("400", Fault::BadRequest),
    ("401", Fault::Unauthorized),
    ("403", Fault::Forbidden),
    ("404", Fault::NotFound),
    ("429", Fault::RateLimited),
    ("500", Fault::ServerError),
    ("midstream", Fault::Midstream),
    ("stall", Fault::Stall),
    ("drop", Fault::Drop),
    ("malformed", Fault::Malformed),
    ("nocors", Fault::NoCors),
    ("echo_key", Fault::EchoKey),
    ("echo_key_midstream", Fault::EchoKeyMidstream),
    ("xss", Fault::Xss),
    ("xss_error", Fault::XssError),
    ("huge_line", Fault::HugeLine),
    ("html_error", Fault::HtmlError),
    ("redirect", Fault::Redirect),
    ("drip", Fault::Drip),
    ("bad_usage", Fault::BadUsage),
];

impl Fault {
    /// The accepted names, in documentation order.
    pub fn names() -> impl Iterator<Item = &'static str> {
        FAULTS.iter().map(|(name, _)| *name)
    }

    /// Parses a fault name (ASCII case-insensitive).
    pub fn parse(name: &str) -> Option<Self> {
        let name = name.trim();
        FAULTS
            .iter()
            .find(|(known, _)| known.eq_ignore_ascii_case(name))
            .map(|(_, fault)| *fault)
    }

    /// The fault's name.
    pub fn name(self) -> &'static str {
        FAULTS
            .iter()
            .find(|(_, fault)| *fault == self)
            .map_or("?", |(name, _)| *name)
    }

    /// The HTTP status of a fault answered before any streaming, if it is one.
    pub fn status(self) -> Option<u16> {
        match self {
            Self::BadRequest => Some(400),
            Self::Unauthorized | Self::EchoKey => Some(401),
            Self::Forbidden => Some(403),
            Self::NotFound => Some(404),
            Self::RateLimited => Some(429),
            Self::ServerError => Some(500),
            Self::Redirect => Some(307),
            Self::HtmlError => Some(502),
            _ => None,
        }
    }

    /// Whether the request computes nothing, so it takes no slot (it never ends by itself).
    pub fn takes_no_slot(self) -> bool {
        matches!(self, Self::Stall | Self::Drip)
    }

    /// Whether the stream's texts and model id are the XSS payloads.
    pub fn hostile_text(self) -> bool {
        matches!(self, Self::Xss | Self::XssError)
    }
}

/// Script-injection and spreadsheet-formula payloads of the `xss` faults, exactly as sent.
/// Each one that runs sets `window.__xss = 1`; a page that renders provider output as text
/// (never HTML) and escapes CSV cells leaves it unset.
pub const XSS_PAYLOADS: &[&str] = &[
    "<script>window.__xss=1</script>",
    "<img src=x onerror=\"window.__xss=1\">",
    "<svg onload=\"window.__xss=1\">",
    "<a href=\"javascript:window.__xss=1\">link</a>",
    "[link](javascript:window.__xss=1)",
    "javascript:window.__xss=1",
    "=HYPERLINK(\"http://127.0.0.1:9/?leak\",\"click\")",
    "+cmd|' /C calc'!A0",
    "-1+1",
    "@SUM(1+1)",
];

/// Every payload in one string, starting with the CSV formula ones (a spreadsheet only
/// evaluates a cell that *starts* with `=`, `+`, `-` or `@`): the model id of `xss`
/// streams and the error message of `xss_error`.
pub fn xss_all() -> String {
    let formulas = &XSS_PAYLOADS[6..];
    let markup = &XSS_PAYLOADS[..6];
    formulas
        .iter()
        .chain(markup)
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The payloads as stream tokens: each payload one token, followed by a space, cycled.
pub fn xss_tokens(count: u32) -> Vec<String> {
    XSS_PAYLOADS
        .iter()
        .cycle()
        .take(count as usize)
        .map(|payload| format!("{payload} "))
        .collect()
}

/// Default length of the `huge_line` fault's line, bytes (64 MiB).
pub const DEFAULT_HUGE_LINE_BYTES: u64 = 64 * 1024 * 1024;

/// Interval of the `drip` fault's comments, ms.
pub const DRIP_INTERVAL_MS: u64 = 100;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back() {
        for (name, fault) in FAULTS {
            assert_eq!(Fault::parse(name), Some(*fault), "{name}");
            assert_eq!(fault.name(), *name);
        }
        assert_eq!(Fault::parse("NOCORS"), Some(Fault::NoCors));
        assert_eq!(Fault::parse(" echo_key "), Some(Fault::EchoKey));
        assert_eq!(Fault::parse("418"), None);
    }

    #[test]
    fn payloads() {
        let all = xss_all();
        assert!(all.starts_with("=HYPERLINK("), "{all}");
        for payload in XSS_PAYLOADS {
            assert!(all.contains(payload), "{payload}");
        }
        let tokens = xss_tokens(12);
        assert_eq!(tokens[0], "<script>window.__xss=1</script> ");
        assert_eq!(tokens[10], tokens[0]);
    }
}
