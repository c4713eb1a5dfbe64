//! SVG charts. Geometry (scales, ticks, paths, bins) comes from `ttft_lab::chart`; these
//! components only draw it. Each chart has a title, and its data is also in a table.

use leptos::prelude::*;
use ttft_core::itl::ItlGaps;
use ttft_core::metric::runs_chart_metrics;
use ttft_core::text::Text;
use ttft_lab::chart::{
    distribution_chart, itl_chart, runs_chart, waterfall_chart, Axis, Frame, Margins, Phase,
    PhaseSpan, Rect, Reference, ReferenceLine, RunSeries,
};

use crate::texts as t;
use crate::views::chart_export::{untranslated, ChartTools};
use ttft_web::i18n::use_i18n;

const WIDTH_PX: f64 = 640.0;
const HEIGHT_PX: f64 = 240.0;

pub(crate) fn frame(height_px: f64, left_px: f64) -> Frame {
    Frame::new(
        WIDTH_PX,
        height_px,
        Margins {
            top_px: 12.0,
            right_px: 16.0,
            bottom_px: 30.0,
            left_px,
        },
    )
}

pub(crate) fn view_box(frame: &Frame) -> String {
    format!("0 0 {} {}", frame.width_px, frame.height_px)
}

/// The x axis under `plot` and the y axis left of it, with grid lines.
pub(crate) fn axes(plot: Rect, x_axis: &Axis, y_axis: Option<&Axis>) -> impl IntoView {
    let bottom = plot.y_px + plot.height_px;
    let right = plot.x_px + plot.width_px;
    let x_ticks = x_axis
        .ticks
        .iter()
        .map(|tick| {
            view! {
                <g class="tick">
                    <line x1=tick.position_px x2=tick.position_px y1=bottom y2=bottom + 4.0></line>
                    <text x=tick.position_px y=bottom + 16.0 text-anchor="middle">{tick.label.clone()}</text>
                </g>
            }
        })
        .collect_view();
    let y_ticks = y_axis.map(|y_axis| {
        y_axis
            .ticks
            .iter()
            .map(|tick| {
                view! {
                    <g class="tick">
                        <line class="grid" x1=plot.x_px x2=right y1=tick.position_px y2=tick.position_px></line>
                        <text x=plot.x_px - 6.0 y=tick.position_px + 4.0 text-anchor="end">{tick.label.clone()}</text>
                    </g>
                }
            })
            .collect_view()
    });
    view! {
        <g class="axis">
            <line x1=plot.x_px x2=right y1=bottom y2=bottom></line>
            {x_ticks}
            {y_ticks}
        </g>
    }
}

pub(crate) fn reference_lines(lines: &[ReferenceLine]) -> impl IntoView {
    lines
        .iter()
        .map(|line| {
            view! {
                <g class="reference">
                    <line x1=line.x1_px y1=line.y1_px x2=line.x2_px y2=line.y2_px></line>
                    <text x=line.label_x_px y=line.label_y_px text-anchor="end">{line.name.clone()}</text>
                </g>
            }
        })
        .collect_view()
}

