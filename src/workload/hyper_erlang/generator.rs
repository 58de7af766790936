//! The hyper-Erlang generator (SOB §3.1): one arrival stream per size class, each drawn from
//! its own random stream, merged into a workload; and how a job's processor count is drawn
//! inside its class, which the paper leaves open.

use serde::{Deserialize, Serialize};

use super::super::Workload;
use super::dist::SizeClass;
use super::sob_tables::sob_classes;
use crate::model::Job;
use crate::rng::SimRng;
use crate::time::SimTime;

/// Two weeks, SOB's synthetic-workload period.
pub const TWO_WEEKS_S: f64 = 1_209_600.0;

/// A generated workload may hold at most this many jobs.
pub const MAX_JOBS: u64 = 5_000_000;

/// How the processor count of a job is drawn inside its class (SOB does not say).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProcsInClass {
    /// Uniform over nmin..=nmax.
    #[default]
    Uniform,
    /// floor(x) with x log-uniform on [nmin, nmax + 1): small counts more likely.
    LogUniform,
    /// Uniform among the powers of two inside [nmin, nmax]; when the class holds none, the
    /// power of two nearest to a uniform draw (ties go to the lower one), which lies outside
    /// the class: such jobs are counted in the report.
    PowersOfTwo,
}

impl ProcsInClass {
    /// Draws a count for the class `lo..=hi` (1 ≤ lo ≤ hi).
    pub(super) fn draw(self, rng: &mut SimRng, lo: u32, hi: u32) -> u32 {
        match self {
            ProcsInClass::Uniform => rng.range_u64(lo as u64, hi as u64) as u32,
            ProcsInClass::LogUniform => {
                let a = libm::log(lo as f64);
                let b = libm::log(hi as f64 + 1.0);
                let x = libm::exp(a + rng.uniform() * (b - a));
                (libm::floor(x) as u32).clamp(lo, hi)
            }
            ProcsInClass::PowersOfTwo => {
                let first = lo.checked_next_power_of_two().unwrap_or(u32::MAX);
                if first <= hi {
                    // Powers 2^i with first ≤ 2^i ≤ hi.
                    let i0 = first.trailing_zeros();
                    let i1 = 31 - hi.leading_zeros();
                    1u32 << rng.range_u64(i0 as u64, i1 as u64)
                } else {
                    let x = rng.range_u64(lo as u64, hi as u64);
                    let below = 1u64 << (63 - x.leading_zeros());
                    let above = below * 2;
                    let p = if x - below <= above - x { below } else { above };
                    p.min(u32::MAX as u64 / 2 + 1) as u32
                }
            }
        }
    }
}

fn is_one(x: &f64) -> bool {
    *x == 1.0
}

/// Parameters of the hyper-Erlang generator. Defaults: SOB's M1 model over two weeks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HyperErlangWorkload {
    /// Preset name for [`sob_classes`] ("M1".."M6"); ignored when `classes` is given.
    pub machine: String,
    /// Explicit classes (e.g. from [`fit_classes`](super::fit_classes)); override `machine`.
    pub classes: Option<Vec<SizeClass>>,
    /// Arrivals stop at this time, in seconds (default two weeks).
    pub horizon_s: f64,
    /// Multiplies every arrival rate (divides every inter-arrival sample).
    pub arrival_rate_factor: f64,
    /// Multiplies every run time.
    pub service_time_factor: f64,
    /// Multiplies every processor count drawn (rounded to the nearest, at least 1, at most
    /// `max_procs`): the width knob, which changes the offered load without changing the
    /// job count or the run times (SOB Table 6's heavy and light workloads have about the
    /// same jobs and mean run time per machine, and differ in utilization). Left out of the
    /// JSON at 1, the default.
    #[serde(skip_serializing_if = "is_one")]
    pub procs_factor: f64,
    pub procs_in_class: ProcsInClass,
    /// Estimates are the runtime times this factor (≥ 1; 1 = exact).
    pub estimate_factor: f64,
    /// Clamp class ranges to this machine size (SOB M1: 192 × 16 = 3072 CPUs).
    pub max_procs: Option<u32>,
}

