//! SES's experiments (Sessini; docs/ses.md): node-group selection on the Lattice cluster.
//!
//! - `ses-selection` (SES Figs. 1–3): random and most-nodes-available selection, each
//!   restricted and non-restricted, FCFS per group, on SES's Poisson workload over the
//!   paper's seven days, N seeds; per group the median utilization, queueing delay and jobs
//!   with an order-statistic band, and the overall response time.
//! - `ses-restriction-crossover` (SES's future-work question): the share of jobs needing 4
//!   CPUs or more swept from 5 % to 95 %, at the paper's offered load in CPU demand; where
//!   restriction starts to give a lower mean response time than non-restriction.

use serde::{Deserialize, Serialize};

use super::{run_loaded, AlgorithmSpec, PlatformSpec, Scenario, ScenarioError, WorkloadSpec};
use crate::allocation::sweep::{median_and_band, median_band, PolicySeries};
use crate::policy::grid::{GridParams, GridScheme};
use crate::policy::local::LocalPolicyKind;
use crate::workload::SesPoisson;

/// (name, what the paper shows) of the SES presets.
pub const SES_PRESETS: &[(&str, &str)] = &[
    ("ses-selection", "SES Figs. 1–3: random vs most-nodes-available selection, restricted and non-restricted, on the Lattice cluster (A 36×4, B 20×4, C 1×4, D 50×1), FCFS per group, seven days of SES's Poisson workload. The paper: group D (single CPUs) is the most utilized; restricted variants pile jobs up at D with long queueing delays and longer responses; MNA leaves the one-node group C idle until the others fill; random spreads utilization by group size; random and MNA perform about the same."),
    ("ses-restriction-crossover", "SES's open question (§5): the share of jobs needing ≥ 4 CPUs at which restricting small jobs to the single-CPU group starts to pay. The share is swept at the paper's offered CPU demand; series: mean response of MNA and random, restricted and not."),
];

/// SES's observation period: seven days of arrivals at 3.125 jobs per 30 minutes.
pub const SES_DAYS: f64 = 7.0;

/// The four selection variants, as SES's figures label them.
pub fn ses_algorithms() -> Vec<AlgorithmSpec> {
    ses_algorithms_with(false)
}

/// [`ses_algorithms`] with SES's FCFS queue per group (false) or one FCFS queue for the
/// whole site (true; `GridParams::site_queue`).
pub fn ses_algorithms_with(site_queue: bool) -> Vec<AlgorithmSpec> {
    let variant = |label: &str, grid: GridScheme, restricted: bool| AlgorithmSpec {
        label: Some(label.to_string()),
        local: LocalPolicyKind::Fcfs,
        grid,
        grid_params: GridParams {
            restricted,
            site_queue,
            ..GridParams::default()
        },
        ..AlgorithmSpec::default()
    };
    vec![
        variant("random", GridScheme::GroupsRandom, false),
        variant("mna", GridScheme::GroupsMna, false),
        variant("random-restricted", GridScheme::GroupsRandom, true),
        variant("mna-restricted", GridScheme::GroupsMna, true),
    ]
}

/// The SES scenario for one seed: the Lattice cluster, the four variants, `days` of SES's
/// workload (`gen` gives the generator's other parameters; its job count is replaced).
pub fn ses_scenario(gen: &SesPoisson, days: f64, seed: u64) -> Scenario {
    let per_day = 48.0 * gen.arrivals_per_30min * gen.load_factor;
    Scenario {
        failures: None,
        carbon: None,
        version: super::SCENARIO_VERSION,
        name: format!("SES node-group selection, {days} days, seed {seed}"),
        seed,
        platform: PlatformSpec::Preset {
            name: "ses-lattice".into(),
        },
        workload: WorkloadSpec::SesPoisson(SesPoisson {
            jobs: (per_day * days).round().max(1.0) as u32,
            ..gen.clone()
        }),
        algorithms: ses_algorithms(),
        options: Default::default(),
    }
}

/// A group's figures: medians over the seeds (`lo`/`hi`: the band of each).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GroupFigures {
    pub name: String,
    /// CPU-time held over CPUs × makespan (a 1-CPU job on a 4-CPU node holds the node).
    pub utilization: f64,
    /// Mean wait (submit → start) of the jobs the group ran, seconds.
    pub avg_queue_delay_s: f64,
    /// Jobs the group ran.
    pub jobs: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lo: Option<Box<GroupFigures>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hi: Option<Box<GroupFigures>>,
}

/// One variant's medians over the seeds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SesRunMetrics {
    /// Mean response (arrival → completion), seconds: median, band.
    pub avg_response_s: f64,
    pub avg_response_lo: f64,
    pub avg_response_hi: f64,
    pub avg_wait_s: f64,
    pub utilization: f64,
    pub groups: Vec<GroupFigures>,
}

