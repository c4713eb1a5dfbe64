//! The run record: everything one finished run leaves behind, built once by
//! [`crate::measure::Measurement::finish`] when the run ends, and read as it is by the
//! session, storage, the runs table, the charts, the summaries, exports and messages to a
//! host page. Nothing converts it into another type and back. Never holds the key.
//!
//! Its serialized form is the `runs[]` entry of the export document
//! (docs/export-schema.md); [`crate::export`] writes and reads it.

mod scrub;

use serde::{Deserialize, Serialize};

use crate::diagnosis::Diagnosis;
use crate::lang::{Bilingual, Lang};
use crate::protocol::Protocol;
use crate::request::RequestDescription;
use crate::stats::StatsError;
use crate::timeline::{
    BufferedArrival, ConnectionEvidence, Instants, NetworkBreakdown, RunMetrics, RunOutcome,
    RunsSummary, WaitBreakdown,
};
use ttft_stream::dialect::{Dialect, RelayAccount, ServerAccount, Usage};

/// Which code measured the arrival times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    /// A dedicated Worker ran the fetch: arrivals cannot be delayed by main-thread work.
    Worker,
    /// The page's main thread ran the fetch (no Worker): long tasks can delay arrivals.
    MainThread,
}

impl Transport {
    /// The serialized code (`worker`, `main_thread`), for `data-*` attributes.
    pub fn code(self) -> &'static str {
        match self {
            Transport::Worker => "worker",
            Transport::MainThread => "main_thread",
        }
    }
}

/// What was asked, for one run. Never the key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSettings {
    /// The wire protocol.
    pub protocol: Protocol,
    /// The URL actually called (after base URL normalization), e.g.
    /// `https://api.openai.com/v1/chat/completions`.
    pub endpoint_url: String,
    /// The model id as sent.
    pub model: String,
    /// The stream dialect used or detected; `None` when no stream was read.
    pub dialect: Option<Dialect>,
    /// The output limit sent (`max_tokens`, `max_completion_tokens` or `max_output_tokens`).
    pub max_tokens: Option<u32>,
    /// "TTFT only" mode: the stream was aborted after the first answer token.
    pub ttft_only: bool,
    /// Whether reasoning was requested (effort, summary or thinking budget set).
    pub reasoning: bool,
    /// The request as sent, key masked; `None` when the input was rejected before sending.
    pub request: Option<RequestDescription>,
}

/// Which experiment a run belonged to, so the results can be filtered by experiment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExperimentTag {
    /// The experiment's code (`prompt_length`, `prefix_cache`, …).
    pub kind: String,
    /// Which session of that experiment, from 1 (several can be run in one page).
    pub session: u32,
    /// The level or arm the run measured (`1000 tokens`, `warm`, a model id), as shown.
    pub arm: String,
}

/// A diagnosis as the page shows it: what happened and what to do, in English and Chinese,
/// and the provider's own words.
///
/// Stored as text rather than as the typed [`Cause`](crate::diagnosis::Cause): reading the
/// typed cause back would cost the page the deserializer of every cause (tens of KB of
/// wasm), for no gain in what is shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagnosisText {
    /// What happened.
    pub message: Bilingual,
    /// What to do about it.
    pub fix: Bilingual,
    /// HTTP status, when there was one.
    pub http_status: Option<u16>,
    /// The provider's message (text only, truncated).
    pub provider_message: Option<String>,
    /// The command that starts TTFT Meter's relay in front of the provider, its base URL
    /// filled in: a network failure that a relay would get past (CORS). Since schema 6.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relay_command: Option<String>,
}

impl DiagnosisText {
    /// The text of a diagnosis.
    pub fn of(diagnosis: &Diagnosis) -> DiagnosisText {
        DiagnosisText {
            message: Bilingual::from_fn(|lang| diagnosis.message(lang)),
            fix: Bilingual::from_fn(|lang| diagnosis.fix(lang)),
            http_status: diagnosis.http_status,
            provider_message: diagnosis.provider_message.clone(),
            relay_command: diagnosis.relay_command(),
        }
    }

    /// What happened, in `lang`.
    pub fn message(&self, lang: Lang) -> &str {
        self.message.get(lang)
    }

    /// What to do about it, in `lang`.
    pub fn fix(&self, lang: Lang) -> &str {
        self.fix.get(lang)
    }

