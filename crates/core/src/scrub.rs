//! Scrubbing the API key out of everything a provider sends back, by value.
//!
//! A provider (or a naive gateway in front of it) can echo the request's `Authorization`
//! header in an error message, an error body, even the answer. Guessing key shapes misses
//! short keys, dotted keys (JWTs, `id.secret`) and self-chosen `--api-key` values, so the
//! [`KeyScrubber`] knows the key itself and replaces, in any text:
//!
//! - every substring of the key of [`WINDOW_CHARS`] (8) characters or more;
//! - the same in the key's encoded forms: base64 (standard and URL-safe, with or without
//!   padding, at each of the three byte alignments, so that `base64("Bearer KEY")` and the
//!   Basic form `base64("user:KEY")` are caught too), percent-encoding (upper- and lower-case
//!   hex), hexadecimal of its bytes (upper- and lower-case), the key reversed, JSON string
//!   escaping and CSV quote doubling;
//! - all of these with invisible formatting characters in between (zero-width spaces and
//!   joiners, soft hyphens, BOMs, bidi controls: [`is_invisible_format`]), which are skipped
//!   while matching and removed with the key.
//!
//! One scrubber can know several keys ([`KeyScrubber::for_keys`]): the page scrubs by every
//! key the tab has held, and those other open tabs of the page hold, not only the current
//! one.
//!
//! What is not caught (docs/privacy.md, "The key's path"): pieces shorter than 8 characters (a key
//! cut into 7-character pieces spread over the reasoning and the answer pane, or over
//! several runs, can be read together), other transformations (spaced out with ordinary
//! spaces, ROT13, an encryption), and a key this tab never held.
//!
//! Every form is reduced to its 8-character windows, which all have the same length, so a
//! scan keeps one rolling 64-bit value of the last 8 bytes and looks it up in a sorted
//! table behind a 4096-bit prefilter: one multiply and one bit test per byte of text in the
//! common case, no allocation unless something is replaced. A key shorter than 8 characters
//! is matched whole; one shorter than [`MIN_KEY_CHARS`] is not scrubbed (any text would be
//! mangled, and such a key protects nothing).
//!
//! Streamed text is scrubbed piece by piece with a [`StreamScrub`] per channel, which
//! remembers the last 7 bytes *shown*: a key split across two events is caught in the
//! second, and the concatenation of everything shown never holds an 8-character window of
//! the key. Nothing is held back, so the first token is shown as soon as it arrives.

use std::borrow::Cow;

use serde_json::Value;

use ttft_stream::dialect::StreamError;

use crate::quote::is_invisible_format;

/// The width of a window of the key: any substring of the key this long or longer is
/// replaced wherever it appears.
pub const WINDOW_CHARS: usize = 8;

/// The shortest key that is scrubbed (matched whole when shorter than [`WINDOW_CHARS`]).
pub const MIN_KEY_CHARS: usize = 4;

/// What replaces each run of the key (or of one of its encodings) in a text. Its first and
/// last characters are not ASCII, so they never form a window of an (ASCII) key with the
/// text around them; for the odd key that contains `key remo` or the like, a scrubber uses
/// the first of [`REPLACEMENTS`] with no window of its key inside.
pub const REPLACEMENT: &str = "«key removed»";

/// The replacements, in order of preference; the last has no ASCII at all.
pub const REPLACEMENTS: [&str; 3] = [REPLACEMENT, "«key»", "«•»"];

/// Bits of the prefilter (a power of two).
const FILTER_BITS: usize = 4096;

/// Knows one key and removes it from texts. Cheap to clone; build one per key.
#[derive(Clone, PartialEq, Eq)]
pub struct KeyScrubber {
    /// Window width in bytes: [`WINDOW_CHARS`], or the key's length when shorter.
    width: usize,
    /// Every window of every form, packed big-endian into the low `8 * width` bits; sorted.
    windows: Vec<u64>,
    /// One bit per hashed window: a clear bit means "no window here".
    filter: Vec<u64>,
    /// What replaces a run of the key: one of [`REPLACEMENTS`].
    replacement: &'static str,
}

impl std::fmt::Debug for KeyScrubber {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the windows: they are pieces of the key.
        write!(
            formatter,
            "KeyScrubber {{ width: {}, windows: {} }}",
            self.width,
            self.windows.len()
        )
    }
}

