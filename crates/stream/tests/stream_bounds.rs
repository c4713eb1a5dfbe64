//! Memory bound of the stream reader: a hostile stream (one endless line, or one endless
//! event) fails at once with "line too long", and the parser never holds more than the 1 MiB
//! limit, whatever is fed. The caller holds one read on top of that.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ttft_stream::dialect::{Outcome, StreamReader};
use ttft_stream::sse::{LineTooLong, MAX_EVENT_BYTES};

const READ_BYTES: usize = 64 * 1024;

#[test]
fn sixty_four_mib_without_a_newline_fails_at_the_read_that_passes_1_mib() {
    let mut reader = StreamReader::new(None);
    let mut events = Vec::new();
    reader
        .on_bytes_into(
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: ",
            &mut events,
        )
        .unwrap();
    assert_eq!(events.len(), 1);
    let read = vec![b'x'; READ_BYTES];
    let mut first_error = None;
    let mut max_buffered = 0;
    for read_number in 1..=1024 {
        // 1024 reads of 64 KiB: 64 MiB.
        let result = reader.on_bytes_into(&read, &mut events);
        max_buffered = max_buffered.max(reader.buffered_bytes());
        match (result, &first_error) {
            (Ok(()), None) => {}
            (Err(error), None) => first_error = Some((read_number, error)),
            (Err(error), Some((_, first))) => assert_eq!(&error, first),
            (Ok(()), Some(_)) => panic!("read {read_number} passed after the failure"),
        }
    }
    // "data: " (6 bytes) + 16 reads of 64 KiB = 1 MiB + 6 bytes: the 16th read passes it.
    let (read_number, error) = first_error.unwrap();
    assert_eq!(read_number, 16);
    assert_eq!(
        error,
        LineTooLong {
            limit_bytes: MAX_EVENT_BYTES,
            seen_bytes: 6 + 16 * READ_BYTES,
            data_bytes: 0,
        }
    );
    assert!(error.to_string().starts_with(
        "line too long: the stream sent 1048582 bytes without a line break (the limit is \
         1048576 bytes (1 MiB))"
    ));
    // Before the failure it held the line so far (at most the limit); after it, nothing.
    assert_eq!(max_buffered, 6 + 15 * READ_BYTES);
    assert_eq!(reader.buffered_bytes(), 0);
    assert_eq!(
        events.len(),
        1,
        "the event before the line is kept, no other"
    );
    let summary = reader.finish();
    assert_eq!(summary.outcome, Outcome::LineTooLong);
    assert_eq!(summary.answer_text, "Hi");
}

#[test]
fn an_endless_event_of_short_data_lines_fails_at_1_mib() {
    let mut reader = StreamReader::new(None);
    let line = format!("data: {}\n", "y".repeat(1000));
    let read = line.repeat(READ_BYTES / line.len());
    let mut fed = 0;
    let error = loop {
        match reader.on_bytes(read.as_bytes()) {
            Ok(events) => assert!(events.is_empty()),
            Err(error) => break error,
        }
        fed += read.len();
        assert!(reader.buffered_bytes() <= MAX_EVENT_BYTES);
        assert!(fed < 4 * MAX_EVENT_BYTES, "no error after {fed} bytes");
    };
    // Each line adds 1001 bytes to the data: the line that fails finds 1047 lines' worth.
    assert_eq!(error.data_bytes, 1047 * 1001);
    assert_eq!(error.seen_bytes, 1047 * 1001 + 1006);
}
