//! The latency experiments: any experiment of ttft-core's registry
//! ([`ttft_lab::experiment::REGISTRY`]) run against the form's endpoint.
//!
//! ttft-core decides what to run and what the results mean; this module does the I/O:
//! - [`server`]: asks the server for its context windows and for token counts (the
//!   calibration requests of the plan), through the app's transport;
//! - [`executor`]: runs a configured experiment's schedule (sequence, waves, lanes or timed)
//!   through [`ttft_web::series::RunKeeper`], hands every finished run back to the experiment, and
//!   publishes its report after each run, so a stopped experiment keeps what it measured;
//! - [`Experiments`] (provided as context): the state the panel draws, and the
//!   [`ExperimentOutcome`]s of the page's experiments.
//!
//! Every measured run is measured and kept as every run of the page is
//! ([`ttft_web::series::RunKeeper`]): with the fleet's trace context and failed-run check,
//! kept by the page's [`Session`] (runs table, charts, storage) with its experiment tag,
//! posted to the host page when embedded, and exported by OTLP when the export is on.

mod executor;
mod server;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use leptos::prelude::*;
use ttft_core::lang::{Bilingual, Lang};
use ttft_core::measure::RunPlan;
use ttft_lab::experiment::params::Inputs;
use ttft_lab::experiment::report::Report;
use ttft_lab::experiment::{Experiment, Setup, SetupError};

use ttft_web::embed::Embed;
use ttft_web::series::RunKeeper;
use ttft_web::session::Session;
use ttft_web::state::RunsFilter;

use crate::fleet::Fleet;
use crate::texts as t;

/// Where the current (or last) experiment is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExperimentState {
    /// None has started.
    Idle,
    /// Asking the server for its context window and token counts.
    Preparing,
    /// Measuring.
    Running,
    /// Every planned run was made.
    Done,
    /// Stop ended it; what it measured is kept.
    Stopped,
    /// It could not start (the error says why).
    Refused,
}

impl ExperimentState {
    /// Stable code (`data-state`).
    pub fn code(self) -> &'static str {
        match self {
            ExperimentState::Idle => "idle",
            ExperimentState::Preparing => "preparing",
            ExperimentState::Running => "running",
            ExperimentState::Done => "done",
            ExperimentState::Stopped => "stopped",
            ExperimentState::Refused => "refused",
        }
    }

    /// Whether an experiment is under way.
    pub fn busy(self) -> bool {
        matches!(self, ExperimentState::Preparing | ExperimentState::Running)
    }
}

/// A finished (or stopped) experiment, for the list of the page's experiments.
#[derive(Debug, Clone, PartialEq)]
pub struct ExperimentOutcome {
    /// The experiment's code.
    pub kind: String,
    /// Which of the page's experiments of that kind, from 1 (the runs' tag).
    pub session: u32,
    /// When it started, ms since the Unix epoch.
    pub started_unix_ms: f64,
    /// The endpoint's base URL (never the key).
    pub base_url: String,
    /// The form's model (the models experiment names its own models).
    pub model: String,
    /// False when Stop ended it early (the report covers the runs made).
    pub complete: bool,
    /// Runs measured (priming runs included).
    pub runs_done: usize,
    /// Runs planned.
    pub runs_planned: usize,
    /// The report at the end: verdicts, notes, figures, table and chart.
    pub report: Report,
}

/// Aborts one thing in flight (a run, a request).
type Abort = Rc<dyn Fn()>;

/// Stop for a whole experiment: a flag checked before each run and each request, and an
/// abort for everything in flight (runs, counting and discovery requests).
#[derive(Clone, Default)]
pub(crate) struct ExperimentControl {
    stopped: Rc<Cell<bool>>,
    in_flight: Rc<RefCell<Vec<(usize, Abort)>>>,
    next_id: Rc<Cell<usize>>,
}

impl ExperimentControl {
    pub(crate) fn stopped(&self) -> bool {
        self.stopped.get()
    }

    fn stop(&self) {
        self.stopped.set(true);
        let aborts: Vec<Abort> = self
            .in_flight
            .borrow()
            .iter()
            .map(|(_, abort)| Rc::clone(abort))
            .collect();
        for abort in aborts {
            abort();
        }
    }

    /// Registers something to abort on Stop; returns its id for [`Self::end`].
    pub(crate) fn begin(&self, abort: Abort) -> usize {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        self.in_flight.borrow_mut().push((id, abort));
        id
    }

    pub(crate) fn end(&self, id: usize) {
        self.in_flight
            .borrow_mut()
            .retain(|(other, _)| *other != id);
    }
}

