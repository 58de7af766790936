//! Utilization per resource and stranded resources, on node-typed sites (issue #37,
//! docs/nodes.md "Utilization per resource").
//!
//! A processor count says how busy a machine was; on nodes with memory and GPUs it hides
//! the capacity nobody could use. For cores, memory and GPUs this measures the share of the
//! capacity held by jobs, and the share that sat idle but *stranded*: free on a node whose
//! other resource was used up, so no job could have had it.
//!
//! - An idle **core** is stranded while its node's free memory is less than one core's
//!   share of it (memory / cores; memory modelled on the site), or while the node has GPUs
//!   and all of them are taken.
//! - Free **memory** and free **GPUs** are stranded while every core of their node is taken.
//!
//! Computed after the run from the outcomes and the nodes each job held, by one sweep over
//! the starts and ends in time order (ends first at an instant, as the engine frees them
//! first); sums are integers of resource × milliseconds, so the numbers are the same on
//! every platform.

use serde::{Deserialize, Serialize};

use crate::engine::Outcome;
use crate::model::{NodeFree, Placements, Platform};
use crate::time::SimTime;

/// Each number's formula, for `gridscope help metrics`, the page and docs/nodes.md.
pub const RESOURCE_HELP: &[super::MetricHelp] = &[
    super::MetricHelp { key: "resources.cores.utilization", formula: "on node-typed sites: Σ cores held × (end − start) / (Σ cores × makespan); equal to utilization on a platform of node-typed sites", source: "ours (issue #37), SOB §3.2's utilization per resource" },
    super::MetricHelp { key: "resources.cores.stranded", formula: "Σ idle cores × time on nodes whose free memory is below one core's share (node memory / node cores) or whose GPUs are all taken, / (Σ cores × makespan): cores no job could have used", source: "ours (issue #37)" },
    super::MetricHelp { key: "resources.memory_kb.utilization", formula: "Σ KB held × (end − start) / (Σ node memory × makespan); only when some node has memory", source: "ours (issue #37)" },
    super::MetricHelp { key: "resources.memory_kb.stranded", formula: "Σ free KB × time on nodes with every core taken / (Σ node memory × makespan)", source: "ours (issue #37)" },
    super::MetricHelp { key: "resources.gpus.utilization", formula: "Σ GPUs held × (end − start) / (Σ GPUs × makespan); only when some node has GPUs", source: "ours (issue #37)" },
    super::MetricHelp { key: "resources.gpus.stranded", formula: "Σ free GPUs × time on nodes with every core taken / (Σ GPUs × makespan)", source: "ours (issue #37)" },
];

/// One resource over a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceUse {
    /// How much of it the nodes have (cores, KB of memory or GPUs).
    pub capacity: u64,
    /// Held by jobs: Σ held × (end − start) / (capacity × span).
    pub utilization: f64,
    /// Idle but stranded (module header): Σ stranded × time / (capacity × span).
    pub stranded: f64,
}

/// Cores, memory (when some node has memory) and GPUs (when some node has GPUs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeResources {
    pub cores: ResourceUse,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_kb: Option<ResourceUse>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus: Option<ResourceUse>,
}

/// One node-typed site's resources.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SiteResources {
    pub site: String,
    #[serde(flatten)]
    pub resources: NodeResources,
}

/// A run's resources on its node-typed sites: all of them together, and each.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunResources {
    /// From the first submission to the last end (the run's makespan), seconds.
    pub span_s: f64,
    #[serde(flatten)]
    pub all: NodeResources,
    pub sites: Vec<SiteResources>,
}

/// Resource × milliseconds: held, and stranded.
#[derive(Clone, Copy, Debug, Default)]
struct Sums {
    held: u128,
    stranded: u128,
}

/// Per site, cores, memory and GPUs.
#[derive(Clone, Copy, Debug, Default)]
struct SiteSums {
    capacity: [u64; 3],
    sums: [Sums; 3],
    memory: bool,
    gpus: bool,
}

