//! Gridscope: a grid and HPC batch-job scheduling simulator.
//!
//! The crate is one deterministic engine shared by the native CLI (`src/bin/gridscope/`)
//! and the browser app. Read ARCHITECTURE.md for the map; in short:
//! - [`engine`]: integer time, the event queue, the simulation loop and its invariant checks;
//! - [`model`]: jobs, sites and platforms (plain data);
//! - [`policy`]: local schedulers (one file each) and the availability profile;
//! - [`workload`]: SWF reader/writer with its import report, and generators (bytes in,
//!   `Result` out, no file system);
//! - [`metrics`]: per-job records, aggregates and time series;
//! - [`scenario`]: the serializable description of an experiment and its presets.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

pub mod allocation;
pub mod engine;
pub mod json_path;
pub mod kkor;
pub mod limits;
pub mod metrics;
pub mod model;
pub mod par;
pub mod policy;
pub mod reproduce;
pub mod rng;
pub mod scenario;
pub mod scjg;
pub mod time;
pub mod workload;

/// The browser app: Yew components, canvas plots and the Web Worker glue (wasm32 only).
#[cfg(target_arch = "wasm32")]
pub mod web;
