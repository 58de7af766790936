//! What a run measured: per-job records, aggregate metrics and time series. Everything is
//! computed from the outcomes after the run, in job order, so the numbers are the same on
//! every platform.

use std::collections::BTreeMap;

use serde::Serialize;

/// Job-width classes (CPUs requested, inclusive): 1, 2–4, 5–16, 17–64, 65–256, 257–1024,
/// 1025 and more — powers of four, so each class spans the same factor.
pub const WIDTH_CLASSES: [(u32, u32); 7] = [
    (1, 1),
    (2, 4),
    (5, 16),
    (17, 64),
    (65, 256),
    (257, 1024),
    (1025, u32::MAX),
];

/// The waits of the jobs of one width class that ran.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, PartialEq)]
pub struct WidthWait {
    pub min_cpus: u32,
    pub max_cpus: u32,
    pub jobs: u64,
    pub avg_wait_s: f64,
    pub max_wait_s: f64,
}

impl WidthWait {
    /// "1", "2–4", "1025+".
    pub fn label(&self) -> String {
        match (self.min_cpus, self.max_cpus) {
            (a, b) if a == b => a.to_string(),
            (a, u32::MAX) => format!("{a}+"),
            (a, b) => format!("{a}–{b}"),
        }
    }
}

/// Sums per width class while the jobs are read (`avg_wait_s` holds the sum until `finish`).
struct WidthSums(Vec<WidthWait>);

impl WidthSums {
    fn new() -> WidthSums {
        WidthSums(
            WIDTH_CLASSES
                .iter()
                .map(|&(min_cpus, max_cpus)| WidthWait {
                    min_cpus,
                    max_cpus,
                    ..WidthWait::default()
                })
                .collect(),
        )
    }

    fn add(&mut self, procs: u32, wait: f64) {
        let i = WIDTH_CLASSES
            .iter()
            .position(|&(lo, hi)| (lo..=hi).contains(&procs.max(1)))
            .unwrap_or(WIDTH_CLASSES.len() - 1);
        let c = &mut self.0[i];
        c.jobs += 1;
        c.avg_wait_s += wait;
        c.max_wait_s = c.max_wait_s.max(wait);
    }

    fn finish(self) -> Vec<WidthWait> {
        self.0
            .into_iter()
            .map(|c| WidthWait {
                avg_wait_s: if c.jobs > 0 {
                    c.avg_wait_s / c.jobs as f64
                } else {
                    0.0
                },
                ..c
            })
            .collect()
    }
}

/// Platforms up to this many sites also get the dense `transfers[home][site]` matrix.
pub const DENSE_TRANSFER_SITES: usize = 64;

/// The dense matrix of the sparse counts on a small platform; empty otherwise.
fn dense_transfers(
    counts: &BTreeMap<(u32, u32), u64>,
    n_sites: usize,
    ideal: bool,
) -> Vec<Vec<u64>> {
    if ideal || n_sites > DENSE_TRANSFER_SITES {
        return Vec::new();
    }
    let mut m = vec![vec![0u64; n_sites]; n_sites];
    for (&(h, s), &n) in counts {
        if let Some(cell) = m
            .get_mut(h as usize)
            .and_then(|row| row.get_mut(s as usize))
        {
            *cell = n;
        }
    }
    m
}

pub mod batsim;
pub mod cdf;
pub mod compare;
pub mod csv;
pub mod resources;
pub mod vs_log;
pub use cdf::{empirical_cdf, workload_cdfs, WorkloadCdfs};
pub use vs_log::{vs_log, VsLog};

use crate::engine::{wallclock_limit, JobOutcome, Outcome, RunConfig, SimTime};
use crate::model::{Job, Placements, Platform, Site};

/// Bounded-slowdown threshold τ: runs shorter than this count as this long.
pub const BSLD_TAU_S: f64 = 10.0;

