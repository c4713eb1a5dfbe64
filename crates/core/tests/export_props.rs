//! Property tests over generated documents: export → import → export is identical, the CSV
//! reads back with one field per column, and the key never leaves.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::export_fixture as fixture;

use proptest::prelude::*;
use serde_json::{json, Value};
use ttft_core::export::{
    csv_columns, runs_csv, summary_text, CsvHeader, Environment, ExperimentResult, ExportDocument,
};
use ttft_core::failure::NetworkFailure;
use ttft_core::itl::ItlGaps;
use ttft_core::lang::Lang;
use ttft_core::protocol::AuthStyle;
use ttft_core::protocol::Protocol;
use ttft_core::record::RunRecord;
use ttft_core::record::RunSettings;
use ttft_core::record::Transport;
use ttft_core::request::RequestDescription;
use ttft_core::timeline::{BreakdownInput, WaitBreakdown};
use ttft_core::timeline::{
    ConnectionEvidence, ConnectionKind, HeadersSource, HttpProtocol, Instants, NetworkBreakdown,
    PaintMethod, PaintTime, PerceivedAnchor, RunMetrics, RunOutcome, TokenCountSource,
};
use ttft_stream::dialect::{AccountSource, Dialect, ServerAccount, StreamError, Usage};

/// Times as the page produces them: full-precision fractions, whole numbers, a few negative.
fn ms() -> impl Strategy<Value = f64> {
    prop_oneof![
        0.0f64..1.0e7,
        (0u32..100_000).prop_map(f64::from),
        -1.0e3f64..0.0,
    ]
}

fn opt_ms() -> impl Strategy<Value = Option<f64>> {
    prop::option::of(ms())
}

fn opt_count() -> impl Strategy<Value = Option<u64>> {
    prop::option::of(0u64..10_000_000)
}

/// Text as providers and users write it: any Unicode, CSV-hostile ASCII, Chinese.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-z0-9 ,\"\r\n'=+@-]{0,12}",
        Just("通义千问 qwen-max, \"最新\"\n第二行".to_owned()),
    ]
}

/// A key as a user would paste it.
fn api_key() -> impl Strategy<Value = String> {
    "sk-[A-Za-z0-9]{16,32}"
}

fn small_json() -> impl Strategy<Value = Value> {
    (text(), ms(), opt_count(), any::<bool>())
        .prop_map(|(name, value, count, flag)| json!({"name": name, "v": value, "n": count, "ok": flag, "list": [value, count]}))
}

fn paint() -> impl Strategy<Value = Option<PaintTime>> {
    let method = prop_oneof![
        Just(PaintMethod::PresentationTime),
        Just(PaintMethod::RenderTime),
        Just(PaintMethod::RafMessageChannel),
    ];
    prop::option::of(
        (ms(), method, any::<bool>()).prop_map(|(at_ms, method, known)| PaintTime {
            at_ms,
            method,
            expected_error: known.then(|| method.expected_error()),
        }),
    )
}

fn instants() -> impl Strategy<Value = Instants> {
    (prop::collection::vec(opt_ms(), 9), ms(), paint(), paint()).prop_map(
        |(at, request_started, reasoning_painted, answer_painted)| Instants {
            clicked: at[0],
            request_started,
            headers_received: at[1],
            headers_received_from: at[1].map(|_| HeadersSource::ResponseStart),
            first_byte: at[2],
            first_event: at[3],
            first_reasoning: at[4],
            first_answer: at[5],
            first_answer_visible: at[6],
            reasoning_painted,
            answer_painted,
            last_token: at[7],
            finished: at[8],
        },
    )
}

