//! KKOR's experiments as data, and a runner (pure functions, serde results; the CLI and the
//! app wire them).
//!
//! - `kkor-load` (Figs. 2–3): equal streams λ on 32/64/128 processors, a sweep of the offered
//!   load ρ = Σ_k λ_k·E[q_k]·E[p] / Σ_k m_k from light to heavy; centralized, decentralized
//!   (c_k = 0.25) and local; per point the median over seeds and an order-statistic band.
//! - `kkor-fairness` (Fig. 4): unequal loads, O3 overloaded; centralized, `distr1..3`
//!   (c = (.25,.25,.25), (.2,.2,.3), (.1,.1,.5)) and local, each with per-organization values
//!   and their ratio to `local`, medians over seeds.
//!
//! Every policy of a seed sees the same jobs. Medians and bands follow the SF sweeps
//! (`allocation::sweep`): the band is [x(i), x(n−1−i)] of the sorted samples, i the largest
//! index keeping P(x(i) < median < x(n−1−i)) ≥ 95 % (min..max when there are too few seeds);
//! the small formula is copied here rather than shared, to keep the two models apart.

use serde::{Deserialize, Serialize};

use super::generator::{from_swf_jobs, generate, GeneratorParams};
use super::metrics::{KkorMetrics, OrgMetrics, RelativeToLocal, Spread};
use super::{
    paper_clusters, run, Cluster, KkorError, KkorJob, KkorParams, KkorPolicy, KkorRun, Offers,
};

/// (name, what the paper shows).
pub const KKOR_PRESETS: &[(&str, &str)] = &[
    (
        "kkor-load",
        "KKOR Figs. 2–3: three organizations of 32, 64 and 128 processors with equal Poisson streams (500 jobs), offered load from light to heavy; centralized vs decentralized (c_k = 0.25) vs local. The paper: decentralized slightly worse than centralized; close to local at low load (few migrations, most jobs meet their due dates); clearly better than local at high load, especially in tardiness.",
    ),
    (
        "kkor-fairness",
        "KKOR Fig. 4: unequal loads (O3, 128 processors, overloaded; O1 and O2 lightly loaded); centralized, decentralized with c = (.25,.25,.25), (.2,.2,.3), (.1,.1,.5) as distr1..3, and local; per-organization mean flow time against its local value. The paper: the less-loaded organizations stay near their local (selfish) value; the system as a whole depends on their c_k and becomes inefficient when it is too low.",
    ),
    (
        "kkor-real",
        "The same three algorithms on real traces, one per organization (default: DAS2-fs1 on 64 processors, KTH-SP2 on 100, SDSC-SP2 on 128 — the archive's sites nearest the paper's 32/64/128), each trace's first jobs aligned at time 0, one time unit = 60 s, due dates d = r + 3·p (slack rule); c_k = 0.25. The paper has no such experiment: it shows whether its synthetic conclusions survive real job streams. The edge reads the traces and calls `real_traces`.",
    ),
];

/// `kkor-real`'s default traces: (file in the shared trace folder, processors of its cluster).
pub const REAL_TRACES: [(&str, u32); 3] = [
    ("DAS2-fs1-2003-1.swf.gz", 64),
    ("KTH-SP2-1996-2.1-cln.swf.gz", 100),
    ("SDSC-SP2-1998-4.2-cln.swf.gz", 128),
];
/// `kkor-real`'s defaults: jobs taken from the start of each trace, seconds per time unit,
/// slack factor.
pub const REAL_JOBS_PER_SITE: usize = 500;
pub const REAL_TIME_UNIT_S: f64 = 60.0;
pub const REAL_SLACK: f64 = 3.0;

