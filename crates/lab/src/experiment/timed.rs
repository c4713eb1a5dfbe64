//! The timed schedule (the monitor's): run starts at 0, N, 2N… seconds, and what the
//! executor does at each moment ([`MonitorSchedule::due`]).

use serde::{Deserialize, Serialize};

/// Most runs a schedule plans, so a typo (an interval of 0.001 s for a week) cannot make
/// the page allocate millions of entries.
pub const MAX_SCHEDULED_RUNS: usize = 100_000;

/// When to run: at 0, N, 2N… seconds after the start, while the offset is below the
/// duration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MonitorSchedule {
    /// Seconds between run starts.
    pub interval_s: f64,
    /// Seconds the monitor lasts.
    pub duration_s: f64,
}

impl MonitorSchedule {
    /// Whether both numbers are finite and positive.
    fn valid(&self) -> bool {
        self.interval_s.is_finite()
            && self.duration_s.is_finite()
            && self.interval_s > 0.0
            && self.duration_s > 0.0
    }

    /// Number of runs planned (at most [`MAX_SCHEDULED_RUNS`]; 0 when invalid).
    pub fn run_count(&self) -> usize {
        if !self.valid() {
            return 0;
        }
        let count = (self.duration_s / self.interval_s).ceil();
        (count.min(MAX_SCHEDULED_RUNS as f64)) as usize
    }

    /// Start offsets of every run, ms after the monitor's start.
    pub fn run_offsets_ms(&self) -> Vec<f64> {
        (0..self.run_count())
            .map(|index| index as f64 * self.interval_s * 1000.0)
            .collect()
    }

    /// Offset of the first run due at or after `elapsed_ms`; `None` once the monitor is over.
    pub fn next_run_ms(&self, elapsed_ms: f64) -> Option<f64> {
        if !self.valid() || !elapsed_ms.is_finite() {
            return None;
        }
        let interval_ms = self.interval_s * 1000.0;
        let index = (elapsed_ms.max(0.0) / interval_ms).ceil() as usize;
        (index < self.run_count()).then_some(index as f64 * interval_ms)
    }

    /// What to do at `elapsed_ms` (ms after the start) when every run before `next_index`
    /// was made or skipped.
    ///
    /// A run may start up to one interval late; a run that overran its interval makes the
    /// instants it covered be skipped, not bunched: the latest instant at or before now
    /// runs, the ones before it are skipped.
    pub fn due(&self, elapsed_ms: f64, next_index: usize) -> Due {
        let count = self.run_count();
        if next_index >= count || !elapsed_ms.is_finite() {
            return Due::Over {
                skipped: count.saturating_sub(next_index),
            };
        }
        let interval_ms = self.interval_s * 1000.0;
        let next_offset_ms = next_index as f64 * interval_ms;
        if elapsed_ms < next_offset_ms {
            return Due::Wait {
                delay_ms: next_offset_ms - elapsed_ms,
            };
        }
        let latest = ((elapsed_ms / interval_ms).floor() as usize).max(next_index);
        if latest < count {
            return Due::Run {
                index: latest,
                skipped: latest - next_index,
            };
        }
        let last = count - 1;
        if elapsed_ms - last as f64 * interval_ms <= interval_ms {
            Due::Run {
                index: last,
                skipped: last - next_index,
            }
        } else {
            Due::Over {
                skipped: count - next_index,
            }
        }
    }
}

/// What a timed schedule's executor does now (see [`MonitorSchedule::due`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Due {
    /// Nothing is due yet: sleep (checking Stop meanwhile).
    Wait {
        /// Until the next instant, ms.
        delay_ms: f64,
    },
    /// Run instant `index` now, after skipping the `skipped` instants before it.
    Run {
        /// The instant (and run index) to run.
        index: usize,
        /// Instants skipped because an earlier run overran them.
        skipped: usize,
    },
    /// The monitor is over; `skipped` instants were missed at its end.
    Over {
        /// Instants skipped.
        skipped: usize,
    },
}
