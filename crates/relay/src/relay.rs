//! One request through the relay: the checks (target, host, origin, bounds), the preflight,
//! the upstream request with its timings, and the answer the page reads.

use std::io::Write as _;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderValue};
use http::{Method, Request, Response, StatusCode};
use http_body_util::{BodyExt as _, Either, Full, Limited};
use hyper::body::Incoming;
use hyper_util::client::legacy::connect::capture_connection;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use tokio::time::Instant;

use crate::answer::{ErrorKind, RelayError};
use crate::body::{RelayedBody, TimedBody};
use crate::config::{RelayConfig, Upstream};
use crate::connector::{ConnMeta, ConnTag, ConnectError, TimedConnector};
use crate::headers;
use crate::target;
use crate::timing::{ConnSetup, ConnVerdict, UpstreamProtocol, UpstreamReport};

/// The body of every answer: the relay's own (JSON, empty) or the upstream's, relayed.
pub type AnswerBody = Either<Full<Bytes>, RelayedBody>;

/// A failure and what was known of the upstream when it happened.
type Failure = Box<(RelayError, UpstreamReport)>;

/// How long an idle upstream connection is kept: below the idle close of common gateways
/// (60 s and more), so the relay seldom sends on a connection the upstream is closing.
const POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// The relay's state, shared by every connection.
pub struct Relay {
    config: RelayConfig,
    upstream: Arc<Upstream>,
    client: Client<TimedConnector, TimedBody>,
    /// The port the relay listens on (the `Host` it answers to).
    port: u16,
    /// Whether a line per request goes to stderr (method, path without query, status,
    /// connection, times; never a header).
    log: bool,
}

impl Relay {
    /// A relay for `config` on `port`, with upstream TLS configured by `tls`.
    pub fn new(
        config: RelayConfig,
        port: u16,
        tls: Option<Arc<tokio_rustls::rustls::ClientConfig>>,
        log: bool,
    ) -> Self {
        let upstream = Arc::new(config.upstream.clone());
        let connector = TimedConnector::new(Arc::clone(&upstream), tls);
        let client = Client::builder(TokioExecutor::new())
            .pool_timer(TokioTimer::new())
            .timer(TokioTimer::new())
            .pool_idle_timeout(POOL_IDLE_TIMEOUT)
            // Bounds on the upstream's head: generous (a provider's long header stays
            // readable) but finite.
            .http1_max_buf_size(1024 * 1024)
            .http2_max_header_list_size(1024 * 1024)
            .build(connector);
        Self {
            config,
            upstream,
            client,
            port,
            log,
        }
    }

    /// Answers one request from the browser.
    pub async fn handle(self: Arc<Self>, request: Request<Incoming>) -> Response<AnswerBody> {
        let t0 = Instant::now();
        let origin = request.headers().get(header::ORIGIN).cloned();
        let allowed_origin = origin.clone().filter(|origin| {
            origin
                .to_str()
                .is_ok_and(|origin| self.config.origin_allowed(origin))
        });
        let answer = match self.check(&request, origin.is_some(), allowed_origin.is_some()) {
            Err(error) => Err(Box::new((error, UpstreamReport::default()))),
            Ok(_) if request.method() == Method::OPTIONS => {
                Ok(self.options(&request, allowed_origin.as_ref()))
            }
            Ok(path_and_query) => {
                self.forward(request, path_and_query, t0, allowed_origin.as_ref())
                    .await
            }
        };
        answer.unwrap_or_else(|failure| {
            let (error, report) = *failure;
            self.log_error(&error);
            error_response(&error, allowed_origin.as_ref(), &report)
        })
    }

