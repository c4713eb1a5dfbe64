//! The only place that reads the wall clock.

/// Unix seconds, for the `created` fields of responses.
// The timing model never reads clocks (it takes time as an argument); this wall-clock read
// only fills the informational `created` timestamps, like real providers do.
#[allow(clippy::disallowed_methods)]
pub fn unix_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}
