//! What the form holds, as typed. The key is here only as typed; at rest it lives in
//! sessionStorage ([`crate::storage`]), and whether a request may carry it is the key gate's
//! decision ([`crate::key_gate`]). ttft-core parses the fields into a plan when Send is
//! pressed ([`FormState::series_with_key`]).

use leptos::prelude::*;
use ttft_core::config::UrlConfig;
use ttft_core::measure::{InputError, RunInput, SeriesInput, SeriesPlan};
use ttft_core::preset::{self, simulator_api_base, Preset, SIMULATOR};
use ttft_core::protocol::ProtocolChoice;

use crate::persist::page_origin;

/// The form's fields. Cheap to copy.
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
    /// Output limit as typed (empty: the server's default; Anthropic needs one, 1024 is used).
    pub max_tokens: RwSignal<String>,
    /// Ask for reasoning where the protocol has a switch.
    pub reasoning: RwSignal<bool>,
    /// Per-run timeout in seconds, as typed.
    pub timeout_s: RwSignal<String>,
    /// Measured runs, as typed.
    pub run_count: RwSignal<String>,
    /// Run one unmeasured warm-up first (opens the connection, fills caches).
    pub warmup: RwSignal<bool>,
    /// Abort each run right after its first answer token.
    pub ttft_only: RwSignal<bool>,
}

impl FormState {
    /// An empty endpoint: the page fills in the bundled simulator only once it knows its
    /// own origin is ttft-sim ([`FormState::use_simulator`]).
    pub fn new(api_key: String) -> Self {
        FormState {
            protocol: RwSignal::new(ProtocolChoice::Auto),
            base_url: RwSignal::new(String::new()),
            api_key: RwSignal::new(api_key),
            model: RwSignal::new(String::new()),
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

    /// Makes the simulator serving this page the endpoint (its API at `api_base` on the
    /// page's origin), where the URL or the user has not chosen one already.
    pub fn use_simulator(&self, api_base: &str) {
        if self.base_url.with_untracked(|url| url.trim().is_empty()) {
            self.base_url.set(format!("{}{api_base}", page_origin()));
            if self.model.with_untracked(|model| model.trim().is_empty()) {
                self.model.set(SIMULATOR.model.into());
            }
        }
    }

    /// Applies a preset (base URL, protocol, model).
    pub fn apply_preset(&self, preset: &Preset) {
        self.base_url.set(preset.base_url_for(&page_origin()));
        self.protocol.set(ProtocolChoice::Fixed(preset.protocol));
        if !preset.model.is_empty() {
            self.model.set(preset.model.into());
        }
        self.listed_models.set(Vec::new());
    }

    /// Puts the URL's endpoint settings into the form.
    pub fn apply_config(&self, config: &UrlConfig) {
        if let Some(preset) = config.preset.as_deref().and_then(preset::find) {
            self.apply_preset(preset);
        }
        if let Some(base_url) = &config.base_url {
            self.base_url.set(base_url.clone());
        }
        if let Some(protocol) = config.protocol {
            self.protocol.set(protocol);
        }
        if let Some(model) = &config.model {
            self.model.set(model.clone());
        }
        if let Some(prompt) = &config.prompt {
            self.prompt.set(prompt.clone());
        }
        if let Some(runs) = &config.runs {
            self.run_count.set(runs.clone());
        }
    }

    /// The form parsed into a series of runs sending `api_key` (the key gate's answer:
    /// `None` sends no key), or what is wrong with it. The key field is checked either way,
    /// so a key that cannot be sent is reported before anything is asked.
    pub fn series_with_key(&self, api_key: Option<&str>) -> Result<SeriesPlan, InputError> {
        ttft_core::request::ApiKey::parse(&self.api_key.get_untracked())
            .map_err(InputError::Key)?;
        let base_url = self.base_url.get_untracked();
        let api_key = api_key.unwrap_or_default();
        let model = self.model.get_untracked();
        let prompt = self.prompt.get_untracked();
        let max_tokens = self.max_tokens.get_untracked();
        let timeout_s = self.timeout_s.get_untracked();
        let runs = self.run_count.get_untracked();
        SeriesPlan::parse(&SeriesInput {
            run: RunInput {
                protocol: self.protocol.get_untracked(),
                base_url: &base_url,
                api_key,
                model: &model,
                prompt: &prompt,
                max_tokens: &max_tokens,
                reasoning: self.reasoning.get_untracked(),
                timeout_s: &timeout_s,
                ttft_only: self.ttft_only.get_untracked(),
            },
            runs: &runs,
            warm_up: self.warmup.get_untracked(),
        })
    }
}

/// Where the lab (`lab/`, one folder below the widget's page) asks whether ttft-sim serves
/// the page: the widget's [`ttft_core::preset::SIMULATOR_PROBE_PATH`], from one folder down.
pub const LAB_SIMULATOR_PROBE_PATH: &str = "../__sim/info";

/// Whether this page is served by ttft-sim, and where its API is: a keyless same-origin GET
/// of `probe_path` ([`ttft_core::preset::SIMULATOR_PROBE_PATH`] from the widget, [`LAB_SIMULATOR_PROBE_PATH`]
/// from the lab), bounded in time and size.
pub async fn detect_simulator(probe_path: &str) -> Option<String> {
    let controller = web_sys::AbortController::new().ok()?;
    let signal = controller.signal();
    let _timeout = crate::clock::Timer::once(3_000.0, move || controller.abort());
    let request = crate::transport::HttpRequest {
        method: "GET",
        url: probe_path.to_owned(),
        headers: Vec::new(),
        body: None,
    };
    let response = crate::transport::main_thread::open(&request, &signal)
        .await
        .ok()?;
    if response.head.status != 200 {
        return None;
    }
    let body = response.text_bounded(4_096).await.ok()??;
    simulator_api_base(&body)
}