    /// The checks before anything goes upstream: the target, the `Host`, the `Origin`, the
    /// head's size, the method. Returns the path and query to forward.
    fn check(
        &self,
        request: &Request<Incoming>,
        has_origin: bool,
        origin_allowed: bool,
    ) -> Result<String, RelayError> {
        let refuse = |kind, message: String| Err(RelayError::new(kind, message));
        let uri = request.uri();
        if request.method() == Method::CONNECT
            || uri.scheme().is_some()
            || uri.authority().is_some()
        {
            return refuse(
                ErrorKind::ForbiddenTarget,
                format!(
                    "{} refused: this relay forwards paths under {} to {} only; it is not a proxy \
                     (no CONNECT, no absolute-form or authority-form target)",
                    request.method(),
                    self.base_url(),
                    self.upstream.origin()
                ),
            );
        }
        let target = uri.path_and_query().map_or("/", |pq| pq.as_str());
        let path_and_query = match target::upstream_path_and_query(target, &self.upstream.base_path)
        {
            Ok(path_and_query) => path_and_query,
            Err(reason) => {
                return refuse(
                    ErrorKind::ForbiddenTarget,
                    format!(
                        "{reason}: use a path under {} (it goes to {}{})",
                        self.base_url(),
                        self.upstream.origin(),
                        self.upstream.base_path
                    ),
                )
            }
        };
        if let Some(host) = request.headers().get(header::HOST) {
            if !self.is_own_host(host) {
                return refuse(
                    ErrorKind::ForbiddenTarget,
                    format!(
                        "the request's Host is not this relay (127.0.0.1:{}, localhost:{}): \
                         refused, as a page that rebinds its name to 127.0.0.1 would send it",
                        self.port, self.port
                    ),
                );
            }
        }
        if has_origin && !origin_allowed {
            return refuse(
                ErrorKind::ForbiddenOrigin,
                "this page's origin is not allowed; start the relay with --allow-origin ORIGIN \
                 (the page's scheme://host:port)"
                    .to_owned(),
            );
        }
        let limits = self.config.limits;
        let head_bytes: usize = request
            .headers()
            .iter()
            .map(|(name, value)| name.as_str().len() + value.len())
            .sum();
        if request.headers().len() > limits.header_count || head_bytes > limits.head_bytes {
            return refuse(
                ErrorKind::HeadTooLarge,
                format!(
                    "the request's headers are over the relay's bound ({} headers, {} bytes)",
                    limits.header_count, limits.head_bytes
                ),
            );
        }
        if !matches!(
            *request.method(),
            Method::GET | Method::HEAD | Method::POST | Method::OPTIONS
        ) {
            return refuse(
                ErrorKind::ForbiddenMethod,
                format!(
                    "{} is not forwarded (GET, HEAD, POST and the CORS preflight only)",
                    request.method()
                ),
            );
        }
        Ok(path_and_query)
    }

    fn is_own_host(&self, host: &HeaderValue) -> bool {
        let Ok(host) = host.to_str() else {
            return false;
        };
        let host = host.to_ascii_lowercase();
        let (name, port) = match host.rsplit_once(':') {
            Some((name, port)) if !name.ends_with(':') || name.starts_with('[') => {
                (name, port.parse::<u16>().ok())
            }
            _ => (host.as_str(), Some(80)),
        };
        port == Some(self.port) && matches!(name, "127.0.0.1" | "localhost" | "[::1]")
    }

