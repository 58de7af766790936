//! A run's jobs in Batsim's `jobs.csv` schema (oar-team/batsim `docs/output-jobs.rst`), the
//! file evalys (`evalys.jobset.JobSet.from_csv`) and other Batsim tooling read. One writer for
//! every edge: the Python package's `jobs_csv` / `to_evalys` use it, and the CLI and the page
//! can export it the same way.
//!
//! Batsim's `allocated_resources` names the machines a job held (an interval set such as
//! `0-3 8`). On a node-typed site (issue #37) Batsim's resources are the nodes, and the
//! engine placed each job on particular ones: the column lists them, and
//! `requested_number_of_resources` counts them (a job sharing nodes with others lists each
//! node it had a share of). Elsewhere Gridscope counts units without naming them, and the
//! writer gives each job concrete units after the run: the engine guarantees no site is ever
//! over capacity, so a sweep over starts and ends in time order (ends first at an instant,
//! as the engine frees them first) that hands each starting job the lowest free unit numbers
//! always finds enough. Resources of site `k` (its nodes, or its units) are numbered after
//! those of sites `0..k`, so a grid run is one resource space.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::csv::field as csv_field;
use crate::engine::{wallclock_limit, JobOutcome, Outcome, RunConfig, SimTime};
use crate::model::{Job, Placements, Platform, Site};

/// The header Batsim writes (the columns evalys's `JobSet.columns` lists, plus Batsim's
/// `profile` and `final_state`). Gridscope's jobs are rigid and have no Batsim profile: the
/// `profile` column says `rigid`.
pub const BATSIM_JOBS_HEADER: &str = "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources";

/// The jobs that ran (finished or killed at their estimate), in workload order. Rejected jobs
/// have no start and no resources, so Batsim's schema has no row for them (Batsim too leaves
/// rejected jobs out of its start/finish columns); the run's metrics count them
/// (`jobs_rejected`). A killed job is `success` 0, `final_state` `COMPLETED_WALLTIME_REACHED`.
///
/// Fails only when the outcomes are not a valid run (a site over capacity): the engine's
/// invariant check refuses such runs first, so an error here is a bug, and says so.
///
/// `placements` are the run's (empty for a run without node-typed sites, or when the nodes
/// were not kept: the units are then numbered as on a processor site).
pub fn batsim_jobs_csv(
    platform: &Platform,
    jobs: &[Job],
    outcomes: &[Outcome],
    placements: &Placements,
    cfg: &RunConfig,
    workload_name: &str,
) -> Result<String, String> {
    let on_nodes = |s: &Site| s.has_nodes() && !placements.is_empty();
    let mut resources = allocate_units(platform, jobs, outcomes, &on_nodes)?;
    let offsets = first_resources(platform, &on_nodes);
    let workload = csv_field(workload_name);
    let mut out = String::with_capacity(jobs.len() * 96 + 256);
    out.push_str(BATSIM_JOBS_HEADER);
    out.push('\n');
    for (i, (j, o)) in jobs.iter().zip(outcomes).enumerate() {
        if !o.ran() {
            continue;
        }
        let site = &platform.sites[o.site as usize];
        let (units, allocated) = if on_nodes(site) {
            let nodes = placements.of(i).len() as u32;
            (
                nodes,
                placements.nodes_text_from(i, offsets[o.site as usize]),
            )
        } else {
            (site.units_for(j.procs), std::mem::take(&mut resources[i]))
        };
        let requested = wallclock_limit(j, cfg, platform, o.site as usize);
        let (success, state) = match o.status {
            JobOutcome::Killed => (0, "COMPLETED_WALLTIME_REACHED"),
            JobOutcome::Lost => (0, "COMPLETED_KILLED"),
            _ => (1, "COMPLETED_SUCCESSFULLY"),
        };
        let execution = o.end - o.start;
        let waiting = o.start - j.submit;
        let turnaround = o.end - j.submit;
        // Batsim's stretch: turnaround over execution time (a job of no run time has none).
        let stretch = if execution.0 > 0 {
            format!("{}", turnaround.0 as f64 / execution.0 as f64)
        } else {
            "inf".to_string()
        };
        let _ = writeln!(
            out,
            "{},{workload},rigid,{},{units},{requested},{success},{state},{},{execution},{},{waiting},{turnaround},{stretch},{}",
            j.id,
            j.submit,
            o.start,
            o.end,
            allocated
        );
    }
    Ok(out)
}

