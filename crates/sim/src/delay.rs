//! `--delay-ms` and the link model around it: a user-space link between the socket and the
//! server (this kernel has no netem; a real link's effects are applied here, per direction).
//! Every read is cut into segments of [`SEGMENT_BYTES`] (a TCP segment's payload), and each
//! segment:
//! - leaves when the direction's rate lets it (`--up-kbps`, `--down-kbps`: segments queue
//!   behind each other at that rate; unlimited by default);
//! - arrives `one_way` later, plus a random share of `--link-jitter-ms`;
//! - with probability `--loss-percent`, is lost once and resent: it arrives `--retransmit-ms`
//!   later still (by default 200 ms, Linux's least retransmission timeout, plus one round
//!   trip for the loss to be noticed);
//! - never before the segment ahead of it (TCP delivers in order: a resend holds back what
//!   follows, as head-of-line blocking does).
//!
//! The TLS handshake, a CORS preflight, the request and each streamed event therefore pay the
//! round trips, the queueing and the resends their bytes meet. Not modelled: TCP's congestion
//! window (slow start), reordering, and loss of the kernel's own TCP handshake. The random
//! draws are seeded per connection (`--link-seed` plus the connection's number), so a run is
//! repeatable.

use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Bytes read per step.
const READ_BYTES: usize = 64 * 1024;
/// A segment's payload, bytes (Ethernet's 1500 less IPv4, TCP and timestamp headers).
pub const SEGMENT_BYTES: usize = 1448;
/// Segments in flight per direction before the reader waits (at most about 64 MiB queued).
const QUEUED_SEGMENTS: usize = 46_000;
/// The in-process pipe's buffer, bytes.
const PIPE_BYTES: usize = 256 * 1024;
/// Linux's least retransmission timeout, ms: a lost segment's resend comes this long after
/// the loss is noticed.
pub const MIN_RTO_MS: f64 = 200.0;

/// One direction of a link.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Direction {
    /// The fixed delay, ms.
    pub one_way_ms: f64,
    /// Up to this much more, drawn uniformly per segment, ms.
    pub jitter_ms: f64,
    /// The chance that a segment is lost once and resent, 0 to 1.
    pub loss: f64,
    /// What a resend adds, ms.
    pub retransmit_ms: f64,
    /// The rate, bits per second; `None`: unlimited.
    pub rate_bps: Option<f64>,
}

impl Direction {
    /// Whether this direction changes anything.
    pub fn is_plain(&self) -> bool {
        self.one_way_ms == 0.0
            && self.jitter_ms == 0.0
            && self.loss == 0.0
            && self.rate_bps.is_none()
    }
}

/// Both directions of a link: `up` carries the client's bytes to the server, `down` the
/// server's to the client.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Link {
    /// Client → server.
    pub up: Direction,
    /// Server → client.
    pub down: Direction,
}

/// A small, fast, seeded generator (xorshift64*): enough for loss and jitter draws.
#[derive(Clone, Copy, Debug)]
struct Draws(u64);