/// The resources of a run of `outcomes` with its `placements` on `platform`, measured over
/// `[first_submit, last end]`; `None` when no site has node types. An error means the
/// placements are not a run (a node over what it has), which the engine's invariant check
/// refuses first.
pub fn run_resources(
    platform: &Platform,
    outcomes: &[Outcome],
    placements: &Placements,
    first_submit: SimTime,
) -> Result<Option<RunResources>, String> {
    if !platform.sites.iter().any(|s| s.has_nodes()) {
        return Ok(None);
    }
    let last_end = outcomes
        .iter()
        .filter(|o| o.ran())
        .map(|o| o.end)
        .max()
        .unwrap_or(first_submit)
        .max(first_submit);
    let span = ms(last_end.0 - first_submit.0);
    let mut sites = Vec::new();
    let mut all = SiteSums::default();
    for (s, site) in platform.sites.iter().enumerate() {
        let Some(pool) = site.node_pool() else {
            continue;
        };
        let sums = sweep_site(
            s,
            pool.free().clone(),
            pool.tracks_memory,
            outcomes,
            placements,
            None,
        )
        .map_err(|e| format!("site '{}': {e}", site.name))?;
        for r in 0..3 {
            all.capacity[r] += sums.capacity[r];
            all.sums[r].held += sums.sums[r].held;
            all.sums[r].stranded += sums.sums[r].stranded;
        }
        all.memory |= sums.memory;
        all.gpus |= sums.gpus;
        sites.push(SiteResources {
            site: site.name.clone(),
            resources: sums.report(span),
        });
    }
    Ok(Some(RunResources {
        span_s: span as f64 / crate::time::TICKS_PER_SEC as f64,
        all: all.report(span),
        sites,
    }))
}

impl SiteSums {
    fn report(&self, span: u128) -> NodeResources {
        let use_of = |r: usize| {
            let whole = u128::from(self.capacity[r]) * span;
            let share = |x: u128| {
                if whole > 0 {
                    x as f64 / whole as f64
                } else {
                    0.0
                }
            };
            ResourceUse {
                capacity: self.capacity[r],
                utilization: share(self.sums[r].held),
                stranded: share(self.sums[r].stranded),
            }
        };
        NodeResources {
            cores: use_of(0),
            memory_kb: self.memory.then(|| use_of(1)),
            gpus: self.gpus.then(|| use_of(2)),
        }
    }
}

/// What node `n` strands now, as (cores, memory, GPUs) (module header).
fn stranded(cap: &NodeFree, free: &NodeFree, memory: bool, n: usize) -> [u64; 3] {
    let (cores, mem, gpus) = (cap.cores[n], cap.mem_kb[n], cap.gpus[n]);
    let (fc, fm, fg) = (free.cores[n], free.mem_kb[n], free.gpus[n]);
    let memory_short = memory && u128::from(fm) * u128::from(cores) < u128::from(mem);
    let gpus_short = gpus > 0 && fg == 0;
    let cores_full = fc == 0;
    [
        if memory_short || gpus_short {
            u64::from(fc)
        } else {
            0
        },
        if cores_full && memory { fm } else { 0 },
        if cores_full { u64::from(fg) } else { 0 },
    ]
}

/// A duration in milliseconds, as a sum's factor (0 for none).
fn ms(d: i64) -> u128 {
    u128::try_from(d).unwrap_or(0)
}

/// Per resource (cores, memory, GPUs), each change of what is stranded: (instant, change)
/// for [`super::integrate`].
type StrandedSteps = [Vec<(i64, f64)>; 3];

