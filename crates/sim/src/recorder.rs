//! `--record-requests`: every request the server receives, kept for tests to inspect at
//! `GET /__sim/requests` (and cleared with `DELETE /__sim/requests`). A test runs a second
//! sim at another origin with this on, and checks that nothing carrying the key reached it.

use std::collections::VecDeque;
use std::sync::Mutex;

use axum::http::request::Parts;
use serde::{Deserialize, Serialize};

use crate::network::{ConnectionInfo, WireProtocol};

/// The route that lists (GET) and clears (DELETE) the recorded requests; never recorded.
pub const REQUESTS_PATH: &str = "/__sim/requests";
/// Requests kept; older ones are dropped (and counted).
pub const MAX_REQUESTS: usize = 10_000;
/// Body bytes kept per request (the rest is counted in `body_bytes`).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// One request as received.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedRequest {
    /// Arrival order, from 1.
    pub seq: u64,
    /// Arrival, ms after the server started.
    pub at_ms: f64,
    /// `GET`, `POST`, `OPTIONS`, ...
    pub method: String,
    /// Path and query, as sent.
    pub path: String,
    /// The `Origin` header, if any.
    pub origin: Option<String>,
    /// Every header in order, `[name, value]` (values as lossy UTF-8).
    pub headers: Vec<(String, String)>,
    /// The body's first [`MAX_BODY_BYTES`] bytes, as lossy UTF-8.
    pub body: String,
    /// The body's full length, bytes.
    pub body_bytes: usize,
    /// Whether `body` was cut.
    pub body_truncated: bool,
    /// The client's TCP port: requests with the same port came on the same connection
    /// (`None` when the server was not given connection info).
    #[serde(default)]
    pub client_port: Option<u16>,
    /// The connection's number (see [`RecordedConnection`]), from 1 in accept order.
    #[serde(default)]
    pub connection: Option<u64>,
    /// This request's number on its connection, from 1 (CORS preflights count).
    #[serde(default)]
    pub connection_request: Option<u32>,
    /// The protocol of its connection: `http/1.1` or `h2`.
    #[serde(default)]
    pub protocol: Option<WireProtocol>,
}

/// One connection as the server saw it: the ground truth of cold and warm requests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedConnection {
    /// Its number, from 1 in accept order.
    pub id: u64,
    /// The client's TCP port.
    pub client_port: u16,
    /// `http/1.1` or `h2`.
    pub protocol: WireProtocol,
    /// Whether it is TLS.
    pub tls: bool,
    /// Accepted, ms after the server started.
    pub opened_at_ms: f64,
    /// Closed (by either side), ms after the server started; `None` while open.
    pub closed_at_ms: Option<f64>,
    /// Requests it carried so far.
    pub requests: u32,
}

/// What `GET /__sim/requests` answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedRequests {
    /// The kept requests, oldest first.
    pub requests: Vec<RecordedRequest>,
    /// Requests dropped because more than [`MAX_REQUESTS`] arrived.
    pub dropped: u64,
    /// The connections that carried them (and any without a request yet), oldest first;
    /// at most [`MAX_REQUESTS`] kept.
    #[serde(default)]
    pub connections: Vec<RecordedConnection>,
}

#[derive(Debug, Default)]
struct Log {
    requests: VecDeque<RecordedRequest>,
    connections: VecDeque<RecordedConnection>,
    next_seq: u64,
    dropped: u64,
}

/// The request log, shared by every connection.
#[derive(Debug, Default)]
pub struct Recorder {
    log: Mutex<Log>,
}

