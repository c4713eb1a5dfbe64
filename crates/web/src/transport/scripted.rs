//! A carrier that plays a script instead of going to the network: the status, headers and
//! body reads of a transcript, each at a scripted instant after the request was opened
//! (time as an argument, as in ttft-core's tests). The component tests put it where the
//! pages put [`super::PageCarrier`], so a run panel, a series or an experiment is driven
//! through the same run code as in the page, with every arrival stamped exactly as the
//! script says.
//!
//! The events are delivered when their instant comes (on the page's timers), stamped with
//! the scripted instant itself: a record's `ttfa_ms` is the script's to the microsecond,
//! and only what the page adds (its paint) comes from the browser.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use futures_channel::mpsc::{unbounded, UnboundedSender};
use futures_channel::oneshot;
use ttft_core::measure::{FetchError, RequestRoute, ResponseHead};
use ttft_core::record::Transport;
use ttft_core::timeline::ResourceTiming;
use wasm_bindgen_futures::spawn_local;

use super::{AbortHandle, Carrier, HttpRequest, OpenRequest, Opening, Pinging, TransportEvent};
use crate::clock;

/// One thing that happens to a scripted request, `at_ms` after it was opened.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// The status and headers arrive.
    Headers {
        /// Milliseconds after the request was opened.
        at_ms: f64,
        /// Status and headers as the engine reads them.
        head: ResponseHead,
    },
    /// A body read resolves with `bytes`.
    Read {
        /// Milliseconds after the request was opened.
        at_ms: f64,
        /// The read's bytes.
        bytes: Vec<u8>,
    },
    /// The body ends normally.
    End {
        /// Milliseconds after the request was opened.
        at_ms: f64,
    },
    /// The fetch or a read rejects (`TypeError` for a network failure).
    Fail {
        /// Milliseconds after the request was opened.
        at_ms: f64,
        /// What the browser would say.
        error: FetchError,
    },
}

impl Step {
    fn at_ms(&self) -> f64 {
        match self {
            Step::Headers { at_ms, .. }
            | Step::Read { at_ms, .. }
            | Step::End { at_ms }
            | Step::Fail { at_ms, .. } => *at_ms,
        }
    }
}

/// What one request does: its route, its steps in order, and the Resource Timing entry and
/// `Server-Timing` the browser would report at its end.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Script {
    /// Cross-origin, first preflight.
    pub route: RequestRoute,
    /// The steps, in order of `at_ms`.
    pub steps: Vec<Step>,
    /// The Resource Timing entry, its instants in ms after the request was opened (0 for
    /// an instant the browser hides); `None`: the browser gave none.
    pub timing: Option<ResourceTiming>,
    /// `serverTiming` as a `Server-Timing` value (empty: none).
    pub server_timing: String,
}

impl Script {
    /// A `200 text/event-stream` answer whose headers come at `headers_ms` and whose body
    /// is `reads` (each at its instant), ending `end_ms` after the request was opened.
    pub fn event_stream(headers_ms: f64, reads: &[(f64, &str)], end_ms: f64) -> Script {
        let mut steps = vec![Step::Headers {
            at_ms: headers_ms,
            head: ResponseHead::event_stream(200),
        }];
        steps.extend(reads.iter().map(|(at_ms, text)| Step::Read {
            at_ms: *at_ms,
            bytes: text.as_bytes().to_vec(),
        }));
        steps.push(Step::End { at_ms: end_ms });
        Script {
            steps,
            ..Script::default()
        }
    }

    /// An answer with `status`, `content_type` and `body` in one read, all at `at_ms`.
    pub fn answer(status: u16, content_type: &str, body: &str, at_ms: f64) -> Script {
        Script {
            steps: vec![
                Step::Headers {
                    at_ms,
                    head: ResponseHead {
                        status,
                        content_type: content_type.to_owned(),
                        retry_after: None,
                        timing_headers: Vec::new(),
                    },
                },
                Step::Read {
                    at_ms,
                    bytes: body.as_bytes().to_vec(),
                },
                Step::End { at_ms },
            ],
            ..Script::default()
        }
    }

    /// A fetch that rejects with a `TypeError` (`message`) `at_ms` after it was opened, as a
    /// refused connection, a CORS refusal or a dropped connection does.
    pub fn network_error(message: &str, at_ms: f64) -> Script {
        Script {
            steps: vec![Step::Fail {
                at_ms,
                error: FetchError {
                    name: "TypeError".into(),
                    message: message.into(),
                },
            }],
            ..Script::default()
        }
    }

    /// This script with `head` changed by `change` (a header, another status).
    pub fn with_head(mut self, change: impl FnOnce(&mut ResponseHead)) -> Script {
        if let Some(Step::Headers { head, .. }) = self
            .steps
            .iter_mut()
            .find(|step| matches!(step, Step::Headers { .. }))
        {
            change(head);
        }
        self
    }
}

/// Plays one [`Script`] per request, in the order given (the last one again once they run
/// out), and remembers every request it was asked to send. Cheap to clone: clones share the
/// scripts and the requests.
#[derive(Clone, Default)]
pub struct ScriptedCarrier {
    scripts: Rc<RefCell<VecDeque<Script>>>,
    last: Rc<RefCell<Option<Script>>>,
    sent: Rc<RefCell<Vec<HttpRequest>>>,
    kind: Option<Transport>,
    /// The pings' times, ms, one per ping asked for (none left: the ping fails).
    pings: Rc<RefCell<VecDeque<f64>>>,
    /// The URL of every ping asked for.
    pinged: Rc<RefCell<Vec<String>>>,
}

