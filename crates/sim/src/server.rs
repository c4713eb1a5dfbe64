//! HTTP: routing, auth, CORS, ground-truth headers and timed streaming.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method};
use axum::response::Response;
use axum::Router;
use bytes::Bytes;
use tokio::time::Instant;

use crate::app::{header_fault, status_refusal, App, Refusal};
use crate::cache::{token_hash, CacheMode};
use crate::clock::unix_seconds;
use crate::dialect::errors::{invalid_url, ApiError, Overflow};
use crate::dialect::{self, Account, DeltaRun, FaultDetails, Frame, FrameBody, Usage, WriterInput};
use crate::fault::{self, Fault, FloodRun};
use crate::http::{
    allowed_headers, api_error, finish_api, json_response, response, set, IDENTITY_HEADER,
};
use crate::profile::{AccountStyles, Profile, ProfileError, ReasoningStyle, ResolvedModel};
use crate::recorder::REQUESTS_PATH;
use crate::request::{parse_request, Dialect, RequestError, SimRequest};
use crate::routes::{extras_response, models, query_value, requests_route, static_response};
use crate::timing::{self, Booking, Jitter, OutputCounts, StreamPlan};
use crate::{auth, extras, seen_keys, text, tokens};

const SSE_CONTENT_TYPE: &str = "text/event-stream; charset=utf-8";

/// The axum router serving everything for `app`.
pub(crate) fn router(app: Arc<App>) -> Router {
    Router::new()
        .fallback(handle)
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&app),
            record,
        ))
        .with_state(app)
}

/// Remembers the keys of every request (the `echo_past_keys` faults), reads each whole
/// request (body included) before handling it, as a server does before its clock starts (a
/// slow upload is then the client's and the network's time, never the script's, with or
/// without the recorder: issue 32), and with `--record-requests` records it.
async fn record(
    State(app): State<Arc<App>>,
    request: Request,
    next: axum::middleware::Next,
) -> Response {
    seen_keys::remember(request.headers());
    if request.uri().path() == REQUESTS_PATH {
        return next.run(request).await;
    }
    let head_at = Instant::now();
    let at_ms = app.ms_since_epoch(head_at);
    let (mut parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY_BYTES).await else {
        let error = ApiError::BadRequest("The request body could not be read.".into());
        let allowed_headers = allowed_headers(app.config.trace_headers_allowed);
        let cors = app.config.cors_enabled.then_some(allowed_headers.as_str());
        return finish_api(api_error(&error, Dialect::Chat), cors);
    };
    if let Some(recorder) = &app.recorder {
        recorder.record(&parts, &bytes, at_ms);
    }
    // The request's upload as this server saw it: its head's arrival to its body's end
    // (reported as `Server-Timing: upload`).
    parts.extensions.insert(RequestHead(head_at));
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// When a request's head arrived (set by [`record`], which then reads the whole body).
#[derive(Clone, Copy, Debug)]
struct RequestHead(Instant);

/// Largest request body read, bytes.
const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    Api(Dialect),
    Models,
    /// llama.cpp `GET /props`.
    Props,
    /// llama.cpp / vLLM `POST /tokenize`.
    Tokenize,
    /// ttft-sim's identity, `GET /__sim/info`.
    Info,
    /// The recorder, `GET` / `DELETE /__sim/requests`.
    Requests,
}

fn route_of(path: &str, accept_unversioned: bool) -> Option<Route> {
    match path {
        "/props" => return Some(Route::Props),
        "/tokenize" => return Some(Route::Tokenize),
        extras::INFO_PATH => return Some(Route::Info),
        REQUESTS_PATH => return Some(Route::Requests),
        _ => {}
    }
    let rest = match path.strip_prefix("/v1") {
        Some(rest) => rest,
        None if accept_unversioned => path,
        None => return None,
    };
    match rest {
        "/chat/completions" => Some(Route::Api(Dialect::Chat)),
        "/messages" => Some(Route::Api(Dialect::Messages)),
        "/responses" => Some(Route::Api(Dialect::Responses)),
        "/models" => Some(Route::Models),
        _ => None,
    }
}

