//! Local (per-site) batch schedulers: FCFS, EASY backfilling, conservative backfilling, SJF
//! and first-fit, one file each.
//!
//! A policy owns its queue and sees the site through a read-only [`SiteView`]. On each
//! scheduling pass it returns the jobs to start *now*; the engine allocates them, checks that
//! capacity is never exceeded and schedules their completions.
//!
//! Adding a policy: write a file with a struct implementing [`LocalPolicy`], add a variant to
//! [`LocalPolicyKind`] (its name, `FromStr`/`Display`) and to [`LocalPolicyKind::build`]; the
//! differential test's reference (tests/integration/reference.rs) gets the same rule written
//! the slow, obvious way.

mod conservative;
mod conservative_nodes;
mod conservative_rebuild;
mod easy;
mod fcfs;
mod firstfit;
mod sjf;
mod slurm;
mod slurm_node_sets;
mod slurm_qos;

pub use conservative::Conservative;
pub use conservative_rebuild::ConservativeRebuild;
pub use easy::Easy;
pub use fcfs::Fcfs;
pub use firstfit::FirstFit;
pub use sjf::Sjf;
pub use slurm::Slurm;

mod node_plan;
mod nodefit;
mod placement;
mod projection;
mod width_queue;
pub use nodefit::NodesView;
pub use projection::{project_queue, Projection};
pub(crate) use width_queue::WidthQueue;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use crate::model::JobIdx;
use crate::policy::Profile;
use crate::time::SimTime;

/// A job waiting in a site's queue, in this site's units and speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueuedJob {
    pub idx: JobIdx,
    /// Allocation units (processors or whole nodes) it needs here.
    pub units: u32,
    /// Its estimate scaled to this site's speed (≥ 1 tick): how long the scheduler plans for.
    pub estimate: SimTime,
    /// When it entered this queue.
    pub queued_at: SimTime,
}

/// The reservation a policy holds for its queue head, for the step-by-step view: EASY's
/// shadow time (when the head will start, by estimates) and extra units (those free then
/// beyond the head's need, which a backfilled job may hold past the shadow time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeadReservation {
    pub job: JobIdx,
    pub shadow: SimTime,
    pub extra: u32,
}

/// What a policy's last scheduling pass did, for the step-by-step view: how many of the jobs
/// it started came from the head of the queue (in order, each fitting when reached), and
/// the head's reservation the rest were backfilled around (EASY), if it made one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassNote {
    pub heads: usize,
    pub reservation: Option<HeadReservation>,
}

/// A block of a site's units held for one holder during `[start, end)` (SCJG §2's *job
/// reservation*, or a recurring lock-down window): no local job may use those units then.
/// Local policies backfill around reservations; they never start the holder themselves
/// (the metascheduler's simulation starts a metajob component exactly at its reservation's
/// start, rule 5). A block may already be in force (`start ≤ now`, a lock-down window).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Reservation {
    pub start: SimTime,
    pub end: SimTime,
    pub units: u32,
    /// Who holds it (a metajob component, a lock-down window); for reports only.
    pub holder: u64,
}

/// What a local policy may read of its site. Running jobs are keyed by
/// `(predicted end, job)`, so iteration runs from the soonest predicted release.
pub struct SiteView<'a> {
    pub now: SimTime,
    pub capacity: u32,
    pub free: u32,
    pub running: &'a BTreeMap<(SimTime, JobIdx), u32>,
    /// True when the running set changed in a way no reservation foresaw since the last
    /// pass: a job ended before its predicted end, or outlived its estimate — or a
    /// reservation was made or released. Policies that keep a plan (conservative
    /// backfilling) rebuild it then.
    pub plan_invalidated: bool,
    /// Advance reservations not yet started (and lock-down windows not yet over), sorted by
    /// start. Empty on every site outside SCJG's simulation.
    pub reservations: &'a [Reservation],
    /// The site's nodes and the jobs' demands, on a site that lists node types (issue #37;
    /// `None` everywhere else): a job fits now only where first-fit placement finds nodes.
    pub nodes: Option<NodesView<'a>>,
}

