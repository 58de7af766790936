//! Failures and maintenance (issue #41, docs/failures.md): when nodes are down, from a file
//! or drawn from a model, and what a failure does to the jobs on the node; checkpointing's
//! intervals and waste.
//!
//! Plain data in, plain data out: [`Outage`]s (a node of a site down from `start` to `end`,
//! a failure or a maintenance) read by [`read_outages_csv`], [`read_alea_failures`] or
//! [`read_batsim_events`], a
//! [`FailureModel`] whose up and down times each node draws from its own seeded stream
//! ([`node_rng`]), and the [`OnFailure`] rule for the jobs a failure kills. The engine
//! takes them as [`Outages`] and does the rest (`engine/sim/outages.rs`); nothing here
//! schedules. [`checkpoint`] has Young's and Daly's intervals and a drawn check of the
//! first-order waste `C/τ + τ/(2M)`.

mod batsim;
pub mod checkpoint;
mod dist;
mod model;
mod read;

pub use batsim::read_batsim_events;
pub use checkpoint::{CheckpointPlan, Checkpointing, Interval, JobCheckpoints};
pub use dist::Dist;
pub use model::{node_rng, FailureModel};
pub use read::{read_alea_failures, read_outage_file, read_outages_csv, NodeCounts, OutageReport};

use serde::{Deserialize, Serialize};

use crate::time::SimTime;

/// Why a node is down.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutageKind {
    /// Unplanned: the jobs on the node are killed.
    Failure,
    /// Planned (drained for maintenance), known in advance: no job starts on the node for a
    /// run its estimate says would overlap it (`model::Maintenance`); a job still on the
    /// node when it starts (one that overran its estimate) is killed as by a failure.
    Maintenance,
}

impl OutageKind {
    /// The kind a file names (`failure` or `maintenance`, any case), or the error to show.
    pub fn parse(s: &str) -> Result<OutageKind, String> {
        match s.to_ascii_lowercase().as_str() {
            "failure" => Ok(OutageKind::Failure),
            "maintenance" => Ok(OutageKind::Maintenance),
            _ => Err(format!(
                "kind must be 'failure' or 'maintenance', not '{s}'"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            OutageKind::Failure => "failure",
            OutageKind::Maintenance => "maintenance",
        }
    }
}

/// Node `node` of site `site` is down over `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Outage {
    pub site: u32,
    pub node: u32,
    pub start: SimTime,
    pub end: SimTime,
    pub kind: OutageKind,
}

/// What becomes of a job a failure kills.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnFailure {
    /// It goes back to its site's queue ([`Outages::requeue_at`]: the end by default) and
    /// runs again from the start, or its last checkpoint (Slurm's `--requeue`), at most [`Outages::max_requeue`] times, after which it is lost. Its
    /// wait counts from its submission, restarts included.
    #[default]
    Requeue,
    /// It is lost: it ends at the failure, unfinished, and does not run again.
    Lost,
}

impl OnFailure {
    pub fn name(self) -> &'static str {
        match self {
            OnFailure::Requeue => "requeue",
            OnFailure::Lost => "lost",
        }
    }
}

/// Where a requeued job goes in its site's queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequeueAt {
    /// Behind every job waiting, as a new submission (Slurm's `--requeue`).
    #[default]
    Back,
    /// Ahead of every job waiting (Alea's restarted jobs): it is the next to start when
    /// its nodes allow. Of several requeued at one instant, the last one killed is first.
    Front,
    /// Offered to the grid again, as if submitted now: the grid scheme picks its site
    /// (any site that can hold it, not only the one it ran on) and it joins the back of
    /// that site's queue. Its checkpointed work goes with it, rescaled to the new site's
    /// speed (scenario version 12).
    Grid,
}

impl RequeueAt {
    pub fn name(self) -> &'static str {
        match self {
            RequeueAt::Back => "back",
            RequeueAt::Front => "front",
            RequeueAt::Grid => "grid",
        }
    }

    /// True for the default (scenario files leave it out).
    pub fn is_back(&self) -> bool {
        *self == RequeueAt::Back
    }
}

/// Everything that takes nodes down in a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Outages {
    /// Known outages (from a file), in any order; overlapping ones on a node merge.
    pub windows: Vec<Outage>,
    /// Failures drawn per node on every node-typed site, from the start of the run until the
    /// last job is done.
    pub model: Option<FailureModel>,
    /// The seed of the model's per-node streams.
    pub seed: u64,
    pub on_failure: OnFailure,
    /// Under [`OnFailure::Requeue`], how many times a job is requeued before it is lost
    /// (Slurm's `MaxBatchRequeue`, 5 by default there and here): a job much longer than
    /// its nodes' time between failures would otherwise run again for ever.
    pub max_requeue: u32,
    /// Where a requeued job goes in its queue.
    pub requeue_at: RequeueAt,
    /// Checkpointing, for every job: a requeued job then resumes from its last checkpoint
    /// instead of from the start (docs/failures.md).
    pub checkpoint: Option<Checkpointing>,
}

/// Slurm's default `MaxBatchRequeue`.
pub const MAX_REQUEUE: u32 = 5;

impl Default for Outages {
    fn default() -> Outages {
        Outages {
            windows: Vec::new(),
            model: None,
            seed: 0,
            on_failure: OnFailure::default(),
            max_requeue: MAX_REQUEUE,
            requeue_at: RequeueAt::Back,
            checkpoint: None,
        }
    }
}

impl Outages {
    /// True when nothing ever goes down.
    pub fn is_empty(&self) -> bool {
        self.windows.is_empty() && self.model.is_none()
    }
}

/// Bad failure input: a file's line, or a model's field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailureError {
    /// A line of an outage file that cannot be read.
    Line {
        file: String,
        line: usize,
        msg: String,
    },
    /// A failure model's parameter out of range, naming the field.
    Model(String),
}

impl std::fmt::Display for FailureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FailureError::Line { file, line, msg } => write!(f, "{file}:{line}: {msg}"),
            FailureError::Model(msg) => write!(f, "failure model: {msg}"),
        }
    }
}

impl std::error::Error for FailureError {}

#[cfg(test)]
mod tests;