impl Default for HyperErlangWorkload {
    fn default() -> Self {
        HyperErlangWorkload {
            machine: "M1".into(),
            classes: None,
            horizon_s: TWO_WEEKS_S,
            arrival_rate_factor: 1.0,
            service_time_factor: 1.0,
            procs_factor: 1.0,
            procs_in_class: ProcsInClass::Uniform,
            estimate_factor: 1.0,
            max_procs: None,
        }
    }
}

impl HyperErlangWorkload {
    /// The model for a SOB preset with the other parameters at their defaults.
    pub fn preset(machine: &str) -> HyperErlangWorkload {
        HyperErlangWorkload {
            machine: machine.into(),
            ..Default::default()
        }
    }

    /// The classes this generator draws from (the explicit ones, else the preset).
    pub fn resolved_classes(&self) -> Result<Vec<SizeClass>, String> {
        match &self.classes {
            Some(c) => Ok(c.clone()),
            None => sob_classes(&self.machine).ok_or_else(|| {
                format!(
                    "unknown hyper-Erlang preset {:?} (expected M1..M6)",
                    self.machine
                )
            }),
        }
    }

    /// Expected number of jobs: Σ horizon / mean inter-arrival × arrival factor.
    pub fn expected_jobs(&self) -> Result<f64, String> {
        Ok(self
            .resolved_classes()?
            .iter()
            .map(|c| self.horizon_s * self.arrival_rate_factor / c.interarrival.mean())
            .sum())
    }

    /// Expected exponential draws: each job costs its class's inter-arrival order plus its
    /// service order (an Erlang of order n is n draws), so order 1000 × 5 M jobs is 10¹⁰
    /// draws, over a minute. The scenario layer holds it to [`crate::limits::Limits`].
    pub fn expected_draws(&self) -> Result<f64, String> {
        Ok(self
            .resolved_classes()?
            .iter()
            .map(|c| {
                let jobs = self.horizon_s * self.arrival_rate_factor / c.interarrival.mean();
                jobs * f64::from(c.interarrival.n + c.service.n)
            })
            .sum())
    }

    pub fn validate(&self) -> Result<(), String> {
        let pos = |v: f64| v.is_finite() && v > 0.0;
        if !pos(self.horizon_s) {
            return Err(format!(
                "horizon_s must be a positive number of seconds (got {})",
                self.horizon_s
            ));
        }
        if !pos(self.arrival_rate_factor) || !pos(self.service_time_factor) {
            return Err(format!(
                "arrival_rate_factor and service_time_factor must be positive (got {} and {})",
                self.arrival_rate_factor, self.service_time_factor
            ));
        }
        if !(pos(self.procs_factor) && self.procs_factor <= 1e6) {
            return Err(format!(
                "procs_factor must be a positive number up to 1,000,000 (got {})",
                self.procs_factor
            ));
        }
        if !(self.estimate_factor.is_finite() && self.estimate_factor >= 1.0) {
            return Err(format!(
                "estimate_factor must be at least 1 (got {})",
                self.estimate_factor
            ));
        }
        if self.max_procs == Some(0) {
            return Err("max_procs must be at least 1".into());
        }
        let classes = self.resolved_classes()?;
        if classes.is_empty() {
            return Err("at least one size class is needed".into());
        }
        for c in &classes {
            c.validate()?;
        }
        let expected = self.expected_jobs()?;
        if expected.is_nan() || expected > MAX_JOBS as f64 {
            return Err(format!(
                "these parameters give about {expected:.0} jobs; at most {MAX_JOBS} are allowed"
            ));
        }
        Ok(())
    }

