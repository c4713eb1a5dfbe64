//! The page side of the fetch worker (`www/fetch-worker.js`).
//!
//! The worker performs the fetch and stamps every read with its own `performance.now()`,
//! where the bytes arrive, so main-thread work cannot delay arrival times (docs/DESIGN.md
//! §3). Its clock has another time origin: [`FetchWorker`] converts every stamp to the
//! page clock as `worker.timeOrigin + t − page.timeOrigin`.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use futures_channel::mpsc::{unbounded, UnboundedReceiver, UnboundedSender};
use futures_channel::oneshot;
use js_sys::{Array, ArrayBuffer, Object, Reflect, Uint8Array};
use ttft_core::measure::{FetchError, RequestRoute, ResponseHead};
use ttft_core::timeline::{HttpProtocol, ResourceTiming};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{MessageEvent, Worker};

use super::event::{HttpRequest, TransportEvent};

/// Where the worker script is, relative to the page (works under any sub-path).
pub const WORKER_SCRIPT_URL: &str = "./fetch-worker.js";

type Routes = Rc<RefCell<HashMap<u32, UnboundedSender<TransportEvent>>>>;

/// A running fetch worker. Create once per page with [`FetchWorker::spawn`].
pub struct FetchWorker {
    worker: Worker,
    routes: Routes,
    next_request_id: Cell<u32>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
}

fn number(object: &JsValue, field: &str) -> Option<f64> {
    Reflect::get(object, &field.into()).ok()?.as_f64()
}

fn flag(object: &JsValue, field: &str) -> bool {
    Reflect::get(object, &field.into())
        .ok()
        .and_then(|value| value.as_bool())
        .unwrap_or(false)
}

fn text(object: &JsValue, field: &str) -> Option<String> {
    Reflect::get(object, &field.into()).ok()?.as_string()
}

/// `[[name, value], …]` at `field`, the pairs of strings in it (at most 8).
fn header_pairs(object: &JsValue, field: &str) -> Vec<(String, String)> {
    let Ok(list) = Reflect::get(object, &field.into()) else {
        return Vec::new();
    };
    if !js_sys::Array::is_array(&list) {
        return Vec::new();
    }
    js_sys::Array::from(&list)
        .iter()
        .take(8)
        .filter_map(|pair| {
            let name = Reflect::get(&pair, &0.into()).ok()?.as_string()?;
            let value = Reflect::get(&pair, &1.into()).ok()?.as_string()?;
            Some((name, value))
        })
        .collect()
}

/// The Resource Timing entry of a request (worker clock) on the page clock. A zero instant
/// means "not exposed" (no `Timing-Allow-Origin`) and stays 0.
fn resource_timing(entry: &JsValue, offset_ms: f64) -> Option<ResourceTiming> {
    if !entry.is_object() {
        return None;
    }
    let instant = |field: &str| {
        number(entry, field)
            .filter(|value| *value > 0.0)
            .map_or(0.0, |value| value + offset_ms)
    };
    Some(ResourceTiming {
        fetch_start: instant("fetchStart"),
        domain_lookup_start: instant("domainLookupStart"),
        domain_lookup_end: instant("domainLookupEnd"),
        connect_start: instant("connectStart"),
        connect_end: instant("connectEnd"),
        secure_connection_start: instant("secureConnectionStart"),
        request_start: instant("requestStart"),
        response_start: instant("responseStart"),
        next_hop_protocol: text(entry, "nextHopProtocol")
            .map_or(HttpProtocol::Hidden, |protocol| {
                HttpProtocol::from_next_hop(&protocol)
            }),
    })
}

fn decode(message: &JsValue, offset_ms: f64) -> Option<(u32, TransportEvent)> {
    let kind = text(message, "type")?;
    let request_id = number(message, "id")? as u32;
    let at_ms = number(message, "t")
        .map(|t| t + offset_ms)
        .unwrap_or_default();
    let event = match kind.as_str() {
        "started" => TransportEvent::Started {
            at_ms,
            route: RequestRoute {
                cross_origin: flag(message, "crossOrigin"),
                first_preflight: flag(message, "firstPreflight"),
            },
        },
        "sent" => TransportEvent::Sent { at_ms },
        "headers" => TransportEvent::Headers {
            at_ms,
            head: ResponseHead {
                status: number(message, "status")? as u16,
                content_type: text(message, "contentType").unwrap_or_default(),
                retry_after: text(message, "retryAfter"),
                timing_headers: header_pairs(message, "timingHeaders"),
            },
        },
        "end" => TransportEvent::End { at_ms },
        "failed" => TransportEvent::Failed {
            at_ms,
            error: FetchError {
                name: text(message, "name").unwrap_or_default(),
                message: text(message, "message").unwrap_or_default(),
            },
        },
        "timing" => {
            let entry = Reflect::get(message, &"entry".into()).ok()?;
            let server_timing = text(&entry, "serverTiming").unwrap_or_default();
            TransportEvent::Timing(resource_timing(&entry, offset_ms), server_timing)
        }
        _ => return None,
    };
    Some((request_id, event))
}

/// The reads of a `chunks` message, each with its own arrival time on the page clock.
fn reads(message: &JsValue, offset_ms: f64) -> Vec<TransportEvent> {
    let Ok(list) = Reflect::get(message, &"reads".into()) else {
        return Vec::new();
    };
    if !Array::is_array(&list) {
        return Vec::new();
    }
    Array::from(&list)
        .iter()
        .filter_map(|read| {
            let at_ms = Reflect::get(&read, &0.into()).ok()?.as_f64()? + offset_ms;
            let buffer: ArrayBuffer = Reflect::get(&read, &1.into()).ok()?.dyn_into().ok()?;
            Some(TransportEvent::Chunk {
                at_ms,
                bytes: Uint8Array::new(&buffer),
            })
        })
        .collect()
}

