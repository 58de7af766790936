//! Grid schedulers (SOB §2): where a job runs once it arrives at its home site's grid queue.
//!
//! A grid policy holds the jobs of every grid queue (GQ) and, like local policies, returns
//! decisions: dispatch a job to a site's local queue (LQ), or deliver a message to itself
//! later (a timer, or an answer that travels with the message latency). It sees the sites
//! through a read-only [`GridView`] whose queries — approximate wait time (AWT), expected
//! run time (ERT), resource utilization status (RUS) — come from the local policies'
//! projections. One file per scheme: `local`, `central`, `sender`, `receiver` (which also
//! serves `symmetric`). The idealized scheme is not a dispatcher but a different machine: see
//! `engine::simulate_ideal`.

mod central;
mod groups;
mod local;
mod receiver;
mod sender;

pub use central::Central;
pub use groups::{GroupSelection, GroupStrategy};
pub use local::LocalOnly;
pub use receiver::ReceiverInitiated;
pub use sender::SenderInitiated;

use serde::{Deserialize, Serialize};

use crate::model::JobIdx;
use crate::time::SimTime;

/// The superscheduling schemes of SOB, by their output labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum GridScheme {
    /// No migration: every job runs at home (SOB's lower bound).
    #[default]
    Local,
    /// Sender-initiated (S-I).
    Sender,
    /// Receiver-initiated (R-I).
    Receiver,
    /// Symmetrically-initiated (Sy-I).
    Symmetric,
    /// One global queue; each job to the minimum-cost site on arrival.
    Central,
    /// The grid as one machine of Σ CPUs × MHz one-MHz nodes, jobs perfectly malleable,
    /// served under `GridParams::ideal_discipline` (see `engine::ideal`).
    Ideal,
    /// SES node-group selection, random: each site is a node group of one cluster; a job
    /// joins a group drawn in proportion to the groups' nodes (small jobs: the 1-CPU group).
    GroupsRandom,
    /// SES node-group selection, most nodes available.
    GroupsMna,
}

impl GridScheme {
    pub const ALL: [GridScheme; 8] = [
        GridScheme::Local,
        GridScheme::Sender,
        GridScheme::Receiver,
        GridScheme::Symmetric,
        GridScheme::Central,
        GridScheme::Ideal,
        GridScheme::GroupsRandom,
        GridScheme::GroupsMna,
    ];

    /// The SOB schemes (between sites of a grid), without SES's node-group selection.
    pub const SOB: [GridScheme; 6] = [
        GridScheme::Local,
        GridScheme::Sender,
        GridScheme::Receiver,
        GridScheme::Symmetric,
        GridScheme::Central,
        GridScheme::Ideal,
    ];

    /// True for SES's node-group selection schemes (the sites are one cluster's groups).
    pub fn is_group_selection(self) -> bool {
        matches!(self, GridScheme::GroupsRandom | GridScheme::GroupsMna)
    }

