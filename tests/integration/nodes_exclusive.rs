//! Node-exclusive node types (issue #37): a site with node types and `allocation: node`
//! runs at most one job per node. Checked three ways: on one type without memory it is
//! the whole-node site it describes (the schedules of `allocation: node` without types,
//! which the differential test pins against the reference); random workloads with memory,
//! GPUs and node counts keep the node check, and no two jobs ever share a node; and a hand
//! case where exclusivity, not cores, decides, with its utilization counting whole nodes.

use gridscope::engine::{simulate, RunOutput, SimError, Simulation};
use gridscope::failure::{FailureModel, OnFailure, Outages};
use gridscope::metrics::compute_placed;
use gridscope::model::{Allocation, Demand, Job, NodeType, PlacementRule, Platform, Site};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::rng::SimRng;
use gridscope::time::SimTime;

use crate::nodes::{no_kill, node_site, random_demands, random_jobs, random_types, ON_NODES};

fn node_type(count: u32, cores: u32, mem_kb: u64, gpus: u32) -> NodeType {
    NodeType {
        name: String::new(),
        count,
        cores,
        mem_kb,
        gpus,
        power: None,
        exclusive: false,
    }
}

/// Job `id` submitted at `submit` s, running `run` s on `procs` processors (its estimate
/// exact), at site 0.
fn job(id: i64, submit: i64, run: i64, procs: u32) -> Job {
    Job {
        id,
        submit: SimTime::from_secs(submit),
        runtime: SimTime::from_secs(run),
        estimate: SimTime::from_secs(run),
        procs,
        home: 0,
        user: -1,
        partition: -1,
    }
}

/// `types` as one node-exclusive site.
fn exclusive_site(types: Vec<NodeType>) -> Platform {
    let mut p = node_site(types);
    p.sites[0].allocation = Allocation::Node;
    p
}

/// A run of `jobs` with `demands` on `p` under `kind`, jobs never killed at their
/// estimates, ready for more settings.
fn sim<'a>(
    p: &'a Platform,
    jobs: &'a [Job],
    demands: &'a [Demand],
    kind: LocalPolicyKind,
) -> Result<Simulation<'a>, SimError> {
    Simulation::new(
        p,
        jobs,
        kind,
        Default::default(),
        &Default::default(),
        &no_kill(),
    )
    .and_then(|s| s.with_demands(demands))
}

fn run(p: &Platform, jobs: &[Job], demands: &[Demand], kind: LocalPolicyKind) -> RunOutput {
    sim(p, jobs, demands, kind)
        .and_then(|s| s.run(&mut |_, _| true))
        .unwrap_or_else(|e| panic!("{kind}: {e}"))
}

/// No node runs two jobs at once: per node, the jobs placed there, by start, each start
/// at or after the previous one's end.
fn one_job_per_node(jobs: &[Job], out: &RunOutput, nodes: usize) -> Result<(), String> {
    one_job_per_exclusive_node(jobs, out, &vec![true; nodes])
}

/// [`one_job_per_node`] on the nodes `exclusive` marks only (the others may be shared).
fn one_job_per_exclusive_node(
    jobs: &[Job],
    out: &RunOutput,
    exclusive: &[bool],
) -> Result<(), String> {
    let mut on: Vec<Vec<(SimTime, SimTime, i64)>> = vec![Vec::new(); exclusive.len()];
    for (i, o) in out.outcomes.iter().enumerate() {
        if !o.ran() {
            continue;
        }
        for s in out.placements.of(i) {
            if exclusive[s.node as usize] {
                on[s.node as usize].push((o.start, o.end, jobs[i].id));
            }
        }
    }
    for (n, mut runs) in on.into_iter().enumerate() {
        runs.sort_unstable();
        if let Some(w) = runs.windows(2).find(|w| w[1].0 < w[0].1) {
            return Err(format!(
                "node {n} runs job {} and job {} at once",
                w[0].2, w[1].2
            ));
        }
    }
    Ok(())
}

