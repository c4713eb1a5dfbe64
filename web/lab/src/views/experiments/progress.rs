//! Where the experiment is: counting tokens, run k of n, or how it ended.

use leptos::prelude::*;

use crate::experiments::{ExperimentState, Experiments};
use ttft_web::i18n::use_i18n;

/// The experiment's progress, with its state and counts on `data-*` attributes.
#[component]
pub(super) fn ProgressLine(
    /// The experiments' state.
    experiments: Experiments,
) -> impl IntoView {
    let i18n = use_i18n();
    let text = move || {
        let (done, planned) = experiments.progress.get();
        let next = (done + 1).min(planned.max(1));
        match experiments.state.get() {
            ExperimentState::Preparing => i18n
                .t(
                    "Asking the server for its context window and token counts…",
                    "正在向服务器查询上下文窗口和 token 数…",
                )
                .to_owned(),
            ExperimentState::Running => i18n.pick(
                format!("Run {next} of {planned}…"),
                format!("第 {next}/{planned} 次运行…"),
            ),
            ExperimentState::Done => i18n.pick(
                format!("Done: {done} runs."),
                format!("完成：共 {done} 次运行。"),
            ),
            ExperimentState::Stopped => i18n.pick(
                format!("Stopped after {done} of {planned} runs; the results so far are kept."),
                format!("已在 {done}/{planned} 次运行后停止；已有结果保留。"),
            ),
            ExperimentState::Idle | ExperimentState::Refused => String::new(),
        }
    };
    view! {
        <span
            class="status"
            role="status"
            data-testid="exp-progress"
            data-state=move || experiments.state.get().code()
            data-done=move || experiments.progress.get().0.to_string()
            data-planned=move || experiments.progress.get().1.to_string()
        >
            {text}
        </span>
    }
}