fn metrics() -> impl Strategy<Value = RunMetrics> {
    let anchor = prop_oneof![
        Just(PerceivedAnchor::Clicked),
        Just(PerceivedAnchor::RequestStarted)
    ];
    let source = prop::option::of(prop_oneof![
        Just(TokenCountSource::Usage),
        Just(TokenCountSource::Chunks)
    ]);
    (
        prop::collection::vec(opt_ms(), 15),
        prop::collection::vec(ms(), 0..5),
        prop::collection::vec(opt_count(), 5),
        anchor,
        source,
        prop::option::of(100u16..600),
    )
        .prop_map(
            |(m, itl_gaps_ms, counts, perceived_from, token_count_source, http_status)| {
                RunMetrics {
                    ttft_ms: m[0],
                    ttfa_ms: m[1],
                    ttfa_visible_ms: m[2],
                    ttfr_ms: m[3],
                    first_chunk_ms: m[4],
                    setup_ms: m[5],
                    perceived_ttft_ms: m[6],
                    perceived_ttfa_ms: m[7],
                    perceived_from,
                    reasoning_ui_delay_ms: m[8],
                    answer_ui_delay_ms: m[9],
                    reasoning_ms: m[10],
                    decode_ms: m[11],
                    e2e_ms: m[12],
                    itl_gaps: ItlGaps::from_gaps(&itl_gaps_ms),
                    itl_ms: m[13],
                    output_tokens_counted: counts[0],
                    token_count_source,
                    output_tps: m[14],
                    http_status,
                    prompt_tokens: counts[1],
                    cached_prompt_tokens: counts[2],
                    output_tokens: counts[3],
                    reasoning_tokens: counts[4],
                }
            },
        )
}

fn usage() -> impl Strategy<Value = Option<Usage>> {
    prop::option::of(
        (prop::collection::vec(opt_count(), 5), small_json()).prop_map(|(counts, raw)| Usage {
            prompt_tokens: counts[0],
            cached_prompt_tokens: counts[1],
            cache_creation_tokens: counts[2],
            output_tokens: counts[3],
            reasoning_tokens: counts[4],
            raw,
        }),
    )
}

fn network() -> impl Strategy<Value = Option<NetworkBreakdown>> {
    let connection = prop_oneof![
        Just(ConnectionKind::New),
        Just(ConnectionKind::Reused),
        Just(ConnectionKind::Unknown),
    ];
    let protocol = prop::option::of(prop::sample::select(HttpProtocol::ALL.to_vec()));
    prop::option::of(
        (
            prop::collection::vec(opt_ms(), 7),
            connection,
            any::<bool>(),
            protocol,
        )
            .prop_map(
                |(phase, connection, timing_visible, protocol)| NetworkBreakdown {
                    protocol,
                    fetch_lead_ms: phase[0].map(f64::abs),
                    preflight_ms: phase[6],
                    dns_ms: phase[0],
                    tcp_ms: phase[1],
                    tls_ms: phase[2],
                    queueing_ms: phase[3],
                    waiting_ms: phase[4],
                    request_ms: phase[5],
                    connection,
                    timing_visible,
                },
            ),
    )
}

fn evidence() -> impl Strategy<Value = ConnectionEvidence> {
    prop_oneof![
        Just(ConnectionEvidence::ResourceTiming),
        Just(ConnectionEvidence::PreflightOpened),
        Just(ConnectionEvidence::EarlierRequest),
        Just(ConnectionEvidence::FirstContact),
        Just(ConnectionEvidence::Unknown),
    ]
}

fn outcome() -> impl Strategy<Value = RunOutcome> {
    let failure = prop_oneof![
        Just(NetworkFailure::NetworkError),
        Just(NetworkFailure::Timeout),
        Just(NetworkFailure::Aborted),
    ];
    prop_oneof![
        Just(RunOutcome::Streaming),
        Just(RunOutcome::Completed),
        Just(RunOutcome::StoppedAfterFirstAnswer),
        (100u16..600).prop_map(|status| RunOutcome::HttpError { status }),
        failure.prop_map(|failure| RunOutcome::NetworkFailure { failure }),
        (prop::option::of(text()), text(), small_json()).prop_map(|(kind, message, raw)| {
            RunOutcome::StreamError {
                error: StreamError { kind, message, raw },
            }
        }),
        (text(), ms()).prop_map(|(detail, at_ms)| RunOutcome::MalformedChunk { detail, at_ms }),
        Just(RunOutcome::EmptyStream),
        Just(RunOutcome::EndedWithoutTerminal),
    ]
}

fn protocol() -> impl Strategy<Value = Protocol> {
    prop_oneof![
        Just(Protocol::OpenAiChat),
        Just(Protocol::AnthropicMessages),
        Just(Protocol::OpenAiResponses),
    ]
}

