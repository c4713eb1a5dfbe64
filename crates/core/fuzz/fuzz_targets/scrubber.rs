//! The scrubber: for any key and any text cut into any pieces, nothing shown holds an
//! 8-character window of the key (nor of its base64 or percent-encoded forms), whole or
//! streamed, and text without such a window is left as it is.
//!
//! Input layout: `[key_len] key ++ [cut_count] cuts ++ text`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ttft_core::scrub::{KeyScrubber, StreamScrub, WINDOW_CHARS};

fn take<'a>(data: &mut &'a [u8], count: usize) -> &'a [u8] {
    let count = count.min(data.len());
    let (head, rest) = data.split_at(count);
    *data = rest;
    head
}

fuzz_target!(|data: &[u8]| {
    let mut rest = data;
    let key_len = usize::from(*take(&mut rest, 1).first().unwrap_or(&0)) % 64;
    // Keys are printable ASCII (what a header carries).
    let key: String = take(&mut rest, key_len)
        .iter()
        .map(|byte| char::from(b'!' + byte % 94))
        .collect();
    let cut_count = usize::from(*take(&mut rest, 1).first().unwrap_or(&0)) % 32;
    let cuts: Vec<usize> = take(&mut rest, cut_count).iter().map(|&byte| usize::from(byte) % 24 + 1).collect();
    // The text: the rest, with the key spliced in wherever a 0xFF byte is.
    let raw = String::from_utf8_lossy(rest);
    let text = raw.replace('\u{FFFD}', &key);
    let Some(scrubber) = KeyScrubber::new(&key) else {
        return;
    };
    let width = key.len().min(WINDOW_CHARS);
    let windows: Vec<&str> = (0..=key.len() - width).map(|at| &key[at..at + width]).collect();

    let whole = scrubber.scrub(&text);
    assert!(windows.iter().all(|window| !whole.contains(window)), "{whole:?}");
    assert!(!scrubber.contains_key(&whole));
    if !scrubber.contains_key(&text) {
        assert_eq!(whole, text.as_str());
    }

    let mut state = StreamScrub::default();
    let mut shown = String::new();
    let mut remaining = text.as_str();
    let mut index = 0;
    while !remaining.is_empty() {
        let mut end = cuts.get(index % cuts.len().max(1)).copied().unwrap_or(remaining.len()).min(remaining.len());
        while !remaining.is_char_boundary(end) {
            end += 1;
        }
        let (piece, after) = remaining.split_at(end);
        let mut piece = piece.to_owned();
        scrubber.scrub_stream(&mut state, &mut piece);
        shown.push_str(&piece);
        remaining = after;
        index += 1;
    }
    assert!(windows.iter().all(|window| !shown.contains(window)), "{shown:?}");
    assert!(!scrubber.contains_key(&shown));
});
