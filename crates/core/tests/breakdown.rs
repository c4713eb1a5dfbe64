//! The wait's breakdown and verdict (DESIGN.md §2, "Where the wait went"): the parts sum to
//! `ttfa_ms` exactly, each is where the script put it, a server that claims more than the
//! browser waited is not believed, and the verdict names the right cause in each of the seed
//! articles' cases (long prompt, cold connection, far network, queue, reasoning, the page);
//! through ttft-relay, the wait is split by the relay's account.

use ttft_core::lang::Lang;
use ttft_core::timeline::{
    BreakdownInput, ConnectionKind, HttpProtocol, Instants, NetworkBreakdown, PaintMethod,
    PaintTime, PartSource, RoundTripSource, WaitBreakdown, WaitCause, WaitPart, WaitSummary,
    WaitVerdict,
};
use ttft_stream::dialect::{AccountSource, RelayAccount, RelayConn, RelayProto, ServerAccount};

/// A run started at 1000 ms, clicked 3 ms before, first answer at `1000 + ttfa`, painted
/// 12 ms later; reasoning from `reasoning_at` when given.
fn instants(ttfa_ms: f64, reasoning_after_ms: Option<f64>) -> Instants {
    Instants {
        clicked: Some(997.0),
        request_started: 1000.0,
        first_reasoning: reasoning_after_ms.map(|ms| 1000.0 + ms),
        first_answer: Some(1000.0 + ttfa_ms),
        answer_painted: Some(PaintTime {
            at_ms: 1000.0 + ttfa_ms + 12.0,
            method: PaintMethod::PresentationTime,
            expected_error: None,
        }),
        ..Instants::default()
    }
}

/// Resource Timing of a request: `queueing` before it left; a new connection with `tcp` and
/// `tls` handshakes when `new`.
fn network(queueing_ms: f64, new: Option<(f64, f64)>) -> NetworkBreakdown {
    NetworkBreakdown {
        dns_ms: new.map(|_| 0.0),
        tcp_ms: new.map(|(tcp, _)| tcp),
        tls_ms: new.map(|(_, tls)| tls),
        queueing_ms: Some(queueing_ms),
        waiting_ms: Some(10.0),
        request_ms: Some(queueing_ms + 10.0),
        connection: if new.is_some() {
            ConnectionKind::New
        } else {
            ConnectionKind::Reused
        },
        timing_visible: true,
        preflight_ms: None,
        protocol: Some(HttpProtocol::H2),
        fetch_lead_ms: None,
    }
}

fn hidden() -> NetworkBreakdown {
    NetworkBreakdown {
        dns_ms: None,
        tcp_ms: None,
        tls_ms: None,
        queueing_ms: None,
        waiting_ms: None,
        request_ms: None,
        connection: ConnectionKind::Unknown,
        timing_visible: false,
        preflight_ms: None,
        protocol: Some(HttpProtocol::Hidden),
        fetch_lead_ms: None,
    }
}

fn input<'a>(
    instants: &'a Instants,
    network: Option<&'a NetworkBreakdown>,
    account: Option<&'a ServerAccount>,
) -> BreakdownInput<'a> {
    BreakdownInput {
        instants,
        network,
        cold: network.and_then(|network| network.connection.cold()),
        https: true,
        first_preflight: false,
        earlier_round_trip_ms: None,
        ping_round_trip: None,
        account,
        request_bytes: None,
        downlink_mbps: None,
        relay: None,
    }
}

fn account(queue_ms: Option<f64>, prompt_ms: Option<f64>) -> ServerAccount {
    ServerAccount {
        sources: vec![AccountSource::Groq],
        queue_ms,
        prompt_ms,
        ..ServerAccount::default()
    }
}

fn assert_close(actual: Option<f64>, expected: f64, what: &str) {
    let actual = actual.unwrap_or(f64::NAN);
    assert!(
        (actual - expected).abs() < 1e-6,
        "{what}: {actual} ≠ {expected}"
    );
}

fn sum_is_ttfa(breakdown: &WaitBreakdown) {
    let sum: f64 = breakdown.parts.iter().map(|part| part.ms).sum();
    assert!(
        (sum - breakdown.ttfa_ms).abs() < 1e-9,
        "parts sum to {sum}, ttfa is {}",
        breakdown.ttfa_ms
    );
    assert!(breakdown.parts.iter().all(|part| part.ms >= 0.0));
}