/// TTFT per run: ttft, ttfa and perceived ttfa, with p50 and p95 of ttfa.
#[component]
pub fn RunsChartView(
    /// Per series (in [`runs_chart_metrics`] order), one value per measured run.
    series: Signal<Vec<Vec<Option<f64>>>>,
    /// p50 and p95 of ttfa, when known.
    references: Signal<Vec<(&'static str, f64)>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let frame = frame(HEIGHT_PX, 56.0);
    let chart = move || {
        let values = series.get();
        let run_series: Vec<RunSeries> = runs_chart_metrics()
            .zip(values.iter())
            .map(|((metric, _), values_ms)| RunSeries {
                name: metric.name,
                values_ms,
            })
            .collect();
        let references: Vec<Reference> = references
            .get()
            .iter()
            .map(|(name, value)| Reference {
                name,
                value: *value,
            })
            .collect();
        runs_chart(&run_series, &references, &frame)
    };
    view! {
        <figure class="chart" data-testid="chart-runs">
            <figcaption>{move || i18n.t(t::TIME_TO_FIRST_TOKEN_PER_RUN)}</figcaption>
            <svg viewBox=view_box(&frame) role="img" aria-label=move || i18n.t(t::LINE_CHART_OF_TTFT_PER_RUN)>
                {move || {
                    let chart = chart();
                    let lines = chart
                        .series
                        .iter()
                        .zip(runs_chart_metrics())
                        .map(|(geometry, (_, class))| {
                            // All markers of a series in one path of zero-length round-capped
                            // segments: one element per series, however many runs.
                            let dots: String = geometry
                                .markers
                                .iter()
                                .map(|marker| format!("M{:.1},{:.1}h0", marker.x_px, marker.y_px))
                                .collect();
                            view! {
                                <g class=class>
                                    <path d=geometry.path.clone()></path>
                                    <path class="dots" d=dots></path>
                                </g>
                            }
                        })
                        .collect_view();
                    view! {
                        {axes(chart.plot, &chart.x_axis, Some(&chart.y_axis))}
                        {reference_lines(&chart.references)}
                        {lines}
                    }
                }}
            </svg>
            <ul class="legend">
                {runs_chart_metrics()
                    .map(|(metric, class)| view! { <li class=class>{move || metric.legend(i18n.lang.get())}</li> })
                    .collect_view()}
            </ul>
            <ChartTools
                test_id="chart-runs"
                headers=std::iter::once(t::COLUMN_RUN)
                    .chain(runs_chart_metrics().map(|(metric, _)| untranslated(metric.name)))
                    .collect()
                rows=Signal::derive(move || {
                    let series = series.get();
                    let runs = series.first().map_or(0, Vec::len);
                    (0..runs)
                        .map(|index| {
                            let cell = |values: &Vec<Option<f64>>| {
                                values.get(index).copied().flatten().map_or_else(|| "—".to_string(), |value_ms| format!("{value_ms:.1}"))
                            };
                            std::iter::once((index + 1).to_string()).chain(series.iter().map(cell)).collect()
                        })
                        .collect()
                })
            />
        </figure>
    }
}

/// The distribution of one metric: histogram, empirical CDF, p50/p95/p99 markers.
#[component]
pub fn DistributionView(
    /// The samples (ms).
    values_ms: Signal<Vec<f64>>,
    /// Markers (p50, p95, p99).
    markers: Signal<Vec<(&'static str, f64)>>,
    /// Which metric (for the caption).
    metric: &'static str,
) -> impl IntoView {
    let i18n = use_i18n();
    let frame = frame(HEIGHT_PX, 40.0);
    view! {
        <figure class="chart" data-testid="chart-distribution">
            <figcaption>{move || i18n.fill(t::DISTRIBUTION_OF, &[("metric", &metric)])}</figcaption>
            <svg viewBox=view_box(&frame) role="img" aria-label=move || i18n.t(t::HISTOGRAM_AND_CUMULATIVE_DISTRIBUTION)>
                {move || {
                    let markers: Vec<Reference> = markers
                        .get()
                        .iter()
                        .map(|(name, value)| Reference { name, value: *value })
                        .collect();
                    let chart = distribution_chart(&values_ms.get(), &markers, &frame);
                    let bars = chart
                        .bars
                        .iter()
                        .map(|bar| {
                            view! {
                                <rect class="bar" x=bar.x_px y=bar.y_px width=bar.width_px height=bar.height_px>
                                    <title>{format!("{:.0}–{:.0} ms: {}", bar.start_ms, bar.end_ms, bar.count)}</title>
                                </rect>
                            }
                        })
                        .collect_view();
                    view! {
                        {axes(chart.plot, &chart.x_axis, Some(&chart.y_axis))}
                        {bars}
                        <path class="cdf" d=chart.cdf_path.clone()></path>
                        {reference_lines(&chart.markers)}
                    }
                }}
            </svg>
            <ChartTools
                test_id="chart-distribution"
                headers=vec![t::COLUMN_FROM_MS, t::COLUMN_TO_MS, t::COLUMN_RUNS]
                rows=Signal::derive(move || {
                    distribution_chart(&values_ms.get(), &[], &frame)
                        .bars
                        .iter()
                        .map(|bar| vec![format!("{:.1}", bar.start_ms), format!("{:.1}", bar.end_ms), bar.count.to_string()])
                        .collect()
                })
            />
        </figure>
    }
}

/// Inter-token gaps over token position, for one run.
#[component]
pub fn ItlView(
    /// The run's gaps (their sample in stream order is drawn).
    gaps: Signal<ItlGaps>,
) -> impl IntoView {
    let i18n = use_i18n();
    let frame = frame(200.0, 48.0);
    view! {
        <figure class="chart" data-testid="chart-itl">
            <figcaption>{move || i18n.t(t::INTER_TOKEN_LATENCY_OVER_THE_STREAM)}</figcaption>
            <svg viewBox=view_box(&frame) role="img" aria-label=move || i18n.t(t::LINE_CHART_OF_INTER_TOKEN_GAPS)>
                {move || {
                    let chart = gaps.with(|gaps| {
                        itl_chart(gaps.sample_ms(), gaps.sample_every(), &[], &frame)
                    });
                    view! {
                        {axes(chart.plot, &chart.x_axis, Some(&chart.y_axis))}
                        <path class="series-itl" d=chart.path.clone()></path>
                    }
                }}
            </svg>
            <ChartTools
                test_id="chart-itl"
                headers=vec![t::COLUMN_GAP, untranslated("itl_ms")]
                rows=Signal::derive(move || {
                    gaps.with(|gaps| {
                        let every = gaps.sample_every();
                        gaps.sample_ms()
                            .iter()
                            .enumerate()
                            .map(|(index, gap_ms)| {
                                vec![(index as u64 * every + 1).to_string(), format!("{gap_ms:.1}")]
                            })
                            .collect()
                    })
                })
            />
        </figure>
    }
}

/// A phase's name on the waterfall and in its table.
fn phase_label(phase: Phase) -> Text {
    match phase {
        Phase::ConnectionSetup => t::PHASE_CONNECTION_SETUP,
        Phase::Waiting => t::PHASE_WAITING,
        Phase::Reasoning => t::PHASE_REASONING,
        Phase::Answer => t::PHASE_ANSWER,
        Phase::PaintDelay => t::PHASE_PAINT_DELAY,
    }
}

/// Where one run's time went.
#[component]
pub fn WaterfallView(
    /// The phases of the run.
    phases: Signal<Vec<PhaseSpan>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let frame = frame(170.0, 150.0);
    view! {
        <figure class="chart" data-testid="chart-waterfall">
            <figcaption>{move || i18n.t(t::WATERFALL_OF_THE_SELECTED_RUN)}</figcaption>
            <svg viewBox=view_box(&frame) role="img" aria-label=move || i18n.t(t::BARS_PER_PHASE_OF_THE_RUN)>
                {move || {
                    let chart = waterfall_chart(&phases.get(), &frame);
                    let bars = chart
                        .bars
                        .iter()
                        .map(|bar| {
                            let label = phase_label(bar.phase);
                            view! {
                                <g class=format!("phase phase-{:?}", bar.phase).to_lowercase()>
                                    <text x=chart.plot.x_px - 6.0 y=bar.label_y_px + 4.0 text-anchor="end">{i18n.t(label)}</text>
                                    <rect x=bar.x_px y=bar.y_px width=bar.width_px.max(1.0) height=bar.height_px>
                                        <title>{format!("{:.1}–{:.1} ms", bar.start_ms, bar.end_ms)}</title>
                                    </rect>
                                </g>
                            }
                        })
                        .collect_view();
                    view! {
                        {axes(chart.plot, &chart.x_axis, None)}
                        {bars}
                    }
                }}
            </svg>
            <ChartTools
                test_id="chart-waterfall"
                headers=vec![t::COLUMN_PHASE, t::COLUMN_FROM_MS, t::COLUMN_TO_MS]
                rows=Signal::derive(move || {
                    waterfall_chart(&phases.get(), &frame)
                        .bars
                        .iter()
                        .map(|bar| {
                            vec![i18n.t(phase_label(bar.phase)).to_string(), format!("{:.1}", bar.start_ms), format!("{:.1}", bar.end_ms)]
                        })
                        .collect()
                })
            />
        </figure>
    }
}
