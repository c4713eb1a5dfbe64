//! ttft-stream: bytes of a streamed LLM response in, decoded events out.
//!
//! - [`sse`]: an incremental WHATWG server-sent-events parser with a stated bound per line;
//! - [`dialect`]: what each provider's events mean (OpenAI Chat Completions and compatible
//!   servers, Anthropic Messages, OpenAI Responses, auto-detection): text by channel, usage,
//!   errors inside the stream;
//! - `scan` (private): the byte searches both use, eight bytes at a time.
//!
//! It depends on no other crate of TTFT Meter's, reads no clock (times are arguments) and
//! knows nothing of the browser. See docs/DESIGN.md §4.
#![warn(missing_docs)]

pub mod dialect;
mod scan;
pub mod sse;