/// The last bytes shown of one stream of text (reasoning or answer), so a key split across
/// two pieces is still caught. One per channel per run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamScrub {
    /// At most `width - 1` bytes: the end of what was already shown.
    tail: Vec<u8>,
}

/// Packs up to 8 bytes big-endian.
fn pack(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0u64, |packed, &byte| (packed << 8) | u64::from(byte))
}

/// The prefilter bit of a packed window.
fn filter_bit(packed: u64) -> usize {
    // Fibonacci hashing: the top bits of the product spread every input bit.
    (packed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - FILTER_BITS.trailing_zeros())) as usize
}

const BASE64_STANDARD: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE64_URL_SAFE: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// The base64 characters determined by `key` alone when it starts at byte `alignment` (0 to
/// 2) of a 3-byte group: the same characters appear in the encoding of any text that holds
/// the key at that alignment (`Bearer KEY`, `user:KEY`, the key alone), padded or not.
fn base64_core(key: &[u8], alignment: usize, alphabet: &[u8; 64]) -> Vec<u8> {
    let mut data = vec![0u8; alignment];
    data.extend_from_slice(key);
    data.extend_from_slice(&[0, 0]);
    let key_bits = (alignment * 8)..((alignment + key.len()) * 8);
    let mut core = Vec::new();
    let mut bit = 0;
    while bit + 6 <= data.len() * 8 {
        if bit >= key_bits.start && bit + 6 <= key_bits.end {
            let mut sextet = 0usize;
            for offset in 0..6 {
                let at = bit + offset;
                let set = (data[at / 8] >> (7 - at % 8)) & 1;
                sextet = (sextet << 1) | usize::from(set);
            }
            core.push(alphabet[sextet]);
        }
        bit += 6;
    }
    core
}

/// Percent-encoding of every byte outside the unreserved set (RFC 3986), as
/// `encodeURIComponent` writes it, in upper- or lower-case hex.
fn percent_encoded(key: &[u8], lower: bool) -> Vec<u8> {
    let digits: &[u8; 16] = if lower {
        b"0123456789abcdef"
    } else {
        b"0123456789ABCDEF"
    };
    let mut encoded = Vec::new();
    for &byte in key {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            encoded.push(byte);
        } else {
            encoded.extend_from_slice(&[
                b'%',
                digits[usize::from(byte >> 4)],
                digits[usize::from(byte & 15)],
            ]);
        }
    }
    encoded
}

/// The key as it appears inside a JSON string.
fn json_escaped(key: &[u8]) -> Vec<u8> {
    let mut escaped = Vec::new();
    for &byte in key {
        if matches!(byte, b'"' | b'\\') {
            escaped.push(b'\\');
        }
        escaped.push(byte);
    }
    escaped
}

/// The key as it appears inside a quoted CSV field.
fn csv_escaped(key: &[u8]) -> Vec<u8> {
    let mut escaped = Vec::new();
    for &byte in key {
        if byte == b'"' {
            escaped.push(b'"');
        }
        escaped.push(byte);
    }
    escaped
}

/// Hexadecimal of every byte of the key, in lower- or upper-case digits.
fn hex_encoded(key: &[u8], lower: bool) -> Vec<u8> {
    let digits: &[u8; 16] = if lower {
        b"0123456789abcdef"
    } else {
        b"0123456789ABCDEF"
    };
    key.iter()
        .flat_map(|&byte| {
            [
                digits[usize::from(byte >> 4)],
                digits[usize::from(byte & 15)],
            ]
        })
        .collect()
}

/// Every form of `key` a provider may echo: itself, reversed, percent-encoded, hex, JSON
/// and CSV escaped, and base64 at the three byte alignments in both alphabets.
fn key_forms(key: &[u8]) -> Vec<Vec<u8>> {
    let mut forms: Vec<Vec<u8>> = vec![
        key.to_vec(),
        key.iter().rev().copied().collect(),
        percent_encoded(key, false),
        percent_encoded(key, true),
        hex_encoded(key, false),
        hex_encoded(key, true),
        json_escaped(key),
        csv_escaped(key),
    ];
    for alignment in 0..3 {
        forms.push(base64_core(key, alignment, BASE64_STANDARD));
        forms.push(base64_core(key, alignment, BASE64_URL_SAFE));
    }
    forms
}

