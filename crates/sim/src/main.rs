//! ttft-sim: a simulated LLM provider with deterministic timing.
fn main() {}
