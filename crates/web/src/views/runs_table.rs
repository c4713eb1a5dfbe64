//! The session's finished runs, on both pages: the per-run table (which runs it shows, the
//! newest first window, the extra columns) and the selected run's details (diagnosis,
//! network breakdown; the lab adds the waterfall).

use leptos::prelude::*;
use ttft_core::failure::NetworkFailure;
use ttft_core::metric::{Column, METRICS};
use ttft_core::record::RunRecord;
use ttft_core::text::Text;
use ttft_core::timeline::{ConnectionEvidence, HttpProtocol, RunOutcome};

use super::controls::ShowAllToggle;
use super::live::{format_ms, BufferedNote, DiagnosisBox};
use crate::i18n::use_i18n;
use crate::state::{RunMarks, RunsView};
use crate::texts as t;

pub fn cell_number(value: Option<f64>, decimals: usize) -> String {
    value
        .map(|value| format!("{value:.decimals$}"))
        .unwrap_or_else(|| "—".into())
}

fn cell_count(value: Option<u64>) -> String {
    value
        .map(|value| value.to_string())
        .unwrap_or_else(|| "—".into())
}

/// A run's short outcome label (an HTTP error's is a template for its `{status}`).
fn outcome_label(outcome: &RunOutcome) -> Text {
    match outcome {
        RunOutcome::Streaming => t::OUTCOME_STREAMING,
        RunOutcome::Completed => t::OUTCOME_OK,
        RunOutcome::StoppedAfterFirstAnswer => t::OUTCOME_OK_TTFT_ONLY,
        RunOutcome::HttpError { .. } => t::OUTCOME_HTTP_STATUS,
        RunOutcome::NetworkFailure { failure } => match failure {
            NetworkFailure::NetworkError => t::OUTCOME_NETWORK_ERROR,
            NetworkFailure::Timeout => t::OUTCOME_TIMEOUT,
            NetworkFailure::Aborted => t::OUTCOME_STOPPED,
            NetworkFailure::Redirected => t::OUTCOME_REDIRECTED,
        },
        RunOutcome::StreamError { .. } => t::OUTCOME_STREAM_ERROR,
        RunOutcome::MalformedChunk { .. } => t::OUTCOME_MALFORMED_CHUNK,
        RunOutcome::EmptyStream => t::OUTCOME_EMPTY_STREAM,
        RunOutcome::EndedWithoutTerminal => t::OUTCOME_CUT_OFF,
        RunOutcome::NotSent => t::OUTCOME_NOT_SENT,
    }
}

/// How the run's connection was: warm-up, cold (opened by its preflight, or the page's
/// first request to a server that hides its timing), warm, unknown.
fn connection_label(record: &RunRecord) -> Text {
    // Records made before schema 4 carry no evidence: a cold one with a preflight was
    // called cold for its preflight then.
    let preflight = record
        .network
        .as_ref()
        .is_some_and(|network| network.preflight_ms.is_some());
    match (record.warm_up, record.cold, record.connection_evidence) {
        (true, _, _) => t::CONNECTION_WARM_UP,
        (false, Some(true), Some(ConnectionEvidence::PreflightOpened)) => {
            t::CONNECTION_COLD_PREFLIGHT
        }
        (false, Some(true), Some(ConnectionEvidence::PreflightClock)) => {
            t::CONNECTION_COLD_PREFLIGHT
        }
        (false, Some(true), Some(ConnectionEvidence::FirstContact)) => t::CONNECTION_COLD_FIRST,
        (false, Some(true), None) if preflight => t::CONNECTION_COLD_PREFLIGHT,
        (false, Some(true), _) => t::CONNECTION_COLD,
        (false, Some(false), _) => t::CONNECTION_WARM,
        (false, None, _) => t::CONNECTION_UNKNOWN,
    }
}

/// Why the run is cold, warm or unknown, in words (`None` for records before schema 4).
fn evidence_text(record: &RunRecord) -> Option<Text> {
    Some(match record.connection_evidence? {
        ConnectionEvidence::ResourceTiming if record.cold == Some(true) => t::EVIDENCE_NEW,
        ConnectionEvidence::ResourceTiming => t::EVIDENCE_REUSED,
        ConnectionEvidence::PreflightOpened => t::EVIDENCE_PREFLIGHT_OPENED,
        ConnectionEvidence::EarlierRequest => t::EVIDENCE_EARLIER_REQUEST,
        ConnectionEvidence::PreflightClock if record.cold == Some(true) => {
            t::EVIDENCE_PREFLIGHT_CLOCK_COLD
        }
        ConnectionEvidence::PreflightClock => t::EVIDENCE_PREFLIGHT_CLOCK_WARM,
        ConnectionEvidence::FirstContact => t::EVIDENCE_FIRST_CONTACT,
        ConnectionEvidence::Unknown => t::EVIDENCE_UNKNOWN,
        ConnectionEvidence::Relay if record.cold == Some(true) => t::EVIDENCE_RELAY_NEW,
        ConnectionEvidence::Relay => t::EVIDENCE_RELAY_REUSED,
    })
}

