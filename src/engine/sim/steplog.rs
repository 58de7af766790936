//! What a step did and what a site looks like after it: the step-by-step view's data.

use crate::model::JobIdx;
use crate::policy::local::{HeadReservation, PassNote, QueuedJob};
use crate::time::SimTime;

/// What one step did: the instant, and the jobs that ended, arrived and started then.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepLog {
    /// The instant simulated.
    pub time: SimTime,
    /// Jobs whose completion was handled (finished or killed), in event order.
    pub completed: Vec<JobIdx>,
    /// Jobs submitted at this instant, in input order.
    pub arrived: Vec<JobIdx>,
    /// `(site, job)` for each job started, in the order the passes started them.
    pub started: Vec<(u32, JobIdx)>,
    /// Grid timers and messages delivered.
    pub grid_messages: u32,
    /// Each scheduling pass that started jobs, when passes are recorded
    /// ([`Simulation::record_passes`]).
    pub passes: Vec<PassLog>,
}

impl StepLog {
    /// Starts the log of the step at `now`. Cleared, not replaced: the log keeps its buffers
    /// from step to step.
    pub(super) fn reset(&mut self, now: SimTime) {
        self.time = now;
        self.completed.clear();
        self.arrived.clear();
        self.started.clear();
        self.grid_messages = 0;
        self.passes.clear();
    }
}

/// One site's scheduling pass: the jobs it started, in order, and the policy's note on it
/// (how many came from the head; the head reservation the others were backfilled around).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PassLog {
    /// The site.
    pub site: u32,
    /// Jobs started, in the order the pass returned them.
    pub started: Vec<JobIdx>,
    /// The policy's own account, for policies that give one (EASY).
    pub note: Option<PassNote>,
}

/// One site as a step leaves it: what the step-by-step view shows.
#[derive(Clone, Debug, PartialEq)]
pub struct SiteSnapshot {
    /// The instant of the snapshot.
    pub now: SimTime,
    /// Allocation units of the site.
    pub capacity: u32,
    /// Units free now.
    pub free: u32,
    /// `(job, units, predicted end)`, soonest predicted end first.
    pub running: Vec<(JobIdx, u32, SimTime)>,
    /// The queue in the policy's priority order.
    pub queue: Vec<QueuedJob>,
    /// Free units over time by estimates: `(from, free)` steps of the running jobs' profile.
    pub profile: Vec<(SimTime, u32)>,
    /// The head's reservation for policies that make one (EASY's shadow time, extra units).
    pub head: Option<HeadReservation>,
}
