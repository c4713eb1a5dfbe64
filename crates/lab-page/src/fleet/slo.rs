//! SLOs and goodput in the page: the thresholds (from `slo=` or the settings), the
//! evaluation over the session's runs (ttft-core's [`SloSet::evaluate`]), a mark per run in
//! the runs table, and the overall badge that the compact layout shows and the summary
//! message carries.

use std::collections::HashMap;

use leptos::prelude::*;
use serde_json::Value;
use ttft_core::text::Text;
use ttft_lab::slo::{SloParseError, SloReport, SloSet, Verdict};

use crate::texts as t;
use ttft_web::i18n::use_i18n;
use ttft_web::session::Session;

/// The SLOs in force and their evaluation. Cheap to copy; provided as context.
#[derive(Clone, Copy)]
pub struct SloState {
    /// The thresholds, when set.
    pub set: RwSignal<Option<SloSet>>,
    /// Why the last text was refused.
    pub error: RwSignal<Option<SloParseError>>,
    /// The evaluation over every run of the session.
    pub report: Memo<Option<SloReport>>,
    /// Per run (`run_index`): whether it met every per-run threshold; absent when it does
    /// not count (warm-up, stopped, never sent).
    pub marks: Memo<HashMap<u32, bool>>,
}

impl SloState {
    /// The state for `session`, starting with the URL's text (refused text is reported).
    pub fn new(session: Session, text: Option<&str>) -> SloState {
        let set = RwSignal::new(None);
        let error = RwSignal::new(None);
        let report = Memo::new(move |_| {
            let set: Option<SloSet> = set.get();
            set.map(|set| session.runs.with(|runs| set.evaluate(runs)))
        });
        let marks = Memo::new(move |_| {
            report.with(|report| {
                report
                    .iter()
                    .flat_map(|report| &report.runs)
                    .map(|run| (run.run_index, run.met_every_threshold))
                    .collect()
            })
        });
        let state = SloState {
            set,
            error,
            report,
            marks,
        };
        if let Some(text) = text {
            let _ = state.apply(text);
        }
        state
    }

    /// Parses and applies `text` (empty: no SLO).
    pub fn apply(&self, text: &str) -> Result<(), SloParseError> {
        if text.trim().is_empty() {
            self.set.set(None);
            self.error.set(None);
            return Ok(());
        }
        match SloSet::parse(text) {
            Ok(set) => {
                self.set.set(Some(set));
                self.error.set(None);
                Ok(())
            }
            Err(error) => {
                self.error.set(Some(error.clone()));
                Err(error)
            }
        }
    }
}

/// The `slo` object of the `ttft-meter.summary` message: the set, the verdict, the good run
/// count and fraction, and each threshold's result (not the per-run list).
pub fn summary_object(report: &SloReport) -> Value {
    let mut value = serde_json::to_value(report).unwrap_or(Value::Null);
    if let Value::Object(fields) = &mut value {
        fields.remove("runs");
    }
    value
}

/// The badge's word for the overall verdict.
fn verdict_text(verdict: Verdict) -> Text {
    match verdict {
        Verdict::Pass => t::SLO_MET,
        Verdict::Fail => t::SLO_MISSED,
        Verdict::NoData => t::SLO_NO_RUNS_YET,
    }
}

fn percent(fraction: f64) -> String {
    let value = fraction * 100.0;
    if (value - value.round()).abs() < 0.05 {
        format!("{value:.0} %")
    } else {
        format!("{value:.1} %")
    }
}

/// The overall result: a pass/fail badge, the good run count and fraction ("goodput", as
/// AIPerf names them), and each threshold with what was observed.
#[component]
pub fn SloSummary() -> impl IntoView {
    let i18n = use_i18n();
    let state = use_context::<SloState>();
    move || {
        let report = state?.report.get()?;
        let lang = i18n.lang.get();
        let verdict = report.verdict;
        let good = match report.good_run_fraction {
            Some(fraction) => t::SLO_GOODPUT.fill(
                lang,
                &[
                    ("good", &report.good_run_count),
                    ("counted", &report.counted_runs),
                    ("goodput", &percent(fraction)),
                    ("target", &percent(report.goodput_target)),
                ],
            ),
            None => String::new(),
        };
        let thresholds = report
            .thresholds
            .iter()
            .map(|result| {
                let observed = match (result.observed, result.met_runs) {
                    (Some(value), _) => format!("{value:.1}"),
                    (None, Some(met_runs)) => t::SLO_THRESHOLD_MET_RUNS.fill(
                        lang,
                        &[("met", &met_runs), ("counted", &report.counted_runs)],
                    ),
                    (None, None) => "—".to_owned(),
                };
                let met = result.met;
                view! {
                    <li data-testid="slo-threshold" data-met=met.to_string()>
                        <code>{result.threshold.to_string()}</code>
                        {format!(": {observed} ")}
                        <span class:slo-mark=true class:missed=!met>{if met { "✓" } else { "✗" }}</span>
                    </li>
                }
            })
            .collect_view();
        Some(view! {
            <div class="slo-summary" data-testid="slo-summary">
                <span class="slo-badge" data-testid="slo-badge" data-verdict=verdict.code()>
                    {verdict_text(verdict).get(lang)}
                </span>
                <span class="meta" data-testid="slo-goodput"
                    data-good-runs=report.good_run_count
                    data-counted-runs=report.counted_runs
                    data-fraction=report.good_run_fraction.map(|fraction| fraction.to_string()).unwrap_or_default()>
                    {good}
                </span>
                <ul class="slo-thresholds">{thresholds}</ul>
            </div>
        })
    }
}