/// One group's queue length over time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GroupQueue {
    pub name: String,
    /// Time-averaged number of jobs waiting for the group, per bucket.
    pub queue_length: Vec<f64>,
}

/// Queue length per group over one run (SES §4's GPSS queue statistics over time), in
/// equal buckets over [0, makespan].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct QueueSeries {
    /// The seed of the run shown.
    pub seed: u64,
    pub bucket_s: f64,
    pub groups: Vec<GroupQueue>,
}

/// Buckets of [`QueueSeries`].
pub const QUEUE_BUCKETS: usize = 84;

/// One variant of `ses-selection`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SesRun {
    pub label: String,
    pub algorithm: String,
    pub metrics: SesRunMetrics,
    /// Queue length per group over the first seed's run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_series: Option<QueueSeries>,
}

/// `ses-selection`'s result: the `runs[]` shape of the CLI's JSON.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SesSelection {
    pub preset: String,
    pub description: String,
    pub seeds: u64,
    pub days: f64,
    /// Coverage of the bands: P(lo < true median < hi).
    pub confidence: f64,
    /// One FCFS queue for the whole site instead of one per group (SES's).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub site_queue: bool,
    pub runs: Vec<SesRun>,
}

/// Per variant, per seed: overall (response, wait, utilization) and per group (util, delay, jobs).
type Samples = Vec<(Vec<[f64; 3]>, Vec<Vec<[f64; 3]>>)>;

/// Each run's queue length per group over time (the runs are on the groups as sites).
fn queue_series(
    report: &super::Report,
    seed: u64,
) -> Result<Vec<Option<QueueSeries>>, ScenarioError> {
    let groups = super::group_platform(&report.platform)?;
    Ok(report
        .runs
        .iter()
        .map(|run| {
            let s = crate::metrics::series(
                &groups,
                &report.workload.jobs,
                &run.outcomes,
                QUEUE_BUCKETS,
            );
            Some(QueueSeries {
                seed,
                bucket_s: s.bucket_s,
                groups: s
                    .sites
                    .into_iter()
                    .map(|g| GroupQueue {
                        name: g.name,
                        queue_length: g.queue_length,
                    })
                    .collect(),
            })
        })
        .collect())
}

/// One seed of `ses-selection`: the four variants' run of that seed's workload (what
/// [`run_selection_with`] takes its samples from; a cluster sweep's case, docs/cluster.md).
pub fn selection_seed(
    gen: &SesPoisson,
    days: f64,
    seed: u64,
    site_queue: bool,
) -> Result<super::Report, ScenarioError> {
    let scenario = Scenario {
        algorithms: ses_algorithms_with(site_queue),
        ..ses_scenario(gen, days, seed)
    };
    let workload = super::load_workload(&scenario, &crate::limits::Limits::default(), &mut |f| {
        Err(format!("{f}: no file"))
    })?;
    run_loaded(&scenario, workload, &mut |_, _, _| true)
}

