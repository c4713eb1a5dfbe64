//! The lab's experiments panel and results, mounted whole ([`LabApp`]) in headless Chromium
//! (wasm-bindgen-test): the prompt-length and models experiments and the context-window
//! cases that e2e/experiments.test.mjs ran against ttft-sim (issue 31's inventory, X1, X6,
//! X11-X14).
//!
//! Every measured run goes through a [`SimModelCarrier`]: a [`ScriptedCarrier`] whose script
//! for each request is ttft-sim's timing model for that request (the first answer token at
//! the sim's prefill for its model and prompt tokens, counted by the sim's own rule, with
//! that count in `usage.prompt_tokens`). The carrier stamps every arrival at its scripted
//! instant, so a fitted line is the model's exactly. The page's questions to the server
//! (its context windows from `/props` and `/v1/models`, token counts from `/tokenize` or a
//! non-streamed request) go around the carrier, to the live ttft-sim whose URL the test
//! command sets at compile time in `TTFT_SIM_URL` (scripts/test.sh). Windows are chosen per
//! request with model suffixes (`sim-linear-prefill@context_tokens=3000`: `/props?model=`
//! and the sim's refusals honour them), so one sim serves every test.
//!
//! What stays end to end (e2e/experiments.test.mjs): one experiment per schedule kind against
//! the sim's real prefill, HTTP/1.1's six connections and Stop.
#![cfg(target_arch = "wasm32")]
// clippy's allow-unwrap-in-tests does not see #[wasm_bindgen_test] functions.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::option_env_unwrap
)]

use std::rc::Rc;

use leptos::prelude::*;
use ttft_core::config::UrlConfig;
use ttft_lab_page::page::LabApp;
use ttft_web::testing::UI_WAIT_MS;
use ttft_web::testing::{clear_storage, mount, Mounted};
use ttft_web::transport::scripted::{Script, ScriptedCarrier};
use ttft_web::transport::{Carrier, HttpRequest, Opening, SharedCarrier};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

/// The ttft-sim the test command started (compile-time, since tests run in the browser).
fn sim_url() -> &'static str {
    option_env!("TTFT_SIM_URL")
        .expect("TTFT_SIM_URL names a running ttft-sim; run the tests through scripts/test.sh")
}

/// The output the page asks of every planned prompt (`max_tokens`), tokens.
const OUTPUT_TOKENS: u32 = 16;

/// An experiment of these tests ends within this (its scripted runs take under 10 s).
const EXPERIMENT_END_MS: f64 = 40_000.0;

// ttft-sim's model, as the scripts play it.

/// ttft-sim's token rule (crates/tokens, the crate the sim counts with): the prompt tokens
/// of a Chat Completions body, summed over its messages' texts.
fn prompt_tokens(body: &serde_json::Value) -> u32 {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|message| match &message["content"] {
            serde_json::Value::String(text) => ttft_tokens::count_tokens(text),
            serde_json::Value::Array(parts) => parts
                .iter()
                .filter_map(|part| part["text"].as_str())
                .map(ttft_tokens::count_tokens)
                .sum(),
            _ => 0,
        })
        .sum()
}

/// When ttft-sim's first answer token leaves for `model` (with its `@` settings) and a
/// prompt of `tokens`, ms after the request arrived (crates/sim/README.md, PROFILES: the
/// prefill formula, or the fixed `prefill_ms` of a suffix; no cache, no queue).
fn first_answer_ms(model: &str, tokens: u32) -> f64 {
    let (name, settings) = model.split_once('@').unwrap_or((model, ""));
    if let Some(fixed) = settings
        .split(',')
        .find_map(|setting| setting.strip_prefix("prefill_ms="))
    {
        return fixed.parse().unwrap();
    }
    let n = f64::from(tokens);
    match name {
        "sim-linear-prefill" => 200.0 + 0.5 * n,
        "sim-fast" => 60.0 + 0.05 * n + 0.000_001 * n * n,
        other => panic!("these tests have no timing model for {other}"),
    }
}

/// One Chat Completions chunk of `model` with `rest` (choices, usage).
fn chunk(model: &str, rest: serde_json::Value) -> String {
    let mut event = serde_json::json!({
        "id": "chatcmpl-sim", "object": "chat.completion.chunk", "created": 1, "model": model,
    });
    if let (Some(event), Some(rest)) = (event.as_object_mut(), rest.as_object()) {
        event.extend(rest.clone());
    }
    format!("data: {event}\n\n")
}

