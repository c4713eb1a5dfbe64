//! Getting a request's bytes and their arrival times: the fetch worker
//! (`www/fetch-worker.js`, [`worker`]) when one can start, else the same fetch on the main
//! thread ([`main_thread`]). Both report the same [`TransportEvent`]s, stamped on the page
//! clock where the bytes arrive; the run engine in ttft-core does the rest.
//!
//! A run reaches its transport only through a [`Carrier`], a parameter of the run
//! ([`crate::run::measure_with`]) and of the series ([`crate::series::SeriesContext`]): the
//! pages' [`PageCarrier`] (the worker, else the main thread), a [`scripted::ScriptedCarrier`]
//! in the component tests (a transcript's status, headers and reads at scripted instants).

pub mod contacts;
mod event;
pub mod main_thread;
pub mod pings;
pub mod probe;
pub mod scripted;
pub mod space;
pub mod worker;

pub use event::{HttpRequest, TransportEvent};

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use futures_channel::mpsc::{unbounded, UnboundedReceiver};
use futures_channel::oneshot;
use ttft_core::record::Transport;
use wasm_bindgen_futures::spawn_local;

use worker::{FetchWorker, WORKER_SCRIPT_URL};

/// How to abort one request in flight.
#[derive(Clone)]
pub enum AbortHandle {
    /// A request of the fetch worker.
    Worker(Rc<FetchWorker>, u32),
    /// A main-thread fetch.
    MainThread(web_sys::AbortController),
    /// Another carrier's (a scripted transport's): called to abort.
    Call(Rc<dyn Fn()>),
}

impl AbortHandle {
    /// Aborts the request; its events end with a `Failed { AbortError }`.
    pub fn abort(&self) {
        match self {
            AbortHandle::Worker(worker, request_id) => worker.abort(*request_id),
            AbortHandle::MainThread(controller) => controller.abort(),
            AbortHandle::Call(abort) => abort(),
        }
    }
}

/// An open request: its events, how to abort it, and which transport carries it.
pub struct OpenRequest {
    /// The request's events, in order, ending with [`TransportEvent::Timing`].
    pub events: UnboundedReceiver<TransportEvent>,
    /// Aborts the request.
    pub abort: AbortHandle,
    /// Which transport stamped the arrivals.
    pub kind: Transport,
    /// Counts the request as open until it is dropped ([`quiet_for_ms`]).
    _open: OpenStream,
}

impl OpenRequest {
    /// A request open now, whose events come on `events` (counted as open until dropped).
    pub fn new(
        events: UnboundedReceiver<TransportEvent>,
        abort: AbortHandle,
        kind: Transport,
    ) -> OpenRequest {
        OpenRequest {
            events,
            abort,
            kind,
            _open: OpenStream::enter(),
        }
    }
}

/// What [`Carrier::open`] returns: the open request, or why it could not even open.
pub type Opening<'a> = Pin<Box<dyn Future<Output = Result<OpenRequest, String>> + 'a>>;

/// What [`Carrier::ping`] returns: the ping's time, ms, or `None`.
pub type Pinging<'a> = Pin<Box<dyn Future<Output = Option<f64>> + 'a>>;

/// What carries a run's request and reports what happened to it: the one way a run reaches
/// the network. The pages use [`PageCarrier`]; tests put a scripted one in its place.
pub trait Carrier {
    /// Sends `request`; its events follow on the returned request's channel.
    fn open<'a>(&'a self, request: &'a HttpRequest) -> Opening<'a>;

    /// Times one keyless `GET url` on the runs' connection ([`pings`]): `fetch()` → response
    /// headers, ms; `None` when it failed. A carrier that cannot ping (a test's script,
    /// unless it scripts pings) sends nothing and answers `None`.
    fn ping<'a>(&'a self, _url: &'a str) -> Pinging<'a> {
        Box::pin(async { None })
    }
}

/// A carrier shared by a page's runs. Cheap to clone.
pub type SharedCarrier = Rc<dyn Carrier>;

/// The pages' carrier: the page's one fetch worker, or the main thread where no worker can
/// start ([`open`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct PageCarrier;

impl Carrier for PageCarrier {
    fn open<'a>(&'a self, request: &'a HttpRequest) -> Opening<'a> {
        Box::pin(open(request))
    }

    fn ping<'a>(&'a self, url: &'a str) -> Pinging<'a> {
        Box::pin(pings::ping_through_page(url))
    }
}

/// The pages' carrier, shared ([`PageCarrier`]).
pub fn page_carrier() -> SharedCarrier {
    Rc::new(PageCarrier)
}

/// The page's carrier as context ([`crate::page::PageState`] provides it): what every run
/// of the page uses, a series' and an experiment's alike. Cheap to copy.
#[derive(Clone, Copy)]
pub struct CarrierSlot(leptos::prelude::StoredValue<SharedCarrier, leptos::prelude::LocalStorage>);

