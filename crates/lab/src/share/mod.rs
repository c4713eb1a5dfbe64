//! Share links: a results summary and the chart data in the URL fragment, compressed.
//!
//! "Copy link" puts the runs' main numbers (per run: ttft, ttfa, ttfr, perceived ttfa, first
//! chunk, e2e, ITL, outcome, cold/warm, HTTP version, label, cohort) and a few facts (tool version, host,
//! model, protocol, environment, SLO) in `#share=v1.<data>`, where `<data>` is a compact
//! binary form of [`SharedResults`] (columns of varint-coded differences: see `codec.rs`),
//! base64url-encoded without padding. Opening the link shows the charts read-only; statistics
//! are recomputed from the runs, so a link cannot carry a summary that disagrees with its data.
//!
//! The fragment never reaches a server (browsers do not send it), so only browsers and the
//! tools a link is pasted into limit its length. Never in a link: the key, headers, the
//! request body, the answer, and the prompt unless the user chose to include it.
//!
//! # Limits
//!
//! - A link's fragment is at most [`MAX_FRAGMENT_BYTES`] (16 KiB). Chromium takes URLs up to
//!   2 MB, but chat tools, issue trackers and e-mail clients cut or refuse long links sooner;
//!   16 KiB passes through the common ones. [`encode_fitting`] keeps the newest runs that fit
//!   (measured with realistic jitter: 723 runs; 100 runs take 2.4 KB, 500 take 11.3 KB; an
//!   8 KiB limit holds 358) and can be given a smaller limit.
//! - Decoding refuses more than [`MAX_SHARED_RUNS`] runs, strings longer than their limits,
//!   numbers that are not times, and any count or length larger than the bytes left: the
//!   data cannot expand beyond the link's own size (no decompression bomb is possible).
//!
//! # Why a hand-written codec, not DEFLATE
//!
//! Both were built and measured. Links (the jittered sample of the tests): with DEFLATE
//! (miniz_oxide, level 9) over the same columns as JSON, 100 runs took 2,363 bytes, 500 took
//! 9,736, and 873 runs fit in 16 KiB; with this codec 2,409, 11,340 and 723. Wasm
//! (bench/share-size: one cdylib built as the app is, opt-level z and LTO, with each codec;
//! then `wasm-opt -Oz`; docs/otel.md has the table): miniz_oxide adds 39.0 KB (17.6 KB
//! gzip), a varint codec 4.2 KB (1.9 KB gzip). The shipped wasm is already over its size
//! budget, so 16 KB of gzip for links 2 to 15 % shorter is not worth it. The format is small, versioned by its first
//! byte, round-trip property-tested, and the property tests feed the decoder arbitrary input.

mod codec;

use std::fmt;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};

use ttft_core::cut::prefix_within;
use ttft_core::lang::Lang;
use ttft_core::record::RunRecord;
use ttft_core::stats::Summary;
use ttft_core::timeline::HttpProtocol;

use crate::texts as t;

/// The fragment's prefix (after `#`).
pub const FRAGMENT_PREFIX: &str = ttft_core::config::SHARE_FRAGMENT_PREFIX;
/// Longest fragment made or read, in bytes (prefix included).
pub const MAX_FRAGMENT_BYTES: usize = 16 * 1024;
/// Most runs in one link.
pub const MAX_SHARED_RUNS: usize = 2000;
/// Longest label or cohort name.
pub const MAX_LABEL_BYTES: usize = 64;
/// Most cohorts.
pub const MAX_COHORTS: usize = 32;
/// Longest fact (version, host, model, environment, SLO).
pub const MAX_FACT_BYTES: usize = 512;
/// Longest prompt in a link (only when the user chose to include it).
pub const MAX_SHARED_PROMPT_BYTES: usize = 4096;
/// Largest time accepted, ms (a day: no measured wait is longer).
const MAX_TIME_MS: f64 = 86_400_000.0;

/// One run as a link carries it. Times in ms, rounded to 0.1 ms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedRun {
    /// The run's position in its session.
    pub run_index: u32,
    /// A short label (an experiment's setting such as `4k tokens`), if any.
    pub label: Option<String>,
    /// The cohort it belongs to (`cold` / `warm`, an experiment arm), if any.
    pub cohort: Option<String>,
    /// The outcome code (`completed`, `http_error`, …).
    pub outcome: String,
    /// New connection (`true`), reused (`false`), unknown (`None`).
    pub cold: Option<bool>,
    /// The HTTP version of its request (`h2`, `http/1.1`, …; `hidden` when the browser did
    /// not say), `None` when not recorded (and in links of format 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_protocol: Option<HttpProtocol>,
    /// `ttft_ms`.
    pub ttft_ms: Option<f64>,
    /// `ttfa_ms`.
    pub ttfa_ms: Option<f64>,
    /// `ttfr_ms`.
    pub ttfr_ms: Option<f64>,
    /// `perceived_ttfa_ms`.
    pub perceived_ttfa_ms: Option<f64>,
    /// `first_chunk_ms`.
    pub first_chunk_ms: Option<f64>,
    /// `e2e_ms`.
    pub e2e_ms: Option<f64>,
    /// `itl_ms`.
    pub itl_ms: Option<f64>,
}

