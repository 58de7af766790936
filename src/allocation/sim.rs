//! SF's queueing model (§III): n resources, each a single-server FCFS queue of rate μ_i;
//! batches of k jobs arrive at a global scheduler that dispatches every job by an
//! allocation policy. Job sizes are exponential (mean 1 unit of work), a job of size x takes
//! x / μ_i seconds on resource i (at the rate in force when it starts).
//!
//! Time is an integer count of nanoseconds, so the run is exactly reproducible; arrivals are
//! processed in order and each queue advances by Lindley's recursion (start = max(arrival,
//! server free), end = start + service).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::fractions::{owa_batch, validate, weighted};
use crate::rng::SimRng;

const NS: f64 = 1e9;

/// A resource's rate changes at a point in time (degradation, recovery).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RateChange {
    /// Seconds from the start of the run.
    pub at_s: f64,
    pub resource: usize,
    pub rate: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BatchSystem {
    /// Service rates μ_i (jobs of mean size 1 per second).
    pub rates: Vec<f64>,
    /// Batches per second (λ).
    pub lambda: f64,
    /// Jobs per batch (k).
    pub batch_size: u32,
    /// Coefficient of variation of batch inter-arrival times: 1 is Poisson, above 1 a
    /// two-stage hyper-exponential with balanced means (SF §V-E).
    #[serde(default = "one")]
    pub arrival_cv: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rate_changes: Vec<RateChange>,
    /// DLL's load-report interval Δ in seconds: resources report their queue lengths at
    /// multiples of Δ; DLL sees the last report plus the jobs it sent since (completions after
    /// the report are unseen). 0: exact, instant queue lengths.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dll_report_s: f64,
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

fn one() -> f64 {
    1.0
}

/// How the global scheduler places each job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AllocationPolicy {
    /// Weighted workload (SF eq. 2), fractions from the initial rates.
    Ww,
    /// Optimal workload allocation for batch arrivals (SF eq. 11 + Fig. 2), from the
    /// initial rates: static.
    Owa,
    /// Dynamic least load: each job to the resource with the lowest (jobs present + 1) / μ_i
    /// at that instant (ties to the lowest index). Knows the true current rates: the
    /// dynamic upper bound of SF §V.
    Dll,
    /// Hybrid adaptive (SF §VI): before each batch, estimate each μ_i from the jobs already
    /// completed at i — μ̂_i = 1 / mean run time of the last `HYBRID_WINDOW` of them (mean
    /// job size is 1) — and recompute OWA from the estimates; equal shares at the start.
    /// SF infers speeds from response times; inverting eq. 6 from response times proved
    /// unstable here (a backlog inflates responses long after its cause), while the run
    /// times come from the same completion records. A resource given no work keeps its
    /// last estimate.
    Hybrid,
}

/// Completed jobs per resource the hybrid scheduler averages over.
pub const HYBRID_WINDOW: usize = 20;

impl AllocationPolicy {
    pub const ALL: [AllocationPolicy; 4] = [
        AllocationPolicy::Ww,
        AllocationPolicy::Owa,
        AllocationPolicy::Dll,
        AllocationPolicy::Hybrid,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AllocationPolicy::Ww => "ww",
            AllocationPolicy::Owa => "owa",
            AllocationPolicy::Dll => "dll",
            AllocationPolicy::Hybrid => "hybrid",
        }
    }

    pub fn parse(s: &str) -> Result<AllocationPolicy, String> {
        AllocationPolicy::ALL
            .into_iter()
            .find(|p| p.name() == s.trim().to_ascii_lowercase())
            .ok_or_else(|| {
                format!("unknown allocation policy '{s}'; expected ww, owa, dll or hybrid")
            })
    }
}

/// How a batch's jobs are spread given fractions α.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dispatch {
    /// Each job independently picks resource i with probability α_i (the default).
    #[default]
    Random,
    /// Deterministic: each resource earns α_i·k credit per batch and each job goes to the
    /// resource with the most credit (largest remainder carried over between batches).
    Rounded,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AllocationOutcome {
    /// Mean response (wait + service) of the jobs of the measured batches, seconds.
    pub mean_response_s: f64,
    pub jobs_measured: u64,
    /// Fraction of the measured jobs each resource received.
    pub shares: Vec<f64>,
    /// The hybrid scheduler's fractions, sampled at up to 200 batches (empty otherwise).
    pub fraction_history: Vec<(u64, Vec<f64>)>,
}

struct Server {
    free_at: i64,
    /// End times of jobs not yet finished (FCFS, so sorted).
    pending_ends: VecDeque<i64>,
    /// (end, run time) of dispatched jobs, for the hybrid scheduler to learn from once ended.
    unseen: VecDeque<(i64, i64)>,
    /// Run times of the last completed jobs (ns) and their sum.
    window: VecDeque<i64>,
    window_sum: i64,
    /// Ends of jobs completed after DLL's last load report (it still counts them).
    unreported: VecDeque<i64>,
}

