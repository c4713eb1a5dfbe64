//! Configuration by URL query parameters, and the postMessage API for host pages that embed
//! the widget in an iframe (docs/embedding.md documents both).
//!
//! Security choices:
//! - A key in the URL (`key`, `api_key`, `token`, …) is refused: URLs end up in history,
//!   logs, referrers and shared links. The parameter is removed from the address bar with
//!   `history.replaceState` before anything else runs, never reaches the form, storage or
//!   the network, and the page says why.
//! - Messages go to one origin only, never `"*"`: the `target_origin` parameter when it is a
//!   valid origin, else the origin of `document.referrer` (the embedding page, which
//!   browsers send by default), else nowhere. Messages never hold the key, the masked key or
//!   request headers.

use leptos::prelude::*;
use serde_json::{json, Value};
use ttft_core::export::{self, outcome_code, outcome_is_ok};
use ttft_core::lang::Lang;
use ttft_core::timeline::RunsSummary;
use wasm_bindgen::JsValue;

use crate::persist::protocol_code;
use crate::state::{FormState, ProtocolChoice, PRESETS};

/// The version of the message schema; bumped on any incompatible change.
pub const MESSAGE_VERSION: u32 = 1;

/// Query parameter names that carry a key, refused (compared without case).
const KEY_PARAMS: [&str; 12] = [
    "key",
    "api_key",
    "api-key",
    "apikey",
    "token",
    "access_token",
    "auth",
    "authorization",
    "bearer",
    "secret",
    "x-api-key",
    "password",
];

/// Whether a query parameter name looks like it carries a secret.
pub fn is_key_param(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    KEY_PARAMS.contains(&lower.as_str())
        || lower.ends_with("_key")
        || lower.ends_with("-key")
        || lower.ends_with("apikey")
        || lower.ends_with("_token")
        || lower.ends_with("_secret")
}

/// The light/dark choice: `None` follows the system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    /// Light colours.
    Light,
    /// Dark colours.
    Dark,
}

impl Theme {
    /// From `light` / `dark` (anything else: follow the system).
    pub fn parse(value: &str) -> Option<Theme> {
        match value.trim().to_ascii_lowercase().as_str() {
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            _ => None,
        }
    }

    /// The `data-theme` value.
    pub fn code(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

/// What the URL asked for. Every field is optional: an absent one leaves the default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UrlConfig {
    /// `preset`: a preset id (applied before the fields below).
    pub preset: Option<String>,
    /// `base_url`.
    pub base_url: Option<String>,
    /// `protocol`: `auto`, `chat`, `anthropic` or `responses`.
    pub protocol: Option<String>,
    /// `model`.
    pub model: Option<String>,
    /// `prompt`.
    pub prompt: Option<String>,
    /// `runs`: measured runs (validated by the form like typed input).
    pub runs: Option<String>,
    /// `experiment`: an experiment the experiments panel should open.
    pub experiment: Option<String>,
    /// `lang`: `en` or `zh`.
    pub lang: Option<Lang>,
    /// `theme`: `light`, `dark` (or `auto`).
    pub theme: Option<Theme>,
    /// `compact=1`: the small layout for iframes.
    pub compact: bool,
    /// `target_origin` (or `parent_origin`): the only origin messages are posted to.
    pub target_origin: Option<String>,
    /// `source`: an id the host chose, echoed in every message.
    pub source_id: Option<String>,
    /// Names of refused key parameters (their values are dropped at once).
    pub refused_keys: Vec<String>,
}

impl UrlConfig {
    /// Reads `(name, value)` pairs. A key parameter's value is never kept.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> UrlConfig {
        let mut config = UrlConfig::default();
        for (name, value) in pairs {
            let text = || Some(value.to_owned()).filter(|value| !value.trim().is_empty());
            match name {
                "preset" => config.preset = text(),
                "base_url" => config.base_url = text(),
                "protocol" => config.protocol = text(),
                "model" => config.model = text(),
                "prompt" => config.prompt = text(),
                "runs" => config.runs = text(),
                "experiment" => config.experiment = text(),
                "lang" => {
                    config.lang = match value {
                        "zh" | "zh-CN" | "zh-Hans" => Some(Lang::Zh),
                        "en" => Some(Lang::En),
                        _ => None,
                    }
                }
                "theme" => config.theme = Theme::parse(value),
                "compact" => config.compact = matches!(value, "1" | "true" | "yes" | ""),
                "target_origin" | "parent_origin" => config.target_origin = valid_origin(value),
                "source" => config.source_id = text(),
                _ if is_key_param(name) => config.refused_keys.push(name.to_owned()),
                _ => {}
            }
        }
        config
    }

    /// Puts the URL's endpoint settings into the form.
    pub fn apply_to(&self, form: &FormState) {
        if let Some(preset) = self
            .preset
            .as_deref()
            .and_then(|id| PRESETS.iter().find(|preset| preset.id == id))
        {
            form.apply_preset(preset);
        }
        if let Some(base_url) = &self.base_url {
            form.base_url.set(base_url.clone());
        }
        if let Some(protocol) = &self.protocol {
            form.protocol.set(ProtocolChoice::from_value(protocol));
        }
        if let Some(model) = &self.model {
            form.model.set(model.clone());
        }
        if let Some(prompt) = &self.prompt {
            form.prompt.set(prompt.clone());
        }
        if let Some(runs) = &self.runs {
            form.run_count.set(runs.clone());
        }
    }
}

