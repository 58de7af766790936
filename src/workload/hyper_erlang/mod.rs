//! Hyper-Erlang workloads of common order (SOB §3.1, after Jann et al. and Johnson & Taaffe).
//!
//! Jobs come in size classes `[nmin, nmax]` (processor counts). Each class is an independent
//! arrival stream whose inter-arrival times and service (run) times are each hyper-Erlang of
//! common order HE(n, λ1, λ2, ρ): with probability ρ an Erlang(n, λ1) sample (the sum of n
//! exponentials of rate λ1), else an Erlang(n, λ2) sample. Times are in seconds, rates per
//! second. SOB Tables 2–4 ship as presets ([`sob_classes`]); [`fit_classes`] derives a model
//! from a trace the way SOB §3.1 describes.
//!
//! Choices made where the paper is silent (also in the field docs):
//! - **Processor count inside a class**: [`ProcsInClass`] (uniform by default).
//! - **Streams** start at t = 0 and the first job arrives one inter-arrival sample later; a
//!   stream stops at the first arrival at or after the horizon. Each class draws from its own
//!   random stream derived from (seed, class index), so changing one class leaves the others'
//!   jobs unchanged.
//! - **Rounding**: submit times are floored to whole seconds, run times rounded to whole
//!   seconds and raised to at least 1 s (counted in the report), estimates are
//!   `ceil(runtime × estimate_factor)` seconds.
//! - **Order**: jobs are merged by (submit second, class index, sequence in class) and numbered
//!   1..N in that order.
//! - **Fitting**: classes of width `cpus_per_node`; a class below 2 % of the jobs is merged
//!   into the neighbour with fewer jobs (tie: the lower neighbour), smallest class first (tie:
//!   the lowest class); the smallest order n ≤ [`MAX_FIT_ORDER`] with an exact three-moment
//!   match wins; otherwise a two-moment or mean-only fallback, flagged `exact: false`.
//!
//! All maths goes through `libm` so native and wasm builds produce identical bits.

mod dist;
mod em;
mod fit;
pub mod fit_quality;
mod generator;
mod moments;
mod sob_tables;
mod synthesize;
#[cfg(test)]
mod tests;

pub use dist::{HyperErlang, SizeClass, MAX_ORDER};
pub use em::fit_samples_ml;
pub use fit::{
    fit_classes, fit_classes_with, merge_classes, FitMethod, FittedClass, MERGE_THRESHOLD_PCT,
};
pub use generator::{offered_load, HyperErlangWorkload, ProcsInClass, MAX_JOBS, TWO_WEEKS_S};
pub use moments::{fit_samples, raw_moments, FittedMoments, MAX_FIT_ORDER};
pub use sob_tables::sob_classes;
pub use synthesize::{synthesize, Synthetic, SYNTHETIC_SEED};