/// Aggregate metrics of one run. Field names are the JSON keys of the CLI.
#[derive(Clone, Debug, Serialize, serde::Deserialize, PartialEq)]
pub struct Metrics {
    /// Mean of (start − submit) over jobs that ran.
    pub avg_wait_s: f64,
    /// Mean of (end − submit): the response (flow, turnaround) time.
    pub avg_response_s: f64,
    /// Population standard deviation of the wait times (SOB's printed formula is not one).
    pub wait_stddev_s: f64,
    pub max_wait_s: f64,
    /// Mean of max(1, (end − submit) / max(end − start, τ)), τ = 10 s.
    pub avg_bounded_slowdown: f64,
    /// Mean of (wait + run) / wallclock limit (SCJG, Maui's expansion factor).
    pub avg_expansion_factor: f64,
    /// Σ CPUs held × run time / (Σ CPUs × makespan).
    pub utilization: f64,
    /// SOB's grid efficiency: Σ run time × CPUs used × CPU speed / (makespan × Σ CPUs × speed).
    pub grid_efficiency: f64,
    /// Like grid efficiency with the CPUs *held* instead of used: a job of 3 CPUs on a
    /// node-exclusive site of 2-CPU nodes holds 4. Equal to grid efficiency on
    /// processor-granular sites and for the idealized scheme.
    #[serde(default)]
    pub occupancy: f64,
    /// Share of the jobs that ran somewhere other than their home site.
    pub fraction_transferred: f64,
    /// `transfers[home][site]`: jobs submitted at `home` that ran at `site` (the diagonal
    /// stayed home). Empty for the idealized scheme and on platforms of more than
    /// [`DENSE_TRANSFER_SITES`] sites (a sites² matrix); `transfer_counts` has it always.
    pub transfers: Vec<Vec<u64>>,
    /// The same counts as `(home, site, jobs)` for every pair with jobs, by home then site:
    /// memory grows with the jobs, not with sites². Empty for the idealized scheme.
    #[serde(default)]
    pub transfer_counts: Vec<(u32, u32, u64)>,
    /// Mean wait per job-width class ([`WIDTH_CLASSES`], every class, empty ones with 0 jobs):
    /// starvation of wide jobs shows here, not in the mean.
    #[serde(default)]
    pub wait_by_width: Vec<WidthWait>,
    /// Last end − first submit.
    pub makespan_s: f64,
    /// Jobs that ran (to their end or killed at their estimate).
    pub jobs_finished: u64,
    /// Of those, killed at their estimate.
    pub jobs_killed: u64,
    /// Jobs that could not run anywhere (too wide).
    pub jobs_rejected: u64,
    /// Records skipped on import (see the import report for why).
    pub jobs_skipped: u64,
    pub sites: Vec<SiteMetrics>,
}

#[derive(Clone, Debug, Serialize, serde::Deserialize, PartialEq)]
pub struct SiteMetrics {
    pub name: String,
    /// CPU time used here over (CPUs × the whole run's makespan).
    pub utilization: f64,
    /// CPU time used here over (CPUs × this site's own span: from the first submit of a
    /// job homed or run here to the last end here) — what SOB Table 6 reports per machine;
    /// a saturated site's long tail no longer dilutes the others.
    pub span_utilization: f64,
    pub jobs: u64,
    pub avg_wait_s: f64,
}

/// Computes the metrics; `skipped` is the number of records the import skipped.
///
/// `ideal_capacity` is set for the idealized scheme, whose jobs shared the one virtual
/// machine of that many one-MHz CPUs (per-site figures are then zero).
pub fn compute(
    platform: &Platform,
    jobs: &[Job],
    outcomes: &[Outcome],
    cfg: &RunConfig,
    skipped: u64,
    ideal_capacity: Option<f64>,
) -> Metrics {
    compute_placed(
        platform,
        jobs,
        outcomes,
        &Placements::default(),
        cfg,
        skipped,
        ideal_capacity,
    )
}