    /// `http://127.0.0.1:PORT/<base path>`: what the page's base URL is.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}{}", self.port, self.upstream.base_path)
    }

    /// `OPTIONS`, answered here and never forwarded: the preflight of an allowed origin, or
    /// the methods.
    fn options(
        &self,
        request: &Request<Incoming>,
        allowed_origin: Option<&HeaderValue>,
    ) -> Response<AnswerBody> {
        let preflight = request
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
        let mut response = Response::new(Either::Left(Full::new(Bytes::new())));
        *response.status_mut() = StatusCode::NO_CONTENT;
        match (allowed_origin, preflight) {
            (Some(origin), true) => {
                *response.headers_mut() = headers::preflight_headers(origin, request.headers());
            }
            _ => {
                let headers = response.headers_mut();
                headers.insert(
                    header::ALLOW,
                    HeaderValue::from_static("GET, HEAD, POST, OPTIONS"),
                );
                headers::add_relay_headers(headers, allowed_origin, "");
            }
        }
        response
    }

    /// Sends the request upstream and answers with the upstream's response, the relay's
    /// headers added, the moment its headers arrive.
    async fn forward(
        &self,
        request: Request<Incoming>,
        path_and_query: String,
        t0: Instant,
        allowed_origin: Option<&HeaderValue>,
    ) -> Result<Response<AnswerBody>, Failure> {
        let no_report = |error| Box::new((error, UpstreamReport::default()));
        let (parts, body) = request.into_parts();
        let body = self
            .read_body(&parts.headers, body)
            .await
            .map_err(no_report)?;
        let uri: http::Uri = format!("{}{}", self.upstream.origin(), path_and_query)
            .parse()
            .map_err(|_| {
                no_report(RelayError::new(
                    ErrorKind::ForbiddenTarget,
                    "the target does not make a URI",
                ))
            })?;
        let body_ended_at = Arc::new(OnceLock::new());
        let mut upstream_request = Request::new(TimedBody::new(body, Arc::clone(&body_ended_at)));
        *upstream_request.method_mut() = parts.method.clone();
        *upstream_request.uri_mut() = uri;
        *upstream_request.headers_mut() = headers::upstream_request_headers(&parts.headers);
        let mut captured = capture_connection(&mut upstream_request);
        let handed_at = Instant::now();
        let deadline = t0 + self.config.upstream_timeout;
        let response_future = self.client.request(upstream_request);
        tokio::pin!(response_future);
        // When the pool hands the request a connection: for a request without a body, the
        // moment its head is handed to the connection; and the connection's verdict, taken
        // then (so concurrent requests on a new HTTP/2 connection count in checkout order).
        let mut checked_out_at: Option<Instant> = None;
        let mut conn: Option<(Arc<ConnMeta>, ConnVerdict)> = None;
        let mut watching_checkout = true;
        let result = loop {
            tokio::select! {
                biased;
                result = &mut response_future => break Some(result),
                connected = captured.wait_for_connection_metadata(), if watching_checkout => {
                    watching_checkout = false;
                    if let Some(connected) = connected.as_ref() {
                        checked_out_at = Some(Instant::now());
                        conn = conn_of(connected, handed_at);
                    }
                }
                () = tokio::time::sleep_until(deadline) => break None,
            }
        };
        let headers_at = Instant::now();
        // The connection that carried the request: another than the first one handed out
        // when the pool retried a request a stale connection never sent.
        let last = captured.connection_metadata().as_ref().and_then(conn_tag);
        let retried = match (&conn, &last) {
            (Some((first, _)), Some(last)) => !Arc::ptr_eq(first, last),
            (None, Some(_)) => true,
            _ => false,
        };
        if retried {
            conn = last.map(|meta| {
                let verdict = ConnVerdict::of(meta.ready_at > handed_at, meta.take_use());
                (meta, verdict)
            });
        }
        let mut sent_at = body_ended_at.get().copied().or(checked_out_at);
        // A request is written on the connection that carried it after that one's set-up
        // ended, at the earliest. An earlier stamp is of a first attempt on a connection the
        // upstream had closed (an HTTP/2 GOAWAY, a keep-alive that timed out), whose body was
        // polled there before the pool sent the request again on a new one; the retry can
        // happen before this task first sees the checkout, so `retried` alone cannot tell.
        if let Some((meta, _)) = conn.as_ref() {
            sent_at = Some(sent_at.map_or(meta.ready_at, |at| at.max(meta.ready_at)));
        }
        let mut report = report_of(conn.as_ref(), t0, sent_at);
        let response = match result {
            Some(Ok(response)) => response,
            Some(Err(error)) => return Err(Box::new((self.classify(&error), report))),
            None => {
                return Err(Box::new((
                    RelayError::new(
                        ErrorKind::UpstreamTimeout,
                        format!(
                            "{} sent no response headers within {} ms (--upstream-timeout-ms)",
                            self.upstream.origin(),
                            self.config.upstream_timeout.as_millis()
                        ),
                    ),
                    report,
                )))
            }
        };
        report.headers = Some(headers_at - t0);
        // The request's own trip (written → headers back) bounds the connection's round trip
        // from above too: the least of them all is the closest (`ConnMeta::round_trip`).
        if let (Some((meta, _)), Some(sent_at)) = (conn.as_ref(), sent_at) {
            meta.saw_trip(headers_at.saturating_duration_since(sent_at));
            report.rtt = Some(meta.round_trip());
        }
        report.protocol = Some(match response.version() {
            http::Version::HTTP_2 => UpstreamProtocol::H2,
            _ => UpstreamProtocol::Http11,
        });
        let (upstream_parts, upstream_body) = response.into_parts();
        let event_stream =
            parts.method != Method::HEAD && headers::is_event_stream(&upstream_parts.headers);
        let mut answer_headers =
            headers::downstream_response_headers(&upstream_parts.headers, event_stream);
        headers::add_relay_headers(&mut answer_headers, allowed_origin, &report.server_timing());
        let body = if event_stream {
            RelayedBody::event_stream(upstream_body, t0)
        } else {
            RelayedBody::plain(upstream_body)
        };
        let mut answer = Response::new(Either::Right(body));
        *answer.status_mut() = upstream_parts.status;
        *answer.headers_mut() = answer_headers;
        self.log_answer(
            &parts.method,
            &path_and_query,
            upstream_parts.status,
            &report,
        );
        Ok(answer)
    }

    /// The whole request body, within its bound.
    async fn read_body(&self, headers: &HeaderMap, body: Incoming) -> Result<Bytes, RelayError> {
        let limit = self.config.limits.body_bytes;
        let too_large = || {
            RelayError::new(
                ErrorKind::BodyTooLarge,
                format!("the request body is over the relay's bound of {limit} bytes"),
            )
        };
        let declared = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse::<u64>().ok());
        if declared.is_some_and(|length| length > limit as u64) {
            return Err(too_large());
        }
        match Limited::new(body, limit).collect().await {
            Ok(collected) => Ok(collected.to_bytes()),
            Err(error) if error.is::<http_body_util::LengthLimitError>() => Err(too_large()),
            Err(_) => Err(RelayError::new(
                ErrorKind::ForbiddenTarget,
                "the request body could not be read from the browser",
            )),
        }
    }

    /// The kind of an upstream failure before the response headers.
    fn classify(&self, error: &hyper_util::client::legacy::Error) -> RelayError {
        let origin = self.upstream.origin();
        let connect = std::error::Error::source(error)
            .and_then(|source| source.downcast_ref::<ConnectError>());
        match connect {
            Some(error @ ConnectError::Dns { .. }) => {
                RelayError::new(ErrorKind::UpstreamDns, error.to_string())
            }
            Some(error @ ConnectError::Tls { .. }) => RelayError::new(
                ErrorKind::UpstreamTls,
                format!("{error} ({})", tls_advice(error)),
            ),
            Some(error) => RelayError::new(ErrorKind::UpstreamConnect, error.to_string()),
            None if error.is_connect() => RelayError::new(
                ErrorKind::UpstreamConnect,
                format!("cannot connect to {origin}"),
            ),
            None => {
                let mut reason = String::new();
                let mut source = std::error::Error::source(error);
                while let Some(cause) = source {
                    reason = cause.to_string();
                    source = cause.source();
                }
                RelayError::new(
                    ErrorKind::UpstreamReset,
                    format!(
                        "the connection to {origin} failed before the response headers: {reason}"
                    ),
                )
            }
        }
    }

    fn log_answer(
        &self,
        method: &Method,
        path_and_query: &str,
        status: StatusCode,
        report: &UpstreamReport,
    ) {
        if !self.log {
            return;
        }
        // The path only: a query may carry a key (?key=...), and headers are never logged.
        let path = path_and_query.split('?').next().unwrap_or_default();
        let line = format!(
            "ttft-relay: {method} {path} -> {} ({})\n",
            status.as_u16(),
            report.server_timing()
        );
        // One write per line: lines of concurrent requests do not interleave.
        let _ = std::io::stderr().write_all(line.as_bytes());
    }

    fn log_error(&self, error: &RelayError) {
        if self.log {
            let line = format!("ttft-relay: {}: {}\n", error.kind.name(), error.message);
            let _ = std::io::stderr().write_all(line.as_bytes());
        }
    }
}

