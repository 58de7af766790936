//! SCJG (docs/scjg.md): metajobs placed by a metascheduler through **advance reservations**
//! on the sites' local schedulers, against the dedicated **lock-down** baseline.
//!
//! Every site runs one of the five local policies over its own local jobs; the policies
//! honour reservations (`SiteView::reservations`: a job starts now only if it ends, by its
//! estimate, before every block it would overlap, or fits beside it) and answer SCJG §3.1's
//! range-list query (`LocalPolicy::range_list`). Metaschedulers (one or several, competing)
//! take metajobs through §3.3's steps — query every site, select a start and the resources,
//! reserve on each site in turn, and on any failure release all and back off — in one of
//! three modes, one file each under `meta/`. A metajob's components start exactly at their
//! reservation's start on every site at once (rule 5) and are killed at their wallclock limit.
//!
//! The simulation is its own small event loop (`sim/`) over [`site::Site`]s, like KKOR's,
//! because metajobs with components on several sites and metaschedulers with delays and
//! back-offs do not fit the engine's one-job-one-site grid policies; it reuses the engine's
//! event queue and the local policies unchanged. Every run ends with [`invariants::check`].

pub mod inspect;
pub mod invariants;
pub mod meta;
pub mod metrics;
pub mod presets;
pub mod sim;
pub mod site;
pub mod workload;

use crate::model::Job;
use crate::policy::local::LocalPolicyKind;
use crate::time::SimTime;

pub use sim::{lockdown, simulate};

/// How a metajob asks for resources (SCJG §3's co-allocation classes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Specified co-allocation: the metajob names each site and its units there.
    Specified(Vec<(u32, u32)>),
    /// General co-allocation: `units` in all, on at most `max_sites` sites the
    /// metascheduler picks (see `meta::general` for the search rule).
    General { units: u32, max_sites: u32 },
    /// Single-site ASAP (SCJG §4, Fig. 8): `units` on any one site, earliest start.
    Single { units: u32 },
}

impl Request {
    /// Units in all.
    pub fn units(&self) -> u32 {
        match self {
            Request::Specified(parts) => parts.iter().map(|p| p.1).sum(),
            Request::General { units, .. } | Request::Single { units } => *units,
        }
    }
}

/// A job for the metascheduler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metajob {
    /// Its number in the source workload.
    pub id: i64,
    pub submit: SimTime,
    /// How long its components really run (each is killed at `wallclock`).
    pub runtime: SimTime,
    /// The wallclock limit: every reservation's length (rule 3).
    pub wallclock: SimTime,
    pub request: Request,
    /// Which metascheduler receives it.
    pub scheduler: u32,
    /// The earliest start the user accepts (SCJG Fig. 2's "proposed start"): queries ask
    /// for ranges from then on. `SimTime::ZERO` (or any instant before submission): ASAP.
    pub earliest: SimTime,
}

/// One site: its units (processors) and local policy, and its local workload (sorted by
/// submit; `home` is ignored).
#[derive(Clone, Debug)]
pub struct SiteSpec {
    pub name: String,
    pub units: u32,
    pub policy: LocalPolicyKind,
}

/// The random exponential back-off after a failed reservation round (SCJG §3.3 step 5, as
/// Ethernet's): after the n-th failure wait `U(0, 1) × min(cap, base × factor^(n−1))`, at
/// least one millisecond ("full jitter"); drawn from the metascheduler's own seeded stream.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backoff {
    pub base: SimTime,
    pub factor: f64,
    pub cap: SimTime,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            base: SimTime::from_secs(60),
            factor: 2.0,
            cap: SimTime::from_secs(3600),
        }
    }
}

/// In which order a metascheduler approaches the sites when it reserves (SCJG Fig. 3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SiteOrder {
    /// Every metascheduler in site order.
    #[default]
    Same,
    /// Odd-numbered metaschedulers in reverse site order: the livelock of Fig. 3.
    Opposed,
}

/// The dedicated lock-down baseline (SCJG §1, §4, Fig. 7): on every site, `units` units are
/// kept from local jobs for `hours` a day from `start_hour` on; metajobs run only there,
/// FCFS, each inside one window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lockdown {
    pub units: u32,
    pub start_hour: f64,
    pub hours: f64,
}

/// How metajobs are served.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    /// Advance reservations through the metascheduler(s).
    Reservations,
    /// The lock-down block of site 0 (single-site metajobs only).
    Lockdown(Lockdown),
}

