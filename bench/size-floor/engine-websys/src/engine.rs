//! The widget's logic with no view framework: the form read from the page's inputs, the
//! plan parsed by ttft-core, the request sent with fetch and its body read as a stream, every
//! read fed to ttft-core's Measurement, the texts and the record's readouts and diagnosis
//! (either language) written into DOM nodes by hand, the history read and saved as the
//! widget does, the record posted to the parent as JSON.

use std::cell::RefCell;
use std::rc::Rc;

#[cfg(feature = "history")]
use ttft_core::export::{Environment, ExportDocument};
#[cfg(feature = "history")]
use ttft_core::history::{self, StoredRun};
use ttft_core::lang::Lang;
use ttft_core::measure::{
    FetchError, FinishContext, Measurement, Progress, ResponseHead, RunInput, SeriesInput,
    SeriesPlan, StreamControl,
};
use ttft_core::metric::METRICS;
use ttft_core::protocol::ProtocolChoice;
use ttft_core::record::{RunRecord, Transport};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Document, HtmlElement, HtmlInputElement, HtmlTextAreaElement};

fn document() -> Option<Document> {
    web_sys::window()?.document()
}

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|window| window.performance())
        .map_or(0.0, |performance| performance.now())
}

fn element(id: &str) -> Option<HtmlElement> {
    document()?.get_element_by_id(id)?.dyn_into().ok()
}

fn input(id: &str) -> String {
    document()
        .and_then(|document| document.get_element_by_id(id))
        .and_then(|element| match element.dyn_ref::<HtmlInputElement>() {
            Some(input) => Some(input.value()),
            None => element
                .dyn_ref::<HtmlTextAreaElement>()
                .map(HtmlTextAreaElement::value),
        })
        .unwrap_or_default()
}

fn set_text(id: &str, text: &str) {
    if let Some(element) = element(id) {
        element.set_text_content(Some(text));
    }
}

fn lang() -> Lang {
    if input("lang") == "zh" {
        Lang::Zh
    } else {
        Lang::En
    }
}

#[cfg(feature = "history")]
fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// Builds the first screen by hand.
pub fn mount(document: &Document) -> Result<(), JsValue> {
    let body = document.body().ok_or("no body")?;
    for (tag, id) in [
        ("input", "base-url"),
        ("input", "key"),
        ("input", "model"),
        ("input", "lang"),
        ("textarea", "prompt"),
        ("button", "send"),
        ("p", "result"),
        ("pre", "answer"),
        ("pre", "reasoning"),
        ("p", "diagnosis"),
        ("table", "readouts"),
    ] {
        let element = document.create_element(tag)?;
        element.set_id(id);
        body.append_child(&element)?;
    }
    set_text("send", "Send");
    Ok(())
}

async fn read_body(
    response: web_sys::Response,
    run: &Rc<RefCell<Measurement>>,
    controller: &web_sys::AbortController,
) -> Result<(), FetchError> {
    let to_error = |value: JsValue| FetchError {
        name: "TypeError".into(),
        message: value.as_string().unwrap_or_default(),
    };
    let body = response.body().ok_or_else(|| to_error(JsValue::NULL))?;
    let reader: web_sys::ReadableStreamDefaultReader = body
        .get_reader()
        .dyn_into()
        .map_err(|object: js_sys::Object| to_error(object.into()))?;
    let mut progress = Vec::new();
    loop {
        let result = JsFuture::from(reader.read()).await.map_err(to_error)?;
        let done = js_sys::Reflect::get(&result, &"done".into()).map_err(to_error)?;
        if done.is_truthy() {
            run.borrow_mut().on_end(now_ms(), &mut progress);
            show(&progress);
            return Ok(());
        }
        let value = js_sys::Reflect::get(&result, &"value".into()).map_err(to_error)?;
        let bytes = js_sys::Uint8Array::new(&value).to_vec();
        let control = run.borrow_mut().on_chunk(now_ms(), &bytes, &mut progress);
        show(&progress);
        progress.clear();
        if control != StreamControl::Continue {
            controller.abort();
        }
    }
}

fn show(progress: &[Progress]) {
    for item in progress {
        match item {
            Progress::FirstChunk { first_chunk_ms } => {
                set_text("result", &format!("{first_chunk_ms:.1} ms"))
            }
            Progress::Text { channel, text, .. } => {
                let id = match channel {
                    ttft_core::measure::Channel::Answer => "answer",
                    ttft_core::measure::Channel::Reasoning => "reasoning",
                };
                if let Some(pane) = element(id) {
                    let mut shown = pane.text_content().unwrap_or_default();
                    shown.push_str(text);
                    pane.set_text_content(Some(&shown));
                }
            }
        }
    }
}

