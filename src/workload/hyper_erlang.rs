//! Hyper-Erlang workloads of common order (SOB §3.1, after Jann et al. and Johnson & Taaffe).
//!
//! Jobs come in size classes `[nmin, nmax]` (processor counts). Each class is an independent
//! arrival stream whose inter-arrival times and service (run) times are each hyper-Erlang of
//! common order HE(n, λ1, λ2, ρ): with probability ρ an Erlang(n, λ1) sample (the sum of n
//! exponentials of rate λ1), else an Erlang(n, λ2) sample. Times are in seconds, rates per
//! second. SOB Tables 2–4 ship as presets ([`sob_classes`]); [`fit_classes`] derives a model
//! from a trace the way SOB §3.1 describes.
//!
//! Choices made where the paper is silent (also in the field docs):
//! - **Processor count inside a class**: [`ProcsInClass`] (uniform by default).
//! - **Streams** start at t = 0 and the first job arrives one inter-arrival sample later; a
//!   stream stops at the first arrival at or after the horizon. Each class draws from its own
//!   random stream derived from (seed, class index), so changing one class leaves the others'
//!   jobs unchanged.
//! - **Rounding**: submit times are floored to whole seconds, run times rounded to whole
//!   seconds and raised to at least 1 s (counted in the report), estimates are
//!   `ceil(runtime × estimate_factor)` seconds.
//! - **Order**: jobs are merged by (submit second, class index, sequence in class) and numbered
//!   1..N in that order.
//! - **Fitting**: classes of width `cpus_per_node`; a class below 2 % of the jobs is merged
//!   into the neighbour with fewer jobs (tie: the lower neighbour), smallest class first (tie:
//!   the lowest class); the smallest order n ≤ [`MAX_FIT_ORDER`] with an exact three-moment
//!   match wins; otherwise a two-moment or mean-only fallback, flagged `exact: false`.
//!
//! All maths goes through `libm` so native and wasm builds produce identical bits.

use serde::{Deserialize, Serialize};

use super::Workload;
use crate::model::Job;
use crate::rng::SimRng;
use crate::time::SimTime;

/// Two weeks, SOB's synthetic-workload period.
pub const TWO_WEEKS_S: f64 = 1_209_600.0;

/// Highest Erlang order the fitter tries.
pub const MAX_FIT_ORDER: u32 = 20;

/// Highest Erlang order accepted for a distribution (sampling costs n draws).
pub const MAX_ORDER: u32 = 1000;

/// A generated workload may hold at most this many jobs.
pub const MAX_JOBS: u64 = 5_000_000;

/// Share of the jobs below which a fitted class is merged into a neighbour (SOB: 2 %).
pub const MERGE_THRESHOLD_PCT: f64 = 2.0;

/// Hyper-Erlang distribution of common order: with probability `rho` Erlang(n, lambda1), else
/// Erlang(n, lambda2). Rates are per second.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HyperErlang {
    pub n: u32,
    pub lambda1: f64,
    pub lambda2: f64,
    pub rho: f64,
}

impl HyperErlang {
    pub const fn new(n: u32, lambda1: f64, lambda2: f64, rho: f64) -> HyperErlang {
        HyperErlang {
            n,
            lambda1,
            lambda2,
            rho,
        }
    }

    /// Plain exponential with the given mean (n = 1, both rates equal, ρ = 1).
    pub fn exponential(mean: f64) -> HyperErlang {
        HyperErlang::new(1, 1.0 / mean, 1.0 / mean, 1.0)
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.n == 0 || self.n > MAX_ORDER {
            return Err(format!(
                "order n must be between 1 and {MAX_ORDER} (got {})",
                self.n
            ));
        }
        for (name, v) in [("lambda1", self.lambda1), ("lambda2", self.lambda2)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!(
                    "{name} must be a positive rate per second (got {v})"
                ));
            }
        }
        if !(self.rho.is_finite() && (0.0..=1.0).contains(&self.rho)) {
            return Err(format!("rho must be between 0 and 1 (got {})", self.rho));
        }
        Ok(())
    }

    /// One sample, in seconds.
    pub fn sample(&self, rng: &mut SimRng) -> f64 {
        let rate = if rng.uniform() < self.rho {
            self.lambda1
        } else {
            self.lambda2
        };
        let mean = 1.0 / rate;
        let mut x = 0.0;
        for _ in 0..self.n {
            x += rng.exponential(mean);
        }
        x
    }

    /// Raw moment E[X^k]: ρ·a_k/λ1^k + (1−ρ)·a_k/λ2^k with a_k = n(n+1)…(n+k−1).
    pub fn moment(&self, k: u32) -> f64 {
        let a = rising(self.n, k);
        let e = k as f64;
        self.rho * a / libm::pow(self.lambda1, e)
            + (1.0 - self.rho) * a / libm::pow(self.lambda2, e)
    }

    /// The first three raw moments.
    pub fn moments(&self) -> [f64; 3] {
        [self.moment(1), self.moment(2), self.moment(3)]
    }

    pub fn mean(&self) -> f64 {
        self.moment(1)
    }

    /// Squared coefficient of variation, Var / mean².
    pub fn scv(&self) -> f64 {
        let m1 = self.moment(1);
        self.moment(2) / (m1 * m1) - 1.0
    }

    /// Exact three-moment match (Johnson & Taaffe 1989) with the smallest order n in
    /// 1..=`max_order`, or `None` when no order gives λ1, λ2 > 0 and 0 ≤ ρ ≤ 1.
    ///
    /// Derivation: with a_k = n(n+1)…(n+k−1), u = 1/λ1, v = 1/λ2 the moment equations read
    /// y_k := m_k / a_k = ρ·u^k + (1−ρ)·v^k for k = 1, 2, 3 (y_0 = 1), i.e. (u, v) are the atoms
    /// of a two-point distribution with moments y_1..y_3. Its atoms are the roots of
    /// x² − s·x + p = 0, and the moments obey y_{k+2} = s·y_{k+1} − p·y_k, which gives
    /// s = (y3 − y1·y2) / (y2 − y1²), p = s·y1 − y2. A solution needs y2 > y1² (SCV > 1/n) and
    /// p > 0 (y1·y3 > y2², i.e. m1·m3/m2² > (n+2)/(n+1)); then u, v = (s ± √(s² − 4p))/2 and
    /// ρ = (y1 − v)/(u − v). Both conditions get easier as n grows, so the first n that works
    /// is the smallest.
    pub fn fit_three_moments(m: [f64; 3], max_order: u32) -> Option<HyperErlang> {
        let [m1, m2, m3] = m;
        if !(m1.is_finite() && m2.is_finite() && m3.is_finite()) || m1 <= 0.0 || m2 <= 0.0 {
            return None;
        }
        for n in 1..=max_order.max(1) {
            let y1 = m1 / rising(n, 1);
            let y2 = m2 / rising(n, 2);
            let y3 = m3 / rising(n, 3);
            let det = y2 - y1 * y1;
            if det <= 1e-12 * y1 * y1 {
                continue;
            }
            let s = (y3 - y1 * y2) / det;
            let p = s * y1 - y2;
            if !(s > 0.0 && p > 0.0) {
                continue;
            }
            let disc = s * s - 4.0 * p;
            if disc < 0.0 {
                continue;
            }
            let r = libm::sqrt(disc);
            let u = 0.5 * (s + r);
            // p / u rather than (s − r)/2: no cancellation when v ≪ u.
            let v = p / u;
            if !(u > v && v > 0.0 && u.is_finite()) {
                continue;
            }
            let rho = (y1 - v) / (u - v);
            if !(-1e-9..=1.0 + 1e-9).contains(&rho) {
                continue;
            }
            let he = HyperErlang::new(n, 1.0 / u, 1.0 / v, rho.clamp(0.0, 1.0));
            if he.validate().is_ok() {
                return Some(he);
            }
        }
        None
    }
}

