//! How a text's paint was timed: the paint methods and their expected errors, a paint's
//! time and what was painted.

use serde::{Deserialize, Serialize};

/// How a paint time was obtained (DESIGN.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaintMethod {
    /// Element Timing `presentationTime` (Chromium; when the frame was presented).
    PresentationTime,
    /// Element Timing `renderTime` (when rendering finished; a little earlier).
    RenderTime,
    /// Fallback: a `requestAnimationFrame` callback that posts a `MessageChannel` message;
    /// the handler's time tracks the end of the rendering update.
    RafMessageChannel,
}

/// How far a paint method's time is from the frame's presentation, measured in Chromium
/// against Element Timing `presentationTime` on the same paints.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PaintError {
    /// Median of (method's time − presentationTime), ms: its bias.
    pub bias_ms: f64,
    /// 95th percentile of |method's time − presentationTime|, ms.
    pub error_p95_ms: f64,
}

impl PaintMethod {
    /// The method's expected error against the frame's presentation.
    ///
    /// `presentationTime` is the reference (0). The others were measured by
    /// `scripts/bench.sh engines` in Chromium (where Element Timing gives the reference on
    /// the same paints; bench/REPORT.md, "The paint fallback against Element Timing"), and
    /// are stated here as constants: [`RAF_MESSAGE_CHANNEL_ERROR`],
    /// [`RENDER_TIME_ERROR`]. Firefox and WebKit have no reference to measure against, so
    /// their runs carry Chromium's figure.
    pub fn expected_error(self) -> PaintError {
        match self {
            PaintMethod::PresentationTime => PaintError {
                bias_ms: 0.0,
                error_p95_ms: 0.0,
            },
            PaintMethod::RenderTime => RENDER_TIME_ERROR,
            PaintMethod::RafMessageChannel => RAF_MESSAGE_CHANNEL_ERROR,
        }
    }

    /// The name shown in the runs table (`presentationTime`, `renderTime`,
    /// `rAF+MessageChannel`).
    pub fn label(self) -> &'static str {
        match self {
            PaintMethod::PresentationTime => "presentationTime",
            PaintMethod::RenderTime => "renderTime",
            PaintMethod::RafMessageChannel => "rAF+MessageChannel",
        }
    }
}

/// rAF + MessageChannel against Element Timing `presentationTime`, Chromium 156, the same
/// 20 paints at 500 tokens/s (bench/REPORT.md, engines section of 2026-12-01; load average
/// about 11 on 2 shared cores): the handler runs just before the frame is presented.
pub const RAF_MESSAGE_CHANNEL_ERROR: PaintError = PaintError {
    bias_ms: -0.71,
    error_p95_ms: 5.2,
};

/// Element Timing `renderTime` against `presentationTime` (used only where a browser
/// reports no `presentationTime`): Chromium 156 reports `renderTime` equal to
/// `presentationTime` on the same paints (bench/REPORT.md, engines section).
pub const RENDER_TIME_ERROR: PaintError = PaintError {
    bias_ms: 0.0,
    error_p95_ms: 0.0,
};

/// A paint instant and how it was measured.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PaintTime {
    /// When the text was presented (ms, page clock).
    pub at_ms: f64,
    /// Which API produced it.
    pub method: PaintMethod,
    /// The method's expected error ([`PaintMethod::expected_error`]) when the run was
    /// made. Absent in runs made before schema 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_error: Option<PaintError>,
}

/// Which text was painted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaintTarget {
    /// The first reasoning text.
    Reasoning,
    /// The first visible answer text.
    Answer,
}
