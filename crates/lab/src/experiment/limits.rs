//! Bounds on what an experiment's fields accept.

/// Largest prompt size accepted in any field, tokens: past every current context window.
pub const MAX_PROMPT_TOKENS: u32 = 2_000_000;

/// Most repetitions (runs, waves) per level, so a typo cannot start thousands of requests.
pub const MAX_REPETITIONS: u32 = 500;

/// Most streams in flight at once (concurrency levels, tails' lanes).
pub const MAX_STREAMS: u32 = 64;