fn delta(model: &str, delta: serde_json::Value) -> String {
    chunk(
        model,
        serde_json::json!({"choices": [{"index": 0, "delta": delta, "finish_reason": null}]}),
    )
}

/// What ttft-sim streams for a Chat Completions `request` (two answer tokens 1 ms apart,
/// as the e2e sim ran with `itl_ms=1 answer_tokens=2`): the role at once, the first answer
/// at [`first_answer_ms`], then the finish and the usage chunk with the prompt's tokens
/// (none with `stream_usage=0`, as llama-cpp-python).
fn sim_script(request: &HttpRequest) -> Script {
    let body: serde_json::Value =
        serde_json::from_str(request.body.as_deref().unwrap_or("{}")).unwrap();
    let model = body["model"].as_str().unwrap_or_default().to_owned();
    let tokens = prompt_tokens(&body);
    let ttfa_ms = first_answer_ms(&model, tokens);
    let role = delta(
        &model,
        serde_json::json!({"role": "assistant", "content": ""}),
    );
    let first = delta(&model, serde_json::json!({"content": "Here"}));
    let second = delta(&model, serde_json::json!({"content": " is"}));
    let finish = chunk(
        &model,
        serde_json::json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]}),
    );
    let usage = chunk(
        &model,
        serde_json::json!({"choices": [], "usage": {
            "prompt_tokens": tokens, "completion_tokens": 2, "total_tokens": tokens + 2,
            "prompt_tokens_details": {"cached_tokens": 0},
        }}),
    );
    let usage = if model.contains("stream_usage=0") {
        String::new()
    } else {
        usage
    };
    let end = format!("{finish}{usage}data: [DONE]\n\n");
    Script::event_stream(
        1.0,
        &[
            (2.0, &role),
            (ttfa_ms, &first),
            (ttfa_ms + 1.0, &second),
            (ttfa_ms + 1.0, &end),
        ],
        ttfa_ms + 2.0,
    )
}

/// A carrier that answers every run's request as ttft-sim would ([`sim_script`]), through
/// a [`ScriptedCarrier`] (which stamps each arrival at its scripted instant). Clones share
/// the requests sent.
#[derive(Clone, Default)]
struct SimModelCarrier {
    scripted: ScriptedCarrier,
}

impl SimModelCarrier {
    /// Every run's request sent so far, in order, as JSON bodies.
    fn bodies(&self) -> Vec<serde_json::Value> {
        self.scripted
            .sent()
            .iter()
            .map(|request| serde_json::from_str(request.body.as_deref().unwrap()).unwrap())
            .collect()
    }
}

impl Carrier for SimModelCarrier {
    fn open<'a>(&'a self, request: &'a HttpRequest) -> Opening<'a> {
        Box::pin(async move {
            // Queued and taken in the same poll: each request gets its own script.
            self.scripted.then([sim_script(request)]);
            self.scripted.open(request).await
        })
    }
}

// The lab, as a user drives it.

/// The lab with the experiment `kind` chosen, its form aimed at the live sim's Chat
/// Completions with `model`, its runs through `carrier`, on a first visit.
async fn lab(kind: &str, model: &str, carrier: &SimModelCarrier) -> Mounted {
    clear_storage();
    let base_url = format!("{}/v1", sim_url());
    let config = UrlConfig::from_pairs([
        ("base_url", base_url.as_str()),
        ("protocol", "chat"),
        ("model", model),
        ("experiment", kind),
    ]);
    let carrier: SharedCarrier = Rc::new(carrier.clone());
    let view = mount(move || view! { <LabApp config=config carrier=carrier /> });
    view.until_attribute("status", "data-state", "ready", UI_WAIT_MS)
        .await;
    // Chosen as a user would (the e2e's selectOption). `experiment=` preselects the
    // experiment's fields, but in this mount the select itself may still show the
    // registry's first (the built page shows the preselected one). The fields are drawn
    // again for the choice: wait for them.
    view.type_into("exp-kind", kind);
    ttft_web::testing::frames(1).await;
    assert_eq!(view.value("exp-kind"), kind);
    view
}

/// Fills the experiment's fields (test id → text) and clicks Run.
fn start(view: &Mounted, fields: &[(&str, &str)]) {
    for (id, text) in fields {
        view.type_into(id, text);
    }
    view.click("exp-run");
}

/// Waits until the experiment has ended as `state` (done, stopped, refused).
async fn ended(view: &Mounted, state: &str) {
    view.until_attribute("exp-progress", "data-state", state, EXPERIMENT_END_MS)
        .await;
}

