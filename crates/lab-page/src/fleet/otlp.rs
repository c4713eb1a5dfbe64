//! OpenTelemetry export, the page's side: reads what only a browser knows (the resource
//! facts, the wall clock, random ids), hands finished runs to ttft-core's
//! [`OtlpExporter`], and makes the requests it asks for with `fetch`, on the main thread,
//! only when no measured request has been open for [`QUIET_MS`] and no series is running.
//! The queue (batching, retries, backoff, the bound) is ttft-core's; docs/otel.md has
//! every name and the Collector configuration.
//!
//! Why the main thread and not the fetch worker: the bodies are built in the page's wasm
//! anyway; `fetch` itself runs in the browser's network stack, so the main thread only
//! starts it and reads a few bytes of answer; sends happen only between runs, when the
//! worker has nothing to protect; and the `pagehide` flush must come from the page (a
//! worker can be gone by then). A send that started before a click is not aborted: its
//! body may have reached the collector, and sending it again would count its runs twice.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use ttft_core::record::RunRecord;
use ttft_lab::otlp::{
    ConnectionFacts, Delivery, ExportOptions, OtlpConfigError, OtlpEndpoint, OtlpExporter,
    OtlpHeaders, OutgoingRequest, ProblemContext, QueueConfig, QueueStatus, ResourceFacts, RunIds,
    SendOutcome, WallClock,
};
use ttft_lab::slo::SloSet;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

use crate::texts as t;
use ttft_web::clock::{self, Timer};
use ttft_web::i18n::use_i18n;
use ttft_web::transport::{self, main_thread, HttpRequest};

/// How long no measured request must have been open before a send: longer than a run's
/// wait for its paint reports (1.5 s), so the gap between two runs of a series never
/// qualifies.
pub const QUIET_MS: f64 = 2_000.0;
/// How long a send may take before it counts as timed out.
const SEND_TIMEOUT_MS: f64 = 10_000.0;
/// How much of the collector's answer is read (its `Status` message fits easily).
const ANSWER_BYTES: usize = 4_096;

/// What the user or the embedder asked for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OtlpSettings {
    /// The collector's OTLP/HTTP base URL.
    pub endpoint: String,
    /// Extra headers, `name=value,…`.
    pub headers: String,
    /// Send the prompt on spans.
    pub include_prompt: bool,
    /// `service.name`.
    pub service_name: Option<String>,
    /// `gen_ai.provider.name` override.
    pub provider_name: Option<String>,
}

/// A configured export.
struct Active {
    exporter: OtlpExporter,
    endpoint: OtlpEndpoint,
    headers: OtlpHeaders,
    include_prompt: bool,
    provider_name: Option<String>,
    service_name: String,
}

/// What the status line shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportStatus {
    /// The collector's base URL.
    pub endpoint: String,
    /// The page's origin (named in the CORS advice).
    pub page_origin: String,
    /// The queue's counts and last problem.
    pub queue: QueueStatus,
}

/// The page's OpenTelemetry export. Cheap to copy.
#[derive(Clone, Copy)]
pub struct OtlpExport {
    active: StoredValue<Rc<RefCell<Option<Active>>>, LocalStorage>,
    timer: StoredValue<Option<Timer>, LocalStorage>,
    /// Whether a series of runs is going (nothing is sent then).
    series_running: Signal<bool>,
    /// The export's state, for the status line (`None`: export off).
    pub status: RwSignal<Option<ExportStatus>>,
    /// Why the settings were refused, if they were.
    pub refusal: RwSignal<Option<OtlpConfigError>>,
    /// The settings in effect (or last tried), for the settings form.
    pub settings: RwSignal<OtlpSettings>,
}

impl OtlpExport {
    /// An export that is off until [`OtlpExport::configure`].
    pub fn new(series_running: Signal<bool>) -> OtlpExport {
        OtlpExport {
            active: StoredValue::new_local(Rc::new(RefCell::new(None))),
            timer: StoredValue::new_local(None),
            series_running,
            status: RwSignal::new(None),
            refusal: RwSignal::new(None),
            settings: RwSignal::new(OtlpSettings::default()),
        }
    }

    fn with_active<R>(&self, use_it: impl FnOnce(&mut Active) -> R) -> Option<R> {
        let cell = self.active.get_value();
        let mut active = cell.borrow_mut();
        active.as_mut().map(use_it)
    }