/// Tells the worker a `chunks` message of `request_id` arrived, so it may send the next
/// (its flow control: at most two on their way).
fn acknowledge(worker: &Worker, request_id: u32) {
    let message = Object::new();
    let _ = Reflect::set(&message, &"type".into(), &"ack".into());
    let _ = Reflect::set(&message, &"id".into(), &request_id.into());
    let _ = worker.post_message(&message);
}

impl FetchWorker {
    /// Starts the worker from its script's source text (a Blob URL), for pages that do
    /// not serve `fetch-worker.js` (browser tests).
    pub async fn spawn_from_source(source: &str) -> Result<FetchWorker, String> {
        let parts = Array::of1(&source.into());
        let options = web_sys::BlobPropertyBag::new();
        options.set_type("text/javascript");
        let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)
            .map_err(|error| format!("{error:?}"))?;
        let url = web_sys::Url::create_object_url_with_blob(&blob)
            .map_err(|error| format!("{error:?}"))?;
        Self::spawn(&url).await
    }

    /// Starts the worker and waits until it reports its clock's time origin.
    pub async fn spawn(script_url: &str) -> Result<FetchWorker, String> {
        let worker = Worker::new(script_url).map_err(|error| format!("{error:?}"))?;
        let routes: Routes = Rc::new(RefCell::new(HashMap::new()));
        let offset_ms = Rc::new(Cell::new(0.0));
        // Ready or not: a script that fails to load (404, CSP) reports through `onerror`.
        let (ready_sender, ready_receiver) = oneshot::channel::<bool>();
        let ready_sender = Rc::new(RefCell::new(Some(ready_sender)));
        let on_error = {
            let ready_sender = Rc::clone(&ready_sender);
            Closure::<dyn FnMut()>::new(move || {
                if let Some(sender) = ready_sender.borrow_mut().take() {
                    let _ = sender.send(false);
                }
            })
        };
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let on_message = {
            let routes = Rc::clone(&routes);
            let ack_to = worker.clone();
            let offset_ms = Rc::clone(&offset_ms);
            Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                let message = event.data();
                if text(&message, "type").as_deref() == Some("ready") {
                    let worker_origin_ms = number(&message, "timeOrigin").unwrap_or_default();
                    offset_ms.set(worker_origin_ms - crate::clock::time_origin_ms());
                    if let Some(sender) = ready_sender.borrow_mut().take() {
                        let _ = sender.send(true);
                    }
                    return;
                }
                if text(&message, "type").as_deref() == Some("chunks") {
                    let Some(request_id) = number(&message, "id").map(|id| id as u32) else {
                        return;
                    };
                    acknowledge(&ack_to, request_id);
                    if let Some(sender) = routes.borrow().get(&request_id) {
                        for read in reads(&message, offset_ms.get()) {
                            let _ = sender.unbounded_send(read);
                        }
                    }
                    return;
                }
                let Some((request_id, decoded)) = decode(&message, offset_ms.get()) else {
                    return;
                };
                let last = matches!(decoded, TransportEvent::Timing(..));
                if let Some(sender) = routes.borrow().get(&request_id) {
                    let _ = sender.unbounded_send(decoded);
                }
                // The timing entry is the worker's last word about a request.
                if last {
                    routes.borrow_mut().remove(&request_id);
                }
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        if ready_receiver.await != Ok(true) {
            worker.terminate();
            return Err(format!("the fetch worker at {script_url} did not start"));
        }
        worker.set_onerror(None);
        drop(on_error);
        Ok(FetchWorker {
            worker,
            routes,
            next_request_id: Cell::new(1),
            _on_message: on_message,
        })
    }

    /// Sends `request` through the worker; events arrive on the returned receiver.
    pub fn start(
        &self,
        request: &HttpRequest,
    ) -> Result<(u32, UnboundedReceiver<TransportEvent>), String> {
        let request_id = self.next_request_id.get();
        self.next_request_id.set(request_id.wrapping_add(1));
        let headers = Array::new();
        for (name, value) in &request.headers {
            headers.push(&Array::of2(&name.into(), &value.into()));
        }
        let message = Object::new();
        let set = |field: &str, value: &JsValue| Reflect::set(&message, &field.into(), value);
        set("type", &"start".into())
            .and_then(|_| set("id", &request_id.into()))
            .and_then(|_| set("url", &request.url.as_str().into()))
            .and_then(|_| set("method", &request.method.into()))
            .and_then(|_| set("headers", &headers))
            .and_then(|_| {
                set(
                    "body",
                    &request
                        .body
                        .as_deref()
                        .map_or(JsValue::UNDEFINED, JsValue::from),
                )
            })
            .map_err(|error| format!("{error:?}"))?;
        // Local Network Access: where the request goes, when it crosses into this machine or
        // the local network from a public page (the worker sets it on its fetch).
        if let Some(space) = super::space::declared_for(&request.url) {
            set("targetAddressSpace", &space.fetch_value().into())
                .map_err(|error| format!("{error:?}"))?;
        }
        let (sender, receiver) = unbounded();
        self.routes.borrow_mut().insert(request_id, sender);
        self.worker
            .post_message(&message)
            .map_err(|error| format!("{error:?}"))?;
        Ok((request_id, receiver))
    }

    /// Aborts a request (Stop, timeout, TTFT-only mode).
    pub fn abort(&self, request_id: u32) {
        let message = Object::new();
        let _ = Reflect::set(&message, &"type".into(), &"abort".into());
        let _ = Reflect::set(&message, &"id".into(), &request_id.into());
        let _ = self.worker.post_message(&message);
    }
}
