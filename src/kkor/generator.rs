//! KKOR §4.1's synthetic workload, and due dates for real (SWF) jobs.
//!
//! n jobs (500) from N organizations, each a Poisson stream of rate λ_k (jobs per time unit);
//! the streams are drawn as one Poisson stream of rate Σλ whose every arrival belongs to
//! organization k with probability λ_k/Σλ (the same process). Per job:
//! - q = 1 with probability 0.25, otherwise uniform on the integers [2, 64], **capped at the
//!   processors of the cluster it is born on** (the paper's 32-processor cluster could not
//!   run a 64-wide job locally, and `local` must be able to run every job);
//! - p ~ Normal(20, 20) **truncated at ≥ 1 by redrawing** (rejection: the conditional
//!   distribution, mean ≈ 26.1). Clamping instead would put 17 % of all jobs at exactly 1
//!   time unit, an atom the paper does not mention; redrawing keeps the bell's shape;
//! - d = r + d' with d' uniform on [p·s_S, 180], s_S the slowest cluster's inverse speed;
//!   when p·s_S ≥ 180 (p > 180, about 1 job in 10¹⁵) d' = p·s_S: no slack.
//!
//! Lengths, releases and due dates are rounded to the tick. Normal deviates come from
//! Box–Muller through `libm`, so a seed gives the same jobs natively and in wasm.

use serde::{Deserialize, Serialize};

use super::{units_to_ticks, Cluster, KkorJob, TICKS_PER_UNIT};
use crate::model::Job;
use crate::rng::SimRng;

/// The generator's parameters (times in time units).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GeneratorParams {
    /// n: jobs in all.
    pub jobs: u32,
    /// λ_k per organization: jobs per time unit.
    pub rates: Vec<f64>,
    /// P(q = 1).
    pub serial_prob: f64,
    /// Parallel jobs: q uniform on [min_procs, max_procs] (capped at the birth cluster).
    pub min_procs: u32,
    pub max_procs: u32,
    pub length_mean: f64,
    pub length_sd: f64,
    /// The upper end of the due-date slack d' (the lower is p·s_slowest).
    pub due_max: f64,
}

impl GeneratorParams {
    /// The paper's settings with the given rates.
    pub fn paper(rates: Vec<f64>) -> GeneratorParams {
        GeneratorParams {
            jobs: 500,
            rates,
            serial_prob: 0.25,
            min_procs: 2,
            max_procs: 64,
            length_mean: 20.0,
            length_sd: 20.0,
            due_max: 180.0,
        }
    }

    fn validate(&self, clusters: &[Cluster]) -> Result<(), String> {
        if self.rates.len() != clusters.len() {
            return Err(format!(
                "{} arrival rates for {} organizations",
                self.rates.len(),
                clusters.len()
            ));
        }
        if self
            .rates
            .iter()
            .any(|r| !(r.is_finite() && *r >= 0.0 && *r <= 1e6))
            || self.rates.iter().sum::<f64>() <= 0.0
        {
            return Err("arrival rates must be in [0, 10⁶] and not all 0".into());
        }
        if self.jobs == 0 || self.jobs > 1_000_000 {
            return Err(format!("jobs must be 1..1,000,000 (got {})", self.jobs));
        }
        if !(0.0..=1.0).contains(&self.serial_prob)
            || self.min_procs == 0
            || self.min_procs > self.max_procs
        {
            return Err("need 0 ≤ P(serial) ≤ 1 and 1 ≤ min_procs ≤ max_procs".into());
        }
        let ok = |x: f64| x.is_finite() && (0.0..=1e6).contains(&x);
        if !(ok(self.length_mean) && ok(self.length_sd) && ok(self.due_max)) {
            return Err("length mean, deviation and due-date bound must be in [0, 10⁶]".into());
        }
        Ok(())
    }
}

/// One standard normal deviate (Box–Muller, one of the pair).
fn std_normal(rng: &mut SimRng) -> f64 {
    let u = rng.uniform_open0();
    let v = rng.uniform();
    libm::sqrt(-2.0 * libm::log(u)) * libm::cos(2.0 * core::f64::consts::PI * v)
}

/// p in time units: Normal(mean, sd) redrawn until ≥ 1 (after 1000 misses, 1).
fn length(rng: &mut SimRng, mean: f64, sd: f64) -> f64 {
    for _ in 0..1000 {
        let p = mean + sd * std_normal(rng);
        if p >= 1.0 {
            return p;
        }
    }
    1.0
}

