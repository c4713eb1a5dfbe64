//! The same kinds of use, one way only: no import circle.
pub mod alpha;
pub mod beta;
