//! Browser tests of URL configuration and the history store (issue 6), in headless Chromium.
#![cfg(target_arch = "wasm32")]
// clippy's allow-unwrap-in-tests does not see #[wasm_bindgen_test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ttft_web::persist;
use wasm_bindgen_test::*;

#[wasm_bindgen_test]
fn an_empty_history_clears_its_slot_and_loads_as_empty() {
    let local = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    local.clear().unwrap();
    local.set_item(persist::RUNS_SLOT, "not json").unwrap();
    let loaded = persist::load_runs(None);
    assert!(loaded.runs.is_empty(), "unreadable history loads as empty");
    // ... and is kept aside, untouched, with a notice naming its slot.
    let Some(ttft_core::history::HistoryNotice::SetAside { slot, .. }) = loaded.notice else {
        panic!("{:?}", loaded.notice);
    };
    assert_eq!(local.get_item(&slot).unwrap().as_deref(), Some("not json"));
    assert_eq!(local.get_item(persist::RUNS_SLOT).unwrap(), None);
    assert!(loaded.may_save);
    local.remove_item(&slot).unwrap();
    persist::save_runs(&[], None);
    assert_eq!(local.get_item(persist::RUNS_SLOT).unwrap(), None);
}

fn stored_record(run_index: u32) -> ttft_core::record::RunRecord {
    use ttft_core::measure::{FinishContext, Measurement, RunInput, RunPlan};
    use ttft_core::protocol::ProtocolChoice;
    use ttft_core::record::Transport;
    let plan = RunPlan::parse(&RunInput {
        protocol: ProtocolChoice::Auto,
        base_url: "http://127.0.0.1:8787/v1",
        api_key: "",
        model: "sim-fast",
        prompt: "Hi",
        max_tokens: "",
        reasoning: false,
        timeout_s: "",
        ttft_only: false,
    })
    .unwrap();
    let mut record = Measurement::new(&plan, None, 10.0, 1).finish(&FinishContext::new(
        "2026-11-29T17:00:00.000Z",
        Transport::Worker,
    ));
    record.run_index = run_index;
    record.canonicalized().unwrap()
}

#[wasm_bindgen_test]
fn the_history_keeps_the_newest_runs_up_to_the_bound() {
    let runs: Vec<_> = (1..=persist::MAX_STORED_RUNS as u32 + 5)
        .map(stored_record)
        .collect();
    let stored: Vec<_> = runs
        .iter()
        .map(|run| ttft_core::history::StoredRun::new(run).unwrap())
        .collect();
    let stored: Vec<_> = stored.iter().collect();
    assert!(persist::save_runs(&stored, None).is_empty());
    let loaded = persist::load_runs(None).runs;
    assert_eq!(loaded.len(), persist::MAX_STORED_RUNS);
    assert_eq!(loaded.first().map(|run| run.run_index), Some(6));
    assert_eq!(loaded.last(), runs.last());
    persist::save_runs(&[], None);
}