/// n(n+1)…(n+k−1) as f64 (1 for k = 0).
fn rising(n: u32, k: u32) -> f64 {
    (0..k).map(|i| (n + i) as f64).product()
}

/// One size class: jobs of `nmin..=nmax` processors with their own arrival stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SizeClass {
    pub nmin: u32,
    pub nmax: u32,
    /// Share of the jobs in the source trace, in percent. Informational only: the generated
    /// share follows from the arrival rates.
    pub share_pct: f64,
    pub interarrival: HyperErlang,
    pub service: HyperErlang,
}

impl SizeClass {
    pub fn validate(&self) -> Result<(), String> {
        let name = format!("class [{}, {}]", self.nmin, self.nmax);
        if self.nmin == 0 || self.nmin > self.nmax {
            return Err(format!("{name}: need 1 ≤ nmin ≤ nmax"));
        }
        if !(self.share_pct.is_finite() && self.share_pct >= 0.0) {
            return Err(format!("{name}: share_pct must be ≥ 0"));
        }
        self.interarrival
            .validate()
            .map_err(|e| format!("{name}, inter-arrival time: {e}"))?;
        self.service
            .validate()
            .map_err(|e| format!("{name}, service time: {e}"))?;
        Ok(())
    }
}

/// A row of SOB Tables 2–4: (Nmin, Nmax, % jobs, inter-arrival (n, λ1, λ2, ρ),
/// service (n, λ1, λ2, ρ)).
type Row = (u32, u32, f64, (u32, f64, f64, f64), (u32, f64, f64, f64));

/// SOB Table 2 (M1: NERSC, 192 nodes × 16 CPUs).
#[rustfmt::skip]
const SOB_M1: [Row; 6] = [
    (1, 16, 43.0, (1, 2.75E-04, 4.71E-03, 0.0197), (1, 9.10E-05, 4.55E-03, 0.4695)),
    (17, 32, 15.2, (1, 1.44E-04, 2.41E-03, 0.0571), (2, 1.04E-04, 2.74E-03, 0.3119)),
    (33, 48, 2.12, (1, 2.37E-05, 4.36E-04, 0.0847), (1, 7.22E-05, 2.99E-03, 0.3319)),
    (49, 112, 27.9, (1, 2.22E-04, 4.16E-03, 0.0448), (1, 7.31E-05, 3.94E-03, 0.2241)),
    (113, 240, 6.21, (1, 1.62E-04, 1.41E-03, 0.2253), (1, 6.03E-05, 3.80E-04, 0.4072)),
    (241, 3072, 5.57, (1, 1.42E-04, 3.11E-03, 0.2728), (1, 5.69E-05, 7.93E-04, 0.2473)),
];

/// SOB Table 3 (M2: LLNL, 305 nodes × 4 CPUs).
#[rustfmt::skip]
const SOB_M2: [Row; 13] = [
    (1, 4, 19.0, (1, 3.99E-05, 1.64E-03, 0.0555), (1, 1.00E-04, 6.79E-03, 0.0697)),
    (5, 12, 10.4, (1, 2.18E-05, 9.08E-04, 0.0554), (1, 1.43E-04, 5.39E-03, 0.1947)),
    (13, 24, 17.0, (1, 3.14E-05, 8.07E-04, 0.0319), (1, 1.47E-04, 1.07E-03, 0.3335)),
    (25, 28, 2.07, (1, 1.76E-06, 2.59E-04, 0.0250), (1, 1.82E-04, 3.13E-02, 0.0115)),
    (29, 44, 4.84, (1, 2.02E-05, 3.76E-04, 0.1080), (1, 6.09E-05, 2.41E-04, 0.0082)),
    (45, 60, 2.75, (1, 1.14E-05, 1.08E-04, 0.0561), (4, 3.65E-04, 4.47E-02, 0.5000)),
    (61, 92, 10.8, (1, 2.98E-05, 3.49E-04, 0.0200), (1, 4.89E-06, 2.48E-04, 0.0009)),
    (93, 104, 5.07, (1, 1.72E-05, 1.64E-04, 0.0251), (2, 1.09E-04, 3.64E-04, 0.0314)),
    (105, 124, 3.16, (1, 1.59E-06, 1.38E-04, 0.0074), (1, 2.23E-04, 3.02E-03, 0.4179)),
    (125, 176, 13.6, (1, 1.09E-04, 5.27E-04, 0.1149), (2, 8.07E-05, 3.19E-04, 0.0210)),
    (177, 188, 4.32, (2, 9.87E-05, 1.17E-03, 0.3762), (3, 2.01E-04, 2.13E-02, 0.6043)),
    (189, 252, 3.67, (1, 9.15E-06, 1.38E-04, 0.0293), (1, 9.26E-05, 3.28E-04, 0.0603)),
    (253, 1220, 3.41, (1, 8.73E-06, 1.93E-04, 0.0532), (1, 1.97E-04, 1.75E-03, 0.4098)),
];

/// SOB Table 4 (M3: SDSC, 144 nodes × 8 CPUs).
#[rustfmt::skip]
const SOB_M3: [Row; 7] = [
    (1, 8, 55.0, (1, 4.01E-05, 1.47E-03, 0.0047), (1, 3.99E-05, 1.01E-03, 0.0411)),
    (9, 24, 8.09, (1, 3.77E-05, 4.35E-04, 0.1281), (2, 3.92E-05, 2.25E-03, 0.2113)),
    (25, 56, 9.99, (1, 4.15E-05, 6.33E-04, 0.1235), (2, 4.13E-05, 2.16E-03, 0.1400)),
    (57, 120, 13.8, (1, 5.57E-05, 5.53E-04, 0.0833), (1, 3.03E-05, 6.79E-04, 0.2539)),
    (121, 248, 4.99, (1, 2.73E-05, 3.64E-04, 0.1731), (3, 6.91E-05, 1.01E-02, 0.2479)),
    (249, 504, 5.09, (1, 2.09E-05, 5.08E-04, 0.1431), (1, 1.89E-05, 2.64E-04, 0.1033)),
    (505, 1152, 2.99, (1, 7.31E-06, 2.63E-04, 0.0766), (2, 6.05E-05, 1.13E-02, 0.0671)),
];