/// A request description as a careless caller might build it: the raw key in its headers
/// and in the URL's query.
fn request(key: String) -> impl Strategy<Value = Option<RequestDescription>> {
    prop::option::of((protocol(), small_json(), any::<bool>()).prop_map(
        move |(protocol, body, bearer)| {
            let (auth_style, auth) = if bearer {
                (
                    AuthStyle::Bearer,
                    ("authorization".to_owned(), format!("Bearer {key}")),
                )
            } else {
                (AuthStyle::XApiKey, ("x-api-key".to_owned(), key.clone()))
            };
            RequestDescription {
                protocol,
                method: "POST".to_owned(),
                url: format!("https://llm.example/v1/chat/completions?key={key}"),
                headers: vec![
                    ("content-type".to_owned(), "application/json".to_owned()),
                    auth,
                ],
                body,
                auth_style,
                key_sent: true,
            }
        },
    ))
}

fn dialect() -> impl Strategy<Value = Option<Dialect>> {
    prop::option::of(prop::sample::select(Dialect::ALL.to_vec()))
}

fn settings(key: String) -> impl Strategy<Value = RunSettings> {
    (
        protocol(),
        prop_oneof![
            Just("https://api.openai.com/v1/chat/completions".to_owned()),
            Just(format!("https://llm.example/v1/messages?api_key={key}&x=1")),
            text(),
        ],
        text(),
        dialect(),
        prop::option::of(any::<u32>()),
        any::<bool>(),
        any::<bool>(),
        request(key),
    )
        .prop_map(
            |(
                protocol,
                endpoint_url,
                model,
                dialect,
                max_tokens,
                ttft_only,
                reasoning,
                request,
            )| {
                RunSettings {
                    protocol,
                    endpoint_url,
                    model,
                    dialect,
                    max_tokens,
                    ttft_only,
                    reasoning,
                    request,
                }
            },
        )
}

fn account() -> impl Strategy<Value = ServerAccount> {
    (
        opt_ms(),
        opt_ms(),
        opt_ms(),
        prop::option::of(any::<u32>()),
        opt_ms(),
    )
        .prop_map(
            |(gateway_ms, queue_ms, prompt_ms, cached, ttft_ms)| ServerAccount {
                sources: vec![AccountSource::Groq, AccountSource::Litellm],
                gateway_ms,
                queue_ms,
                prompt_ms,
                cached_tokens: cached.map(u64::from),
                ttft_ms,
                ..ServerAccount::default()
            },
        )
}

fn transport() -> impl Strategy<Value = Transport> {
    prop_oneof![Just(Transport::Worker), Just(Transport::MainThread)]
}

fn run(key: String) -> impl Strategy<Value = RunRecord> {
    (
        (any::<u32>(), text(), settings(key), transport()),
        (
            prop::option::of(any::<bool>()),
            any::<bool>(),
            prop::option::of(evidence()),
        ),
        (metrics(), instants(), usage(), network(), outcome()),
        (
            prop::option::of(text()),
            prop::option::of(ms()),
            prop::option::of(any::<bool>()),
        ),
        (prop::option::of(account()), opt_ms(), any::<bool>()),
    )
        .prop_map(
            |(
                (run_index, started_at, settings, transport),
                (cold, warm_up, connection_evidence),
                (metrics, instants, usage, network, outcome),
                (diagnosis_cause, arrival_delay_bound_ms, arrivals_wait_for_main_thread),
                (server_account, earlier_round_trip_ms, https),
            )| RunRecord {
                breakdown: WaitBreakdown::compute(&BreakdownInput {
                    instants: &instants,
                    network: network.as_ref(),
                    cold,
                    https,
                    first_preflight: https,
                    earlier_round_trip_ms,
                    // Plain http runs carry a ping estimate too (its count in the export).
                    ping_round_trip: earlier_round_trip_ms.filter(|_| !https).map(|ms| {
                        ttft_core::timeline::RoundTrip {
                            ms: ms + 1.0,
                            from: ttft_core::timeline::RoundTripSource::Pings,
                            pings: Some(3),
                        }
                    }),
                    account: server_account.as_ref(),
                    // A large body and a link estimate on some runs: both go in the exports.
                    request_bytes: https.then_some(20_000),
                    downlink_mbps: https.then_some(10.0),
                    relay: None,
                }),
                server_account,
                timer: Some(ttft_core::record::TimerGrade {
                    cross_origin_isolated: https,
                    step_ms: earlier_round_trip_ms,
                }),
                // Some runs through ttft-relay, some buffered: both go in the exports.
                relay: https.then(|| ttft_stream::dialect::RelayAccount {
                    version: Some("0.1.0".to_owned()),
                    conn: Some(ttft_stream::dialect::RelayConn::New),
                    proto: Some(ttft_stream::dialect::RelayProto::H2),
                    tcp_ms: earlier_round_trip_ms,
                    rtt_ms: earlier_round_trip_ms,
                    headers_ms: Some(226.0),
                    first_byte_ms: Some(412.3),
                    ..Default::default()
                }),
                buffered_arrival: arrival_delay_bound_ms.map(|span_ms| {
                    ttft_core::timeline::BufferedArrival {
                        text_chunks: 12,
                        silence_ms: 900.0,
                        span_ms,
                    }
                }),
                diagnosis: None,
                experiment: None,
                arrival_delay_bound_ms,
                arrivals_wait_for_main_thread,
                main_thread_stall_ms: arrival_delay_bound_ms.map(|bound_ms| bound_ms * 2.0),
                run_index,
                started_at,
                settings,
                transport,
                cold,
                connection_evidence,
                warm_up,
                metrics,
                instants,
                usage,
                network,
                outcome,
                diagnosis_cause,
            },
        )
}

