//! The widget's state: what the user set, the live run, and the session's finished runs.
//! Plain data and signals; no measuring here.

use leptos::prelude::*;
use ttft_core::chart::{run_phases, PhaseSpan};
use ttft_core::export::cold_from_connection;
use ttft_core::protocol::Protocol;
use ttft_core::stats::Summary;
use ttft_core::timeline::{RunMetrics, RunOutcome, RunsSummary};

use crate::run::{RunRecord, RunSettings, ShownDiagnosis};

/// A base-URL template for a kind of server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// Stable id (also the `preset` URL parameter later).
    pub id: &'static str,
    /// Shown name.
    pub name: &'static str,
    /// Base URL; `{origin}` is this page's origin (the bundled simulator).
    pub base_url: &'static str,
    /// The protocol it speaks.
    pub protocol: Protocol,
    /// A model to start from (empty: pick or type one).
    pub model: &'static str,
}

/// Local servers, gateways and the bundled simulator. Ports are each server's default.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "sim",
        name: "ttft-sim (bundled simulator)",
        base_url: "{origin}/v1",
        protocol: Protocol::OpenAiChat,
        model: "sim-reasoning",
    },
    Preset {
        id: "vllm",
        name: "vLLM (localhost:8000)",
        base_url: "http://localhost:8000/v1",
        protocol: Protocol::OpenAiChat,
        model: "",
    },
    Preset {
        id: "sglang",
        name: "SGLang (localhost:30000)",
        base_url: "http://localhost:30000/v1",
        protocol: Protocol::OpenAiChat,
        model: "",
    },
    Preset {
        id: "llamacpp",
        name: "llama.cpp server (localhost:8080)",
        base_url: "http://localhost:8080/v1",
        protocol: Protocol::OpenAiChat,
        model: "",
    },
    Preset {
        id: "ollama",
        name: "Ollama (localhost:11434)",
        base_url: "http://localhost:11434/v1",
        protocol: Protocol::OpenAiChat,
        model: "",
    },
    Preset {
        id: "litellm",
        name: "LiteLLM proxy (localhost:4000)",
        base_url: "http://localhost:4000/v1",
        protocol: Protocol::OpenAiChat,
        model: "",
    },
    Preset {
        id: "openai",
        name: "OpenAI",
        base_url: "https://api.openai.com/v1",
        protocol: Protocol::OpenAiChat,
        model: "gpt-4o-mini",
    },
    Preset {
        id: "openai-responses",
        name: "OpenAI Responses API",
        base_url: "https://api.openai.com/v1",
        protocol: Protocol::OpenAiResponses,
        model: "gpt-5-mini",
    },
    Preset {
        id: "openrouter",
        name: "OpenRouter",
        base_url: "https://openrouter.ai/api/v1",
        protocol: Protocol::OpenAiChat,
        model: "",
    },
    Preset {
        id: "deepseek",
        name: "DeepSeek",
        base_url: "https://api.deepseek.com/v1",
        protocol: Protocol::OpenAiChat,
        model: "deepseek-chat",
    },
    Preset {
        id: "anthropic",
        name: "Anthropic",
        base_url: "https://api.anthropic.com/v1",
        protocol: Protocol::AnthropicMessages,
        model: "claude-sonnet-4-5",
    },
];

/// This page's origin, for the simulator preset.
pub fn page_origin() -> String {
    web_sys::window()
        .and_then(|window| window.location().origin().ok())
        .unwrap_or_else(|| "http://127.0.0.1:8787".into())
}

impl Preset {
    /// The base URL with `{origin}` filled in.
    pub fn resolved_base_url(&self) -> String {
        self.base_url.replace("{origin}", &page_origin())
    }
}

/// Which protocol the form asks for; `Auto` infers it from the base URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProtocolChoice {
    /// Infer from the URL: `anthropic` in the host → Anthropic, a `/responses` path →
    /// Responses, else Chat Completions. The stream dialect is always detected.
    Auto,
    /// A fixed protocol.
    Fixed(Protocol),
}

impl ProtocolChoice {
    /// The protocol to use for `base_url`.
    pub fn resolve(self, base_url: &str) -> Protocol {
        match self {
            ProtocolChoice::Fixed(protocol) => protocol,
            ProtocolChoice::Auto => {
                let lower = base_url.to_ascii_lowercase();
                if lower.contains("anthropic") || lower.trim_end_matches('/').ends_with("/messages")
                {
                    Protocol::AnthropicMessages
                } else if lower.trim_end_matches('/').ends_with("/responses") {
                    Protocol::OpenAiResponses
                } else {
                    Protocol::OpenAiChat
                }
            }
        }
    }