#[test]
fn every_part_where_the_script_put_it() {
    // Cold TLS: TCP 1 ms, TLS 50 ms (one round trip), queueing 52 ms; the server says queue
    // 150, prompt 300; first token at 560 ms; the round trip (50 ms) is the network part.
    let instants = instants(560.0, None);
    let network = network(52.0, Some((1.0, 50.0)));
    let account = account(Some(150.0), Some(300.0));
    let breakdown = WaitBreakdown::compute(&input(&instants, Some(&network), Some(&account)))
        .expect("a breakdown");
    sum_is_ttfa(&breakdown);
    assert_close(breakdown.ms(WaitPart::Connection), 52.0, "connection");
    assert_close(breakdown.ms(WaitPart::Network), 50.0, "network");
    assert_close(breakdown.ms(WaitPart::Queue), 150.0, "queue");
    assert_close(breakdown.ms(WaitPart::Prompt), 300.0, "prompt");
    assert_close(breakdown.ms(WaitPart::Server), 8.0, "server rest");
    assert_close(breakdown.browser_ms, 3.0, "browser");
    assert_close(breakdown.paint_ms, 12.0, "paint");
    assert_eq!(
        breakdown.round_trip.map(|trip| trip.from),
        Some(RoundTripSource::TlsHandshake)
    );
    assert_eq!(
        breakdown.source(WaitPart::Queue),
        Some(PartSource::ServerReported)
    );
    assert_eq!(
        breakdown.source(WaitPart::Network),
        Some(PartSource::Estimated)
    );
    assert_eq!(
        breakdown.source(WaitPart::Connection),
        Some(PartSource::Measured)
    );
    // browser + ttfa + paint = perceived_ttfa.
    let perceived = instants.answer_painted.unwrap().at_ms - instants.clicked.unwrap();
    assert_close(
        Some(breakdown.browser_ms.unwrap() + breakdown.ttfa_ms + breakdown.paint_ms.unwrap()),
        perceived,
        "perceived",
    );
}

#[test]
fn a_server_claiming_more_than_the_wait_is_not_believed() {
    let instants = instants(300.0, None);
    let network = network(1.0, None);
    let liar = account(Some(200.0), Some(250.0));
    let breakdown = WaitBreakdown::compute(&input(&instants, Some(&network), Some(&liar))).unwrap();
    sum_is_ttfa(&breakdown);
    let claim = breakdown.server_claim_rejected.expect("flagged");
    assert_close(Some(claim.claimed_ms), 450.0, "claimed");
    assert_close(Some(claim.waited_ms), 299.0, "waited");
    assert!(!breakdown.has_server_account());
    assert_close(breakdown.ms(WaitPart::Server), 299.0, "server");
    assert_close(breakdown.ms(WaitPart::Queue), 0.0, "queue");
}

#[test]
fn a_claim_within_the_wait_shortens_the_estimated_round_trip_not_the_server() {
    // Earlier round trip 80 ms, but the server accounts for 270 of the 300 ms wait: the
    // network can only have taken 30 ms.
    let instants = instants(300.0, None);
    let network = network(0.0, None);
    let account = account(None, Some(270.0));
    let mut input = input(&instants, Some(&network), Some(&account));
    input.earlier_round_trip_ms = Some(80.0);
    let breakdown = WaitBreakdown::compute(&input).unwrap();
    sum_is_ttfa(&breakdown);
    assert_close(breakdown.ms(WaitPart::Prompt), 270.0, "prompt");
    assert_close(breakdown.ms(WaitPart::Network), 30.0, "network");
}

#[test]
fn hidden_timing_first_contact_preflight_estimated_from_an_earlier_round_trip() {
    let instants = instants(400.0, None);
    let hidden = hidden();
    let mut input = input(&instants, Some(&hidden), None);
    input.cold = Some(true);
    input.first_preflight = true;
    input.earlier_round_trip_ms = Some(40.0);
    let breakdown = WaitBreakdown::compute(&input).unwrap();
    sum_is_ttfa(&breakdown);
    // TCP + TLS: two round trips; the preflight: one; the request: one.
    assert_close(breakdown.ms(WaitPart::Connection), 80.0, "connection");
    assert_eq!(
        breakdown.source(WaitPart::Connection),
        Some(PartSource::Estimated)
    );
    assert_close(breakdown.ms(WaitPart::Preflight), 40.0, "preflight");
    assert_close(breakdown.ms(WaitPart::Network), 40.0, "network");
    assert_close(breakdown.ms(WaitPart::Server), 240.0, "server");
}