impl KeyScrubber {
    /// A scrubber for `key` (trimmed); `None` when it is shorter than [`MIN_KEY_CHARS`] or
    /// not ASCII (keys that can be sent in a header are ASCII:
    /// [`ApiKey::parse`](crate::request::ApiKey::parse)).
    pub fn new(key: &str) -> Option<KeyScrubber> {
        KeyScrubber::for_keys([key])
    }

    /// A scrubber for every key of `keys` at once (the key of the tab and the keys it held
    /// before): each is trimmed, and those shorter than [`MIN_KEY_CHARS`] or not ASCII are
    /// left out; `None` when none is left. The window is the shortest kept key's length
    /// when it is under [`WINDOW_CHARS`].
    pub fn for_keys<'a>(keys: impl IntoIterator<Item = &'a str>) -> Option<KeyScrubber> {
        let keys: Vec<&[u8]> = keys
            .into_iter()
            .map(|key| key.trim().as_bytes())
            .filter(|key| key.len() >= MIN_KEY_CHARS && key.is_ascii())
            .collect();
        let width = keys.iter().map(|key| key.len()).min()?.min(WINDOW_CHARS);
        let forms: Vec<Vec<u8>> = keys.iter().flat_map(|key| key_forms(key)).collect();
        let mut windows: Vec<u64> = forms
            .iter()
            .filter(|form| form.len() >= width)
            .flat_map(|form| form.windows(width).map(pack).collect::<Vec<_>>())
            .collect();
        windows.sort_unstable();
        windows.dedup();
        let mut filter = vec![0u64; FILTER_BITS / 64];
        for &window in &windows {
            let bit = filter_bit(window);
            filter[bit / 64] |= 1 << (bit % 64);
        }
        let mut scrubber = KeyScrubber {
            width,
            windows,
            filter,
            replacement: REPLACEMENT,
        };
        scrubber.replacement = REPLACEMENTS
            .into_iter()
            .find(|replacement| !scrubber.contains_key(replacement))
            .unwrap_or(REPLACEMENTS[REPLACEMENTS.len() - 1]);
        Some(scrubber)
    }

    /// What this scrubber puts in place of the key ([`REPLACEMENT`] but for odd keys).
    pub fn replacement(&self) -> &'static str {
        self.replacement
    }

    /// The window width in bytes (8, or the key's length when shorter).
    pub fn width(&self) -> usize {
        self.width
    }

    fn is_window(&self, packed: u64) -> bool {
        let bit = filter_bit(packed);
        self.filter[bit / 64] & (1 << (bit % 64)) != 0
            && self.windows.binary_search(&packed).is_ok()
    }

    fn mask(&self) -> u64 {
        if self.width >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * self.width)) - 1
        }
    }

    /// The byte ranges of `text` covered by windows of the key, merged when they overlap or
    /// touch, with `context` (the last key-relevant bytes shown just before `text`) taken
    /// into account: a window that starts in the context covers `text` from its start.
    ///
    /// Invisible formatting characters ([`is_invisible_format`]: zero-width spaces and
    /// joiners, the soft hyphen, the BOM, bidi controls) are skipped, as if absent: a key
    /// laced with them is still the key, and its range covers them.
    fn covered(&self, context: &[u8], text: &str) -> Vec<(usize, usize)> {
        let mask = self.mask();
        let width = self.width;
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        let mut packed = 0u64;
        // Where each of the last 8 counted bytes starts in `text` (ring, by count).
        let mut starts = [0usize; 8];
        let mut filled = 0usize;
        for &byte in context {
            packed = ((packed << 8) | u64::from(byte)) & mask;
            filled += 1;
        }
        let from_context = filled;
        let bytes = text.as_bytes();
        let mut index = 0;
        while index < bytes.len() {
            let byte = bytes[index];
            if byte >= 0x80 {
                if let Some(c) = text.get(index..).and_then(|rest| rest.chars().next()) {
                    if is_invisible_format(c) {
                        index += c.len_utf8();
                        continue;
                    }
                }
            }
            packed = ((packed << 8) | u64::from(byte)) & mask;
            starts[filled % 8] = index;
            filled += 1;
            if filled >= width && self.is_window(packed) {
                // The window's first byte is the `width`-th counted byte back (perhaps in
                // the context, then the window covers `text` from 0).
                let first = filled - width;
                let start = if first < from_context {
                    0
                } else {
                    starts[first % 8]
                };
                let end = index + 1;
                match ranges.last_mut() {
                    Some(last) if start <= last.1 => last.1 = end,
                    _ => ranges.push((start, end)),
                }
            }
            index += 1;
        }
        ranges
    }

    /// Whether `text` holds a window of the key or of one of its encoded forms (invisible
    /// formatting characters skipped).
    pub fn contains_key(&self, text: &str) -> bool {
        !self.covered(&[], text).is_empty()
    }

    /// `text` with every window of the key (and of its encodings) replaced by
    /// [`REPLACEMENT`]; borrowed when nothing was found.
    pub fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let ranges = self.covered(&[], text);
        if ranges.is_empty() {
            return Cow::Borrowed(text);
        }
        Cow::Owned(replace_ranges(text, &ranges, self.replacement))
    }

    /// Scrubs `text` in place.
    pub fn scrub_in_place(&self, text: &mut String) {
        if let Cow::Owned(scrubbed) = self.scrub(text) {
            *text = scrubbed;
        }
    }

    /// Scrubs the next piece of a stream of text in place, given what was shown before
    /// (`state`), and remembers its end for the next piece.
    pub fn scrub_stream(&self, state: &mut StreamScrub, text: &mut String) {
        let ranges = self.covered(&state.tail, text);
        if !ranges.is_empty() {
            *text = replace_ranges(text, &ranges, self.replacement);
        }
        // The tail keeps the last `width - 1` bytes that count (invisible formatting
        // characters left out), so a key laced with them is caught across pieces too.
        let keep = self.width - 1;
        let mut counted: Vec<u8> = Vec::with_capacity(keep);
        for c in text.chars().rev() {
            if counted.len() >= keep {
                break;
            }
            if is_invisible_format(c) {
                continue;
            }
            let mut buffer = [0u8; 4];
            for &byte in c.encode_utf8(&mut buffer).as_bytes().iter().rev() {
                if counted.len() < keep {
                    counted.push(byte);
                }
            }
        }
        counted.reverse();
        if counted.len() >= keep {
            state.tail = counted;
        } else {
            state.tail.extend_from_slice(&counted);
            let excess = state.tail.len().saturating_sub(keep);
            state.tail.drain(..excess);
        }
    }

    /// Scrubs every string of a JSON value, object keys included.
    pub fn scrub_json(&self, value: &mut Value) {
        match value {
            Value::String(text) => self.scrub_in_place(text),
            Value::Array(items) => items.iter_mut().for_each(|item| self.scrub_json(item)),
            Value::Object(fields) => {
                let needs_rename = fields.keys().any(|name| self.contains_key(name));
                if needs_rename {
                    let taken = std::mem::take(fields);
                    for (name, mut item) in taken {
                        self.scrub_json(&mut item);
                        fields.insert(self.scrub(&name).into_owned(), item);
                    }
                } else {
                    fields.values_mut().for_each(|item| self.scrub_json(item));
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// Scrubs a provider's error (kind, message and the raw object).
    pub fn scrub_stream_error(&self, error: &mut StreamError) {
        let StreamError { kind, message, raw } = error;
        if let Some(kind) = kind {
            self.scrub_in_place(kind);
        }
        self.scrub_in_place(message);
        self.scrub_json(raw);
    }
}

/// `text` with each range replaced by `replacement`. Ranges start and end next to ASCII
/// bytes of the key's forms (or at the text's ends), so at character boundaries.
fn replace_ranges(text: &str, ranges: &[(usize, usize)], replacement: &str) -> String {
    let mut out = String::with_capacity(text.len() + ranges.len() * replacement.len());
    let mut at = 0;
    for &(start, end) in ranges {
        out.push_str(text.get(at..start).unwrap_or_default());
        out.push_str(replacement);
        at = end;
    }
    out.push_str(text.get(at..).unwrap_or_default());
    out
}

/// Whether a word looks like a credential (`sk-…`, or 32+ key characters mixing letters
/// and digits).
fn looks_like_key(word: &str) -> bool {
    let core = word.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '*');
    let lower = core.to_ascii_lowercase();
    lower.starts_with("sk-")
        || lower.starts_with("sk_")
        || (core.len() >= 32
            && core.chars().any(|c| c.is_ascii_digit())
            && core.chars().any(|c| c.is_ascii_alphabetic())
            && core
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '*')))
}

