//! The two bodies the relay wraps: the request body going upstream (to note when its end is
//! handed to the connection: `relay-sent`) and the upstream's answer coming back (passed
//! frame by frame, with the relay's lines written into an event stream).
//!
//! Neither buffers: the answer's body is polled by hyper's connection task, and every frame
//! the upstream hands over is returned at once. hyper writes what is ready and flushes as soon
//! as the body has nothing more (`Pending`), so each upstream read leaves in one write.

use std::error::Error as StdError;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{ready, Context, Poll};

use bytes::{Bytes, BytesMut};
use http_body_util::Full;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use tokio::time::Instant;

use crate::answer::{ErrorKind, RelayError};
use crate::timing;

/// A boxed error, what hyper's server takes from a body.
pub type BoxError = Box<dyn StdError + Send + Sync>;

/// The request body (read whole from the browser), noting when hyper has taken its end.
pub struct TimedBody {
    inner: Full<Bytes>,
    ended_at: Arc<OnceLock<Instant>>,
}

impl TimedBody {
    /// `bytes`, and where the instant its end is taken goes.
    pub fn new(bytes: Bytes, ended_at: Arc<OnceLock<Instant>>) -> Self {
        Self {
            inner: Full::new(bytes),
            ended_at,
        }
    }
}

impl Body for TimedBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let frame = ready!(Pin::new(&mut self.inner).poll_frame(cx));
        if frame.is_none() || self.inner.is_end_stream() {
            let _ = self.ended_at.set(Instant::now());
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Where the relay's first-byte line goes in the first body bytes.
#[derive(Debug, PartialEq, Eq)]
pub enum Splice {
    /// The bytes so far could still be the start of a byte-order mark: wait for more.
    Hold,
    /// The bytes to send: a BOM first if the body starts with one (WHATWG's parser strips
    /// a BOM only at the very start of the stream), then the line, then the rest.
    Send(Bytes),
}

/// Splices `line` into the body's first bytes, `held` (an earlier partial BOM) and `data`.
pub fn splice_first_line(held: &[u8], data: &[u8], line: &str) -> Splice {
    let mut first = BytesMut::with_capacity(held.len() + data.len() + line.len());
    first.extend_from_slice(held);
    first.extend_from_slice(data);
    if first.len() < BOM.len() && BOM.starts_with(&first) {
        return Splice::Hold;
    }
    let bom = if first.starts_with(BOM) { BOM.len() } else { 0 };
    let mut out = BytesMut::with_capacity(first.len() + line.len());
    out.extend_from_slice(&first[..bom]);
    out.extend_from_slice(line.as_bytes());
    out.extend_from_slice(&first[bom..]);
    Splice::Send(out.freeze())
}

/// The line for an upstream failure mid-stream, on a line of its own: after a `\n` when
/// the bytes so far end inside a line (the partial line is then complete but no event is
/// dispatched, since no blank line follows).
pub fn failure_line(inside_a_line: bool, kind: ErrorKind) -> Bytes {
    let line = RelayError::stream_line(kind);
    if inside_a_line {
        Bytes::from(format!("\n{line}"))
    } else {
        Bytes::from(line)
    }
}

/// Failing mid-stream: the line is sent, hyper is let flush it, then the error ends the body.
enum Failing {
    No,
    /// The line was returned; the next poll yields once so that hyper flushes it.
    LineSent(BoxError),
    /// Yielded; the next poll returns the error.
    Flushed(BoxError),
}

/// The upstream's answer on its way to the browser.
pub struct RelayedBody {
    upstream: Incoming,
    /// Writes the relay's lines into an event stream; `None` passes bytes untouched.
    event_stream: Option<EventStream>,
    failing: Failing,
}

struct EventStream {
    /// t0, the instant the relay had read the request head.
    t0: Instant,
    /// Until the first body bytes have gone out with the line.
    line_pending: bool,
    /// A partial byte-order mark held back.
    held: BytesMut,
    /// Whether the bytes sent so far end inside a line.
    inside_a_line: bool,
}

impl RelayedBody {
    /// `upstream` passed untouched.
    pub fn plain(upstream: Incoming) -> Self {
        Self {
            upstream,
            event_stream: None,
            failing: Failing::No,
        }
    }

    /// `upstream`, an event stream: the first-byte line before its first bytes, a failure
    /// line before its error.
    pub fn event_stream(upstream: Incoming, t0: Instant) -> Self {
        Self {
            upstream,
            event_stream: Some(EventStream {
                t0,
                line_pending: true,
                held: BytesMut::new(),
                inside_a_line: false,
            }),
            failing: Failing::No,
        }
    }
}

impl Body for RelayedBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = &mut *self;
        match std::mem::replace(&mut this.failing, Failing::No) {
            Failing::No => {}
            Failing::LineSent(error) => {
                // Returning Pending makes hyper flush what it holds (the line) before it
                // polls again; without it the error would close the socket first.
                this.failing = Failing::Flushed(error);
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            Failing::Flushed(error) => return Poll::Ready(Some(Err(error))),
        }
        loop {
            let polled = ready!(Pin::new(&mut this.upstream).poll_frame(cx));
            let Some(stream) = this.event_stream.as_mut() else {
                return Poll::Ready(polled.map(|frame| frame.map_err(BoxError::from)));
            };
            match polled {
                Some(Ok(frame)) => {
                    let data = match frame.into_data() {
                        Ok(data) => data,
                        Err(trailers) => return Poll::Ready(Some(Ok(trailers))),
                    };
                    if data.is_empty() {
                        continue;
                    }
                    let out = if stream.line_pending {
                        let line = timing::first_byte_line(stream.t0.elapsed());
                        match splice_first_line(&stream.held, &data, &line) {
                            Splice::Hold => {
                                stream.held.extend_from_slice(&data);
                                continue;
                            }
                            Splice::Send(out) => {
                                stream.line_pending = false;
                                stream.held.clear();
                                out
                            }
                        }
                    } else {
                        data
                    };
                    if let Some(&last) = out.last() {
                        stream.inside_a_line = last != b'\n' && last != b'\r';
                    }
                    return Poll::Ready(Some(Ok(Frame::data(out))));
                }
                Some(Err(error)) => {
                    let mut line = BytesMut::new();
                    line.extend_from_slice(&stream.held);
                    stream.inside_a_line |= !stream.held.is_empty();
                    stream.held.clear();
                    line.extend_from_slice(&failure_line(
                        stream.inside_a_line,
                        ErrorKind::UpstreamReset,
                    ));
                    this.failing = Failing::LineSent(BoxError::from(error));
                    return Poll::Ready(Some(Ok(Frame::data(line.freeze()))));
                }
                None => {
                    if stream.held.is_empty() {
                        return Poll::Ready(None);
                    }
                    // A body of a lone partial BOM: sent as it came.
                    let held = std::mem::take(&mut stream.held).freeze();
                    stream.line_pending = false;
                    return Poll::Ready(Some(Ok(Frame::data(held))));
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        let holding = self
            .event_stream
            .as_ref()
            .is_some_and(|stream| !stream.held.is_empty());
        matches!(self.failing, Failing::No) && !holding && self.upstream.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        match self.event_stream {
            // The relay adds bytes: the length is unknown (chunked).
            Some(_) => SizeHint::default(),
            None => self.upstream.size_hint(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = ": ttft-relay first-byte=1.0\n";

    fn sent(splice: Splice) -> Vec<u8> {
        match splice {
            Splice::Send(bytes) => bytes.to_vec(),
            Splice::Hold => panic!("held"),
        }
    }

    #[test]
    fn the_line_goes_before_the_first_bytes_and_after_a_bom() {
        assert_eq!(
            sent(splice_first_line(b"", b"data: {}\n\n", LINE)),
            b": ttft-relay first-byte=1.0\ndata: {}\n\n"
        );
        assert_eq!(
            sent(splice_first_line(b"", b"\xEF\xBB\xBFdata: x\n\n", LINE)),
            b"\xEF\xBB\xBF: ttft-relay first-byte=1.0\ndata: x\n\n"
        );
        // A BOM split over reads is held until it is whole (or proves not to be one).
        assert_eq!(splice_first_line(b"", b"\xEF", LINE), Splice::Hold);
        assert_eq!(splice_first_line(b"\xEF", b"\xBB", LINE), Splice::Hold);
        assert_eq!(
            sent(splice_first_line(b"\xEF\xBB", b"\xBFdata", LINE)),
            b"\xEF\xBB\xBF: ttft-relay first-byte=1.0\ndata"
        );
        assert_eq!(
            sent(splice_first_line(b"\xEF", b"x", LINE)),
            b": ttft-relay first-byte=1.0\n\xEFx"
        );
    }

    #[test]
    fn a_failure_line_stands_on_its_own_line() {
        assert_eq!(
            failure_line(false, ErrorKind::UpstreamReset),
            ": ttft-relay upstream-error=upstream-reset\n"
        );
        assert_eq!(
            failure_line(true, ErrorKind::UpstreamReset),
            "\n: ttft-relay upstream-error=upstream-reset\n"
        );
    }
}
