//! KKOR (Krystek, Kurowski, Oleksiak, Rzadca — GSSIM): centralized vs decentralized grid
//! scheduling with cooperation coefficients, as a self-contained model.
//!
//! Organizations O_1..O_N each own one cluster of m_k identical processors with inverse
//! speed s_k and submit their own jobs; a job J = (q processors, length p, release r, due
//! date d) runs on exactly one cluster l for p·s_l (KKOR §2.1). Three algorithms share that
//! model:
//! - [`centralized`]: one grid scheduler, batches closed at S jobs or L time, EDD order, greedy
//!   list scheduling over the free slots every cluster reports (§2.2);
//! - [`decentralized`]: autonomous clusters (conservative backfilling, local EDD batches at
//!   t_max) that offer jobs about to miss their due date to the others, under the cooperation
//!   coefficient rules (§2.3); `local` is the same without migration.
//!
//! Time is an integer count of ticks, [`TICKS_PER_UNIT`] per paper "time unit"; a schedule is
//! a plan of exact lengths (no estimates), so a job's planned start is its start. Each
//! cluster's plan is a [`crate::policy::Profile`]: its steps are the free slots
//! (t', t'', m) of §2.2 and its `earliest_start` is the "earliest strip" of §2.3.2.
//! Every run ends with [`invariants::check`] (capacity, each job once, no start before
//! release, accepted surfaces within L_k); a violation is an `Err`, never a panic.

pub mod centralized;
pub mod decentralized;
mod error;
pub mod generator;
pub mod invariants;
pub mod metrics;
pub mod presets;

pub use error::KkorError;

use serde::{Deserialize, Serialize};

use crate::time::SimTime;

/// Ticks per paper "time unit": lengths, releases and due dates are integers of this.
pub const TICKS_PER_UNIT: i64 = 1000;

/// Time units (f64) to ticks, rounded to the nearest tick.
pub fn units_to_ticks(units: f64) -> i64 {
    libm::round(units * TICKS_PER_UNIT as f64) as i64
}

/// Ticks to time units, for display and metrics.
pub fn ticks_to_units(ticks: i64) -> f64 {
    ticks as f64 / TICKS_PER_UNIT as f64
}

/// One organization's cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cluster {
    pub name: String,
    /// m_k: identical processors.
    pub procs: u32,
    /// s_k: the inverse of the processing speed (1 = reference speed); a job of length p runs
    /// p·s_k here.
    pub inv_speed: f64,
}

impl Cluster {
    pub fn new(name: &str, procs: u32, inv_speed: f64) -> Cluster {
        Cluster {
            name: name.to_string(),
            procs,
            inv_speed,
        }
    }

    /// p·s_k in ticks (at least one tick).
    pub fn duration(&self, length: i64) -> i64 {
        let d = if self.inv_speed == 1.0 {
            length
        } else {
            libm::round(length as f64 * self.inv_speed) as i64
        };
        d.max(1)
    }
}

/// The paper's platform: 32, 64 and 128 processors of equal speed (§4.1).
pub fn paper_clusters() -> Vec<Cluster> {
    vec![
        Cluster::new("O1", 32, 1.0),
        Cluster::new("O2", 64, 1.0),
        Cluster::new("O3", 128, 1.0),
    ]
}

/// One job of the KKOR model; times in ticks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KkorJob {
    pub id: i64,
    /// The organization that produced it (index into the clusters).
    pub org: usize,
    /// q: processors, all on one cluster.
    pub procs: u32,
    /// p: length at inverse speed 1, in ticks (≥ 1).
    pub length: i64,
    /// r: release date, in ticks.
    pub release: i64,
    /// d: due date, in ticks.
    pub due: i64,
}

/// Where and when one job ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    pub cluster: usize,
    pub start: i64,
    pub end: i64,
    /// Ran outside the organization that produced it.
    pub migrated: bool,
    /// The batch that placed it: the grid scheduler's batch (centralized) or the executing
    /// cluster's local batch in force when it was placed (decentralized).
    pub batch: u32,
}