/// Every response says it comes from ttft-sim.
async fn handle(State(app): State<Arc<App>>, request: Request) -> Response {
    let timing_allowed = app.config.timing_allow_origin;
    let mut response = route(app, request).await;
    set(
        response.headers_mut(),
        IDENTITY_HEADER,
        env!("CARGO_PKG_VERSION"),
    );
    if !timing_allowed {
        // As most providers: the page's Resource Timing of the request is hidden.
        response.headers_mut().remove("timing-allow-origin");
    }
    response
}

async fn route(app: Arc<App>, request: Request) -> Response {
    let arrival = Instant::now();
    let upload_ms = request
        .extensions()
        .get::<RequestHead>()
        .map_or(0.0, |head| {
            arrival.duration_since(head.0).as_secs_f64() * 1000.0
        });
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let allowed_headers = allowed_headers(app.config.trace_headers_allowed);
    let cors = app.config.cors_enabled.then_some(allowed_headers.as_str());
    // Preflights succeed on every path (unknown ones included), so a page that calls a
    // wrong URL gets to read the 404 body below instead of an opaque CORS failure.
    if method == Method::OPTIONS
        && (cors.is_some() || route_of(&path, app.config.accept_unversioned).is_some())
    {
        return finish_api(response(204, "text/plain", Body::empty()), cors);
    }
    let not_found = || json_response(404, invalid_url(method.as_str(), &path));
    let Some(route) = route_of(&path, app.config.accept_unversioned) else {
        if let (Some(dist), true) = (
            &app.config.dist,
            method == Method::GET || method == Method::HEAD,
        ) {
            let accept_encoding = request
                .headers()
                .get("accept-encoding")
                .and_then(|v| v.to_str().ok());
            return static_response(&app, dist, &path, accept_encoding).await;
        }
        return finish_api(not_found(), cors);
    };
    let query = request.uri().query().unwrap_or("").to_string();
    match (route, &method) {
        (Route::Models, &Method::GET) => {
            let (response, cors_for_this) = models(&app, request.headers(), &path);
            finish_api(response, cors.filter(|_| cors_for_this))
        }
        (Route::Info, &Method::GET) => {
            finish_api(json_response(200, extras::info().to_string()), cors)
        }
        (Route::Props, &Method::GET) if app.config.context_info => {
            let model = query_value(&query, "model");
            let answer = extras::props(&app.config.profiles, model.as_deref(), app.config.slots);
            finish_api(extras_response(answer), cors)
        }
        (Route::Requests, &Method::GET | &Method::DELETE) => {
            finish_api(requests_route(&app, &method), cors)
        }
        (Route::Api(_) | Route::Tokenize, &Method::POST) => {
            let (parts, body) = request.into_parts();
            let dialect = match route {
                Route::Api(dialect) => dialect,
                _ => Dialect::Chat,
            };
            let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY_BYTES).await else {
                let error = ApiError::BadRequest("The request body could not be read.".into());
                return finish_api(api_error(&error, dialect), cors);
            };
            if route == Route::Tokenize {
                if !app.config.tokenize_enabled {
                    return finish_api(not_found(), cors);
                }
                let answer = extras::tokenize(&app.config.profiles, &bytes);
                return finish_api(extras_response(answer), cors);
            }
            let path_and_query = parts
                .uri
                .path_and_query()
                .map_or(path.as_str(), |pq| pq.as_str());
            let (response, cors_for_this) = complete(
                app.clone(),
                dialect,
                &parts.headers,
                &bytes,
                path_and_query,
                arrival,
                upload_ms,
            )
            .await;
            finish_api(response, cors.filter(|_| cors_for_this))
        }
        _ => finish_api(not_found(), cors),
    }
}

fn round_ms(ms: f64) -> String {
    let rounded = (ms * 1000.0).round() / 1000.0;
    format!("{rounded}")
}