/// The HTTP version the run's request went over, as a code (`h2`, `http/1.1`, `hidden`),
/// `None` when not recorded.
fn http_protocol(record: &RunRecord) -> Option<HttpProtocol> {
    record.network.as_ref().and_then(|network| network.protocol)
}

/// Rows the runs table shows by default: the newest ones. A long session (1,000 stored
/// runs) would otherwise cost a thousand rows of DOM and their updates on every change.
pub const TABLE_WINDOW_ROWS: usize = 100;

/// The columns after the catalogue's metrics: (test id or name, shown only with "More
/// columns", header).
const OTHER_COLUMNS: [(&str, bool, Text); 8] = [
    ("tokens", false, t::COLUMN_TOKENS),
    ("paint", true, t::COLUMN_PAINT),
    ("paint error", true, t::COLUMN_PAINT_ERROR),
    ("dns/tcp/tls_ms", true, t::COLUMN_NETWORK_SETUP),
    ("http", true, t::COLUMN_HTTP),
    ("transport", true, t::COLUMN_TRANSPORT),
    ("model", true, t::COLUMN_MODEL),
    ("experiment", true, t::COLUMN_EXPERIMENT),
];

/// Whether the possible arrival delay is a main column: where this browser's Worker arrivals
/// wait for the main thread (WebKit), the bound stands beside the figures it qualifies.
fn arrival_bound_is_main() -> bool {
    crate::availability::engine().worker_arrivals_wait_for_main_thread()
}

/// Whether a catalogue metric's column is among the rare ones ("More columns").
fn is_extra(name: &str, column: Column, bound_main: bool) -> bool {
    column == Column::More && !(bound_main && name == "arrival_delay_bound_ms")
}

/// The paint method's expected error as shown: "0 (reference)", "−0.7 / ±5.2 ms".
fn paint_error_cell(record: &RunRecord) -> Result<String, Text> {
    let Some(painted) = record.instants.answer_painted else {
        return Ok("—".into());
    };
    let error = painted
        .expected_error
        .unwrap_or_else(|| painted.method.expected_error());
    if error.error_p95_ms == 0.0 && error.bias_ms == 0.0 {
        return Err(t::PAINT_ERROR_REFERENCE);
    }
    Ok(format!(
        "{:+.1} / ±{:.1} ms",
        error.bias_ms, error.error_p95_ms
    ))
}