/// A local batch of one cluster in the decentralized algorithm: computed at `t0`, its schedule
/// ended at `t1`; `limit` = L_k = c_k·(t1 − t0)·m_k; `accepted`: foreign surface accepted
/// while it was the current batch (processor-ticks).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchWindow {
    pub cluster: usize,
    pub batch: u32,
    pub t0: i64,
    pub t1: i64,
    pub limit: i64,
    pub accepted: i64,
    pub exported: i64,
}

/// Migration requests of a decentralized run: offers (one per job and attempt) and each
/// receiver's answer, by the rule that refused it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offers {
    /// Times a job was offered to the other clusters.
    pub offered: u64,
    /// Offers that moved the job.
    pub migrated: u64,
    /// Offers every receiver refused because the sender had exported more than its L_k
    /// (rule 1; counted once per offer).
    pub refused_sender_limit: u64,
    /// Answers refused because the receiver's accepted surface would pass its L_k (rule 2).
    pub refused_receiver_limit: u64,
    /// Answers refused because the strip grows the receiver's makespan too much (rule 3).
    pub refused_makespan: u64,
    /// Positive answers whose strip ends after the job's due date (not taken).
    pub too_late: u64,
}

/// The algorithm a run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KkorPolicy {
    Centralized,
    Decentralized,
    Local,
}

impl KkorPolicy {
    pub const ALL: [KkorPolicy; 3] = [
        KkorPolicy::Centralized,
        KkorPolicy::Decentralized,
        KkorPolicy::Local,
    ];

    pub fn name(self) -> &'static str {
        match self {
            KkorPolicy::Centralized => "centralized",
            KkorPolicy::Decentralized => "decentralized",
            KkorPolicy::Local => "local",
        }
    }

    pub fn parse(s: &str) -> Result<KkorPolicy, String> {
        KkorPolicy::ALL
            .into_iter()
            .find(|p| p.name() == s.trim())
            .ok_or_else(|| {
                format!("unknown KKOR policy '{s}'; expected centralized, decentralized or local")
            })
    }
}

/// How a receiver reads its obligation "accept foreign jobs of total surface of at most L_k"
/// (KKOR §2.3.2 states it twice, slightly differently).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReceiverLimit {
    /// Refuse a job that would take the accepted surface over L_k: the batch's accepted
    /// surface never exceeds L_k (the default; the invariant checks it).
    #[default]
    Within,
    /// Refuse only once the accepted surface has reached L_k ("when O_k has already accepted
    /// … at least L_k"): the last accepted job may pass L_k (the invariant checks that every
    /// batch's surface minus its largest accepted job stays below L_k).
    UntilReached,
}

/// The algorithms' parameters (times in ticks). The paper gives no values for S, L, the
/// latency or c_k in its load experiment; the defaults (S = 20 jobs, L = 10 time units,
/// latency 0, c_k = 0.25 — Fig. 4's `distr1`) are ours.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KkorParams {
    /// S: the grid scheduler closes a batch at this many jobs (centralized).
    pub batch_jobs: u32,
    /// L: ... or when this long has passed since the batch's first release (centralized).
    pub batch_length: i64,
    /// c_k per organization (decentralized); empty = 0.25 for everyone.
    pub coefficients: Vec<f64>,
    /// One message's latency (decentralized): an offered strip starts at least 3 latencies
    /// after the request (request, answer, the job's transfer).
    pub latency: i64,
    /// Leave the first and last 10 % of jobs (by release) out of the metrics (§4.1).
    pub trim: bool,
    /// The reading of the receiver's obligation (decentralized).
    #[serde(default)]
    pub receiver_limit: ReceiverLimit,
}

impl Default for KkorParams {
    fn default() -> Self {
        KkorParams {
            batch_jobs: 20,
            batch_length: 10 * TICKS_PER_UNIT,
            coefficients: vec![],
            latency: 0,
            trim: true,
            receiver_limit: ReceiverLimit::Within,
        }
    }
}