/// One site's sums, sweeping its jobs' starts and ends; with `stranded_steps`, each change
/// of the stranded cores, memory and GPUs too.
fn sweep_site(
    site: usize,
    capacity: NodeFree,
    memory: bool,
    outcomes: &[Outcome],
    placements: &Placements,
    mut stranded_steps: Option<&mut StrandedSteps>,
) -> Result<SiteSums, String> {
    let mut sums = SiteSums {
        capacity: [
            capacity.cores.iter().map(|&c| u64::from(c)).sum(),
            capacity.mem_kb.iter().sum(),
            capacity.gpus.iter().map(|&g| u64::from(g)).sum(),
        ],
        memory,
        gpus: capacity.gpus.iter().any(|&g| g > 0),
        ..SiteSums::default()
    };
    // (instant, 0 for an end and 1 for a start, job): ends first at an instant.
    let mut events: Vec<(i64, u8, u32)> = Vec::new();
    for (idx, o) in outcomes.iter().enumerate() {
        if o.site as usize != site || !o.ran() || placements.of(idx).is_empty() {
            continue;
        }
        events.push((o.start.0, 1, idx as u32));
        events.push((o.end.0, 0, idx as u32));
    }
    // Pushed job by job: the stable sort by (instant, end or start) is the triples' sort.
    if !crate::radix::sort_by_instant_and_flag(&mut events, |e| e.0, |e| e.1 == 1) {
        events.sort_unstable();
    }
    let mut free = capacity.clone();
    // What is stranded now, summed over the nodes.
    let mut now = [0u64; 3];
    let mut last = events.first().map_or(0, |e| e.0);
    for &(at, kind, idx) in &events {
        let dt = ms(at - last);
        for (sum, &n) in sums.sums.iter_mut().zip(&now) {
            sum.stranded += u128::from(n) * dt;
        }
        last = at;
        let o = &outcomes[idx as usize];
        let held = ms(o.end.0 - o.start.0);
        for sh in placements.of(idx as usize) {
            let n = sh.node as usize;
            if n >= free.cores.len() {
                return Err(format!("job {idx} on node {n}, which does not exist"));
            }
            let before = stranded(&capacity, &free, memory, n);
            let over = || format!("node {n} over what it has when job {idx} starts");
            if kind == 1 {
                free.cores[n] = free.cores[n].checked_sub(sh.cores).ok_or_else(over)?;
                free.mem_kb[n] = free.mem_kb[n].checked_sub(sh.mem_kb).ok_or_else(over)?;
                free.gpus[n] = free.gpus[n].checked_sub(sh.gpus).ok_or_else(over)?;
                sums.sums[0].held += u128::from(sh.cores) * held;
                sums.sums[1].held += u128::from(sh.mem_kb) * held;
                sums.sums[2].held += u128::from(sh.gpus) * held;
            } else {
                free.cores[n] += sh.cores;
                free.mem_kb[n] += sh.mem_kb;
                free.gpus[n] += sh.gpus;
            }
            let after = stranded(&capacity, &free, memory, n);
            for r in 0..3 {
                now[r] = now[r] - before[r] + after[r];
                if let Some(trace) = stranded_steps
                    .as_deref_mut()
                    .filter(|_| after[r] != before[r])
                {
                    trace[r].push((at, after[r] as f64 - before[r] as f64));
                }
            }
        }
    }
    Ok(sums)
}