/// Runs `jobs` on `platform` under every policy that places on nodes and every placement
/// rule, with `outages`: each run ends with the engine's node check, and no node that
/// `exclusive` marks runs two jobs at once ([`one_job_per_exclusive_node`]).
fn never_share(
    platform: &Platform,
    jobs: &[Job],
    demands: &[Demand],
    outages: &Outages,
    exclusive: &[bool],
    case: u64,
) {
    for kind in ON_NODES {
        for rule in PlacementRule::ALL {
            let out = sim(platform, jobs, demands, kind)
                .and_then(|s| s.with_placement(rule))
                .and_then(|s| s.with_outages(outages.clone()))
                .and_then(|s| s.run(&mut |_, _| true))
                .unwrap_or_else(|e| panic!("case {case} {kind} {}: {e}", rule.name()));
            one_job_per_exclusive_node(jobs, &out, exclusive)
                .unwrap_or_else(|e| panic!("case {case} {kind} {}: {e}", rule.name()));
        }
    }
}

/// One node type without memory, jobs of processors only: the node-exclusive site is the
/// site of `allocation: node` without types (a job of p CPUs takes ⌈p / cores⌉ whole
/// nodes, first fit), whose schedules the differential test checks against the reference
/// — job for job, for every policy that does not hold particular nodes in a plan (and for
/// those too on one node), with the same utilization (whole nodes held).
#[test]
fn one_exclusive_type_is_the_whole_node_site() {
    let mut rng = SimRng::new(371);
    let cfg = no_kill();
    for case in 0..120 {
        let count = 1 + rng.range_u64(0, 5) as u32;
        let cores = 1 + rng.range_u64(0, 7) as u32;
        let typed = exclusive_site(vec![node_type(count, cores, 0, 0)]);
        let mut whole = Site::flat("N", count);
        whole.cpus_per_node = cores;
        whole.allocation = Allocation::Node;
        let whole = Platform::single(whole);
        let jobs = random_jobs(&mut rng, 60, count * cores);
        for kind in ON_NODES {
            let plans = matches!(
                kind,
                LocalPolicyKind::Conservative
                    | LocalPolicyKind::ConservativeRebuild
                    | LocalPolicyKind::Slurm
            );
            if count > 1 && plans {
                continue; // their plans hold particular nodes, which a count does not see
            }
            let a = simulate(&typed, &jobs, kind, &cfg, &mut |_, _| true)
                .unwrap_or_else(|e| panic!("case {case} {kind}: {e}"));
            let b = simulate(&whole, &jobs, kind, &cfg, &mut |_, _| true).unwrap();
            let starts = |o: &RunOutput| o.outcomes.iter().map(|o| o.start).collect::<Vec<_>>();
            assert_eq!(starts(&a), starts(&b), "case {case} {kind}");
            let (ma, mb) = (
                compute_placed(&typed, &jobs, &a.outcomes, &a.placements, &cfg, 0, None),
                compute_placed(&whole, &jobs, &b.outcomes, &b.placements, &cfg, 0, None),
            );
            assert!(
                (ma.utilization - mb.utilization).abs() < 1e-9,
                "case {case} {kind}: utilization {} against {}",
                ma.utilization,
                mb.utilization
            );
            one_job_per_node(&jobs, &a, count as usize).unwrap();
        }
    }
}

/// Random workloads with memory, GPUs and node counts on random node-exclusive types,
/// under every policy and placement rule, every other case with nodes failing: each run
/// ends with the engine's node check (whole nodes only, at least the cores and GPUs asked
/// for, none on a node while it is down), and no node ever runs two jobs at once.
#[test]
fn random_exclusive_workloads_never_share_a_node() {
    let mut rng = SimRng::new(372);
    for case in 0..150 {
        let types = random_types(&mut rng);
        let nodes = types.iter().map(|t| t.count as usize).sum();
        let platform = exclusive_site(types);
        let jobs = random_jobs(&mut rng, 40, 12);
        let demands = random_demands(&mut rng, jobs.len());
        // Every other case with nodes failing, their jobs requeued or lost.
        let outages = match case % 2 {
            1 => Outages {
                model: Some(FailureModel::exponential(800.0, 100.0)),
                seed: case,
                on_failure: [OnFailure::Requeue, OnFailure::Lost][(case / 2 % 2) as usize],
                ..Outages::default()
            },
            _ => Outages::default(),
        };
        let all = vec![true; nodes];
        never_share(&platform, &jobs, &demands, &outages, &all, case);
    }
}

