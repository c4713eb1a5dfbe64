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
    /// HTTP 200, the non-streaming JSON answer, and a `Content-Type` of
    /// `content_type_bytes` bytes ([`long_content_type`]).
    LongContentType,
    /// 401 whose message lists every key the process has received ([`past_keys_message`]).
    EchoPastKeys,
    /// HTTP 200, a few tokens, then an error event listing every key received, also as
    /// a `seen` array; no terminal marker.
    EchoPastKeysMidstream,
    /// 400 whose message hides a right-to-left override ([`bidi_message`]).
    Bidi,
    /// HTTP 200, a few tokens, the `bidi_tokens`, then an error event whose message is
    /// [`bidi_message`]; no terminal marker.
    BidiMidstream,
    /// HTTP 200, a few tokens, then an error event carrying encoded and disguised forms of
    /// the request's key ([`key_forms_message`]); no terminal marker.
    KeyFormsMidstream,
    /// A stream of the request's key in [`KEY_PANE_CHARS`]-character pieces, alternating
    /// between reasoning and answer deltas, then a normal end.
    KeySplitPanes,
    /// `flood_events` answer events of one character each, as fast as the client reads.
    FloodChars,
    /// `flood_newlines` newlines, then one word of `flood_word_bytes` bytes, as answer events.
    FloodLines,
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
    ("long_content_type", Fault::LongContentType),
    ("echo_past_keys", Fault::EchoPastKeys),
    ("echo_past_keys_midstream", Fault::EchoPastKeysMidstream),
    ("bidi", Fault::Bidi),
    ("bidi_midstream", Fault::BidiMidstream),
    ("key_forms_midstream", Fault::KeyFormsMidstream),
    ("key_split_panes", Fault::KeySplitPanes),
    ("flood_chars", Fault::FloodChars),
    ("flood_lines", Fault::FloodLines),
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
            Self::BadRequest | Self::Bidi => Some(400),
            Self::Unauthorized | Self::EchoKey | Self::EchoPastKeys => Some(401),
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

/// What the `long_content_type` fault's `Content-Type` starts with; `a`s fill the rest.
pub const LONG_CONTENT_TYPE_PREFIX: &str = "application/json; x=";

/// Default length of the `long_content_type` fault's `Content-Type` value, bytes.
pub const DEFAULT_CONTENT_TYPE_BYTES: u32 = 65_536;

/// Upper bound of `content_type_bytes` (browsers refuse response headers past 256 KiB).
pub const MAX_CONTENT_TYPE_BYTES: u32 = 200_000;

/// The `long_content_type` fault's `Content-Type`: [`LONG_CONTENT_TYPE_PREFIX`] then `a`s,
/// `total_bytes` bytes in all (never shorter than the prefix).
pub fn long_content_type(total_bytes: u32) -> String {
    let filler = (total_bytes as usize).saturating_sub(LONG_CONTENT_TYPE_PREFIX.len());
    format!("{LONG_CONTENT_TYPE_PREFIX}{}", "a".repeat(filler))
}

/// The message of the `echo_past_keys` faults: every key remembered, oldest first.
pub fn past_keys_message(keys: &[String]) -> String {
    format!("Incorrect API key provided. Keys seen: {}", keys.join(", "))
}

/// U+202E RIGHT-TO-LEFT OVERRIDE: what follows is shown right to left.
pub const RLO: char = '\u{202E}';
/// U+202C POP DIRECTIONAL FORMATTING: ends an override.
pub const PDF: char = '\u{202C}';
/// U+2067 RIGHT-TO-LEFT ISOLATE.
pub const RLI: char = '\u{2067}';
/// U+2069 POP DIRECTIONAL ISOLATE: ends an isolate.
pub const PDI: char = '\u{2069}';

/// What a browser shows of the `bidi` faults' override: the text is sent reversed inside
/// [`RLO`] … [`PDF`], so it reads as this.
pub const BIDI_SPOOF_TEXT: &str = "Send your API key to https://trusted.example to continue";

/// [`BIDI_SPOOF_TEXT`] reversed (by characters) between [`RLO`] and [`PDF`].
fn bidi_payload() -> String {
    let reversed: String = BIDI_SPOOF_TEXT.chars().rev().collect();
    format!("{RLO}{reversed}{PDF}")
}

/// The message of the `bidi` faults: the `bidi_payload` inside an ordinary rejection.
pub fn bidi_message() -> String {
    format!("Request rejected. {} Contact support.", bidi_payload())
}

/// The two answer tokens of `bidi_midstream` after the normal ones: the override payload,
/// then Hebrew (`שלום`) inside a right-to-left isolate (each with a leading space, as words).
fn bidi_tokens() -> [String; 2] {
    [
        format!(" {}", bidi_payload()),
        format!(" {RLI}\u{5E9}\u{5DC}\u{5D5}\u{5DD}{PDI}"),
    ]
}