    /// The `<select>` value.
    pub fn value(self) -> &'static str {
        match self {
            ProtocolChoice::Auto => "auto",
            ProtocolChoice::Fixed(Protocol::OpenAiChat) => "chat",
            ProtocolChoice::Fixed(Protocol::AnthropicMessages) => "anthropic",
            ProtocolChoice::Fixed(Protocol::OpenAiResponses) => "responses",
        }
    }

    /// From a `<select>` value.
    pub fn from_value(value: &str) -> ProtocolChoice {
        match value {
            "chat" => ProtocolChoice::Fixed(Protocol::OpenAiChat),
            "anthropic" => ProtocolChoice::Fixed(Protocol::AnthropicMessages),
            "responses" => ProtocolChoice::Fixed(Protocol::OpenAiResponses),
            _ => ProtocolChoice::Auto,
        }
    }
}

/// What the form holds. The key is here only as typed; at rest it lives in sessionStorage.
#[derive(Clone, Copy)]
pub struct FormState {
    /// Protocol choice.
    pub protocol: RwSignal<ProtocolChoice>,
    /// Base URL as typed.
    pub base_url: RwSignal<String>,
    /// API key as typed.
    pub api_key: RwSignal<String>,
    /// Model name.
    pub model: RwSignal<String>,
    /// Models listed by the endpoint's `/models`, if it answered.
    pub listed_models: RwSignal<Vec<String>>,
    /// Prompt.
    pub prompt: RwSignal<String>,
    /// Output limit (empty: the server's default; Anthropic needs one, 1024 is used).
    pub max_tokens: RwSignal<String>,
    /// Ask for reasoning where the protocol has a switch.
    pub reasoning: RwSignal<bool>,
    /// Per-run timeout in seconds.
    pub timeout_s: RwSignal<String>,
    /// Measured runs.
    pub run_count: RwSignal<String>,
    /// Run one unmeasured warm-up first (opens the connection, fills caches).
    pub warmup: RwSignal<bool>,
    /// Abort each run right after its first answer token.
    pub ttft_only: RwSignal<bool>,
}

/// Bounds of the run count, so a typo cannot start ten thousand requests.
pub const MAX_RUNS: u32 = 200;

impl FormState {
    /// The form with the bundled simulator as its working default.
    pub fn new(api_key: String) -> Self {
        let simulator = PRESETS[0];
        FormState {
            protocol: RwSignal::new(ProtocolChoice::Auto),
            base_url: RwSignal::new(simulator.resolved_base_url()),
            api_key: RwSignal::new(api_key),
            model: RwSignal::new(simulator.model.into()),
            listed_models: RwSignal::new(Vec::new()),
            prompt: RwSignal::new("Why is the sky blue? Answer in two sentences.".into()),
            max_tokens: RwSignal::new(String::new()),
            reasoning: RwSignal::new(false),
            timeout_s: RwSignal::new("120".into()),
            run_count: RwSignal::new("1".into()),
            warmup: RwSignal::new(false),
            ttft_only: RwSignal::new(false),
        }
    }

    /// Applies a preset (base URL, protocol, model).
    pub fn apply_preset(&self, preset: &Preset) {
        self.base_url.set(preset.resolved_base_url());
        self.protocol.set(ProtocolChoice::Fixed(preset.protocol));
        if !preset.model.is_empty() {
            self.model.set(preset.model.into());
        }
        self.listed_models.set(Vec::new());
    }

    /// Reads the form into run settings, or says which field is wrong (en, zh).
    pub fn settings(
        &self,
        lang: ttft_core::lang::Lang,
    ) -> Result<(RunSettings, u32), (String, String)> {
        let base_url = self.base_url.get_untracked();
        let protocol = self.protocol.get_untracked().resolve(&base_url);
        let max_tokens = parse_optional_count(&self.max_tokens.get_untracked(), 1, 1_000_000)
            .map_err(|shown| {
                (
                    format!("max_tokens: {shown}"),
                    format!("max_tokens：{shown}"),
                )
            })?;
        let timeout_s = parse_optional_count(&self.timeout_s.get_untracked(), 1, 3_600)
            .map_err(|shown| {
                (
                    format!("Timeout (s): {shown}"),
                    format!("超时（秒）：{shown}"),
                )
            })?
            .unwrap_or(120);
        let run_count = parse_optional_count(&self.run_count.get_untracked(), 1, MAX_RUNS)
            .map_err(|shown| (format!("Runs: {shown}"), format!("运行次数：{shown}")))?
            .unwrap_or(1);
        let settings = RunSettings {
            protocol,
            dialect: None,
            base_url,
            api_key: self.api_key.get_untracked(),
            model: self.model.get_untracked(),
            prompt: self.prompt.get_untracked(),
            max_output_tokens: max_tokens,
            reasoning: self.reasoning.get_untracked(),
            timeout_ms: f64::from(timeout_s) * 1000.0,
            ttft_only: self.ttft_only.get_untracked(),
            lang,
        };
        Ok((settings, run_count))
    }
}

