//! gamma → delta through a variant (re-exported here); delta → gamma through a static.
pub use crate::delta::Colour::Red as DEFAULT_COLOUR;

/// Read by delta.
pub static COUNT: u32 = 2;

/// The count.
pub fn count() -> u32 {
    COUNT
}
