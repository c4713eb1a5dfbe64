//! Export, import, copy-summary and the stored history (delete one or all).

use leptos::prelude::*;
use leptos::task::spawn_local;
use ttft_core::export::{runs_csv, summary_text, CsvHeader, ExportDocument};
use ttft_core::history;
use ttft_core::lang::Lang;
use ttft_core::record::{RunRecord, Transport};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::views::download::download;

use ttft_web::i18n::use_i18n;
use ttft_web::key_gate::use_key_gate;
use ttft_web::session::Session;
use ttft_web::views::controls::ShowAllToggle;
use ttft_web::views::live::format_ms;
use ttft_web::{clock, persist};

/// A file-name stamp: `2026-11-29T17-05-00`.
fn stamp() -> String {
    clock::iso_time(clock::now_ms())
        .chars()
        .take(19)
        .map(|character| if character == ':' { '-' } else { character })
        .collect()
}

/// Export JSON / CSV, copy the summary, import JSON.
#[component]
pub fn ShareBar() -> impl IntoView {
    let i18n = use_i18n();
    let session = use_context::<Session>().unwrap_or_default();
    let gate = use_key_gate();
    let runs = session.runs;
    // Exports are checked against the key before they are offered (defence in depth).
    let offer = move |file_name: String, mime: &'static str, text: &str| match history::check_export(
        text,
        gate.scrubber().as_ref(),
    ) {
        Ok(()) => download(&file_name, mime, text),
        Err(notice) => session.notify(notice),
    };
    // What the last action said (en, zh), shown in a live region.
    let message = RwSignal::new(None::<(String, String)>);
    // The summary, shown for manual copying when the clipboard is unavailable.
    let manual_copy = RwSignal::new(None::<String>);

    let export_json = move |_| {
        let transport = use_context::<RwSignal<Option<Transport>>>()
            .and_then(|transport| transport.get_untracked())
            .unwrap_or(Transport::Worker);
        let document = runs.with_untracked(|runs| persist::document(runs, transport));
        match document.to_json() {
            Ok(text) => offer(
                format!("ttft-meter-{}.json", stamp()),
                "application/json",
                &text,
            ),
            Err(error) => message.set(Some((error.to_string(), error.to_string()))),
        }
    };
    let export_csv = move |_| {
        let text = runs.with_untracked(|runs| runs_csv(runs, CsvHeader::WithPeerNames));
        offer(format!("ttft-meter-{}.csv", stamp()), "text/csv", &text);
    };
    let copy_summary = move |_| {
        let lang = i18n.lang_untracked();
        let text = match runs.with_untracked(|runs| summary_text(runs, lang)) {
            Ok(text) => text,
            Err(error) => return message.set(Some((error.to_string(), error.to_string()))),
        };
        spawn_local(async move {
            let copied = match web_sys::window().map(|window| window.navigator().clipboard()) {
                Some(clipboard) => JsFuture::from(clipboard.write_text(&text)).await.is_ok(),
                None => false,
            };
            if copied {
                manual_copy.set(None);
                message.set(Some(("Summary copied.".into(), "摘要已复制。".into())));
            } else {
                manual_copy.set(Some(text));
                message.set(Some((
                    "The clipboard is not available here: select the text below and copy it."
                        .into(),
                    "此处无法使用剪贴板：请选中下方文本并复制。".into(),
                )));
            }
        });
    };
    let import = move |event: web_sys::Event| {
        let Some(input) = event
            .target()
            .and_then(|target| target.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|files| files.get(0)) else {
            return;
        };
        input.set_value("");
        // Refused before it is read: a huge file would stall the page and its memory.
        if let Err(notice) = history::check_import_size(file.size() as u64) {
            let lang_message = (notice.message(Lang::En), notice.message(Lang::Zh));
            session.notify(notice);
            return message.set(Some(lang_message));
        }
        spawn_local(async move {
            let text = JsFuture::from(file.text())
                .await
                .ok()
                .and_then(|value| value.as_string())
                .unwrap_or_default();
            match ExportDocument::from_json(&text) {
                Ok(document) => {
                    let count = document.runs.len();
                    // The same scrubbing as measured runs; numbers that do not rise are
                    // renumbered, and the page says so.
                    let (runs, notice) =
                        history::prepare_runs(document.runs, gate.scrubber().as_ref());
                    session.replace(runs);
                    if let Some(notice) = notice {
                        session.notify(notice);
                    }
                    message.set(Some((
                        format!("Imported {count} runs."),
                        format!("已导入 {count} 次运行。"),
                    )));
                }
                Err(error) => message.set(Some((error.message(Lang::En), error.message(Lang::Zh)))),
            }
        });
    };
    let empty = move || runs.with(Vec::is_empty);

    view! {
        <div class="share" role="group" aria-label=move || i18n.t("Export and import", "导出与导入")>
            <button type="button" data-testid="export-json" on:click=export_json disabled=empty>
                {move || i18n.t("Export JSON", "导出 JSON")}
            </button>
            <button type="button" data-testid="export-csv" on:click=export_csv disabled=empty>
                {move || i18n.t("Export CSV", "导出 CSV")}
            </button>
            <button type="button" data-testid="copy-summary" on:click=copy_summary disabled=empty>
                {move || i18n.t("Copy summary", "复制摘要")}
            </button>
            // The native file input shows the browser's own (untranslated) words, so it is
            // hidden visually but kept focusable; the label looks like a button.
            <label class="file-button">
                <input type="file" class="visually-hidden" accept=".json,application/json" data-testid="import-json" on:change=import />
                <span class="button-like">{move || i18n.t("Import JSON (replaces the history)", "导入 JSON（替换历史记录）")}</span>
            </label>
            <crate::fleet::share::CopyLink />
            <p class="meta" role="status" data-testid="share-message">
                {move || message.get().map(|(en, zh)| i18n.pick(en, zh))}
            </p>
            {move || manual_copy.get().map(|text| view! {
                <textarea class="manual-copy" readonly aria-label=move || i18n.t("Summary text", "摘要文本")>{text}</textarea>
            })}
        </div>
    }
}

