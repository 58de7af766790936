//! `gridscope sweep plan|run|status|merge|slurm`: sweeps over a manifest's axes that outgrow
//! one machine, run as shards (a Slurm job array's tasks), resumable, merged with medians and
//! intervals across seeds (docs/cluster.md). `src/scenario/manifest/` expands a manifest;
//! this module is the file-system side: one file per command, `store.rs` the folder layout.
//!
//! Named `cluster` here because `sweep.rs` already runs the SF allocation sweeps (`run
//! --preset sf-*`); on the command line `gridscope sweep` was free.

mod merge;
mod plan;
pub mod shard;
mod slurm;
mod status;
mod store;

use crate::cli::SweepAction;
use crate::CliError;

pub fn dispatch(action: &SweepAction) -> Result<(), CliError> {
    match action {
        SweepAction::Plan(a) => plan::plan(a),
        SweepAction::Run(a) => shard::run(a),
        SweepAction::Status(a) => status::status(a),
        SweepAction::Merge(a) => merge::merge(a),
        SweepAction::Slurm(a) => slurm::slurm(a),
    }
}