impl SiteView<'_> {
    /// The profile of the running jobs alone.
    pub fn running_profile(&self) -> Profile {
        Profile::from_running(
            self.now,
            self.free,
            self.running.iter().map(|(&(end, _), &units)| (end, units)),
        )
    }

    /// The profile local jobs are planned in: the running jobs by estimates and every
    /// reservation (from now on) as a fixed block.
    pub fn planning_profile(&self) -> Profile {
        let mut profile = self.running_profile();
        for r in self.reservations {
            let from = r.start.max(self.now);
            if r.end > from {
                profile.reserve(from, r.end - from, r.units);
            }
        }
        profile
    }
}

/// What a scheduling pass may still start *now*. Without reservations a job fits iff its
/// units are free (the running jobs only release units from now on); with reservations it
/// must also end, by its estimate, before any block it would overlap — or fit beside it
/// (SCJG Fig. 1) — so the check runs on the planning profile, built only when a job would
/// reach the first block (a pass whose candidates all end before it costs nothing more).
pub(crate) struct NowFit {
    now: SimTime,
    free: u32,
    /// The first instant a reservation holds units (`NEVER` without reservations).
    horizon: SimTime,
    /// The planning profile with this pass's starts, once built.
    profile: Option<Profile>,
    /// Starts `(estimate, units)` of this pass before the profile was built.
    taken: Vec<(SimTime, u32)>,
    /// The nodes this pass has taken, on a node-typed site.
    nodes: nodefit::NodeFit,
}

impl NowFit {
    pub(crate) fn new(site: &SiteView) -> NowFit {
        NowFit {
            now: site.now,
            free: site.free,
            horizon: site
                .reservations
                .first()
                .map_or(SimTime::NEVER, |r| r.start.max(site.now)),
            profile: None,
            taken: Vec::new(),
            nodes: nodefit::NodeFit::default(),
        }
    }

    /// True when the site holds reservations (its passes must plan around them).
    pub(crate) fn has_reservations(&self) -> bool {
        self.horizon != SimTime::NEVER
    }

    /// True when `units` × `estimate` can start now.
    pub(crate) fn fits(&mut self, site: &SiteView, units: u32, estimate: SimTime) -> bool {
        if units > self.free {
            return false;
        }
        // Before the profile exists nothing is planned but reservations, none before the
        // horizon; once built it may hold more (EASY's head), so it decides.
        if self.profile.is_none() && self.now + estimate <= self.horizon {
            return true;
        }
        let now = self.now;
        self.profile(site).fits_at(now, units, estimate)
    }

    /// Starts `units` × `estimate` now (the caller checked [`NowFit::fits`]).
    pub(crate) fn take(&mut self, units: u32, estimate: SimTime) {
        self.free -= units;
        match self.profile.as_mut() {
            Some(p) => p.reserve(self.now, estimate, units),
            None => self.taken.push((estimate, units)),
        }
    }

    /// Units free now.
    pub(crate) fn free(&self) -> u32 {
        self.free
    }

    /// The planning profile with this pass's starts.
    pub(crate) fn profile(&mut self, site: &SiteView) -> &mut Profile {
        let now = self.now;
        let taken = &mut self.taken;
        self.profile.get_or_insert_with(|| {
            let mut p = site.planning_profile();
            for (estimate, units) in taken.drain(..) {
                p.reserve(now, estimate, units);
            }
            p
        })
    }
}

/// Why a policy would never start a job ([`LocalPolicy::refuses`]); the engine rejects the
/// job with it as the reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A limit of its Slurm QOS that no state of the machine lifts (issue #42): what it
    /// needs and the most the QOS allows.
    QosLimit {
        limit: QosLimit,
        needs: u64,
        most: u64,
    },
    /// Its time limit exceeds its Slurm partition's `MaxTime` (whole seconds each, the
    /// limit rounded up).
    PartitionTimeLimit { limit_s: u64, max_time_s: u64 },
    /// The nodes of its Slurm partition (a node set) can never hold it: the resource that
    /// falls short, what it needs of it and the most they have.
    PartitionNodes {
        resource: crate::model::Resource,
        needs: u64,
        most: u64,
    },
}