#[test]
fn preflight_on_the_connection_it_opened() {
    // Visible timing; the request reused the connection its preflight opened (a cold run):
    // queueing 130 = the preflight's handshakes (2 × 40 estimated) + its round trip (50).
    let instants = instants(500.0, None);
    let network = network(130.0, None);
    let mut input = input(&instants, Some(&network), None);
    input.cold = Some(true);
    input.first_preflight = true;
    input.earlier_round_trip_ms = Some(40.0);
    let breakdown = WaitBreakdown::compute(&input).unwrap();
    sum_is_ttfa(&breakdown);
    assert_close(breakdown.ms(WaitPart::Preflight), 50.0, "preflight");
    assert_close(breakdown.ms(WaitPart::Connection), 80.0, "connection");
    assert_close(breakdown.ms(WaitPart::Network), 40.0, "network");
}

#[test]
fn reasoning_is_first_reasoning_to_first_answer() {
    let instants = instants(900.0, Some(200.0));
    let network = network(0.5, None);
    let breakdown = WaitBreakdown::compute(&input(&instants, Some(&network), None)).unwrap();
    sum_is_ttfa(&breakdown);
    assert_close(breakdown.ms(WaitPart::Reasoning), 700.0, "reasoning");
    assert_close(breakdown.ms(WaitPart::Server), 199.5, "server");
}

#[test]
fn no_answer_no_breakdown_and_sambanova_reports_its_own_ttft() {
    let mut none = instants(100.0, None);
    none.first_answer = None;
    assert!(WaitBreakdown::compute(&input(&none, None, None)).is_none());

    let instants = instants(400.0, None);
    let sambanova = ServerAccount {
        sources: vec![AccountSource::Sambanova],
        ttft_ms: Some(350.0),
        ..ServerAccount::default()
    };
    let breakdown = WaitBreakdown::compute(&input(&instants, None, Some(&sambanova))).unwrap();
    sum_is_ttfa(&breakdown);
    assert_eq!(
        breakdown.source(WaitPart::Server),
        Some(PartSource::ServerReported)
    );
    assert_close(
        breakdown.ms(WaitPart::Server),
        400.0,
        "server (reported + rest)",
    );
}

/// The seed articles' cases, each with the cause the verdict must name.
#[test]
fn the_verdict_names_the_right_cause_in_each_seed_case() {
    let long_prompt = {
        let instants = instants(2600.0, None);
        let network = network(0.4, None);
        let account = account(Some(5.0), Some(2400.0));
        (
            WaitBreakdown::compute(&input(&instants, Some(&network), Some(&account))),
            WaitCause::Prompt,
        )
    };
    let queue = {
        let instants = instants(1500.0, None);
        let network = network(0.4, None);
        let account = account(Some(1200.0), Some(200.0));
        (
            WaitBreakdown::compute(&input(&instants, Some(&network), Some(&account))),
            WaitCause::Queue,
        )
    };
    let cold = {
        // Cross-origin, a new connection far away: preflight and handshakes dominate.
        let instants = instants(700.0, None);
        let network = network(480.0, Some((120.0, 120.0)));
        let mut input = input(&instants, Some(&network), None);
        input.first_preflight = true;
        (WaitBreakdown::compute(&input), WaitCause::ColdStart)
    };
    let far = {
        let instants = instants(500.0, None);
        let network = network(0.4, None);
        let account = account(Some(2.0), Some(60.0));
        let mut input = input(&instants, Some(&network), Some(&account));
        input.earlier_round_trip_ms = Some(400.0);
        (WaitBreakdown::compute(&input), WaitCause::Network)
    };
    let reasoning = {
        let instants = instants(4000.0, Some(300.0));
        let network = network(0.4, None);
        (
            WaitBreakdown::compute(&input(&instants, Some(&network), None)),
            WaitCause::Reasoning,
        )
    };
    let page = {
        let mut instants = instants(40.0, None);
        instants.answer_painted.as_mut().unwrap().at_ms = 1000.0 + 40.0 + 400.0;
        let network = network(0.4, None);
        (
            WaitBreakdown::compute(&input(&instants, Some(&network), None)),
            WaitCause::Page,
        )
    };
    for (breakdown, cause) in [long_prompt, queue, cold, far, reasoning, page] {
        let breakdown = breakdown.expect("a breakdown");
        sum_is_ttfa(&breakdown);
        let verdict = WaitVerdict::of(&breakdown).expect("a verdict");
        assert_eq!(verdict.cause, cause, "{breakdown:?}");
        for lang in [Lang::En, Lang::Zh] {
            assert!(
                !verdict.headline(lang).contains('{'),
                "{}",
                verdict.headline(lang)
            );
            assert!(!verdict.remedy(lang).is_empty());
        }
    }
}