/// The CPUs job `idx` held on `site`: its allocation units' CPUs, or on a node-exclusive
/// site with node types the cores of the nodes it was placed on (whole, `placements`).
pub fn cpus_held(site: &Site, job: &Job, placements: &Placements, idx: usize) -> f64 {
    let shares = placements.of(idx);
    if site.has_exclusive_nodes() && !shares.is_empty() {
        return shares.iter().map(|s| f64::from(s.cores)).sum();
    }
    site.units_for(job.procs) as f64 * site.cpus_per_unit() as f64
}

/// [`compute`] for a run that placed jobs on nodes (`placements`): a node-exclusive
/// site's jobs hold the cores of their whole nodes ([`cpus_held`]).
pub fn compute_placed(
    platform: &Platform,
    jobs: &[Job],
    outcomes: &[Outcome],
    placements: &Placements,
    cfg: &RunConfig,
    skipped: u64,
    ideal_capacity: Option<f64>,
) -> Metrics {
    let n_sites = platform.sites.len();
    let mut per_site = SiteSums::new(n_sites);
    let SiteSums {
        busy: site_busy,
        jobs: site_jobs,
        wait: site_wait,
        first: site_first,
        last: site_last,
    } = &mut per_site;
    let (mut n, mut killed, mut rejected) = (0u64, 0u64, 0u64);
    let (mut sum_wait, mut sum_wait2, mut sum_resp, mut sum_bsld, mut sum_xf) =
        (0f64, 0f64, 0f64, 0f64, 0f64);
    let mut max_wait = 0f64;
    let mut by_width = WidthSums::new();
    // Work done with the CPUs the jobs used (grid efficiency) and held (occupancy).
    let (mut consumed, mut occupied, mut transferred) = (0f64, 0f64, 0u64);
    // Sparse while counting (a platform of thousands of sites would need a sites² matrix).
    let mut counts: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    let mut last_end = SimTime::ZERO;
    let first_submit = jobs.first().map(|j| j.submit).unwrap_or_default();
    for (i, (job, out)) in jobs.iter().zip(outcomes).enumerate() {
        match out.status {
            JobOutcome::Rejected(_) => {
                rejected += 1;
                continue;
            }
            // Lost to a failure (issue #41): counted by the run's failure report, not here.
            JobOutcome::Pending | JobOutcome::Lost => continue,
            JobOutcome::Killed => killed += 1,
            JobOutcome::Finished => {}
        }
        n += 1;
        let s = out.site as usize;
        let site = &platform.sites[s];
        let wait = (out.start - job.submit).as_secs_f64();
        let run = (out.end - out.start).as_secs_f64();
        let resp = wait + run;
        sum_wait += wait;
        sum_wait2 += wait * wait;
        sum_resp += resp;
        max_wait = max_wait.max(wait);
        by_width.add(job.procs, wait);
        sum_bsld += (resp / run.max(BSLD_TAU_S)).max(1.0);
        let limit = wallclock_limit(job, cfg, platform, s).as_secs_f64();
        sum_xf += resp / limit;
        if ideal_capacity.is_some() {
            // Processor sharing: a job holds a varying share, so count its work, not its
            // time on the machine.
            consumed +=
                crate::engine::ideal_work(job, platform, cfg) / crate::time::TICKS_PER_SEC as f64;
            occupied = consumed;
        } else {
            let cpus_held = cpus_held(site, job, placements, i);
            site_busy[s] += cpus_held * run;
            consumed += job.procs as f64 * run * site.speed;
            occupied += cpus_held * run * site.speed;
            site_jobs[s] += 1;
            site_wait[s] += wait;
            site_last[s] = site_last[s].max(out.end);
            for i in [s, job.home as usize] {
                if let Some(f) = site_first.get_mut(i) {
                    *f = (*f).min(job.submit);
                }
            }
        }
        if out.site != job.home {
            transferred += 1;
        }
        if ideal_capacity.is_none() {
            *counts.entry((job.home, s as u32)).or_insert(0) += 1;
        }
        last_end = last_end.max(out.end);
    }
    let makespan = (last_end - first_submit).as_secs_f64();
    let mean = |sum: f64| if n > 0 { sum / n as f64 } else { 0.0 };
    let avg_wait = mean(sum_wait);
    let variance = (mean(sum_wait2) - avg_wait * avg_wait).max(0.0);
    let total_cpus: f64 = platform.sites.iter().map(|s| s.cpus() as f64).sum();
    let busy: f64 = per_site.busy.iter().sum();
    let speeds = platform.sites.iter().map(|s| s.cpus() as f64 * s.speed);
    let total_speed: f64 = ideal_capacity.unwrap_or_else(|| speeds.sum());
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    Metrics {
        avg_wait_s: avg_wait,
        avg_response_s: mean(sum_resp),
        wait_stddev_s: variance.sqrt(),
        max_wait_s: max_wait,
        avg_bounded_slowdown: mean(sum_bsld),
        avg_expansion_factor: mean(sum_xf),
        utilization: if ideal_capacity.is_some() {
            ratio(consumed, total_speed * makespan)
        } else {
            ratio(busy, total_cpus * makespan)
        },
        grid_efficiency: ratio(consumed, total_speed * makespan),
        occupancy: ratio(occupied, total_speed * makespan),
        fraction_transferred: ratio(transferred as f64, n as f64),
        transfers: dense_transfers(&counts, n_sites, ideal_capacity.is_some()),
        transfer_counts: counts.into_iter().map(|((h, s), n)| (h, s, n)).collect(),
        wait_by_width: by_width.finish(),
        makespan_s: makespan,
        jobs_finished: n,
        jobs_killed: killed,
        jobs_rejected: rejected,
        jobs_skipped: skipped,
        sites: per_site.metrics(platform, makespan),
    }
}