/// A request that passed every check, with its fault (if any) chosen.
struct Admitted {
    request: SimRequest,
    resolved: ResolvedModel,
    fault: Option<Fault>,
    prompt_tokens: u32,
}

/// Everything decided on arrival for one completion.
struct Prepared {
    request_id: u64,
    usage: Usage,
    counts: OutputCounts,
    plan: StreamPlan,
    booking: Option<Booking>,
    /// The profile's gateway time, inside `plan.queue_ms` (it comes first).
    gateway_ms: f64,
}

/// Checks in the order real providers do: auth, body, model; then status faults, then
/// whether the prompt fits the context window.
fn admit(
    app: &App,
    dialect: Dialect,
    headers: &HeaderMap,
    body: &[u8],
    path_and_query: &str,
) -> Result<Admitted, Refusal> {
    let header_fault = header_fault(headers)?;
    if let Some(key) = &app.config.require_key {
        auth::check_key(headers, auth::KeyStyle::for_dialect(dialect), key)?;
    }
    let request = parse_request(dialect, body).map_err(|error| {
        ApiError::BadRequest(match error {
            RequestError::MissingModel if dialect == Dialect::Messages => {
                "model: Field required".to_string()
            }
            other => other.to_string(),
        })
    })?;
    let resolved = app
        .config
        .profiles
        .resolve(&request.model)
        .map_err(|error| match error {
            ProfileError::UnknownModel(model) => ApiError::ModelNotFound(model),
            other => {
                ApiError::BadRequest(format!("Invalid model name `{}`: {other}", request.model))
            }
        })?;
    let fault = header_fault.or(resolved.fault).or(app.config.fault);
    let profile = &resolved.profile;
    if let Some(refusal) = fault.and_then(|fault| {
        status_refusal(
            app,
            fault,
            headers,
            &request.model,
            Some(profile),
            path_and_query,
        )
    }) {
        return Err(refusal);
    }
    let prompt_tokens: u32 = request.texts.iter().map(|t| tokens::count_tokens(t)).sum();
    if let Some(overflow) = Overflow::check(
        profile.overflow_style,
        dialect,
        profile.context_tokens,
        prompt_tokens,
        request.max_tokens,
    ) {
        return Err(ApiError::ContextOverflow(overflow).into());
    }
    Ok(Admitted {
        request,
        resolved,
        fault,
        prompt_tokens,
    })
}

