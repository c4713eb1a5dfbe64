//! Fleet measurement: what an embedder needs to measure many visitors' browsers, kept
//! behind this one module boundary (it can move to an on-demand part of the app as a whole):
//!
//! - [`otlp`]: OpenTelemetry export of every finished run (OTLP/HTTP JSON);
//! - [`trace`]: W3C trace context on the model request, and its CORS diagnosis;
//! - [`probe`]: probe mode, N runs on load;
//! - [`slo`]: SLOs, goodput and the pass/fail badge;
//! - [`share`]: share links and the read-only shared view;
//! - [`settings`]: the settings disclosure.
//!
//! The logic of each is in ttft-core (`otlp`, `trace_context`, `probe`, `slo`, `share`);
//! these files read the browser and draw.

pub mod ids;
pub mod otlp;
pub mod probe;
pub mod settings;
pub mod share;
pub mod slo;
pub mod trace;

use leptos::prelude::*;
use serde_json::Value;
use ttft_core::config::UrlConfig;
use ttft_core::measure::RunPlan;
use ttft_core::record::RunRecord;
use ttft_lab::otlp::RunIds;

use otlp::{OtlpExport, OtlpSettings};
use probe::ProbeState;
use slo::SloState;
use ttft_web::session::Session;

/// The page's fleet state. Cheap to copy; provided as context.
#[derive(Clone, Copy)]
pub struct Fleet {
    /// The OpenTelemetry export.
    pub otlp: OtlpExport,
    /// Whether runs send `traceparent`.
    pub traceparent: RwSignal<bool>,
    /// SLOs and their evaluation.
    pub slo: SloState,
    /// Probe mode.
    pub probe: RwSignal<ProbeState>,
}

impl Fleet {
    /// The state the URL asks for (`otlp_*`, `traceparent`, `slo`), provided as context.
    /// `model_key` is the key kept for this tab (refused as a collector header);
    /// `series_running` holds sends back while a series goes.
    pub fn new(
        config: &UrlConfig,
        session: Session,
        model_key: &str,
        series_running: Signal<bool>,
    ) -> Fleet {
        let slo = SloState::new(session, config.slo.as_deref());
        let otlp = OtlpExport::new(series_running);
        let settings = OtlpSettings {
            endpoint: config.otlp_endpoint.clone().unwrap_or_default(),
            headers: config.otlp_headers.clone().unwrap_or_default(),
            include_prompt: config.otlp_prompt,
            service_name: config.otlp_service_name.clone(),
            provider_name: config.otlp_provider.clone(),
        };
        if config.otlp_endpoint.is_some() {
            // A refusal is shown by the status line; the runs work regardless.
            let _ = otlp.configure(settings, model_key, slo.set.get_untracked());
        } else {
            otlp.settings.set(settings);
        }
        otlp::flush_on_pagehide(otlp);
        Effect::new(move |_| otlp.set_slo(slo.set.get()));
        let fleet = Fleet {
            otlp,
            traceparent: RwSignal::new(config.traceparent),
            slo,
            probe: RwSignal::new(ProbeState::Off),
        };
        provide_context(fleet);
        provide_context(slo);
        provide_context(ttft_web::state::RunMarks(slo.marks));
        fleet
    }

    /// Before a run: its span's ids, and the plan to send (with `traceparent` for them when
    /// trace context is on).
    pub fn prepare(&self, plan: &RunPlan) -> (RunPlan, RunIds) {
        let ids = ids::run_ids();
        let plan = trace::plan_for(plan, &ids, self.traceparent.get_untracked());
        (plan, ids)
    }

    /// A run the session kept: exported when the export is on.
    pub fn kept(&self, record: &RunRecord, ids: RunIds) {
        if self.otlp.is_on() {
            self.otlp.record(record, ids);
        }
    }

    /// The `slo` object of the summary message, when SLOs are set.
    pub fn summary_slo(&self) -> Option<Value> {
        self.slo
            .report
            .with_untracked(|report| report.as_ref().map(slo::summary_object))
    }
}

/// The lab's runs (its series and its experiments alike): trace context on each request (a failure it caused is diagnosed, and
/// ends the series), each kept run exported, the SLO result in the summary.
impl ttft_web::series::SeriesHooks for Fleet {
    type RunIds = RunIds;

    fn prepare(&self, plan: &RunPlan) -> (Option<RunPlan>, RunIds) {
        let (plan, ids) = Fleet::prepare(self, plan);
        (Some(plan), ids)
    }

    async fn check_failed(&self, plan: &RunPlan, record: &mut RunRecord) -> bool {
        trace::check_failed_run(plan, record).await
    }

    fn kept(&self, record: &RunRecord, ids: RunIds) {
        Fleet::kept(self, record, ids);
    }

    fn summary_slo(&self) -> Option<Value> {
        Fleet::summary_slo(self)
    }
}
