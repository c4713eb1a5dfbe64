//! The widget: the first screen, and all a visitor downloads before the meter works (the
//! page's `index.html`, bin `widget`). It measures and shows runs exactly as the lab does
//! (the same form, key gate, engine, live panes, readouts, diagnosis, runs table, URL
//! parameters and `postMessage` messages, all from `ttft-web`), and nothing else:
//! experiments, history import and export, charts, PNG export, fleet settings (OTLP, trace
//! context, SLOs, probe mode) and share links live in the lab (`lab/`, package
//! `ttft-lab-page`, its own wasm), which the widget opens on request with a link. Both pages
//! share the origin, so the session's runs (localStorage history) and the key
//! (sessionStorage, this tab) carry over.
//!
//! This package depends on neither `ttft-lab` nor the lab's package: Cargo keeps lab code
//! out of the first load.

pub mod texts;

use crate::texts as t;
use leptos::prelude::*;
use leptos::task::spawn_local;
use ttft_core::config::UrlConfig;
use ttft_core::preset::SIMULATOR_PROBE_PATH;
use ttft_core::record::Transport;
use ttft_web::i18n::{browser_lang, ensure_texts};
use ttft_web::key_gate::KeyConsent;
use ttft_web::navigation::{lab_href, replace_with_lab};
use ttft_web::page::{post_ready, start_transport, PageStart, PageState};
use ttft_web::series::{plain_send_handler, wasm_memory_bytes, SeriesContext};
use ttft_web::state::RunsView;
use ttft_web::views::endpoint::EndpointForm;
use ttft_web::views::header::PageHeader;
use ttft_web::views::notices::{ChooseEndpointNotice, HistoryNotices, KeyRefusedNotice};
use ttft_web::views::run_panel::RunPanel;
use ttft_web::views::runs_table::{RunDetailLean, RunsTable};
use ttft_web::{availability, embed, paint, persist};

/// The widget page's start. First, before anything can keep it, a key in the URL is dropped
/// from the address bar (reading the configuration does it). An address made for the lab
/// (an experiment, fleet options, a share link) opens the lab: until it replaces this page,
/// the page shows one line and starts nothing (no form to type into, no `ready` message, no
/// worker, no Leptos), so that nobody (a user, a test, a host page) acts on a page that is
/// going away. Otherwise the widget is mounted.
pub fn start() {
    let config = embed::read_page_config();
    let fragment = web_sys::window()
        .and_then(|window| window.location().hash().ok())
        .unwrap_or_default();
    let lang = config
        .lang
        .or_else(persist::saved_lang)
        .unwrap_or_else(browser_lang);
    if config.needs_lab(&fragment) && replace_with_lab() {
        show_opening_lab(t::OPENING_THE_LAB.get(lang));
        return;
    }
    // Chinese is loaded before the first render (the widget is built with ttft-core's
    // `zh-on-demand`): a Chinese visitor never sees the page in English first.
    if ttft_core::text::needs_loading(lang) {
        // Leptos's executor starts with the mount: before it, wasm-bindgen's.
        wasm_bindgen_futures::spawn_local(async move {
            ensure_texts(lang).await;
            leptos::mount::mount_to_body(move || view! { <WidgetApp config=config /> });
        });
    } else {
        leptos::mount::mount_to_body(move || view! { <WidgetApp config=config /> });
    }
}

/// One plain line in the page's body while the lab replaces it (text, never HTML).
fn show_opening_lab(text: &str) {
    let Some(document) = web_sys::window().and_then(|window| window.document()) else {
        return;
    };
    let (Some(body), Ok(line)) = (document.body(), document.create_element("p")) else {
        return;
    };
    line.set_class_name("meta");
    let _ = line.set_attribute("role", "status");
    let _ = line.set_attribute("data-testid", "opening-lab");
    line.set_text_content(Some(text));
    let _ = body.append_child(&line);
}

/// The lean widget, configured by the page's address ([`start`] read it). Its runs' requests
/// go through `carrier`: the page's fetch worker when none is given (the page), a script in
/// the component tests.
#[component]
pub fn WidgetApp(
    config: UrlConfig,
    #[prop(optional)] carrier: Option<ttft_web::transport::SharedCarrier>,
) -> impl IntoView {
    let PageState {
        i18n,
        gate,
        form,
        live,
        session,
        embed,
        runs_filter,
        theme,
        carrier,
    } = PageState::provide(
        &config,
        carrier.unwrap_or_else(ttft_web::transport::page_carrier),
    );
    post_ready(&embed);
    let context = SeriesContext::new(live, session, embed.clone(), (), carrier);
    paint::install_observer();
    availability::install_observer();
    let (
        PageStart {
            transport,
            simulator,
        },
        started,
    ) = start_transport(form, SIMULATOR_PROBE_PATH);
    spawn_local(started);
    let compact = config.compact;
    let refused_keys = config.refused_keys.clone();
    let wasm_bytes = RwSignal::new(wasm_memory_bytes());

    let send = plain_send_handler(form, gate, context.clone(), wasm_bytes);
    let stop = context.stopper();
    let runs = RunsView {
        runs: session.runs,
        filter: runs_filter,
    };
    let on_clear = Callback::new(move |()| session.clear());
    // Saved before the lab opens: it reads the history from storage.
    let open_lab = move |_| {
        session.save();
    };

    view! {
        <main
            class=if compact { "ttft compact" } else { "ttft" }
            data-testid="app"
            data-page="widget"
            data-transport=move || transport.get().map_or("starting", Transport::code)
            data-wasm-bytes=move || wasm_bytes.get().to_string()
            data-shared="false"
        >
            <PageHeader theme=theme />
            <KeyRefusedNotice names=refused_keys />
            <ChooseEndpointNotice form=form simulator=simulator />
            <HistoryNotices session=session />
            <KeyConsent />
            <EndpointForm form=form streaming=live.streaming />
            <RunPanel live=live send=send stop=stop />
            <section class="panel" aria-labelledby="results-heading" data-testid="results">
                <h2 id="results-heading">{move || i18n.t(t::RESULTS_HEADING)}</h2>
                <Show
                    when=move || !session.runs.with(Vec::is_empty)
                    fallback=move || view! { <p class="meta">{move || i18n.t(t::NO_RUNS_YET)}</p> }
                >
                    <RunsTable runs=runs selected=session.selected on_clear=on_clear />
                    {move || session.selected_record().map(|record| view! { <RunDetailLean record=record /> })}
                </Show>
                <p class="page-link">
                    <a data-testid="open-lab" href=lab_href on:click=open_lab>
                        {move || i18n.t(t::OPEN_LAB_LINK)}
                    </a>
                </p>
            </section>
        </main>
    }
}
