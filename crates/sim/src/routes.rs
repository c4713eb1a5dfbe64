//! The routes beside the completions: the model list (with the faults that apply to it),
//! the extras of real servers (`/props`, `/tokenize`), the request recorder and the
//! static page of `--dist`.

use axum::body::Body;
use axum::http::{HeaderMap, Method};
use axum::response::Response;
use bytes::Bytes;

use crate::app::{header_fault, status_refusal, App};
use crate::dialect::errors::ApiError;
use crate::fault::{self, Fault};
use crate::http::{api_error, json_response, response, set};
use crate::profile::{Profile, ProfileError};
use crate::request::Dialect;
use crate::{auth, extras, static_files};

/// The value of `name` in a query string, percent-decoded (`+` is a space, as in forms).
pub(crate) fn query_value(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (percent_decode(key) == name).then(|| percent_decode(value))
    })
}

/// `%XX` to its byte (a malformed escape stays as written), `+` to a space; then lossy UTF-8.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let hex = |at: usize| bytes.get(at).and_then(|b| char::from(*b).to_digit(16));
        match (bytes[index], hex(index + 1), hex(index + 2)) {
            (b'%', Some(high), Some(low)) => {
                decoded.push((high * 16 + low) as u8);
                index += 3;
            }
            (b'+', _, _) => {
                decoded.push(b' ');
                index += 1;
            }
            (byte, _, _) => {
                decoded.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

pub(crate) fn extras_response(answer: Result<serde_json::Value, extras::ExtrasError>) -> Response {
    match answer {
        Ok(value) => json_response(200, value.to_string()),
        Err(extras::ExtrasError::Model(ProfileError::UnknownModel(model))) => {
            api_error(&ApiError::ModelNotFound(model), Dialect::Chat)
        }
        Err(error) => api_error(&ApiError::BadRequest(error.to_string()), Dialect::Chat),
    }
}

/// `GET` lists the recorded requests, `DELETE` clears them (404 without `--record-requests`).
pub(crate) fn requests_route(app: &App, method: &Method) -> Response {
    let Some(recorder) = &app.recorder else {
        let message = "Requests are recorded only with --record-requests.";
        let body = crate::dialect::errors::openai(message, "invalid_request_error", None);
        return json_response(404, body);
    };
    if method == Method::DELETE {
        recorder.clear();
        return response(204, "text/plain", Body::empty());
    }
    let snapshot = recorder.snapshot();
    json_response(
        200,
        serde_json::to_string(&snapshot).unwrap_or_else(|_| "{}".into()),
    )
}

/// A file of `--dist`, cross-origin isolated. The app's page (`index.html`) and every
/// non-HTML file (a worker's policy comes from its script's response) carry the CSP; other
/// HTML files (embed-example.html is a host page, not the widget) do not. Documents carry
/// `Cross-Origin-Resource-Policy: cross-origin` so a cross-origin-isolated host may frame
/// them; assets stay `same-origin` (only the page itself loads them).
pub(crate) async fn static_response(
    app: &App,
    dist: &std::path::Path,
    path: &str,
    accept_encoding: Option<&str>,
) -> Response {
    let Some(file) = static_files::read(dist, path, accept_encoding).await else {
        let mut response = response(404, "text/plain; charset=utf-8", Body::from("Not found"));
        set(response.headers_mut(), "cache-control", "no-cache");
        return response;
    };
    let document = static_files::is_html(&file.path);
    let policy = if !app.config.csp.enabled || (document && !static_files::is_app_page(&file.path))
    {
        None
    } else if document {
        page_policy(app, &file).await
    } else {
        Some(static_files::content_security_policy(&app.config.csp, &[]))
    };
    let encoding = file.encoding;
    let compressible = static_files::compressible(&file.path);
    let mut response = response(200, file.mime, Body::from(file.bytes));
    let headers = response.headers_mut();
    set(headers, "cross-origin-opener-policy", "same-origin");
    set(headers, "cross-origin-embedder-policy", "require-corp");
    let corp = if document {
        "cross-origin"
    } else {
        "same-origin"
    };
    set(headers, "cross-origin-resource-policy", corp);
    set(headers, "cache-control", "no-cache");
    if let Some(policy) = policy {
        set(headers, "content-security-policy", &policy);
    }
    if let Some(encoding) = encoding {
        set(headers, "content-encoding", encoding.name());
    }
    if compressible {
        set(headers, "vary", "Accept-Encoding");
    }
    response
}

/// The CSP of an app page: hashes of its inline scripts, read from the uncompressed file
/// (whatever encoding is sent).
pub(crate) async fn page_policy(app: &App, file: &static_files::StaticFile) -> Option<String> {
    let html = if file.encoding.is_none() {
        String::from_utf8_lossy(&file.bytes).into_owned()
    } else {
        let bytes = tokio::fs::read(&file.path).await.ok()?;
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Some(static_files::policy_for_page(&app.config.csp, &html))
}

/// `GET /v1/models`: the profiles (with their context windows unless
/// `--no-context-info`), or the fault of `x-sim-fault` / `--fault` where one applies to a
/// listing. Returns the response and whether it may carry CORS.
pub(crate) fn models(app: &App, headers: &HeaderMap, path: &str) -> (Response, bool) {
    if let Some(key) = &app.config.require_key {
        if let Err(error) = auth::check_key(headers, auth::KeyStyle::Either, key) {
            return (api_error(&error, Dialect::Chat), true);
        }
    }
    let fault = match header_fault(headers) {
        Ok(fault) => fault.or(app.config.fault),
        Err(error) => return (api_error(&error, Dialect::Chat), true),
    };
    let profiles = &app.config.profiles.by_name;
    let mut data: Vec<serde_json::Value> = profiles
        .iter()
        .map(|(name, profile)| extras::model_entry(name, profile, app.config.context_info))
        .collect();
    match fault {
        Some(Fault::Stall) => {
            let never = futures_util::stream::pending::<Result<Bytes, std::io::Error>>();
            return (
                response(200, "application/json", Body::from_stream(never)),
                true,
            );
        }
        Some(Fault::Xss | Fault::XssError) => {
            let default = Profile::default();
            let xss_all = fault::xss_all();
            let hostile = fault::XSS_PAYLOADS
                .iter()
                .copied()
                .chain([xss_all.as_str()]);
            data.extend(
                hostile.map(|id| extras::model_entry(id, &default, app.config.context_info)),
            );
        }
        Some(Fault::Bidi | Fault::BidiMidstream) => {
            let id = fault::bidi_model_id();
            let entry = extras::model_entry(&id, &Profile::default(), app.config.context_info);
            data.push(entry);
        }
        Some(Fault::LongContentType) => {
            let mut list = json_list(data);
            let content_type = fault::long_content_type(Profile::default().content_type_bytes);
            set(list.headers_mut(), "content-type", &content_type);
            return (list, true);
        }
        Some(Fault::NoCors) => return (json_list(data), false),
        Some(fault) => {
            if let Some(refusal) = status_refusal(app, fault, headers, "", None, path) {
                return (refusal.response(Dialect::Chat), true);
            }
        }
        None => {}
    }
    (json_list(data), true)
}

pub(crate) fn json_list(data: Vec<serde_json::Value>) -> Response {
    json_response(
        200,
        serde_json::json!({"object": "list", "data": data}).to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_are_percent_decoded() {
        let query = "a=1&model=sim-fast%40context_tokens%3D4096%2Cstream_usage%3D0&b=%zz+x";
        assert_eq!(
            query_value(query, "model").as_deref(),
            Some("sim-fast@context_tokens=4096,stream_usage=0")
        );
        assert_eq!(query_value(query, "b").as_deref(), Some("%zz x"));
        assert_eq!(query_value(query, "c"), None);
        assert_eq!(percent_decode("%E4%BD%A0"), "你");
    }
}
