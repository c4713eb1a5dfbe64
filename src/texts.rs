//! The catalogue of this crate's texts: one line per text, English then Simplified
//! Chinese (docs/DESIGN.md §4, "One shape for UI text"). Each is a `ttft_core::text::Text`.

ttft_core::texts! {
    catalogue = ttft_core::text::catalogue::WIDGET;
    /// The results' line before the first run.
    NO_RUNS_YET =
        "No runs yet: press Send.",
        "还没有运行记录：请点击“发送”。";
    /// The one line the page shows while the lab replaces it.
    OPENING_THE_LAB =
        "Opening the lab…",
        "正在打开实验室…";
    /// The link from the results to the lab.
    OPEN_LAB_LINK =
        "More: experiments, history, exports, charts, fleet →",
        "更多：实验、历史、导出、图表、监控 →";
    RESULTS_HEADING =
        "Results",
        "结果";
}