impl SharedRun {
    /// The run's shared part: its metrics, outcome and connection; the label is its
    /// experiment arm (`1000 tokens`, `warm`, a model id) when it belonged to an experiment,
    /// the cohort `cold` or `warm` when known (the page may set others).
    pub fn from_record(record: &RunRecord) -> SharedRun {
        let metrics = &record.metrics;
        SharedRun {
            run_index: record.run_index,
            label: record
                .experiment
                .as_ref()
                .map(|experiment| experiment.arm.clone()),
            cohort: record
                .cold
                .map(|cold| if cold { "cold" } else { "warm" }.to_owned()),
            outcome: record.outcome.code().to_owned(),
            cold: record.cold,
            http_protocol: record.network.as_ref().and_then(|network| network.protocol),
            ttft_ms: metrics.ttft_ms,
            ttfa_ms: metrics.ttfa_ms,
            ttfr_ms: metrics.ttfr_ms,
            perceived_ttfa_ms: metrics.perceived_ttfa_ms,
            first_chunk_ms: metrics.first_chunk_ms,
            e2e_ms: metrics.e2e_ms,
            itl_ms: metrics.itl_ms,
        }
    }
}

/// What a link carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedResults {
    /// The TTFT Meter version that made the link.
    pub tool_version: String,
    /// When the link was made, as the app formatted it (ISO 8601 UTC).
    pub created_at: String,
    /// The endpoint's host (and port): never its path or query.
    pub host: Option<String>,
    /// The model.
    pub model: Option<String>,
    /// The protocol code (`open_ai_chat`, …).
    pub protocol: Option<String>,
    /// A short description of where it was measured (`Chrome 156 · 4g`).
    pub environment: Option<String>,
    /// The SLO set in its text form, if one was set.
    pub slo: Option<String>,
    /// The prompt, only when the user chose to include it.
    pub prompt: Option<String>,
    /// The runs, oldest first.
    pub runs: Vec<SharedRun>,
}

/// The link's data in columns (one list per field), the shape `codec` writes: shorter than
/// one record per run, and each column's values are close to each other.
#[derive(Debug, Clone, PartialEq)]
struct Wire {
    tool: String,
    at: String,
    host: Option<String>,
    model: Option<String>,
    protocol: Option<String>,
    env: Option<String>,
    slo: Option<String>,
    prompt: Option<String>,
    /// Cohort names; runs refer to them by index.
    cohorts: Vec<String>,
    /// Outcome codes; runs refer to them by index.
    outcomes: Vec<String>,
    index: Vec<u32>,
    label: Vec<Option<String>>,
    cohort: Vec<Option<u16>>,
    outcome: Vec<u16>,
    cold: Vec<Option<bool>>,
    /// Since format 2.
    http: Vec<Option<HttpProtocol>>,
    ttft: Vec<Option<f64>>,
    ttfa: Vec<Option<f64>>,
    ttfr: Vec<Option<f64>>,
    perceived_ttfa: Vec<Option<f64>>,
    first_chunk: Vec<Option<f64>>,
    e2e: Vec<Option<f64>>,
    itl: Vec<Option<f64>>,
}

/// Why a link could not be made or read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShareError {
    /// Even the newest run alone does not fit (a very long label or prompt).
    TooLarge {
        /// The fragment's length.
        bytes: usize,
        /// [`MAX_FRAGMENT_BYTES`].
        max: usize,
    },
    /// No run to share.
    NoRuns,
    /// Not a share link.
    NotAShareLink,
    /// The fragment is longer than any link we make.
    LinkTooLong {
        /// Its length.
        bytes: usize,
        /// [`MAX_FRAGMENT_BYTES`].
        max: usize,
    },
    /// Not base64url, or not our format, or cut short (often a link cut by the tool it was
    /// pasted into).
    Damaged {
        /// What failed.
        detail: String,
    },
    /// Valid container, but the data is not what TTFT Meter writes.
    Invalid {
        /// What was wrong.
        detail: String,
    },
}