fn show_record(record: &RunRecord, lang: Lang) {
    let mut rows = String::new();
    for metric in METRICS {
        rows.push_str(metric.label(lang));
        rows.push('\t');
        rows.push_str(&metric.read(record).table_cell());
        rows.push('\n');
    }
    set_text("readouts", &rows);
    let diagnosis = record
        .diagnosis
        .as_ref()
        .map(|text| format!("{} {}", text.message(lang), text.fix(lang)))
        .unwrap_or_default();
    set_text("diagnosis", &diagnosis);
}

/// One run: the form read, the plan parsed, the request sent and measured, the results shown.
pub async fn send() {
    let base_url = input("base-url");
    let key = input("key");
    let model = input("model");
    let prompt = input("prompt");
    let lang = lang();
    let series = match SeriesPlan::parse(&SeriesInput {
        run: RunInput {
            protocol: ProtocolChoice::Auto,
            base_url: &base_url,
            api_key: &key,
            model: &model,
            prompt: &prompt,
            max_tokens: "",
            reasoning: false,
            timeout_s: "",
            ttft_only: false,
        },
        runs: "",
        warm_up: false,
    }) {
        Ok(series) => series,
        Err(error) => return set_text("result", &error.message(lang)),
    };
    let plan = &series.run;
    let run = Rc::new(RefCell::new(Measurement::new(plan, None, now_ms(), 1)));
    let request = plan.request();
    let headers = web_sys::Headers::new().unwrap_throw();
    for header in &request.headers {
        let _ = headers.set(&header.name, &header.value);
    }
    let controller = web_sys::AbortController::new().unwrap_throw();
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    init.set_body(&JsValue::from_str(&request.body.to_string()));
    init.set_signal(Some(&controller.signal()));
    let window = web_sys::window().unwrap_throw();
    let outcome = match JsFuture::from(window.fetch_with_str_and_init(&request.url, &init)).await {
        Ok(response) => {
            let response: web_sys::Response = response.unchecked_into();
            let headers = response.headers();
            run.borrow_mut().on_headers(
                now_ms(),
                ResponseHead {
                    status: response.status(),
                    content_type: headers
                        .get("content-type")
                        .ok()
                        .flatten()
                        .unwrap_or_default(),
                    retry_after: headers.get("retry-after").ok().flatten(),
                },
            );
            read_body(response, &run, &controller).await
        }
        Err(error) => Err(FetchError {
            name: "TypeError".into(),
            message: error.as_string().unwrap_or_default(),
        }),
    };
    if let Err(error) = outcome {
        let mut progress = Vec::new();
        run.borrow_mut()
            .on_failure(now_ms(), &error, None, &mut progress);
        show(&progress);
    }
    let measurement = run.borrow().clone();
    let record = measurement.finish(&FinishContext::new(
        "2026-12-01T00:00:00.000Z",
        Transport::MainThread,
    ));
    show_record(&record, lang);
    #[cfg(feature = "history")]
    save(&record);
    if let Ok(json) = serde_json::to_string(&record) {
        if let Some(parent) = window.parent().ok().flatten() {
            let _ = parent.post_message(&JsValue::from_str(&json), "*");
        }
    }
}

/// Reads the stored history and writes it back with `record`, as the widget does.
#[cfg(feature = "history")]
fn save(record: &RunRecord) {
    let Some(storage) = storage() else { return };
    let text = storage
        .get_item("ttft-meter.history")
        .ok()
        .flatten()
        .unwrap_or_default();
    let mut runs = history::read_stored(&text, None)
        .map(|(runs, _)| runs)
        .unwrap_or_default();
    runs.push(record.clone());
    let stored: Vec<StoredRun> = runs
        .iter()
        .filter_map(|run| StoredRun::new(run).ok())
        .collect();
    let document = ExportDocument::new(
        "0.1.0",
        "2026-12-01T00:00:00.000Z",
        Environment {
            user_agent: String::new(),
            timer_resolution_ms: None,
            cross_origin_isolated: false,
            transport: Transport::MainThread,
            page_origin: String::new(),
        },
    );
    let kept: Vec<&StoredRun> = stored.iter().collect();
    if let Ok((text, _)) = history::stored_text(&document, &kept, None) {
        let _ = storage.set_item("ttft-meter.history", &text);
    }
}
