//! The Lublin–Feitelson workload model of rigid parallel jobs (U. Lublin and D. G.
//! Feitelson, "The workload on parallel supercomputers: modeling the characteristics of
//! rigid jobs", J. Parallel Distrib. Comput. 63(11):1105–1122, 2003; the model of Lublin's
//! 1999 thesis). docs/workload-models.md has the equations; the parameters below are the
//! paper's (its Table 3 and the reference generator of the Parallel Workloads Archive).
//!
//! A job has
//! - a **size**: serial with probability `serial_prob`; otherwise log2(size) is drawn from a
//!   two-stage uniform on `[ulow, umed]` (probability `uprob`) or `[umed, uhi]`, rounded to an
//!   integer (a power of two) with probability `pow2_prob`, and size = round(2^x);
//! - a **runtime**: exp of a hyper-gamma draw, the first gamma chosen with probability
//!   `p = pa·size + pb` (clamped to [0, 1]) — larger jobs run longer; draws above
//!   ln t = 12 (≈ 45 hours) are redrawn;
//! - an **arrival**: gaps are exp(gamma(aarr·arar, barr)) seconds of *rush-hour* time, spent
//!   through 48 half-hour buckets whose weights follow a gamma(anum, bnum) daily cycle, so
//!   nights are quiet; draws above ln t = 13 are redrawn.
//!
//! With `job_types`, batch and interactive jobs are two such streams with their own
//! parameters, merged by arrival time; without it ("whole sample"), one stream with the
//! paper's all-jobs parameters — the form of the archive's `lublin_256` logs.
//!
//! The random stream is our own (ChaCha8 via [`SimRng`], gamma variates by Marsaglia and
//! Tsang), so a seed does not reproduce the reference C program's jobs, only its
//! distributions; tests/integration/workload_models.rs compares them with lublin_256.

use serde::{Deserialize, Serialize};

use super::Workload;
use crate::model::{Demand, Job};
use crate::rng::SimRng;
use crate::time::SimTime;

/// The machine size the paper's parameters were fitted for (UHi = 7).
pub const LUBLIN_PAPER_NODES: u32 = 128;

/// Runtimes above e^12 s and gaps above e^13 s are redrawn (the model's cut-offs).
const LN_MAX_RUNTIME: f64 = 12.0;
const LN_MAX_GAP: f64 = 13.0;
const BUCKETS: usize = 48;
const SECONDS_IN_BUCKET: f64 = 1800.0;
/// The smallest `load_factor` (1/1000 of the model's arrival rate).
pub const MIN_LOAD_FACTOR: f64 = 0.001;
/// The daily-cycle gamma is fitted to a day running from bucket 11 on (05:30).
const CYCLIC_DAY_START: usize = 11;

