//! SOB's grid schemes over node-typed sites (issue #37): a site whose nodes can never hold a
//! job is not asked (its approximate wait is none), so a job its home cannot hold runs
//! elsewhere instead of being rejected; nodes without memory schedule exactly as the same
//! cores counted as processors, under every scheme that places on nodes; and random
//! workloads with memory and GPUs on random two-site platforms keep every invariant.

use gridscope::engine::{JobOutcome, RejectReason, RunConfig, Simulation};
use gridscope::failure::{FailureModel, OnFailure, Outages};
use gridscope::model::{Demand, Job, NodeType, Platform, Resource, Site};
use gridscope::policy::grid::{GridParams, GridScheme};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::rng::SimRng;
use gridscope::time::SimTime;

use crate::grid::job;

/// The schemes that run over node-typed sites.
const ON_NODES: [GridScheme; 5] = [
    GridScheme::Local,
    GridScheme::Sender,
    GridScheme::Receiver,
    GridScheme::Symmetric,
    GridScheme::Central,
];

pub(crate) fn site(name: &str, count: u32, cores: u32, mem_kb: u64, gpus: u32) -> Site {
    Site {
        name: name.into(),
        nodes: count,
        cpus_per_node: cores,
        speed: 1.0,
        allocation: Default::default(),
        groups: Vec::new(),
        node_types: vec![NodeType {
            name: String::new(),
            count,
            cores,
            mem_kb,
            gpus,
            power: None,
            exclusive: false,
        }],
    }
}

/// Each job's outcome under `scheme` over `local` (the engine checked its invariants, the
/// node check included).
fn run(
    p: &Platform,
    jobs: &[Job],
    demands: &[Demand],
    local: LocalPolicyKind,
    scheme: GridScheme,
) -> Vec<gridscope::engine::Outcome> {
    run_with(p, jobs, demands, local, scheme, Outages::default()).outcomes
}

/// [`run`] with nodes going down as `outages` say; the whole output.
fn run_with(
    p: &Platform,
    jobs: &[Job],
    demands: &[Demand],
    local: LocalPolicyKind,
    scheme: GridScheme,
    outages: Outages,
) -> gridscope::engine::RunOutput {
    let params = GridParams::default();
    run_with_params(p, jobs, demands, local, scheme, &params, outages)
}

/// [`run_with`] under the scheme's `params`.
pub(crate) fn run_with_params(
    p: &Platform,
    jobs: &[Job],
    demands: &[Demand],
    local: LocalPolicyKind,
    scheme: GridScheme,
    params: &GridParams,
    outages: Outages,
) -> gridscope::engine::RunOutput {
    Simulation::new(p, jobs, local, scheme, params, &RunConfig::default())
        .and_then(|s| s.with_demands(demands))
        .and_then(|s| s.with_outages(outages))
        .and_then(|s| s.run(&mut |_, _| true))
        .unwrap_or_else(|e| panic!("{local} under {}: {e}", scheme.name()))
}

/// Site 0's nodes have 100 KB, site 1's 1,000 KB; jobs at home on site 0 ask 200 KB per
/// processor. Alone, site 0 rejects them (memory); under every migrating scheme they run
/// on site 1, which is the only site asked.
#[test]
fn a_job_its_home_cannot_hold_runs_where_nodes_can() {
    let p = Platform {
        name: "two".into(),
        sites: vec![site("small", 2, 4, 100, 0), site("big", 2, 4, 1_000, 0)],
    };
    let jobs = [
        job(0, 0, 100, 2, 0),
        job(1, 10, 100, 3, 0),
        job(2, 20, 50, 1, 0),
    ];
    let demands = [200, 200, 50].map(|mem_kb| Demand {
        mem_kb,
        ..Demand::default()
    });
    let local = run(
        &p,
        &jobs,
        &demands,
        LocalPolicyKind::Fcfs,
        GridScheme::Local,
    );
    for o in &local[..2] {
        assert!(matches!(
            o.status,
            JobOutcome::Rejected(RejectReason::Unplaceable {
                resource: Resource::Memory,
                ..
            })
        ));
    }
    assert!(matches!(local[2].status, JobOutcome::Finished));
    for scheme in &ON_NODES[1..] {
        for kind in [LocalPolicyKind::Fcfs, LocalPolicyKind::Easy] {
            let out = run(&p, &jobs, &demands, kind, *scheme);
            let ran: Vec<(u32, bool)> = out
                .iter()
                .map(|o| (o.site, matches!(o.status, JobOutcome::Finished)))
                .collect();
            assert_eq!(ran[..2], [(1, true), (1, true)], "{kind} {}", scheme.name());
            assert!(ran[2].1, "{kind} {}", scheme.name());
        }
    }
}

