//! Incremental WHATWG server-sent-events parser: bytes in, split anywhere; events out.