/// Parameters of the Lublin–Feitelson generator. Defaults are the paper's for a
/// 128-node machine, whole-sample form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[serde(deny_unknown_fields)]
pub struct Lublin {
    pub jobs: u32,
    /// The machine's size: the widest job (UHi = log2 nodes; UMed follows the paper's
    /// rule UMed = UHi − 2.5, or UHi − 2 for batch jobs).
    pub nodes: u32,
    /// Batch and interactive jobs as two streams with their own parameters (the paper's
    /// typed model); `false` = one stream with the all-jobs parameters.
    pub job_types: bool,
    /// Divides every inter-arrival gap: above 1 is a heavier load on the same machine.
    pub load_factor: f64,
    /// Estimates are the runtime times this factor (≥ 1; the model has no estimates).
    pub estimate_factor: f64,
    /// Hour of the day (0–23) at which the first bucket starts.
    pub start_hour: u32,
    /// Share of the jobs (0–1) that ask for `gpus_per_job` GPUs (issue #37: no public log
    /// has GPUs, so GPU workloads are drawn). 0, the default, draws none and leaves the
    /// jobs exactly as before.
    #[serde(skip_serializing_if = "is_zero")]
    pub gpu_share: f64,
    /// GPUs each GPU job asks for, for the whole job.
    #[serde(skip_serializing_if = "is_one")]
    pub gpus_per_job: u32,
    /// Share of the jobs (0–1) that ask for `mem_kb_per_proc` KB of memory per processor
    /// (the others state none). 0, the default, draws none.
    #[serde(skip_serializing_if = "is_zero")]
    pub mem_share: f64,
    /// Memory per processor of a memory job, KB (SWF's unit).
    #[serde(skip_serializing_if = "is_zero_kb")]
    pub mem_kb_per_proc: u64,
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

fn is_one(v: &u32) -> bool {
    *v == 1
}

fn is_zero_kb(v: &u64) -> bool {
    *v == 0
}

/// Seeds the demands' own stream: drawing them leaves the model's stream, so the jobs,
/// untouched.
const DEMANDS_STREAM: u64 = 0x6770_7573_5f6d_656d;

impl Default for Lublin {
    fn default() -> Self {
        Lublin {
            jobs: 10_000,
            nodes: LUBLIN_PAPER_NODES,
            job_types: false,
            load_factor: 1.0,
            estimate_factor: 1.0,
            start_hour: 0,
            gpu_share: 0.0,
            gpus_per_job: 1,
            mem_share: 0.0,
            mem_kb_per_proc: 0,
        }
    }
}

/// One job class's parameters (the paper's Table 3 columns).
#[derive(Clone, Copy, Debug)]
struct ClassParams {
    serial_prob: f64,
    pow2_prob: f64,
    ulow: f64,
    umed: f64,
    uhi: f64,
    uprob: f64,
    a1: f64,
    b1: f64,
    a2: f64,
    b2: f64,
    pa: f64,
    pb: f64,
    aarr: f64,
    barr: f64,
    anum: f64,
    bnum: f64,
    arar: f64,
}

/// All jobs (whole sample), batch and interactive, for a machine of 2^uhi nodes.
fn whole_sample(uhi: f64) -> ClassParams {
    ClassParams {
        serial_prob: 0.244,
        pow2_prob: 0.576,
        ulow: 0.8,
        umed: (uhi - 2.5).max(0.8),
        uhi,
        uprob: 0.86,
        a1: 4.2,
        b1: 0.94,
        a2: 312.0,
        b2: 0.03,
        pa: -0.0054,
        pb: 0.78,
        aarr: 10.2303,
        barr: 0.4871,
        anum: 8.1737,
        bnum: 3.9631,
        arar: 1.0225,
    }
}

fn batch(uhi: f64) -> ClassParams {
    ClassParams {
        serial_prob: 0.2927,
        pow2_prob: 0.6686,
        ulow: 1.2,
        umed: (uhi - 2.0).max(1.2),
        uhi,
        uprob: 0.875,
        a1: 6.57,
        b1: 0.823,
        a2: 639.1,
        b2: 0.0156,
        pa: -0.003,
        pb: 0.6986,
        aarr: 6.0415,
        barr: 0.8531,
        anum: 6.1271,
        bnum: 5.2740,
        arar: 1.0519,
    }
}

/// Interactive jobs are narrow in the paper (UHi 5.5: at most 45 nodes); on a smaller
/// machine the ceiling is the machine.
fn interactive(uhi: f64) -> ClassParams {
    let hi = uhi.min(5.5);
    ClassParams {
        serial_prob: 0.1541,
        pow2_prob: 0.625,
        ulow: 1.0,
        umed: 3.0f64.min(hi - 0.5).max(1.0),
        uhi: hi,
        uprob: 0.705,
        a1: 3.8351,
        b1: 0.6605,
        a2: 7.073,
        b2: 0.6856,
        pa: -0.0118,
        pb: 0.9156,
        aarr: 6.5510,
        barr: 0.6621,
        anum: 8.9186,
        bnum: 3.6680,
        arar: 0.9797,
    }
}

impl Lublin {
    pub fn validate(&self) -> Result<(), String> {
        if self.jobs == 0 {
            return Err("jobs must be at least 1".into());
        }
        if !(4..=1 << 24).contains(&self.nodes) {
            return Err(format!(
                "nodes must be between 4 and 16,777,216 (got {})",
                self.nodes
            ));
        }
        // Each gap is drawn in half-hour buckets, one step per bucket: below 1/1000 of the
        // model's rate one gap would take up to 10^5 steps, and 1e-300 (found by fuzzing the
        // Python entry points) never ends.
        if !(self.load_factor.is_finite() && self.load_factor >= MIN_LOAD_FACTOR) {
            return Err(format!(
                "load_factor must be at least {MIN_LOAD_FACTOR} (got {}): a smaller one spaces arrivals by decades",
                self.load_factor
            ));
        }
        if !(self.estimate_factor.is_finite() && self.estimate_factor >= 1.0) {
            return Err(format!(
                "estimate_factor must be at least 1 (got {})",
                self.estimate_factor
            ));
        }
        for (name, share) in [("gpu_share", self.gpu_share), ("mem_share", self.mem_share)] {
            if !(0.0..=1.0).contains(&share) {
                return Err(format!("{name} must be between 0 and 1 (got {share})"));
            }
        }
        if self.gpu_share > 0.0 && self.gpus_per_job == 0 {
            return Err("gpus_per_job must be at least 1 when gpu_share is above 0".into());
        }
        if self.mem_share > 0.0 && self.mem_kb_per_proc == 0 {
            return Err("mem_kb_per_proc must be at least 1 when mem_share is above 0".into());
        }
        if self.start_hour > 23 {
            return Err(format!(
                "start_hour must be 0 to 23 (got {})",
                self.start_hour
            ));
        }
        Ok(())
    }