/// One row of the runs table. The rare columns are always rendered and hidden by the
/// table's class, so "More columns" flips one class instead of rebuilding every row.
fn run_row(record: RunRecord, selected: RwSignal<Option<u32>>, bound_main: bool) -> impl IntoView {
    let i18n = use_i18n();
    let number = record.run_index;
    let outcome = outcome_label(&record.outcome);
    let http_status = match record.outcome {
        RunOutcome::HttpError { status } => Some(status),
        _ => None,
    };
    let connection = connection_label(&record);
    let via_relay = record.via_relay();
    let cold = record.cold.map(|cold| cold.to_string());
    let evidence = record.connection_evidence.map(ConnectionEvidence::code);
    let protocol = http_protocol(&record).map(HttpProtocol::code);
    let failed = !record.is_ok();
    let delayed = record.arrival_delayed();
    let metric_cells = METRICS
        .iter()
        .filter(|metric| metric.column != Column::Hidden)
        .map(|metric| {
            let flagged = delayed && metric.name == "arrival_delay_bound_ms";
            view! {
                <td
                    class:extra=is_extra(metric.name, metric.column, bound_main)
                    class:flagged=flagged
                    data-metric=metric.name
                >
                    {metric.read(&record).table_cell()}
                </td>
            }
        })
        .collect_view();
    let bound_ms = record
        .arrival_delay_bound_ms
        .map(|bound_ms| format!("{bound_ms:.3}"));
    let delay_title = delayed.then(|| {
        let bound_ms = format!("{:.0}", record.arrival_delay_bound_ms.unwrap_or_default());
        move || i18n.fill(t::ARRIVAL_DELAY_ROW_TITLE, &[("bound_ms", &bound_ms)])
    });
    let metrics = &record.metrics;
    let tokens = format!(
        "{} / {} / {}",
        cell_count(metrics.prompt_tokens),
        cell_count(metrics.cached_prompt_tokens),
        cell_count(metrics.output_tokens),
    );
    let paint = record
        .instants
        .answer_painted
        .map(|painted| painted.method.label());
    let paint_error = paint_error_cell(&record);
    let paint_error = move || match &paint_error {
        Ok(cell) => cell.clone(),
        Err(text) => i18n.t(*text).to_owned(),
    };
    let setup = record.network.as_ref().map(|network| {
        format!(
            "{}/{}/{}",
            cell_number(network.dns_ms, 1),
            cell_number(network.tcp_ms, 1),
            cell_number(network.tls_ms, 1)
        )
    });
    let experiment = record
        .experiment
        .as_ref()
        .map(|tag| format!("{} #{}: {}", tag.kind, tag.session, tag.arm))
        .unwrap_or_else(|| "—".into());
    view! {
        <tr
            data-testid="run-row"
            data-run=number
            data-outcome=if failed { "failed" } else { "ok" }
            data-arrival-delay-bound-ms=bound_ms
            data-arrival-delayed=delayed.to_string()
            data-cold=cold
            data-connection-evidence=evidence
            data-http-protocol=protocol
            data-relay=via_relay.to_string()
            data-buffered=record.buffered_arrival.is_some().to_string()
            title=delay_title
            class:failed=failed
            class:arrival-delayed=delayed
            class:selected=move || selected.get() == Some(number)
            tabindex="0"
            aria-selected=move || (selected.get() == Some(number)).to_string()
            on:click=move |_| selected.set(Some(number))
            on:keydown=move |event: web_sys::KeyboardEvent| {
                if event.key() == "Enter" || event.key() == " " {
                    event.prevent_default();
                    selected.set(Some(number));
                }
            }
        >
            <td>{number}{run_mark(number)}</td>
            <td>
                {move || i18n.t(connection)}
                {via_relay.then(|| view! {
                    <span class="via-relay" data-testid="via-relay">{move || i18n.t(t::VIA_RELAY)}</span>
                })}
            </td>
            <td data-testid="run-outcome">{move || match http_status {
                Some(status) => i18n.fill(outcome, &[("status", &status)]),
                None => i18n.t(outcome).to_owned(),
            }}</td>
            {metric_cells}
            <td>{tokens}</td>
            <td class="extra" data-testid="paint-method">{paint.unwrap_or("—")}</td>
            <td class="extra" data-testid="paint-error">{paint_error}</td>
            <td class="extra">{setup.unwrap_or_else(|| "—".into())}</td>
            <td class="extra" data-testid="http-protocol">{protocol.unwrap_or("—")}</td>
            <td class="extra" data-testid="transport">{record.transport.code()}</td>
            <td class="extra">{record.settings.model.clone()}</td>
            <td class="extra" data-testid="run-experiment">{experiment}</td>
        </tr>
    }
}

/// A per-run mark for the runs table (✓ met every per-run threshold, ✗ missed one); nothing
/// without [`RunMarks`] or for a run that does not count.
fn run_mark(run_index: u32) -> impl IntoView {
    let marks = use_context::<RunMarks>();
    let i18n = use_i18n();
    move || {
        let met = marks?.0.with(|marks| marks.get(&run_index).copied())?;
        let title = if met {
            i18n.t(t::SLO_MET)
        } else {
            i18n.t(t::SLO_MISSED)
        };
        Some(view! {
            <span class="slo-mark" class:missed=!met data-testid="run-slo" data-met=met.to_string() title=title aria-label=title>
                {if met { "✓" } else { "✗" }}
            </span>
        })
    }
}