/// The offered loads of `kkor-load`.
pub const LOAD_POINTS: [f64; 6] = [0.2, 0.35, 0.5, 0.65, 0.8, 0.95];
/// Per-organization offered loads of `kkor-fairness` (O1, O2, O3).
pub const FAIRNESS_LOADS: [f64; 3] = [0.3, 0.3, 1.1];
/// The seeds a preset runs when the caller passes 0.
pub const DEFAULT_SEEDS: u64 = 10;

/// One line of a sweep: a policy's metric per x.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KkorSeries {
    pub policy: String,
    pub metric: String,
    pub median: Vec<f64>,
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KkorSweepResult {
    pub preset: String,
    pub description: String,
    pub x_label: String,
    pub x: Vec<f64>,
    pub seeds: u64,
    /// Coverage of the bands.
    pub confidence: f64,
    pub clusters: Vec<Cluster>,
    pub params: KkorParams,
    pub series: Vec<KkorSeries>,
}

/// One algorithm (with its coefficients) in a runs preset; every number is the median over
/// the seeds of that number.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KkorRunSummary {
    pub label: String,
    pub policy: String,
    pub coefficients: Vec<f64>,
    pub metrics: KkorMetrics,
    /// `migrations[from][to]`, median over seeds.
    pub migrations: Vec<Vec<f64>>,
    /// Migration requests and refusals by rule (decentralized), median over seeds.
    pub offers: Offers,
    /// The first job set's schedule (per job where and when it ran, and the batches), for
    /// the page's Gantt chart per cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<KkorSchedule>,
}

/// One run's schedule: [`super::Placement`] per job (input order) and the batch windows.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KkorSchedule {
    /// `(id, processors, origin organization)` per job, in the order of `placements`.
    pub jobs: Vec<(i64, u32, usize)>,
    pub placements: Vec<super::Placement>,
    pub batches: Vec<super::BatchWindow>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KkorRunsResult {
    pub preset: String,
    pub description: String,
    pub seeds: u64,
    pub clusters: Vec<Cluster>,
    /// λ_k per organization (jobs per time unit).
    pub rates: Vec<f64>,
    pub runs: Vec<KkorRunSummary>,
}

/// A preset's result: the SF sweep shape or the `runs[]` shape (serialized as the inner
/// value, without a tag).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum KkorPresetResult {
    Sweep(KkorSweepResult),
    Runs(KkorRunsResult),
}

/// E[p] of the generator: Normal(μ, σ) conditioned on p ≥ 1 (redrawn).
pub fn expected_length(g: &GeneratorParams) -> f64 {
    if g.length_sd == 0.0 {
        return g.length_mean.max(1.0);
    }
    let a = (1.0 - g.length_mean) / g.length_sd;
    let phi = libm::exp(-a * a / 2.0) / libm::sqrt(2.0 * core::f64::consts::PI);
    let tail = 0.5 * libm::erfc(a / core::f64::consts::SQRT_2);
    g.length_mean + g.length_sd * phi / tail
}

/// E[q] of a job born on a cluster of `m` processors.
pub fn expected_procs(g: &GeneratorParams, m: u32) -> f64 {
    let (a, b) = (u64::from(g.min_procs), u64::from(g.max_procs));
    let sum: u64 = (a..=b).map(|q| q.min(u64::from(m))).sum();
    let parallel = sum as f64 / (b - a + 1) as f64;
    g.serial_prob * 1.0 + (1.0 - g.serial_prob) * parallel.min(f64::from(m))
}

/// λ_k giving each organization the offered load `loads[k]` = λ_k·E[q_k]·E[p] / m_k.
pub fn rates_for_loads(clusters: &[Cluster], loads: &[f64]) -> Vec<f64> {
    let g = GeneratorParams::paper(vec![]);
    let p = expected_length(&g);
    clusters
        .iter()
        .zip(loads)
        .map(|(c, &l)| l * f64::from(c.procs) / (expected_procs(&g, c.procs) * p))
        .collect()
}