impl ScriptedCarrier {
    /// A carrier that plays `scripts`, one per request.
    pub fn new(scripts: impl IntoIterator<Item = Script>) -> ScriptedCarrier {
        ScriptedCarrier {
            scripts: Rc::new(RefCell::new(scripts.into_iter().collect())),
            ..ScriptedCarrier::default()
        }
    }

    /// The same, reporting its requests as carried by `kind` (default: the worker).
    pub fn as_transport(mut self, kind: Transport) -> ScriptedCarrier {
        self.kind = Some(kind);
        self
    }

    /// Adds scripts for the requests after those already given.
    pub fn then(&self, scripts: impl IntoIterator<Item = Script>) {
        self.scripts.borrow_mut().extend(scripts);
    }

    /// Every request sent so far, in order.
    pub fn sent(&self) -> Vec<HttpRequest> {
        self.sent.borrow().clone()
    }

    /// Answers the pings asked for with these times (ms), one each, in order; once they run
    /// out a ping fails. Without them every ping fails (a carrier that cannot ping).
    pub fn with_pings(self, pings_ms: impl IntoIterator<Item = f64>) -> ScriptedCarrier {
        self.pings.borrow_mut().extend(pings_ms);
        self
    }

    /// The URL of every ping asked for so far, in order.
    pub fn pinged(&self) -> Vec<String> {
        self.pinged.borrow().clone()
    }

    fn next_script(&self) -> Option<Script> {
        let next = self.scripts.borrow_mut().pop_front();
        match next {
            Some(script) => {
                *self.last.borrow_mut() = Some(script.clone());
                Some(script)
            }
            None => self.last.borrow().clone(),
        }
    }
}

impl Carrier for ScriptedCarrier {
    fn open<'a>(&'a self, request: &'a HttpRequest) -> Opening<'a> {
        Box::pin(async move {
            self.sent.borrow_mut().push(request.clone());
            let script = self
                .next_script()
                .ok_or_else(|| "the scripted carrier has no script".to_owned())?;
            let (sender, events) = unbounded();
            let (abort_sender, aborted) = oneshot::channel::<()>();
            let abort_sender = RefCell::new(Some(abort_sender));
            let abort = AbortHandle::Call(Rc::new(move || {
                if let Some(sender) = abort_sender.borrow_mut().take() {
                    let _ = sender.send(());
                }
            }));
            spawn_local(play(script, clock::now_ms(), sender, aborted));
            Ok(OpenRequest::new(
                events,
                abort,
                self.kind.unwrap_or(Transport::Worker),
            ))
        })
    }

    fn ping<'a>(&'a self, url: &'a str) -> Pinging<'a> {
        self.pinged.borrow_mut().push(url.to_owned());
        let answer = self.pings.borrow_mut().pop_front();
        Box::pin(async move { answer })
    }
}

/// `timing`'s instants moved from "after the request was opened" to the page clock
/// (`opened_ms`); a hidden instant (0) stays 0.
fn on_page_clock(timing: &ResourceTiming, opened_ms: f64) -> ResourceTiming {
    let shift = |at_ms: f64| if at_ms == 0.0 { 0.0 } else { opened_ms + at_ms };
    ResourceTiming {
        fetch_start: shift(timing.fetch_start),
        domain_lookup_start: shift(timing.domain_lookup_start),
        domain_lookup_end: shift(timing.domain_lookup_end),
        connect_start: shift(timing.connect_start),
        connect_end: shift(timing.connect_end),
        secure_connection_start: shift(timing.secure_connection_start),
        request_start: shift(timing.request_start),
        response_start: shift(timing.response_start),
        next_hop_protocol: timing.next_hop_protocol,
    }
}

/// Plays `script` from `opened_ms` (page clock): each step sent when its instant comes,
/// stamped with that instant; an abort ends it at once with an `AbortError`, as a fetch's
/// does. The last event is always the timing.
async fn play(
    script: Script,
    opened_ms: f64,
    events: UnboundedSender<TransportEvent>,
    aborted: oneshot::Receiver<()>,
) {
    let send = |event: TransportEvent| {
        let _ = events.unbounded_send(event);
    };
    send(TransportEvent::Started {
        at_ms: opened_ms,
        route: script.route,
    });
    send(TransportEvent::Sent { at_ms: opened_ms });
    let abort_seen = Rc::new(Cell::new(false));
    let seen = Rc::clone(&abort_seen);
    spawn_local(async move {
        if aborted.await.is_ok() {
            seen.set(true);
        }
    });
    for step in script.steps {
        let at_ms = opened_ms + step.at_ms();
        // Wait for the step's instant, looking for an abort at least every 5 ms.
        loop {
            if abort_seen.get() {
                break;
            }
            let left_ms = at_ms - clock::now_ms();
            if left_ms <= 0.0 {
                break;
            }
            clock::sleep_ms(left_ms.min(5.0)).await;
        }
        if abort_seen.get() {
            send(TransportEvent::Failed {
                at_ms: clock::now_ms(),
                error: FetchError {
                    name: "AbortError".into(),
                    message: "The operation was aborted.".into(),
                },
            });
            break;
        }
        match step {
            Step::Headers { head, .. } => send(TransportEvent::Headers { at_ms, head }),
            Step::Read { bytes, .. } => send(TransportEvent::Chunk {
                at_ms,
                bytes: js_sys::Uint8Array::from(bytes.as_slice()),
            }),
            Step::End { .. } => send(TransportEvent::End { at_ms }),
            Step::Fail { error, .. } => {
                send(TransportEvent::Failed { at_ms, error });
                break;
            }
        }
    }
    send(TransportEvent::Timing(
        script
            .timing
            .as_ref()
            .map(|timing| on_page_clock(timing, opened_ms)),
        script.server_timing,
    ));
}
