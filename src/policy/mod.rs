//! Scheduling policies. Each is a trait object whose callbacks *return decisions* (jobs to
//! start, sites to route to); the engine applies them and checks them. One file per policy.

pub mod grid;
pub mod local;
mod profile;
pub mod slurm;

pub use profile::Profile;