/// SOB Tables 2–4 as size classes: "M1", "M2", "M3" (case-insensitive); "M4", "M5", "M6"
/// reuse M1, M2, M3 as SOB §4.2 does. `None` for any other name.
pub fn sob_classes(machine: &str) -> Option<Vec<SizeClass>> {
    let rows: &[Row] = match machine.trim().to_ascii_uppercase().as_str() {
        "M1" | "M4" => &SOB_M1,
        "M2" | "M5" => &SOB_M2,
        "M3" | "M6" => &SOB_M3,
        _ => return None,
    };
    Some(
        rows.iter()
            .map(|&(nmin, nmax, share_pct, ia, sv)| SizeClass {
                nmin,
                nmax,
                share_pct,
                interarrival: HyperErlang::new(ia.0, ia.1, ia.2, ia.3),
                service: HyperErlang::new(sv.0, sv.1, sv.2, sv.3),
            })
            .collect(),
    )
}

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
    fn draw(self, rng: &mut SimRng, lo: u32, hi: u32) -> u32 {
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
    /// Explicit classes (e.g. from [`fit_classes`]); override `machine`.
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

/// Sample moments beside the fitted model's analytic ones, for one distribution of a class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FittedMoments {
    /// Number of samples (inter-arrival gaps or run times).
    pub samples: u64,
    /// Sample raw moments μ1, μ2, μ3 (seconds, s², s³).
    pub sample: [f64; 3],
    /// The fitted distribution's analytic raw moments.
    pub fitted: [f64; 3],
    /// True when all three moments are matched exactly.
    pub exact: bool,
    /// How the fit was obtained (empty for an exact match).
    pub note: String,
}

/// One class fitted to a trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FittedClass {
    pub class: SizeClass,
    pub jobs: u64,
    pub interarrival: FittedMoments,
    pub service: FittedMoments,
    /// Both distributions matched exactly.
    pub exact: bool,
}

/// Raw moments μ1..μ3 of `xs` (zeros for an empty slice).
pub fn raw_moments(xs: &[f64]) -> [f64; 3] {
    if xs.is_empty() {
        return [0.0; 3];
    }
    let n = xs.len() as f64;
    let mut m = [0.0; 3];
    for &x in xs {
        m[0] += x;
        m[1] += x * x;
        m[2] += x * x * x;
    }
    m.map(|s| s / n)
}

/// Fits a hyper-Erlang of common order to samples: the exact three-moment match of smallest
/// order when one exists; otherwise, for SCV > 1, the balanced-means two-phase
/// hyper-exponential (mean and variance matched); for SCV ≤ 1 the Erlang of order
/// round(1/SCV) (≤ [`MAX_FIT_ORDER`]) with the sample mean; with no usable samples an
/// exponential of mean `fallback_mean`.
pub fn fit_samples(xs: &[f64], fallback_mean: f64) -> (HyperErlang, FittedMoments) {
    let sample = raw_moments(xs);
    let [m1, m2, _] = sample;
    let (he, exact, note) = if xs.is_empty() || m1.is_nan() || m1 <= 0.0 {
        let mean = if fallback_mean.is_finite() && fallback_mean > 0.0 {
            fallback_mean
        } else {
            1.0
        };
        let why = if xs.is_empty() {
            "no samples"
        } else {
            "sample mean is not positive"
        };
        (
            HyperErlang::exponential(mean),
            false,
            format!("{why}: exponential with mean {mean} s"),
        )
    } else if let Some(he) = HyperErlang::fit_three_moments(sample, MAX_FIT_ORDER) {
        (he, true, String::new())
    } else {
        let scv = (m2 / (m1 * m1) - 1.0).max(0.0);
        if scv > 1.0 {
            let rho = 0.5 * (1.0 + libm::sqrt((scv - 1.0) / (scv + 1.0)));
            (
                HyperErlang::new(1, 2.0 * rho / m1, 2.0 * (1.0 - rho) / m1, rho),
                false,
                format!(
                    "no exact match up to order {MAX_FIT_ORDER}: balanced-means hyper-exponential (mean and variance matched)"
                ),
            )
        } else {
            let n = if scv > 0.0 {
                (libm::round(1.0 / scv) as u32).clamp(1, MAX_FIT_ORDER)
            } else {
                MAX_FIT_ORDER
            };
            let rate = n as f64 / m1;
            (
                HyperErlang::new(n, rate, rate, 1.0),
                false,
                format!("no exact match up to order {MAX_FIT_ORDER}: Erlang of order {n} with the sample mean"),
            )
        }
    };
    let fm = FittedMoments {
        samples: xs.len() as u64,
        sample,
        fitted: he.moments(),
        exact,
        note,
    };
    (he, fm)
}

/// How a class's distributions are fitted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FitMethod {
    /// SOB §3.1: the first three moments matched exactly ([`fit_samples`]). The paper's.
    #[default]
    Moments,
    /// Maximum likelihood (EM) over the same family — two Erlang branches of a common order,
    /// the order that fits best among 1–8 ([`fit_samples_ml`]): follows the bulk of the
    /// samples rather than their tail, at the price of the higher moments.
    MaxLikelihood,
}

impl FitMethod {
    pub const ALL: [FitMethod; 2] = [FitMethod::Moments, FitMethod::MaxLikelihood];

    pub fn name(self) -> &'static str {
        match self {
            FitMethod::Moments => "moments",
            FitMethod::MaxLikelihood => "max_likelihood",
        }
    }

    /// How the method reads in a sentence ("fitted by …").
    pub fn label(self) -> &'static str {
        match self {
            FitMethod::Moments => "matching three moments (SOB §3.1)",
            FitMethod::MaxLikelihood => "maximum likelihood (EM)",
        }
    }

    pub fn parse(s: &str) -> Result<FitMethod, String> {
        FitMethod::ALL
            .into_iter()
            .find(|m| m.name() == s || (s == "ml" && *m == FitMethod::MaxLikelihood))
            .ok_or_else(|| format!("unknown fit method '{s}' (moments, max_likelihood)"))
    }
}

/// Erlang orders the maximum-likelihood fit tries.
const ML_ORDERS: [u32; 6] = [1, 2, 3, 4, 6, 8];
/// EM rounds per order at most; it stops earlier once the log-likelihood settles.
const ML_ROUNDS: usize = 150;

/// Maximum-likelihood hyper-Erlang of common order (two branches), by EM for each order of
/// [`ML_ORDERS`], keeping the order of highest likelihood. Samples are held to at least 1 ms
/// (a zero gap has no likelihood under an Erlang of order > 1). Fewer than 2 usable samples
/// fall back to [`fit_samples`].
///
/// EM for a mixture of Erlang(n, λ1) and Erlang(n, λ2) with weights ρ, 1 − ρ: E-step, each
/// sample's responsibility w = ρ f1(x) / (ρ f1(x) + (1 − ρ) f2(x)); M-step, ρ = mean w,
/// λ1 = n Σ w / Σ w x, λ2 = n Σ (1 − w) / Σ (1 − w) x. Started from the lower and upper
/// halves of the sorted samples.
pub fn fit_samples_ml(xs: &[f64], fallback_mean: f64) -> (HyperErlang, FittedMoments) {
    let mut clean: Vec<f64> = xs
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .map(|x| x.max(1e-3))
        .collect();
    if clean.len() < 2 {
        return fit_samples(xs, fallback_mean);
    }
    clean.sort_by(f64::total_cmp);
    let sum_ln: f64 = clean.iter().map(|&x| libm::log(x)).sum();
    let mut best: Option<(HyperErlang, f64)> = None;
    for n in ML_ORDERS {
        if let Some((he, ll)) = em_order(&clean, n, sum_ln) {
            if best.as_ref().is_none_or(|&(_, b)| ll > b) {
                best = Some((he, ll));
            }
        }
    }
    let Some((he, ll)) = best else {
        return fit_samples(xs, fallback_mean);
    };
    let fm = FittedMoments {
        samples: xs.len() as u64,
        sample: raw_moments(xs),
        fitted: he.moments(),
        exact: false,
        note: format!(
            "maximum likelihood (EM), order {}, mean log-likelihood {:.4}",
            he.n,
            ll / clean.len() as f64
        ),
    };
    (he, fm)
}

