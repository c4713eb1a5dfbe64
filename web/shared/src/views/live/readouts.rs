//! The headline numbers of the run in progress (first answer token, on screen, first
//! reasoning token, first chunk, elapsed).

use super::state::LiveRun;
use crate::clock;
use crate::i18n::use_i18n;
use leptos::prelude::*;
use leptos::tachys::html::attribute::custom::CustomAttribute;

/// Milliseconds for display: whole ms, or "—" when missing.
pub fn format_ms(value_ms: Option<f64>) -> String {
    value_ms.map_or_else(|| "—".into(), |value_ms| format!("{value_ms:.0} ms"))
}

fn raw_ms(value_ms: Option<f64>) -> String {
    value_ms
        .map(|value_ms| format!("{value_ms:.3}"))
        .unwrap_or_default()
}

/// One headline number; `data-ms` holds the exact value for tests and scripts.
#[component]
fn Readout(
    /// `data-testid`.
    test_id: &'static str,
    /// The label.
    #[prop(into)]
    label: Signal<&'static str>,
    /// The metric name shown under the value.
    note: &'static str,
    /// The value.
    value_ms: RwSignal<Option<f64>>,
    /// While there is no value yet: whole seconds so far, shown as "3 s…".
    #[prop(optional)]
    running_s: Option<RwSignal<Option<u32>>>,
) -> impl IntoView {
    let shown = move || match (
        value_ms.get(),
        running_s.and_then(|running_s| running_s.get()),
    ) {
        (None, Some(whole_s)) => format!("{whole_s} s…"),
        (value_ms, _) => format_ms(value_ms),
    };
    view! {
        <div class="readout">
            <div class="label">{label}</div>
            <div class="value" data-testid=test_id data-ms=move || raw_ms(value_ms.get())>
                {shown}
            </div>
            <div class="note">{note}</div>
        </div>
    }
}

/// The headline numbers of the current run, the elapsed counter and the timer resolution.
#[component]
pub fn Readouts(
    /// The run being shown.
    live: LiveRun,
) -> impl IntoView {
    let i18n = use_i18n();
    let resolution = clock::timer_resolution_ms();
    let isolated = clock::cross_origin_isolated();
    view! {
        <div class="readouts">
            <Readout
                test_id="ttfa"
                label=Signal::derive(move || i18n.t("First answer token", "首个回答 token"))
                note="ttfa_ms"
                value_ms=live.ttfa_ms
            />
            <Readout
                test_id="perceived-ttfa"
                label=Signal::derive(move || i18n.t("First answer on screen", "回答首次显示"))
                note="perceived_ttfa_ms"
                value_ms=live.perceived_ttfa_ms
            />
            <Readout
                test_id="ttfr"
                label=Signal::derive(move || i18n.t("First reasoning token", "首个推理 token"))
                note="ttfr_ms"
                value_ms=live.ttfr_ms
            />
            <Readout
                test_id="first-chunk"
                label=Signal::derive(move || i18n.t("First chunk of any kind", "首个数据块"))
                note="first_chunk_ms"
                value_ms=live.first_chunk_ms
            />
            <Readout
                test_id="elapsed"
                label=Signal::derive(move || i18n.t("Elapsed", "已用时间"))
                note="e2e_ms"
                value_ms=live.elapsed_ms
                running_s=live.running_s
            />
        </div>
        {move || live.arrival_delay.get().map(|(bound_ms, flagged)| {
            view! {
                <p
                    class="meta arrival-delay"
                    class:flagged=flagged
                    data-testid="arrival-delay"
                    data-ms=format!("{bound_ms:.3}")
                    data-flagged=flagged.to_string()
                >
                    {move || i18n.pick(
                        format!(
                            "Arrival times may be late by up to {bound_ms:.0} ms{}: this browser hands a worker's network traffic to the page's main thread, which was busy that long while the run waited for its first answer token.",
                            if flagged { " (over 50 ms: read this run's times with care)" } else { "" },
                        ),
                        format!(
                            "到达时间最多可能偏晚 {bound_ms:.0} ms{}：此浏览器的 Worker 网络数据需经页面主线程传递，而在等待首个回答 token 期间主线程曾繁忙这么久。",
                            if flagged { "（超过 50 ms：请谨慎看待本次运行的时间）" } else { "" },
                        ),
                    )}
                </p>
            }
        })}
        <p class="meta" data-testid="timer-resolution" data-step-ms=resolution.map(|step_ms| format!("{step_ms}")).unwrap_or_default()>
            {move || match resolution {
                Some(step_ms) => {
                    i18n.pick(
                        format!(
                            "Timer step {step_ms:.3} ms{}",
                            if isolated { " (cross-origin isolated)" } else { " (not isolated: serve with COOP/COEP for 5 µs steps)" },
                        ),
                        format!(
                            "计时精度 {step_ms:.3} ms{}",
                            if isolated { "（已跨源隔离）" } else { "（未隔离：使用 COOP/COEP 可达 5 µs）" },
                        ),
                    )
                }
                None => i18n.t("Timer step unknown", "计时精度未知").to_string(),
            }}
        </p>
    }
}
