//! The fallback transport when no Worker can start, and plain requests (`/models`): a
//! streaming fetch on the main thread. No parsing here: the bytes go to ttft-core.

use js_sys::{Reflect, Uint8Array};
use ttft_core::measure::FetchError as EngineFetchError;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortSignal, Headers, ReadableStreamDefaultReader, Request, RequestInit, RequestRedirect,
    Response, ResponseType,
};

use super::event::{HttpRequest, TransportEvent};

/// Status and the headers the app reads, known when the fetch promise resolves.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseHead {
    /// HTTP status code.
    pub status: u16,
    /// `Content-Type`, empty when absent.
    pub content_type: String,
    /// `Retry-After`, when the server sent it and CORS exposes it.
    pub retry_after: Option<String>,
    /// The account headers ([`ttft_stream::dialect::ACCOUNT_HEADERS`]) sent and exposed.
    pub timing_headers: Vec<(String, String)>,
}

/// Why a fetch produced no response or stopped delivering bytes.
#[derive(Debug, Clone, PartialEq)]
pub enum FetchFailure {
    /// The browser gave only a `TypeError`: connection refused, DNS, CORS refusal, mixed
    /// content or a dropped connection all look the same from a page.
    Network(String),
    /// The request was aborted (Stop, timeout or TTFT-only mode).
    Aborted,
    /// The request could not even be built (an invalid URL or header value).
    InvalidRequest(String),
    /// The server answered with a redirect, which is never followed (the request carries
    /// the key).
    Redirected,
}

impl FetchFailure {
    fn from_js(error: JsValue) -> Self {
        let name = Reflect::get(&error, &"name".into())
            .ok()
            .and_then(|name| name.as_string())
            .unwrap_or_default();
        let message = Reflect::get(&error, &"message".into())
            .ok()
            .and_then(|message| message.as_string())
            .or_else(|| error.as_string())
            .unwrap_or_default();
        match name.as_str() {
            "AbortError" => FetchFailure::Aborted,
            "TypeError" => FetchFailure::Network(message),
            _ => FetchFailure::Network(format!("{name}: {message}")),
        }
    }
}

/// An open response whose body has not been read yet.
pub struct OpenResponse {
    /// Status and headers.
    pub head: ResponseHead,
    response: Response,
}

/// Sends `request`; resolves when the status and headers are known.
pub async fn open(
    request: &HttpRequest,
    signal: &AbortSignal,
) -> Result<OpenResponse, FetchFailure> {
    let invalid = |error: JsValue| FetchFailure::InvalidRequest(format!("{error:?}"));
    let headers = Headers::new().map_err(invalid)?;
    for (name, value) in &request.headers {
        headers.set(name, value).map_err(invalid)?;
    }
    let init = RequestInit::new();
    init.set_method(request.method);
    init.set_headers(&headers);
    init.set_signal(Some(signal));
    // Never follow a redirect: the key must not go to another address. 'manual' tells the
    // redirect apart from a network failure (an opaque-redirect response).
    init.set_redirect(RequestRedirect::Manual);
    if let Some(body) = &request.body {
        init.set_body(&JsValue::from_str(body));
    }
    // Local Network Access: where the request goes, from a public page into this machine or
    // the local network (an engine whose enum lacks the value refuses it: then without).
    super::space::declare(&init, &request.url);
    let fetch_request = match Request::new_with_str_and_init(&request.url, &init) {
        Err(error) if super::space::is_option_refused(&error) => {
            let _ = js_sys::Reflect::delete_property(&init, &"targetAddressSpace".into());
            Request::new_with_str_and_init(&request.url, &init).map_err(invalid)?
        }
        other => other.map_err(invalid)?,
    };
    let window =
        web_sys::window().ok_or_else(|| FetchFailure::InvalidRequest("no window".into()))?;
    // On its way, it may open the connection a run then reuses.
    super::contacts::sent_to(&request.url, crate::clock::now_ms());
    let response: Response = JsFuture::from(window.fetch_with_request(&fetch_request))
        .await
        .map_err(FetchFailure::from_js)?
        .dyn_into()
        .map_err(FetchFailure::from_js)?;
    // An answer, whatever it says: the connection it came on was open just now.
    super::contacts::heard_from(&request.url, crate::clock::now_ms());
    if response.type_() == ResponseType::Opaqueredirect {
        return Err(FetchFailure::Redirected);
    }
    let header = |name: &str| response.headers().get(name).ok().flatten();
    let head = ResponseHead {
        status: response.status(),
        content_type: header("content-type").unwrap_or_default(),
        retry_after: header("retry-after"),
        timing_headers: ttft_stream::dialect::ACCOUNT_HEADERS
            .iter()
            .filter_map(|name| {
                header(name)
                    .filter(|value| value.len() <= ttft_stream::dialect::MAX_HEADER_BYTES)
                    .map(|value| ((*name).to_owned(), value))
            })
            .collect(),
    };
    Ok(OpenResponse { head, response })
}

impl OpenResponse {
    /// The whole body as text (for error bodies and non-streaming answers).
    pub async fn text(self) -> Result<String, FetchFailure> {
        let promise = self.response.text().map_err(FetchFailure::from_js)?;
        let text = JsFuture::from(promise)
            .await
            .map_err(FetchFailure::from_js)?;
        Ok(text.as_string().unwrap_or_default())
    }