impl Draws {
    fn new(seed: u64) -> Draws {
        // Never zero (xorshift's fixed point), and seeds near each other spread apart.
        Draws(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A number in [0, 1).
    fn next(&mut self) -> f64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        #[allow(clippy::cast_precision_loss)] // 53 bits of the draw, exactly representable
        let unit = (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
        unit
    }
}

/// The server's end of a delay line over `socket`: what the client sends arrives here
/// `one_way` later, and what is written here reaches the client `one_way` later. Ends
/// (EOF) travel with the same delay.
#[cfg(test)]
pub fn delay_line(socket: TcpStream, one_way: Duration) -> DuplexStream {
    let direction = Direction {
        one_way_ms: one_way.as_secs_f64() * 1000.0,
        ..Direction::default()
    };
    link_line(
        socket,
        Link {
            up: direction,
            down: direction,
        },
        0,
    )
}

/// The server's end of `link` over `socket`, its draws seeded with `seed`.
pub fn link_line(socket: TcpStream, link: Link, seed: u64) -> DuplexStream {
    let (server_end, line_end) = tokio::io::duplex(PIPE_BYTES);
    let (socket_read, socket_write) = socket.into_split();
    let (line_read, line_write) = tokio::io::split(line_end);
    tokio::spawn(carry(socket_read, line_write, link.up, Draws::new(seed)));
    tokio::spawn(carry(
        line_read,
        socket_write,
        link.down,
        Draws::new(seed ^ 0xD1B5_4A32_D192_ED03),
    ));
    server_end
}

/// When each segment of a direction arrives: its departure at the rate, the delay, a jitter
/// draw, a resend; never before the one ahead of it.
#[derive(Debug)]
struct Schedule {
    direction: Direction,
    draws: Draws,
    /// When the link is free to send the next segment.
    free_at: Instant,
    /// When the last segment arrives.
    last_due: Instant,
}

impl Schedule {
    fn due(&mut self, now: Instant, bytes: usize) -> Instant {
        let direction = self.direction;
        let leaves = match direction.rate_bps {
            Some(rate) => {
                #[allow(clippy::cast_precision_loss)] // a segment's bits
                let sending = Duration::from_secs_f64(bytes as f64 * 8.0 / rate);
                self.free_at = self.free_at.max(now) + sending;
                self.free_at
            }
            None => now,
        };
        let mut delay_ms = direction.one_way_ms;
        if direction.jitter_ms > 0.0 {
            delay_ms += direction.jitter_ms * self.draws.next();
        }
        if direction.loss > 0.0 && self.draws.next() < direction.loss {
            delay_ms += direction.retransmit_ms;
        }
        let due = (leaves + Duration::from_secs_f64(delay_ms / 1000.0)).max(self.last_due);
        self.last_due = due;
        due
    }
}

/// Copies `from` to `to` over one direction of the link.
async fn carry<R, W>(mut from: R, mut to: W, direction: Direction, draws: Draws)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (sender, mut receiver) = mpsc::channel::<(Instant, Bytes)>(QUEUED_SEGMENTS);
    let reader = async move {
        let now = Instant::now();
        let mut schedule = Schedule {
            direction,
            draws,
            free_at: now,
            last_due: now,
        };
        let mut buffer = vec![0u8; READ_BYTES];
        loop {
            match from.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(read) => {
                    let now = Instant::now();
                    for segment in buffer[..read].chunks(SEGMENT_BYTES) {
                        let due = schedule.due(now, segment.len());
                        if sender
                            .send((due, Bytes::copy_from_slice(segment)))
                            .await
                            .is_err()
                        {
                            return schedule.last_due;
                        }
                    }
                }
            }
        }
        // Dropping the sender ends the writer once the queue is delivered: the EOF
        // arrives after the last bytes, a delay after it was read, as on a link.
        let one_way = Duration::from_secs_f64(direction.one_way_ms / 1000.0);
        let end = schedule.last_due.max(Instant::now() + one_way);
        drop(sender);
        end
    };
    let writer = async move {
        while let Some((due, bytes)) = receiver.recv().await {
            tokio::time::sleep_until(due).await;
            if to.write_all(&bytes).await.is_err() {
                return to;
            }
        }
        to
    };
    let (end, mut to) = tokio::join!(reader, writer);
    tokio::time::sleep_until(end).await;
    let _ = to.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::TcpListener;

    /// An echo server behind a delay line: a round trip costs two delays.
    #[tokio::test]
    async fn a_round_trip_pays_the_delay_twice() {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.expect("bind");
        let address = listener.local_addr().expect("address");
        let one_way = Duration::from_millis(100);
        tokio::spawn(async move {
            let (socket, _) = listener.accept().await.expect("accept");
            let mut line = delay_line(socket, one_way);
            let mut buffer = [0u8; 16];
            while let Ok(read) = line.read(&mut buffer).await {
                if read == 0 {
                    break;
                }
                let _ = line.write_all(&buffer[..read]).await;
            }
        });
        let mut client = TcpStream::connect(address).await.expect("connect");
        for _ in 0..3 {
            let sent = Instant::now();
            client.write_all(b"ping").await.expect("write");
            let mut reply = [0u8; 4];
            client.read_exact(&mut reply).await.expect("read");
            let round_trip_ms = sent.elapsed().as_secs_f64() * 1000.0;
            assert_eq!(&reply, b"ping");
            assert!(
                // Two delays, and less than a third one (a loaded machine adds to it).
                (200.0..300.0).contains(&round_trip_ms),
                "round trip {round_trip_ms} ms for 2 × 100 ms"
            );
        }
        // The client's EOF reaches the server, which then closes: the client reads EOF.
        client.shutdown().await.expect("shutdown");
        let mut rest = Vec::new();
        client.read_to_end(&mut rest).await.expect("eof");
        assert!(rest.is_empty());
    }