impl KkorParams {
    /// c_k for organization `k`.
    pub fn coefficient(&self, k: usize) -> f64 {
        if self.coefficients.is_empty() {
            0.25
        } else {
            self.coefficients.get(k).copied().unwrap_or(0.0)
        }
    }
}

/// What one run produced: the schedule, its batches and migrations, and its metrics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KkorRun {
    pub policy: KkorPolicy,
    /// Per job, in input order.
    pub placements: Vec<Placement>,
    /// Decentralized/local: every local batch of every cluster. Centralized: one window per
    /// grid batch (cluster = 0, limit 0): its close time `t0` and last end `t1`.
    pub batches: Vec<BatchWindow>,
    /// `migrations[from][to]`: jobs of organization `from` run on cluster `to` (diagonal 0).
    pub migrations: Vec<Vec<u32>>,
    pub offers: Offers,
    pub metrics: metrics::KkorMetrics,
}

/// Checks the inputs every algorithm relies on; the message names the first bad value.
pub fn validate(
    clusters: &[Cluster],
    jobs: &[KkorJob],
    params: &KkorParams,
) -> Result<(), KkorError> {
    if clusters.is_empty() || clusters.len() > 64 {
        return Err(KkorError::invalid(
            "clusters",
            format!("KKOR needs 1..64 clusters (got {})", clusters.len()),
        ));
    }
    for (k, c) in clusters.iter().enumerate() {
        if c.procs == 0 || c.procs > 1_000_000 {
            return Err(KkorError::invalid(
                "clusters",
                format!("cluster {k} ({}) needs 1..1,000,000 processors", c.name),
            ));
        }
        if !(c.inv_speed.is_finite() && c.inv_speed > 0.0 && c.inv_speed <= 1000.0) {
            return Err(KkorError::invalid(
                "clusters",
                format!(
                    "cluster {k} ({}): inverse speed must be in (0, 1000]",
                    c.name
                ),
            ));
        }
    }
    if jobs.is_empty() {
        return Err(KkorError::invalid("jobs", "KKOR needs at least one job"));
    }
    for (i, j) in jobs.iter().enumerate() {
        let bad = |what: &str| {
            Err(KkorError::invalid(
                "jobs",
                format!("job {i} (id {}): {what}", j.id),
            ))
        };
        if j.org >= clusters.len() {
            return bad("its organization is not one of the clusters");
        }
        if j.procs == 0 || j.procs > clusters[j.org].procs {
            return bad("needs 1 .. its own cluster's processors");
        }
        if j.length < 1 || j.length > MAX_TICKS / 4 {
            return bad("length out of range");
        }
        if j.release < 0 || j.release > MAX_TICKS / 4 || j.due < j.release || j.due > MAX_TICKS / 2
        {
            return bad("release must be ≥ 0 and the due date at or after it");
        }
    }
    bound_schedule(clusters, jobs)?;
    for (k, &c) in params.coefficients.iter().enumerate() {
        if !(c.is_finite() && (0.0..=100.0).contains(&c)) {
            return Err(KkorError::invalid(
                "coefficients",
                format!("cooperation coefficient c_{} must be in [0, 100]", k + 1),
            ));
        }
    }
    if params.batch_jobs == 0 {
        return Err(KkorError::invalid(
            "batch_jobs",
            "the batch size S must be at least 1",
        ));
    }
    if params.batch_length < 0 || params.latency < 0 || params.latency > MAX_TICKS / 16 {
        return Err(KkorError::invalid(
            "batch_length",
            "the batch length L and the latency must be ≥ 0",
        ));
    }
    Ok(())
}

/// Time bound on single values (ticks); [`bound_schedule`] bounds their sums.
const MAX_TICKS: i64 = 1 << 52;