    /// Starts (or restarts) the export with `settings`; refuses bad ones with what to do,
    /// and headers that hold `model_key`. Runs already queued for an earlier endpoint are
    /// dropped with it.
    pub fn configure(
        &self,
        settings: OtlpSettings,
        model_key: &str,
        slo: Option<SloSet>,
    ) -> Result<(), OtlpConfigError> {
        self.settings.set(settings.clone());
        let checked =
            OtlpEndpoint::parse(&settings.endpoint, Some(&ttft_web::persist::page_origin()))
                .and_then(|endpoint| {
                    let headers = OtlpHeaders::parse(&settings.headers)?;
                    headers.check_not_model_key(model_key)?;
                    Ok((endpoint, headers))
                });
        let (endpoint, headers) = match checked {
            Ok(checked) => checked,
            Err(error) => {
                self.refusal.set(Some(error.clone()));
                self.turn_off();
                return Err(error);
            }
        };
        let service_name = settings.service_name.clone().unwrap_or_default();
        let options = ExportOptions {
            provider_name: settings.provider_name.clone(),
            include_prompt: settings.include_prompt,
            slo,
        };
        let exporter = OtlpExporter::new(
            resource_facts(&service_name),
            WallClock {
                time_origin_unix_ms: clock::time_origin_ms(),
            },
            options,
            QueueConfig::default(),
        );
        *self.active.get_value().borrow_mut() = Some(Active {
            exporter,
            endpoint,
            headers,
            include_prompt: settings.include_prompt,
            provider_name: settings.provider_name,
            service_name,
        });
        self.refusal.set(None);
        self.publish();
        Ok(())
    }

    /// Stops the export (what waits is dropped).
    pub fn turn_off(&self) {
        *self.active.get_value().borrow_mut() = None;
        self.timer.set_value(None);
        self.status.set(None);
    }

    /// Whether the export is on.
    pub fn is_on(&self) -> bool {
        self.active.get_value().borrow().is_some()
    }

    /// Checks the headers against a (new) model key: the export stops if they hold it.
    pub fn check_model_key(&self, model_key: &str) {
        let refused = self
            .with_active(|active| active.headers.check_not_model_key(model_key).err())
            .flatten();
        if let Some(error) = refused {
            self.refusal.set(Some(error));
            self.turn_off();
        }
    }

    /// New SLOs: the run counter says from now on whether each run met them.
    pub fn set_slo(&self, slo: Option<SloSet>) {
        self.with_active(|active| {
            active.exporter.set_options(ExportOptions {
                provider_name: active.provider_name.clone(),
                include_prompt: active.include_prompt,
                slo,
            })
        });
    }

    /// Queues a finished run (its span now, its metrics with the next send) and schedules
    /// a send for the next quiet moment.
    pub fn record(&self, record: &RunRecord, ids: RunIds) {
        let recorded = self.with_active(|active| {
            // The connection may have changed since the last run.
            active
                .exporter
                .set_resource(resource_facts(&active.service_name));
            active.exporter.record_run(record.clone(), ids)
        });
        if let Some(Err(error)) = recorded {
            web_sys::console::warn_1(&format!("OTLP: a run could not be exported: {error}").into());
        }
        self.publish();
        self.schedule(QUIET_MS);
    }

    /// Shows the queue's state.
    fn publish(&self) {
        let status = self.with_active(|active| ExportStatus {
            endpoint: active.endpoint.base_url().to_owned(),
            page_origin: ttft_web::persist::page_origin(),
            queue: active.exporter.status(),
        });
        self.status.set(status);
    }

    /// Tries to send after `delay_ms` (replacing an earlier schedule).
    fn schedule(&self, delay_ms: f64) {
        let this = *self;
        self.timer
            .set_value(Some(Timer::once(delay_ms.max(0.0), move || this.pump())));
    }

