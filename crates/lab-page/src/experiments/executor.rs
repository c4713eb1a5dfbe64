//! Runs any configured experiment: its [`Schedule`] is one of four generic kinds, each run
//! here once for every experiment of the registry.
//!
//! - sequence: one run after the other;
//! - waves: a wave's runs all in flight at once, the next wave when the whole wave ended (a
//!   wave cut short by Stop says nothing about queueing and is not recorded);
//! - lanes: `in_flight` lanes, each taking the next run when its run ends;
//! - timed: one run at each instant of the schedule ([`MonitorSchedule::due`] says whether
//!   to wait, run or skip), checking Stop at least every [`STOP_CHECK_MS`].
//!
//! Each run is a normal run of the form's plan with the experiment's prompt, model and
//! limit, tagged with the experiment; a run cut short by Stop is not recorded (it says
//! nothing about the endpoint). After every recorded run the experiment's report is
//! published.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use futures_util::future::join_all;
use leptos::prelude::{Set, Update};
use ttft_core::measure::{InputError, RunPlan};
use ttft_lab::experiment::report::Report;
use ttft_lab::experiment::schedule::{Observed, RunSpec, Schedule, TimedRuns};
use ttft_lab::experiment::timed::{Due, MonitorSchedule};
use ttft_lab::experiment::{ExperimentSession, RunSample};

use ttft_web::clock;
use ttft_web::run::{RunControl, RunOptions};
use ttft_web::series::RunKeeper;

use super::{ExperimentControl, ExperimentState, Experiments};
use crate::fleet::Fleet;

/// Longest sleep of the timed schedule between checks of Stop, ms.
const STOP_CHECK_MS: f64 = 200.0;

/// The form's plan asking what `spec` asks, tagged with the experiment.
fn plan_for(
    base: &RunPlan,
    spec: &RunSpec,
    code: &str,
    session: u32,
) -> Result<RunPlan, InputError> {
    let protocol = base.endpoint.protocol;
    let add_reasoning = spec.ask_reasoning && !base.reasoning;
    let mut plan = base.varied(|prompt| {
        prompt.prompt = spec.prompt.clone();
        if let Some(model) = &spec.model {
            prompt.model = model.clone();
        }
        if spec.max_tokens.is_some() {
            prompt.max_output_tokens = spec.max_tokens;
        }
        if add_reasoning {
            *prompt = prompt.clone().with_reasoning(protocol);
        }
    })?;
    plan.reasoning |= spec.ask_reasoning;
    // Usage (prompt and cached tokens) comes at the end of the stream.
    plan.ttft_only = false;
    plan.experiment = Some(spec.experiment_tag(code, session));
    Ok(plan)
}

/// One experiment being run.
pub(super) struct Runner {
    base: RunPlan,
    code: &'static str,
    session_number: u32,
    control: ExperimentControl,
    experiments: Experiments,
    keeper: RunKeeper<Fleet>,
    trial: RefCell<Box<dyn ExperimentSession>>,
    start_ms: Cell<f64>,
}

impl Runner {
    /// A runner of `trial` (configured and sized) with the form's plan `base`.
    pub(super) fn new(
        base: RunPlan,
        code: &'static str,
        session_number: u32,
        control: ExperimentControl,
        experiments: Experiments,
        keeper: RunKeeper<Fleet>,
        trial: Box<dyn ExperimentSession>,
    ) -> Runner {
        Runner {
            base,
            code,
            session_number,
            control,
            experiments,
            keeper,
            trial: RefCell::new(trial),
            start_ms: Cell::new(clock::now_ms()),
        }
    }

    /// Whether Stop ended the experiment.
    pub(super) fn stopped(&self) -> bool {
        self.control.stopped()
    }