/// No schedule can pass 2⁶² ticks, nor a sum of surfaces 2⁶² processor-ticks: every job
/// starts by the latest release plus all the work before it, at the slowest speed. Refusing
/// larger workloads keeps every sum below in i64 without overflow checks.
fn bound_schedule(clusters: &[Cluster], jobs: &[KkorJob]) -> Result<(), KkorError> {
    let slowest = clusters.iter().map(|c| c.inv_speed).fold(1.0, f64::max);
    let latest = jobs.iter().map(|j| j.release).max().unwrap_or(0) as f64;
    let span: f64 = jobs.iter().map(|j| j.length as f64 * slowest).sum();
    let surface: f64 = jobs
        .iter()
        .map(|j| j.length as f64 * slowest * f64::from(j.procs))
        .sum();
    let limit = (1u64 << 62) as f64;
    if latest + span + jobs.len() as f64 > limit || surface > limit {
        return Err(KkorError::invalid(
            "jobs",
            "this workload's schedule could pass 2⁶² ticks (or its work 2⁶² processor-ticks): use fewer or shorter jobs",
        ));
    }
    Ok(())
}

/// Runs one algorithm on `jobs` and checks the invariants.
pub fn run(
    clusters: &[Cluster],
    jobs: &[KkorJob],
    policy: KkorPolicy,
    params: &KkorParams,
) -> Result<KkorRun, KkorError> {
    if jobs.len() > 10_000_000 {
        return Err(KkorError::invalid(
            "jobs",
            "KKOR runs at most 10,000,000 jobs",
        ));
    }
    validate(clusters, jobs, params)?;
    // The schedulers and the invariant check say in a sentence what went wrong.
    let (placements, batches, offers) = match policy {
        KkorPolicy::Centralized => {
            let (p, b) = centralized::schedule(clusters, jobs, params).map_err(KkorError::Run)?;
            (p, b, Offers::default())
        }
        KkorPolicy::Decentralized => {
            decentralized::schedule(clusters, jobs, params, true).map_err(KkorError::Run)?
        }
        KkorPolicy::Local => {
            decentralized::schedule(clusters, jobs, params, false).map_err(KkorError::Run)?
        }
    };
    let limits = (policy == KkorPolicy::Decentralized).then_some(params.receiver_limit);
    invariants::check(clusters, jobs, &placements, &batches, limits).map_err(KkorError::Run)?;
    let n = clusters.len();
    let mut migrations = vec![vec![0u32; n]; n];
    for (j, p) in jobs.iter().zip(&placements) {
        if p.migrated {
            migrations[j.org][p.cluster] += 1;
        }
    }
    let metrics = metrics::compute(clusters, jobs, &placements, &batches, params.trim);
    Ok(KkorRun {
        policy,
        placements,
        batches,
        migrations,
        offers,
        metrics,
    })
}

/// Job indices in EDD order: due date, then release, then input order.
pub(crate) fn edd_sort(jobs: &[KkorJob], idx: &mut [usize]) {
    idx.sort_by_key(|&i| (jobs[i].due, jobs[i].release, i));
}

/// Job indices in release order (ties in input order).
pub(crate) fn release_order(jobs: &[KkorJob]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| (jobs[i].release, i));
    order
}

pub(crate) fn t(ticks: i64) -> SimTime {
    SimTime(ticks)
}

/// The placements of a run under construction: each job may be placed once.
pub(crate) struct Plan {
    placed: Vec<Option<Placement>>,
}

impl Plan {
    pub(crate) fn new(n: usize) -> Plan {
        Plan {
            placed: vec![None; n],
        }
    }

    pub(crate) fn place(&mut self, job: usize, p: Placement) -> Result<(), String> {
        match self.placed.get_mut(job) {
            Some(slot @ None) => {
                *slot = Some(p);
                Ok(())
            }
            Some(Some(_)) => Err(format!("invariant: job {job} placed twice")),
            None => Err(format!("invariant: job {job} does not exist")),
        }
    }

    /// Every job's placement; an unplaced job is an invariant violation.
    pub(crate) fn finish(self) -> Result<Vec<Placement>, String> {
        self.placed
            .into_iter()
            .enumerate()
            .map(|(i, p)| p.ok_or_else(|| format!("invariant: job {i} was never scheduled")))
            .collect()
    }
}
