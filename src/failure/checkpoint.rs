//! Checkpointing: how often a job should save its state, and what failures and checkpoints
//! cost it.
//!
//! A job checkpoints every τ seconds of work at a cost C; after a failure it restarts from
//! its last checkpoint at a cost R. With failures of mean time M between them (exponential),
//! the time a job wastes per unit of useful work (`wall time / work − 1`) is, to first order
//! (Young, CACM 17(9), 1974), `C/τ + τ/(2M)`, least at Young's interval `τ = √(2·C·M)`;
//! Daly (FGCS 22(3), 2006) refines it. [`simulate_waste`] draws the waste of one node's
//! jobs to check both.

use crate::rng::SimRng;

/// Young's checkpoint interval `√(2·C·M)` (C the checkpoint cost, M the mean time between
/// failures, both in seconds).
pub fn young_interval(cost_s: f64, mtbf_s: f64) -> f64 {
    libm::sqrt(2.0 * cost_s * mtbf_s)
}

/// Daly's higher-order interval (FGCS 2006, eq. 37): `√(2CM)·(1 + √(C/(2M))/3 + C/(18M)) − C`
/// while C < 2M, else M.
pub fn daly_interval(cost_s: f64, mtbf_s: f64) -> f64 {
    if cost_s >= 2.0 * mtbf_s {
        return mtbf_s;
    }
    let r = cost_s / (2.0 * mtbf_s);
    young_interval(cost_s, mtbf_s) * (1.0 + libm::sqrt(r) / 3.0 + r / 9.0) - cost_s
}

/// The first-order waste `C/τ + τ/(2M)` (Young 1974): wall time per unit of work, less one.
pub fn first_order_waste(interval_s: f64, cost_s: f64, mtbf_s: f64) -> f64 {
    cost_s / interval_s + interval_s / (2.0 * mtbf_s)
}

/// The exact expected waste for exponential failures with no restart cost and no
/// downtime: a segment of τ + C takes `(e^{(τ+C)/M} − 1)·M` on average, of which τ is work.
pub fn exact_waste(interval_s: f64, cost_s: f64, mtbf_s: f64) -> f64 {
    let expected = libm::expm1((interval_s + cost_s) / mtbf_s) * mtbf_s;
    expected / interval_s - 1.0
}

/// The waste of one node's checkpointing jobs, drawn: its mean over the jobs and the mean's
/// standard error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WasteEstimate {
    pub mean: f64,
    pub std_err: f64,
    pub jobs: usize,
    pub failures: u64,
}

/// What [`simulate_waste`] runs: `jobs` jobs of `segments` × τ seconds of work each, one
/// after the other on one node whose failures are exponential of mean `mtbf_s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WasteRun {
    pub interval_s: f64,
    pub cost_s: f64,
    pub restart_s: f64,
    pub mtbf_s: f64,
    pub segments: u32,
    pub jobs: usize,
    pub seed: u64,
}

/// Runs each job segment by segment: a segment needs τ of work and C to save it (and R
/// first after a failure); a failure before it is saved loses the time spent on it, and
/// the segment starts again. Exponential failures are memoryless, so each try draws its own
/// time to failure. A job's waste is `wall time / work − 1`.
pub fn simulate_waste(run: &WasteRun) -> WasteEstimate {
    let mut rng = SimRng::new(run.seed);
    let work = run.interval_s * f64::from(run.segments);
    let mut sum = 0.0;
    let mut sum_sq = 0.0;
    let mut failures = 0;
    for _ in 0..run.jobs {
        let mut wall = 0.0;
        for _ in 0..run.segments {
            let mut restart = 0.0;
            loop {
                let need = restart + run.interval_s + run.cost_s;
                let fails_at = rng.exponential(run.mtbf_s);
                if fails_at >= need {
                    wall += need;
                    break;
                }
                wall += fails_at;
                failures += 1;
                restart = run.restart_s;
            }
        }
        let waste = wall / work - 1.0;
        sum += waste;
        sum_sq += waste * waste;
    }
    let n = run.jobs.max(1) as f64;
    let mean = sum / n;
    let var = (sum_sq / n - mean * mean).max(0.0) * n / (n - 1.0).max(1.0);
    WasteEstimate {
        mean,
        std_err: libm::sqrt(var / n),
        jobs: run.jobs,
        failures,
    }
}
