//! What an experiment reads of each run ([`RunSample`]), and the observations and planned
//! runs its analysis works on.

use serde::{Deserialize, Serialize};
use ttft_core::timeline::{
    ConnectionKind, HttpProtocol, NetworkBreakdown, RunMetrics, RunOutcome, RunTimeline,
};

/// The numbers of one finished run that the analyses use (all optional values are `None`
/// when the run did not produce them).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RunSample {
    /// The run succeeded: it completed, or was stopped on purpose after the first answer.
    pub succeeded: bool,
    /// Time to the first token of any kind, ms.
    pub ttft_ms: Option<f64>,
    /// Time to the first answer token, ms.
    pub ttfa_ms: Option<f64>,
    /// Time spent thinking before the answer (first answer − first reasoning), ms.
    pub reasoning_ms: Option<f64>,
    /// Prompt tokens from usage, cached ones included.
    pub prompt_tokens: Option<u64>,
    /// Prompt tokens read from the provider's cache (usage); `None` when not reported.
    pub cached_prompt_tokens: Option<u64>,
    /// Browser queueing, `requestStart − fetchStart`, ms (Resource Timing).
    pub queueing_ms: Option<f64>,
    /// Whether the request reused a connection; `None` when the browser hid it.
    pub connection_reused: Option<bool>,
    /// The HTTP version the request went over; `None` when not recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_protocol: Option<HttpProtocol>,
}

impl RunSample {
    /// A successful run with only a TTFT (synthetic data, tests, imports).
    pub fn with_ttft(ttft_ms: f64) -> RunSample {
        RunSample {
            succeeded: true,
            ttft_ms: Some(ttft_ms),
            ..RunSample::default()
        }
    }

    /// A failed run: it counts as a failure and enters no statistic.
    pub fn failed() -> RunSample {
        RunSample::default()
    }

    /// The numbers of a run from its metrics and (when the app could read Resource Timing)
    /// its network breakdown. `succeeded` is the app's judgement of the outcome.
    fn from_metrics(
        metrics: &RunMetrics,
        network: Option<&NetworkBreakdown>,
        succeeded: bool,
    ) -> RunSample {
        RunSample {
            succeeded,
            ttft_ms: metrics.ttft_ms,
            ttfa_ms: metrics.ttfa_ms,
            reasoning_ms: metrics.reasoning_ms,
            prompt_tokens: metrics.prompt_tokens,
            cached_prompt_tokens: metrics.cached_prompt_tokens,
            queueing_ms: network.and_then(|n| n.queueing_ms),
            connection_reused: network.and_then(|n| match n.connection {
                ConnectionKind::New => Some(false),
                ConnectionKind::Reused => Some(true),
                ConnectionKind::Unknown => None,
            }),
            http_protocol: network.and_then(|n| n.protocol),
        }
    }

    /// The numbers of a finished run's record ([`ttft_core::record::RunRecord`], the one run
    /// record): it succeeded when [`RunRecord::is_ok`](ttft_core::record::RunRecord::is_ok).
    pub fn from_record(record: &ttft_core::record::RunRecord) -> RunSample {
        RunSample::from_metrics(&record.metrics, record.network.as_ref(), record.is_ok())
    }

    /// The numbers of a recorded run. It succeeded when it completed or was stopped after
    /// the first answer on purpose ("TTFT only" mode).
    pub fn from_timeline(run: &RunTimeline) -> RunSample {
        let succeeded = matches!(
            run.outcome,
            RunOutcome::Completed | RunOutcome::StoppedAfterFirstAnswer
        );
        RunSample::from_metrics(&run.metrics(), run.network.as_ref(), succeeded)
    }

    /// TTFT of a successful run, when finite.
    pub fn usable_ttft_ms(&self) -> Option<f64> {
        self.usable(self.ttft_ms)
    }

    /// TTFA of a successful run, when finite.
    pub fn usable_ttfa_ms(&self) -> Option<f64> {
        self.usable(self.ttfa_ms)
    }

    /// `value` when the run succeeded and the value is finite.
    fn usable(&self, value: Option<f64>) -> Option<f64> {
        value.filter(|v| self.succeeded && v.is_finite())
    }
}

/// One observed run: the key of the planned run it executed and what was measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observation<K> {
    /// The planned run's key (the value of the varied setting).
    pub key: K,
    /// What was measured.
    #[serde(flatten)]
    pub sample: RunSample,
}

impl<K> Observation<K> {
    /// Pairs a key with a sample.
    pub fn new(key: K, sample: RunSample) -> Observation<K> {
        Observation { key, sample }
    }
}

/// One run of a plan: what to send. The app sends `prompt` as the user message (no system
/// prompt) to `model` (or the configured one when `None`) with `max_tokens`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedRun<K> {
    /// Position in the plan, from 0: the order to run in.
    pub run_index: usize,
    /// The value of the varied setting; copy it into the [`Observation`].
    pub key: K,
    /// Which repetition of this level, from 0.
    pub repetition: usize,
    /// The cache-busting nonce at position 0 of `prompt`, when there is one.
    pub nonce: Option<String>,
    /// The full prompt text (nonce included).
    pub prompt: String,
    /// Tokens `prompt` has under ttft-sim's counting rule (see [`filler`]).
    pub sim_prompt_tokens: u32,
    /// The model to ask, when the experiment varies it.
    pub model: Option<String>,
    /// The output limit, when the experiment sets it.
    pub max_tokens: Option<u32>,
}

impl<K: Clone> PlannedRun<K> {
    /// The observation of this run.
    pub fn observe(&self, sample: RunSample) -> Observation<K> {
        Observation::new(self.key.clone(), sample)
    }
}