/// Adds to `series` (made by [`super::series`] over the same run, so the same buckets) each
/// node-typed site's memory and GPUs held over time: Σ held / the site's capacity,
/// time-averaged per bucket, for the sites with memory (modelled) or GPUs; and on those
/// sites what is stranded (module header) / the site's capacity: idle cores, and the
/// memory and GPUs free on nodes with every core taken. The time-average of a line over
/// the run is [`run_resources`]' utilization (or stranded share) of that resource when the
/// run starts at 0.
pub fn add_resource_series(
    platform: &Platform,
    outcomes: &[Outcome],
    placements: &Placements,
    series: &mut super::Series,
) {
    let width = series.bucket_s * crate::time::TICKS_PER_SEC as f64;
    for (s, (site, line)) in platform.sites.iter().zip(&mut series.sites).enumerate() {
        let Some(pool) = site.node_pool() else {
            continue;
        };
        let buckets = line.utilization.len();
        let cap = pool.free();
        let memory: u64 = cap.mem_kb.iter().sum();
        let gpus: u64 = cap.gpus.iter().map(|&g| u64::from(g)).sum();
        // (instant, memory change, GPU change); integer KB and GPUs, so any order of one
        // instant's changes sums to the same.
        let mut mem_steps: Vec<(i64, f64)> = Vec::new();
        let mut gpu_steps: Vec<(i64, f64)> = Vec::new();
        for (idx, o) in outcomes.iter().enumerate() {
            if o.site as usize != s || !o.ran() {
                continue;
            }
            let shares = placements.of(idx);
            let kb: u64 = shares.iter().map(|x| x.mem_kb).sum();
            let g: u64 = shares.iter().map(|x| u64::from(x.gpus)).sum();
            if kb > 0 {
                mem_steps.push((o.start.0, kb as f64));
                mem_steps.push((o.end.0, -(kb as f64)));
            }
            if g > 0 {
                gpu_steps.push((o.start.0, g as f64));
                gpu_steps.push((o.end.0, -(g as f64)));
            }
        }
        let share = |steps: &mut Vec<(i64, f64)>, total: u64| -> Vec<f64> {
            super::integrate(steps, width, buckets)
                .into_iter()
                .map(|v| v / total as f64)
                .collect()
        };
        if pool.tracks_memory && memory > 0 {
            line.memory = share(&mut mem_steps, memory);
        }
        if gpus > 0 {
            line.gpus = share(&mut gpu_steps, gpus);
        }
        if (pool.tracks_memory && memory > 0) || gpus > 0 {
            let cores: u64 = cap.cores.iter().map(|&c| u64::from(c)).sum();
            let mut steps = StrandedSteps::default();
            // A sweep that fails (a node over what it has) is an invalid run, which
            // `run_resources` reports; its series is left without the lines.
            let sweep = sweep_site(
                s,
                cap.clone(),
                pool.tracks_memory,
                outcomes,
                placements,
                Some(&mut steps),
            );
            if sweep.is_ok() {
                let [cores_steps, mem_steps, gpu_steps] = &mut steps;
                line.cores_stranded = share(cores_steps, cores);
                if pool.tracks_memory && memory > 0 {
                    line.memory_stranded = share(mem_steps, memory);
                }
                if gpus > 0 {
                    line.gpus_stranded = share(gpu_steps, gpus);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::JobOutcome;
    use crate::model::{NodeType, Share, Site};

    fn ran(start: i64, end: i64) -> Outcome {
        Outcome {
            site: 0,
            start: SimTime(start),
            end: SimTime(end),
            status: JobOutcome::Finished,
        }
    }

    fn share(node: u32, cores: u32, mem_kb: u64, gpus: u32) -> Share {
        Share {
            node,
            cores,
            mem_kb,
            gpus,
        }
    }

    /// Two nodes of 4 cores, 8 KB and 2 GPUs, over 10 s.
    fn platform() -> Platform {
        let mut site = Site::flat("s", 8);
        site.node_types = vec![NodeType {
            name: String::new(),
            count: 2,
            cores: 4,
            mem_kb: 8,
            gpus: 2,
            power: None,
            exclusive: false,
        }];
        Platform::single(site)
    }

    #[test]
    fn a_job_that_takes_a_nodes_memory_strands_its_other_cores() {
        // Job 0: 1 core and all 8 KB of node 0 for 10 s; the node's 3 other cores are
        // stranded all along. Job 1: 4 cores of node 1 and 1 GPU for 5 s; its other GPU
        // and its 4 KB left are stranded for those 5 s.
        let outcomes = [ran(0, 10_000), ran(0, 5_000)];
        let mut placements = Placements::for_jobs(2);
        placements.record(0, &[share(0, 1, 8, 0)]);
        placements.record(1, &[share(1, 4, 4, 1)]);
        let r = run_resources(&platform(), &outcomes, &placements, SimTime(0))
            .unwrap()
            .unwrap();
        assert_eq!(r.span_s, 10.0);
        assert_eq!(r.all.cores.capacity, 8);
        assert_eq!(r.all.cores.utilization, (10.0 + 4.0 * 5.0) / 80.0);
        assert_eq!(r.all.cores.stranded, 3.0 * 10.0 / 80.0);
        let mem = r.all.memory_kb.clone().unwrap();
        assert_eq!(mem.utilization, (8.0 * 10.0 + 4.0 * 5.0) / 160.0);
        assert_eq!(mem.stranded, 4.0 * 5.0 / 160.0);
        let gpus = r.all.gpus.clone().unwrap();
        assert_eq!(gpus.utilization, 5.0 / 40.0);
        assert_eq!(gpus.stranded, 5.0 / 40.0);
        assert_eq!(r.sites.len(), 1);
        assert_eq!(r.sites[0].resources, r.all);
    }

    #[test]
    fn what_is_stranded_over_time_is_drawn_per_resource() {
        // The first test's run in two buckets of 5 s: node 0's 3 cores stranded all
        // along; node 1's 4 KB and 1 GPU left while job 1 takes its cores, in the first.
        let outcomes = [ran(0, 10_000), ran(0, 5_000)];
        let mut placements = Placements::for_jobs(2);
        placements.record(0, &[share(0, 1, 8, 0)]);
        placements.record(1, &[share(1, 4, 4, 1)]);
        let mut series = crate::metrics::Series {
            bucket_s: 5.0,
            sites: vec![crate::metrics::SiteSeries {
                name: "s".into(),
                utilization: vec![0.0; 2],
                queue_length: vec![0.0; 2],
                nodes_up: Vec::new(),
                memory: Vec::new(),
                gpus: Vec::new(),
                cores_stranded: Vec::new(),
                memory_stranded: Vec::new(),
                gpus_stranded: Vec::new(),
            }],
        };
        add_resource_series(&platform(), &outcomes, &placements, &mut series);
        let line = &series.sites[0];
        assert_eq!(line.cores_stranded, [3.0 / 8.0, 3.0 / 8.0]);
        assert_eq!(line.memory_stranded, [4.0 / 16.0, 0.0]);
        assert_eq!(line.gpus_stranded, [1.0 / 4.0, 0.0]);
        assert_eq!(line.memory, [(8.0 + 4.0) / 16.0, 8.0 / 16.0]);
        assert_eq!(line.gpus, [1.0 / 4.0, 0.0]);
    }

    #[test]
    fn taking_every_gpu_strands_the_free_cores_and_a_site_without_nodes_has_none() {
        let outcomes = [ran(1_000, 3_000)];
        let mut placements = Placements::for_jobs(1);
        placements.record(0, &[share(0, 1, 0, 2)]);
        let r = run_resources(&platform(), &outcomes, &placements, SimTime(1_000))
            .unwrap()
            .unwrap();
        assert_eq!(r.all.cores.stranded, 3.0 * 2.0 / 16.0);
        let flat = Platform::single(Site::flat("s", 8));
        assert_eq!(
            run_resources(&flat, &outcomes, &placements, SimTime(0)),
            Ok(None)
        );
    }

    #[test]
    fn a_share_past_its_node_is_an_error_not_a_number() {
        let outcomes = [ran(0, 1_000), ran(0, 1_000)];
        let mut placements = Placements::for_jobs(2);
        placements.record(0, &[share(0, 3, 0, 0)]);
        placements.record(1, &[share(0, 3, 0, 0)]);
        let err = run_resources(&platform(), &outcomes, &placements, SimTime(0)).unwrap_err();
        assert!(err.contains("node 0 over what it has"), "{err}");
    }
}
