//! The widget's views. Components only wire signals to elements; measuring happens in
//! [`crate::run`], computing in ttft-core.

use leptos::prelude::*;
use leptos::tachys::html::attribute::custom::CustomAttribute;
use leptos::task::spawn_local;
use ttft_core::diagnosis::Lang;
use ttft_core::request::Protocol;
use web_sys::MouseEvent;

use crate::run::{self, RunControl, RunSettings, RunUpdate};
use crate::{clock, paint, storage};

/// A run that has not finished after this long is aborted and diagnosed as a timeout.
const DEFAULT_TIMEOUT_MS: f64 = 120_000.0;

/// What the form holds. The key is kept out of here: it lives in sessionStorage and in the
/// key field only (see [`crate::storage`]).
#[derive(Clone, Copy)]
struct Endpoint {
    base_url: RwSignal<String>,
    api_key: RwSignal<String>,
    model: RwSignal<String>,
    prompt: RwSignal<String>,
}

/// Streamed text split around its first painted piece: the first (visible) text goes into
/// a fresh element with a unique `elementtiming` name so its paint can be timed.
#[derive(Clone, Copy)]
struct StreamedText {
    lead: RwSignal<String>,
    first: RwSignal<Option<(String, String)>>,
    rest: RwSignal<String>,
}

impl StreamedText {
    fn new() -> Self {
        Self {
            lead: RwSignal::new(String::new()),
            first: RwSignal::new(None),
            rest: RwSignal::new(String::new()),
        }
    }

    fn clear(&self) {
        self.lead.set(String::new());
        self.first.set(None);
        self.rest.set(String::new());
    }

    fn push(&self, text: String, paint_id: Option<String>) {
        if let Some(paint_id) = paint_id {
            self.first.set(Some((paint_id, text)));
        } else if self.first.with_untracked(Option::is_none) {
            self.lead.update(|lead| lead.push_str(&text));
        } else {
            self.rest.update(|rest| rest.push_str(&text));
        }
    }

    fn is_empty(&self) -> bool {
        self.lead.with(String::is_empty)
            && self.first.with(Option::is_none)
            && self.rest.with(String::is_empty)
    }
}

/// The live state of the current (or last) run.
#[derive(Clone, Copy)]
struct LiveRun {
    streaming: RwSignal<bool>,
    reasoning: StreamedText,
    answer: StreamedText,
    ttfa_ms: RwSignal<Option<f64>>,
    ttfr_ms: RwSignal<Option<f64>>,
    first_chunk_ms: RwSignal<Option<f64>>,
    perceived_ttfa_ms: RwSignal<Option<f64>>,
    url_called: RwSignal<String>,
    warnings: RwSignal<Vec<String>>,
    status: RwSignal<String>,
    diagnosis: RwSignal<Option<run::ShownDiagnosis>>,
}

impl LiveRun {
    fn new() -> Self {
        Self {
            streaming: RwSignal::new(false),
            reasoning: StreamedText::new(),
            answer: StreamedText::new(),
            ttfa_ms: RwSignal::new(None),
            ttfr_ms: RwSignal::new(None),
            first_chunk_ms: RwSignal::new(None),
            perceived_ttfa_ms: RwSignal::new(None),
            url_called: RwSignal::new(String::new()),
            warnings: RwSignal::new(Vec::new()),
            status: RwSignal::new(String::from("Ready.")),
            diagnosis: RwSignal::new(None),
        }
    }

    fn reset(&self) {
        self.reasoning.clear();
        self.answer.clear();
        self.ttfa_ms.set(None);
        self.ttfr_ms.set(None);
        self.first_chunk_ms.set(None);
        self.perceived_ttfa_ms.set(None);
        self.warnings.set(Vec::new());
        self.diagnosis.set(None);
    }

    fn apply(&self, update: RunUpdate) {
        match update {
            RunUpdate::Calling { url, warnings } => {
                self.url_called.set(url);
                self.warnings.set(warnings);
                self.status.set("Waiting for the first token…".into());
            }
            RunUpdate::FirstChunk { first_chunk_ms } => {
                self.first_chunk_ms.set(Some(first_chunk_ms))
            }
            RunUpdate::Reasoning {
                text,
                ttfr_ms,
                paint_id,
            } => {
                self.reasoning.push(text, paint_id);
                if ttfr_ms.is_some() {
                    self.ttfr_ms.set(ttfr_ms);
                }
            }
            RunUpdate::Answer {
                text,
                ttfa_ms,
                paint_id,
            } => {
                self.answer.push(text, paint_id);
                if ttfa_ms.is_some() {
                    self.ttfa_ms.set(ttfa_ms);
                    self.status.set("Streaming…".into());
                }
            }
            RunUpdate::Finished(record) => {
                let metrics = &record.metrics;
                self.ttfa_ms.set(metrics.ttfa_ms);
                self.ttfr_ms.set(metrics.ttfr_ms);
                self.first_chunk_ms.set(metrics.first_chunk_ms);
                self.perceived_ttfa_ms.set(metrics.perceived_ttfa_ms);
                self.status.set(match &record.diagnosis {
                    Some(_) => "The run failed.".into(),
                    None => format!(
                        "Done in {}.",
                        format_ms(metrics.e2e_ms.or(record.metrics.ttfa_ms))
                    ),
                });
                self.diagnosis.set(record.diagnosis);
            }
        }
    }
}

