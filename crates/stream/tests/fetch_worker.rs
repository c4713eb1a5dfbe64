//! www/fetch-worker.js keeps its own copy of [`ACCOUNT_HEADERS`] and [`MAX_HEADER_BYTES`]
//! (a worker script cannot import Rust): this test reads the script and fails when the two
//! copies differ, so a header added to (or dropped from) one side alone fails `cargo test`.
//!
//! Same names in the same order, not the same set: the worker hands the page its
//! `[name, value]` pairs in its list's order, and the main-thread transport
//! (crates/web/src/transport/main_thread.rs) in `ACCOUNT_HEADERS`' order, so one order keeps
//! a run's recorded `timing_headers` the same whichever transport measured it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ttft_stream::dialect::{ACCOUNT_HEADERS, MAX_HEADER_BYTES};

const WORKER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../www/fetch-worker.js");

/// The text between `const NAME = ` and the `;` that ends the statement.
fn js_const<'s>(script: &'s str, name: &str) -> &'s str {
    let start = format!("const {name} = ");
    let at = script
        .find(&start)
        .unwrap_or_else(|| panic!("www/fetch-worker.js has no `{start}`"))
        + start.len();
    let rest = &script[at..];
    let end = rest
        .find(';')
        .unwrap_or_else(|| panic!("`{start}` in www/fetch-worker.js has no closing `;`"));
    rest[..end].trim()
}

/// The string literals of a JS array literal (`['a', "b", ...]`, no escapes in the names).
fn js_strings(array: &str) -> Vec<String> {
    let inner = array
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .unwrap_or_else(|| panic!("not an array literal: {array}"));
    inner
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            let quote = item.chars().next().expect("non-empty item");
            assert!(
                matches!(quote, '\'' | '"') && item.len() >= 2 && item.ends_with(quote),
                "not a plain string literal: {item}"
            );
            item[1..item.len() - 1].to_string()
        })
        .collect()
}

#[test]
fn the_fetch_worker_reads_the_account_headers_of_ttft_stream() {
    let script = std::fs::read_to_string(WORKER).expect("read www/fetch-worker.js");
    let worker_headers = js_strings(js_const(&script, "ACCOUNT_HEADERS"));
    assert_eq!(
        worker_headers, ACCOUNT_HEADERS,
        "www/fetch-worker.js's ACCOUNT_HEADERS must list crates/stream/src/dialect/account.rs's, \
         in the same order"
    );
}

#[test]
fn the_fetch_worker_bounds_header_values_as_ttft_stream_does() {
    let script = std::fs::read_to_string(WORKER).expect("read www/fetch-worker.js");
    let worker_bound: usize = js_const(&script, "MAX_HEADER_BYTES")
        .replace('_', "")
        .parse()
        .expect("MAX_HEADER_BYTES in www/fetch-worker.js is a plain number");
    assert_eq!(worker_bound, MAX_HEADER_BYTES);
}

#[test]
fn the_reader_fails_on_a_list_that_differs() {
    // The comparison above can fail: a list with one name left out reads as a different list.
    let edited = "const ACCOUNT_HEADERS = [\n  'server-timing', \"openai-processing-ms\",\n];";
    let read = js_strings(js_const(edited, "ACCOUNT_HEADERS"));
    assert_eq!(read, ["server-timing", "openai-processing-ms"]);
    assert_ne!(read, ACCOUNT_HEADERS);
}
