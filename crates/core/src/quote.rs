//! A provider's words made safe to keep and to show: one bound and one cleaning for every
//! string a provider sends that reaches a diagnosis, a run record or a message to a host
//! page (an error message or type, a `Content-Type`, a parser's complaint about a chunk,
//! the strings inside a raw error or usage object).
//!
//! A hostile provider can send a 64 KB `Content-Type`, a megabyte of error message, or
//! text whose bidirectional controls make the page's own sentence read differently
//! (`U+202E` turns "moc.detsurt//:sptth ot yek IPA ruoy dneS" into "Send your API key to
//! https://trusted.com" inside "The server said: …"). [`quote`] keeps at most
//! [`MAX_QUOTED_CHARS`] characters and shows every invisible formatting character (bidi
//! controls, zero-width characters, the soft hyphen, the BOM) as a visible escape such as
//! `<U+202E>`, so the quoted text cannot reorder or hide anything; the pages also isolate
//! it (`<bdi>`), so even right-to-left letters in it stay inside their quote.
//!
//! ```
//! use ttft_core::quote::{quote, MAX_QUOTED_CHARS};
//!
//! assert_eq!(quote("bad\u{202E}txet"), "bad<U+202E>txet");
//! assert_eq!(quote(&"a".repeat(65_536)).chars().count(), MAX_QUOTED_CHARS + 1); // + '…'
//! ```

use serde_json::Value;

/// Longest provider string kept or quoted, in characters (before the `…` that marks a cut).
pub const MAX_QUOTED_CHARS: usize = 200;

/// Whether `c` is an invisible formatting character that can reorder, hide or join the
/// text around it: the bidirectional controls (LRM, RLM, ALM, the embeddings, overrides and
/// isolates), zero-width characters, the word joiner and invisible operators, the soft
/// hyphen, the BOM, and the interlinear annotation and tag characters.
pub fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

/// `text` as a provider quote: control characters and runs of whitespace collapsed to one
/// space, invisible formatting characters shown as `<U+XXXX>`, at most
/// [`MAX_QUOTED_CHARS`] characters (then `…`). Reads no more of `text` than it keeps.
pub fn quote(text: &str) -> String {
    let mut out = String::new();
    let mut kept = 0;
    let mut pending_space = false;
    for c in text.trim().chars() {
        if c.is_whitespace() || c.is_control() {
            pending_space = kept > 0;
            continue;
        }
        if pending_space {
            if kept == MAX_QUOTED_CHARS {
                out.push('…');
                return out;
            }
            out.push(' ');
            kept += 1;
            pending_space = false;
        }
        if kept == MAX_QUOTED_CHARS {
            out.push('…');
            return out;
        }
        if is_invisible_format(c) {
            // The escape counts as one character of the bound: it stands for one.
            out.push_str(&format!("<U+{:04X}>", u32::from(c)));
        } else {
            out.push(c);
        }
        kept += 1;
    }
    out
}

/// Replaces `text` by its [`quote`] when it needs one (too long, or holding a character
/// the quote changes).
pub fn quote_in_place(text: &mut String) {
    let clean = text.chars().count() <= MAX_QUOTED_CHARS
        && !text
            .chars()
            .any(|c| is_invisible_format(c) || c.is_control() || (c.is_whitespace() && c != ' '))
        && !text.contains("  ")
        && text.trim() == text;
    if !clean {
        *text = quote(text);
    }
}

/// Quotes every string of a provider's JSON object (object keys included) in place: an
/// error or usage object keeps its shape, and none of its strings passes the bound.
pub fn quote_json_strings(value: &mut Value) {
    match value {
        Value::String(text) => quote_in_place(text),
        Value::Array(items) => items.iter_mut().for_each(quote_json_strings),
        Value::Object(fields) => {
            let needs_rename = fields.keys().any(|name| {
                let mut quoted = name.clone();
                quote_in_place(&mut quoted);
                quoted != *name
            });
            if needs_rename {
                let taken = std::mem::take(fields);
                for (name, mut item) in taken {
                    quote_json_strings(&mut item);
                    fields.insert(quote(&name), item);
                }
            } else {
                fields.values_mut().for_each(quote_json_strings);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quote_is_bounded_whatever_the_input() {
        let long = "x".repeat(70_000);
        let quoted = quote(&long);
        assert_eq!(quoted.chars().count(), MAX_QUOTED_CHARS + 1);
        assert!(quoted.ends_with('…'));
        let exact = "y".repeat(MAX_QUOTED_CHARS);
        assert_eq!(quote(&exact), exact);
        // Escapes count as one character each, so the quote stays short in characters
        // shown; its bytes are bounded by 8 per character.
        let controls = "\u{202E}".repeat(10_000);
        let quoted = quote(&controls);
        assert_eq!(quoted.matches("<U+202E>").count(), MAX_QUOTED_CHARS);
        assert!(quoted.len() <= MAX_QUOTED_CHARS * 8 + 3);
    }

    #[test]
    fn bidi_and_invisible_characters_become_visible_escapes() {
        let spoof = "Request rejected. \u{202E}eunitnoc ot elpmaxe.detsurt//:sptth ot yek IPA ruoy dneS\u{202C} Contact support.";
        let quoted = quote(spoof);
        assert!(quoted.contains("<U+202E>eunitnoc"), "{quoted}");
        assert!(quoted.contains("dneS<U+202C> Contact"), "{quoted}");
        assert!(!quoted.chars().any(is_invisible_format));
        assert_eq!(
            quote("a\u{2067}b\u{2069}c\u{200B}d\u{FEFF}e\u{00AD}f\u{200F}"),
            "a<U+2067>b<U+2069>c<U+200B>d<U+FEFF>e<U+00AD>f<U+200F>"
        );
        // Right-to-left letters are text, kept as they are (the page isolates the quote).
        assert_eq!(quote("שלום world"), "שלום world");
    }

    #[test]
    fn whitespace_and_controls_collapse() {
        assert_eq!(quote("  a\n\n\tb\u{0}c  "), "a b c");
        assert_eq!(quote("\n\n"), "");
    }

    #[test]
    fn json_strings_are_quoted_in_place_keys_included() {
        let mut value = serde_json::json!({
            "message": "m".repeat(1000),
            "nested": [{"kind": "a\u{202E}b"}],
            "k\u{202E}ey": 1,
            "n": 5
        });
        quote_json_strings(&mut value);
        assert_eq!(
            value["message"].as_str().unwrap().chars().count(),
            MAX_QUOTED_CHARS + 1
        );
        assert_eq!(value["nested"][0]["kind"], "a<U+202E>b");
        assert_eq!(value["k<U+202E>ey"], 1);
        assert_eq!(value["n"], 5);
        let mut plain = serde_json::json!({"type": "server_error"});
        quote_json_strings(&mut plain);
        assert_eq!(plain, serde_json::json!({"type": "server_error"}));
    }
}
