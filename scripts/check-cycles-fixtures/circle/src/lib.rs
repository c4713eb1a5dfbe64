//! Two import circles that only constants, statics and variants close.
pub mod alpha;
pub mod beta;
pub mod gamma;
pub mod delta;