    /// Sends the next request if the page is quiet, else tries again later.
    fn pump(&self) {
        if !self.is_on() {
            return;
        }
        let now_ms = clock::now_ms();
        let quiet = !self.series_running.get_untracked()
            && transport::quiet_for_ms(now_ms).is_some_and(|quiet_ms| quiet_ms >= QUIET_MS);
        if !quiet {
            self.schedule(QUIET_MS / 2.0);
            return;
        }
        let polled = self.with_active(|active| {
            let request = active.exporter.poll(now_ms, false);
            let next_retry_ms = active.exporter.status().next_attempt_at_ms;
            (
                request,
                active.endpoint.clone(),
                active.headers.clone(),
                next_retry_ms,
            )
        });
        let Some((request, endpoint, headers, next_retry_ms)) = polled else {
            return;
        };
        self.publish();
        match request {
            Ok(Some(request)) => {
                let this = *self;
                leptos::task::spawn_local(async move {
                    let outcome = send(&endpoint, &headers, &request).await;
                    let delivery = this.with_active(|active| {
                        active.exporter.on_outcome(
                            request.id,
                            &outcome,
                            clock::now_ms(),
                            js_sys::Math::random(),
                        )
                    });
                    this.publish();
                    match delivery {
                        Some(Delivery::WillRetry { at_ms, .. }) => {
                            this.schedule(at_ms - clock::now_ms())
                        }
                        // The next batch (the other signal, or more runs) at once if still quiet.
                        Some(_) => this.schedule(0.0),
                        None => {}
                    }
                });
            }
            Ok(None) => {
                if let Some(at_ms) = next_retry_ms {
                    self.schedule(at_ms - now_ms);
                }
            }
            Err(error) => {
                web_sys::console::warn_1(&format!("OTLP: {error}").into());
            }
        }
    }

    /// On `pagehide`: everything waiting goes out with `fetch(…, {keepalive: true})`.
    pub fn flush_on_pagehide(&self) {
        let flushed = self.with_active(|active| {
            (
                active.exporter.flush_on_pagehide(clock::now_ms()),
                active.endpoint.clone(),
                active.headers.clone(),
            )
        });
        let Some((Ok(requests), endpoint, headers)) = flushed else {
            return;
        };
        for request in &requests {
            send_keepalive(&endpoint, &headers, request);
        }
        self.publish();
    }
}

/// The request's headers: JSON, and the collector's extra ones.
fn request_headers(headers: &OtlpHeaders) -> Vec<(String, String)> {
    let mut all = vec![("content-type".to_owned(), "application/json".to_owned())];
    all.extend(headers.pairs().iter().cloned());
    all
}

/// One POST to the collector; what it came to, as the queue wants it.
async fn send(
    endpoint: &OtlpEndpoint,
    headers: &OtlpHeaders,
    request: &OutgoingRequest,
) -> SendOutcome {
    let Ok(controller) = web_sys::AbortController::new() else {
        return SendOutcome::NetworkError;
    };
    let timed_out = Rc::new(std::cell::Cell::new(false));
    let _deadline = {
        let controller = controller.clone();
        let timed_out = Rc::clone(&timed_out);
        Timer::once(SEND_TIMEOUT_MS, move || {
            timed_out.set(true);
            controller.abort();
        })
    };
    let http = HttpRequest {
        method: "POST",
        url: format!("{}{}", endpoint.base_url(), request.path),
        headers: request_headers(headers),
        body: Some(request.body.clone()),
    };
    match main_thread::open(&http, &controller.signal()).await {
        Ok(response) => {
            let status = response.head.status;
            let retry_after = response.head.retry_after.clone();
            let body = response
                .text_bounded(ANSWER_BYTES)
                .await
                .ok()
                .flatten()
                .unwrap_or_default();
            SendOutcome::Response {
                status,
                retry_after,
                body,
            }
        }
        Err(_) if timed_out.get() => SendOutcome::Timeout,
        Err(_) => SendOutcome::NetworkError,
    }
}

/// A `keepalive` POST that outlives the page; its answer is never read.
fn send_keepalive(endpoint: &OtlpEndpoint, headers: &OtlpHeaders, request: &OutgoingRequest) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(fetch_headers) = web_sys::Headers::new() else {
        return;
    };
    for (name, value) in request_headers(headers) {
        let _ = fetch_headers.set(&name, &value);
    }
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_headers(&fetch_headers);
    init.set_body(&JsValue::from_str(&request.body));
    // web-sys has no setter for `keepalive`: set the dictionary member itself.
    if js_sys::Reflect::set(&init, &"keepalive".into(), &JsValue::TRUE).is_err() {
        return;
    }
    let url = format!("{}{}", endpoint.base_url(), request.path);
    let Ok(fetch_request) = web_sys::Request::new_with_str_and_init(&url, &init) else {
        return;
    };
    // A failure is not reported anywhere (the page is leaving), but must not be an
    // unhandled rejection either.
    let ignore = Closure::<dyn FnMut(JsValue)>::new(|_| {});
    let _ = window.fetch_with_request(&fetch_request).catch(&ignore);
    ignore.forget();
}

