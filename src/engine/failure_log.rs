//! What failures did in a run (issue #41): the runs they killed and the nodes' down times,
//! as the engine's `sim/outages.rs` records them and the node check and the reports read
//! them. Plain data (kept apart from the simulation so that `outcome.rs` can carry it
//! without importing the loop).

use crate::failure::{JobCheckpoints, OnFailure, OutageKind, RequeueAt};
use crate::model::{JobIdx, Share};
use crate::time::SimTime;

/// A run of a job that a failure cut short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KilledRun {
    /// The job (index into the run's jobs).
    pub job: JobIdx,
    /// The site it ran on.
    pub site: u32,
    /// When this run of it started.
    pub start: SimTime,
    /// When the failure killed it.
    pub end: SimTime,
    /// Its shares, in [`FailureLog::shares`].
    pub shares: (u32, u32),
    /// The work this run checkpointed before the failure (zero without checkpointing): the
    /// job's next run resumes after it.
    pub saved: SimTime,
}

/// A node down over `[start, end)` as the engine applied it (overlapping outages merged).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Downtime {
    /// The site.
    pub site: u32,
    /// The node, numbered within its site.
    pub node: u32,
    /// When it went down.
    pub start: SimTime,
    /// When it came back.
    pub end: SimTime,
    /// The kind of the outage that took it down.
    pub kind: OutageKind,
}

/// What the failures did in a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FailureLog {
    /// What became of the jobs a failure killed.
    pub on_failure: OnFailure,
    /// Where requeued jobs went in their queue.
    pub requeue_at: RequeueAt,
    /// Every run a failure cut short, in the order they were killed.
    pub killed: Vec<KilledRun>,
    /// The killed runs' shares of their nodes, one after the other.
    pub shares: Vec<Share>,
    /// Every node's down times, in the order they ended.
    pub downtimes: Vec<Downtime>,
    /// Outages that began after the last job was done (no effect; not applied).
    pub after_the_end: u64,
    /// Jobs lost because they had been requeued [`Outages::max_requeue`] times already.
    pub requeue_limit: u64,
    /// The checkpointing each job followed, if any.
    pub checkpoint: Option<JobCheckpoints>,
    /// Per job, the work its last run left undone when its checkpoints pushed the run past
    /// its wallclock limit, where it was killed (zero when they did not; empty without
    /// [`crate::failure::Checkpointing::within_limit`]).
    pub cut_at_limit: Vec<SimTime>,
}

impl FailureLog {
    /// The shares of a killed run.
    pub fn shares_of(&self, k: &KilledRun) -> &[Share] {
        &self.shares[k.shares.0 as usize..(k.shares.0 + k.shares.1) as usize]
    }
}
