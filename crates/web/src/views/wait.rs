//! Where one run's wait went ([`WaitBreakdown`]): a bar of its parts in the order of the
//! wait, from the click to the paint, a line per part (its time and how it is known), the
//! verdict (the largest cause and its remedy), and what the round trip and a disbelieved
//! server account rest on. Shown under the readouts of the widget and in the lab's run detail.

use crate::i18n::use_i18n;
use leptos::prelude::*;
use leptos::tachys::html::attribute::custom::CustomAttribute;
use ttft_core::lang::Lang;
use ttft_core::texts as core_texts;
use ttft_core::timeline::{PartSource, PartTime, WaitBreakdown, WaitPart, WaitVerdict};

/// The segments shown: the browser before the request, the parts of `ttfa_ms`, the paint.
fn segments(breakdown: &WaitBreakdown) -> Vec<PartTime> {
    let measured = |part, ms: Option<f64>| {
        ms.map(|ms| PartTime {
            part,
            ms,
            source: PartSource::Measured,
        })
    };
    measured(WaitPart::Browser, breakdown.browser_ms)
        .into_iter()
        .chain(breakdown.parts.iter().copied())
        .chain(measured(WaitPart::Paint, breakdown.paint_ms))
        .collect()
}

/// The label of a segment in this run.
fn label(breakdown: &WaitBreakdown, time: &PartTime, lang: Lang) -> &'static str {
    breakdown.label(time, lang)
}

/// One run's wait in `lang`: built whole, with no reactive parts inside (the caller rebuilds
/// it when the language or the run changes), which keeps its code small on the first load.
pub fn wait_view(breakdown: &WaitBreakdown, lang: Lang) -> impl IntoView {
    let verdict = WaitVerdict::of(breakdown);
    let segments = segments(breakdown);
    let total_ms: f64 = segments.iter().map(|segment| segment.ms).sum();
    let bar = segments
        .iter()
        .map(|segment| {
            let share = if total_ms > 0.0 {
                segment.ms / total_ms * 100.0
            } else {
                0.0
            };
            let title = format!(
                "{}: {:.0} ms ({})",
                label(breakdown, segment, lang),
                segment.ms,
                segment.source.label(lang)
            );
            view! {
                <span
                    class=format!("wait-seg part-{}", segment.part.code())
                    style:width=format!("{share:.3}%")
                    title=title
                ></span>
            }
        })
        .collect_view();
    let rows = segments
        .iter()
        .map(|segment| {
            let code = segment.part.code();
            view! {
                <li data-part=code data-ms=format!("{:.3}", segment.ms) data-source=segment.source.code()>
                    <span class=format!("swatch part-{code}")></span>
                    {format!(
                        "{} {:.0} ms ",
                        label(breakdown, segment, lang),
                        segment.ms
                    )}
                    <span class="source">{segment.source.label(lang)}</span>
                </li>
            }
        })
        .collect_view();
    let claim = breakdown.claim_text(lang);
    let claimed = claim.is_some().to_string();
    let upload = breakdown.upload_note(lang);
    let relay = breakdown.relay_text(lang);
    let via_relay = relay.is_some().to_string();
    view! {
        <div
            class="wait"
            data-testid="wait"
            data-ttfa-ms=format!("{:.3}", breakdown.ttfa_ms)
            data-verdict=verdict.map(|verdict| verdict.cause.code()).unwrap_or_default()
            data-server-claim-rejected=claimed
            data-relay=via_relay
        >
            <div class="wait-heading">{core_texts::WAIT_HEADING.get(lang)}</div>
            <div class="wait-bar" aria-hidden="true">{bar}</div>
            <p class="wait-verdict" data-testid="wait-verdict">
                <strong>{verdict.map(|verdict| verdict.headline(lang))}</strong>
                " "
                {verdict.map(|verdict| verdict.remedy(lang))}
            </p>
            <ul class="wait-parts" data-testid="wait-parts">{rows}</ul>
            <p class="meta" data-testid="wait-round-trip">{breakdown.round_trip_text(lang)}</p>
            {relay.map(|text| view! { <p class="meta" data-testid="wait-relay">{text}</p> })}
            {upload.map(|text| view! { <p class="meta" data-testid="wait-upload">{text}</p> })}
            {claim.map(|text| view! {
                <p class="meta flagged" data-testid="wait-claim-rejected">{text}</p>
            })}
        </div>
    }
}

/// One run's wait, part by part, with the verdict, in the page's language.
#[component]
pub fn WaitView(
    /// The run's breakdown.
    breakdown: WaitBreakdown,
) -> impl IntoView {
    let i18n = use_i18n();
    move || wait_view(&breakdown, i18n.lang.get())
}

/// Where the wait went over runs: the median of each part and the verdict on the medians.
#[component]
pub fn WaitSummaryView(
    /// The runs' summary.
    summary: ttft_core::timeline::WaitSummary,
) -> impl IntoView {
    let i18n = use_i18n();
    let verdict = summary.verdict;
    let total_ms: f64 = summary.p50_ms.iter().map(|(_, ms)| ms).sum();
    let bar = summary
        .p50_ms
        .iter()
        .map(|(part, ms)| {
            let share = if total_ms > 0.0 {
                ms / total_ms * 100.0
            } else {
                0.0
            };
            let (part, ms) = (*part, *ms);
            view! {
                <span
                    class=format!("wait-seg part-{}", part.code())
                    style:width=format!("{share:.3}%")
                    title=move || format!("{}: p50 {ms:.0} ms", part.label(i18n.lang.get()))
                ></span>
            }
        })
        .collect_view();
    let rows = summary
        .p50_ms
        .iter()
        .map(|(part, ms)| {
            let (part, ms) = (*part, *ms);
            view! {
                <li data-part=part.code() data-ms=format!("{ms:.3}")>
                    <span class=format!("swatch part-{}", part.code())></span>
                    {move || part.label(i18n.lang.get())}
                    " "
                    <span class="ms">{format!("{ms:.0} ms")}</span>
                </li>
            }
        })
        .collect_view();
    let runs = summary.runs;
    view! {
        <div
            class="wait"
            data-testid="wait-summary"
            data-runs=runs
            data-verdict=verdict.map(|verdict| verdict.cause.code()).unwrap_or_default()
        >
            <div class="wait-heading">
                {move || format!("{} (p50, n = {runs})", i18n.t(core_texts::WAIT_HEADING))}
            </div>
            <div class="wait-bar" aria-hidden="true">{bar}</div>
            <p class="wait-verdict">
                <strong>{move || verdict.map(|verdict| verdict.headline(i18n.lang.get()))}</strong>
                " "
                {move || verdict.map(|verdict| verdict.remedy(i18n.lang.get()))}
            </p>
            <ul class="wait-parts">{rows}</ul>
        </div>
    }
}
