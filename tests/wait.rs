//! "Where the wait went", as the widget shows it after a run: real providers' captured
//! streams (tests/fixtures/sse/accounts, with their EXPECTED.json) replayed by a
//! [`ScriptedCarrier`] with the first answer at a scripted instant, so each part the view
//! shows is checked against the transcript's oracle and the script. The parts' arithmetic
//! is crates/core/tests/breakdown.rs's; the headers a browser reads (Server-Timing,
//! LiteLLM's) and the network parts stay end to end (e2e/wait.test.mjs).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::rc::Rc;

use leptos::prelude::*;
use ttft_core::config::UrlConfig;
use ttft_web::testing::{clear_storage, mount, until, Mounted};
use ttft_web::transport::scripted::{Script, ScriptedCarrier};
use ttft_web::transport::SharedCarrier;
use ttft_widget::WidgetApp;
use wasm_bindgen_test::*;

/// The captured streams and their oracle (copied from the providers' own answers; sources in
/// tests/fixtures/sse/accounts/README.md).
const FIXTURES: [(&str, &str); 12] = [
    (
        "groq_usage_on_finish_chunk_elided.sse",
        include_str!("fixtures/sse/accounts/groq_usage_on_finish_chunk_elided.sse"),
    ),
    (
        "groq_x_groq_only_2024.sse",
        include_str!("fixtures/sse/accounts/groq_x_groq_only_2024.sse"),
    ),
    (
        "groq_x_groq_usage.sse",
        include_str!("fixtures/sse/accounts/groq_x_groq_usage.sse"),
    ),
    (
        "llamacpp_server_timings.sse",
        include_str!("fixtures/sse/accounts/llamacpp_server_timings.sse"),
    ),
    (
        "llamacpp_timings_documented.sse",
        include_str!("fixtures/sse/accounts/llamacpp_timings_documented.sse"),
    ),
    (
        "llamacpp_timings_finish_chunk.sse",
        include_str!("fixtures/sse/accounts/llamacpp_timings_finish_chunk.sse"),
    ),
    (
        "sambanova_usage_timing.sse",
        include_str!("fixtures/sse/accounts/sambanova_usage_timing.sse"),
    ),
    (
        "vllm_per_request_metrics.sse",
        include_str!("fixtures/sse/accounts/vllm_per_request_metrics.sse"),
    ),
    (
        "nim_per_request_stats.sse",
        include_str!("fixtures/sse/accounts/nim_per_request_stats.sse"),
    ),
    (
        "cerebras_time_info.sse",
        include_str!("fixtures/sse/accounts/cerebras_time_info.sse"),
    ),
    (
        "fireworks_perf_metrics.sse",
        include_str!("fixtures/sse/accounts/fireworks_perf_metrics.sse"),
    ),
    (
        "localai_extra_usage.sse",
        include_str!("fixtures/sse/accounts/localai_extra_usage.sse"),
    ),
];
const EXPECTED: &str = include_str!("fixtures/sse/accounts/EXPECTED.json");

/// The one transcript with no answer text (a tool call only).
const TOOL_CALLS_ONLY: &str = "groq_x_groq_only_2024.sse";

/// When the transcript's events arrive (ms after the request left): all at once, so the
/// first answer token is at this instant (and the server's account, in the last events,
/// right after).
const ARRIVAL_MS: f64 = 250.0;

fn widget(carrier: &ScriptedCarrier) -> Mounted {
    clear_storage();
    let config = UrlConfig::from_pairs([
        ("base_url", "http://127.0.0.1:9/v1"),
        ("protocol", "chat"),
        ("model", "m"),
        ("lang", "en"),
    ]);
    let carrier: SharedCarrier = Rc::new(carrier.clone());
    mount(move || view! { <WidgetApp config=config carrier=carrier /> })
}

/// A transcript as one read at `at_ms`, its stream's end right after.
fn replay(transcript: &str, at_ms: f64) -> Script {
    Script::event_stream(5.0, &[(at_ms, transcript)], at_ms + 1.0)
}

async fn send(view: &Mounted, rows: usize) {
    view.click("send");
    until(
        "the run ended",
        || {
            let shown = view.find_all("run-row").len();
            let idle = view.get("stop").has_attribute("disabled");
            (shown >= rows && idle)
                .then_some(())
                .ok_or_else(|| format!("{shown} rows, idle {idle}"))
        },
        10_000.0,
    )
    .await
    .unwrap();
}