    pub fn name(self) -> &'static str {
        match self {
            GridScheme::Local => "local",
            GridScheme::Sender => "sender",
            GridScheme::Receiver => "receiver",
            GridScheme::Symmetric => "symmetric",
            GridScheme::Central => "central",
            GridScheme::Ideal => "ideal",
            GridScheme::GroupsRandom => "groups_random",
            GridScheme::GroupsMna => "groups_mna",
        }
    }

    pub fn parse(s: &str) -> Result<GridScheme, String> {
        let key = s.trim().to_ascii_lowercase();
        let alias = match key.as_str() {
            "s-i" | "si" => "sender",
            "r-i" | "ri" => "receiver",
            "sy-i" | "syi" => "symmetric",
            "centralized" => "central",
            "idealized" => "ideal",
            "random" | "groups-random" => "groups_random",
            "mna" | "groups-mna" => "groups_mna",
            k => k,
        };
        GridScheme::ALL
            .into_iter()
            .find(|g| g.name() == alias)
            .ok_or_else(|| {
                format!("unknown grid scheme '{s}'; expected local, sender, receiver, symmetric, central, ideal, groups_random or groups_mna")
            })
    }

    pub fn describe(self) -> &'static str {
        match self {
            GridScheme::Local => "No migration: every job runs on its home machine (SOB's lower bound).",
            GridScheme::Sender => "Sender-initiated (SOB §2.1.1): a job whose home AWT ≥ φ asks every partner for AWT, ERT and RUS; it goes to the site of minimum ATT = AWT + ERT, ties within ε broken by lowest RUS. One query outstanding per grid scheduler.",
            GridScheme::Receiver => "Receiver-initiated (SOB §2.1.2): every σ a site whose RUS < δ volunteers to its partners; a site sends the head of its grid queue to a volunteer with lower turnaround cost. Waiting jobs re-check their home AWT every σ (with hold_at_home they wait in their home local queue instead).",
            GridScheme::Symmetric => "Symmetrically-initiated (SOB §2.1.3): receiver-initiated, switching at once to sender-initiated for a job when no volunteer has offered.",
            GridScheme::Central => "Centralized (SOB §2.2): one global queue; each job goes on arrival to the site of minimum turnaround cost (no φ).",
            GridScheme::Ideal => "Idealized (SOB §2.3): the grid as one machine of Σ CPUs × MHz one-MHz nodes, jobs perfectly malleable. SOB does not say in which order the machine serves them; grid parameter ideal_discipline chooses: processor_sharing (default: shared equally among the jobs present — no job waits, no capacity idles while work is present), srpt (least work left first, preemptive — the lower bound on mean response for this machine) or fcfs (one at a time in submit order). A reference point per discipline, not one upper bound.",
            GridScheme::GroupsRandom => "SES node-group selection, random (SES App. B.1): the sites are one cluster's node groups; jobs under small_below_cpus CPUs go to the 1-CPU group (non-restricted: unless it cannot start them at once), others to a group drawn with probability |G_i| / T (T = the eligible groups' nodes). FCFS per group; a job never spans groups.",
            GridScheme::GroupsMna => "SES node-group selection, most nodes available (SES App. B.1): as random, but a job picks the eligible multi-CPU group with the most free nodes (ties: the larger group, then the first).",
        }
    }
}

/// SOB's parameters. Defaults are the paper's (φ = 60 s, δ = 0.7, σ = 300 s); ε and the
/// message latency are ours (ε = 10 s: turnaround times that close are a tie, so the less
/// utilized site gets the job; latency 0).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[serde(deny_unknown_fields)]
pub struct GridParams {
    /// A job whose home AWT is below φ seconds stays home without asking anyone.
    pub phi_s: f64,
    /// A site volunteers when its utilization (RUS) is below δ.
    pub delta: f64,
    /// Period of the RUS checks and of the waiting jobs' AWT re-checks, seconds.
    pub sigma_s: f64,
    /// Sites whose ATT is within ε seconds of the minimum tie; the lowest RUS wins.
    pub epsilon_s: f64,
    /// One-way message latency, seconds: a query's answers arrive two latencies later.
    pub latency_s: f64,
    /// SES node groups: small jobs never use multi-CPU nodes (restricted) or may when the
    /// single-CPU group cannot start them at once (false, non-restricted).
    #[serde(skip_serializing_if = "is_false")]
    pub restricted: bool,
    /// SES node groups: jobs of fewer CPUs than this are "small" (SES: 4).
    #[serde(skip_serializing_if = "is_four")]
    pub small_below_cpus: u32,
    /// SES node groups: one FCFS queue for the whole site (its head goes to a group the
    /// moment one can start it, and blocks everyone behind it) instead of SES's FCFS queue
    /// per group (false, the paper's).
    #[serde(skip_serializing_if = "is_false")]
    pub site_queue: bool,
    /// The idealized scheme's discipline (SOB §2.3 gives the machine, not the order): processor
    /// sharing (the default), SRPT or FCFS. Absent in older scenarios and links.
    #[serde(skip_serializing_if = "IdealDiscipline::is_default")]
    pub ideal_discipline: IdealDiscipline,
    /// Receiver- and symmetrically-initiated: a job waiting for a volunteer waits in its
    /// home site's local queue (and may start there) instead of the home grid queue (false,
    /// the reading of SOB §2.1.2 we take as the paper's; docs/sob.md). Absent in older
    /// scenarios and links.
    #[serde(skip_serializing_if = "is_false")]
    pub hold_at_home: bool,
}

/// How the idealized machine serves the jobs present (see `engine::ideal`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdealDiscipline {
    /// Shared equally among the jobs present: no job waits; efficiency bound.
    #[default]
    ProcessorSharing,
    /// Shortest remaining processing time, preemptive: the lower bound on mean response.
    Srpt,
    /// One job at a time in submit order on the whole machine.
    Fcfs,
}

impl IdealDiscipline {
    pub const ALL: [IdealDiscipline; 3] = [
        IdealDiscipline::ProcessorSharing,
        IdealDiscipline::Srpt,
        IdealDiscipline::Fcfs,
    ];

