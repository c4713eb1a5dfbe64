//! alpha → beta through a constant; beta → alpha through a constant.
use crate::beta::LIMIT;

/// Read by beta.
pub const NAME: &str = "alpha";

/// Beta's limit.
pub fn limit() -> usize {
    LIMIT
}
