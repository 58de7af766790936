//! The SF paper's experiments as sweeps: each point is a batch system, each policy runs on
//! it with N seeds (the same seeds for every policy), and the result is the median with a
//! confidence band from order statistics.
//!
//! A sweep is a `SweepSpec` — the system, the parameter on the x axis and its values, the
//! policies — so the page and the CLI can change any of it; the presets are the paper's
//! five specs with their headline numbers.
//!
//! The spec and its fields are `spec`, the paper's presets `presets`, running and assembling
//! `plan`, the result `result`; the order statistics are the crate's `stats`.

mod plan;
mod presets;
mod result;
mod spec;

/// The order statistics, where the other families first found them.
pub use crate::stats::{median_and_band, median_band};
pub use plan::*;
pub use presets::*;
pub use result::*;
pub use spec::*;

#[cfg(test)]
mod tests;