/// EM for one order `n` on sorted samples; `(model, log-likelihood)`.
fn em_order(xs: &[f64], n: u32, sum_ln: f64) -> Option<(HyperErlang, f64)> {
    let nf = n as f64;
    let half = xs.len() / 2;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let (lo, hi) = (mean(&xs[..half.max(1)]), mean(&xs[half..]));
    let (mut l1, mut l2, mut rho) = (nf / lo, nf / hi.max(lo * 1.000001), 0.5);
    // Σ over samples of (n − 1) ln x − ln (n − 1)!: the same for both branches.
    let common = (nf - 1.0) * sum_ln - xs.len() as f64 * libm::lgamma(nf);
    let mut last = f64::NEG_INFINITY;
    let mut ll = f64::NEG_INFINITY;
    for _ in 0..ML_ROUNDS {
        let (ln_r1, ln_r2) = (libm::log(rho), libm::log(1.0 - rho));
        let (ln_l1, ln_l2) = (nf * libm::log(l1), nf * libm::log(l2));
        let (mut s1, mut sx1, mut sx2, mut sum) = (0.0, 0.0, 0.0, 0.0);
        for &x in xs {
            let a1 = ln_r1 + ln_l1 - l1 * x;
            let a2 = ln_r2 + ln_l2 - l2 * x;
            let m = a1.max(a2);
            let (e1, e2) = (libm::exp(a1 - m), libm::exp(a2 - m));
            let w = e1 / (e1 + e2);
            s1 += w;
            sx1 += w * x;
            sx2 += (1.0 - w) * x;
            sum += m + libm::log(e1 + e2);
        }
        ll = sum + common;
        let s2 = xs.len() as f64 - s1;
        if !(s1 > 1e-9 && s2 > 1e-9 && sx1 > 0.0 && sx2 > 0.0) {
            // One branch emptied: the best of this order is a single Erlang.
            let rate = nf * xs.len() as f64 / xs.iter().sum::<f64>();
            let ll1 = xs
                .iter()
                .map(|&x| nf * libm::log(rate) - rate * x)
                .sum::<f64>()
                + common;
            return Some((HyperErlang::new(n, rate, rate, 1.0), ll1));
        }
        rho = s1 / xs.len() as f64;
        l1 = nf * s1 / sx1;
        l2 = nf * s2 / sx2;
        if (ll - last).abs() <= 1e-9 * ll.abs() {
            break;
        }
        last = ll;
    }
    let he = HyperErlang::new(n, l1, l2, rho.clamp(0.0, 1.0));
    (he.validate().is_ok() && ll.is_finite()).then_some((he, ll))
}

/// Size classes of a trace before fitting: (nmin, nmax, jobs), after the 2 % merge rule.
///
/// Initial classes have width `cpus_per_node` (1..=c, c+1..=2c, …, up to the class of the
/// widest job). While some class holds less than 2 % of the jobs, the one with the fewest jobs
/// (tie: the lowest) is merged into its neighbour with fewer jobs (tie: the lower neighbour).
///
/// Only the classes that hold a job are built (a job 2³¹ CPUs wide made 2³¹ classes, 32 GiB,
/// issue #30's fuzzing): the empty ones have the fewest jobs, so they go first, lowest first,
/// and where each ends up is known without building it (see [`absorb_empty_classes`]). The
/// merges that follow take the smallest class from an ordered set: O(k log k) for k widths.
pub fn merge_classes(jobs: &[Job], cpus_per_node: u32) -> Vec<(u32, u32, u64)> {
    let c = cpus_per_node.max(1);
    if jobs.is_empty() {
        return Vec::new();
    }
    let mut counts: std::collections::BTreeMap<u32, u64> = std::collections::BTreeMap::new();
    for j in jobs {
        *counts.entry((j.procs.max(1) - 1) / c).or_default() += 1;
    }
    let classes = absorb_empty_classes(&counts, c);
    merge_small_classes(classes, jobs.len() as f64)
}

/// The classes left once every empty class is merged, as the merge rule does it: the lowest
/// empty class goes first; a run of empty classes at the bottom joins the first class with
/// jobs (class 0 merges into class 1), a run between two classes with jobs merges into
/// itself (its right neighbour is empty, with fewer jobs than its left) until one class is
/// left, which joins the neighbour with fewer jobs (tie: the lower). No class with jobs
/// changes its count meanwhile, so each run's fate depends on its two neighbours alone.
fn absorb_empty_classes(
    counts: &std::collections::BTreeMap<u32, u64>,
    c: u32,
) -> Vec<(u32, u32, u64)> {
    let lo = |k: u32| k.saturating_mul(c).saturating_add(1);
    let hi = |k: u32| (k.saturating_add(1)).saturating_mul(c);
    let nonempty: Vec<(u32, u64)> = counts.iter().map(|(&k, &n)| (k, n)).collect();
    // (first class, last class, jobs) of each class with jobs, grown by the runs it absorbs.
    let mut spans: Vec<(u32, u32, u64)> = nonempty.iter().map(|&(k, n)| (k, k, n)).collect();
    spans[0].0 = 0;
    for i in 1..nonempty.len() {
        let (left, right) = (nonempty[i - 1], nonempty[i]);
        if right.0 > left.0 + 1 {
            if left.1 <= right.1 {
                spans[i - 1].1 = right.0 - 1;
            } else {
                spans[i].0 = left.0 + 1;
            }
        }
    }
    spans
        .into_iter()
        .map(|(a, b, n)| (lo(a), hi(b), n))
        .collect()
}