/// Decides everything on arrival (cache hit, jitter, slot booking), so the ground truth is
/// known before the first byte goes out.
fn prepare(app: &App, admitted: &Admitted, arrival: Instant) -> Prepared {
    let profile = &admitted.resolved.profile;
    let model = &admitted.resolved.base_name;
    let prompt: Vec<&str> = admitted
        .request
        .texts
        .iter()
        .flat_map(|t| tokens::pieces(t))
        .collect();
    let prompt_tokens = admitted.prompt_tokens;
    let counts = timing::output_counts(profile, admitted.request.max_tokens);
    let arrival_ms = app.ms_since_epoch(arrival);
    // A stalled or dripping request computes nothing, so it takes no slot.
    let takes_slot = !admitted.fault.is_some_and(Fault::takes_no_slot);
    let mut state = app.lock();
    let request_id = state.next_request_id;
    state.next_request_id += 1;
    let (cached_tokens, slot) = match app.config.cache_mode {
        CacheMode::Off => (0, None),
        CacheMode::Blocks => {
            let cached = state
                .cache
                .lookup_and_insert(model, &prompt, app.config.block_tokens);
            (cached, None)
        }
        CacheMode::LastPrompt if takes_slot => {
            let hashes: Vec<u64> = prompt.iter().map(|piece| token_hash(piece)).collect();
            let candidates = state.schedule.candidates(arrival_ms);
            let slot = state
                .slot_prompts
                .best_slot(&candidates, model, &hashes)
                .unwrap_or_else(|| state.schedule.first_free_slot());
            let cached = state.slot_prompts.cached_tokens(slot, model, &hashes);
            state.slot_prompts.remember(slot, model, hashes);
            (cached, Some(slot))
        }
        CacheMode::LastPrompt => (0, None),
    };
    let mut jitter = Jitter::new(app.config.seed, request_id, app.config.jitter_ms);
    let uncached_tokens = prompt_tokens - cached_tokens;
    let prefill_ms = timing::prefill_ms(profile, uncached_tokens, admitted.request.max_tokens)
        + jitter.next_ms();
    let gaps_ms: Vec<f64> = (1..counts.reasoning_tokens + counts.answer_tokens)
        .map(|_| profile.itl_ms + jitter.next_ms())
        .collect();
    let duration_ms = prefill_ms + gaps_ms.iter().sum::<f64>();
    let booking = takes_slot.then(|| match slot {
        Some(slot) => state
            .schedule
            .book_on(slot, request_id, arrival_ms, duration_ms),
        None => state.schedule.book(request_id, arrival_ms, duration_ms),
    });
    // The wait before prefill: the gateway's time, the scripted queue and any wait for a
    // slot (the scripted parts hold no slot).
    let queue_ms =
        profile.gateway_ms + profile.queue_ms + booking.map_or(0.0, |b| b.queue_ms(arrival_ms));
    let mut gaps = gaps_ms.into_iter();
    let plan = timing::plan_stream(profile, queue_ms, prefill_ms, counts, || {
        gaps.next().unwrap_or(profile.itl_ms)
    });
    Prepared {
        request_id,
        usage: Usage {
            prompt_tokens,
            cached_tokens,
            reasoning_tokens: counts.reasoning_tokens,
            answer_tokens: counts.answer_tokens,
        },
        counts,
        plan,
        booking,
        gateway_ms: profile.gateway_ms,
    }
}

/// The x-sim-* headers (see [`GROUND_TRUTH_HEADERS`](crate::http::GROUND_TRUTH_HEADERS)).
fn add_ground_truth(headers: &mut HeaderMap, prepared: &Prepared, profile: &Profile) {
    let plan = &prepared.plan;
    let usage = prepared.usage;
    let first_reasoning_ms = plan
        .reasoning_at_ms
        .first()
        .copied()
        .filter(|_| profile.reasoning_style != ReasoningStyle::None);
    let first_visible_ms = first_reasoning_ms
        .or(plan.first_answer_ms())
        .unwrap_or(plan.first_token_ms());
    set(
        headers,
        "x-sim-request-id",
        &prepared.request_id.to_string(),
    );
    set(
        headers,
        "x-sim-prompt-tokens",
        &usage.prompt_tokens.to_string(),
    );
    set(
        headers,
        "x-sim-cached-tokens",
        &usage.cached_tokens.to_string(),
    );
    set(
        headers,
        "x-sim-queue-ms",
        &round_ms(plan.queue_ms - prepared.gateway_ms),
    );
    set(headers, "x-sim-gateway-ms", &round_ms(prepared.gateway_ms));
    set(headers, "x-sim-prefill-ms", &round_ms(plan.prefill_ms));
    set(headers, "x-sim-first-token-ms", &round_ms(first_visible_ms));
    if let Some(ms) = first_reasoning_ms {
        set(headers, "x-sim-first-reasoning-ms", &round_ms(ms));
    }
    if let Some(ms) = plan.first_answer_ms() {
        set(headers, "x-sim-first-answer-ms", &round_ms(ms));
    }
    set(headers, "x-sim-end-ms", &round_ms(plan.end_ms));
    set(headers, "x-sim-itl-ms", &round_ms(profile.itl_ms));
    set(
        headers,
        "x-sim-reasoning-tokens",
        &usage.reasoning_tokens.to_string(),
    );
    set(
        headers,
        "x-sim-output-tokens",
        &usage.output_tokens().to_string(),
    );
}

