//! The lab page: the widget's parts (from `ttft-web`) with the lab's own around them: fleet
//! settings and notices, the Results section, experiments, history, share links. Measuring
//! happens in [`ttft_web::run`] through [`ttft_web::series`], computing in ttft-core and
//! ttft-lab.

use leptos::prelude::*;
use leptos::task::spawn_local;
use ttft_core::record::Transport;
use ttft_web::embed::{self, ExperimentRequest};
use ttft_web::form::FormState;
use ttft_web::key_gate::KeyConsent;
use ttft_web::navigation::widget_href;
use ttft_web::page::{post_ready, start_transport, PageStart, PageState};
use ttft_web::series::{run_and_report, send_handler, wasm_memory_bytes, SeriesContext};
use ttft_web::state::RunsFilter;
use ttft_web::views::endpoint::EndpointForm;
use ttft_web::views::header::PageHeader;
use ttft_web::views::notices::{ChooseEndpointNotice, HistoryNotices, KeyRefusedNotice};
use ttft_web::views::run_panel::RunPanel;
use ttft_web::{availability, paint};

use crate::fleet::otlp::OtlpStatusLine;
use crate::fleet::probe::{ProbeNotice, ProbeState};
use crate::fleet::settings::FleetSettings;
use crate::fleet::share::{self, SharedLinkError, SharedView};
use crate::fleet::{self, Fleet};
use crate::results::Results;
use crate::texts as t;
use crate::views::experiments::ExperimentsPanel;
use crate::views::history::HistoryList;

/// Probe mode (`probe=N`): once the page is ready, N runs without a click, unless a key is
/// set or it already ran in this tab (the notice says which). Probe runs never carry a key.
fn start_probe(requested: Option<&str>, form: FormState, context: SeriesContext<Fleet>) {
    let state = context.hooks.probe;
    let runs = match fleet::probe::start(requested, &form.api_key.get_untracked()) {
        None => return,
        Some(Err(error)) => return state.set(ProbeState::Refused(error)),
        Some(Ok(runs)) => runs,
    };
    let mut series = match form.series_with_key(None) {
        Ok(series) => series,
        Err(error) => return context.live.refuse(error),
    };
    series.measured_runs = runs;
    series.warm_up = false;
    let host = ttft_lab::otlp::ServerAddress::from_url(&series.run.endpoint.endpoint_url)
        .map(|server| server.host)
        .unwrap_or_default();
    state.set(ProbeState::Running { runs, host });
    spawn_local(async move {
        let stopped = run_and_report(series, None, context).await;
        state.set(ProbeState::Done { runs, stopped });
    });
}

/// The lab page, configured by its address.
#[component]
pub fn LabPage() -> impl IntoView {
    // First, before anything can keep it: a key in the URL is dropped from the address bar.
    let config = embed::read_page_config();
    view! { <LabApp config=config /> }
}

/// The lab, configured by `config` (the page's address). Its runs' requests go through
/// `carrier`: the page's fetch worker when none is given (the page), a script in the
/// component tests.
#[component]
pub fn LabApp(
    config: ttft_core::config::UrlConfig,
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
    provide_context(ExperimentRequest(config.experiment.clone()));
    let fleet = Fleet::new(
        &config,
        session,
        &form.api_key.get_untracked(),
        live.streaming.into(),
    );
    // A share link shows someone's results instead of the meter (until "Measure it yourself").
    let shared_link = share::read_fragment();
    let shared = RwSignal::new(shared_link.clone().and_then(Result::ok));
    let shared_error = shared_link.and_then(Result::err);
    post_ready(&embed);
    let context = SeriesContext::new(live, session, embed.clone(), fleet, carrier);
    paint::install_observer();
    availability::install_observer();
    let (
        PageStart {
            transport,
            simulator,
        },
        started,
    ) = start_transport(form, ttft_web::form::LAB_SIMULATOR_PROBE_PATH);
    let probe_request = config.probe.clone();
    let probe_context = context.clone();
    spawn_local(async move {
        started.await;
        // Someone opening a share link is looking at results, not measuring.
        if shared.get_untracked().is_none() {
            start_probe(probe_request.as_deref(), form, probe_context);
        }
    });
    let compact = config.compact;
    // Shown on the root for scripts and tests until the experiments panel reads the context.
    let experiment = config.experiment.clone();
    let refused_keys = config.refused_keys.clone();
    // The wasm heap after the last series, for tests of the memory bound.
    let wasm_bytes = RwSignal::new(wasm_memory_bytes());

    // Send: a new run must be in the table, so an experiment's filter gives way.
    let send = send_handler(form, gate, context.clone(), wasm_bytes, move || {
        if matches!(runs_filter.get_untracked(), RunsFilter::Experiment(..)) {
            runs_filter.set(RunsFilter::All);
        }
    });
    let stop = context.stopper();

    let close_shared = Callback::new(move |()| shared.set(None));

    view! {
        <main
            class=if compact { "ttft compact" } else { "ttft" }
            data-testid="app"
            data-experiment=experiment
            data-transport=move || transport.get().map_or("starting", Transport::code)
            data-wasm-bytes=move || wasm_bytes.get().to_string()
            data-shared=move || shared.with(Option::is_some).to_string()
        >
            <PageHeader theme=theme>
                <a class="page-link" data-testid="open-widget" href=widget_href>
                    {move || i18n.t(t::BACK_TO_THE_WIDGET)}
                </a>
            </PageHeader>
            {shared_error.map(|error| view! { <SharedLinkError error=error /> })}
            <Show when=move || shared.with(Option::is_some)>
                {move || shared.get().map(|results| view! { <SharedView results=results on_close=close_shared /> })}
            </Show>
            <Show when=move || shared.with(Option::is_none)>
                <KeyRefusedNotice names=refused_keys.clone() />
                <ProbeNotice state=fleet.probe on_stop=Callback::new(move |()| stop()) />
                <ChooseEndpointNotice form=form simulator=simulator />
                <HistoryNotices session=session />
                <KeyConsent />
                <EndpointForm form=form streaming=live.streaming />
                <FleetSettings fleet=fleet form=form />
                <RunPanel live=live send=send.clone() stop=stop>
                    <OtlpStatusLine export=fleet.otlp />
                </RunPanel>
                <Results session=session filter=runs_filter />
                <ExperimentsPanel form=form />
                <HistoryList />
            </Show>
        </main>
    }
}