impl ShareError {
    /// The message in the user's language.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            ShareError::TooLarge { bytes, max } => {
                t::SHARE_ERROR_TOO_LARGE.fill(lang, &[("bytes", bytes), ("max", max)])
            }
            ShareError::NoRuns => t::SHARE_ERROR_NO_RUNS.get(lang).to_owned(),
            ShareError::NotAShareLink => t::SHARE_ERROR_NOT_A_SHARE_LINK.get(lang).to_owned(),
            ShareError::LinkTooLong { bytes, max } => {
                t::SHARE_ERROR_LINK_TOO_LONG.fill(lang, &[("bytes", bytes), ("max", max)])
            }
            ShareError::Damaged { detail } => {
                t::SHARE_ERROR_DAMAGED.fill(lang, &[("detail", detail)])
            }
            ShareError::Invalid { detail } => {
                t::SHARE_ERROR_INVALID.fill(lang, &[("detail", detail)])
            }
        }
    }
}

impl fmt::Display for ShareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for ShareError {}

/// A time rounded to 0.1 ms (what a link keeps; well under any timer's real precision for
/// what a person waits); `None` for what is not a time (NaN, negative, over a day).
fn tenth(value: Option<f64>) -> Option<f64> {
    value
        .map(|value| (value * 10.0).round() / 10.0)
        .filter(|value| (0.0..=MAX_TIME_MS).contains(value))
}

/// Index of `value` in `table`, adding it when new.
fn intern(table: &mut Vec<String>, value: &str) -> u16 {
    match table.iter().position(|known| known == value) {
        Some(index) => index as u16,
        None => {
            table.push(value.to_owned());
            (table.len() - 1) as u16
        }
    }
}

/// `text` with control characters (but line breaks and tabs) made spaces, cut to at most
/// `max_bytes` bytes at a character boundary.
fn cut(text: &str, max_bytes: usize) -> String {
    let clean: String = text
        .chars()
        .map(|c| {
            if c.is_control() && c != '\n' && c != '\t' {
                ' '
            } else {
                c
            }
        })
        .collect();
    prefix_within(&clean, max_bytes).to_owned()
}

impl SharedResults {
    /// The results as the link will carry them: times rounded to 0.1 ms, strings cut to
    /// their limits. Decoding a link gives exactly this.
    pub fn normalized(&self) -> SharedResults {
        let fact = |value: &Option<String>| value.as_deref().map(|v| cut(v, MAX_FACT_BYTES));
        SharedResults {
            tool_version: cut(&self.tool_version, MAX_FACT_BYTES),
            created_at: cut(&self.created_at, MAX_FACT_BYTES),
            host: fact(&self.host),
            model: fact(&self.model),
            protocol: fact(&self.protocol),
            environment: fact(&self.environment),
            slo: fact(&self.slo),
            prompt: self
                .prompt
                .as_deref()
                .map(|prompt| cut(prompt, MAX_SHARED_PROMPT_BYTES)),
            runs: self
                .runs
                .iter()
                .map(|run| SharedRun {
                    label: run.label.as_deref().map(|v| cut(v, MAX_LABEL_BYTES)),
                    cohort: run.cohort.as_deref().map(|v| cut(v, MAX_LABEL_BYTES)),
                    outcome: cut(&run.outcome, MAX_LABEL_BYTES),
                    ttft_ms: tenth(run.ttft_ms),
                    ttfa_ms: tenth(run.ttfa_ms),
                    ttfr_ms: tenth(run.ttfr_ms),
                    perceived_ttfa_ms: tenth(run.perceived_ttfa_ms),
                    first_chunk_ms: tenth(run.first_chunk_ms),
                    e2e_ms: tenth(run.e2e_ms),
                    itl_ms: tenth(run.itl_ms),
                    ..run.clone()
                })
                .collect(),
        }
    }

    fn to_wire(&self) -> Wire {
        let normalized = self.normalized();
        let mut cohorts = Vec::new();
        let mut outcomes = Vec::new();
        let runs = &normalized.runs;
        let column = |get: fn(&SharedRun) -> Option<f64>| runs.iter().map(get).collect();
        Wire {
            tool: normalized.tool_version.clone(),
            at: normalized.created_at.clone(),
            host: normalized.host.clone(),
            model: normalized.model.clone(),
            protocol: normalized.protocol.clone(),
            env: normalized.environment.clone(),
            slo: normalized.slo.clone(),
            prompt: normalized.prompt.clone(),
            index: runs.iter().map(|run| run.run_index).collect(),
            label: runs.iter().map(|run| run.label.clone()).collect(),
            cohort: runs
                .iter()
                .map(|run| run.cohort.as_deref().map(|c| intern(&mut cohorts, c)))
                .collect(),
            outcome: runs
                .iter()
                .map(|run| intern(&mut outcomes, &run.outcome))
                .collect(),
            cold: runs.iter().map(|run| run.cold).collect(),
            http: runs.iter().map(|run| run.http_protocol).collect(),
            ttft: column(|run| run.ttft_ms),
            ttfa: column(|run| run.ttfa_ms),
            ttfr: column(|run| run.ttfr_ms),
            perceived_ttfa: column(|run| run.perceived_ttfa_ms),
            first_chunk: column(|run| run.first_chunk_ms),
            e2e: column(|run| run.e2e_ms),
            itl: column(|run| run.itl_ms),
            cohorts,
            outcomes,
        }
    }
}

