//! HTTP: routing, auth, CORS, ground-truth headers and timed streaming.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{HeaderName, HeaderValue};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::Response;
use axum::Router;
use bytes::Bytes;
use tokio::time::Instant;

use crate::cache::PrefixCache;
use crate::clock::unix_seconds;
use crate::config::ServerConfig;
use crate::dialect::errors::{invalid_url, ApiError};
use crate::dialect::{self, Frame, FrameBody, Usage, WriterInput};
use crate::fault::Fault;
use crate::profile::{Profile, ProfileError, ReasoningStyle, ResolvedModel};
use crate::request::{parse_request, Dialect, RequestError, SimRequest};
use crate::timing::{self, Booking, Jitter, OutputCounts, SlotSchedule, StreamPlan};
use crate::{auth, static_files, text, tokens};

const SSE_CONTENT_TYPE: &str = "text/event-stream; charset=utf-8";

/// Headers a browser may send to the API (the preflight's allow list).
pub const ALLOWED_HEADERS: &str = "authorization, content-type, x-api-key, anthropic-version, \
                                   anthropic-dangerous-direct-browser-access, x-sim-fault";

/// Ground-truth headers on every simulated completion (all times in ms after the request
/// reached the server's handler).
pub const GROUND_TRUTH_HEADERS: &[&str] = &[
    "x-sim-request-id",
    "x-sim-prompt-tokens",
    "x-sim-cached-tokens",
    "x-sim-queue-ms",
    "x-sim-prefill-ms",
    "x-sim-first-token-ms",
    "x-sim-first-reasoning-ms",
    "x-sim-first-answer-ms",
    "x-sim-end-ms",
    "x-sim-itl-ms",
    "x-sim-reasoning-tokens",
    "x-sim-output-tokens",
];

/// Mutable simulation state, behind one lock that is never held across an await.
struct SimState {
    schedule: SlotSchedule,
    cache: PrefixCache,
    next_request_id: u64,
}

/// The shared server.
pub struct App {
    config: ServerConfig,
    epoch: Instant,
    state: Mutex<SimState>,
}

impl App {
    /// A server with `config`, its clock starting now.
    pub fn new(config: ServerConfig) -> Self {
        let state = SimState {
            schedule: SlotSchedule::new(config.slots),
            cache: PrefixCache::new(),
            next_request_id: 1,
        };
        Self {
            config,
            epoch: Instant::now(),
            state: Mutex::new(state),
        }
    }

    fn ms_since_epoch(&self, instant: Instant) -> f64 {
        instant.duration_since(self.epoch).as_secs_f64() * 1000.0
    }