impl Recorder {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Log> {
        // A poisoned log is still a log.
        self.log
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records one request (`body` is its whole body).
    pub fn record(&self, parts: &Parts, body: &[u8], at_ms: f64) {
        let client_port = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|info| info.0.port());
        let connection = parts.extensions.get::<ConnectionInfo>().copied();
        let lossy = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        let headers: Vec<(String, String)> = parts
            .headers
            .iter()
            .map(|(name, value)| (name.as_str().to_string(), lossy(value.as_bytes())))
            .collect();
        let origin = parts
            .headers
            .get("origin")
            .map(|value| lossy(value.as_bytes()));
        let kept = &body[..body.len().min(MAX_BODY_BYTES)];
        let mut log = self.lock();
        log.next_seq += 1;
        let entry = RecordedRequest {
            seq: log.next_seq,
            at_ms,
            method: parts.method.as_str().to_string(),
            path: parts.uri.path_and_query().map_or_else(
                || parts.uri.path().to_string(),
                |pq| pq.as_str().to_string(),
            ),
            origin,
            headers,
            body: lossy(kept),
            body_bytes: body.len(),
            body_truncated: kept.len() < body.len(),
            client_port,
            connection: connection.map(|info| info.id),
            connection_request: connection.map(|info| info.request_number),
            protocol: connection.map(|info| info.protocol),
        };
        if let Some(info) = connection {
            if let Some(kept) = log.connections.iter_mut().rev().find(|c| c.id == info.id) {
                kept.requests = kept.requests.max(info.request_number);
            }
        }
        if log.requests.len() == MAX_REQUESTS {
            log.requests.pop_front();
            log.dropped += 1;
        }
        log.requests.push_back(entry);
    }

    /// A connection was accepted (and, with TLS, its handshake done).
    pub fn connection_opened(
        &self,
        id: u64,
        client_port: u16,
        protocol: WireProtocol,
        tls: bool,
        at_ms: f64,
    ) {
        let mut log = self.lock();
        if log.connections.len() == MAX_REQUESTS {
            log.connections.pop_front();
        }
        log.connections.push_back(RecordedConnection {
            id,
            client_port,
            protocol,
            tls,
            opened_at_ms: at_ms,
            closed_at_ms: None,
            requests: 0,
        });
    }

    /// Connection `id` closed.
    pub fn connection_closed(&self, id: u64, at_ms: f64) {
        let mut log = self.lock();
        if let Some(kept) = log.connections.iter_mut().rev().find(|c| c.id == id) {
            kept.closed_at_ms = Some(at_ms);
        }
    }

    /// Everything kept, oldest first.
    pub fn snapshot(&self) -> RecordedRequests {
        let log = self.lock();
        RecordedRequests {
            requests: log.requests.iter().cloned().collect(),
            dropped: log.dropped,
            connections: log.connections.iter().cloned().collect(),
        }
    }

    /// Forgets every request, and every closed connection (numbering goes on).
    pub fn clear(&self) {
        let mut log = self.lock();
        log.requests.clear();
        log.connections.retain(|c| c.closed_at_ms.is_none());
        log.dropped = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(uri: &str) -> Parts {
        let request = axum::http::Request::builder()
            .method("POST")
            .uri(uri)
            .header("origin", "http://127.0.0.1:1")
            .header("authorization", "Bearer k")
            .body(())
            .unwrap_or_default();
        request.into_parts().0
    }

    #[test]
    fn records_bounds_and_clears() {
        let recorder = Recorder::new();
        let big = vec![b'a'; MAX_BODY_BYTES + 10];
        recorder.record(&parts("/v1/models?x=1"), &big, 1.5);
        let snapshot = recorder.snapshot();
        let entry = &snapshot.requests[0];
        assert_eq!(entry.path, "/v1/models?x=1");
        assert_eq!(entry.origin.as_deref(), Some("http://127.0.0.1:1"));
        assert!(entry
            .headers
            .contains(&("authorization".into(), "Bearer k".into())));
        assert_eq!(
            (entry.body.len(), entry.body_bytes),
            (MAX_BODY_BYTES, MAX_BODY_BYTES + 10)
        );
        assert!(entry.body_truncated);
        recorder.clear();
        recorder.record(&parts("/"), b"", 2.0);
        let snapshot = recorder.snapshot();
        assert_eq!(snapshot.requests.len(), 1);
        assert_eq!(
            snapshot.requests[0].seq, 2,
            "numbering goes on after a clear"
        );
    }
}