fn invalid(detail: impl Into<String>) -> ShareError {
    ShareError::Invalid {
        detail: detail.into(),
    }
}

fn check_text(what: &str, text: &str, max: usize) -> Result<(), ShareError> {
    if text.len() > max {
        return Err(invalid(format!("{what} is longer than {max} bytes")));
    }
    if text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(invalid(format!("{what} has control characters")));
    }
    Ok(())
}

impl Wire {
    /// Every bound checked, then the runs put back together.
    fn into_results(self) -> Result<SharedResults, ShareError> {
        let count = self.index.len();
        if count > MAX_SHARED_RUNS {
            return Err(invalid(format!(
                "{count} runs, more than {MAX_SHARED_RUNS}"
            )));
        }
        let lengths = [
            ("label", self.label.len()),
            ("cohort", self.cohort.len()),
            ("outcome", self.outcome.len()),
            ("cold", self.cold.len()),
            ("http", self.http.len()),
            ("ttft", self.ttft.len()),
            ("ttfa", self.ttfa.len()),
            ("ttfr", self.ttfr.len()),
            ("perceived_ttfa", self.perceived_ttfa.len()),
            ("first_chunk", self.first_chunk.len()),
            ("e2e", self.e2e.len()),
            ("itl", self.itl.len()),
        ];
        if let Some((name, length)) = lengths.iter().find(|(_, length)| *length != count) {
            return Err(invalid(format!(
                "column {name} has {length} values for {count} runs"
            )));
        }
        if self.cohorts.len() > MAX_COHORTS || self.outcomes.len() > MAX_COHORTS {
            return Err(invalid("too many cohorts or outcomes"));
        }
        for (what, text) in [("the tool version", &self.tool), ("the date", &self.at)] {
            check_text(what, text, MAX_FACT_BYTES)?;
        }
        for (what, text) in [
            ("the host", &self.host),
            ("the model", &self.model),
            ("the protocol", &self.protocol),
            ("the environment", &self.env),
            ("the SLO", &self.slo),
        ] {
            if let Some(text) = text {
                check_text(what, text, MAX_FACT_BYTES)?;
            }
        }
        if let Some(prompt) = &self.prompt {
            check_text("the prompt", prompt, MAX_SHARED_PROMPT_BYTES)?;
        }
        for name in self.cohorts.iter().chain(&self.outcomes) {
            check_text("a cohort or outcome", name, MAX_LABEL_BYTES)?;
        }
        for label in self.label.iter().flatten() {
            check_text("a label", label, MAX_LABEL_BYTES)?;
        }
        let columns = [
            &self.ttft,
            &self.ttfa,
            &self.ttfr,
            &self.perceived_ttfa,
            &self.first_chunk,
            &self.e2e,
            &self.itl,
        ];
        for value in columns.iter().flat_map(|column| column.iter().flatten()) {
            if !value.is_finite() || !(0.0..=MAX_TIME_MS).contains(value) {
                return Err(invalid(format!("{value} is not a time in ms")));
            }
        }
        let lookup = |table: &[String], index: u16| -> Result<String, ShareError> {
            table
                .get(usize::from(index))
                .cloned()
                .ok_or_else(|| invalid(format!("index {index} is outside its table")))
        };
        let mut runs = Vec::with_capacity(count);
        for i in 0..count {
            runs.push(SharedRun {
                run_index: self.index[i],
                label: self.label[i].clone(),
                cohort: self.cohort[i]
                    .map(|index| lookup(&self.cohorts, index))
                    .transpose()?,
                outcome: lookup(&self.outcomes, self.outcome[i])?,
                cold: self.cold[i],
                http_protocol: self.http[i],
                ttft_ms: self.ttft[i],
                ttfa_ms: self.ttfa[i],
                ttfr_ms: self.ttfr[i],
                perceived_ttfa_ms: self.perceived_ttfa[i],
                first_chunk_ms: self.first_chunk[i],
                e2e_ms: self.e2e[i],
                itl_ms: self.itl[i],
            });
        }
        Ok(SharedResults {
            tool_version: self.tool,
            created_at: self.at,
            host: self.host,
            model: self.model,
            protocol: self.protocol,
            environment: self.env,
            slo: self.slo,
            prompt: self.prompt,
            runs,
        })
    }
}