/// A whole number in `[min, max]`, or nothing when empty; the error quotes the input.
fn parse_optional_count(text: &str, min: u32, max: u32) -> Result<Option<u32>, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(None);
    }
    match trimmed.parse::<u32>() {
        Ok(value) if (min..=max).contains(&value) => Ok(Some(value)),
        _ => Err(format!(
            "\"{trimmed}\" is not a whole number from {min} to {max}"
        )),
    }
}

/// One finished run of the session.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEntry {
    /// 1-based, in the order runs were made (warm-ups included).
    pub number: usize,
    /// An unmeasured warm-up (left out of summaries and charts).
    pub warmup: bool,
    /// Model name, as sent.
    pub model: String,
    /// What the run measured.
    pub record: RunRecord,
}

impl RunEntry {
    /// Whether the run ended as planned (completed, or stopped after its first answer token).
    pub fn succeeded(&self) -> bool {
        matches!(
            self.record.outcome,
            RunOutcome::Completed | RunOutcome::StoppedAfterFirstAnswer
        )
    }

    /// `Some(true)` on a new connection, `Some(false)` on a reused one, `None` if unknown.
    pub fn cold(&self) -> Option<bool> {
        self.record
            .network
            .as_ref()
            .and_then(|network| cold_from_connection(network.connection))
    }

    /// The waterfall phases of this run.
    pub fn phases(&self) -> Vec<PhaseSpan> {
        run_phases(&self.record.instants, self.record.network.as_ref())
    }

    /// The diagnosis, if the run failed.
    pub fn diagnosis(&self) -> Option<&ShownDiagnosis> {
        self.record.diagnosis.as_ref()
    }
}

/// The session's finished runs and which one is selected. Provided as context.
#[derive(Clone, Copy)]
pub struct Session {
    /// Every finished run, oldest first (a failed run is kept with its diagnosis).
    pub runs: RwSignal<Vec<RunEntry>>,
    /// The run whose details are shown.
    pub selected: RwSignal<Option<usize>>,
}

impl Session {
    /// An empty session.
    pub fn new() -> Self {
        Session {
            runs: RwSignal::new(Vec::new()),
            selected: RwSignal::new(None),
        }
    }

    /// Appends a finished run, numbered after the last one, and selects it.
    pub fn push(&self, warmup: bool, model: String, record: RunRecord) -> usize {
        let number = self
            .runs
            .with_untracked(|runs| runs.last().map_or(1, |last| last.number + 1));
        self.runs.update(|runs| {
            runs.push(RunEntry {
                number,
                warmup,
                model,
                record,
            })
        });
        self.selected.set(Some(number));
        number
    }
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

/// Which runs a summary covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cohort {
    /// Every measured, successful run.
    All,
    /// Runs on a new connection (paid DNS/TCP/TLS).
    Cold,
    /// Runs on a reused connection.
    Warm,
}

/// The metrics of the measured (not warm-up), successful runs of `cohort`.
pub fn cohort_metrics(runs: &[RunEntry], cohort: Cohort) -> Vec<&RunMetrics> {
    runs.iter()
        .filter(|entry| !entry.warmup && entry.succeeded())
        .filter(|entry| match cohort {
            Cohort::All => true,
            Cohort::Cold => entry.cold() == Some(true),
            Cohort::Warm => entry.cold() == Some(false),
        })
        .map(|entry| &entry.record.metrics)
        .collect()
}

/// The summary of a cohort (None when it has no runs or a value was not finite).
pub fn cohort_summary(runs: &[RunEntry], cohort: Cohort) -> Option<RunsSummary> {
    let metrics = cohort_metrics(runs, cohort);
    if metrics.is_empty() {
        return None;
    }
    RunsSummary::from_run_refs(&metrics).ok()
}

/// A summary's row for one metric: p50, p95, p99, min, max, mean, n.
pub fn summary_cells(summary: Option<&Summary>) -> [Option<f64>; 7] {
    match summary {
        Some(summary) => [
            Some(summary.p50),
            Some(summary.p95),
            Some(summary.p99),
            Some(summary.min),
            Some(summary.max),
            Some(summary.mean),
            Some(summary.count as f64),
        ],
        None => [None; 7],
    }
}