/// Which Slurm QOS limit holds a job for ever (issue #42).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QosLimit {
    /// `MaxJobsPU=0`: no running job per user (needs 1, most 0).
    MaxJobsPerUser,
    /// `GrpTRES=cpu=N` below the job's processors alone (needs its processors, most N).
    GrpCpus,
    /// `GrpJobs=0`: no running job under the QOS (needs 1, most 0).
    GrpJobs,
    /// `MaxTRESPU=cpu=N` below the job's processors alone (needs its processors, most N).
    MaxCpusPerUser,
    /// `MaxWall` below the job's time limit (needs its limit in whole seconds, rounded
    /// up; most the `MaxWall` in seconds).
    MaxWall,
    /// `GrpTRES=mem=M` below the job's memory alone (KB each).
    GrpMem,
    /// `GrpTRES=gres/gpu=G` below the job's GPUs alone.
    GrpGpus,
    /// `MaxTRESPU=mem=M` below the job's memory alone (KB each).
    MaxMemPerUser,
    /// `MaxTRESPU=gres/gpu=G` below the job's GPUs alone.
    MaxGpusPerUser,
}

/// A local batch scheduler.
pub trait LocalPolicy {
    /// Short name as accepted on the command line (`fcfs`, `easy`, ...).
    fn name(&self) -> &'static str;

    /// A job joins the queue (the engine has checked that it fits the site at all).
    fn enqueue(&mut self, job: QueuedJob, site: &SiteView);

    /// A job a failure killed joins the queue ahead of every job waiting (issue #41,
    /// `failure::RequeueAt::Front`). Only the policies that place on nodes see failures,
    /// and each of them implements it; any other queues the job as `enqueue` does.
    fn enqueue_front(&mut self, job: QueuedJob, site: &SiteView) {
        self.enqueue(job, site)
    }

    /// Why this policy would never start `job` (index `idx`) whatever the machine's state (a Slurm
    /// partition's `MaxTime` below its time limit), or `None`. The engine rejects such a
    /// job at its arrival with that reason instead of queueing it for ever.
    fn refuses(&self, _idx: JobIdx, _job: &crate::model::Job) -> Option<Refusal> {
        None
    }

    /// Decide which queued jobs start now; push them to `starts` and drop them from the queue.
    fn schedule(&mut self, site: &SiteView, starts: &mut Vec<JobIdx>);

    /// Jobs waiting.
    fn queue_len(&self) -> usize;

    /// Steps of work spent on the plan so far, for policies whose cost grows faster than
    /// their queue (conservative backfilling re-examines its plan at every early end: a
    /// backlog of N costs about N³): each job looked at counts 1, each placement or move the
    /// plan's length. The engine holds it to a limit (`Simulation::with_work_limit`).
    fn plan_work(&self) -> u64 {
        0
    }

    /// The queue in this policy's priority order.
    fn queued(&self) -> Vec<QueuedJob>;

    /// Takes `job` out of the queue (a grid scheme moves it elsewhere); false when it is
    /// not queued here. The engine then runs a pass: the jobs behind it may start.
    fn withdraw(&mut self, job: JobIdx) -> bool;

    /// A running job of this site ended at `now`; its units were planned until
    /// `predicted_end` (later than `now` when it ended early). Called for every completion,
    /// at the point of the event order where it counts as a termination, before the pass
    /// that follows it. Policies that keep a plan give back the rest of its block
    /// (conservative backfilling compresses then).
    fn released(&mut self, _now: SimTime, _units: u32, _predicted_end: SimTime) {}

    /// [`LocalPolicy::released`] on a node-typed site, with the nodes the job gave back
    /// (`shares`), for a policy that keeps what will be free at an instant ahead (EASY).
    fn released_nodes(&mut self, _predicted_end: SimTime, _shares: &[crate::model::Share]) {}