/// Equal λ for every organization giving the system the offered load `load`.
pub fn equal_rates(clusters: &[Cluster], load: f64) -> Vec<f64> {
    let g = GeneratorParams::paper(vec![]);
    let work: f64 = clusters
        .iter()
        .map(|c| expected_procs(&g, c.procs))
        .sum::<f64>()
        * expected_length(&g);
    let cap: f64 = clusters.iter().map(|c| f64::from(c.procs)).sum();
    vec![load * cap / work; clusters.len()]
}

/// Order-statistic band for the median (the SF sweeps' rule).
use crate::allocation::sweep::median_band;

/// The median of `v` (0 when empty).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// What a caller (the page's KKOR panel) may change in a preset; empty or `None` keeps the
/// preset's value. Times in the paper's time units.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KkorOptions {
    /// `kkor-load`: the offered loads swept; `kkor-fairness`: each organization's load.
    #[serde(default)]
    pub loads: Vec<f64>,
    /// c_k per organization for `kkor-load`'s decentralized runs (KKOR §2.3.2).
    #[serde(default)]
    pub coefficients: Vec<f64>,
    /// S: jobs that close a batch.
    #[serde(default)]
    pub batch_jobs: Option<u32>,
    /// L: time that closes a batch, in time units.
    #[serde(default)]
    pub batch_length: Option<f64>,
}

impl KkorOptions {
    /// The run parameters these options give; the message names the first bad value.
    pub fn params(&self, clusters: usize) -> Result<KkorParams, KkorError> {
        let mut p = KkorParams::default();
        if !self.coefficients.is_empty() {
            if self.coefficients.len() != clusters
                || self.coefficients.iter().any(|c| !(0.0..=1.0).contains(c))
            {
                return Err(KkorError::invalid(
                    "coefficients",
                    format!("give {clusters} cooperation coefficients c_k, each in [0, 1]"),
                ));
            }
            p.coefficients = self.coefficients.clone();
        }
        if let Some(s) = self.batch_jobs {
            if !(1..=100_000).contains(&s) {
                return Err(KkorError::invalid(
                    "batch_jobs",
                    format!("S (jobs per batch) must be 1..100000 (got {s})"),
                ));
            }
            p.batch_jobs = s;
        }
        if let Some(l) = self.batch_length {
            if !(l.is_finite() && l > 0.0 && l <= 1e6) {
                return Err(KkorError::invalid(
                    "batch_length",
                    format!("L (batch length) must be in (0, 10⁶] time units (got {l})"),
                ));
            }
            p.batch_length = super::units_to_ticks(l);
        }
        Ok(p)
    }
}