    /// The classes drawn: one (whole sample) or batch then interactive.
    fn classes(&self) -> Vec<ClassParams> {
        let uhi = libm::log2(self.nodes as f64);
        if self.job_types {
            vec![batch(uhi), interactive(uhi)]
        } else {
            vec![whole_sample(uhi)]
        }
    }

    /// Draws the workload; the same seed gives the same jobs on every platform.
    pub fn generate(&self, seed: u64) -> Result<Workload, String> {
        self.validate()?;
        let mut rng = SimRng::new(seed);
        let mut streams: Vec<Arrivals> = self
            .classes()
            .into_iter()
            .map(|c| Arrivals::new(c, self.start_hour, self.load_factor, &mut rng))
            .collect();
        let mut jobs = Vec::with_capacity(self.jobs as usize);
        for i in 0..self.jobs {
            // The class whose next arrival comes first (batch on a tie, as the reference).
            let k = (0..streams.len())
                .min_by(|&a, &b| streams[a].next.total_cmp(&streams[b].next))
                .unwrap_or(0);
            let submit = streams[k].next;
            streams[k].advance(&mut rng);
            let c = streams[k].class;
            let procs = draw_size(&c, self.nodes, &mut rng);
            let runtime_s = draw_runtime(&c, procs, &mut rng);
            let estimate_s = (runtime_s as f64 * self.estimate_factor).ceil() as i64;
            jobs.push(Job {
                id: i as i64 + 1,
                submit: SimTime::from_secs(submit.floor() as i64),
                runtime: SimTime::from_secs(runtime_s),
                estimate: SimTime::from_secs(estimate_s.max(1)),
                procs,
                home: 0,
                user: -1,
                partition: -1,
            });
        }
        let name = format!(
            "lublin(jobs={}, nodes={}, {}, load={}, seed={seed})",
            self.jobs,
            self.nodes,
            if self.job_types {
                "batch+interactive"
            } else {
                "whole sample"
            },
            self.load_factor
        );
        let mut w = Workload::generated(name, jobs, vec![]);
        w.demands = self.demands(w.jobs.len(), seed);
        if !w.demands.is_empty() {
            // The import report counts what the jobs state, as a trace reader's does.
            let mut counts = super::swf::ResourceCounts::default();
            for d in &w.demands {
                for (c, stated, drawn) in [
                    (&mut counts.memory, d.mem_kb > 0, self.mem_share > 0.0),
                    (&mut counts.gpus, d.gpus > 0, self.gpu_share > 0.0),
                ] {
                    match (stated, drawn) {
                        (true, _) => c.known += 1,
                        (false, true) => c.missing += 1,
                        (false, false) => {}
                    }
                }
            }
            w.report.resources = Some(counts);
            w.name.push_str(&format!(
                " + GPUs {}×{}, memory {}×{} KB/proc",
                self.gpu_share, self.gpus_per_job, self.mem_share, self.mem_kb_per_proc
            ));
            w.report.file = w.name.clone();
        }
        Ok(w)
    }

