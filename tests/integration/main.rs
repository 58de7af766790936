//! The one integration-test binary: golden schedules, the differential test against a
//! reference scheduler, real traces, the CLI, the steppable engine and the house rules (tidy).

mod checkpoint;
mod checkpoint_limits;
mod cli;
mod cluster;
mod differential;
mod energy;
mod explain;
mod failures;
mod formats;
mod fuzz;
mod golden;
mod grid;
mod grid_nodes;
mod hardening;
mod kkor;
mod limits;
mod maintenance;
mod nodes;
mod nodes_exclusive;
mod power;
mod reference;
mod reproduce;
mod requeue_grid;
mod scjg;
mod ses;
mod slurm;
mod slurm_accounts;
mod slurm_qos;
mod stepping;
mod tidy;
mod traces;
mod vs_log;
mod workload_models;

use std::path::PathBuf;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The shared trace folder beside the repository (never copied into it).
pub fn traces_dir() -> PathBuf {
    root().join("..").join("shared").join("traces")
}

/// A shared trace's path; the test fails with a clear message when the folder is missing.
pub fn trace(name: &str) -> PathBuf {
    let p = traces_dir().join(name);
    assert!(
        p.exists(),
        "{} is missing: the tests read the real traces from ../shared/traces beside the checkout",
        p.display()
    );
    p
}