    /// What happened in `lang`, split around the provider's quote in it: `(before, quote,
    /// after)`, so the page can set the provider's words apart (isolated, styled as a
    /// quote). Without a quote, or when the message does not hold it, all is `before`.
    pub fn message_parts(&self, lang: Lang) -> (&str, Option<&str>, &str) {
        let message = self.message(lang);
        let found = self
            .provider_message
            .as_deref()
            .filter(|quote| !quote.is_empty())
            .and_then(|quote| message.rfind(quote).map(|at| (at, quote.len())));
        match found {
            Some((at, len)) => (
                &message[..at],
                Some(&message[at..at + len]),
                &message[at + len..],
            ),
            None => (message, None, ""),
        }
    }
}

/// Everything recorded about one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Position of the run in the session, starting at 1 (set by the session that keeps it).
    pub run_index: u32,
    /// Wall-clock start, as the app formatted it (ISO 8601 UTC, e.g. `2026-11-29T16:45:10.123Z`).
    pub started_at: String,
    /// What was asked.
    pub settings: RunSettings,
    /// Which code measured this run's arrivals.
    pub transport: Transport,
    /// `true`: a new connection (DNS/TCP/TLS paid), `false`: a reused one, `None`: unknown
    /// (Resource Timing hidden by a missing `Timing-Allow-Origin`).
    pub cold: Option<bool>,
    /// Why `cold` is what it is (the request's Resource Timing, its preflight, the page's
    /// earlier contact with the origin; see [`ConnectionVerdict`](crate::timeline::ConnectionVerdict)).
    /// Absent in records made before schema 4. Since schema 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection_evidence: Option<ConnectionEvidence>,
    /// A warm-up run: measured, but left out of statistics.
    pub warm_up: bool,
    /// The metrics of DESIGN.md §2.
    pub metrics: RunMetrics,
    /// The instants of DESIGN.md §2 (paint methods included), ms on the page clock.
    pub instants: Instants,
    /// Token usage as the provider reported it.
    pub usage: Option<Usage>,
    /// Resource Timing breakdown, when the app could read it.
    pub network: Option<NetworkBreakdown>,
    /// How the run ended.
    pub outcome: RunOutcome,
    /// The diagnosed cause code (`key_refused`, `model_not_found`, …; see
    /// [`Cause::code`](crate::diagnosis::Cause::code)), when the run failed.
    pub diagnosis_cause: Option<String>,
    /// The diagnosis of a failed run as the page words it, in both languages, so a run read
    /// back from storage or an import is explained as when it ran. Absent in schema-1
    /// documents, which kept only the cause code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnosis: Option<DiagnosisText>,
    /// The experiment the run belonged to; absent for runs made with Send.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experiment: Option<ExperimentTag>,
    /// The longest time the page's main thread was unavailable between `request_started`
    /// and the first answer token (or the run's end), ms: a heartbeat's longest gap or the
    /// longest long task ([`MainThreadMonitor`](crate::measure::MainThreadMonitor)). Where
    /// arrivals wait for the main thread, an arrival stamp of that window may be late by up
    /// to this. Absent when not measured (runs made before schema 3). Since schema 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival_delay_bound_ms: Option<f64>,
    /// Whether this run's arrival stamps waited for the page's main thread: in WebKit
    /// (whose Workers' network traffic passes through it) and with the main-thread
    /// transport. Absent when not known. Since schema 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrivals_wait_for_main_thread: Option<bool>,
    /// The longest time the page's main thread was unavailable during the whole run, from
    /// `request_started` to its record (heartbeat gap or long task), ms. Over 50 ms the run
    /// says its later main-thread stamps (paints; arrivals where they wait for the main
    /// thread) may be late by up to this: a flood of short tasks stalls the page without
    /// any long task being reported. Absent when not measured. Since schema 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub main_thread_stall_ms: Option<f64>,
    /// What the server and gateway said of their own time (numbers only, bounded), when
    /// they said anything. Since schema 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_account: Option<ServerAccount>,
    /// Where the wait for the first answer token went, part by part, for runs that got one.
    /// Since schema 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub breakdown: Option<WaitBreakdown>,
    /// The grade of the page's timer when the run was made: a fleet weighs coarse runs.
    /// Since schema 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timer: Option<TimerGrade>,
    /// What ttft-relay said of the request, when the run went through it (docs/relay.md):
    /// the run was made "via relay". Since schema 6.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relay: Option<RelayAccount>,
    /// The answer arrived all at once after a long silence: something between the page and
    /// the model buffered it ([`BufferedArrival`]). Since schema 6.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffered_arrival: Option<BufferedArrival>,
}