impl Server {
    /// The queue length DLL believes in: jobs present plus those that ended since the last
    /// report (exact when reports are instant).
    fn believed_len(&self) -> usize {
        self.pending_ends.len() + self.unreported.len()
    }

    /// Drops the jobs ended by `t`; with `track`, remembers those that ended after the last
    /// report (`reported_at`) until a report covers them.
    fn advance(&mut self, t: i64, reported_at: i64, track: bool) {
        while let Some(&e) = self.pending_ends.front().filter(|&&e| e <= t) {
            self.pending_ends.pop_front();
            if track && e > reported_at {
                self.unreported.push_back(e);
            }
        }
        while self.unreported.front().is_some_and(|&e| e <= reported_at) {
            self.unreported.pop_front();
        }
    }
}

/// DLL's choice: the lowest (believed jobs + 1) / μ_i at `t`, ties to the lowest index.
fn least_loaded(servers: &[Server], sys: &BatchSystem, changes: &[RateChange], t: i64) -> usize {
    let load = |i: usize| (servers[i].believed_len() + 1) as f64 / rate_at(sys, changes, i, t);
    (0..servers.len())
        .min_by(|&a, &b| load(a).total_cmp(&load(b)).then(a.cmp(&b)))
        .unwrap_or(0)
}

fn rate_at(sys: &BatchSystem, changes: &[RateChange], i: usize, t: i64) -> f64 {
    let mut r = sys.rates[i];
    for c in changes {
        if c.resource == i && (c.at_s * NS) as i64 <= t {
            r = c.rate;
        }
    }
    r
}

/// The largest inter-arrival CV a run accepts. Beyond about 10⁸ the short branch of the
/// hyper-exponential takes all but 1/(2c²) of the arrivals, which f64 no longer tells from
/// none: a larger CV would not give a larger variation, only the same run under a bigger
/// number (and past 1.3·10¹⁵⁴, c² is infinite). 10⁹ is far beyond SF's Fig. 8 (CV ≤ 10).
pub const MAX_ARRIVAL_CV: f64 = 1e9;

/// The check both the run and the sweep spec make on an arrival CV.
pub fn check_arrival_cv(cv: f64) -> Result<(), String> {
    if !(cv.is_finite() && cv >= 1.0) {
        return Err(format!("the arrival CV must be at least 1 (got {cv})"));
    }
    if cv > MAX_ARRIVAL_CV {
        return Err(format!(
            "the arrival CV must be at most 10⁹ (got {cv:e}): beyond 10⁸ the hyper-exponential's variation no longer grows in f64, and past 1.3·10¹⁵⁴ its c² is infinite"
        ));
    }
    Ok(())
}

/// Inter-arrival sampler: exponential, or balanced two-stage hyper-exponential of a given CV.
fn interarrival(rng: &mut SimRng, mean: f64, cv: f64) -> f64 {
    if cv <= 1.0 {
        return rng.exponential(mean);
    }
    // (c² − 1)/(c² + 1) written with 1/c², which cannot overflow (c² does past 1.3·10¹⁵⁴).
    let inv = 1.0 / (cv * cv);
    let p1 = 0.5 * (1.0 + libm::sqrt((1.0 - inv) / (1.0 + inv)));
    // Balanced means: p1/λ1 = p2/λ2 = mean/2.
    if rng.uniform() < p1 {
        rng.exponential(mean / (2.0 * p1))
    } else {
        rng.exponential(mean / (2.0 * (1.0 - p1)))
    }
}

/// Simulated time is an i64 count of nanoseconds: about 292 years.
fn too_long() -> String {
    "the run would outlast the simulated clock (about 292 years in nanoseconds): raise λ or the rates, or run fewer batches".into()
}

/// The checks a run starts with: the system, the arrival CV, the warm-up, the rate changes.
fn check_run(sys: &BatchSystem, batches: u64, warmup: u64) -> Result<(), String> {
    validate(&sys.rates, sys.lambda, sys.batch_size)?;
    check_arrival_cv(sys.arrival_cv)?;
    if warmup >= batches {
        return Err(format!(
            "warm-up ({warmup}) must be shorter than the run ({batches} batches)"
        ));
    }
    for c in &sys.rate_changes {
        if c.resource >= sys.rates.len()
            || !(c.rate > 0.0 && c.rate.is_finite())
            || c.at_s.is_nan()
            || c.at_s < 0.0
        {
            return Err(format!("invalid rate change {c:?}"));
        }
    }
    Ok(())
}