    fn schedule(direction: Direction, seed: u64) -> Schedule {
        let now = Instant::now();
        Schedule {
            direction,
            draws: Draws::new(seed),
            free_at: now,
            last_due: now,
        }
    }

    fn ms_after(start: Instant, due: Instant) -> f64 {
        due.duration_since(start).as_secs_f64() * 1000.0
    }

    #[test]
    fn a_rate_queues_the_segments_of_a_large_body() {
        // 80,000 bytes up at 1 Mbit/s: 640 ms of sending, then the delay.
        let mut up = schedule(
            Direction {
                one_way_ms: 32.0,
                rate_bps: Some(1_000_000.0),
                ..Direction::default()
            },
            1,
        );
        let start = up.free_at;
        let mut last = start;
        let mut sent = 0;
        while sent < 80_000 {
            let bytes = SEGMENT_BYTES.min(80_000 - sent);
            last = up.due(start, bytes);
            sent += bytes;
        }
        let whole_ms = ms_after(start, last);
        assert!((whole_ms - 672.0).abs() < 0.5, "{whole_ms} ms");
    }

    #[test]
    fn losses_resend_and_hold_back_what_follows_in_order() {
        let direction = Direction {
            one_way_ms: 30.0,
            loss: 0.03,
            retransmit_ms: 260.0,
            ..Direction::default()
        };
        let mut link = schedule(direction, 7);
        let start = link.free_at;
        let dues: Vec<f64> = (0..10_000)
            .map(|_| ms_after(start, link.due(start, SEGMENT_BYTES)))
            .collect();
        // In order, each at least the delay; resends cost the retransmission.
        assert!(dues.windows(2).all(|pair| pair[0] <= pair[1]));
        assert!(dues.iter().all(|due| *due >= 30.0));
        let resent = dues.iter().filter(|due| **due >= 290.0).count();
        // All segments leave at once here, so one resend holds back every later one: count
        // the first instead, over seeds.
        assert!(resent > 0);
        let mut first_losses = 0;
        for seed in 0..2_000 {
            let mut one = schedule(direction, seed);
            let start = one.free_at;
            if ms_after(start, one.due(start, SEGMENT_BYTES)) >= 290.0 {
                first_losses += 1;
            }
        }
        // 3 % of 2,000: 60, within a generous binomial band.
        assert!(
            (30..=95).contains(&first_losses),
            "{first_losses} of 2000 lost"
        );
    }

    #[test]
    fn jitter_stays_within_its_band_and_the_same_seed_repeats() {
        let direction = Direction {
            one_way_ms: 20.0,
            jitter_ms: 10.0,
            ..Direction::default()
        };
        let draws = |seed| {
            let mut link = schedule(direction, seed);
            let start = link.free_at;
            (0..200)
                .map(|index| {
                    let at = start + Duration::from_millis(index * 50);
                    ms_after(at, link.due(at, 100))
                })
                .collect::<Vec<f64>>()
        };
        let first = draws(3);
        assert!(
            first.iter().all(|ms| (20.0..30.0).contains(ms)),
            "{first:?}"
        );
        assert!(first.iter().any(|ms| *ms > 25.0) && first.iter().any(|ms| *ms < 25.0));
        assert_eq!(first, draws(3), "repeatable");
        assert_ne!(first, draws(4));
    }
}