    fn is_default(&self) -> bool {
        *self == IdealDiscipline::ProcessorSharing
    }

    pub fn name(self) -> &'static str {
        match self {
            IdealDiscipline::ProcessorSharing => "processor_sharing",
            IdealDiscipline::Srpt => "srpt",
            IdealDiscipline::Fcfs => "fcfs",
        }
    }

    /// What it serves first and what it bounds, for help texts.
    pub fn describe(self) -> &'static str {
        match self {
            IdealDiscipline::ProcessorSharing => "processor sharing: the machine divided equally among the jobs present — no job waits and no capacity idles while work is present (bounds grid efficiency and wait from below: wait 0)",
            IdealDiscipline::Srpt => "SRPT: the whole machine serves the job with the least work left, preemptively — the lower bound on mean response time for this machine (Schrage 1968)",
            IdealDiscipline::Fcfs => "FCFS: the whole machine serves one job at a time in submit order — bounds efficiency only; under overload long jobs hold up everything behind them",
        }
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_four(n: &u32) -> bool {
    *n == 4
}

impl Default for GridParams {
    fn default() -> Self {
        GridParams {
            phi_s: 60.0,
            delta: 0.7,
            sigma_s: 300.0,
            epsilon_s: 10.0,
            latency_s: 0.0,
            restricted: false,
            small_below_cpus: 4,
            site_queue: false,
            ideal_discipline: IdealDiscipline::ProcessorSharing,
            hold_at_home: false,
        }
    }
}

impl GridParams {
    pub fn validate(&self) -> Result<(), String> {
        let ok = |v: f64| v.is_finite() && v >= 0.0;
        if !(ok(self.phi_s) && ok(self.epsilon_s) && ok(self.latency_s)) {
            return Err("φ, ε and the latency must be non-negative numbers of seconds".into());
        }
        if !(self.sigma_s.is_finite() && self.sigma_s >= 1.0) {
            return Err(format!("σ must be at least 1 s (got {})", self.sigma_s));
        }
        if !(self.delta.is_finite() && (0.0..=1.0).contains(&self.delta)) {
            return Err(format!("δ must be in [0, 1] (got {})", self.delta));
        }
        Ok(())
    }

    pub(crate) fn phi(&self) -> SimTime {
        SimTime::from_secs_f64(self.phi_s)
    }
    pub(crate) fn sigma(&self) -> SimTime {
        SimTime::from_secs_f64(self.sigma_s).max(SimTime(1))
    }
    pub(crate) fn epsilon(&self) -> SimTime {
        SimTime::from_secs_f64(self.epsilon_s)
    }
    pub(crate) fn latency(&self) -> SimTime {
        SimTime::from_secs_f64(self.latency_s)
    }

    /// Builds the dispatcher of a scheme (not `Ideal`, which is a different simulation);
    /// `seed` drives the randomized ones (SES random selection).
    pub fn build(&self, scheme: GridScheme, sites: usize, seed: u64) -> Box<dyn GridPolicy> {
        let groups = |strategy| {
            Box::new(
                GroupSelection::new(strategy, self.restricted, self.small_below_cpus, seed)
                    .with_site_queue(self.site_queue),
            )
        };
        match scheme {
            GridScheme::GroupsRandom => groups(GroupStrategy::Random),
            GridScheme::GroupsMna => groups(GroupStrategy::MostNodesAvailable),
            GridScheme::Local | GridScheme::Ideal => Box::new(LocalOnly),
            GridScheme::Central => Box::new(Central::new(*self)),
            GridScheme::Sender => Box::new(SenderInitiated::new(*self, sites)),
            GridScheme::Receiver => Box::new(ReceiverInitiated::new(*self, sites, false)),
            GridScheme::Symmetric => Box::new(ReceiverInitiated::new(*self, sites, true)),
        }
    }
}