/// The connection `connected` carries, and its verdict for a request handed to the pool at
/// `handed_at` (counting this request as one of its uses).
fn conn_of(
    connected: &hyper_util::client::legacy::connect::Connected,
    handed_at: Instant,
) -> Option<(Arc<ConnMeta>, ConnVerdict)> {
    let meta = conn_tag(connected)?;
    let verdict = ConnVerdict::of(meta.ready_at > handed_at, meta.take_use());
    Some((meta, verdict))
}

/// The set-up times our connector attached to a connection.
fn conn_tag(connected: &hyper_util::client::legacy::connect::Connected) -> Option<Arc<ConnMeta>> {
    let mut extensions = http::Extensions::new();
    connected.get_extras(&mut extensions);
    Some(Arc::clone(&extensions.get::<ConnTag>()?.0))
}

/// The report of a request whose upstream connection is `conn` (when one was used).
fn report_of(
    conn: Option<&(Arc<ConnMeta>, ConnVerdict)>,
    t0: Instant,
    sent_at: Option<Instant>,
) -> UpstreamReport {
    let mut report = UpstreamReport {
        sent: sent_at.map(|sent_at| sent_at - t0),
        ..UpstreamReport::default()
    };
    if let Some((meta, verdict)) = conn {
        report.conn = Some(*verdict);
        report.protocol = Some(if meta.h2 {
            UpstreamProtocol::H2
        } else {
            UpstreamProtocol::Http11
        });
        report.setup = Some(ConnSetup {
            dns: meta.dns,
            tcp: meta.tcp,
            tls: meta.tls,
        });
        report.rtt = Some(meta.round_trip());
    }
    report
}

/// The relay's own answer to a refusal or a failure.
fn error_response(
    error: &RelayError,
    allowed_origin: Option<&HeaderValue>,
    report: &UpstreamReport,
) -> Response<AnswerBody> {
    let mut response = Response::new(Either::Left(Full::new(Bytes::from(error.body()))));
    *response.status_mut() = error.kind.status();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(
        headers::X_TTFT_RELAY_ERROR,
        HeaderValue::from_static(error.kind.name()),
    );
    headers::add_relay_headers(headers, allowed_origin, &report.server_timing());
    response
}

/// What to do about a failed TLS handshake upstream, from rustls's reason.
fn tls_advice(error: &ConnectError) -> &'static str {
    let reason = error.to_string();
    if reason.contains("CaUsedAsEndEntity") {
        // `openssl req -x509` without `-addext basicConstraints=critical,CA:FALSE` makes one.
        "the server's certificate is a CA certificate (basicConstraints CA:TRUE) used as its \
         own: webpki refuses that even with --ca-file; make the server a leaf certificate \
         (openssl: -addext basicConstraints=critical,CA:FALSE) signed by the CA you pass"
    } else {
        "a private CA or a test certificate: pass --ca-file FILE"
    }
}
