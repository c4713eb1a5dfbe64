//! Uses nothing of alpha's outside its tests. Not a use: `use crate::alpha::NAME;`
/* Nor this: use crate::alpha::NAME; */

/// Read by alpha.
pub const LIMIT: usize = 3;
/// Read by alpha.
pub static COUNT: u32 = 2;
/// Read by alpha.
pub enum Colour {
    /// A colour.
    Red,
}

/// A text that looks like a use.
pub const TEXT: &str = "use crate::alpha::NAME;";

#[cfg(test)]
mod tests {
    use crate::alpha::NAME;

    #[test]
    fn alpha_is_named() {
        assert_eq!(NAME, "alpha");
    }
}

#[cfg(test)]
use crate::alpha::read;