    /// Node `whole.node` of a node-typed site went down (`down`, its jobs killed first) or
    /// came back; `whole` is all it has. By default the site changed as
    /// [`LocalPolicy::replan`] says; a policy that keeps what will be free at an instant
    /// ahead (EASY) takes the node out of it or puts it back instead.
    fn node_changed(&mut self, _whole: crate::model::Share, _down: bool) {
        self.replan()
    }

    /// The nodes this policy chose for job `idx`, which its last pass started: `out` gets
    /// them and the engine takes them instead of first-fit's (conservative backfilling on
    /// nodes starts a job on the nodes it reserved, which first-fit on the nodes free now
    /// may not find: it does not know the reservations ahead). False by default.
    fn chosen_nodes(&mut self, _idx: JobIdx, _out: &mut Vec<crate::model::Share>) -> bool {
        false
    }

    /// The site changed in a way [`LocalPolicy::released`] does not describe — a job
    /// outlived its estimate and kept running, or an advance reservation was made or
    /// released: a kept plan must be made again at the next pass.
    fn replan(&mut self) {}

    /// When this policy wants a pass with no event to bring one (after each pass, with the
    /// site as the pass left it): Slurm's priorities change at its `PriorityCalcPeriod`
    /// ticks, and a job that becomes the head at a tick may fit in what is free then.
    /// `None` (every policy but `slurm`): passes come with arrivals and ends only.
    fn wake_at(&self, _site: &SiteView) -> Option<SimTime> {
        None
    }

    /// How long the queued `job` is projected to wait, by estimates: its start in the
    /// projection of the jobs ahead of it ([`project_queue`]) minus now; `None` when it is
    /// not queued here or never fits.
    fn queued_wait(&self, site: &SiteView, job: JobIdx) -> Option<SimTime> {
        let queue = self.queued();
        let at = queue.iter().position(|j| j.idx == job)?;
        let ahead = project_queue(site, queue[..at].iter().copied(), self.backfills());
        ahead.wait(site, self.backfills(), queue[at].units, queue[at].estimate)
    }

    /// What the last [`LocalPolicy::schedule`] did, for policies that explain it (EASY).
    fn last_pass(&self) -> Option<PassNote> {
        None
    }

    /// A limit of this policy's that holds queued job `idx` now, in words (Slurm's QOS
    /// limits: the job waits for it whatever is free), or `None`. Read-only.
    fn held_by_limit(&self, _idx: JobIdx) -> Option<String> {
        None
    }

    /// Every queued job's priority factors and priority as of the last priority
    /// computation at or before `at` (no earlier than the last pass), highest first, for
    /// the policies that rank by Slurm's multifactor priority (`sprio -l`, `explain --at`);
    /// `None` for the others. Read-only: the policy's own state does not move.
    fn priorities(
        &self,
        _at: SimTime,
    ) -> Option<Vec<(JobIdx, crate::policy::slurm::Factors, u64)>> {
        None
    }

    /// The head's reservation, for policies that make one (EASY); read-only.
    fn head_reservation(&self, _site: &SiteView) -> Option<HeadReservation> {
        None
    }

    /// True for policies that decide with node placement ([`NowFit::fits_job`]), which may
    /// run on node-typed sites; the engine refuses the others there (issue #37: FCFS, SJF
    /// and first-fit so far).
    fn places_on_nodes(&self) -> bool {
        false
    }

    /// Whether a hypothetical job may start before jobs queued ahead of it in the projection
    /// (false only for policies where the head blocks everyone: FCFS, SJF).
    fn backfills(&self) -> bool {
        true
    }

    /// Availability profile after the queue's projected starts, by estimates: running jobs
    /// end at their predicted ends and every queued job is placed, in priority order, at its
    /// earliest start (never before the previous one for non-backfilling policies). Does not
    /// change any state.
    fn projected_profile(&self, site: &SiteView) -> (Profile, SimTime) {
        let p = project_queue(site, self.queued(), self.backfills());
        (p.profile, p.barrier)
    }