/// The run panel's wait view's part `part` (the first view: the run detail below the table
/// shows the same run again): its `data-ms` and `data-source`, when shown.
fn part(view: &Mounted, part: &str) -> Option<(f64, String)> {
    let item = view
        .get("wait")
        .query_selector(&format!("[data-testid=wait-parts] li[data-part={part}]"))
        .unwrap()?;
    Some((
        item.get_attribute("data-ms").unwrap().parse().unwrap(),
        item.get_attribute("data-source").unwrap_or_default(),
    ))
}

#[wasm_bindgen_test]
async fn each_servers_own_account_is_shown_as_its_parts() {
    let expected: serde_json::Value = serde_json::from_str(EXPECTED).unwrap();
    let carrier = ScriptedCarrier::new(
        FIXTURES
            .iter()
            .map(|(_, transcript)| replay(transcript, ARRIVAL_MS)),
    );
    let view = widget(&carrier);
    for (rows, (name, _)) in FIXTURES.iter().enumerate() {
        send(&view, rows + 1).await;
        let oracle = &expected[*name];
        if *name == TOOL_CALLS_ONLY {
            // Tool calls, no answer text: no first answer token, so no wait to break down.
            assert!(
                view.find("wait").is_none(),
                "{name}: no answer, no breakdown"
            );
            continue;
        }
        let wait = view
            .find("wait")
            .unwrap_or_else(|| panic!("{name}: no wait shown"));
        let ttfa_ms: f64 = wait.get_attribute("data-ttfa-ms").unwrap().parse().unwrap();
        assert_eq!(
            ttfa_ms, ARRIVAL_MS,
            "{name}: the first answer at the script's instant"
        );
        // Each part the server reported, as its account says (to the view's microsecond).
        for (code, field) in [("queue", "queue_ms"), ("prompt", "prompt_ms")] {
            match oracle[field].as_f64() {
                Some(reported_ms) => {
                    let (shown_ms, source) =
                        part(&view, code).unwrap_or_else(|| panic!("{name}: no {code} part"));
                    assert!(
                        (shown_ms - reported_ms).abs() < 0.001,
                        "{name}: {code} {shown_ms} ms, the account says {reported_ms}"
                    );
                    assert_eq!(source, "server_reported", "{name}: {code}");
                }
                None => assert!(
                    part(&view, code).is_none(),
                    "{name}: no {code} was reported"
                ),
            }
        }
        // SambaNova and Fireworks report their own time to first token: the server's part
        // is reported.
        if oracle["ttft_ms"].as_f64().is_some() {
            let (_, source) = part(&view, "server").expect("a server part");
            assert_eq!(source, "server_reported", "{name}");
        }
        // The parts of the arrival add up to it.
        // The run panel's view (the run detail below the table shows the same run again).
        let items = wait
            .query_selector_all("[data-testid=wait-parts] li[data-part]")
            .unwrap();
        let sum_ms: f64 = (0..items.length())
            .filter_map(|index| items.item(index))
            .filter_map(|node| {
                let item: web_sys::Element = wasm_bindgen::JsCast::unchecked_into(node);
                let code = item.get_attribute("data-part")?;
                let counted = !matches!(code.as_str(), "browser" | "paint");
                counted.then(|| item.get_attribute("data-ms")?.parse::<f64>().ok())?
            })
            .sum();
        assert!(
            (sum_ms - ARRIVAL_MS).abs() < 0.01,
            "{name}: the parts sum to {sum_ms}, the wait was {ARRIVAL_MS}"
        );
        assert_ne!(
            wait.get_attribute("data-server-claim-rejected").as_deref(),
            Some("true"),
            "{name}: a claim within the wait is believed"
        );
    }
}