/// What a grid policy may ask about the sites. Implemented by the engine.
pub trait GridView {
    fn now(&self) -> SimTime;
    fn sites(&self) -> usize;
    fn home(&self, job: JobIdx) -> u32;
    /// Approximate wait time of `job` at `site` from the local policy's projection; `None`
    /// when the site can never run it.
    fn awt(&self, site: u32, job: JobIdx) -> Option<SimTime>;
    /// Expected run time of `job` at `site`: its estimate scaled to the site's speed.
    fn ert(&self, site: u32, job: JobIdx) -> SimTime;
    /// Resource utilization status: the share of the site's units busy now.
    fn rus(&self, site: u32) -> f64;
    /// Whether jobs are still to arrive (timers stop once nothing is left to decide).
    fn arrivals_remaining(&self) -> bool;
    /// Processors `job` asks for.
    fn procs(&self, job: JobIdx) -> u32;
    /// Allocation units (processors or nodes) `job` needs at `site`.
    fn units(&self, site: u32, job: JobIdx) -> u32;
    /// Allocation units `site` has.
    fn capacity(&self, site: u32) -> u32;
    /// Allocation units free at `site` now.
    fn free(&self, site: u32) -> u32;
    /// Processors one allocation unit of `site` stands for (1 for processor allocation).
    fn cpus_per_unit(&self, site: u32) -> u32;
    /// The site whose local queue `job` waits in (dispatched, not started), if any.
    fn waiting_at(&self, job: JobIdx) -> Option<u32>;
    /// How long the queued `job` is projected to wait at `site` (its projected start minus
    /// now); `None` when it is not queued there.
    fn queued_wait(&self, site: u32, job: JobIdx) -> Option<SimTime>;
}

/// A message a policy sends itself, delivered by the engine at a later instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridMsg {
    /// Periodic check at a site (R-I, Sy-I).
    Tick { site: u32 },
    /// The answers to `site`'s query about `job` are back (S-I with latency).
    Answers { site: u32, job: JobIdx },
    /// `volunteer` announced it is underused; delivered to `to`.
    Volunteer { volunteer: u32, to: u32 },
    /// `site` has heard every volunteer of this instant: offer its head job to the best (R-I).
    Decide { site: u32 },
    /// Continue re-checking `site`'s held jobs from position `from`, after the previous
    /// release reached its local queue (R-I's σ re-check, one decision per message).
    Recheck { site: u32, from: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridAction {
    /// Move a job from its grid queue into `site`'s local queue.
    Dispatch { job: JobIdx, site: u32 },
    /// Deliver `msg` back to the policy after `delay`.
    After { delay: SimTime, msg: GridMsg },
    /// Take `job` out of `from`'s local queue and put it in `to`'s (nothing if it is no
    /// longer waiting at `from`).
    Move { job: JobIdx, from: u32, to: u32 },
}

pub trait GridPolicy {
    fn name(&self) -> &'static str;
    /// Called once before the first event.
    fn start(&mut self, _grid: &dyn GridView, _out: &mut Vec<GridAction>) {}
    /// `job` arrives at its home site's grid queue (it fits at least one site).
    fn on_arrival(&mut self, job: JobIdx, grid: &dyn GridView, out: &mut Vec<GridAction>);
    fn on_message(&mut self, msg: GridMsg, grid: &dyn GridView, out: &mut Vec<GridAction>);
    /// Jobs still held in grid queues.
    fn held(&self) -> usize;
    /// True for a policy that must hear of every completion ([`GridPolicy::on_release`]).
    fn wants_releases(&self) -> bool {
        false
    }
    /// A job ended somewhere and released its units (only if [`GridPolicy::wants_releases`]).
    fn on_release(&mut self, _grid: &dyn GridView, _out: &mut Vec<GridAction>) {}
}

/// Turnaround cost (SOB §2.1.1): the site of minimum ATT = AWT + ERT among `candidates`;
/// sites within ε of the minimum tie and the lowest RUS wins, then the earlier candidate.
/// Returns (site, its ATT); `None` when no candidate can run the job.
pub fn best_site(
    grid: &dyn GridView,
    job: JobIdx,
    candidates: impl Iterator<Item = u32>,
    epsilon: SimTime,
) -> Option<(u32, SimTime)> {
    let costs: Vec<(u32, SimTime, f64)> = candidates
        .filter_map(|s| {
            grid.awt(s, job)
                .map(|awt| (s, awt + grid.ert(s, job), grid.rus(s)))
        })
        .collect();
    let min = costs.iter().map(|c| c.1).min()?;
    costs
        .into_iter()
        .filter(|c| c.1 <= min + epsilon)
        .min_by(|a, b| a.2.total_cmp(&b.2))
        .map(|c| (c.0, c.1))
}

/// Candidate order for a job: its home first, then the other sites by index, so ties keep
/// the job at home.
pub fn home_first(grid: &dyn GridView, job: JobIdx) -> impl Iterator<Item = u32> {
    let home = grid.home(job);
    std::iter::once(home).chain((0..grid.sites() as u32).filter(move |&s| s != home))
}