/// Releases, lengths and due dates stay below this many time units.
const MAX_UNITS: f64 = 1e12;

/// The paper's jobs for `clusters` (each job's `org` is the cluster it is born on).
pub fn generate(
    clusters: &[Cluster],
    params: &GeneratorParams,
    seed: u64,
) -> Result<Vec<KkorJob>, String> {
    params.validate(clusters)?;
    let mut rng = SimRng::new(seed);
    let total: f64 = params.rates.iter().sum();
    let slowest = clusters.iter().map(|c| c.inv_speed).fold(0.0, f64::max);
    let mut now = 0.0f64;
    let mut jobs = Vec::with_capacity(params.jobs as usize);
    for id in 0..i64::from(params.jobs) {
        now += rng.exponential(1.0 / total);
        if now > MAX_UNITS {
            return Err(format!(
                "arrivals pass {MAX_UNITS:e} time units: the arrival rates are too small"
            ));
        }
        let mut x = rng.uniform() * total;
        let mut org = params.rates.len() - 1;
        for (k, &r) in params.rates.iter().enumerate() {
            if x < r {
                org = k;
                break;
            }
            x -= r;
        }
        let procs = if rng.uniform() < params.serial_prob {
            1
        } else {
            let q = rng.range_u64(u64::from(params.min_procs), u64::from(params.max_procs));
            (q as u32).min(clusters[org].procs)
        };
        let p = length(&mut rng, params.length_mean, params.length_sd);
        let lo = p * slowest;
        let slack = if lo >= params.due_max {
            lo
        } else {
            lo + rng.uniform() * (params.due_max - lo)
        };
        let release = units_to_ticks(now);
        let length = units_to_ticks(p).max(1);
        jobs.push(KkorJob {
            id,
            org,
            procs,
            length,
            release,
            due: release + units_to_ticks(slack).max(length),
        });
    }
    Ok(jobs)
}

/// What [`from_swf_jobs`] kept and left out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SwfConversion {
    pub jobs: Vec<KkorJob>,
    /// Jobs wider than the cluster of their organization (cannot run locally).
    pub skipped_too_wide: u64,
}

/// KKOR jobs from SWF jobs: organization = the job's `home` site (which must be one of the
/// clusters), q = its processors, p = its run time and r = its submit time, both divided by
/// `time_unit_s` seconds per time unit; due date by the slack-factor rule d = r + slack·p
/// (slack ≥ 1). A zero run time becomes one tick.
pub fn from_swf_jobs(
    jobs: &[Job],
    clusters: &[Cluster],
    slack: f64,
    time_unit_s: f64,
) -> Result<SwfConversion, String> {
    if !(slack.is_finite() && (1.0..=1e6).contains(&slack)) {
        return Err(format!(
            "the slack factor must be in [1, 10⁶] (got {slack})"
        ));
    }
    if !(time_unit_s.is_finite() && time_unit_s > 0.0 && time_unit_s <= 1e9) {
        return Err(format!(
            "a time unit must be a positive number of seconds (got {time_unit_s})"
        ));
    }
    // Job times are milliseconds; one time unit is TICKS_PER_UNIT ticks.
    let scale = TICKS_PER_UNIT as f64 / (time_unit_s * 1000.0);
    let ticks = |ms: i64| libm::round(ms as f64 * scale) as i64;
    let mut out = SwfConversion::default();
    for j in jobs {
        let org = j.home as usize;
        let Some(c) = clusters.get(org) else {
            return Err(format!(
                "job {} comes from site {}, but there are {} clusters",
                j.id,
                j.home,
                clusters.len()
            ));
        };
        if j.procs == 0 || j.procs > c.procs {
            out.skipped_too_wide += 1;
            continue;
        }
        let (length, release) = (ticks(j.runtime.0).max(1), ticks(j.submit.0).max(0));
        let due_units = (release as f64 + slack * length as f64) / TICKS_PER_UNIT as f64;
        if due_units.is_nan() || due_units > MAX_UNITS {
            return Err(format!(
                "job {}: its due date passes {MAX_UNITS:e} time units at {time_unit_s} s per unit",
                j.id
            ));
        }
        out.jobs.push(KkorJob {
            id: j.id,
            org,
            procs: j.procs,
            length,
            release,
            due: release + libm::round(slack * length as f64) as i64,
        });
    }
    Ok(out)
}