/// A Groq-style stream whose account says `queue_ms` of queue and `prompt_ms` of prompt.
fn groq_account(queue_ms: f64, prompt_ms: f64) -> String {
    let usage = serde_json::json!({
        "queue_time": queue_ms / 1000.0, "prompt_tokens": 20, "prompt_time": prompt_ms / 1000.0,
        "completion_tokens": 4, "completion_time": 0.009, "total_tokens": 24, "total_time": 0.02,
    });
    let chunk =
        |delta: serde_json::Value, finish: Option<&str>, usage: Option<&serde_json::Value>| {
            let mut chunk = serde_json::json!({
                "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                "x_groq": {"id": "req_1"},
            });
            if let Some(usage) = usage {
                chunk["x_groq"]["usage"] = usage.clone();
                chunk["usage"] = usage.clone();
            }
            format!("data: {chunk}\n\n")
        };
    format!(
        "{}{}{}data: [DONE]\n\n",
        chunk(
            serde_json::json!({"role": "assistant", "content": ""}),
            None,
            None
        ),
        chunk(serde_json::json!({"content": "Hi"}), None, None),
        chunk(serde_json::json!({}), Some("stop"), Some(&usage)),
    )
}

#[wasm_bindgen_test]
async fn the_verdict_names_the_largest_reported_part_and_says_what_to_do() {
    // Queue 900 of a 1,000 ms wait, then prompt 800 of 1,000: the verdict follows.
    let carrier = ScriptedCarrier::new([
        replay(&groq_account(900.0, 20.0), 1_000.0),
        replay(&groq_account(20.0, 800.0), 1_000.0),
    ]);
    let view = widget(&carrier);
    send(&view, 1).await;
    assert_eq!(
        view.attribute("wait", "data-verdict").as_deref(),
        Some("queue")
    );
    let queue_verdict = view.text("wait-verdict");
    send(&view, 2).await;
    assert_eq!(
        view.attribute("wait", "data-verdict").as_deref(),
        Some("prompt")
    );
    let prompt_verdict = view.text("wait-verdict");
    assert_ne!(
        queue_verdict, prompt_verdict,
        "each verdict says its own remedy"
    );
    for verdict in [&queue_verdict, &prompt_verdict] {
        assert!(verdict.len() > 30, "a verdict with a remedy: {verdict}");
    }
    assert_eq!(part(&view, "prompt").map(|(ms, _)| ms), Some(800.0));
}

/// An endpoint that hides its timing (no `Timing-Allow-Origin`, as every real provider):
/// after the first run the series pings it without the key, and the next run's network part
/// is the pings' estimate (the second quickest), labelled with their count.
#[wasm_bindgen_test]
async fn where_the_timing_is_hidden_pings_between_runs_give_the_network_part() {
    // Hidden timing: only fetchStart is non-zero.
    let hidden = ttft_core::timeline::ResourceTiming {
        fetch_start: 0.2,
        ..Default::default()
    };
    let run = |answer_ms: f64| {
        Script {
        timing: Some(hidden),
        ..Script::event_stream(
            5.0,
            &[(
                answer_ms,
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n",
            )],
            answer_ms + 1.0,
        )
    }
    };
    let carrier =
        ScriptedCarrier::new([run(400.0), run(400.0)]).with_pings([61.0, 55.0, 58.0, 57.0]);
    clear_storage();
    // An origin of its own: the page's contacts are page-wide, like the connection pool.
    let config = UrlConfig::from_pairs([
        ("base_url", "http://127.0.0.1:19/v1"),
        ("protocol", "chat"),
        ("model", "m"),
        ("runs", "2"),
        ("lang", "en"),
    ]);
    let shared: SharedCarrier = Rc::new(carrier.clone());
    let view = mount(move || view! { <WidgetApp config=config carrier=shared /> });
    send(&view, 2).await;
    // Three pings after the first run (none before: the page did not know the timing was
    // hidden), to the models URL.
    let pinged = carrier.pinged();
    assert_eq!(
        &pinged[..3],
        ["http://127.0.0.1:19/v1/models"; 3],
        "three pings between the runs: {pinged:?}"
    );
    // Run 2 (the panel's): the network is the second quickest of 61, 55, 58.
    let (network_ms, source) = part(&view, "network").expect("a network part");
    assert!((network_ms - 58.0).abs() < 1e-6, "network {network_ms} ms");
    assert_eq!(source, "estimated");
    let (server_ms, _) = part(&view, "server").expect("a server part");
    assert!(
        (server_ms - (400.0 - 58.0)).abs() < 1e-6,
        "server {server_ms} ms"
    );
    let line = view
        .get("wait-round-trip")
        .text_content()
        .unwrap_or_default();
    assert!(
        line.contains("58.0 ms") && line.contains("3 requests without the key"),
        "{line}"
    );
    // After the last run, one more ping goes in the background, for the next series.
    until(
        "the ping after the last run",
        || {
            (carrier.pinged().len() == 4)
                .then_some(())
                .ok_or_else(|| format!("{:?}", carrier.pinged()))
        },
        2_000.0,
    )
    .await
    .unwrap();
}