/// A `data-<name>` figure of the experiment's report, as text.
fn figure(view: &Mounted, name: &str) -> String {
    view.attribute("exp-report", &format!("data-{name}"))
        .unwrap_or_else(|| panic!("the report has no data-{name}"))
}

/// A figure of the report as a number.
fn number(view: &Mounted, name: &str) -> f64 {
    let text = figure(view, name);
    text.parse()
        .unwrap_or_else(|_| panic!("data-{name} is {text:?}, not a number"))
}

/// The report table's cells, row by row, as shown.
fn table(view: &Mounted) -> Vec<Vec<String>> {
    let rows = view
        .get("exp-table")
        .query_selector_all("tbody tr")
        .unwrap();
    (0..rows.length())
        .filter_map(|index| rows.item(index))
        .map(|row| {
            let row: web_sys::Element = row.unchecked_into();
            let cells = row.query_selector_all("td").unwrap();
            (0..cells.length())
                .filter_map(|index| cells.item(index))
                .map(|cell| cell.text_content().unwrap_or_default())
                .collect()
        })
        .collect()
}

/// The report's notes, as one text.
fn notes(view: &Mounted) -> String {
    view.text("exp-notes")
}

/// Whether `count` is on `target` within 3% (or 4 tokens: one filler word).
fn on_target(count: u32, target: u32) -> bool {
    f64::from(count.abs_diff(target)) <= f64::max(4.0, 0.03 * f64::from(target))
}

/// The sim's count of each run's prompt, smallest first.
fn sent_prompt_tokens(carrier: &SimModelCarrier) -> Vec<u32> {
    let mut tokens: Vec<u32> = carrier.bodies().iter().map(prompt_tokens).collect();
    tokens.sort_unstable();
    tokens
}

/// The table's planned sizes are `planned`, no run failed, and the prompts sent (one a size)
/// end with one on `largest` tokens, each leaving the output room in a `window`-token window.
fn assert_sizes_fit(
    view: &Mounted,
    carrier: &SimModelCarrier,
    planned: &[&str],
    largest: u32,
    window: u32,
) {
    let rows = table(view);
    let shown: Vec<&str> = rows.iter().map(|row| row[0].as_str()).collect();
    assert_eq!(shown, planned);
    assert!(
        rows.iter().all(|row| row[4] == "0"),
        "no failed run: {rows:?}"
    );
    let sizes = sent_prompt_tokens(carrier);
    assert_eq!(sizes.len(), planned.len());
    assert!(on_target(sizes[sizes.len() - 1], largest), "{sizes:?}");
    assert!(
        sizes.iter().all(|tokens| tokens + OUTPUT_TOKENS <= window),
        "{sizes:?} fit the window"
    );
}

/// A prompt-length experiment on `model` with `sizes`, once each, played until its state is
/// `state`; the side requests recorded from before the mount (`hidden` answered 404).
async fn prompt_lengths(
    model: &str,
    sizes: &str,
    state: &str,
    hidden: &[&str],
) -> (Mounted, SimModelCarrier, SideRequests) {
    let side = SideRequests::record(hidden);
    let carrier = SimModelCarrier::default();
    let view = lab("prompt_length", model, &carrier).await;
    start(&view, &[("exp-sizes", sizes), ("exp-repetitions", "1")]);
    ended(&view, state).await;
    (view, carrier, side)
}

fn assert_close(actual: f64, expected: f64, what: &str) {
    assert!(
        (actual - expected).abs() < 1e-6,
        "{what}: {actual}, not {expected}"
    );
}

// X1: prompt length on a linear prefill.