#[test]
fn the_headline_says_the_share() {
    let instants = instants(1000.0, None);
    let network = network(0.0, None);
    let account = account(None, Some(750.0));
    let breakdown =
        WaitBreakdown::compute(&input(&instants, Some(&network), Some(&account))).unwrap();
    let verdict = WaitVerdict::of(&breakdown).unwrap();
    assert_eq!(verdict.cause, WaitCause::Prompt);
    // 1000 ttfa + 3 browser + 12 paint = 1015 ms.
    assert_eq!(
        verdict.headline(Lang::En),
        "Most of the wait: prompt processing (prefill), 750 ms of 1015 ms (74 %)."
    );
}

#[test]
fn over_runs_the_medians_and_their_verdict() {
    // Three runs: prompt 300, 500, 400 ms; one had a 900 ms queue.
    let runs: Vec<WaitBreakdown> = [(300.0, 0.0), (500.0, 900.0), (400.0, 0.0)]
        .into_iter()
        .map(|(prompt_ms, queue_ms)| {
            let instants = instants(prompt_ms + queue_ms + 10.0, None);
            let network = network(0.0, None);
            let account = account(Some(queue_ms), Some(prompt_ms));
            WaitBreakdown::compute(&input(&instants, Some(&network), Some(&account))).unwrap()
        })
        .collect();
    let summary = ttft_core::timeline::WaitSummary::of(&runs).unwrap();
    assert_eq!(summary.runs, 3);
    assert_close(summary.p50(WaitPart::Prompt), 400.0, "prompt p50");
    assert_close(summary.p50(WaitPart::Queue), 0.0, "queue p50");
    assert_close(summary.p50(WaitPart::Paint), 12.0, "paint p50");
    assert_eq!(summary.verdict.unwrap().cause, WaitCause::Prompt);
    let json = summary.to_json();
    assert_eq!(json["verdict"], "prompt");
    assert_eq!(json["p50_ms"]["prompt"], 400.0);
}

#[test]
fn the_round_trip_is_the_least_seen_a_warm_preflight_included() {
    // A warm first preflighted run: its preflight (55 ms on an open connection) is an OPTIONS
    // round trip; the models list's TLS handshake said 99 ms (crypto and scheduling on top).
    let instants = instants(600.0, None);
    let network = network(55.0, None);
    let mut input = input(&instants, Some(&network), None);
    input.cold = Some(false);
    input.first_preflight = true;
    input.earlier_round_trip_ms = Some(99.0);
    let breakdown = WaitBreakdown::compute(&input).unwrap();
    sum_is_ttfa(&breakdown);
    let trip = breakdown.round_trip.unwrap();
    assert_eq!(trip.from, RoundTripSource::Preflight);
    assert_close(Some(trip.ms), 55.0, "round trip");
    assert_close(breakdown.ms(WaitPart::Preflight), 55.0, "preflight");
    assert_close(breakdown.ms(WaitPart::Network), 55.0, "network");
}

#[test]
fn webkit_holds_the_preflight_before_resource_timing_starts() {
    // WebKit's entry starts after the preflight: 110 ms before fetchStart, 0.5 queueing.
    let instants = instants(700.0, None);
    let mut network = network(0.5, None);
    network.fetch_lead_ms = Some(110.0);
    let mut input = input(&instants, Some(&network), None);
    input.cold = Some(false);
    input.first_preflight = true;
    let breakdown = WaitBreakdown::compute(&input).unwrap();
    sum_is_ttfa(&breakdown);
    assert_close(breakdown.ms(WaitPart::Preflight), 110.5, "preflight");
}

#[test]
fn hidden_timing_with_pings_splits_the_network_from_the_server() {
    // The issue's far link: a 646 ms wait over a 240 ms round trip, timing hidden (every real
    // provider), warm. Without pings the whole wait is "network, gateway and server"; with
    // five pings (second quickest 243 ms) the network is its own part, labelled estimated.
    let instants = instants(646.0, None);
    let hidden = hidden();
    let mut input = input(&instants, Some(&hidden), None);
    let without = WaitBreakdown::compute(&input).unwrap();
    assert_eq!(without.round_trip, None);
    assert_close(
        without.ms(WaitPart::Network),
        0.0,
        "no network part without a round trip",
    );
    let mut pings = ttft_core::timeline::PingSamples::default();
    for ms in [251.0, 243.0, 480.0, 240.5, 262.0] {
        pings.push(ms);
    }
    input.ping_round_trip = pings.estimate();
    let breakdown = WaitBreakdown::compute(&input).unwrap();
    sum_is_ttfa(&breakdown);
    let trip = breakdown.round_trip.expect("the pings' round trip");
    assert_eq!(trip.from, RoundTripSource::Pings);
    assert_eq!(trip.pings, Some(5));
    assert_close(breakdown.ms(WaitPart::Network), 243.0, "network");
    assert_eq!(
        breakdown.source(WaitPart::Network),
        Some(PartSource::Estimated)
    );
    assert_close(breakdown.ms(WaitPart::Server), 403.0, "server");
    let text = breakdown.round_trip_text(Lang::En);
    assert!(
        text.contains("243.0 ms") && text.contains("5 requests without the key"),
        "{text}"
    );
    assert!(breakdown
        .round_trip_text(Lang::Zh)
        .contains("5 个不带密钥的请求"));
    // A quicker handshake the page saw is the better estimate (each carries less beside the trip).
    input.earlier_round_trip_ms = Some(241.0);
    let breakdown = WaitBreakdown::compute(&input).unwrap();
    assert_eq!(
        breakdown.round_trip.map(|trip| trip.from),
        Some(RoundTripSource::Earlier)
    );
}