/// Each site's first resource number in the one resource space: resources are the nodes of
/// a site placed on nodes (`on_nodes`), its allocation units otherwise.
fn first_resources(platform: &Platform, on_nodes: &dyn Fn(&Site) -> bool) -> Vec<u64> {
    let mut offsets = Vec::with_capacity(platform.sites.len());
    let mut next = 0u64;
    for s in &platform.sites {
        offsets.push(next);
        next += match on_nodes(s) {
            true => s.node_types.iter().map(|t| u64::from(t.count)).sum(),
            false => s.capacity_units() as u64,
        };
    }
    offsets
}

/// Each job that ran on a site not placed on nodes gets concrete unit numbers (an interval
/// set, Batsim's notation); other jobs get an empty string.
fn allocate_units(
    platform: &Platform,
    jobs: &[Job],
    outcomes: &[Outcome],
    on_nodes: &dyn Fn(&Site) -> bool,
) -> Result<Vec<String>, String> {
    let offsets = first_resources(platform, on_nodes);
    // (time, 0 = release / 1 = acquire, job): at one instant every end comes before any start.
    let mut events: Vec<(SimTime, u8, u32)> = Vec::with_capacity(2 * jobs.len());
    for (i, o) in outcomes.iter().enumerate() {
        if o.ran() && !on_nodes(&platform.sites[o.site as usize]) {
            events.push((o.start, 1, i as u32));
            events.push((o.end, 0, i as u32));
        }
    }
    events.sort_unstable();
    // Per site, the free units as disjoint intervals [lo, hi) keyed by lo.
    let mut free: Vec<BTreeMap<u64, u64>> = platform
        .sites
        .iter()
        .zip(&offsets)
        .map(|(s, &o)| BTreeMap::from([(o, o + s.capacity_units() as u64)]))
        .collect();
    let mut held: Vec<Vec<(u64, u64)>> = vec![Vec::new(); jobs.len()];
    let mut text = vec![String::new(); jobs.len()];
    for (t, kind, i) in events {
        let i = i as usize;
        let site = outcomes[i].site as usize;
        if kind == 0 {
            for (lo, hi) in std::mem::take(&mut held[i]) {
                give_back(&mut free[site], lo, hi);
            }
            continue;
        }
        let mut need = platform.sites[site].units_for(jobs[i].procs) as u64;
        let mut taken = Vec::new();
        while need > 0 {
            let Some((&lo, &hi)) = free[site].iter().next() else {
                return Err(format!(
                    "job {} starts at t={t} on site {site} with too few free units: the run is not valid",
                    jobs[i].id
                ));
            };
            free[site].remove(&lo);
            let take = need.min(hi - lo);
            taken.push((lo, lo + take));
            if lo + take < hi {
                free[site].insert(lo + take, hi);
            }
            need -= take;
        }
        let mut s = String::new();
        for (k, &(lo, hi)) in taken.iter().enumerate() {
            let sep = if k > 0 { " " } else { "" };
            let _ = if hi - lo == 1 {
                write!(s, "{sep}{lo}")
            } else {
                write!(s, "{sep}{lo}-{}", hi - 1)
            };
        }
        text[i] = s;
        held[i] = taken;
    }
    Ok(text)
}

