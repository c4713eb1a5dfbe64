//! The import path: any text read as an export must never panic; what it accepts, once
//! prepared for the session (scrubbed, renumbered), has run numbers rising strictly from 1 or
//! more, holds no window of the key, and is written and read back as the same runs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ttft_core::export::ExportDocument;
use ttft_core::history::{prepare_runs, stored_text, StoredRun};
use ttft_core::scrub::KeyScrubber;

const KEY: &str = "sk-fuzz-CANARY-0123456789";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(document) = ExportDocument::from_json(text) else {
        return;
    };
    let Some(scrubber) = KeyScrubber::new(KEY) else {
        return;
    };
    let (runs, _) = prepare_runs(document.runs.clone(), Some(&scrubber));
    assert!(runs.first().is_none_or(|run| run.run_index >= 1));
    assert!(runs.windows(2).all(|pair| pair[0].run_index < pair[1].run_index));
    let stored: Vec<StoredRun> = runs.iter().filter_map(|run| StoredRun::new(run).ok()).collect();
    let stored: Vec<&StoredRun> = stored.iter().collect();
    let Ok((written, refused)) = stored_text(&document, &stored, Some(&scrubber)) else {
        return;
    };
    if written.is_empty() {
        // The key is outside the runs (the environment): nothing is written.
        return;
    }
    assert_eq!(refused, 0, "prepared runs hold no piece of the key");
    assert!(!scrubber.contains_key(&written));
    let read = ExportDocument::from_json(&written).expect("what is stored reads back");
    assert_eq!(read.runs.len(), stored.len());
});