/// A slow uplink (issue 32): an 80 KB prompt over 1 Mbit/s up, a 64 ms round trip from the
/// page's pings, a server that takes 100 ms queue + 300 ms prefill; 1160 ms to the first token.
fn slow_upload_instants() -> Instants {
    instants(1160.0, None)
}

fn pinged(instants: &Instants) -> BreakdownInput<'_> {
    let mut input = input(instants, None, None);
    input.ping_round_trip = Some(ttft_core::timeline::RoundTrip {
        ms: 64.0,
        from: RoundTripSource::Pings,
        pings: Some(5),
    });
    input.request_bytes = Some(80_000);
    input
}

#[test]
fn a_reported_upload_is_network_time_and_the_verdict_names_the_upload_not_the_prompt() {
    let instants = slow_upload_instants();
    let reported = ServerAccount {
        sources: vec![AccountSource::ServerTiming],
        upload_ms: Some(690.0),
        queue_ms: Some(100.0),
        prompt_ms: Some(300.0),
        ..ServerAccount::default()
    };
    let mut input = pinged(&instants);
    input.account = Some(&reported);
    let breakdown = WaitBreakdown::compute(&input).unwrap();
    sum_is_ttfa(&breakdown);
    // One round trip (estimated) and the upload (the server's count) in the network part.
    assert_close(breakdown.ms(WaitPart::Network), 64.0 + 690.0, "network");
    assert_close(breakdown.upload_ms(), 690.0, "upload");
    assert_close(breakdown.ms(WaitPart::Queue), 100.0, "queue");
    assert_close(breakdown.ms(WaitPart::Prompt), 300.0, "prompt");
    let upload = breakdown
        .parts
        .iter()
        .find(|time| time.source == PartSource::ServerReported && time.part == WaitPart::Network)
        .unwrap();
    assert_eq!(
        breakdown.label(upload, Lang::En),
        "upload, by the server's count"
    );
    assert_eq!(breakdown.upload_note(Lang::En), None, "reported: no note");
    let verdict = WaitVerdict::of(&breakdown).unwrap();
    assert_eq!(verdict.cause, WaitCause::Network);
    assert!(verdict.mostly_upload);
    let said = format!(
        "{} {}",
        verdict.headline(Lang::En),
        verdict.remedy(Lang::En)
    );
    assert!(said.contains("upload"), "{said}");
    assert!(
        said.contains("a prefix cache shortens prompt processing, not the upload"),
        "{said}"
    );
    let zh = format!(
        "{} {}",
        verdict.headline(Lang::Zh),
        verdict.remedy(Lang::Zh)
    );
    assert!(zh.contains("上传"), "{zh}");
}

#[test]
fn an_unreported_upload_of_a_long_prompt_is_said_to_be_inside_the_server_part() {
    // No account: the page cannot split the upload from the server; it must not blame the
    // prompt, and it says what it cannot see, with the body's size and the link estimate.
    let instants = slow_upload_instants();
    let mut input = pinged(&instants);
    input.downlink_mbps = Some(10.0);
    let breakdown = WaitBreakdown::compute(&input).unwrap();
    sum_is_ttfa(&breakdown);
    assert_close(
        breakdown.ms(WaitPart::Network),
        64.0,
        "network: the round trip only",
    );
    assert_close(breakdown.ms(WaitPart::Server), 1160.0 - 64.0, "server");
    let verdict = WaitVerdict::of(&breakdown).unwrap();
    assert_eq!(verdict.cause, WaitCause::Server);
    let headline = verdict.headline(Lang::En);
    assert!(
        headline.contains("a slow upload or a lost packet's resend would land here too"),
        "{headline}"
    );
    assert!(!headline.contains("prompt processing ("), "{headline}");
    let note = breakdown.upload_note(Lang::En).unwrap();
    assert!(note.contains("80.0 KB"), "{note}");
    assert!(note.contains("10 Mbit/s"), "{note}");
    assert!(note.contains("a downlink"), "{note}");
    let zh = breakdown.upload_note(Lang::Zh).unwrap();
    assert!(zh.contains("80.0 KB") && zh.contains("下行"), "{zh}");
    // Without the browser's estimate, and for a short prompt: said / nothing.
    input.downlink_mbps = None;
    let breakdown = WaitBreakdown::compute(&input).unwrap();
    assert!(breakdown
        .upload_note(Lang::En)
        .unwrap()
        .contains("gives no estimate"));
    input.request_bytes = Some(2_000);
    assert_eq!(
        WaitBreakdown::compute(&input)
            .unwrap()
            .upload_note(Lang::En),
        None
    );
}