    /// The projection [`LocalPolicy::approximate_wait`] reads, with the earliest projected
    /// start, so the engine can keep it between queries: `None` when this policy's
    /// approximate wait does not come from one projection (SJF's depends on the query).
    fn projection(&self, site: &SiteView) -> Option<Projection> {
        Some(project_queue(site, self.queued(), self.backfills()))
    }

    /// True when [`LocalPolicy::projection`] is [`project_queue`] over the queue in arrival
    /// order, so that it depends on nothing but the queue, the running jobs and the clock:
    /// then a job just enqueued is projected last, and a kept projection takes it by one
    /// more placement ([`Projection::append`]) instead of being made again, and a pass that
    /// starts nothing leaves it as it was. FCFS, EASY and first-fit; conservative projects
    /// its own plan and SJF has no single projection.
    fn projects_in_arrival_order(&self) -> bool {
        false
    }

    /// The profile this policy promises to its queue, which an advance reservation must not
    /// touch (SCJG §3.1: range lists "meet local scheduler policies"): by default the
    /// projection of the whole queue (conservative: every queued job's reservation; FCFS
    /// and SJF: the queue in its order); EASY protects only its head's shadow reservation,
    /// first-fit nothing but the running jobs and the reservations.
    fn guarded_profile(&self, site: &SiteView) -> Profile {
        self.projected_profile(site).0
    }

    /// SCJG §3.1's range list: the maximal closed ranges of start times in `[from, to]` at
    /// which a reservation of `units` × `duration` could be made now without delaying a
    /// running job (by its estimate), another reservation or what this policy guarantees
    /// its queue ([`LocalPolicy::guarded_profile`]). Read-only.
    fn range_list(
        &self,
        site: &SiteView,
        units: u32,
        duration: SimTime,
        from: SimTime,
        to: SimTime,
    ) -> Vec<(SimTime, SimTime)> {
        if units > site.capacity || to < from {
            return Vec::new();
        }
        self.guarded_profile(site)
            .ranges(units, duration, from.max(site.now), to)
    }

    /// Approximate wait time (SOB) of a hypothetical job of `units` × `estimate` arriving
    /// now: its projected start minus now; `None` when the site can never run it.
    fn approximate_wait(&self, site: &SiteView, units: u32, estimate: SimTime) -> Option<SimTime> {
        let p = self.projection(site)?;
        p.wait(site, self.backfills(), units, estimate)
    }
}

/// The local policies by name, for the CLI, scenarios and the UI.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LocalPolicyKind {
    Fcfs,
    Easy,
    Conservative,
    Sjf,
    FirstFit,
    /// Conservative backfilling by rebuild: `conservative` before scenario version 2.
    ConservativeRebuild,
    /// Slurm's own policy (docs/slurm.md); not in `ALL` or `EVERY`, so `all` runs as before.
    Slurm,
}

impl LocalPolicyKind {
    pub const ALL: [LocalPolicyKind; 5] = [
        LocalPolicyKind::Fcfs,
        LocalPolicyKind::Easy,
        LocalPolicyKind::Conservative,
        LocalPolicyKind::Sjf,
        LocalPolicyKind::FirstFit,
    ];

    /// Every policy, for listings: [`LocalPolicyKind::ALL`] (what `all` runs) and the
    /// variants kept for older scenarios.
    pub const EVERY: [LocalPolicyKind; 6] = [
        LocalPolicyKind::Fcfs,
        LocalPolicyKind::Easy,
        LocalPolicyKind::Conservative,
        LocalPolicyKind::Sjf,
        LocalPolicyKind::FirstFit,
        LocalPolicyKind::ConservativeRebuild,
    ];