    /// True when some job may ask for more than processors.
    pub fn has_demands(&self) -> bool {
        self.gpu_share > 0.0 || self.mem_share > 0.0
    }

    /// True when a GPU or memory field differs from its default, so the description needs
    /// scenario version 7 (an older reader refuses the fields).
    pub fn states_demands(&self) -> bool {
        self.has_demands() || self.gpus_per_job != 1 || self.mem_kb_per_proc != 0
    }

    /// What each of `jobs` jobs asks beyond processors, from the demands' own stream: per
    /// job a draw for GPUs, then one for memory. Empty when no job asks for more.
    fn demands(&self, jobs: usize, seed: u64) -> Vec<Demand> {
        if !self.has_demands() {
            return Vec::new();
        }
        let mut rng = SimRng::new(seed ^ DEMANDS_STREAM);
        let demands: Vec<Demand> = (0..jobs)
            .map(|_| {
                let gpu = rng.uniform() < self.gpu_share;
                let mem = rng.uniform() < self.mem_share;
                Demand {
                    gpus: if gpu { self.gpus_per_job } else { 0 },
                    mem_kb: if mem { self.mem_kb_per_proc } else { 0 },
                    ..Demand::default()
                }
            })
            .collect();
        match demands.iter().all(Demand::is_processors_only) {
            true => Vec::new(),
            false => demands,
        }
    }
}

/// log2(size) from the two-stage uniform, rounded for power-of-two jobs; a power-of-two
/// round up past a machine that is not a power of two is held to the machine.
fn draw_size(c: &ClassParams, nodes: u32, rng: &mut SimRng) -> u32 {
    let u = rng.uniform();
    if u <= c.serial_prob {
        return 1;
    }
    let stage = rng.uniform();
    let (lo, hi) = if stage <= c.uprob {
        (c.ulow, c.umed)
    } else {
        (c.umed, c.uhi)
    };
    let mut x = lo + (hi - lo) * rng.uniform();
    if u <= c.serial_prob + c.pow2_prob {
        x = libm::round(x);
    }
    (libm::round(libm::pow(2.0, x)) as u32).clamp(1, nodes)
}

/// Seconds: exp of the hyper-gamma draw (≥ 1 s, since the draw is ≥ 0).
fn draw_runtime(c: &ClassParams, procs: u32, rng: &mut SimRng) -> i64 {
    let p = (c.pa * procs as f64 + c.pb).clamp(0.0, 1.0);
    loop {
        let (a, b) = if rng.uniform() <= p {
            (c.a1, c.b1)
        } else {
            (c.a2, c.b2)
        };
        let hg = gamma(rng, a, b);
        if hg <= LN_MAX_RUNTIME {
            return (libm::exp(hg) as i64).max(1);
        }
    }
}

/// One class's arrival process: rush-hour gaps spent through the daily cycle's buckets.
struct Arrivals {
    class: ClassParams,
    /// Each half-hour bucket's share of the day's arrivals, normalized to mean 1.
    weights: [f64; BUCKETS],
    bucket: usize,
    points: f64,
    remainder: f64,
    load_factor: f64,
    /// Seconds from time zero of this class's next arrival.
    next: f64,
}

impl Arrivals {
    fn new(class: ClassParams, start_hour: u32, load_factor: f64, rng: &mut SimRng) -> Arrivals {
        let mut weights = [0.0; BUCKETS];
        for i in CYCLIC_DAY_START..BUCKETS + CYCLIC_DAY_START {
            let x = i as f64;
            weights[(i - 1) % BUCKETS] = gamma_cdf(x + 0.5, class.anum, class.bnum)
                - gamma_cdf(x - 0.5, class.anum, class.bnum);
        }
        let mean = weights.iter().sum::<f64>() / BUCKETS as f64;
        for w in &mut weights {
            // A bucket of weight 0 would never let time pass; the fitted gammas give none,
            // but keep the loop finite whatever the parameters.
            *w = (*w / mean).max(1e-9);
        }
        let mut a = Arrivals {
            class,
            weights,
            bucket: start_hour as usize * BUCKETS / 24,
            points: 0.0,
            remainder: 0.0,
            load_factor,
            next: 0.0,
        };
        a.advance(rng);
        a
    }