/// The experiments' state, provided as context.
#[derive(Clone, Copy)]
pub struct Experiments {
    /// Every finished or stopped experiment of the page, oldest first.
    pub outcomes: RwSignal<Vec<ExperimentOutcome>>,
    /// The current (or last) experiment's report, updated after every run.
    pub report: RwSignal<Option<Report>>,
    /// Where the current (or last) experiment is.
    pub state: RwSignal<ExperimentState>,
    /// Why the last experiment could not start or was cut short.
    pub error: RwSignal<Option<Bilingual>>,
    /// (runs done, runs planned) of the current experiment.
    pub progress: RwSignal<(usize, usize)>,
    control: StoredValue<ExperimentControl, LocalStorage>,
    /// Experiments started in this page, per code, for their tags.
    sessions: StoredValue<Vec<(&'static str, u32)>>,
    /// Where finished runs go, as every run of the page goes: the page's session, the host
    /// page when embedded, and the fleet (trace context, the failed-run check, OTLP).
    keeper: StoredValue<Option<RunKeeper<Fleet>>, LocalStorage>,
    /// The results' filter: set to the experiment just started.
    filter: Option<RwSignal<RunsFilter>>,
}

impl Experiments {
    /// Fresh state, provided as context (reads the page's session, embed and results
    /// filter from context: call it in a component body).
    pub fn provide() -> Experiments {
        let experiments = Experiments {
            outcomes: RwSignal::new(Vec::new()),
            report: RwSignal::new(None),
            state: RwSignal::new(ExperimentState::Idle),
            error: RwSignal::new(None),
            progress: RwSignal::new((0, 0)),
            control: StoredValue::new_local(ExperimentControl::default()),
            sessions: StoredValue::new(Vec::new()),
            keeper: StoredValue::new_local(keeper_from_context()),
            filter: use_context::<RwSignal<RunsFilter>>(),
        };
        provide_context(experiments);
        experiments
    }

    /// The provided state, or a fresh one provided now.
    pub fn use_or_provide() -> Experiments {
        use_context::<Experiments>().unwrap_or_else(Experiments::provide)
    }

    /// Stops the running experiment; what it measured is kept and analysed.
    pub fn stop(&self) {
        self.control.with_value(ExperimentControl::stop);
    }

    /// The next session number of `code` (from 1).
    fn next_session(&self, code: &'static str) -> u32 {
        let mut number = 1;
        self.sessions.update_value(|sessions| {
            match sessions.iter_mut().find(|(kind, _)| *kind == code) {
                Some((_, last)) => {
                    *last += 1;
                    number = *last;
                }
                None => sessions.push((code, 1)),
            }
        });
        number
    }

    /// Starts `experiment` with the fields `inputs` against the form's plan `base`. The
    /// fields are checked at once (an error is returned and nothing starts); then the
    /// server is asked for its context window and token counts, and the runs are made.
    pub fn start(
        &self,
        experiment: &'static dyn Experiment,
        inputs: Inputs,
        base: RunPlan,
        lang: Lang,
    ) -> Result<(), SetupError> {
        if self.state.get_untracked().busy() {
            return Ok(());
        }
        let Some(keeper) = self.keeper.get_value() else {
            self.error.set(Some(t::EXPERIMENT_NO_KEEPER.bilingual()));
            self.state.set(ExperimentState::Refused);
            return Ok(());
        };
        let setup = Setup::new(lang, fresh_seed(), &base.spec.model, &base.spec.prompt);
        // The fields' errors now, before any request.
        experiment.configure(&inputs, &setup)?;
        let code = experiment.code();
        let session_number = self.next_session(code);
        let control = ExperimentControl::default();
        self.control.set_value(control.clone());
        self.state.set(ExperimentState::Preparing);
        self.error.set(None);
        self.report.set(None);
        self.progress.set((0, 0));
        if let Some(filter) = self.filter {
            filter.set(RunsFilter::Experiment(code.to_owned(), session_number));
        }
        let experiments = *self;
        leptos::task::spawn_local(async move {
            let started_unix_ms = js_sys::Date::now();
            let (base_url, model) = (base.endpoint.base_url.clone(), base.spec.model.clone());
            let prepared = server::prepare(experiment, &inputs, setup, &base, &control).await;
            let trial = match prepared {
                Ok(trial) => trial,
                Err(error) => {
                    experiments
                        .error
                        .set(Some(Bilingual::from_fn(|lang| error.message(lang))));
                    experiments.state.set(ExperimentState::Refused);
                    // It made no run: show every run again.
                    if let Some(filter) = experiments.filter {
                        filter.set(RunsFilter::All);
                    }
                    return;
                }
            };
            let runner = executor::Runner::new(
                base,
                code,
                session_number,
                control,
                experiments,
                keeper,
                trial,
            );
            let report = runner.execute().await;
            let complete = !runner.stopped();
            let tally = report.tally;
            experiments.outcomes.update(|outcomes| {
                outcomes.push(ExperimentOutcome {
                    kind: code.to_owned(),
                    session: session_number,
                    started_unix_ms,
                    base_url,
                    model,
                    complete,
                    runs_done: tally.measured,
                    runs_planned: tally.planned,
                    report,
                })
            });
            experiments.state.set(if complete {
                ExperimentState::Done
            } else {
                ExperimentState::Stopped
            });
        });
        Ok(())
    }
}

/// The page's run keeper from context (its session, host-page channel, fleet and carrier),
/// when the page provides all four (the lab does; a unit test may not).
fn keeper_from_context() -> Option<RunKeeper<Fleet>> {
    Some(RunKeeper {
        session: use_context::<Session>()?,
        embed: use_context::<Embed>()?,
        hooks: use_context::<Fleet>()?,
        carrier: use_context::<ttft_web::transport::CarrierSlot>()?.carrier(),
    })
}

/// A seed for a new experiment: the wall clock, so that no earlier experiment's prompts
/// (in the provider's prefix cache) are repeated.
pub fn fresh_seed() -> u64 {
    js_sys::Date::now() as u64
}
