//! Closes the circle with gamma through its static, reached as `super::gamma::COUNT`.
use super::gamma::COUNT as GAMMA_COUNT;

/// Colours.
pub enum Colour {
    /// Gamma's default.
    Red,
    /// Another.
    Blue,
}

/// Gamma's count, doubled.
pub fn twice() -> u32 {
    GAMMA_COUNT * 2
}