#[test]
fn with_the_account_on_the_rest_is_not_called_queue_or_prompt() {
    // The server reported its queue and prompt; what is left (here the largest) is what its
    // account leaves unexplained, not "queue or prompt processing".
    let instants = instants(1000.0, None);
    let reported = account(Some(100.0), Some(300.0));
    let mut input = input(&instants, None, Some(&reported));
    input.earlier_round_trip_ms = Some(20.0);
    let breakdown = WaitBreakdown::compute(&input).unwrap();
    let verdict = WaitVerdict::of(&breakdown).unwrap();
    assert_eq!(verdict.cause, WaitCause::Server);
    let headline = verdict.headline(Lang::En);
    assert!(headline.contains("beyond what it reported"), "{headline}");
    assert!(!headline.contains("does not say which"), "{headline}");
}

/// The relay's account of docs/relay.md's example: a new h2 connection to the provider
/// (DNS 0.4, TCP 50.3, TLS 103.1 ms), the request written at 154.6 ms, the provider's headers
/// at 226.0 ms and its first byte at 412.3 ms, all from the relay's t0.
fn relay_cold() -> RelayAccount {
    RelayAccount {
        version: Some("0.1.0".to_owned()),
        conn: Some(RelayConn::New),
        proto: Some(RelayProto::H2),
        dns_ms: Some(0.4),
        tcp_ms: Some(50.3),
        tls_ms: Some(103.1),
        rtt_ms: Some(50.3),
        sent_ms: Some(154.6),
        headers_ms: Some(226.0),
        first_byte_ms: Some(412.3),
        error: None,
    }
}

/// A run through the relay: the page saw the headers `headers_loop_ms` and the first body
/// byte `body_loop_ms` after the relay's own times (loopback and the browser's work), and
/// the first answer token `ttfa_ms` after `fetch()`.
fn via_relay(
    relay: &RelayAccount,
    headers_loop_ms: f64,
    body_loop_ms: f64,
    ttfa_ms: f64,
) -> Instants {
    Instants {
        headers_received: relay.headers_ms.map(|ms| 1000.0 + ms + headers_loop_ms),
        first_byte: relay.first_byte_ms.map(|ms| 1000.0 + ms + body_loop_ms),
        ..instants(ttfa_ms, None)
    }
}