/// The parameters of a run (docs/scjg.md, "Parameters").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScjgParams {
    pub mode: Mode,
    /// Competing metaschedulers (metajob `scheduler` numbers must be below it).
    pub metaschedulers: u32,
    /// Time from a query to the first reservation, and between one site's reservation and
    /// the next (SCJG §3.1's "brief delay"); 0 makes query and reservations one instant.
    pub delay: SimTime,
    pub order: SiteOrder,
    pub backoff: Backoff,
    /// Failed rounds after which a metajob is given up (reported with its history).
    pub max_retries: u32,
    /// Courtesy reservations (SCJG §4): a query locks the queried sites' reservation state
    /// for this long against other metaschedulers; `None` for stateless queries.
    pub courtesy: Option<SimTime>,
    /// Seeds the back-off streams.
    pub seed: u64,
    /// Record every site's answer to this metajob's first query (the Fig. 2 view).
    pub probe: Option<u32>,
}

impl Default for ScjgParams {
    fn default() -> Self {
        ScjgParams {
            mode: Mode::Reservations,
            metaschedulers: 1,
            delay: SimTime::ZERO,
            order: SiteOrder::Same,
            backoff: Backoff::default(),
            max_retries: 50,
            courtesy: None,
            seed: 0,
            probe: None,
        }
    }
}

/// What became of one local job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalOutcome {
    /// Start, or `None` when rejected (wider than its site).
    pub start: Option<SimTime>,
    pub end: SimTime,
    pub killed: bool,
}

impl LocalOutcome {
    /// Not yet started.
    pub const PENDING: LocalOutcome = LocalOutcome {
        start: None,
        end: SimTime::NEVER,
        killed: false,
    };

    /// True for a job that never ran (wider than its site, or blocked by the lock-down
    /// windows for good).
    pub fn rejected(&self) -> bool {
        self.start.is_none()
    }
}

/// What became of one metajob.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum MetaStatus {
    /// Not yet placed (only while the run is under way).
    #[default]
    Waiting,
    /// Its components ran from `start` (the common start) on `parts` `(site, units)`.
    Ran {
        start: SimTime,
        end: SimTime,
        parts: Vec<(u32, u32)>,
    },
    /// Given up after `max_retries` failed rounds.
    Failed,
    /// It cannot run anywhere: the reason.
    Rejected(String),
}

/// One failed reservation round, for a metajob's history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FailedRound {
    /// When the reservation failed.
    pub at: SimTime,
    /// The common start it aimed at.
    pub start: SimTime,
    /// The site that refused.
    pub site: u32,
    /// The back-off drawn before the next query.
    pub backoff: SimTime,
}

/// A metajob's run through the metascheduler.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct MetaOutcome {
    pub status: MetaStatus,
    /// Queries answered (one per site asked).
    pub queries: u32,
    /// Reservations made (and later kept or released).
    pub reservations: u32,
    /// Reservations released after a failed round.
    pub releases: u32,
    /// Failed rounds (each followed by a back-off and a new query).
    pub retries: u32,
    /// Time spent backing off, in all.
    pub backoff: SimTime,
    /// Time spent waiting for other metaschedulers' courtesy locks.
    pub lock_wait: SimTime,
    pub history: Vec<FailedRound>,
}

/// A run's result, checked by [`invariants::check`].
#[derive(Clone, Debug)]
pub struct ScjgOutput {
    /// Per site, per local job (in input order).
    pub local: Vec<Vec<LocalOutcome>>,
    pub meta: Vec<MetaOutcome>,
    /// Lock-down windows `(start, end)` that were in force (empty under reservations).
    pub windows: Vec<(SimTime, SimTime)>,
    /// Unit-time of reservations released to local jobs by components that ended before
    /// their wallclock limit (Σ units × (limit − runtime)), in unit-milliseconds.
    pub released_tail: u128,
    pub events: u64,
    /// The probed metajob's first query, if asked for.
    pub probe: Option<Probe>,
}

/// Closed ranges of start times, sorted (SCJG §3.1).
pub type RangeList = Vec<(SimTime, SimTime)>;

/// What every site answered to one metajob's query (SCJG Fig. 2): its range list; the
/// single-range answer is the first range, the yes/no answer whether `from` lies in one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    pub metajob: u32,
    /// When the query was made, and the first start it asked for.
    pub at: SimTime,
    pub from: SimTime,
    /// `(site, units asked, range list)` per site.
    pub sites: Vec<(u32, u32, RangeList)>,
}

/// The local workload of each site.
pub struct ScjgInput<'a> {
    pub sites: &'a [SiteSpec],
    /// `local[s]`: site `s`'s jobs, sorted by submit.
    pub local: &'a [&'a [Job]],
    /// Sorted by submit.
    pub metajobs: &'a [Metajob],
}
