//! Export, import, copy-summary and the stored history (delete one or all).

use leptos::prelude::*;
use leptos::task::spawn_local;
use ttft_core::export::{runs_csv, summary_text, CsvHeader, ExportDocument};
use ttft_core::history;
use ttft_core::lang::Bilingual;
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

use crate::texts as t;

/// A file-name stamp: `2026-11-29T17-05-00`.
fn stamp() -> String {
    clock::iso_time(clock::now_ms())
        .chars()
        .take(19)
        .map(|character| if character == ':' { '-' } else { character })
        .collect()
}

/// An error the core words in English only (writing JSON, computing the summary): the
/// same text in both languages.
fn english_only(message: String) -> Bilingual {
    Bilingual::new(message.clone(), message)
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
    // What the last action said, shown in a live region.
    let message = RwSignal::new(None::<Bilingual>);
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
            Err(error) => message.set(Some(english_only(error.to_string()))),
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
            Err(error) => return message.set(Some(english_only(error.to_string()))),
        };
        spawn_local(async move {
            let copied = match web_sys::window().map(|window| window.navigator().clipboard()) {
                Some(clipboard) => JsFuture::from(clipboard.write_text(&text)).await.is_ok(),
                None => false,
            };
            if copied {
                manual_copy.set(None);
                message.set(Some(t::SUMMARY_COPIED.bilingual()));
            } else {
                manual_copy.set(Some(text));
                message.set(Some(t::SUMMARY_CLIPBOARD_UNAVAILABLE.bilingual()));
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
            let text = Bilingual::from_fn(|lang| notice.message(lang));
            session.notify(notice);
            return message.set(Some(text));
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
                    message.set(Some(t::IMPORTED_RUNS.bilingual_with(&[("count", &count)])));
                }
                Err(error) => message.set(Some(Bilingual::from_fn(|lang| error.message(lang)))),
            }
        });
    };
    let empty = move || runs.with(Vec::is_empty);

    view! {
        <div class="share" role="group" aria-label=move || i18n.t(t::EXPORT_AND_IMPORT)>
            <button type="button" data-testid="export-json" on:click=export_json disabled=empty>
                {move || i18n.t(t::EXPORT_JSON)}
            </button>
            <button type="button" data-testid="export-csv" on:click=export_csv disabled=empty>
                {move || i18n.t(t::EXPORT_CSV)}
            </button>
            <button type="button" data-testid="copy-summary" on:click=copy_summary disabled=empty>
                {move || i18n.t(t::COPY_SUMMARY)}
            </button>
            // The native file input shows the browser's own (untranslated) words, so it is
            // hidden visually but kept focusable; the label looks like a button.
            <label class="file-button">
                <input type="file" class="visually-hidden" accept=".json,application/json" data-testid="import-json" on:change=import />
                <span class="button-like">{move || i18n.t(t::IMPORT_JSON_REPLACES_THE_HISTORY)}</span>
            </label>
            <crate::fleet::share::CopyLink />
            <p class="meta" role="status" data-testid="share-message">
                {move || message.with(|message| message.as_ref().map(|text| i18n.pick(text)))}
            </p>
            {move || manual_copy.get().map(|text| view! {
                <textarea class="manual-copy" readonly aria-label=move || i18n.t(t::SUMMARY_TEXT)>{text}</textarea>
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
                {record.via_relay().then(|| view! {
                    <span class="via-relay" data-testid="history-via-relay">
                        {move || i18n.t(ttft_web::texts::VIA_RELAY)}
                    </span>
                })}
                <span class=if ok { "history-outcome ok" } else { "history-outcome failed" }>
                    {move || i18n.t(if ok { t::OUTCOME_OK } else { t::OUTCOME_FAILED })}
                </span>
                <button
                    type="button"
                    class="small"
                    data-testid="history-delete"
                    aria-label=move || i18n.fill(t::DELETE_RUN, &[("number", &number)])
                    on:click=move |_| delete(number)
                >
                    {move || i18n.t(t::DELETE)}
                </button>
            </li>
        }
    };
    view! {
        <section class="panel history" aria-labelledby="history-heading" data-testid="history">
            <h2 id="history-heading">{move || i18n.t(t::HISTORY_KEPT_IN_THIS_BROWSER)}</h2>
            <p class="meta">
                {move || i18n.t(t::FINISHED_RUNS_ARE_KEPT_IN_THIS)}
            </p>
            <ShareBar />
            <Show when=move || !runs.with(Vec::is_empty)>
                <ul class="history-list">
                    <For each=shown key=|record| record.run_index children=row />
                </ul>
                <ShowAllToggle testid="history-show-all" show_all=show_all total=total window=HISTORY_WINDOW_ITEMS />
                <button type="button" data-testid="history-delete-all" on:click=delete_all>
                    {move || if confirming.get() {
                        i18n.t(t::REALLY_DELETE_ALL_RUNS_CLICK_AGAIN)
                    } else {
                        i18n.t(t::DELETE_ALL_RUNS)
                    }}
                </button>
            </Show>
        </section>
    }
}