/// Per-site sums gathered over the jobs that ran.
struct SiteSums {
    /// CPU-seconds held.
    busy: Vec<f64>,
    jobs: Vec<u64>,
    /// Sum of waits, seconds.
    wait: Vec<f64>,
    /// First submit of a job from or to the site, and last end of a job on it.
    first: Vec<SimTime>,
    last: Vec<SimTime>,
}

impl SiteSums {
    fn new(n: usize) -> SiteSums {
        SiteSums {
            busy: vec![0.0; n],
            jobs: vec![0; n],
            wait: vec![0.0; n],
            first: vec![SimTime::NEVER; n],
            last: vec![SimTime::ZERO; n],
        }
    }

    fn metrics(&self, platform: &Platform, makespan: f64) -> Vec<SiteMetrics> {
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
        platform
            .sites
            .iter()
            .enumerate()
            .map(|(i, s)| SiteMetrics {
                name: s.name.clone(),
                utilization: ratio(self.busy[i], s.cpus() as f64 * makespan),
                span_utilization: if self.last[i] > self.first[i] {
                    ratio(
                        self.busy[i],
                        s.cpus() as f64 * (self.last[i] - self.first[i]).as_secs_f64(),
                    )
                } else {
                    0.0
                },
                jobs: self.jobs[i],
                avg_wait_s: ratio(self.wait[i], self.jobs[i] as f64),
            })
            .collect()
    }
}

/// The offered load of `jobs` on `platform`: the work the jobs bring — CPUs × the time
/// they hold them (the run time, cut at the estimate when kills are on) × their home site's
/// speed — over what the platform can do while they arrive: Σ CPUs × speed × (last submit −
/// first submit). Jobs wider than every site are left out (they are rejected). `None` when
/// there is no arrival span (one job, or every job submitted at one instant: a backlog).
/// Above 1 the queues grow all run, whatever the policy.
pub fn offered_load(platform: &Platform, jobs: &[Job], cfg: &RunConfig) -> Option<f64> {
    let widest = platform.sites.iter().map(|s| s.cpus()).max().unwrap_or(0);
    let capacity: f64 = platform
        .sites
        .iter()
        .map(|s| s.cpus() as f64 * s.speed)
        .sum();
    let first = jobs.iter().map(|j| j.submit).min()?;
    let last = jobs.iter().map(|j| j.submit).max()?;
    let span = (last - first).as_secs_f64();
    let work: f64 = jobs
        .iter()
        .filter(|j| u64::from(j.procs) <= widest)
        .map(|j| {
            let (_, held) = crate::engine::planned_and_effective(j, cfg);
            // One site takes every job, whatever home the workload gave it.
            let home = if platform.sites.len() == 1 {
                0
            } else {
                j.home as usize
            };
            let speed = platform.sites.get(home).map_or(1.0, |s| s.speed);
            f64::from(j.procs) * held.as_secs_f64() * speed
        })
        .sum();
    let load = work / (capacity * span);
    (span > 0.0 && load.is_finite()).then_some(load)
}