/// The resource a uniform draw `u` picks by the cumulative `fractions`; rounding can leave
/// the last resources with α = 0 picked: they are skipped.
fn pick_by_fraction(u: f64, fractions: &[f64]) -> usize {
    let mut acc = 0.0;
    let mut pick = fractions.len() - 1;
    for (i, a) in fractions.iter().enumerate() {
        acc += a;
        if u < acc {
            pick = i;
            break;
        }
    }
    while fractions[pick] == 0.0 && pick > 0 {
        pick -= 1;
    }
    pick
}

/// The hybrid scheduler learns each server's rate from the completions it has seen by `t`
/// (the last [`HYBRID_WINDOW`] run times).
fn observe_completions(servers: &mut [Server], estimates: &mut [f64], t: i64) {
    for (i, s) in servers.iter_mut().enumerate() {
        while let Some(&(end, run)) = s.unseen.front() {
            if end > t {
                break;
            }
            s.unseen.pop_front();
            s.window.push_back(run);
            s.window_sum += run;
            if s.window.len() > HYBRID_WINDOW {
                s.window_sum -= s.window.pop_front().unwrap_or(0);
            }
        }
        if s.window_sum > 0 {
            estimates[i] = s.window.len() as f64 * NS / s.window_sum as f64;
        }
    }
}