/// History items listed by default (the newest); the rest on request.
pub const HISTORY_WINDOW_ITEMS: usize = 50;

/// The stored runs, newest first, each deletable; and "delete all" with a confirmation step.
#[component]
pub fn HistoryList() -> impl IntoView {
    let i18n = use_i18n();
    let session = use_context::<Session>().unwrap_or_default();
    let runs = session.runs;
    let confirming = RwSignal::new(false);
    let delete = move |number: u32| session.delete(number);
    let delete_all = move |_| {
        if confirming.get_untracked() {
            session.clear();
            confirming.set(false);
        } else {
            confirming.set(true);
        }
    };
    let show_all = RwSignal::new(false);
    let total = Memo::new(move |_| runs.with(Vec::len));
    // Newest first; the newest HISTORY_WINDOW only, unless asked: a thousand list items
    // would be rebuilt on every change otherwise.
    let shown = move || {
        let limit = if show_all.get() {
            usize::MAX
        } else {
            HISTORY_WINDOW_ITEMS
        };
        runs.with(|records| {
            records
                .iter()
                .rev()
                .take(limit)
                .cloned()
                .collect::<Vec<_>>()
        })
    };
    let row = move |record: RunRecord| {
        let number = record.run_index;
        let when = format!(
            "{} UTC",
            record
                .started_at
                .replace('T', " ")
                .chars()
                .take(19)
                .collect::<String>()
        );
        let ok = record.is_ok();
        view! {
            <li data-testid="history-item" data-run=number>
                <span class="history-run">{format!("#{number}")}</span>
                <span class="history-when">{when}</span>
                <span class="history-model">{record.settings.model.clone()}</span>
                <span class="history-ttfa">{format!("ttfa_ms {}", format_ms(record.metrics.ttfa_ms))}</span>
                <span class=if ok { "history-outcome ok" } else { "history-outcome failed" }>
                    {move || if ok { i18n.t("ok", "成功") } else { i18n.t("failed", "失败") }}
                </span>
                <button
                    type="button"
                    class="small"
                    data-testid="history-delete"
                    aria-label=move || i18n.pick(format!("Delete run {number}"), format!("删除第 {number} 次运行"))
                    on:click=move |_| delete(number)
                >
                    {move || i18n.t("Delete", "删除")}
                </button>
            </li>
        }
    };
    view! {
        <section class="panel history" aria-labelledby="history-heading" data-testid="history">
            <h2 id="history-heading">{move || i18n.t("History (kept in this browser)", "历史记录（保存在此浏览器中）")}</h2>
            <p class="meta">
                {move || i18n.t(
                    "Finished runs are kept in this browser's local storage (the last 1000), never the API key.",
                    "已完成的运行保存在此浏览器的本地存储中（最多 1000 次），从不保存 API 密钥。",
                )}
            </p>
            <ShareBar />
            <Show when=move || !runs.with(Vec::is_empty)>
                <ul class="history-list">
                    <For each=shown key=|record| record.run_index children=row />
                </ul>
                <ShowAllToggle testid="history-show-all" show_all=show_all total=total window=HISTORY_WINDOW_ITEMS />
                <button type="button" data-testid="history-delete-all" on:click=delete_all>
                    {move || if confirming.get() {
                        i18n.t("Really delete all runs? Click again", "确定删除全部运行？再点一次")
                    } else {
                        i18n.t("Delete all runs", "删除全部运行")
                    }}
                </button>
            </Show>
        </section>
    }
}