    /// Draws the gap to this class's next arrival.
    fn advance(&mut self, rng: &mut SimRng) {
        let c = self.class;
        let gam = loop {
            let g = gamma(rng, c.aarr * c.arar, c.barr);
            if g <= LN_MAX_GAP {
                break g;
            }
        };
        self.points += libm::exp(gam) / (SECONDS_IN_BUCKET * self.load_factor);
        let mut gap = 0.0;
        while self.points > self.weights[self.bucket] {
            self.points -= self.weights[self.bucket];
            self.bucket = (self.bucket + 1) % BUCKETS;
            gap += SECONDS_IN_BUCKET;
        }
        let remainder = self.points / self.weights[self.bucket];
        gap += SECONDS_IN_BUCKET * (remainder - self.remainder);
        self.remainder = remainder;
        self.next += gap;
    }
}

/// A gamma(shape, scale) variate (mean shape·scale), by Marsaglia and Tsang (2000); for
/// shape < 1 through shape + 1 and a power of a uniform.
pub fn gamma(rng: &mut SimRng, shape: f64, scale: f64) -> f64 {
    if shape < 1.0 {
        let u = rng.uniform_open0();
        return gamma(rng, shape + 1.0, scale) * libm::pow(u, 1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / libm::sqrt(9.0 * d);
    loop {
        let (x, v) = loop {
            let x = normal(rng);
            let v = 1.0 + c * x;
            if v > 0.0 {
                break (x, v * v * v);
            }
        };
        let u = rng.uniform_open0();
        if u < 1.0 - 0.0331 * x * x * x * x
            || libm::log(u) < 0.5 * x * x + d * (1.0 - v + libm::log(v))
        {
            return d * v * scale;
        }
    }
}

/// A standard normal variate (Box–Muller, one of the pair).
fn normal(rng: &mut SimRng) -> f64 {
    let u1 = rng.uniform_open0();
    let u2 = rng.uniform();
    libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(2.0 * core::f64::consts::PI * u2)
}

/// The gamma(shape, scale) distribution function: the regularized lower incomplete gamma
/// P(shape, x / scale), by its series below shape + 1 and its continued fraction above
/// (Numerical Recipes §6.2).
pub fn gamma_cdf(x: f64, shape: f64, scale: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let x = x / scale;
    let ln_prefix = shape * libm::log(x) - x - libm::lgamma(shape);
    if x < shape + 1.0 {
        let (mut sum, mut term, mut a) = (1.0 / shape, 1.0 / shape, shape);
        for _ in 0..1000 {
            a += 1.0;
            term *= x / a;
            sum += term;
            if term.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        (sum * libm::exp(ln_prefix)).clamp(0.0, 1.0)
    } else {
        // Lentz's method for the continued fraction of Q.
        let tiny = 1e-300;
        let mut b = x + 1.0 - shape;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1000 {
            let an = -(i as f64) * (i as f64 - shape);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-15 {
                break;
            }
        }
        (1.0 - libm::exp(ln_prefix) * h).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GPU and memory jobs are drawn from their own stream: the jobs are the model's
    /// exactly, the shares come out near the asked ones, and the import report counts them.
    #[test]
    fn gpu_and_memory_jobs_leave_the_jobs_as_the_model_draws_them() {
        let plain = Lublin {
            jobs: 4_000,
            ..Lublin::default()
        };
        let with = Lublin {
            gpu_share: 0.25,
            gpus_per_job: 4,
            mem_share: 0.5,
            mem_kb_per_proc: 1 << 20,
            ..plain.clone()
        };
        let (a, b) = (plain.generate(3).unwrap(), with.generate(3).unwrap());
        assert_eq!(a.jobs, b.jobs);
        assert!(a.demands.is_empty() && a.report.resources.is_none());
        assert_eq!(b.demands.len(), 4_000);
        let gpu_jobs = b.demands.iter().filter(|d| d.gpus == 4).count();
        let mem_jobs = b.demands.iter().filter(|d| d.mem_kb == 1 << 20).count();
        assert!((900..1100).contains(&gpu_jobs), "{gpu_jobs}");
        assert!((1850..2150).contains(&mem_jobs), "{mem_jobs}");
        let counts = b.report.resources.unwrap();
        assert_eq!(counts.gpus.known, gpu_jobs as u64);
        assert_eq!(counts.memory.known + counts.memory.missing, 4_000);
        for bad in [
            Lublin {
                gpu_share: 1.5,
                ..Lublin::default()
            },
            Lublin {
                gpu_share: 0.5,
                gpus_per_job: 0,
                ..Lublin::default()
            },
            Lublin {
                mem_share: 0.5,
                ..Lublin::default()
            },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn gamma_cdf_matches_known_values() {
        // Shape 1 is the exponential: P = 1 − e^{−x/scale}.
        assert!((gamma_cdf(2.0, 1.0, 1.0) - (1.0 - (-2.0f64).exp())).abs() < 1e-12);
        // Shape 2, scale 1: P = 1 − e^{−x}(1 + x); at x = 3 (continued-fraction side).
        let want = 1.0 - (-3.0f64).exp() * 4.0;
        assert!((gamma_cdf(3.0, 2.0, 1.0) - want).abs() < 1e-12);
        assert!((gamma_cdf(0.5, 2.0, 1.0) - (1.0 - (-0.5f64).exp() * 1.5)).abs() < 1e-12);
    }

    #[test]
    fn gamma_variates_have_the_right_mean_and_variance() {
        let mut rng = SimRng::new(7);
        for &(shape, scale) in &[(0.5, 2.0), (4.2, 0.94), (312.0, 0.03)] {
            let n = 200_000;
            let xs: Vec<f64> = (0..n).map(|_| gamma(&mut rng, shape, scale)).collect();
            let mean = xs.iter().sum::<f64>() / n as f64;
            let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
            let (m, v) = (shape * scale, shape * scale * scale);
            assert!(
                (mean - m).abs() < 0.01 * m,
                "{shape} {scale}: mean {mean} vs {m}"
            );
            assert!(
                (var - v).abs() < 0.03 * v,
                "{shape} {scale}: var {var} vs {v}"
            );
        }
    }

    #[test]
    fn jobs_fit_the_machine_and_arrive_in_order() {
        for job_types in [false, true] {
            for nodes in [4, 100, 128, 1024] {
                let g = Lublin {
                    jobs: 3000,
                    nodes,
                    job_types,
                    ..Lublin::default()
                };
                let w = g.generate(3).unwrap();
                assert_eq!(w.jobs.len(), 3000);
                assert!(w.jobs.windows(2).all(|p| p[0].submit <= p[1].submit));
                assert!(w.jobs.iter().all(|j| (1..=nodes).contains(&j.procs)));
                assert!(w
                    .jobs
                    .iter()
                    .all(|j| (1..=162_755).contains(&(j.runtime.0 / 1000))));
            }
        }
    }

    #[test]
    fn bad_parameters_are_refused() {
        let bad = [
            Lublin {
                jobs: 0,
                ..Lublin::default()
            },
            Lublin {
                nodes: 2,
                ..Lublin::default()
            },
            Lublin {
                load_factor: f64::NAN,
                ..Lublin::default()
            },
            // Fuzzing found it: each gap a loop of ~10^302 buckets.
            Lublin {
                load_factor: 1e-300,
                ..Lublin::default()
            },
            Lublin {
                estimate_factor: 0.5,
                ..Lublin::default()
            },
            Lublin {
                start_hour: 24,
                ..Lublin::default()
            },
        ];
        for g in bad {
            assert!(g.generate(1).is_err(), "{g:?}");
        }
    }
}