    pub fn name(self) -> &'static str {
        match self {
            LocalPolicyKind::Fcfs => "fcfs",
            LocalPolicyKind::Easy => "easy",
            LocalPolicyKind::Conservative => "conservative",
            LocalPolicyKind::Sjf => "sjf",
            LocalPolicyKind::FirstFit => "firstfit",
            LocalPolicyKind::ConservativeRebuild => "conservative-rebuild",
            LocalPolicyKind::Slurm => "slurm",
        }
    }

    /// One line for help texts and the UI.
    pub fn describe(self) -> &'static str {
        match self {
            LocalPolicyKind::Fcfs => "First-come first-served, strict: the queue head blocks everyone behind it.",
            LocalPolicyKind::Easy => "FCFS with EASY backfilling (Mu'alem & Feitelson 2001; SOB's FCFS+BF): the head gets a reservation at its shadow time; a later job starts now if it fits and ends by the shadow time or uses only processors the head leaves over.",
            LocalPolicyKind::Conservative => "Conservative backfilling with compression (Mu'alem & Feitelson 2001, as pyss; KKOR's local scheduler): every queued job gets a reservation at its earliest start, in arrival order; a job may jump ahead only if it delays no reservation. When a job ends early, each queued job in arrival order moves to its earliest start given the others: never later than its reservation. On node-typed sites each reservation holds particular nodes (docs/nodes.md).",
            LocalPolicyKind::Sjf => "Shortest (estimated) job first, strict: the queue is ordered by estimate (ties by arrival) and its head blocks the rest.",
            LocalPolicyKind::FirstFit => "First-fit (SOB's FF): scan the queue in arrival order and start every job that fits now.",
            LocalPolicyKind::ConservativeRebuild => "Conservative backfilling by rebuild (Gridscope's `conservative` before scenario version 2): when a job ends early every queued job is re-placed in arrival order from scratch, so a job can start later than its first reservation. Kept so older scenarios and links give their schedules.",
            LocalPolicyKind::Slurm => "Slurm's own policy (docs/slurm.md): multifactor priority (age, fair share, job size, partition; recomputed every PriorityCalcPeriod), the main scheduler in priority order up to the first job that does not fit, then a backfill that reserves for every job it examines within bf_window (bf_max_job_test, bf_resolution). Slurm's defaults unless --slurm-conf or --slurm-preset.",
        }
    }

    pub fn build(self) -> Box<dyn LocalPolicy> {
        match self {
            LocalPolicyKind::Fcfs => Box::new(Fcfs::default()),
            LocalPolicyKind::Easy => Box::new(Easy::default()),
            LocalPolicyKind::Conservative => Box::new(Conservative::default()),
            LocalPolicyKind::Sjf => Box::new(Sjf::default()),
            LocalPolicyKind::FirstFit => Box::new(FirstFit::default()),
            LocalPolicyKind::ConservativeRebuild => Box::new(ConservativeRebuild::default()),
            // One user, one partition: the engine and runner use `Slurm::factory` instead.
            LocalPolicyKind::Slurm => Box::new(Slurm::default()),
        }
    }
}

impl fmt::Display for LocalPolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for LocalPolicyKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let key = s.trim().to_ascii_lowercase();
        let kind = match key.as_str() {
            "fcfs" => LocalPolicyKind::Fcfs,
            "easy" | "fcfs+bf" | "fcfs+easy" => LocalPolicyKind::Easy,
            "conservative" | "cbf" => LocalPolicyKind::Conservative,
            "sjf" => LocalPolicyKind::Sjf,
            "firstfit" | "first-fit" | "ff" => LocalPolicyKind::FirstFit,
            "conservative-rebuild" | "conservative_rebuild" | "cbf-rebuild" => {
                LocalPolicyKind::ConservativeRebuild
            }
            "slurm" => LocalPolicyKind::Slurm,
            _ => {
                return Err(format!(
                    "unknown local policy '{s}'; expected one of fcfs, easy, conservative, sjf, firstfit, conservative-rebuild, slurm"
                ))
            }
        };
        Ok(kind)
    }
}