/// The 2 % rule on classes that all hold jobs: while some class holds less than 2 % of the
/// jobs, the one with the fewest (tie: the lowest) merges into its neighbour with fewer jobs
/// (tie: the lower neighbour).
fn merge_small_classes(mut classes: Vec<(u32, u32, u64)>, total: f64) -> Vec<(u32, u32, u64)> {
    use std::collections::BTreeSet;
    let n = classes.len();
    let small = |count: u64| (count as f64) * 100.0 < MERGE_THRESHOLD_PCT * total;
    // Neighbours among the classes still there; positions keep their order, so the lowest
    // position is the lowest class.
    let mut prev: Vec<Option<usize>> = (0..n).map(|i| i.checked_sub(1)).collect();
    let mut next: Vec<Option<usize>> = (0..n).map(|i| (i + 1 < n).then_some(i + 1)).collect();
    let mut alive = vec![true; n];
    let mut queue: BTreeSet<(u64, usize)> = (0..n)
        .filter(|&i| small(classes[i].2))
        .map(|i| (classes[i].2, i))
        .collect();
    let mut left = n;
    while left > 1 {
        let Some((_, i)) = queue.pop_first() else {
            break;
        };
        let target = match (prev[i], next[i]) {
            (None, Some(r)) => r,
            (Some(l), None) => l,
            (Some(l), Some(r)) if classes[l].2 <= classes[r].2 => l,
            (Some(_), Some(r)) => r,
            (None, None) => break,
        };
        let (a, b) = (i.min(target), i.max(target));
        queue.remove(&(classes[target].2, target));
        classes[a] = (classes[a].0, classes[b].1, classes[a].2 + classes[b].2);
        alive[b] = false;
        next[a] = next[b];
        if let Some(r) = next[b] {
            prev[r] = Some(a);
        }
        left -= 1;
        if small(classes[a].2) {
            queue.insert((classes[a].2, a));
        }
    }
    classes
        .into_iter()
        .zip(alive)
        .filter_map(|(cl, keep)| keep.then_some(cl))
        .collect()
}

/// SOB §3.1: classes from `cpus_per_node` with the 2 % merge rule, then per class the first
/// three raw moments of the inter-arrival times (between consecutive submits of the class's
/// jobs, in seconds) and of the run times, each moment-matched by a hyper-Erlang of common
/// order (see [`fit_samples`]). A class with a single job (or all its jobs submitted at once)
/// gets an exponential inter-arrival time with mean span / jobs-in-class, where span is the
/// whole trace's first-to-last submit (flagged inexact).
pub fn fit_classes(jobs: &[Job], cpus_per_node: u32) -> Vec<FittedClass> {
    fit_classes_with(jobs, cpus_per_node, FitMethod::Moments)
}

/// [`fit_classes`] with each distribution fitted by `method`.
pub fn fit_classes_with(jobs: &[Job], cpus_per_node: u32, method: FitMethod) -> Vec<FittedClass> {
    let fit = match method {
        FitMethod::Moments => fit_samples,
        FitMethod::MaxLikelihood => fit_samples_ml,
    };
    let classes = merge_classes(jobs, cpus_per_node);
    let total = jobs.len() as f64;
    let (first, last) = jobs.iter().fold((i64::MAX, i64::MIN), |(a, b), j| {
        (a.min(j.submit.ticks()), b.max(j.submit.ticks()))
    });
    let span_s = if jobs.len() > 1 {
        SimTime(last - first).as_secs_f64()
    } else {
        0.0
    };
    let trace_gap = if jobs.len() > 1 {
        span_s / (jobs.len() - 1) as f64
    } else {
        1.0
    };
    classes
        .iter()
        .map(|&(nmin, nmax, count)| {
            let mut submits: Vec<i64> = Vec::with_capacity(count as usize);
            let mut runtimes: Vec<f64> = Vec::with_capacity(count as usize);
            for j in jobs {
                let p = j.procs.max(1);
                if p >= nmin && p <= nmax {
                    submits.push(j.submit.ticks());
                    runtimes.push(j.runtime.as_secs_f64());
                }
            }
            submits.sort_unstable();
            let gaps: Vec<f64> = submits
                .windows(2)
                .map(|w| SimTime(w[1] - w[0]).as_secs_f64())
                .collect();
            let (ia, ia_m) = fit(&gaps, trace_gap * total / count.max(1) as f64);
            let (sv, sv_m) = fit(&runtimes, 1.0);
            FittedClass {
                class: SizeClass {
                    nmin,
                    nmax,
                    share_pct: count as f64 * 100.0 / total,
                    interarrival: ia,
                    service: sv,
                },
                jobs: count,
                exact: ia_m.exact && sv_m.exact,
                interarrival: ia_m,
                service: sv_m,
            }
        })
        .collect()
}

/// Seed `gridscope fit` and the app use for the synthetic workload of a fit, unless told.
pub const SYNTHETIC_SEED: u64 = 1;

/// A synthetic workload drawn from a fit, with the horizon it was drawn over.
#[derive(Clone, Debug)]
pub struct Synthetic {
    pub workload: Workload,
    /// Arrivals stopped here (seconds): the trace's last submit, at least 1 s.
    pub horizon_s: f64,
    pub seed: u64,
}