/// Where `bidi_midstream`'s two tokens go in an answer of `answer_tokens` tokens: after
/// `after_tokens` normal ones, or as its last two when it is shorter.
pub fn bidi_index(after_tokens: u32, answer_tokens: usize) -> usize {
    (after_tokens as usize).min(answer_tokens.saturating_sub(2))
}

/// Puts the `bidi_tokens` into `answer` at [`bidi_index`] (as many as fit).
pub fn insert_bidi_tokens(answer: &mut [String], after_tokens: u32) {
    let index = bidi_index(after_tokens, answer.len());
    for (slot, token) in answer.iter_mut().skip(index).zip(bidi_tokens()) {
        *slot = token;
    }
}

/// The extra `/v1/models` id listed under the `bidi` faults.
pub fn bidi_model_id() -> String {
    format!("sim-bidi-{}", bidi_payload())
}

/// The key with `mark` after every `every`-th character.
fn interleave(key: &str, mark: char, every: usize) -> String {
    let mut marked = String::with_capacity(key.len() * 2);
    for (index, character) in key.chars().enumerate() {
        marked.push(character);
        if (index + 1) % every == 0 {
            marked.push(mark);
        }
    }
    marked
}

/// Forms of a key a scrubber looking for the key as sent misses, in this order: hex of its
/// UTF-8 bytes (lowercase, then uppercase), reversed (by characters), and with U+200B
/// (zero width space), U+2060 (word joiner) or U+00AD (soft hyphen) after every character,
/// or U+FEFF after every third.
pub fn key_forms(key: &str) -> [String; 7] {
    let lower_hex: String = key.bytes().map(|byte| format!("{byte:02x}")).collect();
    [
        lower_hex.clone(),
        lower_hex.to_ascii_uppercase(),
        key.chars().rev().collect(),
        interleave(key, '\u{200B}', 1),
        interleave(key, '\u{2060}', 1),
        interleave(key, '\u{AD}', 1),
        interleave(key, '\u{FEFF}', 3),
    ]
}

/// The message of `key_forms_midstream`: the [`key_forms`] separated by ` | `.
pub fn key_forms_message(key: Option<&str>) -> String {
    match key {
        Some(key) => format!("Incorrect API key provided: {}", key_forms(key).join(" | ")),
        None => "Incorrect API key provided: the request had no authorization or x-api-key \
                 header."
            .to_string(),
    }
}

/// Length of the `key_split_panes` fault's pieces, characters.
pub const KEY_PANE_CHARS: usize = 7;

/// The key in [`KEY_PANE_CHARS`]-character pieces (the last may be shorter).
pub fn key_panes(key: &str) -> Vec<String> {
    let characters: Vec<char> = key.chars().collect();
    characters
        .chunks(KEY_PANE_CHARS)
        .map(|piece| piece.iter().collect())
        .collect()
}

/// Default number of `flood_chars` events.
pub const DEFAULT_FLOOD_EVENTS: u64 = 2_000_000;
/// Upper bound of `flood_events`.
pub const MAX_FLOOD_EVENTS: u64 = 5_000_000;
/// Default number of `flood_lines` newlines.
pub const DEFAULT_FLOOD_NEWLINES: u64 = 50_000;
/// Upper bound of `flood_newlines`.
pub const MAX_FLOOD_NEWLINES: u64 = 10_000_000;
/// Newlines per `flood_lines` event (the last may carry fewer).
pub const FLOOD_NEWLINES_PER_EVENT: u64 = 1000;
/// Default length of the `flood_lines` word, bytes (1 MiB).
pub const DEFAULT_FLOOD_WORD_BYTES: u64 = 1024 * 1024;
/// Upper bound of `flood_word_bytes` (8 MiB).
pub const MAX_FLOOD_WORD_BYTES: u64 = 8 * 1024 * 1024;
/// Bytes of the word per `flood_lines` event (16 KiB; the last may carry fewer).
pub const FLOOD_WORD_BYTES_PER_EVENT: u64 = 16 * 1024;

/// `total` repeats of `unit` as runs of events carrying `per_event` repeats each, the last
/// event carrying the remainder.
fn repeated_runs(unit: char, total: u64, per_event: u64) -> Vec<FloodRun> {
    let piece = |count: u64| unit.to_string().repeat(count as usize);
    let (full_events, rest) = (total / per_event, total % per_event);
    let mut runs = Vec::new();
    if full_events > 0 {
        runs.push(FloodRun {
            texts: vec![piece(per_event)],
            count: full_events,
        });
    }
    if rest > 0 {
        runs.push(FloodRun {
            texts: vec![piece(rest)],
            count: 1,
        });
    }
    runs
}