impl serde::Serialize for LocalPolicyKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for LocalPolicyKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn q(idx: JobIdx, units: u32, secs: i64) -> QueuedJob {
        QueuedJob {
            idx,
            units,
            estimate: SimTime::from_secs(secs),
            queued_at: SimTime::ZERO,
        }
    }

    /// The site of [`setup`] at t=0: 10 units, 4 free.
    fn view(running: &BTreeMap<(SimTime, JobIdx), u32>) -> SiteView<'_> {
        SiteView {
            now: SimTime::ZERO,
            capacity: 10,
            free: 4,
            running,
            plan_invalidated: false,
            reservations: &[],
            nodes: None,
        }
    }

    /// A site of 10 units with 6 busy until t=100 and a queue of one 8-unit job (100 s).
    fn setup(kind: LocalPolicyKind) -> (Box<dyn LocalPolicy>, BTreeMap<(SimTime, JobIdx), u32>) {
        let mut running = BTreeMap::new();
        running.insert((SimTime::from_secs(100), 0), 6);
        let mut policy = kind.build();
        let view = view(&running);
        policy.enqueue(q(1, 8, 100), &view);
        let mut starts = vec![];
        policy.schedule(&view, &mut starts);
        assert!(starts.is_empty());
        (policy, running)
    }

    #[test]
    fn approximate_wait_follows_each_policys_projection() {
        for kind in LocalPolicyKind::ALL {
            let (policy, running) = setup(kind);
            let view = view(&running);
            let awt = |units, secs| policy.approximate_wait(&view, units, SimTime::from_secs(secs));
            // Too wide for the site: never.
            assert_eq!(awt(11, 1), None, "{kind}");
            // The queued 8-unit job runs 100..200; a 2-unit job fits beside it from 100.
            let small_long = awt(2, 500);
            let small_short = awt(2, 50);
            if policy.backfills() {
                // 4 units are free now and nothing is planned in them before 100.
                assert_eq!(small_short, Some(SimTime::ZERO), "{kind}");
                // 2 units stay free beside the 8-unit job, so even a long job starts now.
                assert_eq!(small_long, Some(SimTime::ZERO), "{kind}");
                // 3 units do not fit beside it: after it, at 200, unless short enough.
                assert_eq!(awt(3, 500), Some(SimTime::from_secs(200)), "{kind}");
                assert_eq!(awt(3, 100), Some(SimTime::ZERO), "{kind}");
            } else if kind == LocalPolicyKind::Sjf {
                // SJF: a 50 s job would go ahead of the queued 100 s one and start now;
                // a 500 s job queues behind it and starts when it does, at 100.
                assert_eq!(small_short, Some(SimTime::ZERO), "{kind}");
                assert_eq!(small_long, Some(SimTime::from_secs(100)), "{kind}");
                // Equal estimates keep arrival order: behind the queued job.
                assert_eq!(awt(2, 100), Some(SimTime::from_secs(100)), "{kind}");
            } else {
                // The head blocks everyone: nothing starts before it does, at 100.
                assert_eq!(small_short, Some(SimTime::from_secs(100)), "{kind}");
            }
            // The queries changed nothing.
            assert_eq!(policy.queue_len(), 1);
        }
    }

    #[test]
    fn projected_profile_holds_the_queue() {
        let (policy, running) = setup(LocalPolicyKind::Conservative);
        let view = view(&running);
        let (profile, _) = policy.projected_profile(&view);
        assert_eq!(profile.free_at(SimTime::from_secs(50)), 4);
        assert_eq!(profile.free_at(SimTime::from_secs(150)), 2);
        assert_eq!(profile.free_at(SimTime::from_secs(250)), 10);
        // SCJG range list for 3 units × 50 s in [0, 300]: before 50 (ends by 100) or from 200.
        assert_eq!(
            profile.ranges(
                3,
                SimTime::from_secs(50),
                SimTime::ZERO,
                SimTime::from_secs(300)
            ),
            vec![
                (SimTime::ZERO, SimTime::from_secs(50)),
                (SimTime::from_secs(200), SimTime::from_secs(300))
            ]
        );
    }
}
