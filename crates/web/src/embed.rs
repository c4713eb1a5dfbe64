//! Configuration by URL query parameters, and the postMessage API for host pages that embed
//! the widget in an iframe (docs/embedding.md documents both).
//!
//! Security choices:
//! - A key in the URL (`key`, `api_key`, `token`, …, in the query or in a fragment written
//!   like one) is refused: URLs end up in history, logs, referrers and shared links. The
//!   parameter is removed from the address bar with `history.replaceState` before anything
//!   else runs, never reaches the form, storage, the network or the link to the other
//!   page, and the page says why.
//! - Messages go to one origin only, never `"*"`: the `target_origin` parameter when it is a
//!   valid origin, else the origin of `document.referrer` (the embedding page, which
//!   browsers send by default), else nowhere. Messages never hold the key, the masked key or
//!   request headers.

use serde_json::{json, Value};
use ttft_core::config::{clean_fragment, exact_origin, UrlConfig};
use ttft_core::record::RunRecord;
use ttft_core::timeline::RunsSummary;
use wasm_bindgen::JsValue;

/// The version of the message schema; bumped on any incompatible change.
pub const MESSAGE_VERSION: u32 = 1;

/// Reads this page's query parameters, and removes refused key parameters from the address
/// bar (and so from history) at once: from the query, and from the fragment written like a
/// query (`#api_key=…`), which stays in the address and in links made from it just as well.
pub fn read_page_config() -> UrlConfig {
    let Some(window) = web_sys::window() else {
        return UrlConfig::default();
    };
    let location = window.location();
    let Ok(search) = location.search() else {
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
    let mut config = UrlConfig::from_pairs(
        pairs
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str())),
    );
    let query_refused = !config.refused_keys.is_empty();
    if query_refused {
        for name in &config.refused_keys {
            params.delete(name);
        }
    }
    let hash = location.hash().unwrap_or_default();
    let fragment = clean_fragment(&hash);
    if let Some(fragment) = &fragment {
        config.refused_keys.extend(fragment.refused.iter().cloned());
    }
    if query_refused || fragment.is_some() {
        let query = String::from(params.to_string());
        let hash = fragment.map_or(hash, |fragment| {
            if fragment.kept.is_empty() {
                String::new()
            } else {
                format!("#{}", fragment.kept)
            }
        });
        replace_address(&window, &query, &hash);
    }
    config
}

/// Replaces the address bar's query with `query` and its fragment with `hash` (with its
/// `#`, or empty), without a new history entry.
fn replace_address(window: &web_sys::Window, query: &str, hash: &str) {
    let path = window.location().pathname().unwrap_or_default();
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
                exact_origin(web_sys::Url::new(&referrer).ok()?.origin().as_str())
            })
        });
        Embed {
            target_origin,
            source_id,
        }
    }

    /// Posts a finished run (`ttft-meter.run`) to the host, if any. The message is built
    /// only when there is a host: a long run's ITL gaps make it large.
    pub fn post_run(&self, record: &RunRecord) {
        if self.target_origin.is_some() {
            self.post("ttft-meter.run", run_message(record));
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
        let text = message.to_string();
        // Defence in depth: a message that holds a piece of the key is not posted.
        if crate::storage::stored_key_scrubber()
            .is_some_and(|scrubber| scrubber.contains_key(&text))
        {
            return;
        }
        let Ok(value) = js_sys::JSON::parse(&text) else {
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
pub fn run_message(record: &RunRecord) -> Value {
    let record = record.redacted();
    json!({
        "run": {
            "run_index": record.run_index,
            "started_at": record.started_at,
            "warm_up": record.warm_up,
            "model": record.settings.model,
            "protocol": record.settings.protocol.code(),
            "endpoint_url": record.settings.endpoint_url,
            "ttft_only": record.settings.ttft_only,
            "cold": record.cold,
            "outcome": record.outcome.code(),
            "ok": record.is_ok(),
            "diagnosis_cause": record.diagnosis_cause,
            "metrics": record.metrics,
            "wait_verdict": record
                .breakdown
                .as_ref()
                .and_then(ttft_core::timeline::WaitVerdict::of)
                .map(|verdict| verdict.cause.code()),
            "timer": record.timer,
            "main_thread_stall_ms": record.main_thread_stall_ms,
            "via_relay": record.via_relay(),
            "buffered_arrival": record.buffered_arrival.is_some(),
        }
    })
}

/// The `ttft-meter.summary` payload, after a series: statistics over the measured,
/// successful runs of the session, and, when SLOs are set, their result (`slo`: the set,
/// the verdict, the good run count and fraction, each threshold's result).
/// `wait`: where the wait went over those runs (the median of each part and the verdict,
/// [`ttft_core::timeline::WaitSummary::to_json`]).
pub fn summary_message(
    total_runs: usize,
    summary: Option<&RunsSummary>,
    wait: Option<Value>,
    slo: Option<Value>,
) -> Value {
    let mut message = json!({
        "summary": {
            "total_runs": total_runs,
            "stats": summary,
            "wait": wait,
        }
    });
    if let (Some(slo), Some(fields)) = (slo, message["summary"].as_object_mut()) {
        fields.insert("slo".into(), slo);
    }
    message
}

/// The experiment the URL asked for (`experiment=`), for the experiments panel.
#[derive(Debug, Clone, PartialEq)]
pub struct ExperimentRequest(pub Option<String>);