/// Two nodes of 4 cores with 8 GB each; four 1-core jobs of 100 s at t = 0, then one of 4
/// cores. Shared, the four 1-core jobs fit on node 0 together and the wide one starts at
/// once on node 1; node-exclusive, each takes a node of its own, so two wait 100 s and the
/// wide one 200 s. Utilization counts the whole nodes: 4 cores per 1-core job.
#[test]
fn exclusivity_not_cores_decides_by_hand() {
    let job = |id: i64, procs: u32| job(id, 0, 100, procs);
    let jobs = vec![job(1, 1), job(2, 1), job(3, 1), job(4, 1), job(5, 4)];
    let demands = vec![
        Demand {
            mem_kb: 1_048_576,
            ..Demand::default()
        };
        5
    ];
    let types = vec![node_type(2, 4, 8 * 1_048_576, 0)];
    let starts = |p: &Platform, kind| -> Vec<i64> {
        let out = run(p, &jobs, &demands, kind);
        out.outcomes
            .iter()
            .map(|o| o.start.0 / SimTime::from_secs(1).0)
            .collect()
    };
    for kind in [
        LocalPolicyKind::Fcfs,
        LocalPolicyKind::Easy,
        LocalPolicyKind::Conservative,
    ] {
        assert_eq!(
            starts(&node_site(types.clone()), kind),
            [0, 0, 0, 0, 0],
            "{kind}"
        );
        assert_eq!(
            starts(&exclusive_site(types.clone()), kind),
            [0, 0, 100, 100, 200],
            "{kind}"
        );
    }
    let p = exclusive_site(types);
    let out = run(&p, &jobs, &demands, LocalPolicyKind::Fcfs);
    let shares = out.placements.of(0);
    assert_eq!(shares.len(), 1);
    assert_eq!((shares[0].cores, shares[0].mem_kb), (4, 8 * 1_048_576));
    let m = compute_placed(
        &p,
        &jobs,
        &out.outcomes,
        &out.placements,
        &no_kill(),
        0,
        None,
    );
    // Every job held a whole node of 4 cores for 100 s, over 300 s on 8 cores.
    let held = 5.0 * 4.0 * 100.0;
    assert!(
        (m.utilization - held / (8.0 * 300.0)).abs() < 1e-9,
        "{}",
        m.utilization
    );
}

/// `gridscope simulate --node-exclusive` makes an AccaSim configuration's nodes
/// exclusive (it cannot say so itself). The memory fixture (2 nodes × 4 cores × 240 KB)
/// under FCFS, by hand: jobs 1 and 2 take a node each at 0; job 3 (1 core) waits for a
/// whole node until 100, job 4 takes the other then; job 5 waits for job 4's node (150);
/// job 6 (300 KB) fits no node; job 7 waits for both nodes to empty at 200. A platform
/// without node types is refused, naming the site.
#[test]
fn cli_node_exclusive_makes_an_accasim_platform_exclusive() {
    let out = std::env::temp_dir().join(format!("gs-excl-{}.csv", std::process::id()));
    let o = crate::cli::gridscope(&[
        "simulate",
        "tests/fixtures/memory_decides.swf",
        "--platform",
        "tests/fixtures/memory_decides.json",
        "--policy",
        "fcfs",
        "--event-order",
        "accasim",
        "--no-kill",
        "--node-exclusive",
        "--jobs",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", crate::cli::stderr(&o));
    let csv = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let starts: Vec<(String, String, String)> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].to_string(), f[4].to_string(), f[7].to_string())
        })
        .collect();
    let want = [
        ("1", "0", "0"),
        ("2", "0", "1"),
        ("3", "100", "0"),
        ("4", "100", "1"),
        ("5", "150", "1"),
        ("7", "200", "0"),
    ];
    let got: Vec<(&str, &str, &str)> = starts
        .iter()
        .filter(|(_, start, _)| !start.is_empty())
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    assert_eq!(got, want, "{csv}");
    // `explain --node-exclusive` runs the same schedule: job 5 waits for job 4's whole node.
    let why = crate::cli::gridscope(&[
        "explain",
        "tests/fixtures/memory_decides.swf",
        "--platform",
        "tests/fixtures/memory_decides.json",
        "--node-exclusive",
        "--policy",
        "fcfs",
        "--job",
        "5",
        "--no-kill",
        "--event-order",
        "accasim",
    ]);
    let text = String::from_utf8_lossy(&why.stdout);
    assert!(
        text.contains("held by job 4 (4 until 150 s)") && text.contains("started at 150 s"),
        "{text}{}",
        crate::cli::stderr(&why)
    );
    let flat = std::env::temp_dir().join(format!("gs-flat-{}.json", std::process::id()));
    std::fs::write(
        &flat,
        r#"{"name": "p", "sites": [{"name": "flat", "nodes": 4, "cpus_per_node": 1}]}"#,
    )
    .unwrap();
    let refused = crate::cli::gridscope(&[
        "simulate",
        "tests/fixtures/memory_decides.swf",
        "--platform",
        flat.to_str().unwrap(),
        "--policy",
        "fcfs",
        "--node-exclusive",
    ]);
    let _ = std::fs::remove_file(&flat);
    assert!(!refused.status.success());
    let err = crate::cli::stderr(&refused);
    assert!(
        err.contains("site 'flat'") && err.contains("lists no node types"),
        "{err}"
    );
}