#[wasm_bindgen_test]
async fn prompt_length_on_the_linear_sim_fits_its_line_and_shows_the_experiments_runs() {
    // sim-linear-prefill: 200 ms + 0.5 ms per prompt token.
    let side = SideRequests::record(&[]);
    let carrier = SimModelCarrier::default();
    let view = lab("prompt_length", "sim-linear-prefill", &carrier).await;
    start(
        &view,
        &[
            ("exp-sizes", "100, 1000, 2000, 4000"),
            ("exp-repetitions", "2"),
        ],
    );
    ended(&view, "done").await;
    // The runs' instants are the model's exactly: so is the fitted line.
    assert_close(
        number(&view, "slope-ms-per-token"),
        0.5,
        "slope, ms per token",
    );
    assert_close(number(&view, "intercept-ms"), 200.0, "intercept, ms");
    assert_eq!(
        view.attribute("exp-verdict", "data-verdict").as_deref(),
        Some("near_linear")
    );
    // The table holds the chart's data: one row per size, two runs each, none failed.
    let rows = table(&view);
    assert_eq!(rows.len(), 4);
    assert!(
        rows.iter().all(|row| row[3] == "2" && row[4] == "0"),
        "{rows:?}"
    );
    // Before the runs, the plan counted its prompts on the server (the live sim's
    // /tokenize): one probe and one prompt per size, calibration requests, not runs; the
    // chart's token axis is the runs' usage.
    assert_eq!(
        view.attribute("exp-tally", "data-calibration-requests")
            .as_deref(),
        Some("5")
    );
    assert_eq!(side.to("POST", "/tokenize").await.len(), 5);
    assert!(side.to("POST", "/v1/chat/completions").await.is_empty());
    assert_eq!(
        view.attribute("exp-tally", "data-measured").as_deref(),
        Some("8")
    );
    assert_eq!(figure(&view, "token-source"), "server_usage");
    // Eight streamed requests of the form's model, each its planned size in the sim's count.
    let bodies = carrier.bodies();
    assert_eq!(bodies.len(), 8);
    assert!(bodies
        .iter()
        .all(|body| body["stream"] == true && body["model"] == "sim-linear-prefill"));
    let sizes = sent_prompt_tokens(&carrier);
    for (index, target) in [100, 100, 1000, 1000, 2000, 2000, 4000, 4000]
        .iter()
        .enumerate()
    {
        assert!(on_target(sizes[index], *target), "{sizes:?}");
    }
    // The results show this experiment's eight runs, chosen in the filter when it started.
    assert_eq!(
        view.attribute("runs-filter", "data-value").as_deref(),
        Some("prompt_length#1")
    );
    assert_eq!(view.value("runs-filter"), "prompt_length#1");
    assert_eq!(view.find_all("run-row").len(), 8);
    let tags: Vec<String> = view
        .find_all("run-experiment")
        .iter()
        .map(|tag| tag.text_content().unwrap_or_default())
        .collect();
    assert!(
        tags.iter().all(|tag| tag.starts_with("prompt_length #1: ")),
        "{tags:?}"
    );
    view.type_into("runs-filter", "send");
    ttft_web::testing::frames(1).await;
    assert_eq!(view.find_all("run-row").len(), 0);
    view.type_into("runs-filter", "all");
    ttft_web::testing::frames(1).await;
    assert_eq!(view.find_all("run-row").len(), 8);
}

// X15: a stream without usage.

#[wasm_bindgen_test]
async fn without_usage_in_the_stream_the_token_axis_is_the_servers_tokenizer() {
    // As llama-cpp-python (the sim's stream_usage=0): no usage in any stream, so each run's
    // prompt tokens are the server's /tokenize count of its size; the fitted cost is still
    // the sim's 0.5 ms per token, to the token or two between a size's count and a run's
    // own prompt (its nonce).
    let carrier = SimModelCarrier::default();
    let view = lab(
        "prompt_length",
        "sim-linear-prefill@stream_usage=0",
        &carrier,
    )
    .await;
    start(
        &view,
        &[
            ("exp-sizes", "100, 1000, 2000, 4000"),
            ("exp-repetitions", "1"),
        ],
    );
    ended(&view, "done").await;
    assert_eq!(figure(&view, "token-source"), "server_tokenizer");
    let slope = number(&view, "slope-ms-per-token");
    assert!((slope - 0.5).abs() < 0.005, "slope {slope} ms per token");
    assert_eq!(
        view.attribute("exp-verdict", "data-verdict").as_deref(),
        Some("near_linear")
    );
    assert_eq!(carrier.bodies().len(), 4);
}

// X6: models.

