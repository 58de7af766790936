//! Running a sweep: its size checked against the limits before anything runs, the plan of
//! point × policy × seed tasks (each a pure function of its number, so threads, the page's
//! workers and cluster cases run the same tasks), and the assembly of the samples into
//! medians and bands.

use serde::{Deserialize, Serialize};

use super::presets::{SweepPreset, SWEEP_PRESETS};
use super::result::{FractionHistory, PolicySeries, SweepResult};
use super::spec::{fastest, SweepSpec, Vary};
use crate::allocation::fractions::owa_batch;
use crate::allocation::AllocationPolicy::Hybrid;
use crate::allocation::{simulate_allocation, BatchSystem};
use crate::limits::{Limit, Limits};
use crate::stats::{median_and_band, median_band};

/// Runs a preset as the paper defined it.
pub fn run_preset(
    preset: &SweepPreset,
    seeds: u64,
    batches: u64,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<SweepResult, String> {
    run_sweep(&(preset.spec)(), seeds, batches, progress)
}

/// Runs a sweep: every point × policy × seed. `progress(done, total)` may return false to
/// cancel. The result names the preset whose spec this is, if any.
pub fn run_sweep(
    spec: &SweepSpec,
    seeds: u64,
    batches: u64,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<SweepResult, String> {
    run_sweep_on(spec, seeds, batches, 1, progress)
}

/// `Err` saying why, when the sweep is malformed or past the limits (what a run would
/// refuse, without running it: the page checks a shared link with it before offering Run).
pub fn check(spec: &SweepSpec, seeds: u64, batches: u64, limits: &Limits) -> Result<(), String> {
    checked_systems(spec, seeds, batches, limits).map(|_| ())
}

/// The sweep's systems, its warm-up and its number of runs, after checking that it is
/// well formed and small enough to finish.
fn checked_systems(
    spec: &SweepSpec,
    seeds: u64,
    batches: u64,
    limits: &Limits,
) -> Result<(Vec<BatchSystem>, u64, u64), String> {
    if seeds == 0 || seeds > 1000 {
        return Err(format!("seeds must be 1..1000 (got {seeds})"));
    }
    if !(100..=10_000_000).contains(&batches) {
        return Err(format!("batches must be 100..10,000,000 (got {batches})"));
    }
    spec.validate(batches)?;
    // SF discards the first third (50,000 of 150,000 batches); a degradation sweep measures
    // the whole run, degradation included.
    let warmup = if spec.vary == Vary::DegradedRate {
        0
    } else {
        batches / 3
    };
    let systems: Vec<BatchSystem> = spec
        .x
        .iter()
        .map(|&x| spec.system(x, batches))
        .collect::<Result<_, _>>()?;
    let total = (systems.len() * spec.policies.len()) as u64 * seeds;
    // About 15 million jobs a second natively (half that in a page): refuse a sweep that
    // would run for hours rather than let it look hung.
    let jobs = jobs_of(spec, &systems, seeds, batches);
    let max = limits.sweep_jobs as f64;
    if !jobs.is_finite() || jobs > max {
        // The page (the only wasm build) has no flags to offer.
        let raise = if cfg!(target_arch = "wasm32") {
            "run it with the command-line gridscope, which can raise the limit".to_string()
        } else {
            format!("raise the limit with {} N", Limit::SweepJobs.flag())
        };
        return Err(format!(
            "this sweep would simulate {jobs:.2e} jobs, more than the limit of {max:.1e} (about {} s natively on one core); \
             use fewer seeds, batches, points or a smaller k, or {raise}",
            (max / 15e6).round(),
        ));
    }
    Ok((systems, warmup, total))
}

/// Jobs a sweep of these systems simulates: Σ points k × batches, × policies × seeds.
fn jobs_of(spec: &SweepSpec, systems: &[BatchSystem], seeds: u64, batches: u64) -> f64 {
    systems
        .iter()
        .map(|s| s.batch_size as f64 * batches as f64)
        .sum::<f64>()
        * (spec.policies.len() as u64 * seeds) as f64
}

/// The jobs a sweep would simulate, without running it; `Err` when it is malformed.
pub fn sweep_jobs(spec: &SweepSpec, seeds: u64, batches: u64) -> Result<f64, String> {
    let systems: Vec<BatchSystem> = spec
        .x
        .iter()
        .map(|&x| spec.system(x, batches))
        .collect::<Result<_, _>>()?;
    Ok(jobs_of(spec, &systems, seeds, batches))
}

/// A shared sweep link above this many jobs (about 25 s in a page) waits for the
/// visitor's go; every preset at its defaults is below it.
pub const CONFIRM_ABOVE_SWEEP_JOBS: f64 = 2e8;

/// [`run_sweep`] on up to `threads` threads (natively; wasm runs them in order): the same
/// result, byte for byte.
pub fn run_sweep_on(
    spec: &SweepSpec,
    seeds: u64,
    batches: u64,
    threads: usize,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<SweepResult, String> {
    run_sweep_within(spec, seeds, batches, threads, &Limits::default(), progress)
}

/// One (point, policy, seed) run of a sweep, as much of it as the result needs: its mean
/// response, and for the one run whose history the result shows (the hybrid's seed-1 run at
/// the last point) its fractions. Runs can be spread over threads or Web Workers and put
/// back together with [`assemble_sweep`]: the result does not depend on where each ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepSample {
    #[serde(with = "any_f64")]
    pub mean_response_s: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fraction_history: Vec<(u64, Vec<f64>)>,
}

/// An f64 that survives JSON whatever its value: finite numbers as numbers, NaN and the
/// infinities as text (JSON has no literal for them, and a sample crosses to the page as
/// JSON; [`assemble_sweep`] then refuses the result with the point at fault).
mod any_f64 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            s.serialize_f64(*v)
        } else {
            s.serialize_str(&v.to_string())
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Number(f64),
        Text(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        match Repr::deserialize(d)? {
            Repr::Number(v) => Ok(v),
            Repr::Text(t) => t.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// A checked sweep, ready to run task by task: `tasks()` runs, numbered point-major, then
/// policy, then seed (the order a single thread runs them in).
pub struct SweepPlan {
    spec: SweepSpec,
    seeds: u64,
    batches: u64,
    systems: Vec<BatchSystem>,
    warmup: u64,
    total: u64,
}

impl SweepPlan {
    /// Checks the sweep (shape, size within `limits`) and builds its systems.
    pub fn new(
        spec: &SweepSpec,
        seeds: u64,
        batches: u64,
        limits: &Limits,
    ) -> Result<SweepPlan, String> {
        let (systems, warmup, total) = checked_systems(spec, seeds, batches, limits)?;
        Ok(SweepPlan {
            spec: spec.clone(),
            seeds,
            batches,
            systems,
            warmup,
            total,
        })
    }

    pub fn tasks(&self) -> u64 {
        self.total
    }

    pub fn spec(&self) -> &SweepSpec {
        &self.spec
    }

    pub fn seeds(&self) -> u64 {
        self.seeds
    }

    pub fn batches(&self) -> u64 {
        self.batches
    }

    /// The tasks worker `worker` of `of` runs, in order: every `of`-th from `worker`
    /// (interleaved, so each worker gets its share of every point's cost).
    pub fn share(&self, worker: u64, of: u64) -> impl Iterator<Item = u64> {
        (worker..self.total).step_by(of.max(1) as usize)
    }

    /// Runs task `k` (`k < tasks()`).
    pub fn run_task(&self, k: u64) -> Result<SweepSample, String> {
        let (n_pol, n_seeds) = (self.spec.policies.len() as u64, self.seeds);
        let (xi, pi, seed) = (k / (n_pol * n_seeds), k / n_seeds % n_pol, k % n_seeds);
        let policy = self.spec.policies[pi as usize];
        let out = simulate_allocation(
            &self.systems[xi as usize],
            policy,
            self.spec.dispatch,
            self.batches,
            self.warmup,
            seed + 1,
        )?;
        let keep_history = policy == Hybrid && seed == 0 && xi + 1 == self.systems.len() as u64;
        Ok(SweepSample {
            mean_response_s: out.mean_response_s,
            fraction_history: if keep_history {
                out.fraction_history
            } else {
                Vec::new()
            },
        })
    }
}

/// [`run_sweep_on`] held to `limits` (the sweep size) instead of the defaults.
pub fn run_sweep_within(
    spec: &SweepSpec,
    seeds: u64,
    batches: u64,
    threads: usize,
    limits: &Limits,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<SweepResult, String> {
    let plan = SweepPlan::new(spec, seeds, batches, limits)?;
    // Every (point, policy, seed) run is independent: on all cores natively, the results
    // in the order a single thread would produce them.
    let task = |k: usize| plan.run_task(k as u64);
    let samples = crate::par::map_in_order(plan.total as usize, threads, &task, &mut |d, t| {
        progress(d as u64, t as u64)
    })
    .ok_or_else(|| "sweep cancelled".to_string())?;
    assemble_sweep(&plan, samples)
}

/// [`assemble_sweep`] from the workers' shares: `shares[w]` holds the samples of
/// [`SweepPlan::share`]`(w, shares.len())`, in order.
pub fn assemble_shares(
    plan: &SweepPlan,
    shares: Vec<Vec<Result<SweepSample, String>>>,
) -> Result<SweepResult, String> {
    let n = shares.len().max(1);
    let mut shares: Vec<_> = shares.into_iter().map(Vec::into_iter).collect();
    let samples = (0..plan.total as usize)
        .map_while(|k| shares.get_mut(k % n)?.next())
        .collect();
    assemble_sweep(plan, samples)
}

/// The sweep's result from its tasks' samples, in task order (the first failed task's error
/// if any failed).
pub fn assemble_sweep(
    plan: &SweepPlan,
    samples: Vec<Result<SweepSample, String>>,
) -> Result<SweepResult, String> {
    let (spec, seeds, batches, warmup) = (&plan.spec, plan.seeds, plan.batches, plan.warmup);
    let systems = &plan.systems;
    if samples.len() as u64 != plan.total {
        return Err("sweep cancelled".into());
    }
    let (band_lo, confidence) = median_band(seeds as usize);
    let mut series: Vec<PolicySeries> = spec
        .policies
        .iter()
        .map(|p| PolicySeries {
            policy: p.name().to_string(),
            ..PolicySeries::default()
        })
        .collect();
    let n_seeds = seeds as usize;
    let mut samples = samples.into_iter();
    // The hybrid's fractions in its seed-1 run at the last point, for `history` (recorded
    // over the whole run, warm-up included).
    let mut hybrid_fractions = None;
    for xi in 0..systems.len() {
        for (pi, &policy) in spec.policies.iter().enumerate() {
            let mut values = Vec::with_capacity(n_seeds);
            for seed in 0..n_seeds {
                let Some(out) = samples.next() else {
                    return Err("sweep cancelled".into());
                };
                let out = out?;
                values.push(out.mean_response_s);
                if policy == Hybrid && seed == 0 && xi + 1 == systems.len() {
                    hybrid_fractions = Some(out.fraction_history);
                }
            }
            let (median, lo, hi) = median_and_band(&mut values, band_lo);
            series[pi].median.push(median);
            series[pi].lo.push(lo);
            series[pi].hi.push(hi);
        }
    }
    let gap: Vec<f64> = series[1]
        .median
        .iter()
        .zip(&series[0].median)
        .map(|(b, a)| 1.0 - b / a)
        .collect();
    let history = match (hybrid_fractions, systems.last()) {
        (Some(fractions), Some(sys)) => Some(fraction_history(spec, sys, batches, &fractions)?),
        _ => None,
    };
    // Every number of the result is finite, or the sweep is refused with the point at fault.
    for p in &series {
        for (i, x) in spec.x.iter().enumerate() {
            let values = [p.median.get(i), p.lo.get(i), p.hi.get(i)];
            if values.iter().any(|v| v.is_some_and(|v| !v.is_finite())) {
                return Err(format!(
                    "at x = {x} the {} response times are not finite numbers (the inputs are beyond \
                     double precision: rescale the rates and λ so they are near 1)",
                    p.policy
                ));
            }
        }
    }
    if let Some(i) = gap.iter().position(|g| !g.is_finite()) {
        return Err(format!(
            "at x = {} the gap between the policies is not a finite number (a median response of 0?)",
            spec.x[i]
        ));
    }
    let preset = SWEEP_PRESETS.iter().find(|p| (p.spec)() == *spec);
    Ok(SweepResult {
        preset: preset.map_or("custom", |p| p.name).to_string(),
        description: preset.map_or_else(|| spec.describe(), |p| p.description.to_string()),
        x_label: spec.vary.label().to_string(),
        paper: preset.map_or("", |p| p.paper).to_string(),
        spec: Some(spec.clone()),
        x: spec.x.clone(),
        seeds,
        batches,
        warmup,
        confidence,
        gap_label: format!(
            "{} better than {} by (1 − {}/{})",
            series[1].policy, series[0].policy, series[1].policy, series[0].policy
        ),
        series,
        gap,
        history,
        elapsed_ms: 0.0,
    })
}

/// The hybrid's fraction for the fastest resource of `sys` over one run (`fractions`: the
/// run's `fraction_history`), beside static OWA and OWA for the degraded rates.
fn fraction_history(
    spec: &SweepSpec,
    sys: &BatchSystem,
    batches: u64,
    fractions: &[(u64, Vec<f64>)],
) -> Result<FractionHistory, String> {
    let resource = fastest(&sys.rates).unwrap_or(0);
    let static_owa = owa_batch(&sys.rates, sys.lambda, sys.batch_size)?[resource];
    let mut after = sys.rates.clone();
    for c in &sys.rate_changes {
        after[c.resource] = c.rate;
    }
    // After degradation the system may be saturated: then no static share is optimal.
    let owa_after = owa_batch(&after, sys.lambda, sys.batch_size)
        .ok()
        .map(|a| a[resource]);
    let change_batch = sys
        .rate_changes
        .first()
        .map_or(batches, |c| (c.at_s * sys.lambda) as u64);
    Ok(FractionHistory {
        x: spec.x.last().copied().unwrap_or(0.0),
        resource,
        batch: fractions.iter().map(|(b, _)| *b).collect(),
        hybrid: fractions
            .iter()
            .map(|(_, f)| f.get(resource).copied().unwrap_or(0.0))
            .collect(),
        static_owa,
        owa_after,
        change_batch,
    })
}
