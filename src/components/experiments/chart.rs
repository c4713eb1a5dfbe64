//! A report's chart: a scatter with fitted curves, or values in order with reference
//! lines. Geometry comes from `ttft_core::chart`; colours are the report's semantic names
//! mapped onto the page's palette of six.

use leptos::prelude::*;
use ttft_core::chart::{runs_chart, scatter_chart, FitCurve, Reference, RunSeries, ScatterSeries};
use ttft_core::experiment::report::{Axis, Chart, ChartKind, Colour};
use ttft_core::lang::Lang;

use crate::components::charts::{axes, frame, reference_lines, view_box};
use crate::i18n::use_i18n;

/// Height of the experiment charts, px (viewBox units).
const CHART_HEIGHT_PX: f64 = 240.0;
/// Samples along a fitted curve.
const CURVE_SAMPLES: usize = 120;

/// The palette class (`exp-series-0` … `exp-series-5`) of a colour.
fn palette(colour: Colour) -> String {
    let index = match colour {
        Colour::Measured | Colour::Answer => 0,
        Colour::Fit | Colour::Tail | Colour::Changed => 1,
        Colour::SecondFit | Colour::Reasoning => 2,
        Colour::Median | Colour::Warm => 3,
        Colour::Limit | Colour::FarTail => 4,
        Colour::Cold => 5,
        Colour::Category(index) => usize::from(index) % 6,
    };
    format!("exp-series-{index}")
}

/// "prompt tokens (server usage)" or "TTFT (ms)".
fn axis_label(axis: &Axis, lang: Lang) -> String {
    match axis.unit.symbol() {
        Some(symbol) => format!("{} ({symbol})", axis.label.get(lang)),
        None => axis.label.get(lang).to_owned(),
    }
}

/// Draws `chart` in `lang`.
fn draw(chart: &Chart, lang: Lang) -> impl IntoView {
    let frame = frame(CHART_HEIGHT_PX, 56.0);
    let names: Vec<String> = chart
        .series
        .iter()
        .map(|series| series.name.get(lang).to_owned())
        .collect();
    let fit_names: Vec<String> = chart
        .fits
        .iter()
        .map(|fit| fit.name.get(lang).to_owned())
        .collect();
    let plot = match chart.kind {
        ChartKind::Scatter => {
            let series: Vec<ScatterSeries> = chart
                .series
                .iter()
                .zip(&names)
                .map(|(series, name)| ScatterSeries {
                    name,
                    points: &series.points,
                })
                .collect();
            let curves: Vec<FitCurve> = chart
                .fits
                .iter()
                .zip(&fit_names)
                .map(|(fit, name)| FitCurve { name, fit: fit.fit })
                .collect();
            let geometry = scatter_chart(&series, &curves, CURVE_SAMPLES, &frame);
            let lines = geometry
                .curves
                .iter()
                .zip(&chart.fits)
                .map(|(curve, fit)| {
                    let dashed = if fit.dashed { " dashed" } else { "" };
                    let class = format!("exp-fit {}{dashed}", palette(fit.colour));
                    view! { <path class=class d=curve.path.clone()></path> }
                })
                .collect_view();
            let dots = geometry
                .series
                .iter()
                .zip(&chart.series)
                .map(|(one, series)| {
                    let markers = one
                        .markers
                        .iter()
                        .map(|m| view! { <circle cx=m.x_px cy=m.y_px r="3"><title>{format!("{:.0}: {:.0} ms", m.x_value, m.y_value)}</title></circle> })
                        .collect_view();
                    view! { <g class=format!("exp-series {}", palette(series.colour))>{markers}</g> }
                })
                .collect_view();
            view! {
                {axes(geometry.plot, &geometry.x_axis, Some(&geometry.y_axis))}
                {lines}
                {dots}
            }
            .into_any()
        }
        ChartKind::Sequence => {
            let series: Vec<RunSeries> = chart
                .series
                .iter()
                .zip(&names)
                .map(|(series, name)| RunSeries {
                    name,
                    values_ms: &series.values,
                })
                .collect();
            let reference_names: Vec<String> = chart
                .references
                .iter()
                .map(|reference| reference.name.get(lang).to_owned())
                .collect();
            let references: Vec<Reference> = chart
                .references
                .iter()
                .zip(&reference_names)
                .map(|(reference, name)| Reference {
                    name,
                    value: reference.value,
                })
                .collect();
            let geometry = runs_chart(&series, &references, &frame);
            let lines = geometry
                .series
                .iter()
                .zip(&chart.series)
                .map(|(one, series)| {
                    let dots = one
                        .markers
                        .iter()
                        .map(|m| view! { <circle cx=m.x_px cy=m.y_px r="3"></circle> })
                        .collect_view();
                    view! {
                        <g class=format!("exp-series {}", palette(series.colour))>
                            <path d=one.path.clone()></path>
                            {dots}
                        </g>
                    }
                })
                .collect_view();
            view! {
                {axes(geometry.plot, &geometry.x_axis, Some(&geometry.y_axis))}
                {reference_lines(&geometry.references)}
                {lines}
            }
            .into_any()
        }
    };
    let legend = chart
        .series
        .iter()
        .zip(names)
        .map(|(series, name)| (palette(series.colour), name))
        .chain(chart.fits.iter().zip(fit_names).map(|(fit, name)| {
            let dashed = if fit.dashed { " dashed" } else { "" };
            (format!("exp-fit {}{dashed}", palette(fit.colour)), name)
        }))
        .map(|(class, name)| view! { <li class=class>{name}</li> })
        .collect_view();
    let caption = chart.title.get(lang).to_owned();
    let axes_note = format!(
        "x: {} · y: {}",
        axis_label(&chart.x, lang),
        axis_label(&chart.y, lang)
    );
    view! {
        <figure class="chart" data-token-source=chart.x.counts.map(|source| source.code())>
            <figcaption>{caption.clone()}<br /><small class="axes-note">{axes_note}</small></figcaption>
            <svg viewBox=view_box(&frame) role="img" aria-label=caption>
                {plot}
            </svg>
            <ul class="legend">{legend}</ul>
        </figure>
    }
}

/// A report's chart, redrawn when the language changes.
#[component]
pub(super) fn ReportChart(
    /// The chart.
    chart: Chart,
) -> impl IntoView {
    let i18n = use_i18n();
    view! { <div class="charts">{move || draw(&chart, i18n.lang.get())}</div> }
}
