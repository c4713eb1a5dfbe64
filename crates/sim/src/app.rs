//! The simulator's state as every route sees it ([`App`]: configuration, slots, prefix
//! cache, recorder) and the refusals that answer a request before any simulation.

use std::sync::{Mutex, MutexGuard};

use axum::body::Body;
use axum::http::HeaderMap;
use axum::response::Response;
use tokio::time::Instant;

use crate::cache::{PrefixCache, SlotPrompts};
use crate::config::ServerConfig;
use crate::dialect::errors::{ApiError, BAD_GATEWAY_HTML};
use crate::fault::Fault;
use crate::http::{api_error, response, set};
use crate::profile::{Profile, ProfileError};
use crate::recorder::Recorder;
use crate::request::Dialect;
use crate::timing::SlotSchedule;
use crate::{auth, fault, seen_keys};

/// Mutable simulation state, behind one lock that is never held across an await.
pub(crate) struct SimState {
    pub(crate) schedule: SlotSchedule,
    pub(crate) cache: PrefixCache,
    pub(crate) slot_prompts: SlotPrompts,
    pub(crate) next_request_id: u64,
}

/// The shared server.
pub struct App {
    pub(crate) config: ServerConfig,
    /// The port it listens on (the default `redirect` target is the next one).
    pub(crate) port: u16,
    epoch: Instant,
    state: Mutex<SimState>,
    pub(crate) recorder: Option<Recorder>,
}

impl App {
    /// A server with `config` listening on `port`, its clock starting now.
    pub fn new(config: ServerConfig, port: u16) -> Self {
        let state = SimState {
            schedule: SlotSchedule::new(config.slots),
            cache: PrefixCache::new(),
            slot_prompts: SlotPrompts::new(config.slots),
            next_request_id: 1,
        };
        Self {
            recorder: config.record_requests.then(Recorder::new),
            config,
            port,
            epoch: Instant::now(),
            state: Mutex::new(state),
        }
    }

    pub(crate) fn ms_since_epoch(&self, instant: Instant) -> f64 {
        instant.duration_since(self.epoch).as_secs_f64() * 1000.0
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, SimState> {
        // A panic while holding the lock cannot leave the state half-updated in a way that
        // matters more than refusing service would, so keep going with it.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A request answered before any simulation: an API error in the dialect's shape, a
/// gateway's HTML error page, or a redirect.
pub(crate) enum Refusal {
    Api(ApiError),
    BadGatewayHtml,
    Redirect(String),
}

impl From<ApiError> for Refusal {
    fn from(error: ApiError) -> Self {
        Self::Api(error)
    }
}

impl Refusal {
    pub(crate) fn response(&self, dialect: Dialect) -> Response {
        match self {
            Self::Api(error) => api_error(error, dialect),
            Self::BadGatewayHtml => response(502, "text/html", Body::from(BAD_GATEWAY_HTML)),
            Self::Redirect(location) => {
                let mut redirect = response(307, "text/plain; charset=utf-8", Body::empty());
                set(redirect.headers_mut(), "location", location);
                redirect
            }
        }
    }
}

/// The fault named by `x-sim-fault`, if any.
pub(crate) fn header_fault(headers: &HeaderMap) -> Result<Option<Fault>, ApiError> {
    let Some(value) = headers.get("x-sim-fault") else {
        return Ok(None);
    };
    let name = value.to_str().unwrap_or("");
    let fault = Fault::parse(name).ok_or_else(|| {
        let message = ProfileError::UnknownFault(name.to_string());
        ApiError::BadRequest(format!("x-sim-fault: {message}"))
    })?;
    Ok(Some(fault))
}

/// Where the `redirect` fault sends `path_and_query`: the target as given when it has a
/// path, else the target origin with the request's own path and query.
fn redirect_location(app: &App, profile_target: Option<&str>, path_and_query: &str) -> String {
    let target = profile_target
        .or(app.config.redirect_to.as_deref())
        .map_or_else(
            || format!("http://127.0.0.1:{}", app.port.wrapping_add(1)),
            str::to_string,
        );
    let after_scheme = target.split_once("://").map_or("", |(_, rest)| rest);
    let has_path = after_scheme
        .find('/')
        .is_some_and(|slash| after_scheme.len() > slash + 1);
    if has_path {
        target
    } else {
        format!("{}{path_and_query}", target.trim_end_matches('/'))
    }
}

/// The refusal a fault answers with before any streaming, if it is such a fault.
pub(crate) fn status_refusal(
    app: &App,
    fault: Fault,
    headers: &HeaderMap,
    model: &str,
    profile: Option<&Profile>,
    path_and_query: &str,
) -> Option<Refusal> {
    let retry_after_s = profile.map_or(Profile::default().retry_after_s, |p| p.retry_after_s);
    Some(match fault {
        Fault::BadRequest => {
            ApiError::BadRequest("Simulated bad request (fault 400).".into()).into()
        }
        Fault::Unauthorized => ApiError::WrongKey.into(),
        Fault::Forbidden => ApiError::Forbidden.into(),
        Fault::NotFound => ApiError::ModelNotFound(model.to_string()).into(),
        Fault::RateLimited => ApiError::RateLimited(retry_after_s).into(),
        Fault::ServerError => ApiError::ServerError.into(),
        Fault::EchoKey => ApiError::KeyEchoed(auth::key_echo(headers)).into(),
        Fault::EchoPastKeys => {
            ApiError::KeyEchoed(fault::past_keys_message(&seen_keys::snapshot())).into()
        }
        Fault::Bidi => ApiError::BadRequest(fault::bidi_message()).into(),
        Fault::HtmlError => Refusal::BadGatewayHtml,
        Fault::Redirect => {
            let target = profile.and_then(|p| p.redirect_to.as_deref());
            Refusal::Redirect(redirect_location(app, target, path_and_query))
        }
        _ => return None,
    })
}