/// SOB §3.1's last step: "the synthetic job submissions are generated by combining the
/// different class models". Draws every fitted class over the trace's own span (time 0 to its
/// last submit, so the counts are comparable) with the other generator parameters at their
/// defaults (exact estimates, processors uniform inside a class). The CLI's `fit` and the
/// app's worker both call this, so they give the same jobs for the same trace and seed.
pub fn synthesize(jobs: &[Job], fitted: &[FittedClass], seed: u64) -> Result<Synthetic, String> {
    if fitted.is_empty() {
        return Err("the fit has no class (the trace has no job)".into());
    }
    let horizon_s = jobs
        .iter()
        .map(|j| j.submit.as_secs_f64())
        .fold(0.0f64, f64::max)
        .max(1.0);
    let model = HyperErlangWorkload {
        classes: Some(fitted.iter().map(|f| f.class.clone()).collect()),
        horizon_s,
        ..HyperErlangWorkload::default()
    };
    Ok(Synthetic {
        workload: model.generate(seed)?,
        horizon_s,
        seed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule as first written: every class built, the smallest found by a scan.
    fn merge_classes_naive(jobs: &[Job], c: u32) -> Vec<(u32, u32, u64)> {
        let widest = jobs.iter().map(|j| j.procs.max(1)).max().unwrap_or(1);
        let mut classes: Vec<(u32, u32, u64)> = (0..widest.div_ceil(c) as usize)
            .map(|k| (k as u32 * c + 1, (k as u32 + 1).saturating_mul(c), 0))
            .collect();
        for j in jobs {
            classes[((j.procs.max(1) - 1) / c) as usize].2 += 1;
        }
        let total = jobs.len() as f64;
        while classes.len() > 1 {
            let small = classes
                .iter()
                .enumerate()
                .filter(|(_, cl)| (cl.2 as f64) * 100.0 < MERGE_THRESHOLD_PCT * total)
                .min_by_key(|(i, cl)| (cl.2, *i))
                .map(|(i, _)| i);
            let Some(i) = small else { break };
            let target = if i == 0 {
                1
            } else if i + 1 == classes.len() || classes[i - 1].2 <= classes[i + 1].2 {
                i - 1
            } else {
                i + 1
            };
            let (a, b) = (i.min(target), i.max(target));
            classes[a] = (classes[a].0, classes[b].1, classes[a].2 + classes[b].2);
            classes.remove(b);
        }
        classes
    }

    #[test]
    fn merge_classes_equals_the_rule_as_first_written() {
        let mut rng = crate::rng::SimRng::new(30);
        for case in 0..3000 {
            let c = rng.range_u64(1, 8) as u32;
            let widest = [4, 16, 64, 300][rng.range_u64(0, 3) as usize];
            let n = rng.range_u64(1, 200);
            let jobs: Vec<Job> = (0..n)
                .map(|i| {
                    let p = if rng.uniform() < 0.5 {
                        rng.range_u64(0, 4) as u32
                    } else {
                        rng.range_u64(0, widest) as u32
                    };
                    job(i as i64, i as i64, 10, p)
                })
                .collect();
            assert_eq!(
                merge_classes(&jobs, c),
                merge_classes_naive(&jobs, c),
                "case {case}, c {c}"
            );
        }
        // A job 2^32 - 1 CPUs wide: two classes' worth of work, not 2^31 classes (the empty
        // ones between join the lower, as wide in jobs).
        let jobs = vec![job(1, 0, 10, 1), job(2, 1, 10, u32::MAX)];
        assert_eq!(
            merge_classes(&jobs, 2),
            vec![(1, u32::MAX - 1, 1), (u32::MAX, u32::MAX, 1)]
        );
    }

    /// The processor factor scales only the widths: the same seed gives the same jobs,
    /// submits and run times, each width × 3 rounded and clamped to `max_procs`; a factor
    /// that is not a positive number is refused, and 1 stays out of the JSON.
    #[test]
    fn procs_factor_scales_widths_only() {
        let base = HyperErlangWorkload {
            max_procs: Some(1000),
            ..HyperErlangWorkload::preset("M2")
        };
        let wide = HyperErlangWorkload {
            procs_factor: 3.0,
            ..base.clone()
        };
        let (a, b) = (base.generate(7).unwrap(), wide.generate(7).unwrap());
        assert_eq!(a.jobs.len(), b.jobs.len());
        for (x, y) in a.jobs.iter().zip(&b.jobs) {
            assert_eq!(
                (x.submit, x.runtime, x.estimate),
                (y.submit, y.runtime, y.estimate)
            );
            assert_eq!(y.procs, (x.procs * 3).min(1000));
        }
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 2e6] {
            let w = HyperErlangWorkload {
                procs_factor: bad,
                ..base.clone()
            };
            assert!(w.validate().unwrap_err().contains("procs_factor"), "{bad}");
        }
        assert!(!serde_json::to_string(&base)
            .unwrap()
            .contains("procs_factor"));
        assert!(serde_json::to_string(&wide)
            .unwrap()
            .contains("\"procs_factor\":3.0"));
    }

    #[test]
    fn maximum_likelihood_recovers_a_known_hyper_erlang() {
        // Order 2, a short branch (mean 20 s, 70 %) and a long one (mean 2,000 s).
        let truth = HyperErlang::new(2, 0.1, 0.001, 0.7);
        let mut rng = SimRng::new(5);
        let xs: Vec<f64> = (0..40_000).map(|_| truth.sample(&mut rng)).collect();
        let (he, fm) = fit_samples_ml(&xs, 1.0);
        assert_eq!(he.n, 2, "{he:?}");
        let (fast, slow, p_fast) = if he.lambda1 > he.lambda2 {
            (he.lambda1, he.lambda2, he.rho)
        } else {
            (he.lambda2, he.lambda1, 1.0 - he.rho)
        };
        assert!((fast - 0.1).abs() < 0.005, "{he:?}");
        assert!((slow - 0.001).abs() < 0.00005, "{he:?}");
        assert!((p_fast - 0.7).abs() < 0.01, "{he:?}");
        assert!(!fm.exact && fm.note.contains("maximum likelihood"));
        // Too few samples: the moment fit's fallback.
        assert_eq!(fit_samples_ml(&[5.0], 3.0).0, fit_samples(&[5.0], 3.0).0);
    }

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    #[test]
    fn presets_have_the_papers_shape() {
        assert_eq!(sob_classes("M1").unwrap().len(), 6);
        assert_eq!(sob_classes("M2").unwrap().len(), 13);
        assert_eq!(sob_classes("M3").unwrap().len(), 7);
        assert_eq!(sob_classes("m4"), sob_classes("M1"));
        assert_eq!(sob_classes("M5"), sob_classes("M2"));
        assert_eq!(sob_classes("M6"), sob_classes("M3"));
        assert!(sob_classes("M7").is_none());
        for m in ["M1", "M2", "M3"] {
            let cl = sob_classes(m).unwrap();
            let share: f64 = cl.iter().map(|c| c.share_pct).sum();
            assert!((share - 100.0).abs() < 0.5, "{m}: shares sum to {share}");
            for (a, b) in cl.iter().zip(cl.iter().skip(1)) {
                assert_eq!(a.nmax + 1, b.nmin, "{m}: classes must tile");
            }
            for c in &cl {
                c.validate().unwrap();
            }
        }
        assert_eq!(sob_classes("M1").unwrap()[5].nmax, 3072);
        assert_eq!(sob_classes("M2").unwrap()[12].nmax, 1220);
        assert_eq!(sob_classes("M3").unwrap()[6].nmax, 1152);
    }

    #[test]
    fn m1_service_samples_match_analytic_moments() {
        let mut rng = SimRng::new(2024);
        for c in sob_classes("M1").unwrap() {
            let xs: Vec<f64> = (0..200_000).map(|_| c.service.sample(&mut rng)).collect();
            let m = raw_moments(&xs);
            let (a1, a2) = (c.service.moment(1), c.service.moment(2));
            assert!(
                rel(m[0], a1) < 0.03,
                "[{}, {}] mean {} vs {a1}",
                c.nmin,
                c.nmax,
                m[0]
            );
            assert!(
                rel(m[1], a2) < 0.15,
                "[{}, {}] m2 {} vs {a2}",
                c.nmin,
                c.nmax,
                m[1]
            );
        }
    }

    #[test]
    fn analytic_moments_by_hand() {
        // HE(2, 1, 0.5, 0.25): Erlang(2,1): 2, 6, 24; Erlang(2,0.5): 4, 24, 192.
        let he = HyperErlang::new(2, 1.0, 0.5, 0.25);
        assert!(rel(he.moment(1), 0.25 * 2.0 + 0.75 * 4.0) < 1e-15);
        assert!(rel(he.moment(2), 0.25 * 6.0 + 0.75 * 24.0) < 1e-15);
        assert!(rel(he.moment(3), 0.25 * 24.0 + 0.75 * 192.0) < 1e-15);
        // Exponential of mean 10: 10, 200, 6000.
        let e = HyperErlang::exponential(10.0);
        assert!(rel(e.moment(1), 10.0) < 1e-12);
        assert!(rel(e.moment(2), 200.0) < 1e-12);
        assert!(rel(e.moment(3), 6000.0) < 1e-12);
        assert!(rel(e.scv(), 1.0) < 1e-12);
    }

    #[test]
    fn presets_give_papers_job_counts_and_loads() {
        // SOB Table 1 CPUs.
        for (m, cpus) in [("M1", 192 * 16), ("M2", 305 * 4), ("M3", 144 * 8)] {
            let w = HyperErlangWorkload::preset(m).generate(1).unwrap();
            let load = offered_load(&w.jobs, TWO_WEEKS_S, cpus);
            let mut pw2 = HyperErlangWorkload::preset(m);
            pw2.procs_in_class = ProcsInClass::PowersOfTwo;
            let w2 = pw2.generate(1).unwrap();
            let mut plu = HyperErlangWorkload::preset(m);
            plu.procs_in_class = ProcsInClass::LogUniform;
            let w3 = plu.generate(1).unwrap();
            println!(
                "{m}: {} jobs (expected {:.0}), offered load uniform {:.3}, log-uniform {:.3}, powers of two {:.3}",
                w.jobs.len(),
                HyperErlangWorkload::preset(m).expected_jobs().unwrap(),
                load,
                offered_load(&w3.jobs, TWO_WEEKS_S, cpus),
                offered_load(&w2.jobs, TWO_WEEKS_S, cpus),
            );
            if m == "M1" {
                assert!((8_000..=12_500).contains(&w.jobs.len()), "{}", w.jobs.len());
            }
        }
    }

    #[test]
    fn workload_is_well_formed() {
        let mut p = HyperErlangWorkload::preset("M2");
        p.estimate_factor = 1.5;
        p.procs_in_class = ProcsInClass::LogUniform;
        let w = p.generate(7).unwrap();
        assert_eq!(w.origin, SimTime::ZERO);
        assert_eq!(w.report.jobs, w.jobs.len() as u64);
        assert!(!w.jobs.is_empty());
        for (i, j) in w.jobs.iter().enumerate() {
            assert_eq!(j.id, i as i64 + 1);
            assert!(j.runtime >= SimTime::from_secs(1));
            assert!(j.estimate >= j.runtime);
            assert!(j.submit < SimTime::from_secs(TWO_WEEKS_S as i64));
            assert!((1..=1220).contains(&j.procs));
        }
        assert!(w.jobs.windows(2).all(|p| p[0].submit <= p[1].submit));
    }

    #[test]
    fn procs_draws_stay_in_class() {
        let mut rng = SimRng::new(3);
        for _ in 0..10_000 {
            let u = ProcsInClass::Uniform.draw(&mut rng, 49, 112);
            assert!((49..=112).contains(&u));
            let l = ProcsInClass::LogUniform.draw(&mut rng, 241, 3072);
            assert!((241..=3072).contains(&l));
            let p = ProcsInClass::PowersOfTwo.draw(&mut rng, 49, 112);
            assert_eq!(p, 64);
            let p = ProcsInClass::PowersOfTwo.draw(&mut rng, 17, 300);
            assert!([32, 64, 128, 256].contains(&p));
            // 25..=28 holds no power of two: nearest to the draw is 32 (25 is 9 from 16, 7 from 32).
            assert_eq!(ProcsInClass::PowersOfTwo.draw(&mut rng, 25, 28), 32);
            let q = ProcsInClass::PowersOfTwo.draw(&mut rng, 5, 7);
            assert!(q == 4 || q == 8);
        }
        assert_eq!(ProcsInClass::PowersOfTwo.draw(&mut rng, 1, 1), 1);
        assert_eq!(ProcsInClass::PowersOfTwo.draw(&mut rng, 3, 3), 2); // tie: lower
        assert_eq!(ProcsInClass::PowersOfTwo.draw(&mut rng, 6, 6), 4);
    }

    #[test]
    fn max_procs_clamps_and_reports() {
        let mut p = HyperErlangWorkload::preset("M4");
        p.max_procs = Some(128);
        let w = p.generate(5).unwrap();
        assert!(w.jobs.iter().all(|j| j.procs <= 128));
        assert!(w.report.warnings.iter().any(|s| s.contains("clamped")));
        let mut p = HyperErlangWorkload::preset("M2");
        p.procs_in_class = ProcsInClass::PowersOfTwo;
        let w = p.generate(5).unwrap();
        assert!(w.report.warnings.iter().any(|s| s.contains("power of two")));
    }

    #[test]
    fn fit_recovers_known_distribution() {
        // Means 1000 s and 400 s; SCV < 1 so no hyper-exponential (n = 1) can match.
        let truth = HyperErlang::new(2, 1.0 / 500.0, 1.0 / 200.0, 0.5);
        let mut rng = SimRng::new(11);
        let xs: Vec<f64> = (0..200_000).map(|_| truth.sample(&mut rng)).collect();
        let (he, fm) = fit_samples(&xs, 1.0);
        assert!(fm.exact, "{}", fm.note);
        assert_eq!(he.n, 2, "{he:?}");
        for k in 0..3 {
            assert!(rel(fm.fitted[k], fm.sample[k]) < 1e-9, "moment {}", k + 1);
            assert!(
                rel(fm.sample[k], truth.moments()[k]) < 0.03,
                "moment {}",
                k + 1
            );
        }
        assert!(rel(he.lambda1, truth.lambda1) < 0.15, "{he:?}");
        assert!(rel(he.lambda2, truth.lambda2) < 0.15, "{he:?}");
        assert!((he.rho - truth.rho).abs() < 0.15, "{he:?}");
        // Exact analytic moments give back the parameters themselves.
        let back = HyperErlang::fit_three_moments(truth.moments(), MAX_FIT_ORDER).unwrap();
        assert_eq!(back.n, 2);
        assert!(rel(back.lambda1, truth.lambda1) < 1e-9);
        assert!(rel(back.lambda2, truth.lambda2) < 1e-9);
        assert!((back.rho - truth.rho).abs() < 1e-9);
    }

    #[test]
    fn fit_round_trips_every_preset_distribution() {
        for m in ["M1", "M2", "M3"] {
            for c in sob_classes(m).unwrap() {
                for he in [c.interarrival, c.service] {
                    let f = HyperErlang::fit_three_moments(he.moments(), MAX_FIT_ORDER)
                        .unwrap_or_else(|| panic!("{m} {he:?}"));
                    assert!(f.n <= he.n);
                    for k in 1..=3 {
                        assert!(rel(f.moment(k), he.moment(k)) < 1e-6, "{m} {he:?} {f:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn fallbacks_when_no_exact_match() {
        // Constant samples: SCV 0, no hyper-Erlang matches; an Erlang with the mean remains.
        let (he, fm) = fit_samples(&[5.0; 10], 1.0);
        assert!(!fm.exact);
        assert_eq!(he.n, MAX_FIT_ORDER);
        assert!(rel(he.mean(), 5.0) < 1e-12);
        let (he, fm) = fit_samples(&[], 42.0);
        assert!(!fm.exact && fm.note.contains("no samples"));
        assert!(rel(he.mean(), 42.0) < 1e-12);
        let (he, fm) = fit_samples(&[0.0, 0.0], 3.0);
        assert!(!fm.exact);
        assert!(rel(he.mean(), 3.0) < 1e-12);
    }

    fn job(id: i64, submit_s: i64, runtime_s: i64, procs: u32) -> Job {
        Job {
            id,
            submit: SimTime::from_secs(submit_s),
            runtime: SimTime::from_secs(runtime_s),
            estimate: SimTime::from_secs(runtime_s),
            procs,
            home: 0,
            user: -1,
            partition: -1,
        }
    }

    #[test]
    fn two_percent_merge_rule() {
        // c = 4: [1,4] 50 jobs, [5,8] 1, [9,12] 30, [13,16] 0, [17,20] 19 (100 in all).
        let mut jobs = Vec::new();
        let mut add = |n: usize, procs: u32| {
            for _ in 0..n {
                let id = jobs.len() as i64 + 1;
                jobs.push(job(id, id * 60 + (id * id % 7), 100 + id, procs));
            }
        };
        add(50, 3);
        add(1, 6);
        add(30, 12);
        add(19, 17);
        // [13,16] (0 jobs) goes first, into [17,20] (19 < 30); then [5,8] into [9,12] (30 < 50).
        assert_eq!(
            merge_classes(&jobs, 4),
            vec![(1, 4, 50), (5, 12, 31), (13, 20, 19)]
        );
        let fitted = fit_classes(&jobs, 4);
        assert_eq!(fitted.len(), 3);
        assert_eq!(fitted[1].jobs, 31);
        assert!(rel(fitted[0].class.share_pct, 50.0) < 1e-12);
        assert_eq!(fitted[2].service.samples, 19);
        assert_eq!(fitted[2].interarrival.samples, 18);
        for f in &fitted {
            f.class.validate().unwrap();
            assert_eq!(f.class.service.moments(), f.service.fitted);
        }
        // Tie: a 1-job class between two 49-job classes merges into the lower one.
        let mut jobs = Vec::new();
        for i in 0..49 {
            jobs.push(job(i, i, 10, 1));
            jobs.push(job(100 + i, i, 10, 9));
        }
        jobs.push(job(999, 5, 10, 5));
        assert_eq!(merge_classes(&jobs, 4), vec![(1, 8, 50), (9, 12, 49)]);
        // Everything below 2 % collapses to one class in the end.
        let jobs: Vec<Job> = (0..60).map(|i| job(i, i, 10, i as u32 + 1)).collect();
        let m = merge_classes(&jobs, 1);
        assert!(m.iter().all(|c| c.2 as f64 >= 0.02 * 60.0));
        assert_eq!(m.iter().map(|c| c.2).sum::<u64>(), 60);
        assert!(merge_classes(&[], 4).is_empty());
    }

    #[test]
    fn fitted_model_regenerates_similar_workload() {
        let w = HyperErlangWorkload::preset("M3").generate(9).unwrap();
        let fitted = fit_classes(&w.jobs, 8);
        assert!(!fitted.is_empty());
        let total: u64 = fitted.iter().map(|f| f.jobs).sum();
        assert_eq!(total, w.jobs.len() as u64);
        let p = HyperErlangWorkload {
            classes: Some(fitted.iter().map(|f| f.class.clone()).collect()),
            ..Default::default()
        };
        let again = p.generate(9).unwrap();
        let ratio = again.jobs.len() as f64 / w.jobs.len() as f64;
        assert!(
            (0.8..1.25).contains(&ratio),
            "{} vs {}",
            again.jobs.len(),
            w.jobs.len()
        );
    }

    #[test]
    fn synthesize_draws_over_the_traces_span_and_is_reproducible() {
        let w = HyperErlangWorkload::preset("M3").generate(5).unwrap();
        let fitted = fit_classes(&w.jobs, 8);
        let a = synthesize(&w.jobs, &fitted, SYNTHETIC_SEED).unwrap();
        let last = w.jobs.last().unwrap().submit.as_secs_f64();
        assert_eq!(a.horizon_s, last);
        assert!(a
            .workload
            .jobs
            .iter()
            .all(|j| j.submit.as_secs_f64() < last));
        let ratio = a.workload.jobs.len() as f64 / w.jobs.len() as f64;
        assert!((0.7..1.3).contains(&ratio), "ratio {ratio}");
        let b = synthesize(&w.jobs, &fitted, SYNTHETIC_SEED).unwrap();
        assert_eq!(a.workload.jobs, b.workload.jobs);
        assert!(synthesize(&[], &[], 1).is_err());
    }

    #[test]
    fn same_seed_same_jobs() {
        let p = HyperErlangWorkload::preset("M3");
        let a = p.generate(42).unwrap();
        let b = p.generate(42).unwrap();
        let c = p.generate(43).unwrap();
        assert_eq!(a.jobs, b.jobs);
        assert_ne!(a.jobs, c.jobs);
        assert_eq!(a.name, b.name);
    }

    #[test]
    fn factors_scale_the_workload() {
        let base = HyperErlangWorkload::preset("M1").generate(3).unwrap();
        let mut p = HyperErlangWorkload::preset("M1");
        p.arrival_rate_factor = 2.0;
        p.service_time_factor = 3.0;
        let heavy = p.generate(3).unwrap();
        let ratio = heavy.jobs.len() as f64 / base.jobs.len() as f64;
        assert!((1.8..2.2).contains(&ratio), "{ratio}");
        let mean = |w: &Workload| {
            w.jobs.iter().map(|j| j.runtime.as_secs_f64()).sum::<f64>() / w.jobs.len() as f64
        };
        let r = mean(&heavy) / mean(&base);
        assert!((2.5..3.5).contains(&r), "{r}");
    }

    #[test]
    fn invalid_parameters_are_rejected() {
        let bad = |f: &dyn Fn(&mut HyperErlangWorkload)| {
            let mut p = HyperErlangWorkload::default();
            f(&mut p);
            p.generate(1).unwrap_err()
        };
        assert!(bad(&|p| p.horizon_s = 0.0).contains("horizon"));
        assert!(bad(&|p| p.horizon_s = f64::NAN).contains("horizon"));
        assert!(bad(&|p| p.arrival_rate_factor = -1.0).contains("arrival_rate_factor"));
        assert!(bad(&|p| p.estimate_factor = 0.5).contains("estimate_factor"));
        assert!(bad(&|p| p.machine = "X9".into()).contains("preset"));
        assert!(bad(&|p| p.max_procs = Some(0)).contains("max_procs"));
        assert!(bad(&|p| p.classes = Some(vec![])).contains("class"));
        assert!(bad(&|p| p.horizon_s = 1e15).contains("jobs"));
        let mut cl = sob_classes("M1").unwrap();
        cl[0].interarrival.lambda1 = -2.75e-4;
        assert!(bad(&|p| p.classes = Some(cl.clone())).contains("lambda1"));
        let mut cl = sob_classes("M1").unwrap();
        cl[1].service.rho = 1.5;
        assert!(bad(&|p| p.classes = Some(cl.clone())).contains("rho"));
        let mut cl = sob_classes("M1").unwrap();
        cl[2].service.n = 0;
        assert!(bad(&|p| p.classes = Some(cl.clone())).contains("order"));
        let mut cl = sob_classes("M1").unwrap();
        cl[2].nmin = 50;
        assert!(bad(&|p| p.classes = Some(cl.clone())).contains("nmin"));
        assert!(HyperErlang::new(1, 1.0, 1.0, -0.1).validate().is_err());
        assert!(HyperErlang::new(1, 0.0, 1.0, 0.5).validate().is_err());
    }

    #[test]
    fn parameters_round_trip_through_json() {
        let p = HyperErlangWorkload {
            procs_in_class: ProcsInClass::PowersOfTwo,
            max_procs: Some(3072),
            ..Default::default()
        };
        let s = serde_json::to_string(&p).unwrap();
        assert!(s.contains("powers_of_two"));
        let back: HyperErlangWorkload = serde_json::from_str(&s).unwrap();
        assert_eq!(back, p);
        let partial: HyperErlangWorkload = serde_json::from_str(r#"{"machine":"M2"}"#).unwrap();
        assert_eq!(partial, HyperErlangWorkload::preset("M2"));
    }
}