/// A job killed on a node-exclusive site is requeued asking what it asked, not the whole
/// node it held. Node 0 has 4 cores, node 1 two. Job 1 (1 core) runs on node 0 from 0;
/// job 2 (2 cores) takes node 1 from 1 to 1,001. Node 0 fails at 30 until 5,000: job 1,
/// requeued, asks 1 core again and starts on node 1 when job 2 ends, not on node 0 when
/// it is back (as a job of the 4 cores it held would).
#[test]
fn a_requeued_job_asks_for_its_cores_not_the_node_it_held() {
    let jobs = [job(1, 0, 100, 1), job(2, 1, 1_000, 2)];
    let p = exclusive_site(vec![node_type(1, 4, 0, 0), node_type(1, 2, 0, 0)]);
    let outages = Outages {
        windows: vec![gridscope::failure::Outage {
            site: 0,
            node: 0,
            start: SimTime::from_secs(30),
            end: SimTime::from_secs(5_000),
            kind: gridscope::failure::OutageKind::Failure,
        }],
        ..Outages::default()
    };
    for kind in [
        LocalPolicyKind::Fcfs,
        LocalPolicyKind::Easy,
        LocalPolicyKind::Conservative,
    ] {
        let out = Simulation::new(
            &p,
            &jobs[..],
            kind,
            Default::default(),
            &Default::default(),
            &no_kill(),
        )
        .and_then(|s| s.with_outages(outages.clone()))
        .and_then(|s| s.run(&mut |_, _| true))
        .unwrap_or_else(|e| panic!("{kind}: {e}"));
        let starts: Vec<i64> = out
            .outcomes
            .iter()
            .map(|o| o.start.0 / SimTime::from_secs(1).0)
            .collect();
        assert_eq!(starts, [1_001, 1], "{kind}");
        assert_eq!(out.placements.of(0)[0].node, 1, "{kind}");
    }
}

/// Energy counts what a job computes on, not the whole node it holds: one 1-core job of
/// 100 s on a 4-core node draws the same joules shared or node-exclusive (SimGrid's
/// model: a quarter of the node's cores busy), a 5-core job on two exclusive nodes
/// computes on all four of the first and one of the second, and a 2-core job asking for
/// 2 nodes on one core of each, as on shared nodes.
#[test]
fn energy_counts_the_cores_a_job_computes_on() {
    use gridscope::model::power::PowerModel;
    use gridscope::scenario::energy::run_energy;
    let job = |id: i64, procs: u32| job(id, 0, 100, procs);
    let mut types = vec![node_type(2, 4, 0, 0)];
    types[0].power = Some(PowerModel::SIMGRID_EXAMPLE);
    // The third: 2 cores on 2 nodes (a node count), one core busy on each.
    let two_nodes = [Demand {
        nodes: 2,
        ..Demand::default()
    }];
    for (jobs, demands) in [
        (vec![job(1, 1)], &[][..]),
        (vec![job(1, 5)], &[][..]),
        (vec![job(1, 2)], &two_nodes[..]),
    ] {
        let joules = |p: &Platform| {
            let out = run(p, &jobs, demands, LocalPolicyKind::Fcfs);
            let e = run_energy(p, &out.outcomes, &out.placements, None)
                .unwrap()
                .unwrap();
            (e.total_j, e.computing_j)
        };
        let (shared, whole) = (
            joules(&node_site(types.clone())),
            joules(&exclusive_site(types.clone())),
        );
        assert!(
            (shared.0 - whole.0).abs() < 1e-9 && (shared.1 - whole.1).abs() < 1e-9,
            "{jobs:?}: {shared:?} against {whole:?}"
        );
    }
}