/// Runs a preset with `seeds` seeds (0: [`DEFAULT_SEEDS`]). `progress(done, total)` may
/// return false to cancel.
pub fn run_preset(
    name: &str,
    seeds: u64,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<KkorPresetResult, String> {
    run_preset_with(name, seeds, &KkorOptions::default(), progress)
}

/// [`run_preset`] with the caller's changes to the preset.
pub fn run_preset_with(
    name: &str,
    seeds: u64,
    options: &KkorOptions,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<KkorPresetResult, String> {
    let seeds = if seeds == 0 { DEFAULT_SEEDS } else { seeds };
    if seeds > 1000 {
        return Err(format!("seeds must be 1..1000 (got {seeds})"));
    }
    let params = options.params(paper_clusters().len())?;
    let loads = |default: &[f64]| {
        if options.loads.is_empty() {
            default.to_vec()
        } else {
            options.loads.clone()
        }
    };
    match name.trim() {
        "kkor-load" => load_sweep(
            &paper_clusters(),
            &loads(&LOAD_POINTS),
            &params,
            500,
            seeds,
            progress,
        )
        .map(KkorPresetResult::Sweep),
        "kkor-fairness" => {
            let clusters = paper_clusters();
            let per_org = loads(&FAIRNESS_LOADS);
            if per_org.len() != clusters.len()
                || per_org.iter().any(|l| !(l.is_finite() && *l > 0.0 && *l <= 10.0))
            {
                return Err(format!(
                    "kkor-fairness needs one offered load per organization ({}), each in (0, 10]",
                    clusters.len()
                ));
            }
            let rates = rates_for_loads(&clusters, &per_org);
            fairness(&clusters, &rates, &params, 500, seeds, progress).map(KkorPresetResult::Runs)
        }
        "kkor-real" => Err(
            "kkor-real runs on real traces, which the library does not read: parse them at the edge and call kkor::presets::real_traces".into(),
        ),
        other => Err(format!(
            "unknown KKOR preset '{other}'; expected one of: {}",
            KKOR_PRESETS
                .iter()
                .map(|p| p.0)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

fn description(name: &str) -> String {
    KKOR_PRESETS
        .iter()
        .find(|p| p.0 == name)
        .map_or(String::new(), |p| p.1.to_string())
}

/// A metric of a run, by name.
pub type MetricOf = (&'static str, fn(&KkorMetrics) -> f64);

/// The metrics a sweep plots.
pub const SWEEP_METRICS: &[MetricOf] = &[
    ("mean_flow_time", |m| m.mean_flow_time),
    ("mean_tardiness", |m| m.mean_tardiness),
    ("late_jobs", |m| m.late_jobs),
    ("utilization", |m| m.utilization),
    ("migrations", |m| m.migrations),
];

/// The load sweep on `clusters`: equal streams at every offered load of `loads`, `jobs`
/// jobs per run, the three policies, `seeds` seeds each.
pub fn load_sweep(
    clusters: &[Cluster],
    loads: &[f64],
    params: &KkorParams,
    jobs: u32,
    seeds: u64,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<KkorSweepResult, String> {
    if loads.is_empty() || loads.len() > 100 || seeds == 0 {
        return Err("a load sweep needs 1..100 loads and at least one seed".into());
    }
    let total = loads.len() as u64 * 3 * seeds;
    let mut done = 0;
    let (band, confidence) = median_band(seeds as usize);
    let mut series: Vec<KkorSeries> = KkorPolicy::ALL
        .iter()
        .flat_map(|p| {
            SWEEP_METRICS.iter().map(|(m, _)| KkorSeries {
                policy: p.name().to_string(),
                metric: m.to_string(),
                ..KkorSeries::default()
            })
        })
        .collect();
    for &load in loads {
        if !(load.is_finite() && load > 0.0 && load <= 10.0) {
            return Err(format!("offered loads must be in (0, 10] (got {load})"));
        }
        // samples[policy][metric][seed]
        let mut samples = vec![vec![Vec::new(); SWEEP_METRICS.len()]; 3];
        for seed in 1..=seeds {
            let per_policy = load_point_seed(clusters, load, params, jobs, seed, &mut || {
                done += 1;
                progress(done, total)
            })?;
            for (pi, values) in per_policy.into_iter().enumerate() {
                for (mi, v) in values.into_iter().enumerate() {
                    samples[pi][mi].push(v);
                }
            }
        }
        for (s, mut v) in series.iter_mut().zip(samples.into_iter().flatten()) {
            v.sort_by(f64::total_cmp);
            s.lo.push(v[band]);
            s.hi.push(v[v.len() - 1 - band]);
            s.median.push(median(v));
        }
    }
    Ok(KkorSweepResult {
        preset: "kkor-load".into(),
        description: description("kkor-load"),
        x_label: "offered load ρ = Σλ_k·E[q_k]·E[p] / Σm_k (equal λ_k)".into(),
        x: loads.to_vec(),
        seeds,
        confidence,
        clusters: clusters.to_vec(),
        params: params.clone(),
        series,
    })
}

/// One seed of one load of [`load_sweep`]: per policy (in [`KkorPolicy::ALL`] order) the
/// values of [`SWEEP_METRICS`] — the samples the sweep takes medians of, so a cluster sweep
/// of single seeds (docs/cluster.md) gives the sweep's own medians. `tick()` after each
/// policy's run may return false to cancel.
pub fn load_point_seed(
    clusters: &[Cluster],
    load: f64,
    params: &KkorParams,
    jobs: u32,
    seed: u64,
    tick: &mut dyn FnMut() -> bool,
) -> Result<Vec<Vec<f64>>, KkorError> {
    if !(load.is_finite() && load > 0.0 && load <= 10.0) {
        return Err(KkorError::invalid(
            "x",
            format!("offered loads must be in (0, 10] (got {load})"),
        ));
    }
    let g = GeneratorParams {
        jobs,
        ..GeneratorParams::paper(equal_rates(clusters, load))
    };
    let js = generate(clusters, &g, seed).map_err(|e| KkorError::invalid("generator", e))?;
    let mut out = Vec::with_capacity(KkorPolicy::ALL.len());
    for &policy in KkorPolicy::ALL.iter() {
        let r = run(clusters, &js, policy, params)?;
        out.push(SWEEP_METRICS.iter().map(|(_, f)| f(&r.metrics)).collect());
        if !tick() {
            return Err(KkorError::Cancelled { what: "sweep" });
        }
    }
    Ok(out)
}

/// One algorithm of a runs preset: its label, policy and c_k (empty: the default 0.25).
pub type Variant = (&'static str, KkorPolicy, &'static [f64]);

/// Fig. 4's five: centralized, distr1..3 and local.
pub const FAIRNESS_VARIANTS: &[Variant] = &[
    ("centralized", KkorPolicy::Centralized, &[]),
    ("distr1", KkorPolicy::Decentralized, &[0.25, 0.25, 0.25]),
    ("distr2", KkorPolicy::Decentralized, &[0.2, 0.2, 0.3]),
    ("distr3", KkorPolicy::Decentralized, &[0.1, 0.1, 0.5]),
    ("local", KkorPolicy::Local, &[]),
];

/// The fairness experiment: streams of rates `rates` (λ_k per organization), the five
/// variants, `seeds` seeds.
pub fn fairness(
    clusters: &[Cluster],
    rates: &[f64],
    params: &KkorParams,
    jobs: u32,
    seeds: u64,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<KkorRunsResult, String> {
    let g = GeneratorParams {
        jobs,
        ..GeneratorParams::paper(rates.to_vec())
    };
    let sets = (1..=seeds)
        .map(|seed| generate(clusters, &g, seed))
        .collect::<Result<Vec<_>, _>>()?;
    let runs = compare(clusters, &sets, FAIRNESS_VARIANTS, params, progress)?;
    Ok(KkorRunsResult {
        preset: "kkor-fairness".into(),
        description: description("kkor-fairness"),
        seeds,
        clusters: clusters.to_vec(),
        rates: rates.to_vec(),
        runs,
    })
}

/// Runs every variant on every job set (seeds of a generator, or one real workload), each
/// organization's values also relative to `local` on the same jobs; medians over the sets.
pub fn compare(
    clusters: &[Cluster],
    sets: &[Vec<KkorJob>],
    variants: &[Variant],
    params: &KkorParams,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<Vec<KkorRunSummary>, String> {
    if sets.is_empty() {
        return Err("nothing to compare: no job set".into());
    }
    let total = (sets.len() * (variants.len() + 1)) as u64;
    let mut done = 0;
    let mut per_variant: Vec<Vec<KkorRun>> = vec![Vec::new(); variants.len()];
    for js in sets {
        let local = run(clusters, js, KkorPolicy::Local, params)?.metrics;
        done += 1;
        for (vi, &(_, policy, c)) in variants.iter().enumerate() {
            let p = KkorParams {
                coefficients: c.to_vec(),
                ..params.clone()
            };
            let mut r = run(clusters, js, policy, &p)?;
            r.metrics.relative_to(&local);
            per_variant[vi].push(r);
            done += 1;
            if !progress(done, total) {
                return Err("KKOR comparison cancelled".into());
            }
        }
    }
    Ok(variants
        .iter()
        .zip(per_variant)
        .map(|(&(label, policy, c), runs)| {
            let first = sets.first().map(|v| v.as_slice());
            summarize(label, policy, c, clusters.len(), &runs, first)
        })
        .collect())
}

/// One variant's runs over the sets as medians.
fn summarize(
    label: &str,
    policy: KkorPolicy,
    c: &[f64],
    n: usize,
    runs: &[KkorRun],
    first_jobs: Option<&[KkorJob]>,
) -> KkorRunSummary {
    let med = |f: &dyn Fn(&KkorRun) -> f64| median(runs.iter().map(f).collect());
    let migrations = (0..n)
        .map(|a| {
            (0..n)
                .map(|b| med(&|r| f64::from(r.migrations[a][b])))
                .collect()
        })
        .collect();
    let offer = |f: fn(&Offers) -> u64| med(&|r| f(&r.offers) as f64) as u64;
    let with_c = KkorParams {
        coefficients: c.to_vec(),
        ..KkorParams::default()
    };
    let metrics: Vec<KkorMetrics> = runs.iter().map(|r| r.metrics.clone()).collect();
    KkorRunSummary {
        label: label.to_string(),
        policy: policy.name().to_string(),
        coefficients: (0..n)
            .filter(|_| policy == KkorPolicy::Decentralized)
            .map(|k| with_c.coefficient(k))
            .collect(),
        metrics: median_metrics(&metrics),
        migrations,
        offers: Offers {
            offered: offer(|o| o.offered),
            migrated: offer(|o| o.migrated),
            refused_sender_limit: offer(|o| o.refused_sender_limit),
            refused_receiver_limit: offer(|o| o.refused_receiver_limit),
            refused_makespan: offer(|o| o.refused_makespan),
            too_late: offer(|o| o.too_late),
        },
        schedule: first_jobs.zip(runs.first()).map(|(js, r)| KkorSchedule {
            jobs: js.iter().map(|j| (j.id, j.procs, j.org)).collect(),
            placements: r.placements.clone(),
            batches: r.batches.clone(),
        }),
    }
}

/// Every number of `v` replaced by its median over `v` (organizations matched by index).
fn median_metrics(v: &[KkorMetrics]) -> KkorMetrics {
    let m = |f: &dyn Fn(&KkorMetrics) -> f64| median(v.iter().map(f).collect());
    let sp = |f: fn(&KkorMetrics) -> &Spread| Spread {
        std_dev: m(&|x| f(x).std_dev),
        min: m(&|x| f(x).min),
        max: m(&|x| f(x).max),
    };
    let orgs = v.first().map_or(0, |x| x.organizations.len());
    KkorMetrics {
        jobs_measured: m(&|x| x.jobs_measured as f64) as u64,
        mean_flow_time: m(&|x| x.mean_flow_time),
        mean_tardiness: m(&|x| x.mean_tardiness),
        late_jobs: m(&|x| x.late_jobs),
        utilization: m(&|x| x.utilization),
        migrations: m(&|x| x.migrations),
        organizations: (0..orgs)
            .map(|k| {
                median_org(
                    &v.iter()
                        .filter_map(|x| x.organizations.get(k))
                        .collect::<Vec<_>>(),
                )
            })
            .collect(),
        flow_time_spread: sp(|x| &x.flow_time_spread),
        tardiness_spread: sp(|x| &x.tardiness_spread),
        late_jobs_spread: sp(|x| &x.late_jobs_spread),
        utilization_spread: sp(|x| &x.utilization_spread),
    }
}

fn median_org(v: &[&OrgMetrics]) -> OrgMetrics {
    let m = |f: &dyn Fn(&OrgMetrics) -> f64| median(v.iter().map(|o| f(o)).collect());
    // Ratios: the median over the sets where the local value was not 0.
    let r = |f: fn(&RelativeToLocal) -> Option<f64>| {
        let vals: Vec<f64> = v
            .iter()
            .filter_map(|o| o.relative_to_local.as_ref().and_then(f))
            .collect();
        (!vals.is_empty()).then(|| median(vals))
    };
    let any_relative = v.iter().any(|o| o.relative_to_local.is_some());
    OrgMetrics {
        name: v.first().map_or(String::new(), |o| o.name.clone()),
        jobs: m(&|o| o.jobs as f64) as u64,
        mean_flow_time: m(&|o| o.mean_flow_time),
        mean_tardiness: m(&|o| o.mean_tardiness),
        late_jobs: m(&|o| o.late_jobs),
        utilization: m(&|o| o.utilization),
        migrated_out: m(&|o| o.migrated_out as f64) as u64,
        migrated_in: m(&|o| o.migrated_in as f64) as u64,
        accepted_surface: m(&|o| o.accepted_surface),
        exported_surface: m(&|o| o.exported_surface),
        limit_surface: m(&|o| o.limit_surface),
        max_accepted_share: m(&|o| o.max_accepted_share),
        relative_to_local: any_relative.then(|| RelativeToLocal {
            mean_flow_time: r(|x| x.mean_flow_time),
            mean_tardiness: r(|x| x.mean_tardiness),
            late_jobs: r(|x| x.late_jobs),
            utilization: r(|x| x.utilization),
        }),
    }
}

/// `kkor-real`'s three: centralized, decentralized (c_k = 0.25) and local.
pub const REAL_VARIANTS: &[Variant] = &[
    ("centralized", KkorPolicy::Centralized, &[]),
    ("decentralized", KkorPolicy::Decentralized, &[]),
    ("local", KkorPolicy::Local, &[]),
];

/// One organization of `kkor-real`: a name, its cluster's processors and its trace's jobs.
pub struct RealSite<'a> {
    pub name: &'a str,
    pub procs: u32,
    pub jobs: &'a [crate::model::Job],
}

/// `kkor-real`: the first `jobs_per_site` jobs of each site's trace (jobs wider than the site
/// left out and counted), each trace shifted to start at 0, `time_unit_s` seconds per time
/// unit, due dates by the slack rule; centralized, decentralized and local.
pub fn real_traces(
    sites: &[RealSite],
    jobs_per_site: usize,
    slack: f64,
    time_unit_s: f64,
    params: &KkorParams,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<KkorRunsResult, String> {
    let clusters: Vec<Cluster> = sites
        .iter()
        .map(|s| Cluster::new(s.name, s.procs, 1.0))
        .collect();
    let mut all = Vec::new();
    let mut skipped = 0;
    for (k, s) in sites.iter().enumerate() {
        let origin = s.jobs.first().map_or(0, |j| j.submit.0);
        let window: Vec<crate::model::Job> = s
            .jobs
            .iter()
            .take(jobs_per_site)
            .map(|j| crate::model::Job {
                home: k as u32,
                submit: j.submit - crate::time::SimTime(origin),
                ..j.clone()
            })
            .collect();
        let c = from_swf_jobs(&window, &clusters, slack, time_unit_s)?;
        skipped += c.skipped_too_wide;
        all.extend(c.jobs);
    }
    // One job stream: ids unique per site are not unique across sites; keep them, the runs
    // index jobs by position.
    all.sort_by_key(|j| (j.release, j.org));
    let runs = compare(&clusters, &[all], REAL_VARIANTS, params, progress)?;
    Ok(KkorRunsResult {
        preset: "kkor-real".into(),
        description: format!(
            "{} ({skipped} job(s) wider than their site left out)",
            description("kkor-real")
        ),
        seeds: 1,
        clusters,
        rates: vec![],
        runs,
    })
}