/// The server's account in headers, in the styles asked for: a `Server-Timing` header
/// (`upload`: the request's head to its body's end, as this server saw it; `gateway`,
/// `queue`, `prefill`) and LiteLLM's `x-litellm-overhead-duration-ms`.
fn add_account_headers(
    headers: &mut HeaderMap,
    prepared: &Prepared,
    styles: AccountStyles,
    upload_ms: f64,
) {
    let plan = &prepared.plan;
    if styles.server_timing {
        let mut metrics = vec![format!("upload;dur={}", round_ms(upload_ms))];
        if prepared.gateway_ms > 0.0 {
            metrics.push(format!("gateway;dur={}", round_ms(prepared.gateway_ms)));
        }
        metrics.push(format!(
            "queue;dur={}",
            round_ms(plan.queue_ms - prepared.gateway_ms)
        ));
        metrics.push(format!("prefill;dur={}", round_ms(plan.prefill_ms)));
        set(headers, "server-timing", &metrics.join(", "));
    }
    if styles.litellm {
        set(
            headers,
            "x-litellm-overhead-duration-ms",
            &round_ms(prepared.gateway_ms),
        );
    }
}

/// The texts a completion sends: reasoning and answer tokens, and the model id it names.
struct OutputTexts {
    reasoning: Vec<String>,
    answer: Vec<String>,
    model: String,
}

/// The request's texts: the word lists (in the language of its latest prompt text, the
/// user's last message), or the payloads of a hostile fault, or a flood's whole text.
fn output_texts(admitted: &Admitted, counts: OutputCounts, flood: &[FloodRun]) -> OutputTexts {
    let (request, profile, fault) = (
        &admitted.request,
        &admitted.resolved.profile,
        admitted.fault,
    );
    if fault.is_some_and(Fault::hostile_text) {
        return OutputTexts {
            reasoning: fault::xss_tokens(counts.reasoning_tokens),
            answer: fault::xss_tokens(counts.answer_tokens),
            model: fault::xss_all(),
        };
    }
    let last_text = request.texts.last().map(std::slice::from_ref);
    let chinese = tokens::has_cjk(last_text.unwrap_or(&[]));
    let mut answer = text::answer_tokens(counts.answer_tokens, chinese, profile.paragraph_tokens);
    match fault {
        Some(Fault::BidiMidstream) => {
            fault::insert_bidi_tokens(&mut answer, profile.fault_after_tokens);
        }
        Some(Fault::FloodChars | Fault::FloodLines) => {
            answer = vec![crate::fault::flood_text(flood)]
        }
        _ => {}
    }
    OutputTexts {
        reasoning: text::reasoning_tokens(counts.reasoning_tokens, chinese),
        answer,
        model: request.model.clone(),
    }
}

/// The answer events of a flood fault (none for other faults).
fn flood_runs(fault: Option<Fault>, profile: &Profile) -> Vec<FloodRun> {
    match fault {
        Some(Fault::FloodChars) => fault::flood_chars_runs(profile.flood_events),
        Some(Fault::FloodLines) => {
            fault::flood_lines_runs(profile.flood_newlines, profile.flood_word_bytes)
        }
        _ => Vec::new(),
    }
}

/// The timed frames of a streamed answer, with the request's fault applied.
fn stream_frames(
    dialect: Dialect,
    input: &WriterInput<'_>,
    fault: Option<Fault>,
    headers: &HeaderMap,
    profile: &Profile,
) -> Vec<Frame> {
    let frames = if fault == Some(Fault::KeySplitPanes) {
        let key = auth::request_key(headers).unwrap_or_default();
        dialect::pane_frames(dialect, input, &fault::key_panes(&key))
    } else {
        dialect::stream_frames(dialect, input)
    };
    let Some(fault) = fault else {
        return frames;
    };
    let details = FaultDetails {
        key_echo: auth::key_echo(headers),
        huge_line_bytes: profile.huge_line_bytes,
        key: auth::request_key(headers),
        seen_keys: seen_keys::snapshot(),
    };
    let after_tokens = profile.fault_after_tokens;
    dialect::apply_stream_fault(dialect, input, frames, fault, after_tokens, &details)
}