/// `value` when it is exactly an origin (`scheme://host[:port]`), else `None`.
fn valid_origin(value: &str) -> Option<String> {
    let trimmed = value.trim().trim_end_matches('/');
    let url = web_sys::Url::new(trimmed).ok()?;
    let origin = url.origin();
    (origin == trimmed && origin != "null").then_some(origin)
}

/// Reads this page's query parameters, and removes refused key parameters from the address
/// bar (and so from history) at once.
pub fn read_page_config() -> UrlConfig {
    let Some(window) = web_sys::window() else {
        return UrlConfig::default();
    };
    let Ok(search) = window.location().search() else {
        return UrlConfig::default();
    };
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&search) else {
        return UrlConfig::default();
    };
    let mut pairs: Vec<(String, String)> = Vec::new();
    if let Ok(Some(iterator)) = js_sys::try_iter(&params) {
        for item in iterator.flatten() {
            let pair = js_sys::Array::from(&item);
            pairs.push((
                pair.get(0).as_string().unwrap_or_default(),
                pair.get(1).as_string().unwrap_or_default(),
            ));
        }
    }
    let config = UrlConfig::from_pairs(
        pairs
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str())),
    );
    if !config.refused_keys.is_empty() {
        for name in &config.refused_keys {
            params.delete(name);
        }
        strip_query(&window, &String::from(params.to_string()));
    }
    config
}

/// Replaces the address bar's query with `query` (no new history entry).
fn strip_query(window: &web_sys::Window, query: &str) {
    let location = window.location();
    let path = location.pathname().unwrap_or_default();
    let hash = location.hash().unwrap_or_default();
    let url = if query.is_empty() {
        format!("{path}{hash}")
    } else {
        format!("{path}?{query}{hash}")
    };
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

/// Where and as whom messages are posted. Provided as context.
#[derive(Debug, Clone, PartialEq)]
pub struct Embed {
    /// The host origin messages go to; `None`: not embedded, or no origin to trust.
    pub target_origin: Option<String>,
    /// Echoed in every message, so a host with several widgets tells them apart.
    pub source_id: String,
}

impl Embed {
    /// Decides the target: only inside a frame; the `target_origin` parameter, else the
    /// referrer's origin.
    pub fn from_config(config: &UrlConfig) -> Embed {
        let source_id = config
            .source_id
            .clone()
            .unwrap_or_else(|| "ttft-meter".into());
        let target_origin = parent_window().and_then(|_| {
            config.target_origin.clone().or_else(|| {
                let referrer = web_sys::window()?.document()?.referrer();
                valid_origin(web_sys::Url::new(&referrer).ok()?.origin().as_str())
            })
        });
        Embed {
            target_origin,
            source_id,
        }
    }

    /// Posts `message` (with `type`, `version` and `source` added) to the host, if any.
    pub fn post(&self, kind: &str, mut message: Value) {
        let (Some(origin), Some(parent)) = (&self.target_origin, parent_window()) else {
            return;
        };
        if let Value::Object(fields) = &mut message {
            fields.insert("type".into(), json!(kind));
            fields.insert("version".into(), json!(MESSAGE_VERSION));
            fields.insert("source".into(), json!(self.source_id));
        }
        let Ok(value) = js_sys::JSON::parse(&message.to_string()) else {
            return;
        };
        let _ = parent.post_message(&value, origin);
    }
}

/// The parent window when this page is inside a frame.
fn parent_window() -> Option<web_sys::Window> {
    let window = web_sys::window()?;
    let parent = window.parent().ok().flatten()?;
    (!js_sys::Object::is(&parent, &window)).then_some(parent)
}

/// The `ttft-meter.run` payload: what was measured, never a key, masked key or header.
pub fn run_message(record: &export::RunRecord) -> Value {
    let record = record.redacted();
    json!({
        "run": {
            "run_index": record.run_index,
            "started_at": record.started_at,
            "warm_up": record.warm_up,
            "model": record.settings.model,
            "protocol": protocol_code(record.settings.protocol),
            "endpoint_url": record.settings.endpoint_url,
            "ttft_only": record.settings.ttft_only,
            "cold": record.cold,
            "outcome": outcome_code(&record.outcome),
            "ok": outcome_is_ok(&record.outcome),
            "diagnosis_cause": record.diagnosis_cause,
            "metrics": record.metrics,
        }
    })
}

/// The `ttft-meter.summary` payload, after a series: statistics over the measured,
/// successful runs of the session.
pub fn summary_message(total_runs: usize, summary: Option<&RunsSummary>) -> Value {
    json!({
        "summary": {
            "total_runs": total_runs,
            "stats": summary,
        }
    })
}

/// The experiment the URL asked for (`experiment=`), for the experiments panel.
#[derive(Debug, Clone, PartialEq)]
pub struct ExperimentRequest(pub Option<String>);