/// A property of a JS object, if present.
fn property(object: &JsValue, name: &str) -> Option<JsValue> {
    js_sys::Reflect::get(object, &name.into())
        .ok()
        .filter(|value| !value.is_undefined() && !value.is_null())
}

thread_local! {
    /// This page session's `service.instance.id`.
    static INSTANCE_ID: String = super::ids::instance_id();
}

/// What the page knows about where it runs: `navigator` (user agent, client hints,
/// language, connection), its origin and whether it is cross-origin isolated.
fn resource_facts(service_name: &str) -> ResourceFacts {
    let navigator: Option<JsValue> = web_sys::window().map(|window| window.navigator().into());
    let navigator = navigator.unwrap_or(JsValue::UNDEFINED);
    let string = |object: &JsValue, name: &str| property(object, name).and_then(|v| v.as_string());
    let number = |object: &JsValue, name: &str| property(object, name).and_then(|v| v.as_f64());
    let hints = property(&navigator, "userAgentData");
    let brands = hints
        .as_ref()
        .and_then(|hints| property(hints, "brands"))
        .map(|brands| {
            js_sys::Array::from(&brands)
                .iter()
                .filter_map(|brand| {
                    Some(format!(
                        "{} {}",
                        string(&brand, "brand")?,
                        string(&brand, "version")?
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let connection = property(&navigator, "connection").map(|connection| ConnectionFacts {
        effective_type: string(&connection, "effectiveType"),
        rtt_ms: number(&connection, "rtt"),
        downlink_mbps: number(&connection, "downlink"),
        connection_type: string(&connection, "type"),
    });
    ResourceFacts {
        service_name: service_name.to_owned(),
        service_version: env!("CARGO_PKG_VERSION").to_owned(),
        service_instance_id: INSTANCE_ID.with(Clone::clone),
        page_origin: ttft_web::persist::page_origin(),
        user_agent: string(&navigator, "userAgent").unwrap_or_default(),
        brands,
        platform: hints.as_ref().and_then(|hints| string(hints, "platform")),
        mobile: hints
            .as_ref()
            .and_then(|hints| property(hints, "mobile"))
            .and_then(|mobile| mobile.as_bool()),
        language: string(&navigator, "language"),
        connection,
        cross_origin_isolated: clock::cross_origin_isolated(),
    }
}

/// `navigator.connection.effectiveType`, where the browser has it.
pub fn effective_type() -> Option<String> {
    let navigator: JsValue = web_sys::window()?.navigator().into();
    property(&property(&navigator, "connection")?, "effectiveType")?.as_string()
}

/// The export's state in one line: what was sent, or what went wrong and what to do.
/// A refused collector never fails a run; the line says so.
#[component]
pub fn OtlpStatusLine(
    /// The export.
    export: OtlpExport,
) -> impl IntoView {
    let i18n = use_i18n();
    let line = move || {
        let lang = i18n.lang.get();
        if let Some(refusal) = export.refusal.get() {
            return Some(("refused_settings", 0, refusal.message(lang)));
        }
        let status = export.status.get()?;
        let queue = &status.queue;
        let sent = queue.traces.sent_runs;
        let waiting = queue.metrics.waiting_runs.max(queue.traces.waiting_runs);
        let context = ProblemContext {
            endpoint: status.endpoint.clone(),
            page_origin: status.page_origin.clone(),
        };
        Some(match &queue.last_problem {
            Some(problem) => (problem.code(), sent, problem.message(lang, &context)),
            None => {
                let state = if waiting > 0 { "waiting" } else { "ok" };
                let text = t::OTLP_STATUS.fill(
                    lang,
                    &[
                        ("endpoint", &status.endpoint),
                        ("sent", &sent),
                        ("waiting", &waiting),
                    ],
                );
                (state, sent, text)
            }
        })
    };
    move || {
        line().map(|(state, sent, text)| {
            view! {
                <p class="meta otlp-status" data-testid="otlp-status" data-state=state data-sent-runs=sent role="status">
                    {text}
                </p>
            }
        })
    }
}

/// The page's `pagehide` listener flushes the export.
pub fn flush_on_pagehide(export: OtlpExport) {
    if let Some(window) = web_sys::window() {
        let flush = Closure::<dyn Fn()>::new(move || export.flush_on_pagehide());
        let _ = window.add_event_listener_with_callback("pagehide", flush.as_ref().unchecked_ref());
        // Lives as long as the page.
        flush.forget();
    }
}
