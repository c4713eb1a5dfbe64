//! Statistics over several runs' metrics ([`RunsSummary`]).

use super::run::RunMetrics;
use crate::itl::ItlGaps;
use crate::stats::{StatsError, Summary};
use serde::{Deserialize, Serialize};

/// Statistics of each metric over several runs. A run lacking a metric (failed, no
/// reasoning, no paint) is left out of that metric only; each [`Summary`] says its count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunsSummary {
    /// Number of runs given.
    pub runs: usize,
    /// `ttft_ms` over runs.
    pub ttft_ms: Option<Summary>,
    /// `ttfa_ms` over runs.
    pub ttfa_ms: Option<Summary>,
    /// `ttfa_visible_ms` over runs.
    pub ttfa_visible_ms: Option<Summary>,
    /// `ttfr_ms` over runs.
    pub ttfr_ms: Option<Summary>,
    /// `first_chunk_ms` over runs.
    pub first_chunk_ms: Option<Summary>,
    /// `setup_ms` over runs.
    pub setup_ms: Option<Summary>,
    /// `perceived_ttft_ms` over runs.
    pub perceived_ttft_ms: Option<Summary>,
    /// `perceived_ttfa_ms` over runs.
    pub perceived_ttfa_ms: Option<Summary>,
    /// `reasoning_ms` over runs.
    pub reasoning_ms: Option<Summary>,
    /// `decode_ms` over runs.
    pub decode_ms: Option<Summary>,
    /// `e2e_ms` over runs.
    pub e2e_ms: Option<Summary>,
    /// Per-run mean `itl_ms` over runs (AIPerf's ITL: one value per request).
    pub itl_ms: Option<Summary>,
    /// Every chunk gap of every run pooled (vLLM bench's ITL distribution), from the runs'
    /// histograms: exact to their resolution (1 µs unless a run had more than
    /// [`crate::itl::MAX_BINS`] distinct gaps).
    pub itl_gaps_pooled_ms: Option<Summary>,
    /// `output_tps` over runs.
    pub output_tps: Option<Summary>,
}

impl RunsSummary {
    /// The summary of the metric named `name` (a [`crate::metric::METRICS`] name); `None`
    /// when no run measured it or it is not summarized.
    pub fn get(&self, name: &str) -> Option<&Summary> {
        match name {
            "ttft_ms" => self.ttft_ms.as_ref(),
            "ttfa_ms" => self.ttfa_ms.as_ref(),
            "ttfa_visible_ms" => self.ttfa_visible_ms.as_ref(),
            "ttfr_ms" => self.ttfr_ms.as_ref(),
            "first_chunk_ms" => self.first_chunk_ms.as_ref(),
            "setup_ms" => self.setup_ms.as_ref(),
            "perceived_ttft_ms" => self.perceived_ttft_ms.as_ref(),
            "perceived_ttfa_ms" => self.perceived_ttfa_ms.as_ref(),
            "reasoning_ms" => self.reasoning_ms.as_ref(),
            "decode_ms" => self.decode_ms.as_ref(),
            "e2e_ms" => self.e2e_ms.as_ref(),
            "itl_ms" => self.itl_ms.as_ref(),
            "output_tps" => self.output_tps.as_ref(),
            _ => None,
        }
    }

    /// Summarizes metrics of several runs; an error if any value is NaN or infinite.
    pub fn from_runs(runs: &[RunMetrics]) -> Result<RunsSummary, StatsError> {
        Self::from_run_refs(&runs.iter().collect::<Vec<_>>())
    }

    /// [`RunsSummary::from_runs`] over borrowed metrics, so a caller holding runs inside
    /// larger records need not clone them (their ITL gaps can be long).
    pub fn from_run_refs(runs: &[&RunMetrics]) -> Result<RunsSummary, StatsError> {
        let over = |pick: fn(&RunMetrics) -> Option<f64>| -> Result<Option<Summary>, StatsError> {
            let values: Vec<f64> = runs.iter().filter_map(|run| pick(run)).collect();
            Summary::from_samples(&values)
        };
        let pooled = ItlGaps::pooled(runs.iter().map(|run| &run.itl_gaps));
        Ok(RunsSummary {
            runs: runs.len(),
            ttft_ms: over(|m| m.ttft_ms)?,
            ttfa_ms: over(|m| m.ttfa_ms)?,
            ttfa_visible_ms: over(|m| m.ttfa_visible_ms)?,
            ttfr_ms: over(|m| m.ttfr_ms)?,
            first_chunk_ms: over(|m| m.first_chunk_ms)?,
            setup_ms: over(|m| m.setup_ms)?,
            perceived_ttft_ms: over(|m| m.perceived_ttft_ms)?,
            perceived_ttfa_ms: over(|m| m.perceived_ttfa_ms)?,
            reasoning_ms: over(|m| m.reasoning_ms)?,
            decode_ms: over(|m| m.decode_ms)?,
            e2e_ms: over(|m| m.e2e_ms)?,
            itl_ms: over(|m| m.itl_ms)?,
            itl_gaps_pooled_ms: pooled.summary(),
            output_tps: over(|m| m.output_tps)?,
        })
    }
}
