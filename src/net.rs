//! Streaming fetch: opens a request, hands back the response head, then the body chunk by
//! chunk as the bytes arrive. No parsing here: the bytes go to ttft-core.

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, Headers, ReadableStreamDefaultReader, Request, RequestInit, Response};

/// A request as the app sends it. The body is already serialized by ttft-core.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    /// `GET` or `POST`.
    pub method: &'static str,
    /// The endpoint URL actually called.
    pub url: String,
    /// Header names and values (the key travels here and nowhere else).
    pub headers: Vec<(String, String)>,
    /// The JSON body, when there is one.
    pub body: Option<String>,
}

/// Status and the headers the app reads, known when the fetch promise resolves.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseHead {
    /// HTTP status code.
    pub status: u16,
    /// `Content-Type`, empty when absent.
    pub content_type: String,
    /// `Retry-After`, when the server sent it and CORS exposes it.
    pub retry_after: Option<String>,
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
    if let Some(body) = &request.body {
        init.set_body(&JsValue::from_str(body));
    }
    let fetch_request = Request::new_with_str_and_init(&request.url, &init).map_err(invalid)?;
    let window =
        web_sys::window().ok_or_else(|| FetchFailure::InvalidRequest("no window".into()))?;
    let response: Response = JsFuture::from(window.fetch_with_request(&fetch_request))
        .await
        .map_err(FetchFailure::from_js)?
        .dyn_into()
        .map_err(FetchFailure::from_js)?;
    let header = |name: &str| response.headers().get(name).ok().flatten();
    let head = ResponseHead {
        status: response.status(),
        content_type: header("content-type").unwrap_or_default(),
        retry_after: header("retry-after"),
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
    /// The next chunk of bytes, or `None` at the end of the body.
    pub async fn next_chunk(&self) -> Result<Option<Vec<u8>>, FetchFailure> {
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
        Ok(Some(Uint8Array::new(&value).to_vec()))
    }

    /// Stops reading and releases the connection.
    pub fn cancel(&self) {
        // The promise only reports whether cancelling worked; nothing to do either way.
        let _ = self.reader.cancel();
    }
}

/// The fallback transport when no Worker can be started: the same fetch on the main
/// thread, reporting [`crate::worker::WorkerEvent`]s stamped on the page clock. Arrival
/// times are then delayed by any long main-thread task; the run records which transport
/// measured it.
pub async fn fetch_on_main_thread(
    request: HttpRequest,
    signal: AbortSignal,
    sender: futures_channel::mpsc::UnboundedSender<crate::worker::WorkerEvent>,
) {
    use crate::worker::WorkerEvent;
    let now_ms = || crate::clock::now_ms().unwrap_or_default();
    let send = |event: WorkerEvent| {
        // The run stopped listening: nothing left to report to.
        let _ = sender.unbounded_send(event);
    };
    let failed = |failure: FetchFailure| {
        let (name, message) = match failure {
            FetchFailure::Aborted => ("AbortError".to_string(), String::new()),
            FetchFailure::Network(message) => ("TypeError".to_string(), message),
            FetchFailure::InvalidRequest(message) => ("InvalidRequest".to_string(), message),
        };
        WorkerEvent::Failed {
            at_ms: now_ms(),
            name,
            message,
        }
    };
    send(WorkerEvent::Started { at_ms: now_ms() });
    let response = match open(&request, &signal).await {
        Ok(response) => response,
        Err(failure) => return send(failed(failure)),
    };
    let head = response.head.clone();
    send(WorkerEvent::Headers {
        at_ms: now_ms(),
        status: head.status,
        content_type: head.content_type,
        retry_after: head.retry_after,
    });
    let reader = match response.into_body_reader() {
        Ok(reader) => reader,
        Err(failure) => return send(failed(failure)),
    };
    loop {
        match reader.next_chunk().await {
            Ok(Some(bytes)) => send(WorkerEvent::Chunk {
                at_ms: now_ms(),
                bytes,
            }),
            Ok(None) => return send(WorkerEvent::End { at_ms: now_ms() }),
            Err(failure) => return send(failed(failure)),
        }
    }
}