#[test]
fn through_the_relay_a_cold_run_is_split_by_what_the_relay_saw() {
    let relay = relay_cold();
    // Loopback: 2.5 ms by the headers, 2.0 ms by the first byte (the lesser is taken); the
    // first answer token 650 ms after fetch(): the provider's first byte was a role chunk.
    let instants = via_relay(&relay, 2.5, 2.0, 650.0);
    // The browser's own Resource Timing of its connection to the relay is not the provider's.
    let network = network(1.5, Some((0.3, 0.0)));
    let breakdown = WaitBreakdown::compute(&BreakdownInput {
        relay: Some(&relay),
        ..input(&instants, Some(&network), None)
    })
    .expect("a breakdown");
    sum_is_ttfa(&breakdown);
    assert_close(breakdown.ms(WaitPart::Relay), 2.0, "browser ↔ relay");
    // The request written 154.6 ms after t0 on a connection opened for it.
    assert_close(
        breakdown.ms(WaitPart::Connection),
        154.6,
        "relay's connection",
    );
    assert_close(breakdown.ms(WaitPart::Network), 50.3, "relay's round trip");
    // 650 − 2 − 154.6 − 50.3: the provider's first byte (412.3 − 154.6 − 50.3 = 207.4 after
    // the request arrived) and its first token 235.7 ms after that.
    assert_close(
        breakdown.ms(WaitPart::Server),
        443.1,
        "the provider's server",
    );
    assert_eq!(breakdown.ms(WaitPart::Preflight), Some(0.0));
    assert_eq!(
        breakdown.source(WaitPart::Relay),
        Some(PartSource::Measured)
    );
    assert_eq!(
        breakdown.source(WaitPart::Connection),
        Some(PartSource::Measured)
    );
    assert_eq!(
        breakdown.source(WaitPart::Network),
        Some(PartSource::Estimated)
    );
    assert_eq!(
        breakdown.round_trip.map(|trip| (trip.from, trip.ms)),
        Some((RoundTripSource::Relay, 50.3))
    );
    assert!(!breakdown.connection_reused);
    let labels: Vec<&str> = breakdown
        .parts
        .iter()
        .map(|part| breakdown.label(part, Lang::En))
        .collect();
    assert_eq!(
        labels,
        [
            "browser ↔ relay (loopback)",
            "relay → provider, new connection, by the relay",
            "relay → provider, round trip, by the relay",
            "the provider's server",
        ]
    );
    let note = breakdown.relay_text(Lang::En).expect("a relay note");
    assert!(note.contains("cold, opened for this run"), "{note}");
    assert!(breakdown
        .relay_text(Lang::Zh)
        .unwrap()
        .contains("冷，为本次运行新建"));
    // The verdict: the provider's server, with the relay's words.
    let verdict = WaitVerdict::of(&breakdown).unwrap();
    assert_eq!(verdict.cause, WaitCause::Server);
    assert!(verdict.via_relay);
    assert!(verdict
        .headline(Lang::En)
        .contains("the provider's server before its first token"));
    assert!(verdict
        .remedy(Lang::En)
        .contains("not the network's nor the relay's"));
}

/// A request that joined a handshake another request began (the page's models list, a
/// moment before): the relay reports the connection's whole set-up (DNS, TCP, TLS: 153.8 ms)
/// but wrote this request 9.9 ms after it came; only those 9.9 ms were on its path, and the
/// provider's server keeps the rest (an e2e run through ttft-relay found 56 ms moved).
#[test]
fn through_the_relay_a_joined_handshake_costs_only_the_wait_for_its_end() {
    let relay = RelayAccount {
        sent_ms: Some(9.9),
        headers_ms: Some(60.2),
        first_byte_ms: Some(530.2),
        ..relay_cold()
    };
    let instants = via_relay(&relay, 3.0, 3.0, 533.2);
    let breakdown = WaitBreakdown::compute(&BreakdownInput {
        relay: Some(&relay),
        ..input(&instants, None, None)
    })
    .expect("a breakdown");
    sum_is_ttfa(&breakdown);
    assert_close(
        breakdown.ms(WaitPart::Connection),
        9.9,
        "the wait for the handshake's end",
    );
    assert_close(breakdown.ms(WaitPart::Network), 50.3, "relay's round trip");
    // 533.2 − 3 − 9.9 − 50.3.
    assert_close(
        breakdown.ms(WaitPart::Server),
        470.0,
        "the provider's server",
    );
}

#[test]
fn through_the_relay_a_warm_run_keeps_the_providers_own_account() {
    let relay = RelayAccount {
        conn: Some(RelayConn::Reused),
        dns_ms: None,
        tcp_ms: None,
        tls_ms: None,
        rtt_ms: Some(40.0),
        sent_ms: Some(0.3),
        headers_ms: Some(340.0),
        first_byte_ms: Some(341.0),
        ..relay_cold()
    };
    // Loopback 3.0 by the headers, 2.5 by the first byte.
    let instants = via_relay(&relay, 3.0, 2.5, 345.0);
    let account = account(Some(100.0), Some(150.0));
    let breakdown = WaitBreakdown::compute(&BreakdownInput {
        relay: Some(&relay),
        ..input(&instants, None, Some(&account))
    })
    .expect("a breakdown");
    sum_is_ttfa(&breakdown);
    // The relay's own 0.3 ms before writing on a reused connection is its part.
    assert_close(breakdown.ms(WaitPart::Relay), 2.8, "browser ↔ relay");
    assert_eq!(breakdown.ms(WaitPart::Connection), Some(0.0));
    assert_close(breakdown.ms(WaitPart::Network), 40.0, "relay's round trip");
    assert_close(breakdown.ms(WaitPart::Queue), 100.0, "queue, reported");
    assert_close(breakdown.ms(WaitPart::Prompt), 150.0, "prompt, reported");
    assert_close(breakdown.ms(WaitPart::Server), 52.2, "the rest");
    let server = breakdown
        .parts
        .iter()
        .find(|part| part.part == WaitPart::Server)
        .unwrap();
    assert_eq!(breakdown.label(server, Lang::En), "server, the rest");
    assert!(breakdown
        .relay_text(Lang::En)
        .unwrap()
        .contains("warm, reused"));
}