/// Answers one completion request. Returns the response and whether it may carry CORS.
async fn complete(
    app: Arc<App>,
    dialect: Dialect,
    headers: &HeaderMap,
    body: &[u8],
    path_and_query: &str,
    arrival: Instant,
    upload_ms: f64,
) -> (Response, bool) {
    let admitted = match admit(&app, dialect, headers, body, path_and_query) {
        Ok(admitted) => admitted,
        Err(refusal) => return (refusal.response(dialect), true),
    };
    let prepared = prepare(&app, &admitted, arrival);
    let (request, profile, fault) = (
        &admitted.request,
        &admitted.resolved.profile,
        admitted.fault,
    );
    let flood = flood_runs(fault, profile);
    let texts = output_texts(&admitted, prepared.counts, &flood);
    let hostile_usage = fault == Some(Fault::BadUsage);
    let input = WriterInput {
        request_id: prepared.request_id,
        model: &texts.model,
        created_s: unix_seconds(),
        plan: &prepared.plan,
        style: profile.reasoning_style,
        early: profile.early_role,
        include_usage: (request.include_usage && profile.stream_usage)
            || hostile_usage
            || profile.server_account.sambanova,
        hostile_usage,
        reasoning: &texts.reasoning,
        answer: &texts.answer,
        usage: prepared.usage,
        truncated: prepared.counts.truncated,
        account: Account {
            styles: profile.server_account,
            gateway_ms: prepared.gateway_ms,
        },
        flood: &flood,
    };
    let guard = SlotGuard {
        app: Arc::clone(&app),
        booking: prepared.booking,
    };
    let mut response = if fault == Some(Fault::Stall) {
        let never = futures_util::stream::pending::<Result<Bytes, std::io::Error>>();
        response(200, SSE_CONTENT_TYPE, Body::from_stream(never))
    } else if fault == Some(Fault::Drip) {
        response(200, SSE_CONTENT_TYPE, drip())
    } else if request.stream && fault != Some(Fault::LongContentType) {
        let frames = stream_frames(dialect, &input, fault, headers, profile);
        if profile.hold_headers {
            // The headers leave with the first frame, as through nginx < 1.23 over HTTP/2.
            if let Some(first) = frames.first() {
                tokio::time::sleep_until(due(arrival, first.at_ms)).await;
            }
        }
        response(200, SSE_CONTENT_TYPE, playback(frames, arrival, guard))
    } else {
        // Like real servers, a non-streaming answer (headers included) comes when it is done.
        let body = dialect::completion_body(dialect, &input);
        let ready_at = due(arrival, prepared.plan.end_ms);
        tokio::time::sleep_until(ready_at).await;
        drop(guard);
        let content_type = if fault == Some(Fault::LongContentType) {
            fault::long_content_type(profile.content_type_bytes)
        } else {
            "application/json".to_string()
        };
        response(200, &content_type, Body::from(body))
    };
    set(response.headers_mut(), "cache-control", "no-cache");
    add_ground_truth(response.headers_mut(), &prepared, profile);
    add_account_headers(
        response.headers_mut(),
        &prepared,
        profile.server_account,
        upload_ms,
    );
    (response, fault != Some(Fault::NoCors))
}

/// The `drip` fault's body: a `: keep-alive` comment every
/// [`fault::DRIP_INTERVAL_MS`], forever.
fn drip() -> Body {
    let interval = Duration::from_millis(fault::DRIP_INTERVAL_MS);
    let stream = futures_util::stream::unfold(Instant::now(), move |last| async move {
        let next = last + interval;
        tokio::time::sleep_until(next).await;
        Some((
            Ok::<_, std::io::Error>(Bytes::from_static(b": keep-alive\n\n")),
            next,
        ))
    });
    Body::from_stream(stream)
}

/// Frees the request's slot when its stream ends, early or not.
struct SlotGuard {
    app: Arc<App>,
    booking: Option<Booking>,
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        if let Some(booking) = self.booking.take() {
            let now_ms = self.app.ms_since_epoch(Instant::now());
            self.app.lock().schedule.release(&booking, now_ms);
        }
    }
}

