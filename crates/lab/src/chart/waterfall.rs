//! Waterfall of one run: where the wait went, phase by phase, on a shared ms axis.

use serde::{Deserialize, Serialize};

use super::frame::{is_drawable, Frame, Rect};
use super::layout::{tick_target, zero_based_domain, EMPTY_MS_DOMAIN, X_TICK_SPACING_PX};
use super::scale::LinearScale;
use super::ticks::{nice_domain, Axis, TickFormat};

/// Share of a row's height taken by its bar (the rest is space between bars).
const BAR_HEIGHT_SHARE: f64 = 0.6;

/// A phase of one run, as the waterfall names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// DNS, TCP and TLS: from the request until the connection is up.
    ConnectionSetup,
    /// Queueing and prefill: until the first token.
    Waiting,
    /// Streaming reasoning: from the first reasoning token to the first answer token.
    Reasoning,
    /// Streaming the answer: from the first answer token to the last.
    Answer,
    /// From the arrival of the first answer text to its paint.
    PaintDelay,
}

/// When one phase started and ended, in ms from the start of the run (request start or
/// click).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhaseSpan {
    /// Which phase.
    pub phase: Phase,
    /// Start, ms.
    pub start_ms: f64,
    /// End, ms.
    pub end_ms: f64,
}

/// One row of the waterfall.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhaseBar {
    /// Which phase.
    pub phase: Phase,
    /// Left edge (the start).
    pub x_px: f64,
    /// Top edge.
    pub y_px: f64,
    /// Width (the duration), > 0 unless the plot has no width.
    pub width_px: f64,
    /// Height.
    pub height_px: f64,
    /// Vertical middle of the row, for the phase's label.
    pub label_y_px: f64,
    /// Start, ms.
    pub start_ms: f64,
    /// End, ms.
    pub end_ms: f64,
}

/// Geometry of the waterfall chart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WaterfallChart {
    /// Where the data is drawn.
    pub plot: Rect,
    /// Milliseconds from 0 (or the earliest start, if negative), ending on a tick.
    pub x_axis: Axis,
    /// One bar per drawn phase, top to bottom in input order.
    pub bars: Vec<PhaseBar>,
}

/// Lays out one run's phases as horizontal bars, one row each, in the order given (pass
/// them as they happen: connection setup, waiting, reasoning, answer, paint delay).
/// Missing phases are simply not passed; phases of zero or negative length, or with a time
/// that is not drawable, are left out, and the remaining rows share the plot's height.
pub fn waterfall_chart(phases: &[PhaseSpan], frame: &Frame) -> WaterfallChart {
    let plot = frame.plot_area();
    let drawn = || {
        phases.iter().filter(|span| {
            is_drawable(span.start_ms) && is_drawable(span.end_ms) && span.end_ms > span.start_ms
        })
    };
    let times = drawn().flat_map(|span| [span.start_ms, span.end_ms]);
    let x_target = tick_target(plot.width_px, X_TICK_SPACING_PX);
    let x_domain = nice_domain(zero_based_domain(times, EMPTY_MS_DOMAIN), x_target);
    let x_scale = LinearScale::for_x(x_domain, &plot).clamped();

    let row_height_px = plot.height_px / drawn().count().max(1) as f64;
    let bar_height_px = row_height_px * BAR_HEIGHT_SHARE;
    let bars = drawn()
        .enumerate()
        .map(|(row, span)| {
            let row_top_px = plot.y_px + row_height_px * row as f64;
            let (start_px, end_px) = (x_scale.project(span.start_ms), x_scale.project(span.end_ms));
            PhaseBar {
                phase: span.phase,
                x_px: start_px,
                y_px: row_top_px + (row_height_px - bar_height_px) / 2.0,
                width_px: end_px - start_px,
                height_px: bar_height_px,
                label_y_px: row_top_px + row_height_px / 2.0,
                start_ms: span.start_ms,
                end_ms: span.end_ms,
            }
        })
        .collect();

    WaterfallChart {
        plot,
        x_axis: Axis::new(&x_scale, x_target, TickFormat::Milliseconds),
        bars,
    }
}

/// The phases of one run, in ms from `request_started`, for [`waterfall_chart`]:
/// connection setup (DNS + TCP + TLS, when Resource Timing shows them), waiting (until the
/// first token of either channel), reasoning (first reasoning to first answer token),
/// answer (first answer to last token) and paint delay (first visible answer arrival to
/// its paint). Phases whose instants are missing are left out.
pub fn run_phases(
    instants: &ttft_core::timeline::Instants,
    network: Option<&ttft_core::timeline::NetworkBreakdown>,
) -> Vec<PhaseSpan> {
    let start_ms = instants.request_started;
    let since = |at_ms: f64| at_ms - start_ms;
    let setup_ms = network
        .map(|network| {
            [network.dns_ms, network.tcp_ms, network.tls_ms]
                .iter()
                .flatten()
                .sum::<f64>()
        })
        .unwrap_or(0.0);
    let first_token = match (instants.first_reasoning, instants.first_answer) {
        (Some(reasoning), Some(answer)) => Some(reasoning.min(answer)),
        (reasoning, answer) => reasoning.or(answer),
    };
    let mut phases = Vec::with_capacity(5);
    let mut push = |phase, start: Option<f64>, end: Option<f64>| {
        if let (Some(start_ms), Some(end_ms)) = (start, end) {
            phases.push(PhaseSpan {
                phase,
                start_ms,
                end_ms,
            });
        }
    };
    push(Phase::ConnectionSetup, Some(0.0), Some(setup_ms));
    push(Phase::Waiting, Some(setup_ms), first_token.map(since));
    push(
        Phase::Reasoning,
        instants.first_reasoning.map(since),
        instants.first_answer.map(since),
    );
    push(
        Phase::Answer,
        instants.first_answer.map(since),
        instants.last_token.map(since),
    );
    push(
        Phase::PaintDelay,
        instants.first_answer_visible.map(since),
        instants.answer_painted.map(|painted| since(painted.at_ms)),
    );
    phases
}