    /// Runs the whole schedule; returns the final report.
    pub(super) async fn execute(&self) -> Report {
        let schedule = self.trial.borrow().schedule();
        self.experiments.progress.set((0, schedule.run_count()));
        self.publish();
        self.experiments.state.set(ExperimentState::Running);
        self.start_ms.set(clock::now_ms());
        match &schedule {
            Schedule::Sequence { runs } => self.sequence(runs).await,
            Schedule::Waves { waves } => self.waves(waves).await,
            Schedule::Lanes { in_flight, runs } => self.lanes(*in_flight, runs).await,
            Schedule::Timed { timing, runs } => self.timed(timing, runs).await,
        }
        self.trial.borrow().report()
    }

    /// Publishes the report as it stands.
    fn publish(&self) {
        let report = self.trial.borrow().report();
        self.experiments.report.set(Some(report));
    }

    /// Counts `runs` as done (made or skipped).
    fn advance(&self, runs: usize) {
        self.experiments.progress.update(|(done, _)| *done += runs);
    }

    /// Measures `spec`; `None` when Stop interrupted it or it cannot be sent. The run is
    /// measured and kept as every run of the page ([`RunKeeper`]).
    async fn measure(&self, spec: &RunSpec) -> Option<Observed> {
        if self.control.stopped() {
            return None;
        }
        let plan = plan_for(&self.base, spec, self.code, self.session_number).ok()?;
        let run_control = RunControl::default();
        let stop_run = run_control.clone();
        let id = self.control.begin(Rc::new(move || stop_run.stop()));
        let started_ms = clock::now_ms() - self.start_ms.get();
        let options = RunOptions {
            clicked_ms: None,
            warm_up: spec.warm_up(),
            painted: false,
        };
        let measured = self
            .keeper
            .measure(&plan, options, &run_control, || {}, |_| {})
            .await;
        self.control.end(id);
        if run_control.stopped() {
            return None;
        }
        let sample = RunSample::from_record(&measured.record);
        self.keeper.keep(measured).await;
        Some(Observed {
            run_index: spec.run_index,
            started_ms,
            sample,
        })
    }

    /// Hands a finished run to the experiment and publishes the report.
    fn record(&self, observed: Observed) {
        self.trial.borrow_mut().record(observed);
        self.advance(1);
        self.publish();
    }

    async fn sequence(&self, runs: &[RunSpec]) {
        for spec in runs {
            let Some(observed) = self.measure(spec).await else {
                break;
            };
            self.record(observed);
        }
    }

    async fn waves(&self, waves: &[Vec<RunSpec>]) {
        for wave in waves {
            let observed = join_all(wave.iter().map(|spec| self.measure(spec))).await;
            if self.control.stopped() {
                break;
            }
            for observed in observed.into_iter().flatten() {
                self.trial.borrow_mut().record(observed);
                self.advance(1);
            }
            self.publish();
        }
    }

    async fn lanes(&self, in_flight: usize, runs: &[RunSpec]) {
        let queue: RefCell<VecDeque<&RunSpec>> = RefCell::new(runs.iter().collect());
        let lane = || async {
            loop {
                let next = queue.borrow_mut().pop_front();
                let Some(spec) = next else { break };
                let Some(observed) = self.measure(spec).await else {
                    break;
                };
                self.record(observed);
            }
        };
        join_all((0..in_flight.max(1)).map(|_| lane())).await;
    }

    async fn timed(&self, timing: &MonitorSchedule, runs: &TimedRuns) {
        let mut next_index = 0;
        while !self.control.stopped() {
            let elapsed_ms = clock::now_ms() - self.start_ms.get();
            match timing.due(elapsed_ms, next_index) {
                Due::Wait { delay_ms } => clock::sleep_ms(delay_ms.min(STOP_CHECK_MS)).await,
                Due::Run { index, skipped } => {
                    self.advance(skipped);
                    next_index = index + 1;
                    let Some(observed) = self.measure(&runs.run(index)).await else {
                        break;
                    };
                    self.record(observed);
                }
                Due::Over { skipped } => {
                    self.advance(skipped);
                    break;
                }
            }
        }
    }
}