/// How fine the page's clock was: cross-origin isolated pages get 5 µs steps from
/// `performance.now()`, others 100 µs (Chromium) to 1 ms (Firefox, WebKit), which is the
/// least any of a run's times can be off by.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimerGrade {
    /// `crossOriginIsolated`.
    pub cross_origin_isolated: bool,
    /// The smallest step `performance.now()` showed, ms; `None` when not measured.
    pub step_ms: Option<f64>,
}

impl TimerGrade {
    /// Coarse: a step above 0.1 ms (a page that is not cross-origin isolated in Firefox or
    /// WebKit): the run's times are good to about a millisecond, not better.
    pub fn coarse(&self) -> bool {
        self.step_ms.is_some_and(|step_ms| step_ms > 0.1)
    }
}

impl RunRecord {
    /// Whether the run went through ttft-relay.
    pub fn via_relay(&self) -> bool {
        self.relay.is_some()
    }

    /// Whether the run measured what it set out to ([`RunOutcome::is_ok`]).
    pub fn is_ok(&self) -> bool {
        self.outcome.is_ok()
    }

    /// Whether the run enters statistics: successful and not a warm-up.
    pub fn counts(&self) -> bool {
        !self.warm_up && self.is_ok()
    }

    /// The endpoint URL called, for display.
    pub fn endpoint_url(&self) -> &str {
        &self.settings.endpoint_url
    }

    /// Whether the page's main thread stalled for more than
    /// [`ARRIVAL_DELAY_THRESHOLD_MS`](crate::availability::ARRIVAL_DELAY_THRESHOLD_MS) at
    /// some point of this run (not only while it waited for its first answer token).
    pub fn stalled(&self) -> bool {
        self.main_thread_stall_ms
            .is_some_and(|stall_ms| stall_ms > crate::availability::ARRIVAL_DELAY_THRESHOLD_MS)
    }

    /// Whether this run's arrival times may be late by more than
    /// [`ARRIVAL_DELAY_THRESHOLD_MS`](crate::availability::ARRIVAL_DELAY_THRESHOLD_MS): its
    /// arrivals waited for the main thread and the main thread was unavailable longer than
    /// that while the run waited for its first answer token.
    pub fn arrival_delayed(&self) -> bool {
        self.arrivals_wait_for_main_thread == Some(true)
            && self
                .arrival_delay_bound_ms
                .is_some_and(|bound_ms| bound_ms > crate::availability::ARRIVAL_DELAY_THRESHOLD_MS)
    }
}

/// Which runs a summary covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cohort {
    /// Every run that counts (successful, not warm-up).
    All,
    /// Those on a new connection (DNS/TCP/TLS paid).
    Cold,
    /// Those on a reused connection.
    Warm,
}

impl Cohort {
    /// Every cohort, in the order the summary lists them.
    pub const ALL: [Cohort; 3] = [Cohort::All, Cohort::Cold, Cohort::Warm];

    /// The serialized code (`all`, `cold`, `warm`), for `data-*` attributes.
    pub fn code(self) -> &'static str {
        match self {
            Cohort::All => "all",
            Cohort::Cold => "cold",
            Cohort::Warm => "warm",
        }
    }

    /// Whether `record` belongs to this cohort (it must also [count](RunRecord::counts)).
    pub fn contains(self, record: &RunRecord) -> bool {
        record.counts()
            && match self {
                Cohort::All => true,
                Cohort::Cold => record.cold == Some(true),
                Cohort::Warm => record.cold == Some(false),
            }
    }
}

/// The statistics of one cohort of `records`; `None` when the cohort has no runs. An error
/// only if a metric is NaN or infinite. The page's summary table and the summary posted to
/// a host page both come from here.
pub fn cohort_summary<'a>(
    records: impl IntoIterator<Item = &'a RunRecord>,
    cohort: Cohort,
) -> Result<Option<RunsSummary>, StatsError> {
    let metrics: Vec<&RunMetrics> = records
        .into_iter()
        .filter(|record| cohort.contains(record))
        .map(|record| &record.metrics)
        .collect();
    if metrics.is_empty() {
        return Ok(None);
    }
    RunsSummary::from_run_refs(&metrics).map(Some)
}