/// The base URL that works out of the box: the simulated provider that serves this page.
fn default_base_url() -> String {
    web_sys::window()
        .and_then(|window| window.location().origin().ok())
        .map(|origin| format!("{origin}/v1"))
        .unwrap_or_else(|| "http://127.0.0.1:8787/v1".into())
}

/// The whole widget.
#[component]
pub fn App() -> impl IntoView {
    let endpoint = Endpoint {
        base_url: RwSignal::new(default_base_url()),
        api_key: RwSignal::new(storage::load_api_key()),
        model: RwSignal::new("sim-reasoning".into()),
        prompt: RwSignal::new("Why is the sky blue? Answer in two sentences.".into()),
    };
    let live = LiveRun::new();
    let control = StoredValue::new_local(None::<RunControl>);
    paint::install_observer();

    let send = move |event: MouseEvent| {
        if live.streaming.get_untracked() {
            return;
        }
        // The user's start: the click's own timestamp, on the page clock.
        let clicked_ms = event.time_stamp();
        let settings = RunSettings {
            protocol: Protocol::OpenAiChat,
            dialect: None,
            base_url: endpoint.base_url.get_untracked(),
            api_key: endpoint.api_key.get_untracked(),
            model: endpoint.model.get_untracked(),
            prompt: endpoint.prompt.get_untracked(),
            max_output_tokens: None,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            ttft_only: false,
            lang: Lang::En,
        };
        let run_control = RunControl::default();
        control.set_value(Some(run_control.clone()));
        live.reset();
        live.streaming.set(true);
        spawn_local(async move {
            run::measure(settings, Some(clicked_ms), run_control, move |update| {
                live.apply(update)
            })
            .await;
            live.streaming.set(false);
            control.set_value(None);
        });
    };
    let stop = move |_| {
        control.with_value(|run_control| {
            if let Some(run_control) = run_control {
                run_control.stop();
            }
        });
    };

    view! {
        <main class="ttft">
            <header>
                <h1>"TTFT Meter"</h1>
                <p class="tagline">"Time to first token, measured in your browser, as painted."</p>
            </header>
            <EndpointForm endpoint=endpoint />
            <section class="panel" aria-labelledby="run-heading">
                <h2 id="run-heading">"Run"</h2>
                <div class="actions">
                    <button
                        class="primary"
                        data-testid="send"
                        on:click=send
                        disabled=move || live.streaming.get()
                    >
                        "Send"
                    </button>
                    <button data-testid="stop" on:click=stop disabled=move || !live.streaming.get()>
                        "Stop"
                    </button>
                    <span class="status" data-testid="status" role="status">
                        {move || live.status.get()}
                    </span>
                </div>
                <Readouts live=live />
                <p class="meta" data-testid="url-called">
                    {move || {
                        let url = live.url_called.get();
                        if url.is_empty() { String::new() } else { format!("POST {url}") }
                    }}
                </p>
                <DiagnosisBox diagnosis=live.diagnosis />
            </section>
            <LivePanes live=live />
        </main>
    }
}

/// Base URL, key, model and prompt.
#[component]
fn EndpointForm(
    /// The form's signals.
    endpoint: Endpoint,
) -> impl IntoView {
    let forget_key = move |_| {
        storage::forget_api_key();
        endpoint.api_key.set(String::new());
    };
    view! {
        <section class="panel" aria-labelledby="endpoint-heading">
            <h2 id="endpoint-heading">"Endpoint"</h2>
            <div class="fields">
                <div class="field wide">
                    <label for="base-url">"Base URL"</label>
                    <input
                        id="base-url"
                        data-testid="base-url"
                        type="url"
                        spellcheck="false"
                        prop:value=move || endpoint.base_url.get()
                        on:input=move |event| endpoint.base_url.set(event_target_value(&event))
                    />
                </div>
                <div class="field">
                    <label for="api-key">"API key"</label>
                    <div class="key-row">
                        <input
                            id="api-key"
                            data-testid="api-key"
                            type="password"
                            autocomplete="off"
                            placeholder="not needed for the simulator"
                            prop:value=move || endpoint.api_key.get()
                            on:input=move |event| {
                                let api_key = event_target_value(&event);
                                storage::save_api_key(&api_key);
                                endpoint.api_key.set(api_key);
                            }
                        />
                        <button data-testid="forget-key" on:click=forget_key>
                            "Forget"
                        </button>
                    </div>
                    <span class="hint">"Kept in this tab's sessionStorage only."</span>
                </div>
                <div class="field">
                    <label for="model">"Model"</label>
                    <input
                        id="model"
                        data-testid="model"
                        spellcheck="false"
                        prop:value=move || endpoint.model.get()
                        on:input=move |event| endpoint.model.set(event_target_value(&event))
                    />
                </div>
                <div class="field wide">
                    <label for="prompt">"Prompt"</label>
                    <textarea
                        id="prompt"
                        data-testid="prompt"
                        prop:value=move || endpoint.prompt.get()
                        on:input=move |event| endpoint.prompt.set(event_target_value(&event))
                    ></textarea>
                </div>
            </div>
        </section>
    }
}