/// Runs `batches` batches, measuring the jobs of those after the first `warmup`.
pub fn simulate_allocation(
    sys: &BatchSystem,
    policy: AllocationPolicy,
    dispatch: Dispatch,
    batches: u64,
    warmup: u64,
    seed: u64,
) -> Result<AllocationOutcome, String> {
    check_run(sys, batches, warmup)?;
    let n = sys.rates.len();
    let k = sys.batch_size as usize;
    let mut changes = sys.rate_changes.clone();
    changes.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
    // Arrivals and job sizes come from separate streams, so every policy sees the same jobs.
    let mut arrivals_rng = SimRng::new(seed);
    let mut sizes_rng = SimRng::new(seed ^ 0x5F0F_A110_CA71_0000);
    let mut dispatch_rng = SimRng::new(seed ^ 0xD15_7A7C4);
    let static_fractions = match policy {
        AllocationPolicy::Ww => weighted(&sys.rates),
        AllocationPolicy::Owa => owa_batch(&sys.rates, sys.lambda, sys.batch_size)?,
        AllocationPolicy::Dll => vec![0.0; n],
        AllocationPolicy::Hybrid => vec![1.0 / n as f64; n],
    };
    let mut fractions = static_fractions;
    // The hybrid scheduler's beliefs: equal rates, scaled so the system looks half loaded.
    let mut estimates = vec![2.0 * sys.lambda * k as f64 / n as f64; n];
    let mut servers: Vec<Server> = (0..n)
        .map(|_| Server {
            free_at: 0,
            pending_ends: VecDeque::new(),
            unseen: VecDeque::new(),
            window: VecDeque::new(),
            window_sum: 0,
            unreported: VecDeque::new(),
        })
        .collect();
    // DLL's report interval in ns (0: every instant).
    let report = (sys.dll_report_s * NS).round() as i64;
    let mut credits = vec![0.0f64; n];
    let mut t: i64 = 0;
    let mean_gap = 1.0 / sys.lambda;
    let (mut sum_resp, mut measured) = (0i128, 0u64);
    let mut counts = vec![0u64; n];
    let mut history = Vec::new();
    let sample_every = (batches / 200).max(1);
    for b in 0..batches {
        if b > 0 {
            // Float-to-integer casts saturate, so an absurd gap overflows the add: refused.
            let gap = (interarrival(&mut arrivals_rng, mean_gap, sys.arrival_cv) * NS).round();
            t = t.checked_add(gap as i64).ok_or_else(too_long)?;
        }
        // The last load report at or before t (t itself when reports are instant).
        let reported_at = if report > 0 {
            t - t.rem_euclid(report)
        } else {
            t
        };
        let dll = policy == AllocationPolicy::Dll;
        for s in &mut servers {
            s.advance(t, reported_at, dll);
        }
        if policy == AllocationPolicy::Hybrid {
            observe_completions(&mut servers, &mut estimates, t);
            fractions = owa_batch(&estimates, sys.lambda, sys.batch_size)
                .unwrap_or_else(|_| weighted(&estimates));
            if b % sample_every == 0 {
                history.push((b, fractions.clone()));
            }
        }
        if dispatch == Dispatch::Rounded {
            for (c, a) in credits.iter_mut().zip(&fractions) {
                *c += a * k as f64;
            }
        }
        for _ in 0..k {
            let i = match policy {
                AllocationPolicy::Dll => least_loaded(&servers, sys, &changes, t),
                _ => match dispatch {
                    Dispatch::Random => pick_by_fraction(dispatch_rng.uniform(), &fractions),
                    Dispatch::Rounded => {
                        let i = (0..n)
                            .max_by(|&a, &b| credits[a].total_cmp(&credits[b]).then(b.cmp(&a)))
                            .unwrap_or(0);
                        credits[i] -= 1.0;
                        i
                    }
                },
            };
            let size = sizes_rng.exponential(1.0);
            let s = &mut servers[i];
            let start = s.free_at.max(t);
            let rate = rate_at(sys, &changes, i, start);
            let end = start
                .checked_add(((size / rate) * NS).round() as i64)
                .ok_or_else(too_long)?;
            s.free_at = end;
            s.pending_ends.push_back(end);
            if policy == AllocationPolicy::Hybrid {
                s.unseen.push_back((end, end - start));
            }
            if b >= warmup {
                sum_resp += (end - t) as i128;
                measured += 1;
                counts[i] += 1;
            }
        }
    }
    Ok(AllocationOutcome {
        mean_response_s: sum_resp as f64 / measured.max(1) as f64 / NS,
        jobs_measured: measured,
        shares: counts
            .iter()
            .map(|&c| c as f64 / measured.max(1) as f64)
            .collect(),
        fraction_history: history,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// k = 1 with Poisson arrivals on one resource is M/M/1: T = 1 / (μ − λ).
    #[test]
    fn single_resource_matches_mm1() {
        let sys = BatchSystem {
            rates: vec![1.0],
            lambda: 0.5,
            batch_size: 1,
            arrival_cv: 1.0,
            rate_changes: vec![],
            dll_report_s: 0.0,
        };
        let mut means = vec![];
        for seed in 0..5 {
            let out = simulate_allocation(
                &sys,
                AllocationPolicy::Owa,
                Dispatch::Random,
                200_000,
                20_000,
                seed,
            )
            .unwrap();
            means.push(out.mean_response_s);
        }
        let mean = means.iter().sum::<f64>() / means.len() as f64;
        assert!(
            (mean - 2.0).abs() < 0.05,
            "M/M/1 mean response {mean}, expected 2.0"
        );
    }

    /// With batches of k, SF eq. 5 gives T = (k + 1) / (2μ − 2kλ) on one resource.
    #[test]
    fn batch_formula_on_one_resource() {
        let sys = BatchSystem {
            rates: vec![10.0],
            lambda: 0.5,
            batch_size: 10,
            arrival_cv: 1.0,
            rate_changes: vec![],
            dll_report_s: 0.0,
        };
        let out = simulate_allocation(
            &sys,
            AllocationPolicy::Ww,
            Dispatch::Random,
            200_000,
            20_000,
            3,
        )
        .unwrap();
        let expected = 11.0 / (20.0 - 10.0);
        assert!(
            (out.mean_response_s - expected).abs() / expected < 0.03,
            "{} vs {expected}",
            out.mean_response_s
        );
    }

    /// Absurdly slow arrivals or service overflow the nanosecond clock: an error, never
    /// wrapped-around times.
    #[test]
    fn clock_overflow_is_an_error() {
        let mut sys = BatchSystem {
            rates: vec![1.0, 1.0],
            lambda: 1e-12,
            batch_size: 1,
            arrival_cv: 1.0,
            rate_changes: vec![],
            dll_report_s: 0.0,
        };
        let e = simulate_allocation(&sys, AllocationPolicy::Ww, Dispatch::Random, 1000, 0, 1)
            .unwrap_err();
        assert!(e.contains("simulated clock"), "{e}");
        sys.lambda = 0.1;
        sys.rate_changes.push(RateChange {
            at_s: 1.0,
            resource: 0,
            rate: 1e-300,
        });
        let e = simulate_allocation(&sys, AllocationPolicy::Ww, Dispatch::Random, 1000, 0, 1)
            .unwrap_err();
        assert!(e.contains("simulated clock"), "{e}");
    }

    #[test]
    fn same_seed_same_result_and_shares_follow_fractions() {
        let sys = BatchSystem {
            rates: vec![1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 16.0],
            lambda: 0.1,
            batch_size: 10,
            arrival_cv: 1.0,
            rate_changes: vec![],
            dll_report_s: 0.0,
        };
        let a = simulate_allocation(
            &sys,
            AllocationPolicy::Owa,
            Dispatch::Rounded,
            20_000,
            2_000,
            9,
        )
        .unwrap();
        let b = simulate_allocation(
            &sys,
            AllocationPolicy::Owa,
            Dispatch::Rounded,
            20_000,
            2_000,
            9,
        )
        .unwrap();
        assert_eq!(a, b);
        assert!((a.shares[9] - 0.888).abs() < 0.01, "{:?}", a.shares);
    }
}