fn experiment() -> impl Strategy<Value = ExperimentResult> {
    (text(), any::<u32>(), small_json()).prop_map(|(kind, kind_version, result)| ExperimentResult {
        kind,
        kind_version,
        result,
    })
}

/// A document and the key its requests were made with.
fn document() -> impl Strategy<Value = (ExportDocument, String)> {
    api_key().prop_flat_map(|key| {
        let environment = (text(), opt_ms(), any::<bool>(), transport(), text()).prop_map(
            |(user_agent, timer_resolution_ms, cross_origin_isolated, transport, page_origin)| {
                Environment {
                    user_agent,
                    timer_resolution_ms,
                    cross_origin_isolated,
                    transport,
                    page_origin,
                }
            },
        );
        (
            text(),
            text(),
            environment,
            prop::collection::vec(run(key.clone()), 0..4),
            prop::collection::vec(experiment(), 0..3),
            Just(key),
        )
            .prop_map(
                |(tool_version, exported_at, environment, runs, experiments, key)| {
                    let mut document =
                        ExportDocument::new(&tool_version, &exported_at, environment);
                    document.runs = runs;
                    document.experiments = experiments;
                    (document, key)
                },
            )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn export_import_export_gives_identical_json((document, _key) in document()) {
        let first = document.to_json().unwrap();
        let imported = ExportDocument::from_json(&first).unwrap();
        prop_assert_eq!(&imported, &document.canonicalized().unwrap());
        prop_assert_eq!(imported.to_json().unwrap(), first);
    }

    #[test]
    fn canonical_runs_are_what_the_canonical_document_holds((document, _key) in document()) {
        let canonical = document.canonicalized().unwrap();
        let each: Vec<RunRecord> = document.runs.iter().map(|run| run.canonicalized().unwrap()).collect();
        prop_assert_eq!(&each, &canonical.runs);
        // And canonicalizing again changes nothing (the stored history relies on it).
        for run in &each {
            prop_assert_eq!(&run.canonicalized().unwrap(), run);
        }
    }

    #[test]
    fn csv_reads_back_with_one_field_per_column((document, _key) in document()) {
        let records = fixture::parse_csv(&runs_csv(&document.runs, CsvHeader::WithPeerNames));
        prop_assert_eq!(records.len(), document.runs.len() + 3);
        for record in &records {
            prop_assert_eq!(record.len(), csv_columns().len());
        }
        let model = csv_columns().iter().position(|c| c.name == "model").unwrap();
        for (record, run) in records[3..].iter().zip(&document.runs) {
            let cell = &record[model];
            let model_name = &run.settings.model;
            let guarded = format!("'{}", model_name);
            prop_assert!(cell == model_name || *cell == guarded);
        }
    }

    #[test]
    fn the_key_never_leaves((document, key) in document()) {
        let outputs = [
            document.to_json().unwrap(),
            runs_csv(&document.runs, CsvHeader::Plain),
            summary_text(&document.runs, Lang::En).unwrap(),
            summary_text(&document.runs, Lang::Zh).unwrap(),
        ];
        for output in outputs {
            prop_assert!(!output.contains(&key), "{}", output);
        }
    }
}