    /// Draws the workload; the same seed gives the same jobs on every platform.
    pub fn generate(&self, seed: u64) -> Result<Workload, String> {
        self.validate()?;
        let classes = self.resolved_classes()?;
        let horizon = self.horizon_s;
        // (submit s, class, sequence, runtime s, procs)
        let mut drawn: Vec<(i64, usize, u64, i64, u32)> = Vec::new();
        let mut runtime_raised = 0u64;
        let mut outside_class = 0u64;
        let mut warnings = Vec::new();
        for (ci, class) in classes.iter().enumerate() {
            let mut rng = SimRng::new(class_seed(seed, ci));
            let (mut lo, mut hi) = (class.nmin, class.nmax);
            let mut clamped = false;
            if let Some(m) = self.max_procs {
                if hi > m {
                    hi = m;
                    lo = lo.min(m);
                    clamped = true;
                }
            }
            let mut t = 0.0f64;
            let mut seq = 0u64;
            loop {
                t += class.interarrival.sample(&mut rng) / self.arrival_rate_factor;
                if t >= horizon {
                    break;
                }
                let raw = class.service.sample(&mut rng) * self.service_time_factor;
                let runtime_s = libm::round(raw);
                let runtime_s = if runtime_s < 1.0 {
                    runtime_raised += 1;
                    1
                } else {
                    runtime_s as i64
                };
                let mut procs = self.procs_in_class.draw(&mut rng, lo, hi);
                if procs < lo || procs > hi {
                    outside_class += 1;
                }
                if self.procs_factor != 1.0 {
                    let scaled = libm::round(procs as f64 * self.procs_factor);
                    procs = scaled.clamp(1.0, u32::MAX as f64) as u32;
                }
                if let Some(m) = self.max_procs {
                    procs = procs.min(m);
                }
                drawn.push((libm::floor(t) as i64, ci, seq, runtime_s, procs));
                seq += 1;
                if drawn.len() as u64 > 2 * MAX_JOBS {
                    return Err(format!(
                        "more than {} jobs drawn; lower the load",
                        2 * MAX_JOBS
                    ));
                }
            }
            if clamped {
                warnings.push(format!(
                    "class [{}, {}] clamped to [{lo}, {hi}] processors (max_procs): {seq} jobs drawn from the narrowed range",
                    class.nmin, class.nmax
                ));
            }
        }
        if drawn.len() as u64 > MAX_JOBS {
            return Err(format!(
                "{} jobs drawn; at most {MAX_JOBS} are allowed",
                drawn.len()
            ));
        }
        if runtime_raised > 0 {
            warnings.push(format!(
                "{runtime_raised} run times below 0.5 s were raised to 1 s"
            ));
        }
        if outside_class > 0 {
            warnings.push(format!(
                "{outside_class} jobs got the power of two nearest to their class (the class holds none)"
            ));
        }
        drawn.sort_unstable_by_key(|&(s, c, q, _, _)| (s, c, q));
        let jobs: Vec<Job> = drawn
            .iter()
            .enumerate()
            .map(|(i, &(submit_s, _, _, runtime_s, procs))| {
                let estimate_s = libm::ceil(runtime_s as f64 * self.estimate_factor) as i64;
                Job {
                    id: i as i64 + 1,
                    submit: SimTime::from_secs(submit_s),
                    runtime: SimTime::from_secs(runtime_s),
                    estimate: SimTime::from_secs(estimate_s.max(runtime_s)),
                    procs,
                    home: 0,
                    user: -1,
                    partition: -1,
                }
            })
            .collect();
        let source = match &self.classes {
            Some(c) => format!("{} classes", c.len()),
            None => self.machine.trim().to_ascii_uppercase(),
        };
        let name = format!(
            "hyper-erlang({source}, horizon={}s, arrival×{}, service×{}, seed={seed})",
            self.horizon_s, self.arrival_rate_factor, self.service_time_factor
        );
        Ok(Workload::generated(name, jobs, warnings))
    }
}

/// Seed of class `ci`'s own stream (splitmix64 of the run seed and the class index).
fn class_seed(seed: u64, ci: usize) -> u64 {
    let mut z = seed
        .wrapping_add((ci as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Offered load: Σ procs × runtime / (horizon × cpus).
pub fn offered_load(jobs: &[Job], horizon_s: f64, cpus: u64) -> f64 {
    let work: f64 = jobs
        .iter()
        .map(|j| j.procs as f64 * j.runtime.as_secs_f64())
        .sum();
    work / (horizon_s * cpus as f64)
}