#[test]
fn through_the_relay_a_slow_loopback_is_the_relays_part_and_its_verdict() {
    // The page's first request to the relay paid its connection and CORS preflight (80 ms
    // over a busy loopback); the provider answered at once.
    let relay = RelayAccount {
        conn: Some(RelayConn::Preopened),
        rtt_ms: Some(5.0),
        sent_ms: Some(0.2),
        headers_ms: Some(20.0),
        first_byte_ms: Some(20.5),
        dns_ms: None,
        tcp_ms: None,
        tls_ms: None,
        ..relay_cold()
    };
    let instants = via_relay(&relay, 80.0, 80.0, 110.0);
    let breakdown = WaitBreakdown::compute(&BreakdownInput {
        relay: Some(&relay),
        ..input(&instants, None, None)
    })
    .unwrap();
    sum_is_ttfa(&breakdown);
    assert_close(breakdown.ms(WaitPart::Relay), 80.2, "browser ↔ relay");
    let verdict = WaitVerdict::of(&breakdown).unwrap();
    assert_eq!(verdict.cause, WaitCause::Relay);
    assert_eq!(verdict.cause.code(), "relay");
    assert!(verdict.remedy(Lang::En).contains("a few ms"));
    assert!(breakdown
        .relay_text(Lang::En)
        .unwrap()
        .contains("opened by the relay's pool"));
}

#[test]
fn through_the_relay_numbers_that_do_not_fit_still_sum_exactly() {
    // A relay whose clock says more than the page waited (a wrong or hostile account), and
    // one that gave no times at all: the parts stay within the wait and sum to it.
    let mut relay = relay_cold();
    relay.headers_ms = Some(5_000.0);
    relay.first_byte_ms = Some(5_001.0);
    relay.sent_ms = Some(4_000.0);
    let late = Instants {
        headers_received: Some(1300.0),
        first_byte: Some(1301.0),
        ..instants(310.0, Some(305.0))
    };
    let breakdown = WaitBreakdown::compute(&BreakdownInput {
        relay: Some(&relay),
        ..input(&late, None, None)
    })
    .unwrap();
    sum_is_ttfa(&breakdown);
    assert_eq!(breakdown.ms(WaitPart::Relay), Some(0.0));
    assert_close(
        breakdown.ms(WaitPart::Connection),
        305.0,
        "all the wait before reasoning",
    );
    assert_close(breakdown.ms(WaitPart::Reasoning), 5.0, "reasoning");
    // No time to compare with: the browser's own split, the run still marked by its record.
    let silent = RelayAccount::default();
    let plain = instants(300.0, None);
    let breakdown = WaitBreakdown::compute(&BreakdownInput {
        relay: Some(&silent),
        ..input(&plain, None, None)
    })
    .unwrap();
    sum_is_ttfa(&breakdown);
    assert_eq!(breakdown.relay, None);
}

#[test]
fn over_runs_through_the_relay_the_summary_speaks_of_the_relay() {
    let relay = relay_cold();
    let instants = via_relay(&relay, 2.0, 2.0, 650.0);
    let breakdown = WaitBreakdown::compute(&BreakdownInput {
        relay: Some(&relay),
        ..input(&instants, None, None)
    })
    .unwrap();
    let summary = WaitSummary::of([&breakdown, &breakdown, &breakdown]).unwrap();
    assert_close(summary.p50(WaitPart::Relay), 2.0, "relay p50");
    assert!(summary.verdict.unwrap().via_relay);
}

#[test]
fn a_record_of_schema_5_reads_without_the_relay() {
    // A breakdown and a verdict stored before the relay existed read back as before.
    let stored = r#"{"parts":[{"part":"network","ms":50.0,"source":"estimated"},{"part":"server","ms":250.0,"source":"estimated"}],"ttfa_ms":300.0,"round_trip":{"ms":50.0,"from":"tls_handshake"}}"#;
    let breakdown: WaitBreakdown = serde_json::from_str(stored).unwrap();
    assert_eq!(breakdown.relay, None);
    assert_eq!(breakdown.relay_text(Lang::En), None);
    let verdict: WaitVerdict = serde_json::from_str(
        r#"{"cause":"server","ms":250.0,"total_ms":300.0,"network_included":false}"#,
    )
    .unwrap();
    assert!(!verdict.via_relay);
}