fn format_ms(value_ms: Option<f64>) -> String {
    value_ms.map_or_else(|| "—".into(), |value_ms| format!("{value_ms:.0} ms"))
}

/// The headline numbers of the current run.
#[component]
fn Readouts(
    /// The run being shown.
    live: LiveRun,
) -> impl IntoView {
    let resolution = clock::timer_resolution_ms();
    let isolated = clock::cross_origin_isolated();
    let resolution_note = match resolution {
        Some(step_ms) => format!(
            "timer step {:.3} ms{}",
            step_ms,
            if isolated {
                ", cross-origin isolated"
            } else {
                ""
            }
        ),
        None => "timer step unknown".into(),
    };
    let raw = |value: Option<f64>| {
        value
            .map(|value_ms| format!("{value_ms:.3}"))
            .unwrap_or_default()
    };
    view! {
        <div class="readouts">
            <div class="readout">
                <div class="label">"Time to first answer token"</div>
                <div
                    class="value"
                    data-testid="ttfa"
                    data-ms=move || raw(live.ttfa_ms.get())
                >
                    {move || format_ms(live.ttfa_ms.get())}
                </div>
                <div class="note">"ttfa_ms: from fetch() to the first answer text"</div>
            </div>
            <div class="readout">
                <div class="label">"Time to first reasoning token"</div>
                <div class="value" data-testid="ttfr" data-ms=move || raw(live.ttfr_ms.get())>
                    {move || format_ms(live.ttfr_ms.get())}
                </div>
                <div class="note">"ttfr_ms"</div>
            </div>
            <div class="readout">
                <div class="label">"First chunk of any kind"</div>
                <div
                    class="value"
                    data-testid="first-chunk"
                    data-ms=move || raw(live.first_chunk_ms.get())
                >
                    {move || format_ms(live.first_chunk_ms.get())}
                </div>
                <div class="note">"first_chunk_ms: what naive tools call TTFT"</div>
            </div>
        </div>
        <p class="meta" data-testid="timer-resolution">{resolution_note}</p>
    }
}

/// The failure of the last run, with its cause and the fix.
#[component]
fn DiagnosisBox(
    /// The diagnosis to show, if the last run failed.
    diagnosis: RwSignal<Option<run::ShownDiagnosis>>,
) -> impl IntoView {
    move || {
        diagnosis.get().map(|shown| {
            view! {
                <div class="diagnosis" data-testid="diagnosis" data-cause=shown.cause_code role="alert">
                    <strong>{shown.title}</strong>
                    <p>{shown.fix}</p>
                </div>
            }
        })
    }
}

/// Streamed text as plain text (never HTML), its first piece in a fresh element whose
/// paint is timed.
#[component]
fn StreamedPane(
    /// The text.
    text: StreamedText,
) -> impl IntoView {
    view! {
        {move || text.lead.get()}
        {move || {
            text.first
                .get()
                .map(|(paint_id, first_text)| {
                    // `elementtiming` has no typed setter in the view macro.
                    leptos::html::span()
                        .class("painted-first")
                        .attr("elementtiming", paint_id)
                        .child(first_text)
                })
        }}
        {move || text.rest.get()}
    }
}

/// Reasoning and answer as they stream in, always as plain text.
#[component]
fn LivePanes(
    /// The run being shown.
    live: LiveRun,
) -> impl IntoView {
    view! {
        <section class="panel" aria-labelledby="output-heading">
            <h2 id="output-heading">"Output"</h2>
            <Show when=move || !live.reasoning.is_empty()>
                <pre class="pane reasoning" data-testid="reasoning">
                    <StreamedPane text=live.reasoning />
                </pre>
            </Show>
            <pre class="pane" data-testid="answer" aria-live="polite">
                <StreamedPane text=live.answer />
            </pre>
        </section>
    }
}
