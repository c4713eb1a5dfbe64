//! Which of the session's runs the results show ([`RunsFilter`], [`RunsView`]) and the
//! per-run marks a page adds to them ([`RunMarks`]): state the runs table reads and the
//! pages' controllers (an experiment's start, the lab's results filter, the fleet's SLOs) set.

use std::collections::HashMap;

use leptos::prelude::*;
use ttft_core::record::RunRecord;

/// Which runs the results show: all, those made with Send, or one experiment's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunsFilter {
    /// Every run.
    All,
    /// Runs made with Send.
    Send,
    /// One experiment's runs: its kind and session.
    Experiment(String, u32),
}

impl RunsFilter {
    /// The `<select>` value.
    pub fn code(&self) -> String {
        match self {
            RunsFilter::All => "all".into(),
            RunsFilter::Send => "send".into(),
            RunsFilter::Experiment(kind, session) => format!("{kind}#{session}"),
        }
    }

    /// Whether `record` is shown.
    pub fn keeps(&self, record: &RunRecord) -> bool {
        match self {
            RunsFilter::All => true,
            RunsFilter::Send => record.experiment.is_none(),
            RunsFilter::Experiment(kind, session) => record
                .experiment
                .as_ref()
                .is_some_and(|tag| &tag.kind == kind && tag.session == *session),
        }
    }
}

/// The session's runs through a filter, borrowed (a long session is never copied whole).
#[derive(Clone, Copy)]
pub struct RunsView {
    /// Every run of the session.
    pub runs: RwSignal<Vec<RunRecord>>,
    /// Which of them are shown.
    pub filter: RwSignal<RunsFilter>,
}

impl RunsView {
    /// Calls `read` with the shown runs, oldest first (tracked).
    pub fn with<R>(&self, read: impl FnOnce(&[&RunRecord]) -> R) -> R {
        let filter = self.filter.get();
        self.runs.with(|runs| {
            let shown: Vec<&RunRecord> =
                runs.iter().filter(|record| filter.keeps(record)).collect();
            read(&shown)
        })
    }
}

/// The per-run SLO marks a page adds to the runs table (the lab, when SLOs are set),
/// provided as context: per `run_index`, whether the run met every per-run threshold; absent
/// when it does not count.
#[derive(Clone, Copy)]
pub struct RunMarks(pub Memo<HashMap<u32, bool>>);