/// What the page adds to the runs of a link: facts only it knows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ShareFacts {
    /// The TTFT Meter version.
    pub tool_version: String,
    /// Now, ISO 8601 UTC.
    pub created_at: String,
    /// `navigator.userAgent`, for the environment label.
    pub user_agent: String,
    /// `navigator.connection.effectiveType`, where the browser has it.
    pub effective_type: Option<String>,
    /// The SLO set's text form, if one is set.
    pub slo: Option<String>,
    /// The prompt, only when the user chose to include it.
    pub prompt: Option<String>,
}

/// `Chrome 156 · 4g`: the browser and its major version (from the user agent), and the
/// network's effective type when known; `None` when neither is known.
fn environment_label(user_agent: &str, effective_type: Option<&str>) -> Option<String> {
    let browser = crate::otlp::browser_from_user_agent(user_agent).map(|browser| {
        let major = browser.version.split('.').next().unwrap_or_default();
        format!("{} {major}", browser.name).trim().to_owned()
    });
    let parts: Vec<String> = browser
        .into_iter()
        .chain(effective_type.map(str::to_owned))
        .filter(|part| !part.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join(" · "))
}

impl SharedResults {
    /// The results of a session's runs, oldest first (warm-ups left out: they measure
    /// nothing), with the endpoint's host and port, model and protocol of the newest run.
    /// Never the key, headers, body, answer or the endpoint's path.
    pub fn from_records(records: &[RunRecord], facts: ShareFacts) -> SharedResults {
        let newest = records.iter().rev().find(|record| !record.warm_up);
        let host = newest.and_then(|record| {
            let server = crate::otlp::ServerAddress::from_url(&record.settings.endpoint_url)?;
            let default_port = if server.scheme == "https" { 443 } else { 80 };
            let host = if server.host.contains(':') {
                format!("[{}]", server.host)
            } else {
                server.host
            };
            Some(if server.port == default_port {
                host
            } else {
                format!("{host}:{}", server.port)
            })
        });
        SharedResults {
            tool_version: facts.tool_version,
            created_at: facts.created_at,
            host,
            model: newest.map(|record| record.settings.model.clone()),
            protocol: newest.map(|record| record.settings.protocol.code().to_owned()),
            environment: environment_label(&facts.user_agent, facts.effective_type.as_deref()),
            slo: facts.slo,
            prompt: facts.prompt,
            runs: records
                .iter()
                .filter(|record| !record.warm_up)
                .map(SharedRun::from_record)
                .collect(),
        }
    }

    /// The runs that enter statistics: successful ones (as the page's own summary counts).
    pub fn counted_runs(&self) -> impl Iterator<Item = &SharedRun> {
        self.runs.iter().filter(|run| run.is_ok())
    }

    /// Statistics of the metric named `name` (one of
    /// [`shared_metrics`](ttft_core::metric::shared_metrics)) over the successful runs;
    /// `None` when none measured it.
    pub fn summary(&self, name: &str) -> Option<Summary> {
        let samples: Vec<f64> = self
            .counted_runs()
            .filter_map(|run| run.metric(name))
            .collect();
        Summary::from_samples(&samples).ok().flatten()
    }
}

impl SharedRun {
    /// The value of the metric named `name`, for the metrics a link carries
    /// ([`shared_metrics`](ttft_core::metric::shared_metrics)); `None` when not measured or
    /// not carried.
    pub fn metric(&self, name: &str) -> Option<f64> {
        match name {
            "ttft_ms" => self.ttft_ms,
            "ttfa_ms" => self.ttfa_ms,
            "ttfr_ms" => self.ttfr_ms,
            "perceived_ttfa_ms" => self.perceived_ttfa_ms,
            "first_chunk_ms" => self.first_chunk_ms,
            "e2e_ms" => self.e2e_ms,
            "itl_ms" => self.itl_ms,
            _ => None,
        }
    }

    /// Whether the run measured what it set out to (completed, or stopped after its first
    /// answer token in "TTFT only" mode), from its outcome code.
    pub fn is_ok(&self) -> bool {
        matches!(
            self.outcome.as_str(),
            "completed" | "stopped_after_first_answer"
        )
    }
}

/// The fragment (without `#`) for `results`; refuses more than [`MAX_SHARED_RUNS`] runs and
/// a fragment over [`MAX_FRAGMENT_BYTES`] (see [`encode_fitting`]).
pub fn encode(results: &SharedResults) -> Result<String, ShareError> {
    if results.runs.is_empty() {
        return Err(ShareError::NoRuns);
    }
    if results.runs.len() > MAX_SHARED_RUNS {
        return Err(ShareError::TooLarge {
            bytes: usize::MAX,
            max: MAX_FRAGMENT_BYTES,
        });
    }
    let wire = results.to_wire();
    // A link that could not be read back is never made (too many cohorts, say).
    wire.clone().into_results()?;
    let fragment = format!(
        "{FRAGMENT_PREFIX}{}",
        URL_SAFE_NO_PAD.encode(codec::write(&wire))
    );
    if fragment.len() > MAX_FRAGMENT_BYTES {
        return Err(ShareError::TooLarge {
            bytes: fragment.len(),
            max: MAX_FRAGMENT_BYTES,
        });
    }
    Ok(fragment)
}

