//! What the embedder or user chose about the export, and why an export cannot be built.

use crate::slo::SloSet;

/// Choices of the embedder or user that shape what is sent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExportOptions {
    /// `gen_ai.provider.name` to send instead of the one derived from the endpoint
    /// ([`provider_name`](super::provider_name)).
    pub provider_name: Option<String>,
    /// Send the prompt as `gen_ai.input.messages` on spans (cut to [`MAX_PROMPT_BYTES`]).
    /// Off unless the embedder explicitly opts in.
    pub include_prompt: bool,
    /// SLOs: the run counter then says whether each run met them.
    pub slo: Option<SloSet>,
}

/// A body could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OtlpError {
    /// The resource has no `service.instance.id`.
    #[error("The OTLP resource has no service.instance.id; the page must make one (a random UUID) per session.")]
    MissingInstanceId,
    /// A trace or span id of zeros (invalid in OTLP and W3C Trace Context).
    #[error("The {what} is all zeros, which OTLP treats as invalid; make it from random bytes.")]
    ZeroId {
        /// `trace id` or `span id`.
        what: &'static str,
    },
    /// A page-clock instant that cannot be placed on the wall clock.
    #[error("The instant {page_ms} ms cannot be converted to wall-clock time; check performance.timeOrigin.")]
    TimeOutOfRange {
        /// The instant.
        page_ms: f64,
    },
    /// A metrics window that ends before it starts.
    #[error("A metrics window ends before it starts; times must come from one clock.")]
    WindowBackwards,
}