/// Node-exclusive node types came in scenario version 10: written only with one, read
/// back as written; a version-9 file with one is refused, naming version 10; the same
/// site shared stays version 3.
#[test]
fn exclusive_node_types_are_scenario_version_10() {
    use gridscope::scenario::{Scenario, EXCLUSIVE_NODES_VERSION};
    let scenario = |version: u32, allocation: &str| {
        format!(
            r#"{{"version": {version}, "name": "x",
            "platform": {{"kind": "sites", "name": "x", "sites": [{{"name": "x", "nodes": 2,
                "cpus_per_node": 4, "allocation": "{allocation}",
                "node_types": [{{"count": 2, "cores": 4}}]}}]}},
            "workload": {{"kind": "swf", "file": "x.swf"}},
            "algorithms": [{{"local": "fcfs"}}]}}"#
        )
    };
    let shared = Scenario::from_json(&scenario(3, "processor")).expect("version 3");
    assert_eq!(shared.version, 3);
    let s = Scenario::from_json(&scenario(10, "node")).expect("version 10");
    assert_eq!(s.version, EXCLUSIVE_NODES_VERSION);
    assert_eq!(Scenario::from_json(&s.to_json()).expect("reads back"), s);
    let e = Scenario::from_json(&scenario(9, "node")).unwrap_err();
    assert!(e.to_string().contains("version 10"), "{e}");
}

/// A site whose every type is marked `exclusive` is the site of `allocation: node`: the
/// same starts, nodes and utilization under every policy and placement rule.
#[test]
fn every_type_marked_exclusive_is_the_node_exclusive_site() {
    let mut rng = SimRng::new(373);
    let cfg = no_kill();
    for case in 0..80 {
        let types = random_types(&mut rng);
        let whole = exclusive_site(types.clone());
        let marked = node_site(
            types
                .into_iter()
                .map(|t| NodeType {
                    exclusive: true,
                    ..t
                })
                .collect(),
        );
        let jobs = random_jobs(&mut rng, 40, 12);
        let demands = random_demands(&mut rng, jobs.len());
        for kind in ON_NODES {
            let (a, b) = (
                run(&whole, &jobs, &demands, kind),
                run(&marked, &jobs, &demands, kind),
            );
            assert_eq!(a.outcomes, b.outcomes, "case {case} {kind}");
            for i in 0..jobs.len() {
                assert_eq!(a.placements.of(i), b.placements.of(i), "case {case} {kind}");
            }
            let (ma, mb) = (
                compute_placed(&whole, &jobs, &a.outcomes, &a.placements, &cfg, 0, None),
                compute_placed(&marked, &jobs, &b.outcomes, &b.placements, &cfg, 0, None),
            );
            assert_eq!(ma.utilization, mb.utilization, "case {case} {kind}");
        }
    }
}

/// Random workloads on random sites whose types are exclusive or shared one by one,
/// under every policy and placement rule, every other case with nodes failing: each run
/// ends with the engine's node check (a share on an exclusive node is all of it, a job's
/// shares add up), and no exclusive node ever runs two jobs at once.
#[test]
fn random_mixed_sites_never_share_an_exclusive_node() {
    let mut rng = SimRng::new(374);
    for case in 0..150 {
        let mut types = random_types(&mut rng);
        for t in &mut types {
            t.exclusive = rng.range_u64(0, 1) == 1;
        }
        let exclusive: Vec<bool> = types
            .iter()
            .flat_map(|t| std::iter::repeat_n(t.exclusive, t.count as usize))
            .collect();
        let platform = node_site(types);
        let jobs = random_jobs(&mut rng, 40, 12);
        let demands = random_demands(&mut rng, jobs.len());
        let outages = match case % 2 {
            1 => Outages {
                model: Some(FailureModel::exponential(800.0, 100.0)),
                seed: case,
                ..Outages::default()
            },
            _ => Outages::default(),
        };
        never_share(&platform, &jobs, &demands, &outages, &exclusive, case);
    }
}

