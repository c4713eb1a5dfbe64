//! A report's chart: a scatter with fitted curves, or values in order with reference
//! lines. Geometry comes from `ttft_lab::chart`; colours are the report's semantic names
//! mapped onto the page's palette of six.

use leptos::prelude::*;
use ttft_core::lang::Lang;
use ttft_lab::chart::{
    runs_chart, scatter_chart, Axis as ChartAxis, FitCurve, Frame, Marker, Rect, Reference,
    ReferenceLine, RunSeries, ScatterSeries,
};
use ttft_lab::experiment::report::{Axis, Chart, ChartKind, Colour};

use crate::views::charts::{axes, frame, reference_lines, view_box};

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

/// A chart's geometry in the one shape the template draws: the plot, its axes, reference
/// lines, fitted curves' paths and each series as an optional line with its markers.
struct Layout {
    plot: Rect,
    x_axis: ChartAxis,
    y_axis: ChartAxis,
    references: Vec<ReferenceLine>,
    curves: Vec<String>,
    groups: Vec<(Option<String>, Vec<Marker>)>,
}

/// A scatter chart (points and fitted curves, no reference lines).
fn scatter_layout(chart: &Chart, names: &[String], fit_names: &[String], frame: &Frame) -> Layout {
    let series: Vec<ScatterSeries> = chart
        .series
        .iter()
        .zip(names)
        .map(|(series, name)| ScatterSeries {
            name,
            points: &series.points,
        })
        .collect();
    let curves: Vec<FitCurve> = chart
        .fits
        .iter()
        .zip(fit_names)
        .map(|(fit, name)| FitCurve { name, fit: fit.fit })
        .collect();
    let geometry = scatter_chart(&series, &curves, CURVE_SAMPLES, frame);
    Layout {
        plot: geometry.plot,
        x_axis: geometry.x_axis,
        y_axis: geometry.y_axis,
        references: Vec::new(),
        curves: geometry
            .curves
            .into_iter()
            .map(|curve| curve.path)
            .collect(),
        groups: geometry
            .series
            .into_iter()
            .map(|one| (None, one.markers))
            .collect(),
    }
}

/// A sequence chart (one value per run, with reference lines, no curves).
fn sequence_layout(
    chart: &Chart,
    names: &[String],
    reference_names: &[String],
    frame: &Frame,
) -> Layout {
    let series: Vec<RunSeries> = chart
        .series
        .iter()
        .zip(names)
        .map(|(series, name)| RunSeries {
            name,
            values_ms: &series.values,
        })
        .collect();
    let references: Vec<Reference> = chart
        .references
        .iter()
        .zip(reference_names)
        .map(|(reference, name)| Reference {
            name,
            value: reference.value,
        })
        .collect();
    let geometry = runs_chart(&series, &references, frame);
    Layout {
        plot: geometry.plot,
        x_axis: geometry.x_axis,
        y_axis: geometry.y_axis,
        references: geometry.references,
        curves: Vec::new(),
        groups: geometry
            .series
            .into_iter()
            .map(|one| (Some(one.path), one.markers))
            .collect(),
    }
}

/// Draws `chart` in `lang`. Both kinds share one layout (axes, reference lines, fitted
/// curves, then each series as a group of an optional line and its markers), so the view
/// is built by one template.
pub(super) fn chart_view(chart: &Chart, lang: Lang) -> impl IntoView {
    let frame = frame(CHART_HEIGHT_PX, 56.0);
    let text = |text: &ttft_core::lang::Bilingual| text.get(lang).to_owned();
    let names: Vec<String> = chart
        .series
        .iter()
        .map(|series| text(&series.name))
        .collect();
    let fit_names: Vec<String> = chart.fits.iter().map(|fit| text(&fit.name)).collect();
    let reference_names: Vec<String> = chart
        .references
        .iter()
        .map(|reference| text(&reference.name))
        .collect();
    let Layout {
        plot,
        x_axis,
        y_axis,
        references,
        curves,
        groups,
    } = match chart.kind {
        ChartKind::Scatter => scatter_layout(chart, &names, &fit_names, &frame),
        ChartKind::Sequence => sequence_layout(chart, &names, &reference_names, &frame),
    };
    let lines = curves
        .into_iter()
        .zip(&chart.fits)
        .map(|(path, fit)| {
            let dashed = if fit.dashed { " dashed" } else { "" };
            let class = format!("exp-fit {}{dashed}", palette(fit.colour));
            view! { <path class=class d=path></path> }
        })
        .collect_view();
    let groups = groups
        .into_iter()
        .zip(&chart.series)
        .map(|((path, markers), series)| {
            let markers = markers
                .iter()
                .map(|m| view! { <circle cx=m.x_px cy=m.y_px r="3"><title>{format!("{:.0}: {:.0} ms", m.x_value, m.y_value)}</title></circle> })
                .collect_view();
            view! {
                <g class=format!("exp-series {}", palette(series.colour))>
                    {path.map(|d| view! { <path d=d></path> })}
                    {markers}
                </g>
            }
        })
        .collect_view();
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
        <div class="charts">
            <figure class="chart" data-token-source=chart.x.counts.map(|source| source.code())>
                <figcaption>{caption.clone()}<br /><small class="axes-note">{axes_note}</small></figcaption>
                <svg viewBox=view_box(&frame) role="img" aria-label=caption>
                    {axes(plot, &x_axis, Some(&y_axis))}
                    {reference_lines(&references)}
                    {lines}
                    {groups}
                </svg>
                <ul class="legend">{legend}</ul>
            </figure>
        </div>
    }
}