#[wasm_bindgen_test]
async fn a_long_prompt_whose_upload_the_server_does_not_report_is_said_to_be_inside_its_part() {
    // A 20 KB prompt; the server reports its queue and prompt processing but not when it had
    // the whole request: the view says the upload is inside the server's part, with the
    // request's size and what the browser says of its link (a downlink), and the verdict
    // does not name the prompt for a part the server did not report.
    let carrier = ScriptedCarrier::new([
        replay(&groq_account(20.0, 30.0), 1_000.0),
        replay(&groq_account(20.0, 30.0), 1_000.0),
    ]);
    let view = widget(&carrier);
    view.type_into("prompt", &"Summarize this. ".repeat(1_250));
    send(&view, 1).await;
    let note = view
        .find("wait-upload")
        .and_then(|note| note.text_content())
        .expect("a word on the upload");
    assert!(note.contains("KB"), "{note}");
    assert!(
        note.contains("a prefix cache does not shorten it"),
        "{note}"
    );
    assert!(
        note.contains("a downlink") || note.contains("gives no estimate"),
        "{note}"
    );
    // No round trip in this script (no pings): the network is inside the server's rest, and
    // the verdict says the upload is in it, not the prompt.
    let verdict = view.get("wait-verdict").text_content().unwrap_or_default();
    assert!(
        verdict.contains(
            "the network (the request's upload included) and the server beyond what it reported"
        ),
        "{verdict}"
    );
    assert!(
        verdict.contains("a prefix cache shortens only the first"),
        "{verdict}"
    );
    // A short prompt: nothing to say.
    view.type_into("prompt", "Say hello.");
    send(&view, 2).await;
    assert!(
        view.find("wait-upload").is_none(),
        "a short prompt's upload"
    );
}

/// ttft-relay's headers for docs/relay.md's example: a new h2 connection to the provider,
/// the request written 154.6 ms after the relay had it, the provider's headers at 226.0 ms.
const RELAY_SERVER_TIMING: &str = "relay-conn;desc=new, relay-proto;desc=h2, relay-dns;dur=0.4, \
    relay-tcp;dur=50.3, relay-tls;dur=103.1, relay-rtt;dur=50.3, relay-sent;dur=154.6, \
    relay-headers;dur=226.0";

/// A run through ttft-relay: its headers 2.5 ms after the relay's 226.0 (the loopback), its
/// first-byte note with the provider's role chunk 2.0 ms after the relay's 412.3, the first
/// answer token at 650 ms, two more 30 ms apart.
fn via_relay_script() -> Script {
    let role = ttft_web::testing::support::chat_event(
        serde_json::json!({"role": "assistant", "content": ""}),
    );
    let first = format!(": ttft-relay first-byte=412.3\n{role}");
    let hello = ttft_web::testing::support::chat_event(serde_json::json!({"content": "Hello"}));
    let world = ttft_web::testing::support::chat_event(serde_json::json!({"content": " world"}));
    Script::event_stream(
        228.5,
        &[
            // The note and the role chunk split mid-note, as a read can cut them.
            (414.3, &first[..20]),
            (414.4, &first[20..]),
            (650.0, &hello),
            (680.0, &world),
            (681.0, "data: [DONE]\n\n"),
        ],
        682.0,
    )
    .with_head(|head| {
        head.timing_headers = vec![
            ("server-timing".into(), RELAY_SERVER_TIMING.into()),
            ("x-ttft-relay".into(), "0.1.0".into()),
        ];
    })
}

/// Within the page's clock step and the scripted carrier's stamping, ms.
const SHOWN_WITHIN_MS: f64 = 0.5;