impl CarrierSlot {
    /// Provides `carrier` as the page's, and returns its slot.
    pub fn provide(carrier: SharedCarrier) -> CarrierSlot {
        let slot = CarrierSlot(leptos::prelude::StoredValue::new_local(carrier));
        leptos::prelude::provide_context(slot);
        slot
    }

    /// The page's carrier.
    pub fn carrier(&self) -> SharedCarrier {
        use leptos::prelude::GetValue;
        self.0.get_value()
    }
}

thread_local! {
    /// Measured requests open now, and when the last one closed (page clock, ms).
    static OPEN_STREAMS: std::cell::Cell<(u32, f64)> = const { std::cell::Cell::new((0, f64::NEG_INFINITY)) };
}

/// One measured request counted as open while it lives.
struct OpenStream;

impl OpenStream {
    fn enter() -> OpenStream {
        OPEN_STREAMS.with(|open| {
            let (count, closed_ms) = open.get();
            open.set((count + 1, closed_ms));
        });
        OpenStream
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        OPEN_STREAMS.with(|open| {
            let (count, _) = open.get();
            open.set((count.saturating_sub(1), crate::clock::now_ms()));
        });
    }
}

/// How long no measured request has been open, at `now_ms`: `None` while one is (from
/// [`open`] until its events are dropped). Traffic that must not disturb a measurement (the
/// OpenTelemetry export) waits for a quiet moment with this.
pub fn quiet_for_ms(now_ms: f64) -> Option<f64> {
    let (count, closed_ms) = OPEN_STREAMS.with(std::cell::Cell::get);
    (count == 0).then_some(now_ms - closed_ms)
}

/// The page's fetch worker: not started, starting (callers waiting), or settled.
enum WorkerSlot {
    Idle,
    Starting(Vec<oneshot::Sender<Option<Rc<FetchWorker>>>>),
    Settled(Option<Rc<FetchWorker>>),
}

thread_local! {
    static SHARED_WORKER: RefCell<WorkerSlot> = const { RefCell::new(WorkerSlot::Idle) };
}

/// The page's one fetch worker, started once (concurrent callers wait for the same start);
/// `None` where Workers are unavailable, and requests then go on the main thread.
async fn shared_worker() -> Option<Rc<FetchWorker>> {
    let waiting = SHARED_WORKER.with(|slot| {
        let mut slot = slot.borrow_mut();
        match &mut *slot {
            WorkerSlot::Settled(worker) => Err(worker.clone()),
            WorkerSlot::Starting(waiters) => {
                let (sender, receiver) = oneshot::channel();
                waiters.push(sender);
                Ok(Some(receiver))
            }
            WorkerSlot::Idle => {
                *slot = WorkerSlot::Starting(Vec::new());
                Ok(None)
            }
        }
    });
    match waiting {
        Err(settled) => settled,
        Ok(Some(receiver)) => receiver.await.ok().flatten(),
        Ok(None) => {
            let worker = FetchWorker::spawn(WORKER_SCRIPT_URL)
                .await
                .ok()
                .map(Rc::new);
            let waiters = SHARED_WORKER.with(|slot| {
                match std::mem::replace(
                    &mut *slot.borrow_mut(),
                    WorkerSlot::Settled(worker.clone()),
                ) {
                    WorkerSlot::Starting(waiters) => waiters,
                    _ => Vec::new(),
                }
            });
            for waiter in waiters {
                let _ = waiter.send(worker.clone());
            }
            worker
        }
    }
}

/// Starts the fetch worker ahead of the first run, so a click sends its request at once: a
/// worker still starting when the user clicks would hold the request back. Returns the
/// transport runs will use.
pub async fn prewarm() -> Transport {
    match shared_worker().await {
        Some(_) => Transport::Worker,
        None => Transport::MainThread,
    }
}

/// Sends `request` through the worker (or the main thread when no worker can start): what
/// [`PageCarrier`] does. Runs reach it only through their carrier.
pub async fn open(request: &HttpRequest) -> Result<OpenRequest, String> {
    if let Some(worker) = shared_worker().await {
        let (request_id, events) = worker.start(request)?;
        return Ok(OpenRequest::new(
            events,
            AbortHandle::Worker(worker, request_id),
            Transport::Worker,
        ));
    }
    let controller = web_sys::AbortController::new().map_err(|error| format!("{error:?}"))?;
    let signal = controller.signal();
    let (sender, events) = unbounded();
    spawn_local(main_thread::fetch_events(request.clone(), signal, sender));
    Ok(OpenRequest::new(
        events,
        AbortHandle::MainThread(controller),
        Transport::MainThread,
    ))
}