/// Per-run table of the newest [`TABLE_WINDOW_ROWS`] runs (all on request); a row click
/// selects the run for the details below.
#[component]
pub fn RunsTable(
    /// The runs to list.
    runs: RunsView,
    /// The selected run number.
    selected: RwSignal<Option<u32>>,
    /// Clears the session (table and stored history).
    on_clear: Callback<()>,
) -> impl IntoView {
    let i18n = use_i18n();
    let more = RwSignal::new(false);
    let show_all = RwSignal::new(false);
    let total = Memo::new(move |_| runs.with(|runs| runs.len()));
    let hidden = move || {
        if show_all.get() {
            0
        } else {
            total.get().saturating_sub(TABLE_WINDOW_ROWS)
        }
    };
    let bound_main = arrival_bound_is_main();
    let metric_headers = METRICS
        .iter()
        .filter(|metric| metric.column != Column::Hidden)
        .map(|metric| {
            let label = metric.label;
            view! {
                <th scope="col" class:extra=is_extra(metric.name, metric.column, bound_main) title=move || i18n.t(label)>
                    {metric.name}
                </th>
            }
        })
        .collect_view();
    let other_headers = OTHER_COLUMNS
        .iter()
        .map(|&(_, extra, header)| view! { <th scope="col" class:extra=extra>{move || i18n.t(header)}</th> })
        .collect_view();
    // Clearing the table also clears the stored history: a second click confirms (in the
    // page: an embedding iframe may not allow `window.confirm`).
    let confirming = RwSignal::new(false);
    let clear = move |_| {
        if confirming.get_untracked() {
            on_clear.run(());
            confirming.set(false);
        } else {
            confirming.set(true);
        }
    };
    // The table scrolls in its own box, newest run last; it follows new runs while the user
    // is at its bottom, and stays put when they scrolled up to read an older run.
    let scroller = NodeRef::<leptos::html::Div>::new();
    let follow = StoredValue::new(true);
    let on_scroll = move |_| {
        if let Some(element) = scroller.get_untracked() {
            let from_bottom =
                element.scroll_height() - element.scroll_top() - element.client_height();
            follow.set_value(from_bottom < 24);
        }
    };
    Effect::new(move |_| {
        total.track();
        if !follow.get_value() {
            return;
        }
        // After the new row is in the DOM.
        request_animation_frame(move || {
            if let Some(element) = scroller.get_untracked() {
                element.set_scroll_top(element.scroll_height());
            }
        });
    });
    view! {
        <div class="table-head">
            <h3>{move || i18n.t(t::RUNS_HEADING)}</h3>
            <label class="check">
                <input type="checkbox" data-testid="more-columns" prop:checked=move || more.get() on:change=move |event| more.set(event_target_checked(&event)) />
                {move || i18n.t(t::MORE_COLUMNS)}
            </label>
            <ShowAllToggle testid="show-all-runs" show_all=show_all total=total window=TABLE_WINDOW_ROWS />
            <button type="button" data-testid="clear-runs" on:click=clear on:blur=move |_| confirming.set(false)>
                {move || if confirming.get() {
                    i18n.t(t::CLEAR_RUNS_CONFIRM)
                } else {
                    i18n.t(t::CLEAR_RUNS)
                }}
            </button>
        </div>
        <Show when=move || { hidden() > 0 }>
            <p class="meta" data-testid="rows-hidden">
                {move || i18n.fill(t::ROWS_HIDDEN, &[("hidden", &hidden())])}
            </p>
        </Show>
        <div class="table-scroll runs-scroll" tabindex="0" node_ref=scroller on:scroll=on_scroll>
            <table class="runs" class:more=move || more.get() data-testid="runs-table" data-runs=move || total.get()>
                <thead>
                    <tr>
                        <th scope="col">"#"</th>
                        <th scope="col">{move || i18n.t(t::COLUMN_CONNECTION)}</th>
                        <th scope="col">{move || i18n.t(t::COLUMN_OUTCOME)}</th>
                        {metric_headers}
                        {other_headers}
                    </tr>
                </thead>
                <tbody>
                    // Keyed by run number: a new run adds one row instead of rebuilding all.
                    <For
                        each=move || {
                            let skip = hidden();
                            runs.with(|runs| {
                                runs[skip.min(runs.len())..]
                                    .iter()
                                    .map(|record| (*record).clone())
                                    .collect::<Vec<_>>()
                            })
                        }
                        key=|record| record.run_index
                        children=move |record| run_row(record, selected, bound_main)
                    />
                </tbody>
            </table>
        </div>
    }
}

/// "Connection: cold, its CORS preflight opened the connection…. HTTP version: h2.": the
/// verdict with its reason and the protocol; nothing for records before schema 4.
fn connection_line(record: &RunRecord) -> Option<impl IntoView> {
    let i18n = use_i18n();
    let evidence = evidence_text(record)?;
    let protocol = http_protocol(record);
    let code = protocol.map(HttpProtocol::code);
    Some(view! {
        <p class="meta" data-testid="connection-line" data-http-protocol=code>
            {move || {
                let protocol = match protocol {
                    None | Some(HttpProtocol::Hidden) => i18n.t(t::PROTOCOL_HIDDEN),
                    Some(protocol) => protocol.code(),
                };
                i18n.fill(t::CONNECTION_LINE, &[("verdict", &i18n.t(evidence)), ("protocol", &protocol)])
            }}
        </p>
    })
}