/// Puts `[lo, hi)` back into a free list, merged with its neighbours.
fn give_back(free: &mut BTreeMap<u64, u64>, mut lo: u64, mut hi: u64) {
    if let Some((&plo, &phi)) = free.range(..lo).next_back() {
        if phi == lo {
            free.remove(&plo);
            lo = plo;
        }
    }
    if let Some(nhi) = free.remove(&hi) {
        hi = nhi;
    }
    free.insert(lo, hi);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::simulate;
    use crate::model::Site;
    use crate::policy::local::LocalPolicyKind;

    fn job(id: i64, submit: i64, runtime: i64, estimate: i64, procs: u32) -> Job {
        Job {
            id,
            submit: SimTime::from_secs(submit),
            runtime: SimTime::from_secs(runtime),
            estimate: SimTime::from_secs(estimate),
            procs,
            home: 0,
            user: -1,
            partition: -1,
        }
    }

    /// `jobs.csv` of `jobs` under FCFS on one site of four units, as workload "w".
    fn fcfs_on_four_units(jobs: &[Job]) -> String {
        let platform = Platform::single(Site::flat("m", 4));
        let cfg = RunConfig::default();
        let out = simulate(&platform, jobs, LocalPolicyKind::Fcfs, &cfg, &mut |_, _| {
            true
        })
        .expect("a valid run");
        batsim_jobs_csv(&platform, jobs, &out.outcomes, &out.placements, &cfg, "w").expect("valid")
    }

    /// Four processors: job 1 (2 procs) and job 2 (2 procs) run together, job 3 (3 procs)
    /// waits for both and job 4 starts beside it on the last unit, killed at its estimate;
    /// job 5 is too wide (rejected, no row). Units are handed out lowest first and given
    /// back merged.
    #[test]
    fn rows_follow_batsims_schema_with_concrete_units() {
        let jobs = [
            job(1, 0, 10, 10, 2),
            job(2, 0, 5, 20, 2),
            job(3, 1, 4, 4, 3),
            job(4, 2, 50, 3, 1),
            job(5, 3, 1, 1, 9),
        ];
        let csv = fcfs_on_four_units(&jobs);
        let expect = format!(
            "{BATSIM_JOBS_HEADER}\n\
             1,w,rigid,0,2,10,1,COMPLETED_SUCCESSFULLY,0,10,10,0,10,1,0-1\n\
             2,w,rigid,0,2,20,1,COMPLETED_SUCCESSFULLY,0,5,5,0,5,1,2-3\n\
             3,w,rigid,1,3,4,1,COMPLETED_SUCCESSFULLY,10,4,14,9,13,3.25,0-2\n\
             4,w,rigid,2,1,3,0,COMPLETED_WALLTIME_REACHED,10,3,13,8,11,3.6666666666666665,3\n"
        );
        assert_eq!(csv, expect);
    }

    /// Fragmented free units: a job may get several intervals, written space-separated.
    #[test]
    fn a_job_may_hold_several_intervals() {
        let jobs = [
            job(1, 0, 10, 10, 1),
            job(2, 0, 2, 2, 1),
            job(3, 0, 10, 10, 1),
            job(4, 0, 2, 2, 1),
            job(5, 1, 5, 5, 2),
            job(6, 2, 5, 5, 2),
        ];
        let csv = fcfs_on_four_units(&jobs);
        let fifth = csv.lines().nth(5).expect("rows");
        assert!(fifth.starts_with("5,w,rigid,1,2,5,1,"), "{csv}");
        assert!(fifth.ends_with(",1 3"), "{csv}");
    }

    /// A processor site of 4 units, then a site of two 2-core nodes: the nodes are numbered
    /// after the units, and a job placed on node 1 of the second site holds resource 5.
    #[test]
    fn a_node_typed_sites_jobs_hold_its_nodes_numbered_after_the_sites_before() {
        use crate::engine::JobOutcome;
        use crate::model::{NodeType, Share};
        let mut nodes = Site::flat("n", 4);
        nodes.node_types = vec![NodeType {
            name: String::new(),
            count: 2,
            cores: 2,
            mem_kb: 0,
            gpus: 0,
            power: None,
            exclusive: false,
        }];
        let platform = Platform {
            name: "two".into(),
            sites: vec![Site::flat("p", 4), nodes],
        };
        let jobs = [job(1, 0, 10, 10, 3), job(2, 0, 10, 10, 3)];
        let ran = |site: u32| Outcome {
            site,
            start: SimTime::ZERO,
            end: SimTime::from_secs(10),
            status: JobOutcome::Finished,
        };
        let mut placements = Placements::for_jobs(2);
        let share = |node: u32, cores: u32| Share {
            node,
            cores,
            mem_kb: 0,
            gpus: 0,
        };
        placements.record(1, &[share(0, 1), share(1, 2)]);
        let csv = batsim_jobs_csv(
            &platform,
            &jobs,
            &[ran(0), ran(1)],
            &placements,
            &RunConfig::default(),
            "w",
        )
        .expect("valid");
        let allocated: Vec<(&str, &str)> = csv
            .lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[4], f[14])
            })
            .collect();
        assert_eq!(allocated, [("3", "0-2"), ("2", "4-5")]);
    }
}