    fn lock(&self) -> MutexGuard<'_, SimState> {
        // A panic while holding the lock cannot leave the state half-updated in a way that
        // matters more than refusing service would, so keep going with it.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The axum router serving everything.
pub fn router(config: ServerConfig) -> Router {
    Router::new()
        .fallback(handle)
        .with_state(Arc::new(App::new(config)))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    Api(Dialect),
    Models,
}

fn route_of(path: &str, accept_unversioned: bool) -> Option<Route> {
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

fn header_value(text: &str) -> HeaderValue {
    HeaderValue::from_str(text).unwrap_or_else(|_| HeaderValue::from_static("invalid"))
}

fn set(headers: &mut HeaderMap, name: &'static str, value: &str) {
    headers.insert(HeaderName::from_static(name), header_value(value));
}

/// CORS and resource-timing headers of an API response.
fn add_cors(headers: &mut HeaderMap) {
    set(headers, "access-control-allow-origin", "*");
    set(
        headers,
        "access-control-allow-methods",
        "POST, GET, OPTIONS",
    );
    set(headers, "access-control-allow-headers", ALLOWED_HEADERS);
    let exposed = std::iter::once("retry-after")
        .chain(GROUND_TRUTH_HEADERS.iter().copied())
        .collect::<Vec<_>>()
        .join(", ");
    set(headers, "access-control-expose-headers", &exposed);
    set(headers, "access-control-max-age", "600");
    set(headers, "timing-allow-origin", "*");
}

fn response(status: u16, content_type: &str, body: Body) -> Response {
    let mut response = Response::new(body);
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    set(response.headers_mut(), "content-type", content_type);
    response
}

/// Adds the headers every API response has (CORS unless off, CORP for isolated pages).
fn finish_api(mut response: Response, cors: bool) -> Response {
    let headers = response.headers_mut();
    set(headers, "cross-origin-resource-policy", "cross-origin");
    if cors {
        add_cors(headers);
    }
    response
}

fn json_response(status: u16, body: String) -> Response {
    response(status, "application/json", Body::from(body))
}

fn api_error(error: &ApiError, dialect: Dialect) -> Response {
    let mut response = json_response(error.status(), error.body(dialect));
    if let ApiError::RateLimited(retry_after_s) = error {
        set(
            response.headers_mut(),
            "retry-after",
            &retry_after_s.to_string(),
        );
    }
    response
}

async fn handle(State(app): State<Arc<App>>, request: Request) -> Response {
    let arrival = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let cors = app.config.cors_enabled;
    // Preflights succeed on every path (unknown ones included), so a page that calls a
    // wrong URL gets to read the 404 body below instead of an opaque CORS failure.
    if method == Method::OPTIONS
        && (cors || route_of(&path, app.config.accept_unversioned).is_some())
    {
        return finish_api(response(204, "text/plain", Body::empty()), cors);
    }
    let Some(route) = route_of(&path, app.config.accept_unversioned) else {
        if let (Some(dist), true) = (
            &app.config.dist,
            method == Method::GET || method == Method::HEAD,
        ) {
            return static_response(dist, &path).await;
        }
        return finish_api(
            json_response(404, invalid_url(method.as_str(), &path)),
            cors,
        );
    };
    match (route, &method) {
        (Route::Models, &Method::GET) => finish_api(models(&app, request.headers()), cors),
        (Route::Api(dialect), &Method::POST) => {
            let (parts, body) = request.into_parts();
            let bytes = match axum::body::to_bytes(body, 16 * 1024 * 1024).await {
                Ok(bytes) => bytes,
                Err(_) => {
                    let error = ApiError::BadRequest("The request body could not be read.".into());
                    return finish_api(api_error(&error, dialect), cors);
                }
            };
            let (response, cors_for_this) =
                complete(app, dialect, &parts.headers, &bytes, arrival).await;
            finish_api(response, cors && cors_for_this)
        }
        _ => finish_api(
            json_response(404, invalid_url(method.as_str(), &path)),
            cors,
        ),
    }
}

async fn static_response(dist: &std::path::Path, path: &str) -> Response {
    let mut response = match static_files::read(dist, path).await {
        Some((bytes, mime)) => response(200, mime, Body::from(bytes)),
        None => response(404, "text/plain; charset=utf-8", Body::from("Not found")),
    };
    let headers = response.headers_mut();
    set(headers, "cross-origin-opener-policy", "same-origin");
    set(headers, "cross-origin-embedder-policy", "require-corp");
    set(headers, "cross-origin-resource-policy", "same-origin");
    set(headers, "cache-control", "no-cache");
    response
}

fn models(app: &App, headers: &HeaderMap) -> Response {
    if let Some(key) = &app.config.require_key {
        if let Err(error) = auth::check_key(headers, auth::KeyStyle::Either, key) {
            return api_error(&error, Dialect::Chat);
        }
    }
    let data: Vec<serde_json::Value> = app
        .config
        .profiles
        .by_name
        .keys()
        .map(|name| serde_json::json!({"id": name, "object": "model", "created": 1_767_225_600, "owned_by": "ttft-sim"}))
        .collect();
    json_response(
        200,
        serde_json::json!({"object": "list", "data": data}).to_string(),
    )
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
}

/// Everything decided on arrival for one completion.
struct Prepared {
    request_id: u64,
    usage: Usage,
    counts: OutputCounts,
    plan: StreamPlan,
    booking: Option<Booking>,
}

/// Checks in the order real providers do: auth, body, model; then status faults.
fn admit(
    app: &App,
    dialect: Dialect,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Admitted, ApiError> {
    let header_fault = match headers.get("x-sim-fault") {
        None => None,
        Some(value) => {
            let name = value.to_str().unwrap_or("");
            let fault = Fault::parse(name).ok_or_else(|| {
                let message = ProfileError::UnknownFault(name.to_string());
                ApiError::BadRequest(format!("x-sim-fault: {message}"))
            })?;
            Some(fault)
        }
    };
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
    let fault = header_fault.or(resolved.fault);
    let status_error = match fault {
        Some(Fault::BadRequest) => Some(ApiError::BadRequest(
            "Simulated bad request (fault 400).".into(),
        )),
        Some(Fault::Unauthorized) => Some(ApiError::WrongKey),
        Some(Fault::Forbidden) => Some(ApiError::Forbidden),
        Some(Fault::NotFound) => Some(ApiError::ModelNotFound(request.model.clone())),
        Some(Fault::RateLimited) => Some(ApiError::RateLimited(resolved.profile.retry_after_s)),
        Some(Fault::ServerError) => Some(ApiError::ServerError),
        _ => None,
    };
    match status_error {
        Some(error) => Err(error),
        None => Ok(Admitted {
            request,
            resolved,
            fault,
        }),
    }
}

/// Decides everything on arrival (cache hit, jitter, slot booking), so the ground truth is
/// known before the first byte goes out.
fn prepare(app: &App, admitted: &Admitted, arrival: Instant) -> Prepared {
    let profile = &admitted.resolved.profile;
    let prompt: Vec<String> = admitted
        .request
        .texts
        .iter()
        .flat_map(|t| tokens::tokenize(t))
        .collect();
    let prompt_tokens = prompt.len() as u32;
    let counts = timing::output_counts(profile, admitted.request.max_tokens);
    let arrival_ms = app.ms_since_epoch(arrival);
    let mut state = app.lock();
    let request_id = state.next_request_id;
    state.next_request_id += 1;
    let cached_tokens = if app.config.cache_enabled {
        let model = &admitted.resolved.base_name;
        state
            .cache
            .lookup_and_insert(model, &prompt, app.config.block_tokens)
    } else {
        0
    };
    let mut jitter = Jitter::new(app.config.seed, request_id, app.config.jitter_ms);
    let uncached_tokens = prompt_tokens - cached_tokens;
    let prefill_ms = timing::prefill_ms(profile, uncached_tokens, admitted.request.max_tokens)
        + jitter.next_ms();
    let gaps_ms: Vec<f64> = (1..counts.reasoning_tokens + counts.answer_tokens)
        .map(|_| profile.itl_ms + jitter.next_ms())
        .collect();
    let duration_ms = prefill_ms + gaps_ms.iter().sum::<f64>();
    // A stalled request computes nothing, so it takes no slot.
    let booking = (admitted.fault != Some(Fault::Stall))
        .then(|| state.schedule.book(request_id, arrival_ms, duration_ms));
    let queue_ms = booking.map_or(0.0, |b| b.queue_ms(arrival_ms));
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
    }
}

/// The x-sim-* headers (see [`GROUND_TRUTH_HEADERS`]).
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
    set(headers, "x-sim-queue-ms", &round_ms(plan.queue_ms));
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

/// Answers one completion request. Returns the response and whether it may carry CORS.
async fn complete(
    app: Arc<App>,
    dialect: Dialect,
    headers: &HeaderMap,
    body: &[u8],
    arrival: Instant,
) -> (Response, bool) {
    let admitted = match admit(&app, dialect, headers, body) {
        Ok(admitted) => admitted,
        Err(error) => return (api_error(&error, dialect), true),
    };
    let prepared = prepare(&app, &admitted, arrival);
    let (request, profile, fault) = (
        &admitted.request,
        &admitted.resolved.profile,
        admitted.fault,
    );
    // Answer in the language of the latest prompt text (the user's last message).
    let chinese = tokens::has_cjk(
        request
            .texts
            .last()
            .map(std::slice::from_ref)
            .unwrap_or(&[]),
    );
    let reasoning_text = text::reasoning_tokens(prepared.counts.reasoning_tokens, chinese);
    let answer_text = text::answer_tokens(
        prepared.counts.answer_tokens,
        chinese,
        profile.paragraph_tokens,
    );
    let input = WriterInput {
        request_id: prepared.request_id,
        model: &request.model,
        created_s: unix_seconds(),
        plan: &prepared.plan,
        style: profile.reasoning_style,
        early: profile.early_role,
        include_usage: request.include_usage,
        reasoning: &reasoning_text,
        answer: &answer_text,
        usage: prepared.usage,
        truncated: prepared.counts.truncated,
    };
    let guard = SlotGuard {
        app: Arc::clone(&app),
        booking: prepared.booking,
    };
    let mut response = if fault == Some(Fault::Stall) {
        let never = futures_util::stream::pending::<Result<Bytes, std::io::Error>>();
        response(200, SSE_CONTENT_TYPE, Body::from_stream(never))
    } else if request.stream {
        let mut frames = dialect::stream_frames(dialect, &input);
        if let Some(fault) = fault {
            let after_tokens = profile.fault_after_tokens;
            frames = dialect::apply_stream_fault(dialect, &input, frames, fault, after_tokens);
        }
        response(200, SSE_CONTENT_TYPE, playback(frames, arrival, guard))
    } else {
        // Like real servers, a non-streaming answer (headers included) comes when it is done.
        let body = dialect::completion_body(dialect, &input);
        let ready_at = due(arrival, prepared.plan.end_ms);
        tokio::time::sleep_until(ready_at).await;
        drop(guard);
        response(200, "application/json", Body::from(body))
    };
    set(response.headers_mut(), "cache-control", "no-cache");
    add_ground_truth(response.headers_mut(), &prepared, profile);
    (response, fault != Some(Fault::NoCors))
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
    _guard: SlotGuard,
}

/// A body that sends each frame at its time, one write per frame (no buffering layer sits
/// between this stream and the socket).
fn playback(frames: Vec<Frame>, arrival: Instant, guard: SlotGuard) -> Body {
    let state = Playback {
        frames: frames.into(),
        arrival,
        _guard: guard,
    };
    let stream = futures_util::stream::unfold(state, |mut state| async move {
        let frame = state.frames.pop_front()?;
        tokio::time::sleep_until(due(state.arrival, frame.at_ms)).await;
        match frame.body {
            FrameBody::Bytes(text) => Some((Ok(Bytes::from(text)), state)),
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