/// "Via ttft-relay 0.1.0, to the provider over h2.", and what the relay said failed; nothing
/// for a direct run.
fn relay_line(record: &RunRecord) -> Option<impl IntoView> {
    let i18n = use_i18n();
    let relay = record.relay.clone()?;
    let version = relay.version.unwrap_or_else(|| "?".into());
    let proto = relay.proto.map_or("?", |proto| proto.code());
    Some(view! {
        <p class="meta" data-testid="relay-line">
            {move || {
                let mut line = i18n.fill(t::RELAY_LINE, &[("version", &version), ("proto", &proto)]);
                if let Some(error) = relay.error {
                    let text = if error.upstream() { t::RELAY_UPSTREAM_FAILED } else { t::RELAY_REFUSED };
                    line.push(' ');
                    line.push_str(&i18n.fill(text, &[("kind", &error.code())]));
                }
                line
            }}
        </p>
    })
}

/// The selected run without its waterfall (the widget's: no chart code in its wasm): its
/// diagnosis and network breakdown.
#[component]
pub fn RunDetailLean(
    /// The run.
    record: RunRecord,
) -> impl IntoView {
    run_detail(record, None::<()>)
}

/// The selected run's details (diagnosis, network breakdown, preflight), with the page's
/// `chart` below them (the lab's waterfall; `None` on the widget).
pub fn run_detail<C: IntoView + 'static>(record: RunRecord, chart: Option<C>) -> impl IntoView {
    let i18n = use_i18n();
    let network = record.network.clone();
    let number = record.run_index;
    let url = record.endpoint_url().to_owned();
    let preflight_line = network.as_ref().and_then(|network| network.preflight_ms).map(|preflight_ms| {
        view! {
            <p class="meta" data-testid="preflight" data-ms=format!("{preflight_ms:.3}")>
                {move || i18n.fill(t::PREFLIGHT_NOTE, &[("preflight_ms", &format_ms(Some(preflight_ms)))])}
            </p>
        }
    });
    let network_line = network.map(|network| {
        let dns = format_ms(network.dns_ms);
        let tcp = format_ms(network.tcp_ms);
        let tls = format_ms(network.tls_ms);
        let queueing = format_ms(network.queueing_ms);
        let request = format_ms(network.request_ms);
        let waiting = format_ms(network.waiting_ms);
        let timing = if network.timing_visible {
            t::NETWORK_TIMING_VISIBLE
        } else {
            t::NETWORK_TIMING_HIDDEN
        };
        view! {
            <p class="meta" data-testid="network-breakdown">
                {move || i18n.fill(t::NETWORK_BREAKDOWN, &[
                    ("dns", &dns),
                    ("tcp", &tcp),
                    ("tls", &tls),
                    ("queueing", &queueing),
                    ("request", &request),
                    ("waiting", &waiting),
                    ("timing", &i18n.t(timing)),
                ])}
            </p>
        }
    });
    let failed = (!record.is_ok()).then(|| record.clone());
    let wait = record
        .breakdown
        .clone()
        .map(|breakdown| view! { <crate::views::wait::WaitView breakdown=breakdown /> });
    let connection_line = connection_line(&record);
    let relay_line = relay_line(&record);
    let buffered = record
        .buffered_arrival
        .map(|buffered| view! { <BufferedNote buffered=buffered /> });
    let headers_line = record.instants.headers_came_with_body().then(|| {
        let headers_ms = format_ms(
            record
                .instants
                .headers_received
                .map(|at_ms| at_ms - record.instants.request_started),
        );
        view! {
            <p class="meta" data-testid="headers-with-body">
                {move || i18n.fill(t::HEADERS_WITH_BODY_NOTE, &[("headers_ms", &headers_ms)])}
            </p>
        }
    });
    view! {
        <div class="run-detail" data-testid="run-detail" data-run=number>
            <h3>{move || i18n.fill(t::RUN_DETAIL_HEADING, &[("number", &number)])}</h3>
            <p class="meta">{format!("POST {url}")}</p>
            {failed.map(|record| view! { <DiagnosisBox record=record /> })}
            {relay_line}
            {buffered}
            {wait}
            {connection_line}
            {network_line}
            {headers_line}
            {preflight_line}
            {chart}
        </div>
    }
}