/// The fragment for the newest runs that fit in `max_fragment_bytes` (at most
/// [`MAX_FRAGMENT_BYTES`]; a host that knows its links must be shorter passes less), and how
/// many runs it holds (all of them when they fit). Fewer runs only ever make a shorter link,
/// so the count is found by bisection.
pub fn encode_fitting(
    results: &SharedResults,
    max_fragment_bytes: usize,
) -> Result<(String, usize), ShareError> {
    let max = max_fragment_bytes.min(MAX_FRAGMENT_BYTES);
    let total = results.runs.len();
    let newest = |count: usize| SharedResults {
        runs: results.runs[total - count..].to_vec(),
        ..results.clone()
    };
    let fits = |count: usize| -> Result<Option<String>, ShareError> {
        match encode(&newest(count)) {
            Ok(fragment) if fragment.len() <= max => Ok(Some(fragment)),
            Ok(_) | Err(ShareError::TooLarge { .. }) => Ok(None),
            Err(other) => Err(other),
        }
    };
    let first_try = total.min(MAX_SHARED_RUNS);
    if let Some(fragment) = fits(first_try)? {
        return Ok((fragment, first_try));
    }
    // `low` runs fit (or `low` is 0), `high` runs do not.
    let (mut low, mut high) = (0, first_try);
    let mut best = None;
    while high - low > 1 {
        let middle = low + (high - low) / 2;
        match fits(middle)? {
            Some(fragment) => {
                low = middle;
                best = Some(fragment);
            }
            None => high = middle,
        }
    }
    match best {
        Some(fragment) => Ok((fragment, low)),
        None => Err(ShareError::TooLarge {
            bytes: encode(&newest(1)).map_or(usize::MAX, |fragment| fragment.len()),
            max,
        }),
    }
}