    /// The body as text, read up to `max_bytes`: `None` when it is longer (the rest is not
    /// read and the request is cancelled).
    pub async fn text_bounded(self, max_bytes: usize) -> Result<Option<String>, FetchFailure> {
        let reader = self.into_body_reader()?;
        let mut body = Vec::new();
        while let Some(chunk) = reader.next_chunk().await? {
            let length = chunk.length() as usize;
            if body.len() + length > max_bytes {
                reader.cancel();
                return Ok(None);
            }
            let start = body.len();
            body.resize(start + length, 0);
            chunk.copy_to(&mut body[start..]);
        }
        Ok(Some(String::from_utf8_lossy(&body).into_owned()))
    }

    /// A reader that yields the body chunk by chunk, as the network delivers it.
    pub fn into_body_reader(self) -> Result<BodyReader, FetchFailure> {
        let body = self
            .response
            .body()
            .ok_or_else(|| FetchFailure::Network("the response has no body".into()))?;
        let reader: ReadableStreamDefaultReader = body
            .get_reader()
            .dyn_into()
            .map_err(|object| FetchFailure::from_js(object.into()))?;
        Ok(BodyReader { reader })
    }
}

/// Reads a response body one network chunk at a time.
pub struct BodyReader {
    reader: ReadableStreamDefaultReader,
}

impl BodyReader {
    /// The next chunk of bytes (still in JS memory), or `None` at the end of the body.
    pub async fn next_chunk(&self) -> Result<Option<Uint8Array>, FetchFailure> {
        let result = JsFuture::from(self.reader.read())
            .await
            .map_err(FetchFailure::from_js)?;
        let done = Reflect::get(&result, &"done".into())
            .ok()
            .and_then(|done| done.as_bool())
            .unwrap_or(true);
        if done {
            return Ok(None);
        }
        let value = Reflect::get(&result, &"value".into()).map_err(FetchFailure::from_js)?;
        Ok(Some(Uint8Array::new(&value)))
    }

    /// Stops reading and releases the connection.
    pub fn cancel(&self) {
        // The promise only reports whether cancelling worked; nothing to do either way.
        let _ = self.reader.cancel();
    }
}

/// The fallback transport: the same fetch on the main thread, reporting
/// [`TransportEvent`]s stamped on the page clock. Arrival times are then delayed by any long
/// main-thread task; the run records which transport measured it.
pub async fn fetch_events(
    request: HttpRequest,
    signal: AbortSignal,
    sender: futures_channel::mpsc::UnboundedSender<TransportEvent>,
) {
    let now_ms = crate::clock::now_ms;
    let send = |event: TransportEvent| {
        // The run stopped listening: nothing left to report to.
        let _ = sender.unbounded_send(event);
    };
    let failed = |failure: FetchFailure| {
        let (name, message) = match failure {
            FetchFailure::Aborted => ("AbortError".to_string(), String::new()),
            FetchFailure::Network(message) => ("TypeError".to_string(), message),
            FetchFailure::InvalidRequest(message) => ("InvalidRequest".to_string(), message),
            FetchFailure::Redirected => (
                ttft_core::measure::REDIRECT_ERROR_NAME.to_string(),
                "the server answered with a redirect, which was not followed".to_string(),
            ),
        };
        TransportEvent::Failed {
            at_ms: now_ms(),
            error: EngineFetchError { name, message },
        }
    };
    // Resource Timing is not collected here, so a preflight could not be told from queueing:
    // the route says only what is known.
    let cross_origin = web_sys::Url::new(&request.url)
        .map(|url| url.origin() != crate::persist::page_origin())
        .unwrap_or(false);
    send(TransportEvent::Started {
        at_ms: now_ms(),
        route: ttft_core::measure::RequestRoute {
            cross_origin,
            first_preflight: false,
        },
    });
    let response = match open(&request, &signal).await {
        Ok(response) => response,
        Err(failure) => {
            send(failed(failure));
            return send(TransportEvent::Timing(None, String::new()));
        }
    };
    let head = response.head.clone();
    send(TransportEvent::Headers {
        at_ms: now_ms(),
        head: ttft_core::measure::ResponseHead {
            status: head.status,
            content_type: head.content_type,
            retry_after: head.retry_after,
            timing_headers: head.timing_headers,
        },
    });
    let reader = match response.into_body_reader() {
        Ok(reader) => reader,
        Err(failure) => {
            send(failed(failure));
            return send(TransportEvent::Timing(None, String::new()));
        }
    };
    loop {
        match reader.next_chunk().await {
            Ok(Some(bytes)) => send(TransportEvent::Chunk {
                at_ms: now_ms(),
                bytes,
            }),
            Ok(None) => {
                send(TransportEvent::End { at_ms: now_ms() });
                break;
            }
            Err(failure) => {
                send(failed(failure));
                break;
            }
        }
    }
    // Resource Timing of a main-thread fetch is not collected: the worker is the normal path.
    send(TransportEvent::Timing(None, String::new()));
}