#[wasm_bindgen_test]
async fn models_rank_the_faster_first_and_draw_a_line_per_model() {
    // sim-fast: 60 + 0.05·n + 1e-6·n²; sim-linear-prefill: 200 + 0.5·n.
    let carrier = SimModelCarrier::default();
    let view = lab("models", "sim-fast", &carrier).await;
    start(
        &view,
        &[
            ("exp-models", "sim-linear-prefill, sim-fast"),
            ("exp-sizes", "100, 1000, 2000"),
            ("exp-repetitions", "1"),
        ],
    );
    ended(&view, "done").await;
    assert_eq!(figure(&view, "ranking"), "sim-fast sim-linear-prefill");
    assert_eq!(
        view.attribute("exp-verdict", "data-verdict").as_deref(),
        Some("fastest")
    );
    // The slower model's row: its prefill per 1k tokens is the sim's 500 ms.
    let rows = table(&view);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1][0], "sim-linear-prefill");
    let per_1k: f64 = rows[1][6].parse().unwrap();
    assert!((per_1k - 500.0).abs() < 0.5, "{:?}", rows[1]);
    // One fitted line per model in the chart.
    let lines = view
        .get("exp-report")
        .query_selector_all("path.exp-fit")
        .unwrap();
    assert_eq!(lines.length(), 2);
    // Six runs, each of its own model.
    let models: Vec<String> = carrier
        .bodies()
        .iter()
        .map(|body| body["model"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(models.len(), 6);
    assert_eq!(models.iter().filter(|m| *m == "sim-fast").count(), 3);
}

// X11-X14: context windows.

/// Sizes 1000, 2000, 8000 against the sim's own /tokenize and a 4096-token window from its
/// /props: every size counted by the server's tokenizer, the largest clipped to
/// 4096 − 16 (output) − 64 (chat template) = 4016, and no run would overflow.
#[wasm_bindgen_test]
async fn the_sims_tokenizer_sizes_the_prompts_and_its_window_clips_the_largest() {
    let (view, carrier, side) = prompt_lengths(
        "sim-linear-prefill@context_tokens=4096",
        "1000, 2000, 8000",
        "done",
        &[],
    )
    .await;
    let notes = notes(&view);
    assert!(
        notes.contains("sized to the server's own token count (server tokenizer)"),
        "{notes}"
    );
    assert!(
        notes.contains("A prompt of 8000 tokens was clipped to 4016: the server's context window is 4096 tokens"),
        "{notes}"
    );
    // Counted by the sim's /tokenize only (no counting request on the chat route), every
    // one in the tally; the window asked of /props for the form's model.
    let tokenize = side.to("POST", "/tokenize").await;
    assert!(tokenize.len() >= 4, "{tokenize:?}");
    assert_eq!(
        view.attribute("exp-tally", "data-calibration-requests"),
        Some(tokenize.len().to_string())
    );
    assert!(side.to("POST", "/v1/chat/completions").await.is_empty());
    assert_eq!(side.to("GET", "/props").await.len(), 1);
    assert_sizes_fit(&view, &carrier, &["1000", "2000", "4016"], 4016, 4096);
}

/// A 3000-token window from /props: sizes 500, 1000, 8000 give 500, 1000 and 2920 (3000 −
/// 16 − 64), and the report says so.
#[wasm_bindgen_test]
async fn a_window_from_props_clips_the_sizes_that_cannot_fit_and_the_report_says_so() {
    let (view, carrier, side) = prompt_lengths(
        "sim-linear-prefill@context_tokens=3000",
        "500, 1000, 8000",
        "done",
        &[],
    )
    .await;
    let notes = notes(&view);
    assert!(
        notes.contains("A prompt of 8000 tokens was clipped to 2920: the server's context window is 3000 tokens"),
        "{notes}"
    );
    assert_eq!(side.to("GET", "/props").await.len(), 1);
    assert_sizes_fit(&view, &carrier, &["500", "1000", "2920"], 2920, 3000);
}

/// The page's requests that go around the carrier (`window.fetch` on the main thread: the
/// lab's questions to the server, the models list, the simulator check), recorded until
/// dropped; with `hidden` paths answered 404 as a server without them would (the rest go to
/// the sim unchanged). ttft-sim turns `/tokenize` and `/props` off only for the whole
/// process (`--no-tokenize`, `--no-context-info`), and the other tests need them.
struct SideRequests {
    original: JsValue,
    log: js_sys::Array,
}

/// One recorded side request.
#[derive(Debug)]
struct SideRequest {
    method: String,
    path: String,
    body: String,
}

impl SideRequests {
    fn record(hidden: &[&str]) -> SideRequests {
        let window: JsValue = web_sys::window().unwrap().into();
        let original = js_sys::Reflect::get(&window, &"fetch".into()).unwrap();
        let log = js_sys::Array::new();
        let hidden: js_sys::Array = hidden.iter().map(|path| JsValue::from_str(path)).collect();
        let wrap = js_sys::Function::new_with_args(
            "original, log, hidden",
            "return function (input, init) {
                const request = new Request(input, init);
                const path = new URL(request.url, location.href).pathname;
                log.push(request.clone().text().then((body) => [request.method, path, body]));
                if (hidden.includes(path)) {
                    return Promise.resolve(new Response('{\"detail\":\"Not Found\"}', {
                        status: 404,
                        headers: { 'content-type': 'application/json' },
                    }));
                }
                return original(request);
            };",
        );
        let wrapped = wrap
            .call3(&JsValue::NULL, &original, &log, &hidden)
            .unwrap();
        js_sys::Reflect::set(&window, &"fetch".into(), &wrapped).unwrap();
        SideRequests { original, log }
    }

    /// Every side request so far, in order.
    async fn seen(&self) -> Vec<SideRequest> {
        let all = js_sys::Promise::all(&self.log);
        let entries: js_sys::Array = wasm_bindgen_futures::JsFuture::from(all)
            .await
            .unwrap()
            .unchecked_into();
        entries
            .iter()
            .map(|entry| {
                let entry: js_sys::Array = entry.unchecked_into();
                SideRequest {
                    method: entry.get(0).as_string().unwrap_or_default(),
                    path: entry.get(1).as_string().unwrap_or_default(),
                    body: entry.get(2).as_string().unwrap_or_default(),
                }
            })
            .collect()
    }

    /// The side requests to `path` (with `method`).
    async fn to(&self, method: &str, path: &str) -> Vec<SideRequest> {
        self.seen()
            .await
            .into_iter()
            .filter(|request| request.method == method && request.path == path)
            .collect()
    }
}

