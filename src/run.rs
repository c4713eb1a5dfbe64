//! One measured run (provisional while ttft-core's decoder lands).
use web_sys::AbortSignal;

/// Settings of one run.
pub struct RunSettings {
    /// Base URL as typed.
    pub base_url: String,
    /// The API key.
    pub api_key: String,
    /// Model name.
    pub model: String,
    /// Prompt text.
    pub prompt: String,
}

/// A diagnosis as shown.
#[derive(Clone, Debug, PartialEq)]
pub struct ShownDiagnosis {
    /// Stable cause code.
    pub cause_code: String,
    /// Title.
    pub title: String,
    /// Fix.
    pub fix: String,
}

/// Progress of a run.
pub enum RunUpdate {
    /// Request sent.
    Calling { url: String },
    /// First chunk.
    FirstChunk { first_chunk_ms: f64 },
    /// Reasoning text.
    Reasoning { text: String, ttfr_ms: Option<f64> },
    /// Answer text.
    Answer { text: String, ttfa_ms: Option<f64> },
    /// Done.
    Finished { summary: String },
    /// Failed.
    Failed { diagnosis: ShownDiagnosis },
}

/// Runs once.
pub async fn measure(
    settings: RunSettings,
    _clicked_ms: Option<f64>,
    signal: AbortSignal,
    mut on_update: impl FnMut(RunUpdate),
) {
    let request = crate::net::HttpRequest {
        method: "POST",
        url: format!("{}/chat/completions", settings.base_url),
        headers: vec![("content-type".into(), "application/json".into())],
        body: Some(format!(
            "{{\"model\":{:?},\"stream\":true,\"messages\":[{{\"role\":\"user\",\"content\":{:?}}}]}}",
            settings.model, settings.prompt
        )),
    };
    on_update(RunUpdate::Calling {
        url: request.url.clone(),
    });
    let Ok(response) = crate::net::open(&request, &signal).await else {
        return;
    };
    let Ok(reader) = response.into_body_reader() else {
        return;
    };
    while let Ok(Some(bytes)) = reader.next_chunk().await {
        on_update(RunUpdate::Answer {
            text: String::from_utf8_lossy(&bytes).into(),
            ttfa_ms: None,
        });
    }
}
