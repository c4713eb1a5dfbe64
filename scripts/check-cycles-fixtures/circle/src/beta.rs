//! Closes the circle with alpha: a `use` of alpha's constant, in braces beside a module.
use crate::{alpha::NAME, gamma};

/// Read by alpha.
pub const LIMIT: usize = 3;

/// Alpha's name and gamma's count.
pub fn name() -> (&'static str, u32) {
    (NAME, gamma::count())
}