/// The word, or `[redacted]` in place of a key-like core (surrounding punctuation kept).
///
/// Shape, not value: for a provider's words quoted in a diagnosis before the run's
/// [`KeyScrubber`] sees them (it removes the key itself, by value, from the diagnosis too),
/// so that another credential the provider quotes (`sk-…`, a long mixed token) is not shown
/// either.
pub fn redact_key_shaped_word(word: &str) -> String {
    if !looks_like_key(word) {
        return word.to_owned();
    }
    let is_edge = |c: char| !c.is_ascii_alphanumeric() && c != '*';
    let core_start = word.len() - word.trim_start_matches(is_edge).len();
    let core_end = word.trim_end_matches(is_edge).len();
    format!(
        "{}[redacted]{}",
        &word[..core_start],
        &word[core_end.max(core_start)..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-ttftmeter-CANARY-0123456789abcdefXYZ";

    fn standard_base64(data: &[u8]) -> String {
        // Reference encoder, independent of `base64_core`.
        let mut out = String::new();
        for group in data.chunks(3) {
            let bytes = [
                group[0],
                *group.get(1).unwrap_or(&0),
                *group.get(2).unwrap_or(&0),
            ];
            let value =
                (u32::from(bytes[0]) << 16) | (u32::from(bytes[1]) << 8) | u32::from(bytes[2]);
            for index in 0..4 {
                if index <= group.len() {
                    out.push(BASE64_STANDARD[((value >> (18 - 6 * index)) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    #[test]
    fn the_key_and_its_long_pieces_are_removed() {
        let scrubber = KeyScrubber::new(KEY).unwrap();
        assert_eq!(
            scrubber.scrub(&format!("Received Bearer {KEY}.")),
            format!("Received Bearer {REPLACEMENT}.")
        );
        assert_eq!(
            scrubber.scrub("part: ttftmete!"),
            format!("part: {REPLACEMENT}!")
        );
        // Seven characters are not a window.
        assert_eq!(scrubber.scrub("part: ttftmet!"), "part: ttftmet!");
        assert!(matches!(scrubber.scrub("nothing here"), Cow::Borrowed(_)));
    }

    #[test]
    fn encoded_forms_are_removed() {
        let scrubber = KeyScrubber::new(KEY).unwrap();
        for text in [
            standard_base64(KEY.as_bytes()),
            standard_base64(format!("Bearer {KEY}").as_bytes()),
            standard_base64(format!("user:{KEY}").as_bytes()),
            standard_base64(format!(":{KEY}").as_bytes()),
            standard_base64(format!("{KEY}:").as_bytes()),
            standard_base64(format!("ab{KEY}").as_bytes())
                .replace('+', "-")
                .replace('/', "_"),
            standard_base64(KEY.as_bytes())
                .trim_end_matches('=')
                .to_owned(),
        ] {
            let scrubbed = scrubber.scrub(&text);
            assert!(scrubbed.contains(REPLACEMENT), "{text}");
            assert!(!scrubber.contains_key(&scrubbed), "{text} -> {scrubbed}");
        }
        let odd = KeyScrubber::new("a+b/c=d\"e\\f%g h").unwrap();
        for text in [
            "a%2Bb%2Fc%3Dd%22e%5Cf%25g",
            "a%2bb%2fc%3dd",
            "\"a+b/c=d\\\"e\\\\f\"",
            "a+b/c=d\"\"e",
        ] {
            assert!(odd.contains_key(text), "{text}");
        }
    }

    #[test]
    fn a_key_split_across_pieces_is_caught_in_the_second() {
        let scrubber = KeyScrubber::new(KEY).unwrap();
        let mut state = StreamScrub::default();
        let mut shown = String::new();
        for piece in [
            "Your key is sk-ttft",
            "m",
            "eter-CANARY-01",
            "23456789abcdefXYZ ok",
        ] {
            let mut text = piece.to_owned();
            scrubber.scrub_stream(&mut state, &mut text);
            shown.push_str(&text);
        }
        assert!(!scrubber.contains_key(&shown), "{shown}");
        assert!(shown.starts_with("Your key is sk-ttft"));
        assert!(shown.ends_with(" ok"));
    }

    #[test]
    fn short_keys() {
        assert!(KeyScrubber::new("abc").is_none());
        let scrubber = KeyScrubber::new("s3cr3t").unwrap();
        assert_eq!(scrubber.width(), 6);
        assert_eq!(scrubber.scrub("a s3cr3t b"), format!("a {REPLACEMENT} b"));
        assert_eq!(scrubber.scrub("a s3cr3 b"), "a s3cr3 b");
    }

    #[test]
    fn json_strings_and_names() {
        let scrubber = KeyScrubber::new(KEY).unwrap();
        let mut value = serde_json::json!({ KEY: [format!("x{KEY}"), 1, null], "a": { "b": KEY } });
        scrubber.scrub_json(&mut value);
        assert!(!scrubber.contains_key(&value.to_string()), "{value}");
    }

    #[test]
    fn a_key_holding_the_replacement_gets_another_one() {
        let scrubber = KeyScrubber::new("my key removed secret").unwrap();
        assert_eq!(scrubber.replacement(), "«key»");
        assert!(!scrubber.contains_key(&scrubber.scrub("x my key removed secret y")));
    }

    #[test]
    fn debug_shows_no_piece_of_the_key() {
        let scrubber = KeyScrubber::new(KEY).unwrap();
        assert!(!scrubber.contains_key(&format!("{scrubber:?}")));
    }

    /// The hostile provider's forms of issue 23: hex, reversed, laced with invisible
    /// characters.
    #[test]
    fn hex_reversed_and_laced_forms_are_removed() {
        let scrubber = KeyScrubber::new(KEY).unwrap();
        let hex_lower: String = KEY.bytes().map(|b| format!("{b:02x}")).collect();
        let hex_upper = hex_lower.to_uppercase();
        let reversed: String = KEY.chars().rev().collect();
        let laced = |mark: char, every: usize| -> String {
            KEY.chars()
                .enumerate()
                .flat_map(|(at, c)| {
                    if (at + 1) % every == 0 {
                        vec![c, mark]
                    } else {
                        vec![c]
                    }
                })
                .collect()
        };
        for form in [
            hex_lower,
            hex_upper,
            reversed,
            laced('\u{200B}', 1),
            laced('\u{2060}', 1),
            laced('\u{00AD}', 1),
            laced('\u{FEFF}', 3),
            laced('\u{202E}', 2),
        ] {
            let text = format!("error: {form} | end");
            let scrubbed = scrubber.scrub(&text);
            // An invisible character after the key's last one is left, as harmless.
            let visible: String = scrubbed
                .chars()
                .filter(|&c| !is_invisible_format(c))
                .collect();
            assert_eq!(visible, format!("error: {REPLACEMENT} | end"), "{form:?}");
            assert!(scrubber.contains_key(&text));
        }
        // Laced and split across two pieces of a stream.
        let laced_key = laced('\u{200B}', 1);
        let split = laced_key.char_indices().nth(9).unwrap().0;
        let mut state = StreamScrub::default();
        let (mut first, mut second) =
            (laced_key[..split].to_owned(), laced_key[split..].to_owned());
        scrubber.scrub_stream(&mut state, &mut first);
        scrubber.scrub_stream(&mut state, &mut second);
        let shown = format!("{first}{second}");
        assert!(!scrubber.contains_key(&shown), "{shown:?}");
        // Ordinary text with invisible characters is left alone.
        assert_eq!(
            scrubber.scrub("a\u{200B}b \u{202E}c"),
            "a\u{200B}b \u{202E}c"
        );
    }

    /// Every key of a scrubber is removed: the tab's key and the ones it held before.
    #[test]
    fn several_keys() {
        let old = "sk-old-key-0123456789";
        let new = "sk-new-key-ABCDEFGHIJ";
        let scrubber = KeyScrubber::for_keys([new, old, "ab", "  "]).unwrap();
        assert_eq!(scrubber.width(), WINDOW_CHARS);
        assert_eq!(
            scrubber.scrub(&format!("{old} and {new}")),
            format!("{REPLACEMENT} and {REPLACEMENT}")
        );
        let short = KeyScrubber::for_keys([new, "s3cr3t"]).unwrap();
        assert_eq!(short.width(), 6);
        assert!(!short.contains_key(&short.scrub(&format!("{new} s3cr3t"))));
        assert!(KeyScrubber::for_keys(["ab", ""]).is_none());
        assert!(KeyScrubber::for_keys([]).is_none());
    }
}
