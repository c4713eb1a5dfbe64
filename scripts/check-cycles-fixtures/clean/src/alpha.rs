//! alpha → beta through a constant, a static and a variant.
use crate::beta::{Colour::Red, COUNT, LIMIT};

/// Beta's limit and count, and whether red is red.
pub fn read() -> (usize, u32, bool) {
    (LIMIT, COUNT, matches!(Red, crate::beta::Colour::Red))
}

/// Not beta's business.
pub const NAME: &str = "alpha";