/// The instant `at_ms` after `arrival`, clamped to a day: a scripted absurd delay must not
/// overflow the clock.
fn due(arrival: Instant, at_ms: f64) -> Instant {
    const DAY_MS: f64 = 86_400_000.0;
    let at_ms = if at_ms.is_nan() {
        DAY_MS
    } else {
        at_ms.clamp(0.0, DAY_MS)
    };
    let delay = Duration::from_secs_f64(at_ms / 1000.0);
    arrival + delay
}

struct Playback {
    frames: VecDeque<Frame>,
    arrival: Instant,
    /// Filler bytes still to send (a `huge_line` frame under way).
    filler_left: u64,
    /// A flood's events under way, and the number of the next one to write.
    deltas: Option<(DeltaRun, u64)>,
    _guard: SlotGuard,
}

impl Playback {
    /// The next batch of the flood under way: events up to [`DELTA_BATCH_BYTES`] (at least
    /// one); the run is done when its last event is in.
    fn next_deltas(&mut self) -> Option<Bytes> {
        let (run, next) = self.deltas.take()?;
        let mut batch = Vec::with_capacity(DELTA_BATCH_BYTES + run.longest_event_bytes());
        let after = run.write(next, &mut batch, DELTA_BATCH_BYTES);
        if after < run.count() {
            self.deltas = Some((run, after));
        }
        Some(Bytes::from(batch))
    }
}

/// Size of one write of a flood's events, bytes (at least: the event that crosses it is
/// written whole).
const DELTA_BATCH_BYTES: usize = 64 * 1024;

/// Size of one filler write, bytes.
const FILLER_CHUNK_BYTES: usize = 64 * 1024;
/// The filler, shared by every write (never allocated per request).
static FILLER: [u8; FILLER_CHUNK_BYTES] = [b'x'; FILLER_CHUNK_BYTES];

/// A body that sends each frame at its time, one write per frame (no buffering layer sits
/// between this stream and the socket); filler and floods go out in chunks as fast as the
/// client reads (hyper polls the body only when it can write).
fn playback(frames: Vec<Frame>, arrival: Instant, guard: SlotGuard) -> Body {
    let state = Playback {
        frames: frames.into(),
        arrival,
        filler_left: 0,
        deltas: None,
        _guard: guard,
    };
    let stream = futures_util::stream::unfold(state, |mut state| async move {
        if state.filler_left > 0 {
            let length = state.filler_left.min(FILLER_CHUNK_BYTES as u64);
            state.filler_left -= length;
            let chunk = Bytes::from_static(&FILLER[..length as usize]);
            return Some((Ok(chunk), state));
        }
        if let Some(batch) = state.next_deltas() {
            return Some((Ok(batch), state));
        }
        let frame = state.frames.pop_front()?;
        tokio::time::sleep_until(due(state.arrival, frame.at_ms)).await;
        match frame.body {
            FrameBody::Bytes(text) => Some((Ok(Bytes::from(text)), state)),
            FrameBody::Filler(bytes) => {
                state.filler_left = bytes;
                Some((Ok(Bytes::new()), state))
            }
            FrameBody::Deltas(run) => {
                state.deltas = Some((run, 0));
                let batch = state.next_deltas().unwrap_or_default();
                Some((Ok(batch), state))
            }
            FrameBody::Abort => {
                state.frames.clear();
                Some((
                    Err(std::io::Error::other("simulated connection drop")),
                    state,
                ))
            }
        }
    });
    Body::from_stream(stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        assert_eq!(
            route_of("/v1/chat/completions", false),
            Some(Route::Api(Dialect::Chat))
        );
        assert_eq!(route_of("/chat/completions", false), None);
        assert_eq!(
            route_of("/chat/completions", true),
            Some(Route::Api(Dialect::Chat))
        );
        assert_eq!(route_of("/v1/v1/chat/completions", true), None);
        assert_eq!(route_of("/v1/chat/completion", false), None);
        assert_eq!(route_of("/models", true), Some(Route::Models));
    }
}