/// An exclusive GPU node beside a shared CPU node, each of 4 cores (the GPU node with 2
/// GPUs); four jobs of 100 s at t = 0: one of 1 core, one of 2, two of 1 core and 1 GPU.
/// The CPU jobs share the CPU node at 0; the GPU jobs take the GPU node one after the
/// other (0 and 100; on a shared GPU node, both at 0). Utilization counts the GPU node whole: 4 + 4 + 1 + 2
/// cores × 100 s over 200 s on 8 cores.
#[test]
fn an_exclusive_gpu_type_beside_shared_cpu_nodes_by_hand() {
    let jobs: Vec<Job> = [1, 2, 1, 1]
        .iter()
        .enumerate()
        .map(|(i, &p)| job(i as i64 + 1, 0, 100, p))
        .collect();
    let gpu = Demand {
        gpus: 1,
        ..Demand::default()
    };
    let demands = vec![Demand::default(), Demand::default(), gpu, gpu];
    let types = |exclusive: bool| {
        vec![
            node_type(1, 4, 0, 0),
            NodeType {
                exclusive,
                ..node_type(1, 4, 0, 2)
            },
        ]
    };
    let secs = |out: &RunOutput| -> Vec<i64> {
        (out.outcomes.iter())
            .map(|o| o.start.0 / SimTime::from_secs(1).0)
            .collect()
    };
    for kind in ON_NODES {
        let shared = run(&node_site(types(false)), &jobs, &demands, kind);
        assert_eq!(secs(&shared), [0, 0, 0, 0], "{kind}");
        let p = node_site(types(true));
        let out = run(&p, &jobs, &demands, kind);
        assert_eq!(secs(&out), [0, 0, 0, 100], "{kind}");
        assert_eq!(
            out.placements.of(2)[0].cores,
            4,
            "{kind}: the GPU node whole"
        );
        assert_eq!(
            out.placements.of(1)[0].cores,
            2,
            "{kind}: the CPU node shared"
        );
        let m = compute_placed(
            &p,
            &jobs,
            &out.outcomes,
            &out.placements,
            &no_kill(),
            0,
            None,
        );
        let held = (1.0 + 2.0 + 4.0 + 4.0) * 100.0;
        assert!(
            (m.utilization - held / (8.0 * 200.0)).abs() < 1e-9,
            "{kind}: {}",
            m.utilization
        );
    }
}

/// A node type's own `exclusive` came in scenario version 11: written only with one, read
/// back as written; a version-10 file with one is refused, naming version 11.
#[test]
fn exclusive_type_flags_are_scenario_version_11() {
    use gridscope::scenario::{Scenario, EXCLUSIVE_TYPES_VERSION};
    let scenario = |version: u32| {
        format!(
            r#"{{"version": {version}, "name": "x",
            "platform": {{"kind": "sites", "name": "x", "sites": [{{"name": "x", "nodes": 3,
                "cpus_per_node": 4,
                "node_types": [{{"count": 2, "cores": 4}},
                               {{"count": 1, "cores": 4, "gpus": 2, "exclusive": true}}]}}]}},
            "workload": {{"kind": "swf", "file": "x.swf"}},
            "algorithms": [{{"local": "fcfs"}}]}}"#
        )
    };
    let s = Scenario::from_json(&scenario(11)).expect("version 11");
    assert_eq!(s.version, EXCLUSIVE_TYPES_VERSION);
    assert!(s.to_json().contains("\"exclusive\": true"));
    assert_eq!(Scenario::from_json(&s.to_json()).expect("reads back"), s);
    let e = Scenario::from_json(&scenario(10)).unwrap_err();
    assert!(e.to_string().contains("version 11"), "{e}");
}
