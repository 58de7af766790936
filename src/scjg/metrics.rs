//! SCJG's measures (docs/scjg.md, "Metrics").
//!
//! - **utilization**: work done (units × run time of local jobs and metajob components)
//!   inside the *arrival window* [first submission, last submission] over capacity × its
//!   length; the window is the experiment's period (SCJG §4 ran 10 days and analyzed them),
//!   so work pushed past it by fragmentation counts as lost.
//! - **expansion factor**, Maui's: (queue time + run time) / wallclock limit (SCJG §4),
//!   beside the canonical 1 + queue time / wallclock limit; for local jobs, metajobs and all.
//! - **metajob queue time**: submission → the common start of its components.
//! - retries, back-off time, queries, reservations, releases per metajob; failed metajobs;
//!   the reservations released early by components (unit-seconds); the lock-down block's
//!   utilization over its windows.

use serde::{Deserialize, Serialize};

use super::{MetaStatus, Mode, ScjgInput, ScjgOutput, ScjgParams};
use crate::time::SimTime;

/// One run's numbers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScjgMetrics {
    pub utilization: f64,
    /// Maui's expansion factor over every job that ran.
    pub avg_expansion_factor: f64,
    pub local_expansion_factor: f64,
    pub metajob_expansion_factor: f64,
    /// The canonical 1 + queue / wallclock, over every job that ran.
    pub canonical_expansion_factor: f64,
    pub local_wait_s: f64,
    pub metajob_queue_s: f64,
    pub metajobs: u64,
    pub metajobs_ran: u64,
    pub metajobs_failed: u64,
    pub metajobs_rejected: u64,
    pub local_jobs: u64,
    pub local_rejected: u64,
    /// Failed reservation rounds per metajob (mean), and in all.
    pub retries: f64,
    pub retries_total: u64,
    pub max_retries_seen: u64,
    pub backoff_s: f64,
    pub queries: f64,
    pub releases_total: u64,
    pub lock_wait_s: f64,
    /// Reservation time released early by components, in unit-hours.
    pub released_tail_unit_h: f64,
    /// Utilization of the lock-down block over its windows inside the arrival window
    /// (lock-down only).
    pub lockdown_utilization: Option<f64>,
}

#[derive(Default)]
struct Sums {
    xf: f64,
    canonical: f64,
    wait: f64,
    n: u64,
}

impl Sums {
    fn add(&mut self, wait: SimTime, run: SimTime, wallclock: SimTime) {
        let w = wallclock.as_secs_f64().max(1e-3);
        self.xf += (wait.as_secs_f64() + run.as_secs_f64()) / w;
        self.canonical += 1.0 + wait.as_secs_f64() / w;
        self.wait += wait.as_secs_f64();
        self.n += 1;
    }
    fn mean(x: f64, n: u64) -> f64 {
        if n == 0 {
            0.0
        } else {
            x / n as f64
        }
    }
}

/// Work of `[a, b)` × `units` inside `[lo, hi)`, in unit-milliseconds.
fn clipped(a: SimTime, b: SimTime, units: u32, lo: SimTime, hi: SimTime) -> f64 {
    let len = (b.min(hi).0 - a.max(lo).0).max(0);
    len as f64 * units as f64
}

pub fn compute(input: &ScjgInput, params: &ScjgParams, out: &ScjgOutput) -> ScjgMetrics {
    let submits = input
        .local
        .iter()
        .flat_map(|j| j.iter().map(|j| j.submit))
        .chain(input.metajobs.iter().map(|m| m.submit));
    let lo = submits.clone().min().unwrap_or(SimTime::ZERO);
    let hi = submits.max().unwrap_or(SimTime::ZERO).max(lo + SimTime(1));
    let capacity: u64 = input.sites.iter().map(|s| s.units as u64).sum();
    let mut work = 0.0;
    let (mut local, mut meta) = (Sums::default(), Sums::default());
    let mut m = ScjgMetrics::default();
    for (s, jobs) in input.local.iter().enumerate() {
        for (job, o) in jobs.iter().zip(&out.local[s]) {
            m.local_jobs += 1;
            let Some(start) = o.start else {
                m.local_rejected += 1;
                continue;
            };
            work += clipped(start, o.end, job.procs, lo, hi);
            local.add(start - job.submit, o.end - start, job.estimate);
        }
    }
    let mut block_work = 0.0;
    for (mj, o) in input.metajobs.iter().zip(&out.meta) {
        m.metajobs += 1;
        m.retries_total += o.retries as u64;
        m.max_retries_seen = m.max_retries_seen.max(o.retries as u64);
        m.backoff_s += o.backoff.as_secs_f64();
        m.lock_wait_s += o.lock_wait.as_secs_f64();
        m.queries += o.queries as f64;
        m.releases_total += o.releases as u64;
        match &o.status {
            MetaStatus::Ran { start, end, parts } => {
                m.metajobs_ran += 1;
                for &(_, units) in parts {
                    work += clipped(*start, *end, units, lo, hi);
                    block_work += clipped(*start, *end, units, lo, hi);
                }
                meta.add(*start - mj.submit, *end - *start, mj.wallclock);
            }
            MetaStatus::Failed => m.metajobs_failed += 1,
            MetaStatus::Rejected(_) => m.metajobs_rejected += 1,
            MetaStatus::Waiting => {}
        }
    }
    m.utilization = work / (capacity as f64 * (hi - lo).0 as f64);
    m.local_expansion_factor = Sums::mean(local.xf, local.n);
    m.metajob_expansion_factor = Sums::mean(meta.xf, meta.n);
    m.avg_expansion_factor = Sums::mean(local.xf + meta.xf, local.n + meta.n);
    m.canonical_expansion_factor = Sums::mean(local.canonical + meta.canonical, local.n + meta.n);
    m.local_wait_s = Sums::mean(local.wait, local.n);
    m.metajob_queue_s = Sums::mean(meta.wait, meta.n);
    let n = m.metajobs.max(1) as f64;
    m.retries = m.retries_total as f64 / n;
    m.backoff_s /= n;
    m.lock_wait_s /= n;
    m.queries /= n;
    m.released_tail_unit_h = out.released_tail as f64 / 3.6e6;
    if let Mode::Lockdown(l) = params.mode {
        let window_time: f64 = out
            .windows
            .iter()
            .map(|&(a, b)| clipped(a, b, 1, lo, hi))
            .sum();
        m.lockdown_utilization = Some(block_work / (window_time * l.units as f64).max(1.0));
    }
    m
}