impl Drop for SideRequests {
    fn drop(&mut self) {
        let window: JsValue = web_sys::window().unwrap().into();
        let _ = js_sys::Reflect::set(&window, &"fetch".into(), &self.original);
    }
}

/// A server that publishes no window and has no tokenizer (llama-cpp-python) but names its
/// window when it refuses a counting request (ttft-sim's 400 in OpenAI's words, for a
/// 3000-token window): the page counts through non-streamed requests, learns the window
/// from the refusal and plans again within it; no run would overflow.
#[wasm_bindgen_test]
async fn a_window_named_only_in_a_refusal_clips_the_largest_size() {
    let model = "sim-linear-prefill@context_tokens=3000";
    let (view, carrier, side) =
        prompt_lengths(model, "500, 1000, 4000", "done", &["/tokenize", "/props"]).await;
    let notes = notes(&view);
    assert!(
        notes.contains("A prompt of 4000 tokens was clipped to 2920: the server's context window is 3000 tokens"),
        "{notes}"
    );
    assert!(
        notes.contains("sized to the server's own token count (server usage)"),
        "{notes}"
    );
    assert_eq!(figure(&view, "token-source"), "server_usage");
    // It asked for the window and the tokenizer (404), then counted through non-streamed
    // requests on the chat route.
    assert_eq!(side.to("GET", "/props").await.len(), 1);
    assert!(!side.to("POST", "/tokenize").await.is_empty());
    let counting = side.to("POST", "/v1/chat/completions").await;
    assert!(counting.len() >= 4, "{counting:?}");
    for request in &counting {
        let body: serde_json::Value = serde_json::from_str(&request.body).unwrap();
        assert_eq!(body["stream"], false, "{body}");
        assert_eq!(body["model"], model);
    }
    // Every run fits the window by the sim's own rule (prompt + max_tokens ≤ 3000): none
    // would have been refused.
    assert_sizes_fit(&view, &carrier, &["500", "1000", "2920"], 2920, 3000);
    assert!(carrier.bodies().iter().all(|body| body["stream"] == true));
}

/// A 60-token window leaves no room for any prompt beside the 16 output tokens and the
/// chat template: the experiment is refused with a message, and no run is made.
#[wasm_bindgen_test]
async fn a_window_too_small_for_any_prompt_refuses_the_experiment() {
    let (view, carrier, side) = prompt_lengths(
        "sim-linear-prefill@context_tokens=60",
        "100, 1000",
        "refused",
        &[],
    )
    .await;
    let message = view.text("exp-input-error");
    assert!(
        message.starts_with(
            "No prompt fits: the server's context window is 60 tokens and 16 are asked for the output."
        ),
        "{message}"
    );
    // No request on the chat route: neither a run nor a counting request.
    assert!(carrier.scripted.sent().is_empty());
    assert!(side.to("POST", "/v1/chat/completions").await.is_empty());
    // No run in the results (and so no experiment in their filter).
    assert_eq!(view.find_all("run-row").len(), 0);
    assert!(view.find("runs-filter").is_none());
}