#[wasm_bindgen_test]
async fn a_run_through_the_relay_is_split_by_what_the_relay_saw_and_says_so() {
    // A nginx in front, buffering: twelve chunks in one read after 900 ms of silence.
    let buffered_body: String = (0..12)
        .map(|index| {
            ttft_web::testing::support::chat_event(
                serde_json::json!({"content": format!("w{index} ")}),
            )
        })
        .collect::<String>()
        + "data: [DONE]\n\n";
    let carrier = ScriptedCarrier::new([
        via_relay_script(),
        Script::event_stream(5.0, &[(900.0, &buffered_body)], 901.0),
    ]);
    let view = widget(&carrier);
    send(&view, 1).await;
    let wait = view.find("wait").expect("a wait shown");
    assert_eq!(wait.get_attribute("data-relay").as_deref(), Some("true"));
    let ttfa_ms: f64 = wait.get_attribute("data-ttfa-ms").unwrap().parse().unwrap();
    assert!((ttfa_ms - 650.0).abs() < SHOWN_WITHIN_MS, "ttfa {ttfa_ms}");
    // Each part where the relay's account and the script put it.
    for (code, expected_ms, expected_source) in [
        ("relay", 2.0, "measured"),
        ("connection", 154.6, "measured"),
        ("network", 50.3, "estimated"),
        ("server", 443.1, "estimated"),
    ] {
        let (shown_ms, source) = part(&view, code).unwrap_or_else(|| panic!("no {code} part"));
        assert!(
            (shown_ms - expected_ms).abs() < SHOWN_WITHIN_MS,
            "{code}: {shown_ms} ms shown, {expected_ms} scripted"
        );
        assert_eq!(source, expected_source, "{code}");
    }
    assert!(part(&view, "preflight").is_none());
    let parts = view.text("wait-parts");
    for label in [
        "browser ↔ relay (loopback)",
        "relay → provider, new connection, by the relay",
        "relay → provider, round trip, by the relay",
        "the provider's server",
    ] {
        assert!(parts.contains(label), "{label} in {parts}");
    }
    let relay_note = view.text("wait-relay");
    assert!(relay_note.starts_with("Via ttft-relay"), "{relay_note}");
    assert!(
        relay_note.contains("cold, opened for this run"),
        "{relay_note}"
    );
    assert!(view
        .text("wait-round-trip")
        .contains("ttft-relay's quickest exchange with the provider"));
    assert_eq!(
        view.attribute("wait", "data-verdict").as_deref(),
        Some("server")
    );
    assert!(view
        .text("wait-verdict")
        .contains("the provider's server before its first token"));
    // "via relay" in the runs table, its connection the relay's, and the run's details.
    let row = view.find_all("run-row").remove(0);
    assert_eq!(row.get_attribute("data-relay").as_deref(), Some("true"));
    assert_eq!(row.get_attribute("data-cold").as_deref(), Some("true"));
    assert_eq!(
        row.get_attribute("data-connection-evidence").as_deref(),
        Some("relay")
    );
    assert_eq!(view.text("via-relay"), "via relay");
    row.click();
    until(
        "the run's details",
        || {
            view.find("relay-line")
                .map(|_| ())
                .ok_or_else(|| "no relay line".to_owned())
        },
        10_000.0,
    )
    .await
    .unwrap();
    assert_eq!(
        view.text("relay-line"),
        "Via ttft-relay 0.1.0, to the provider over h2."
    );
    assert!(view
        .text("connection-line")
        .contains("ttft-relay opened a new connection to the provider"));
    assert!(
        view.find("buffered-arrival").is_none(),
        "streamed: not buffered"
    );

    // A direct run through a buffering proxy: flagged, not via relay.
    send(&view, 2).await;
    let warning = view.text("buffered-arrival");
    assert!(
        warning.starts_with(
            "The answer arrived all at once: 12 text chunks within 0.0 ms after 900 ms"
        ),
        "{warning}"
    );
    assert!(
        warning.contains("TTFT here is the buffer's, not the model's"),
        "{warning}"
    );
    assert_eq!(
        view.attribute("wait", "data-relay").as_deref(),
        Some("false")
    );
    let rows = view.find_all("run-row");
    assert_eq!(
        rows[1].get_attribute("data-relay").as_deref(),
        Some("false")
    );
    assert_eq!(
        rows[1].get_attribute("data-buffered").as_deref(),
        Some("true")
    );
    // Stored with the runs: the relay's account and the flag.
    let stored = ttft_web::testing::support::stored_runs();
    assert_eq!(stored[0]["relay"]["version"], "0.1.0");
    assert_eq!(stored[0]["relay"]["first_byte_ms"], 412.3);
    assert_eq!(stored[1]["buffered_arrival"]["text_chunks"], 12);
}