/// One metric's documentation, for `--help`, the UI and ARCHITECTURE.md.
pub struct MetricHelp {
    pub key: &'static str,
    pub formula: &'static str,
    pub source: &'static str,
}

pub const METRIC_HELP: &[MetricHelp] = &[
    MetricHelp { key: "avg_wait_s", formula: "mean over jobs that ran of (start − submit), seconds", source: "SOB §3.2" },
    MetricHelp { key: "avg_response_s", formula: "mean of (end − submit): wait plus run time (flow time)", source: "SOB §3.2, KKOR" },
    MetricHelp { key: "wait_stddev_s", formula: "population standard deviation sqrt(Σ(w − w̄)²/N) of wait times; SOB prints (1/N)·sqrt(Σw² − (Σw/N)²), which is not a standard deviation", source: "SOB §3.2 (corrected)" },
    MetricHelp { key: "max_wait_s", formula: "largest (start − submit)", source: "" },
    MetricHelp { key: "avg_bounded_slowdown", formula: "mean of max(1, (end − submit) / max(end − start, τ)), τ = 10 s", source: "Feitelson et al. 1997" },
    MetricHelp { key: "avg_expansion_factor", formula: "mean of (wait + run) / wallclock limit (the estimate the scheduler used)", source: "SCJG (Maui)" },
    MetricHelp { key: "utilization", formula: "Σ CPUs held × (end − start) / (Σ CPUs × makespan); a node-exclusive job holds whole nodes", source: "SOB §3.2" },
    MetricHelp { key: "sites[].span_utilization", formula: "per site: CPU time used there / (its CPUs × (last end there − first submit of a job homed or run there)); comparable with SOB Table 6, where each machine's utilization is over its own run", source: "SOB §4.2, Table 6" },
    MetricHelp { key: "grid_efficiency", formula: "Σ (end − start) × CPUs used by the job × CPU speed / ((last end − first submit) × Σ CPUs × speed) — the same for every scheme: for the idealized one the work done (Σ CPUs × home speed × run time) over its capacity × the makespan", source: "SOB §3.2" },
    MetricHelp { key: "occupancy", formula: "Σ (end − start) × CPUs held × CPU speed / ((last end − first submit) × Σ CPUs × speed): grid efficiency counting the whole nodes a job holds on a node-exclusive site (3 CPUs on 2-CPU nodes hold 4)", source: "ours, beside SOB §3.2" },
    MetricHelp { key: "fraction_transferred", formula: "jobs run on a site other than their home / jobs run", source: "SOB §3.2" },
    MetricHelp { key: "wait_by_width", formula: "per job-width class (CPUs requested: 1, 2–4, 5–16, 17–64, 65–256, 257–1024, 1025+): jobs that ran, mean and maximum of (start − submit); a scheme that starves wide jobs shows it here while its mean wait looks fine", source: "ours (issue: R-I on sob-synthetic-heavy)" },
    MetricHelp { key: "offered_load", formula: "of the workload on the platform (the report's, not a run's): Σ CPUs × time held (run time, cut at the estimate when kills are on) × home speed / (Σ CPUs × speed × (last submit − first submit)); above 1 the queues grow all run whatever the policy, so waits measure the backlog; none when every job arrives at one instant", source: "the usual definition (Feitelson, Workload Modeling for Computer Systems Performance Evaluation, 2015)" },
    MetricHelp { key: "makespan_s", formula: "last end − first submit", source: "" },
    MetricHelp { key: "jobs_finished", formula: "jobs that ran (to their end, or killed at their estimate)", source: "" },
    MetricHelp { key: "jobs_killed", formula: "jobs stopped at their estimate because their runtime exceeded it (kills on)", source: "" },
    MetricHelp { key: "jobs_rejected", formula: "jobs wider than every site they could go to: reported, never dropped", source: "" },
    MetricHelp { key: "jobs_skipped", formula: "records the import skipped (runtime ≤ 0, processors ≤ 0, submit −1)", source: "docs/local-policies.md (SWF import conventions)" },
];

