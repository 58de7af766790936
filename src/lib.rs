//! Gridscope: a grid and HPC batch-job scheduling simulator.
//!
//! The crate is one deterministic engine shared by the native CLI (`src/bin/gridscope/`),
//! the browser app and the Python package (`python/`). Read ARCHITECTURE.md for the map.
//! Modules, from the ground up (`tests/integration/tidy.rs` keeps the layers):
//! - [`time`], [`rng`], [`par`], [`limits`], [`stats`], [`json_path`]: integer simulated time, the seeded
//!   portable RNG, a scoped thread pool, the input limits, the median and its band, the
//!   JSON paths of manifests and claims;
//! - [`model`]: jobs, sites and platforms (plain data);
//! - [`policy`]: local schedulers (one file each), grid schemes and the availability profile;
//! - [`workload`]: the trace readers (SWF, GWF, Batsim JSON, sacct) with their import
//!   reports, and the workload generators (bytes in, `Result` out, no file system);
//! - [`allocation`]: SF's batch-allocation model and its sweeps;
//! - [`energy`]: SimGrid's host power model and the joules of node timelines;
//! - [`failure`]: outages from files and failure models, and checkpointing's intervals;
//! - [`engine`]: the event queue, the steppable simulation loop and its invariant checks;
//! - [`kkor`], [`scjg`]: the KKOR and SCJG models, each with its own event loop;
//! - [`metrics`]: per-job records, aggregates and time series;
//! - [`scenario`]: the serializable description of an experiment, its presets, and the
//!   runner every edge drives;
//! - [`family`]: the paper families (SF, SES, KKOR, SCJG, SOB) and the one registry the
//!   CLI, the page, Python, the report card and cluster manifests go through;
//! - [`reproduce`]: the report card (the papers' claims against our runs);
//! - `web` (wasm32 only): the Yew page, its charts and its Web Workers.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

pub mod allocation;
pub mod energy;
pub mod engine;
pub mod failure;
pub mod family;
pub mod json_path;
pub mod kkor;
pub mod limits;
pub mod metrics;
pub mod model;
pub mod par;
pub mod policy;
pub mod radix;
pub mod reproduce;
pub mod rng;
pub mod scenario;
pub mod scjg;
pub mod stats;
pub mod time;
pub mod workload;

/// The browser app: Yew components, canvas plots and the Web Worker glue (wasm32 only).
#[cfg(target_arch = "wasm32")]
pub mod web;