#[cfg(test)]
mod tests {
    use super::super::{Domain, Margins};
    use super::*;

    #[test]
    fn phases_become_rows_and_empty_phases_are_left_out() {
        // Plot area 400 × 200 px at (50, 10).
        let frame = Frame::new(
            470.0,
            240.0,
            Margins {
                top_px: 10.0,
                right_px: 20.0,
                bottom_px: 30.0,
                left_px: 50.0,
            },
        );
        let span = |phase, start_ms, end_ms| PhaseSpan {
            phase,
            start_ms,
            end_ms,
        };
        let phases = [
            span(Phase::ConnectionSetup, 0.0, 0.0), // reused connection: zero length
            span(Phase::Waiting, 0.0, 600.0),
            span(Phase::Reasoning, 600.0, f64::NAN),
            span(Phase::Answer, 600.0, 1800.0),
            span(Phase::PaintDelay, 600.0, 640.0),
        ];
        let chart = waterfall_chart(&phases, &frame);
        // x: [0, 1800], 5 ticks → step 500 → [0, 2000]: 0.2 px per ms from x = 50.
        // 3 rows of 200 / 3 px; bars 40 px high, 13.3 px from the row top.
        assert_eq!(
            chart.x_axis.domain,
            Domain {
                min: 0.0,
                max: 2000.0
            }
        );
        let rows: Vec<(Phase, f64, f64)> = chart
            .bars
            .iter()
            .map(|bar| (bar.phase, bar.x_px, bar.width_px))
            .collect();
        assert_eq!(
            rows,
            [
                (Phase::Waiting, 50.0, 120.0),
                (Phase::Answer, 170.0, 240.0),
                (Phase::PaintDelay, 170.0, 8.0)
            ]
        );
        let last = chart.bars[2];
        assert!((last.height_px - 40.0).abs() < 1e-9);
        assert!((last.y_px - (10.0 + 400.0 / 3.0 + 40.0 / 3.0)).abs() < 1e-9);
        assert!((last.label_y_px - (10.0 + 500.0 / 3.0)).abs() < 1e-9);
        let labels: Vec<&str> = chart
            .x_axis
            .ticks
            .iter()
            .map(|tick| tick.label.as_str())
            .collect();
        assert_eq!(labels, ["0 s", "0.5 s", "1.0 s", "1.5 s", "2.0 s"]);
    }

    #[test]
    fn run_phases_follow_the_instants() {
        use ttft_core::timeline::{
            ConnectionKind, Instants, NetworkBreakdown, PaintMethod, PaintTime,
        };
        let instants = Instants {
            request_started: 1000.0,
            first_reasoning: Some(1200.0),
            first_answer: Some(1700.0),
            first_answer_visible: Some(1750.0),
            answer_painted: Some(PaintTime {
                at_ms: 1760.0,
                method: PaintMethod::PresentationTime,
                expected_error: None,
            }),
            last_token: Some(2700.0),
            ..Instants::default()
        };
        let network = NetworkBreakdown {
            dns_ms: Some(2.0),
            tcp_ms: Some(3.0),
            tls_ms: None,
            queueing_ms: None,
            waiting_ms: None,
            request_ms: None,
            connection: ConnectionKind::New,
            timing_visible: true,
            preflight_ms: None,
            protocol: None,
            fetch_lead_ms: None,
        };
        let spans: Vec<(Phase, f64, f64)> = run_phases(&instants, Some(&network))
            .iter()
            .map(|span| (span.phase, span.start_ms, span.end_ms))
            .collect();
        assert_eq!(
            spans,
            [
                (Phase::ConnectionSetup, 0.0, 5.0),
                (Phase::Waiting, 5.0, 200.0),
                (Phase::Reasoning, 200.0, 700.0),
                (Phase::Answer, 700.0, 1700.0),
                (Phase::PaintDelay, 750.0, 760.0),
            ]
        );
        // Without reasoning or paint, those phases are left out.
        let plain = Instants {
            first_reasoning: None,
            answer_painted: None,
            ..instants
        };
        let phases: Vec<Phase> = run_phases(&plain, None)
            .iter()
            .map(|span| span.phase)
            .collect();
        assert_eq!(
            phases,
            [Phase::ConnectionSetup, Phase::Waiting, Phase::Answer]
        );
    }

    #[test]
    fn phases_serialize_in_snake_case() {
        let json = serde_json::to_string(&Phase::PaintDelay).expect("json");
        assert_eq!(json, "\"paint_delay\"");
    }
}