/// Two sites of one-core-per-unit nodes without memory, jobs asking processors only:
/// placement finds nodes exactly when enough cores are free, so every scheme gives the
/// schedule (site and start of every job) of the same cores counted as processors.
#[test]
fn nodes_without_memory_schedule_as_processors_under_every_scheme() {
    let mut rng = SimRng::new(41);
    for case in 0..30 {
        let (n0, n1) = (
            1 + rng.range_u64(0, 3) as u32,
            1 + rng.range_u64(0, 3) as u32,
        );
        let cores = 1 + rng.range_u64(0, 7) as u32;
        let typed = Platform {
            name: "t".into(),
            sites: vec![site("a", n0, cores, 0, 0), site("b", n1, cores, 0, 0)],
        };
        let flat = Platform {
            name: "t".into(),
            sites: vec![Site::flat("a", n0 * cores), Site::flat("b", n1 * cores)],
        };
        let widest = cores * n0.min(n1);
        let mut t = 0;
        let jobs: Vec<Job> = (0..60)
            .map(|i| {
                t += rng.range_u64(0, 30) as i64;
                let procs = 1 + rng.range_u64(0, u64::from(widest) - 1) as u32;
                job(
                    i,
                    t,
                    1 + rng.range_u64(0, 300) as i64,
                    procs,
                    rng.range_u64(0, 1) as u32,
                )
            })
            .collect();
        for scheme in ON_NODES {
            for kind in [LocalPolicyKind::Fcfs, LocalPolicyKind::Easy] {
                let key = |o: &[gridscope::engine::Outcome]| -> Vec<(u32, SimTime)> {
                    o.iter().map(|o| (o.site, o.start)).collect()
                };
                assert_eq!(
                    key(&run(&typed, &jobs, &[], kind, scheme)),
                    key(&run(&flat, &jobs, &[], kind, scheme)),
                    "case {case}: {kind} under {}",
                    scheme.name()
                );
            }
        }
    }
}

/// Random workloads with memory and GPUs on two random node-typed sites: every scheme and
/// every placing policy ends each run with the engine's checks (no node over its cores,
/// memory or GPUs; every job finished or rejected with the resource named), with nodes
/// failing (drawn, killed runs requeued or lost) in every other case.
#[test]
fn random_grids_of_nodes_keep_every_invariant() {
    let mut rng = SimRng::new(43);
    let mut killed = 0;
    for case in 0..40u64 {
        let mut draw_site = |name: &str| {
            site(
                name,
                1 + rng.range_u64(0, 3) as u32,
                1 + rng.range_u64(0, 7) as u32,
                100 * rng.range_u64(0, 4),
                rng.range_u64(0, 2) as u32,
            )
        };
        let p = Platform {
            name: "r".into(),
            sites: vec![draw_site("a"), draw_site("b")],
        };
        let mut t = 0;
        let jobs: Vec<Job> = (0..40)
            .map(|i| {
                t += rng.range_u64(0, 20) as i64;
                let procs = 1 + rng.range_u64(0, 11) as u32;
                job(
                    i,
                    t,
                    1 + rng.range_u64(0, 200) as i64,
                    procs,
                    rng.range_u64(0, 1) as u32,
                )
            })
            .collect();
        let demands: Vec<Demand> = jobs
            .iter()
            .map(|_| Demand {
                mem_kb: 10 * rng.range_u64(0, 15),
                gpus: u32::from(rng.range_u64(0, 5) == 0),
                ..Demand::default()
            })
            .collect();
        for scheme in ON_NODES {
            for kind in [
                LocalPolicyKind::Fcfs,
                LocalPolicyKind::Easy,
                LocalPolicyKind::Conservative,
                LocalPolicyKind::Sjf,
                LocalPolicyKind::FirstFit,
                LocalPolicyKind::Slurm,
            ] {
                // Every other case with nodes failing: before 2026-12-04 the central
                // scheme dropped a job no site gave an AWT for (a site with nodes down),
                // which then waited for ever while the model kept drawing.
                let outages = match (case % 2, scheme) {
                    (1, _) => Outages {
                        model: Some(FailureModel::exponential(800.0, 100.0)),
                        seed: case,
                        on_failure: [OnFailure::Requeue, OnFailure::Lost][(case / 2 % 2) as usize],
                        ..Outages::default()
                    },
                    _ => Outages::default(),
                };
                let out = run_with(&p, &jobs, &demands, kind, scheme, outages);
                assert!(
                    out.outcomes
                        .iter()
                        .all(|o| !matches!(o.status, JobOutcome::Pending)),
                    "case {case}: {kind} under {}",
                    scheme.name()
                );
                killed += out.failures.map_or(0, |f| f.killed.len());
            }
        }
    }
    assert!(killed > 100, "the failing cases killed {killed} runs");
}