/// Reads a fragment (with or without `#`; other `&`-separated parameters around it are
/// ignored). Every bound of the module documentation is checked before and while reading.
pub fn decode(fragment: &str) -> Result<SharedResults, ShareError> {
    if fragment.len() > MAX_FRAGMENT_BYTES + 1 {
        return Err(ShareError::LinkTooLong {
            bytes: fragment.len(),
            max: MAX_FRAGMENT_BYTES,
        });
    }
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    let data = fragment
        .split('&')
        .find_map(|part| part.strip_prefix(FRAGMENT_PREFIX))
        .ok_or(ShareError::NotAShareLink)?;
    let bytes = URL_SAFE_NO_PAD
        .decode(data.trim_end())
        .map_err(|error| ShareError::Damaged {
            detail: format!("not base64url: {error}"),
        })?;
    let wire = codec::read(&bytes).map_err(|detail| ShareError::Damaged { detail })?;
    wire.into_results()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs with realistic jitter: a small linear congruential generator (deterministic),
    /// times with 0.1 ms steps spread over hundreds of ms as real runs are.
    pub(super) fn sample(runs: usize) -> SharedResults {
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |spread: f64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) as f64 / (1u64 << 31) as f64 * spread * 10.0).round() / 10.0
        };
        SharedResults {
            tool_version: "0.1.0".into(),
            created_at: "2026-11-29T16:45:10.123Z".into(),
            host: Some("api.openai.com".into()),
            model: Some("gpt-4o-mini".into()),
            protocol: Some("open_ai_chat".into()),
            environment: Some("Chrome 156 · 4g".into()),
            slo: Some("ttfa_ms<=800".into()),
            prompt: None,
            runs: (0..runs)
                .map(|i| {
                    let ttft = 180.0 + next(600.0);
                    SharedRun {
                        run_index: i as u32 + 1,
                        label: None,
                        cohort: Some(if i == 0 { "cold" } else { "warm" }.into()),
                        outcome: "completed".into(),
                        cold: Some(i == 0),
                        http_protocol: Some(HttpProtocol::H2),
                        ttft_ms: Some(ttft + 0.04),
                        ttfa_ms: Some(ttft),
                        ttfr_ms: None,
                        perceived_ttfa_ms: Some(ttft + 8.0 + next(30.0)),
                        first_chunk_ms: Some(60.0 + next(40.0)),
                        e2e_ms: Some(ttft + 400.0 + next(300.0)),
                        itl_ms: Some(15.0 + next(10.0)),
                    }
                })
                .collect(),
        }
    }

    fn record(run_index: u32, warm_up: bool, ttfa_ms: f64, ok: bool) -> RunRecord {
        use ttft_core::protocol::Protocol;
        use ttft_core::record::{RunSettings, Transport};
        use ttft_core::timeline::RunTimeline;
        let mut timeline = RunTimeline::new(Some(995.0), 1000.0);
        timeline.on_headers(1080.0, if ok { 200 } else { 500 });
        if ok {
            let answer = ttft_stream::dialect::DecodedEvent {
                answer: "Hi".into(),
                terminal: true,
                ..Default::default()
            };
            timeline.on_event(1000.0 + ttfa_ms, &answer);
        }
        timeline.on_stream_end(1000.0 + ttfa_ms + 50.0);
        RunRecord {
            run_index,
            started_at: String::new(),
            settings: RunSettings {
                protocol: Protocol::OpenAiChat,
                endpoint_url: "https://api.example.com:8443/v1/chat/completions?key=secret".into(),
                model: "gpt-x".into(),
                dialect: None,
                max_tokens: None,
                ttft_only: false,
                reasoning: false,
                request: None,
            },
            transport: Transport::Worker,
            cold: Some(run_index == 1),
            connection_evidence: None,
            warm_up,
            metrics: timeline.metrics(),
            instants: timeline.instants.clone(),
            usage: None,
            network: None,
            outcome: timeline.outcome.clone(),
            diagnosis_cause: None,
            diagnosis: None,
            experiment: None,
            arrival_delay_bound_ms: None,
            arrivals_wait_for_main_thread: None,
            main_thread_stall_ms: None,
            server_account: None,
            breakdown: None,
            timer: None,
            relay: None,
            buffered_arrival: None,
        }
    }

    #[test]
    fn results_of_a_session_leave_out_warm_ups_and_keep_only_host_and_port() {
        let records = [
            record(1, true, 500.0, true),
            record(2, false, 200.0, true),
            record(3, false, 300.0, true),
            record(4, false, 0.0, false),
        ];
        let facts = ShareFacts {
            tool_version: "0.1.0".into(),
            created_at: "2026-01-01T00:00:00.000Z".into(),
            user_agent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.7390.54 Safari/537.36".into(),
            effective_type: Some("4g".into()),
            slo: Some("ttfa_ms<=250".into()),
            prompt: None,
        };
        let results = SharedResults::from_records(&records, facts);
        assert_eq!(results.host.as_deref(), Some("api.example.com:8443"));
        assert_eq!(results.model.as_deref(), Some("gpt-x"));
        assert_eq!(results.protocol.as_deref(), Some("chat"));
        assert_eq!(results.environment.as_deref(), Some("Chrome 156 · 4g"));
        assert_eq!(
            results
                .runs
                .iter()
                .map(|run| run.run_index)
                .collect::<Vec<_>>(),
            vec![2, 3, 4]
        );
        let text = format!("{results:?}");
        assert!(!text.contains("secret") && !text.contains("/v1"));
        // Statistics over the successful runs only, as the page's own summary.
        let ttfa = results.summary("ttfa_ms").unwrap();
        assert_eq!((ttfa.count, ttfa.min, ttfa.max), (2, 200.0, 300.0));
        let decoded = decode(&encode(&results).unwrap()).unwrap();
        assert_eq!(decoded.summary("ttfa_ms"), Some(ttfa));
        // Every metric the catalogue says a link carries is read from a shared run.
        let run = &decoded.runs[0];
        for metric in ttft_core::metric::shared_metrics() {
            let expected = ttft_core::metric::find(metric.name)
                .and_then(|catalogued| catalogued.read(&records[1]).number());
            assert_eq!(run.metric(metric.name), expected, "{}", metric.name);
        }
    }

    #[test]
    fn environment_labels_name_the_browser_and_network() {
        assert_eq!(
            environment_label(
                "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
                None
            )
            .as_deref(),
            Some("Firefox 128")
        );
        assert_eq!(
            environment_label("curl/8", Some("3g")).as_deref(),
            Some("3g")
        );
        assert_eq!(environment_label("curl/8", None), None);
    }

    #[test]
    fn a_link_reads_back_as_the_normalized_results() {
        let results = sample(30);
        let fragment = encode(&results).unwrap();
        assert!(fragment.starts_with(FRAGMENT_PREFIX));
        assert!(fragment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_=.".contains(&b)));
        let decoded = decode(&format!("#{fragment}")).unwrap();
        assert_eq!(decoded, results.normalized());
        let ttft = decoded.runs[0].ttft_ms.unwrap();
        assert_eq!(ttft, (ttft * 10.0).round() / 10.0, "rounded to 0.1 ms");
    }

    #[test]
    fn too_many_runs_keep_the_newest_that_fit() {
        let results = sample(MAX_SHARED_RUNS);
        assert!(matches!(encode(&results), Err(ShareError::TooLarge { .. })));
        let (fragment, kept) = encode_fitting(&results, MAX_FRAGMENT_BYTES).unwrap();
        assert!(fragment.len() <= MAX_FRAGMENT_BYTES);
        // Measured: 873 runs of realistic jitter (six timings each) in 16 KiB.
        assert!((600..1200).contains(&kept), "{kept}");
        let (short, kept_short) = encode_fitting(&results, 2000).unwrap();
        assert!(short.len() <= 2000 && kept_short < kept, "{kept_short}");
        let decoded = decode(&fragment).unwrap();
        assert_eq!(decoded.runs.len(), kept);
        assert_eq!(
            decoded.runs.last().map(|run| run.run_index),
            Some(MAX_SHARED_RUNS as u32),
            "the newest run is kept"
        );
        let one_more = SharedResults {
            runs: results.runs[MAX_SHARED_RUNS - kept - 1..].to_vec(),
            ..results.clone()
        };
        assert!(encode(&one_more).is_err(), "{kept} is the most that fit");
    }

    #[test]
    fn a_link_announcing_more_than_it_holds_is_refused_before_anything_is_made() {
        // Version, two empty strings, no facts, no tables, then "4,000,000,000 runs".
        let mut bytes = vec![1, 0, 0, 0, 0, 0];
        bytes.extend([0x80, 0xd0, 0xac, 0xf3, 0x0e]);
        let fragment = format!("{FRAGMENT_PREFIX}{}", URL_SAFE_NO_PAD.encode(&bytes));
        let error = decode(&fragment).unwrap_err();
        assert!(
            error.to_string().contains("announces 4000000000 items"),
            "{error}"
        );
    }

    #[test]
    fn links_of_format_1_still_open_without_the_http_version() {
        let results = sample(3);
        assert!(results.runs.iter().all(|run| run.http_protocol.is_some()));
        let link = |bytes: &[u8]| format!("{FRAGMENT_PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes));
        // Times come back rounded to 0.1 ms: compare with the current format's reading.
        let current = decode(&link(&codec::write(&results.to_wire()))).unwrap();
        assert!(current
            .runs
            .iter()
            .all(|run| run.http_protocol == Some(HttpProtocol::H2)));
        let old = decode(&link(&codec::write_format(&results.to_wire(), 1))).unwrap();
        let mut expected = current.clone();
        for run in &mut expected.runs {
            run.http_protocol = None;
        }
        assert_eq!(old, expected);
    }

    #[test]
    fn damaged_and_foreign_links_are_refused_with_a_reason() {
        let fragment = encode(&sample(5)).unwrap();
        assert_eq!(decode("#lang=zh"), Err(ShareError::NotAShareLink));
        assert!(matches!(
            decode(&fragment[..fragment.len() - 7]),
            Err(ShareError::Damaged { .. })
        ));
        assert!(matches!(
            decode(&format!("{FRAGMENT_PREFIX}!!!")),
            Err(ShareError::Damaged { .. })
        ));
        assert!(matches!(
            decode(&"a".repeat(MAX_FRAGMENT_BYTES + 10)),
            Err(ShareError::LinkTooLong { .. })
        ));
        let edited = |edit: fn(&mut Wire)| {
            let mut wire = sample(2).to_wire();
            edit(&mut wire);
            decode(&format!(
                "{FRAGMENT_PREFIX}{}",
                URL_SAFE_NO_PAD.encode(codec::write(&wire))
            ))
        };
        assert!(edited(|wire| wire.ttft[0] = Some(-5.0))
            .unwrap_err()
            .to_string()
            .contains("not a time"));
        assert!(edited(|wire| {
            wire.ttfa.pop();
        })
        .unwrap_err()
        .to_string()
        .contains("ends too early"));
        assert!(edited(|wire| wire.outcome[0] = 7)
            .unwrap_err()
            .to_string()
            .contains("outside its table"));
        assert!(edited(|wire| wire.label[0] = Some("x".repeat(65)))
            .unwrap_err()
            .to_string()
            .contains("longer than 64"));
        let mut bytes = codec::write(&sample(1).to_wire());
        bytes.push(0);
        assert!(decode(&format!(
            "{FRAGMENT_PREFIX}{}",
            URL_SAFE_NO_PAD.encode(&bytes)
        ))
        .unwrap_err()
        .to_string()
        .contains("left over"));
        bytes[0] = 3;
        assert!(decode(&format!(
            "{FRAGMENT_PREFIX}{}",
            URL_SAFE_NO_PAD.encode(&bytes)
        ))
        .unwrap_err()
        .to_string()
        .contains("format 3"));
        for error in [ShareError::NoRuns, ShareError::NotAShareLink] {
            assert!(!error.message(Lang::Zh).is_empty());
        }
    }
}