/// Time series over `[0, makespan]` in equal buckets: per site, the time-averaged
/// utilization (CPUs held / CPUs) and queue length in each bucket.
#[derive(Clone, Debug, Serialize, serde::Deserialize, PartialEq)]
pub struct Series {
    pub bucket_s: f64,
    pub sites: Vec<SiteSeries>,
}

#[derive(Clone, Debug, Serialize, serde::Deserialize, PartialEq)]
pub struct SiteSeries {
    pub name: String,
    pub utilization: Vec<f64>,
    pub queue_length: Vec<f64>,
    /// The share of the site's nodes up, time-averaged per bucket (issue #41): only in a
    /// run whose nodes went down ([`series_with_downtimes`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes_up: Vec<f64>,
    /// Memory held / the nodes' memory, time-averaged per bucket (issue #37): only on a
    /// node-typed site with memory ([`resources::add_resource_series`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory: Vec<f64>,
    /// GPUs held / the nodes' GPUs, likewise: only on a node-typed site with GPUs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<f64>,
    /// Idle cores stranded / the nodes' cores, likewise: on a node-typed site with memory
    /// or GPUs (`resources.cores.stranded` over time).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cores_stranded: Vec<f64>,
    /// Free memory stranded (on nodes with every core taken) / the nodes' memory, likewise:
    /// on a node-typed site with memory (`resources.memory_kb.stranded` over time).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory_stranded: Vec<f64>,
    /// Free GPUs stranded (on nodes with every core taken) / the nodes' GPUs, likewise: on a
    /// node-typed site with GPUs (`resources.gpus.stranded` over time).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus_stranded: Vec<f64>,
}

pub fn series(platform: &Platform, jobs: &[Job], outcomes: &[Outcome], buckets: usize) -> Series {
    series_with_downtimes(
        platform,
        jobs,
        outcomes,
        &Placements::default(),
        buckets,
        &[],
    )
}

/// [`series`], and for a run with `downtimes` each node-typed site's share of nodes up
/// (`1 − nodes down / nodes`, time-averaged per bucket, over the same buckets).
pub fn series_with_downtimes(
    platform: &Platform,
    jobs: &[Job],
    outcomes: &[Outcome],
    placements: &Placements,
    buckets: usize,
    downtimes: &[crate::engine::Downtime],
) -> Series {
    let buckets = buckets.max(1);
    let end = outcomes
        .iter()
        .filter(|o| o.ran())
        .map(|o| o.end.0)
        .max()
        .unwrap_or(0)
        .max(1);
    let width = (end as f64 / buckets as f64).max(1.0);
    let n = platform.sites.len();
    let mut busy: Vec<Vec<(i64, f64)>> = vec![Vec::new(); n];
    let mut queued: Vec<Vec<(i64, f64)>> = vec![Vec::new(); n];
    for (i, (job, out)) in jobs.iter().zip(outcomes).enumerate() {
        if !out.ran() {
            continue;
        }
        let s = out.site as usize;
        let cpus = cpus_held(&platform.sites[s], job, placements, i);
        busy[s].push((out.start.0, cpus));
        busy[s].push((out.end.0, -cpus));
        if out.start > job.submit {
            queued[s].push((job.submit.0, 1.0));
            queued[s].push((out.start.0, -1.0));
        }
    }
    // Down times clipped to the series' span: its last bucket runs on to any later change.
    let mut down: Vec<Vec<(i64, f64)>> = vec![Vec::new(); n];
    for d in downtimes {
        let (from, to) = (d.start.0.max(0), d.end.0.min(end));
        if let Some(site) = down.get_mut(d.site as usize).filter(|_| from < to) {
            site.push((from, 1.0));
            site.push((to, -1.0));
        }
    }
    let sites = platform
        .sites
        .iter()
        .enumerate()
        .map(|(i, site)| {
            let cpus = site.cpus() as f64;
            SiteSeries {
                name: site.name.clone(),
                utilization: integrate(&mut busy[i], width, buckets)
                    .into_iter()
                    .map(|v| v / cpus)
                    .collect(),
                queue_length: integrate(&mut queued[i], width, buckets),
                nodes_up: match downtimes.is_empty() || !site.has_nodes() {
                    true => Vec::new(),
                    false => integrate(&mut down[i], width, buckets)
                        .into_iter()
                        .map(|v| 1.0 - v / f64::from(site.nodes.max(1)))
                        .collect(),
                },
                memory: Vec::new(),
                gpus: Vec::new(),
                cores_stranded: Vec::new(),
                memory_stranded: Vec::new(),
                gpus_stranded: Vec::new(),
            }
        })
        .collect();
    Series {
        bucket_s: width / SimTime::from_secs(1).0 as f64,
        sites,
    }
}

