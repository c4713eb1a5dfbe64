//! `--delay-ms`: a delay line between the socket and the server. Every read from the client
//! reaches the server `one_way` later, and every byte the server writes reaches the client
//! `one_way` later, without limiting throughput (bytes in flight are queued, not paced), as
//! a long-distance link does. The TLS handshake, a CORS preflight, the request and each
//! streamed event therefore pay the round trips their protocol needs.

use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Bytes read per step.
const READ_BYTES: usize = 64 * 1024;
/// Reads in flight per direction before the reader waits (at most 64 MiB queued).
const QUEUED_READS: usize = 1024;
/// The in-process pipe's buffer, bytes.
const PIPE_BYTES: usize = 256 * 1024;

/// The server's end of a delay line over `socket`: what the client sends arrives here
/// `one_way` later, and what is written here reaches the client `one_way` later. Ends
/// (EOF) travel with the same delay.
pub fn delay_line(socket: TcpStream, one_way: Duration) -> DuplexStream {
    let (server_end, line_end) = tokio::io::duplex(PIPE_BYTES);
    let (socket_read, socket_write) = socket.into_split();
    let (line_read, line_write) = tokio::io::split(line_end);
    tokio::spawn(carry(socket_read, line_write, one_way));
    tokio::spawn(carry(line_read, socket_write, one_way));
    server_end
}

/// Copies `from` to `to`, each read delivered `delay` after it was read.
async fn carry<R, W>(mut from: R, mut to: W, delay: Duration)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (sender, mut receiver) = mpsc::channel::<(Instant, Bytes)>(QUEUED_READS);
    let reader = async move {
        let mut buffer = vec![0u8; READ_BYTES];
        loop {
            match from.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(read) => {
                    let due = Instant::now() + delay;
                    let bytes = Bytes::copy_from_slice(&buffer[..read]);
                    if sender.send((due, bytes)).await.is_err() {
                        break;
                    }
                }
            }
        }
        // Dropping the sender ends the writer once the queue is delivered: the EOF
        // arrives `delay` after the last bytes, as on a link.
        let end = Instant::now() + delay;
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
}