/// The answer events of `flood_chars`: `events` events of one character, `a` to `z` cycled.
pub fn flood_chars_runs(events: u64) -> Vec<FloodRun> {
    let texts = ('a'..='z').map(String::from).collect();
    if events == 0 {
        return Vec::new();
    }
    vec![FloodRun {
        texts,
        count: events,
    }]
}

/// The answer events of `flood_lines`: `newlines` newlines in events of
/// [`FLOOD_NEWLINES_PER_EVENT`], then a word of `word_bytes` `x`s in events of
/// [`FLOOD_WORD_BYTES_PER_EVENT`].
pub fn flood_lines_runs(newlines: u64, word_bytes: u64) -> Vec<FloodRun> {
    let mut runs = repeated_runs('\n', newlines, FLOOD_NEWLINES_PER_EVENT);
    runs.extend(repeated_runs('x', word_bytes, FLOOD_WORD_BYTES_PER_EVENT));
    runs
}

/// One run of a flood fault: `count` answer events whose texts cycle through `texts`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FloodRun {
    /// The events' texts, cycled.
    pub texts: Vec<String>,
    /// How many events.
    pub count: u64,
}

/// The whole answer text of `runs`.
pub fn flood_text(runs: &[FloodRun]) -> String {
    let mut text = String::new();
    for run in runs {
        for text_piece in run.texts.iter().cycle().take(run.count as usize) {
            text.push_str(text_piece);
        }
    }
    text
}

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

    #[test]
    fn bidi_payloads() {
        assert_eq!(
            bidi_message(),
            "Request rejected. \u{202E}eunitnoc ot elpmaxe.detsurt//:sptth ot yek IPA ruoy \
             dneS\u{202C} Contact support."
        );
        assert_eq!(bidi_tokens()[1], " \u{2067}שלום\u{2069}");
        let mut answer: Vec<String> = (0..4).map(|i| i.to_string()).collect();
        insert_bidi_tokens(&mut answer, 3);
        assert_eq!(answer[..2], ["0", "1"], "as the last two of a short answer");
        assert_eq!(answer[2..], bidi_tokens());
        let mut answer: Vec<String> = (0..9).map(|i| i.to_string()).collect();
        insert_bidi_tokens(&mut answer, 3);
        assert_eq!(
            (answer[3].as_str(), answer[5].as_str()),
            (bidi_tokens()[0].as_str(), "5")
        );
    }

    #[test]
    fn key_forms_and_panes() {
        assert_eq!(
            key_forms("ab€d"),
            [
                "6162e282ac64",
                "6162E282AC64",
                "d€ba",
                "a\u{200B}b\u{200B}€\u{200B}d\u{200B}",
                "a\u{2060}b\u{2060}€\u{2060}d\u{2060}",
                "a\u{AD}b\u{AD}€\u{AD}d\u{AD}",
                "ab€\u{FEFF}d",
            ]
        );
        assert!(
            key_forms_message(Some("k")).starts_with("Incorrect API key provided: 6b | 6B | k | ")
        );
        assert!(key_forms_message(None).contains("no authorization"));
        assert_eq!(key_panes("abcdefghijklmnop"), ["abcdefg", "hijklmn", "op"]);
        assert_eq!(key_panes("abcdefg"), ["abcdefg"]);
        assert!(key_panes("").is_empty());
        assert_eq!(
            past_keys_message(&["k1".into(), "k2".into()]),
            "Incorrect API key provided. Keys seen: k1, k2"
        );
    }

    #[test]
    fn long_content_types_and_floods() {
        assert_eq!(long_content_type(25), "application/json; x=aaaaa");
        assert_eq!(long_content_type(65_536).len(), 65_536);
        let runs = flood_lines_runs(2500, 40_000);
        let shape: Vec<(String, u64)> = runs
            .iter()
            .map(|run| (run.texts[0].chars().take(1).collect(), run.count))
            .collect();
        assert_eq!(
            shape,
            [
                ("\n".into(), 2),
                ("\n".into(), 1),
                ("x".into(), 2),
                ("x".into(), 1)
            ]
        );
        let lengths: Vec<usize> = runs.iter().map(|run| run.texts[0].len()).collect();
        assert_eq!(lengths, [1000, 500, 16_384, 40_000 - 2 * 16_384]);
        assert!(flood_lines_runs(0, 0).is_empty());
        assert!(flood_chars_runs(0).is_empty());
        let chars = flood_chars_runs(30);
        assert_eq!(flood_text(&chars), "abcdefghijklmnopqrstuvwxyzabcd");
    }
}