/// Time average per bucket (`width` ms each, the last running on) of the step function that
/// is `steps[k].1` from `steps[k].0` on (0 before the first): a power or a node count as
/// [`series`] buckets utilization. Values are taken, not summed, so no error builds up.
/// Buckets are walked by index, never by recomputing an index from a float time, so a bucket
/// edge that rounds onto itself cannot stall the walk.
pub fn bucket_means(steps: &[(SimTime, f64)], width: f64, buckets: usize) -> Vec<f64> {
    let buckets = buckets.max(1);
    let width = width.max(1.0);
    let mut area = vec![0f64; buckets];
    let edge = |b: usize| {
        if b + 1 >= buckets {
            f64::INFINITY
        } else {
            (b + 1) as f64 * width
        }
    };
    let (mut value, mut t, mut b) = (0f64, 0f64, 0usize);
    for &(at, v) in steps {
        let time = at.0 as f64;
        while t < time {
            let seg_end = time.min(edge(b));
            area[b] += value * (seg_end - t);
            t = seg_end;
            if t >= edge(b) {
                b += 1;
            }
        }
        value = v;
    }
    area.into_iter().map(|a| a / width).collect()
}

/// Time average per bucket of the step function whose changes are `deltas` (time, change):
/// the running sums as steps, through [`bucket_means`].
fn integrate(deltas: &mut [(i64, f64)], width: f64, buckets: usize) -> Vec<f64> {
    // By time only: the changes are whole numbers (CPUs, jobs), so their sum at any instant
    // is exact in whatever order the changes of one instant come.
    deltas.sort_unstable_by_key(|d| d.0);
    let mut value = 0f64;
    let steps: Vec<(SimTime, f64)> = deltas
        .iter()
        .map(|&(time, d)| {
            value += d;
            (SimTime(time), value)
        })
        .collect();
    bucket_means(&steps, width, buckets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_up_is_the_share_of_nodes_not_down() {
        // Two one-core nodes, one job over [0, 100 s); node 0 down over [0, 50 s), and a
        // down time past the last end that the series leaves out.
        let mut site = crate::model::Site::flat("s", 2);
        site.node_types = vec![crate::model::NodeType {
            name: String::new(),
            count: 2,
            cores: 1,
            mem_kb: 0,
            gpus: 0,
            power: None,
            exclusive: false,
        }];
        let platform = Platform::single(site);
        let job = Job {
            id: 1,
            submit: SimTime::ZERO,
            runtime: SimTime::from_secs(100),
            estimate: SimTime::from_secs(100),
            procs: 1,
            home: 0,
            user: 0,
            partition: 0,
        };
        let out = Outcome {
            site: 0,
            start: SimTime::ZERO,
            end: SimTime::from_secs(100),
            status: JobOutcome::Finished,
        };
        let down = |node, from, to| crate::engine::Downtime {
            site: 0,
            node,
            start: SimTime::from_secs(from),
            end: SimTime::from_secs(to),
            kind: crate::failure::OutageKind::Failure,
        };
        let s = series_with_downtimes(
            &platform,
            std::slice::from_ref(&job),
            &[out],
            &Placements::default(),
            2,
            &[down(0, 0, 50), down(1, 200, 300)],
        );
        assert_eq!(s.sites[0].nodes_up, vec![0.5, 1.0]);
        // Without down times the series has no nodes-up line (and its JSON no key).
        assert!(series(&platform, &[job], &[out], 2).sites[0]
            .nodes_up
            .is_empty());
    }

    #[test]
    fn integrate_handles_edges_that_round_onto_themselves() {
        // A width that is not exactly representable, and changes right on bucket edges.
        let width = 1_301_191_000.0 / 200.0;
        let mut d: Vec<(i64, f64)> = (0..=200)
            .map(|i| {
                (
                    (i as f64 * width) as i64,
                    if i % 2 == 0 { 1.0 } else { -1.0 },
                )
            })
            .collect();
        let out = integrate(&mut d, width, 200);
        assert_eq!(out.len(), 200);
        assert!(
            out.iter().all(|v| (0.0..=1.0 + 1e-9).contains(v)),
            "{out:?}"
        );
    }

    #[test]
    fn offered_load_is_work_over_capacity_during_arrivals() {
        use crate::model::Site;
        let job = |submit_s: i64, procs: u32, run_s: i64, estimate_s: i64| Job {
            id: 0,
            submit: SimTime::from_secs(submit_s),
            runtime: SimTime::from_secs(run_s),
            estimate: SimTime::from_secs(estimate_s),
            procs,
            home: 0,
            user: -1,
            partition: -1,
        };
        let platform = Platform {
            name: "p".into(),
            sites: vec![Site::flat("a", 4)],
        };
        let cfg = RunConfig::default();
        // 2 × 50 + 4 × 100 CPU-seconds over 4 CPUs × 100 s; the 5-wide job never runs; the
        // second job is killed at its 100 s estimate.
        let jobs = [job(0, 2, 50, 60), job(100, 4, 300, 100), job(50, 5, 10, 10)];
        assert_eq!(offered_load(&platform, &jobs, &cfg), Some(500.0 / 400.0));
        let no_kill = RunConfig {
            kill_at_estimate: false,
            ..cfg
        };
        assert_eq!(
            offered_load(&platform, &jobs, &no_kill),
            Some(1300.0 / 400.0)
        );
        // No arrival span: no rate to compare.
        assert_eq!(offered_load(&platform, &jobs[..1], &cfg), None);
        assert_eq!(
            offered_load(&platform, &[job(7, 1, 1, 1), job(7, 2, 1, 1)], &cfg),
            None
        );
        assert_eq!(offered_load(&platform, &[], &cfg), None);
    }

    #[test]
    fn bucket_means_average_a_step_function() {
        // 100 W on [0, 1 s), 300 W on [1 s, 3 s), then 0: buckets of 2 s (the last runs on).
        let steps = [
            (SimTime(0), 100.0),
            (SimTime(1000), 300.0),
            (SimTime(3000), 0.0),
        ];
        assert_eq!(bucket_means(&steps, 2000.0, 2), vec![200.0, 150.0]);
        // Nothing before the first step; an empty function is zero everywhere.
        let late = [(SimTime(1000), 4.0), (SimTime(2000), 0.0)];
        assert_eq!(bucket_means(&late, 2000.0, 1), vec![2.0]);
        assert_eq!(bucket_means(&[], 10.0, 3), vec![0.0; 3]);
    }

    #[test]
    fn integrate_time_average() {
        // 2 units busy during [0, 5) and 1 during [5, 20), buckets of 10.
        let mut d = vec![(0, 2.0), (5, -1.0), (20, -1.0)];
        assert_eq!(integrate(&mut d, 10.0, 2), vec![1.5, 1.0]);
    }
}