/// Runs the four variants on `seeds` seeds of `gen`'s workload over `days`.
pub fn run_selection(
    gen: &SesPoisson,
    days: f64,
    seeds: u64,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<SesSelection, ScenarioError> {
    run_selection_with(gen, days, seeds, false, progress)
}

/// [`run_selection`] with one FCFS queue for the whole site when `site_queue`.
pub fn run_selection_with(
    gen: &SesPoisson,
    days: f64,
    seeds: u64,
    site_queue: bool,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<SesSelection, ScenarioError> {
    if seeds == 0 || seeds > 1000 {
        return Err(ScenarioError::Invalid(format!(
            "seeds must be 1..1000 (got {seeds})"
        )));
    }
    if !(days.is_finite() && days > 0.0 && days <= 3650.0) {
        return Err(ScenarioError::Invalid(format!(
            "days must be in (0, 3650] (got {days})"
        )));
    }
    let algorithms = ses_algorithms_with(site_queue);
    let mut samples: Samples = vec![(Vec::new(), Vec::new()); algorithms.len()];
    let mut names = Vec::new();
    let mut queues: Vec<Option<QueueSeries>> = vec![None; algorithms.len()];
    for seed in 1..=seeds {
        let report = selection_seed(gen, days, seed, site_queue)?;
        if seed == 1 {
            queues = queue_series(&report, seed)?;
        }
        for (a, run) in report.runs.iter().enumerate() {
            let m = &run.metrics;
            samples[a]
                .0
                .push([m.avg_response_s, m.avg_wait_s, m.utilization]);
            samples[a].1.push(
                m.sites
                    .iter()
                    .map(|s| [s.utilization, s.avg_wait_s, s.jobs as f64])
                    .collect(),
            );
            names = m.sites.iter().map(|s| s.name.clone()).collect();
        }
        if !progress(seed, seeds) {
            return Err(ScenarioError::Sim(crate::engine::SimError::Cancelled));
        }
    }
    let (band_lo, confidence) = median_band(seeds as usize);
    let band = |values: Vec<f64>| median_and_band(&mut values.clone(), band_lo);
    let runs = algorithms
        .iter()
        .zip(samples)
        .zip(queues)
        .map(|((alg, (overall, groups)), queue_series)| {
            let col = |k: usize| band(overall.iter().map(|v| v[k]).collect());
            let (resp, resp_lo, resp_hi) = col(0);
            let group_figures = names
                .iter()
                .enumerate()
                .map(|(g, name)| {
                    let col = |k: usize| band(groups.iter().map(|per| per[g][k]).collect());
                    let ((u, ul, uh), (d, dl, dh), (j, jl, jh)) = (col(0), col(1), col(2));
                    let figures = |u, d, j| GroupFigures {
                        name: name.clone(),
                        utilization: u,
                        avg_queue_delay_s: d,
                        jobs: j,
                        lo: None,
                        hi: None,
                    };
                    GroupFigures {
                        lo: Some(Box::new(figures(ul, dl, jl))),
                        hi: Some(Box::new(figures(uh, dh, jh))),
                        ..figures(u, d, j)
                    }
                })
                .collect();
            SesRun {
                label: alg.label(),
                algorithm: alg.algorithm(),
                metrics: SesRunMetrics {
                    avg_response_s: resp,
                    avg_response_lo: resp_lo,
                    avg_response_hi: resp_hi,
                    avg_wait_s: col(1).0,
                    utilization: col(2).0,
                    groups: group_figures,
                },
                queue_series,
            }
        })
        .collect();
    Ok(SesSelection {
        preset: "ses-selection".into(),
        description: SES_PRESETS[0].1.into(),
        seeds,
        days,
        confidence,
        site_queue,
        runs,
    })
}

/// `ses-restriction-crossover`'s result: the SF sweeps' shape plus the crossover found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SesCrossover {
    pub preset: String,
    pub description: String,
    pub x_label: String,
    pub x: Vec<f64>,
    pub seeds: u64,
    pub days: f64,
    pub confidence: f64,
    /// One per variant; `metric` is `avg_response_s` (medians, seconds).
    pub series: Vec<PolicySeries>,
    /// The smallest share at which each restricted variant's median response is below its
    /// non-restricted twin's: `(strategy, share)`; `None` when restriction never pays.
    pub crossover: Vec<(String, Option<f64>)>,
}

/// The shares of ≥ 4-CPU jobs the crossover preset sweeps.
pub const CROSSOVER_SHARES: [f64; 10] = [0.05, 0.11, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.95];

/// Sweeps the share of jobs needing ≥ 4 CPUs; at each share the arrival rate is scaled so the
/// offered CPU demand (λ × mean CPUs × mean runtime) stays at `base`'s with Table A3's
/// processor counts (`base.load_factor` scales it: 1 is the paper's load).
pub fn run_crossover(
    base: &SesPoisson,
    shares: &[f64],
    days: f64,
    seeds: u64,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<SesCrossover, ScenarioError> {
    let base_cpus = SesPoisson::default().mean_processors();
    let algorithms = ses_algorithms();
    let mut series: Vec<PolicySeries> = algorithms
        .iter()
        .map(|a| PolicySeries {
            policy: a.label(),
            ..PolicySeries::default()
        })
        .collect();
    let total = shares.len() as u64;
    for (i, &share) in shares.iter().enumerate() {
        let mut gen = SesPoisson {
            wide_share: Some(share),
            ..base.clone()
        };
        gen.validate()
            .map_err(|reason| ScenarioError::InvalidGenerator { reason })?;
        gen.load_factor = base.load_factor * base_cpus / gen.mean_processors();
        let point = run_selection(&gen, days, seeds, &mut |_, _| true)?;
        for (s, run) in series.iter_mut().zip(&point.runs) {
            s.median.push(run.metrics.avg_response_s);
            s.lo.push(run.metrics.avg_response_lo);
            s.hi.push(run.metrics.avg_response_hi);
        }
        if !progress(i as u64 + 1, total) {
            return Err(ScenarioError::Sim(crate::engine::SimError::Cancelled));
        }
    }
    let crossover = [("random", 0, 2), ("mna", 1, 3)]
        .iter()
        .map(|&(name, free, restricted)| {
            let at = shares
                .iter()
                .enumerate()
                .find(|&(k, _)| series[restricted].median[k] < series[free].median[k])
                .map(|(_, &x)| x);
            (name.to_string(), at)
        })
        .collect();
    Ok(SesCrossover {
        preset: "ses-restriction-crossover".into(),
        description: SES_PRESETS[1].1.into(),
        x_label: "share of jobs needing ≥ 4 CPUs".into(),
        x: shares.to_vec(),
        seeds,
        days,
        confidence: median_band(seeds as usize).1,
        series,
        crossover,
    })
}
