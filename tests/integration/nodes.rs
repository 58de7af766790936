//! Nodes that exist (issue #37): the hand-made case where memory, not cores, decides (a
//! golden of FCFS, SJF and first-fit, FCFS's starts checked against AccaSim 1.1.3's
//! FIFO + FirstFit), rejections that name the resource, the policies refused on nodes, EASY's
//! reservation on nodes (hand cases), and random workloads on random node types: every
//! run's node check passes, and nodes without memory give exactly the schedules of the same
//! cores counted as processors.

use std::fmt::Write;

use gridscope::engine::{simulate, EventOrder, RunConfig, SimError};
use gridscope::model::{Demand, Job, NodeType, PlacementRule, Platform, Site};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::rng::SimRng;
use gridscope::scenario::{
    jobs_csv, read_platform_file, run_loaded, AlgorithmSpec, PlatformSpec, Scenario, WorkloadSpec,
    SCENARIO_VERSION,
};
use gridscope::time::SimTime;
use gridscope::workload::{read_swf, SwfOptions};

use crate::cli::gridscope;
use crate::root;

const PLACING: [LocalPolicyKind; 3] = [
    LocalPolicyKind::Fcfs,
    LocalPolicyKind::Sjf,
    LocalPolicyKind::FirstFit,
];

/// Every policy that places jobs on nodes.
pub(crate) const ON_NODES: [LocalPolicyKind; 7] = [
    LocalPolicyKind::Fcfs,
    LocalPolicyKind::Easy,
    LocalPolicyKind::Conservative,
    LocalPolicyKind::ConservativeRebuild,
    LocalPolicyKind::Sjf,
    LocalPolicyKind::FirstFit,
    LocalPolicyKind::Slurm,
];

pub(crate) fn no_kill() -> RunConfig {
    RunConfig {
        kill_at_estimate: false,
        event_order: EventOrder::Gridscope,
        ..RunConfig::default()
    }
}

fn memory_case(policies: &[LocalPolicyKind]) -> Result<gridscope::scenario::Report, String> {
    let dir = root().join("tests/fixtures");
    let swf = std::fs::read(dir.join("memory_decides.swf")).unwrap();
    let sys = std::fs::read_to_string(dir.join("memory_decides.json")).unwrap();
    let platform = read_platform_file("memory_decides.json", &sys)?;
    let scenario = Scenario {
        failures: None,
        carbon: None,
        version: SCENARIO_VERSION,
        name: "memory decides".into(),
        seed: 0,
        platform: PlatformSpec::Sites {
            name: platform.name,
            sites: platform.sites,
        },
        workload: WorkloadSpec::Swf {
            file: "memory_decides.swf".into(),
            strict: false,
            format: Default::default(),
            utc_offset_min: 0,
        },
        algorithms: policies.iter().map(|&k| AlgorithmSpec::local(k)).collect(),
        options: no_kill(),
    };
    let workload = read_swf("memory_decides.swf", &swf, &SwfOptions::default()).unwrap();
    run_loaded(&scenario, workload, &mut |_, _, _| true).map_err(|e| e.to_string())
}

/// The per-job schedules with the nodes each job held, compared with the golden file.
#[test]
fn memory_not_cores_decides_golden() {
    let report = memory_case(&PLACING).unwrap();
    let mut text = report.import.summary();
    for run in &report.runs {
        let _ = writeln!(text, "\n## {}", run.label);
        for r in &run.rejected {
            let _ = writeln!(text, "rejected {r}");
        }
        text.push_str(&jobs_csv(&report, run));
    }
    let path = root().join("tests/golden/memory_decides.txt");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text, want, "golden {} differs", path.display());
    // FCFS's starts are AccaSim 1.1.3's FIFO + FirstFit on the same case
    // (scripts/accasim_compare.py; job 6, which no node holds, left out there).
    let fcfs = &report.runs[0];
    let starts: Vec<(i64, i64)> = report
        .workload
        .jobs
        .iter()
        .zip(&fcfs.outcomes)
        .filter(|(_, o)| o.ran())
        .map(|(j, o)| (j.id, o.start.0 / 1000))
        .collect();
    assert_eq!(
        starts,
        [(1, 0), (2, 0), (3, 1), (4, 100), (5, 100), (7, 100)]
    );
}

/// `gridscope simulate` of the memory fixture on its AccaSim platform under FCFS, with
/// `extra` flags.
fn fcfs_on_the_memory_fixture(extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "simulate",
        "tests/fixtures/memory_decides.swf",
        "--platform",
        "tests/fixtures/memory_decides.json",
        "--policy",
        "fcfs",
    ];
    args.extend_from_slice(extra);
    gridscope(&args)
}

/// FCFS on the memory fixture, worked out by hand (2 nodes × 4 cores × 240 KB; a core is
/// stranded while its node has less than 240 / 4 = 60 KB free):
/// - 0–100: node 0 is full (job 1: 4 cores, 240 KB), node 1 has 2, then 1, cores and
///   220 KB or more free: nothing stranded;
/// - 100–101: jobs 4 and 5 leave node 0 2 cores and 10 KB, job 7 leaves node 1 1 core and
///   30 KB beside job 3: 3 cores stranded;
/// - 101–110: job 3 gone, node 1 has 2 cores and 40 KB: 4 stranded;
/// - 110–150: node 1 empty, node 0 still 2 stranded.
///
/// 3·1 + 4·9 + 2·40 = 119 core-seconds of 8 × 150; memory is never free on a full node.
#[test]
fn stranded_cores_on_the_memory_fixture_are_worked_out_by_hand() {
    let report = memory_case(&[LocalPolicyKind::Fcfs]).unwrap();
    let run = &report.runs[0];
    let r = run
        .resources
        .as_ref()
        .expect("a node-typed run has resources");
    assert_eq!(r.span_s, 150.0);
    assert_eq!(r.all.cores.stranded, 119.0 / 1200.0);
    assert_eq!(r.all.cores.utilization, run.metrics.utilization);
    let memory = r.all.memory_kb.as_ref().unwrap();
    // Held: job 1 240 KB × 100 s, job 2 20 × 100, job 3 10 × 100, job 4 220 × 50,
    // job 5 10 × 50, job 7 200 × 10.
    let held = 240.0 * 100.0 + 2000.0 + 1000.0 + 11000.0 + 500.0 + 2000.0;
    assert_eq!(memory.utilization, held / (480.0 * 150.0));
    assert_eq!(memory.stranded, 0.0);
    assert!(r.all.gpus.is_none());
    let text =
        String::from_utf8_lossy(&fcfs_on_the_memory_fixture(&["--no-kill"]).stdout).into_owned();
    assert!(text.contains("cores stranded memory used"), "{text}");
    assert!(text.contains("0.683          0.099"), "{text}");
}

/// `--series` adds memory held and cores stranded over time on a site with memory (no GPU
/// line without GPUs): three buckets of 50 s whose means are the run's memory utilization
/// and stranded cores (the run starts at 0). The middle bucket holds jobs 1–3 (240 + 20 +
/// 10 of 480 KB); all 119 stranded core-seconds (worked out above) fall in the last.
#[test]
fn memory_held_and_cores_stranded_over_time_average_to_the_run_totals() {
    let o = fcfs_on_the_memory_fixture(&["--no-kill", "--json", "--series", "3"]);
    assert!(o.status.success(), "{}", crate::cli::stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let run = &v["runs"][0];
    let site = &run["series"]["sites"][0];
    let memory: Vec<f64> = site["memory"]
        .as_array()
        .expect("a memory line")
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(memory.len(), 3);
    assert_eq!(memory[1], 270.0 / 480.0);
    let mean = memory.iter().sum::<f64>() / 3.0;
    let utilization = run["resources"]["memory_kb"]["utilization"]
        .as_f64()
        .unwrap();
    assert!((mean - utilization).abs() < 1e-12, "{mean} {utilization}");
    assert!(site.get("gpus").is_none(), "{site}");
    let stranded: Vec<f64> = site["cores_stranded"]
        .as_array()
        .expect("a stranded-cores line")
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(stranded, [0.0, 0.0, 119.0 / 400.0]);
    let total = run["resources"]["cores"]["stranded"].as_f64().unwrap();
    assert!((stranded.iter().sum::<f64>() / 3.0 - total).abs() < 1e-12);
    // Free memory on nodes whose cores are all taken, over time: its mean is the run's
    // stranded memory (none here: no node's cores are all taken while it has memory left).
    let memory_stranded: Vec<f64> = site["memory_stranded"]
        .as_array()
        .expect("a stranded-memory line")
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(memory_stranded.len(), 3);
    let total = run["resources"]["memory_kb"]["stranded"].as_f64().unwrap();
    let mean = memory_stranded.iter().sum::<f64>() / 3.0;
    assert!((mean - total).abs() < 1e-12, "{mean} {total}");
    assert!(site.get("gpus_stranded").is_none(), "{site}");
}

/// On node-typed sites Batsim's resources are the nodes: `allocated_resources` names the ones
/// the engine placed each job on (the per-job CSV's `nodes`), and
/// `requested_number_of_resources` counts them.
#[test]
fn batsim_jobs_csv_names_the_nodes_each_job_held() {
    let out = std::env::temp_dir().join(format!("gs-nodes-batsim-{}.csv", std::process::id()));
    let o = fcfs_on_the_memory_fixture(&[
        "--no-kill",
        "--jobs",
        out.to_str().unwrap(),
        "--jobs-format",
        "batsim",
    ]);
    assert!(o.status.success(), "{}", crate::cli::stderr(&o));
    let csv = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    // (job, requested resources, allocated resources), from the golden nodes column.
    let rows: Vec<(String, String, String)> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].into(), f[4].into(), f[14].into())
        })
        .collect();
    let want = [(1, 0), (2, 1), (3, 1), (4, 0), (5, 0), (7, 1)]
        .map(|(j, n)| (j.to_string(), "1".to_string(), n.to_string()));
    assert_eq!(rows, want, "{csv}");
}

/// Slurm on the memory fixture: with Slurm's default weights every priority is equal, so
/// the main scheduler runs in arrival order (FCFS's starts, FCFS's nodes) until a job does
/// not fit, and the backfill starts only what its plan on the nodes allows.
#[test]
fn slurm_runs_on_the_memory_fixture() {
    let report = memory_case(&[LocalPolicyKind::Fcfs, LocalPolicyKind::Slurm]).unwrap();
    let (fcfs, slurm) = (&report.runs[0], &report.runs[1]);
    assert_eq!(slurm.outcomes.len(), fcfs.outcomes.len());
    for (f, s) in fcfs.outcomes.iter().zip(&slurm.outcomes) {
        assert!(
            s.start <= f.start,
            "slurm backfills, never later than FCFS here"
        );
    }
}

#[test]
fn cli_simulate_takes_an_accasim_platform() {
    let out = std::env::temp_dir().join(format!("gs-nodes-{}.csv", std::process::id()));
    let o = fcfs_on_the_memory_fixture(&[
        "--event-order",
        "accasim",
        "--no-kill",
        "--jobs",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", crate::cli::stderr(&o));
    let csv = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    assert!(
        csv.starts_with("job_id,home,site,submit,start,end,procs,nodes\n"),
        "{csv}"
    );
    assert!(
        csv.contains("\n4,memory_decides,memory_decides,2,100,150,1,0\n"),
        "{csv}"
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("needs 300 KB of memory per processor"),
        "{stdout}"
    );
}

pub(crate) fn node_site(types: Vec<NodeType>) -> Platform {
    let nodes = types.iter().map(|t| t.count).sum();
    Platform::single(Site {
        name: "N".into(),
        nodes,
        cpus_per_node: types.iter().map(|t| t.cores).max().unwrap_or(1),
        speed: 1.0,
        allocation: Default::default(),
        groups: Vec::new(),
        node_types: types,
    })
}

/// One to three node types of 1–4 nodes, 1–7 cores, 0–300 KB and 0–1 GPUs each.
pub(crate) fn random_types(rng: &mut SimRng) -> Vec<NodeType> {
    (0..1 + rng.range_u64(0, 2))
        .map(|_| NodeType {
            name: String::new(),
            count: 1 + rng.range_u64(0, 4) as u32,
            cores: 1 + rng.range_u64(0, 7) as u32,
            mem_kb: 100 * rng.range_u64(0, 4),
            gpus: rng.range_u64(0, 2) as u32,
            power: None,
            exclusive: false,
        })
        .collect()
}

/// `n` demands: 0–140 KB per processor, a GPU one time in five, a node count of 1–2 one
/// time in four.
pub(crate) fn random_demands(rng: &mut SimRng, n: usize) -> Vec<Demand> {
    (0..n)
        .map(|_| Demand {
            mem_kb: 10 * rng.range_u64(0, 15),
            mem_per_node: false,
            gpus: u32::from(rng.range_u64(0, 5) == 0),
            nodes: if rng.range_u64(0, 4) == 0 {
                1 + rng.range_u64(0, 2) as u32
            } else {
                0
            },
        })
        .collect()
}

pub(crate) fn random_jobs(rng: &mut SimRng, n: usize, widest: u32) -> Vec<Job> {
    let mut t = 0;
    (0..n)
        .map(|i| {
            t += rng.range_u64(0, 20) as i64;
            let runtime = rng.range_u64(1, 200) as i64;
            Job {
                id: i as i64,
                submit: SimTime::from_secs(t),
                runtime: SimTime::from_secs(runtime),
                estimate: SimTime::from_secs(runtime + rng.range_u64(0, 50) as i64),
                procs: 1 + rng.range_u64(0, u64::from(widest) - 1) as u32,
                home: 0,
                user: -1,
                partition: -1,
            }
        })
        .collect()
}

/// Random workloads with memory, GPUs and node counts on random node types: each run ends
/// with the engine's node check (no node over its cores, memory or GPUs; every job on
/// nodes that exist), or rejects a job naming the resource.
#[test]
fn random_workloads_on_random_nodes_keep_the_node_invariants() {
    let mut rng = SimRng::new(37);
    for case in 0..200 {
        let platform = node_site(random_types(&mut rng));
        let jobs = random_jobs(&mut rng, 40, 12);
        let demands = random_demands(&mut rng, jobs.len());
        for (kind, rule) in ON_NODES
            .iter()
            .flat_map(|&k| PlacementRule::ALL.map(|r| (k, r)))
        {
            let sim = gridscope::engine::Simulation::new(
                &platform,
                &jobs[..],
                kind,
                Default::default(),
                &Default::default(),
                &no_kill(),
            )
            .and_then(|s| s.with_demands(&demands[..]))
            .and_then(|s| s.with_placement(rule));
            let out = sim
                .and_then(|s| s.run(&mut |_, _| true))
                .unwrap_or_else(|e| panic!("case {case} {kind} {}: {e}", rule.name()));
            assert_eq!(out.outcomes.len(), jobs.len());
        }
    }
}

/// Nodes without memory or GPUs, jobs asking for processors only: first-fit placement
/// finds nodes exactly when enough cores are free, so every schedule is the one of the
/// same cores counted as processors. For EASY this holds by construction too: its shadow
/// is the first predicted end at which enough cores are free, and a job that does not end
/// by it keeps the head placeable there iff its processors are within the cores free at
/// the shadow beyond the head's (the processor rule's extra units).
#[test]
fn nodes_without_memory_schedule_as_processors() {
    let mut rng = SimRng::new(38);
    for case in 0..100 {
        let count = 1 + rng.range_u64(0, 5) as u32;
        let cores = 1 + rng.range_u64(0, 7) as u32;
        let nodes = node_site(vec![NodeType {
            name: String::new(),
            count,
            cores,
            mem_kb: 0,
            gpus: 0,
            power: None,
            exclusive: false,
        }]);
        let flat = Platform::single(Site::flat("N", count * cores));
        let jobs = random_jobs(&mut rng, 60, count * cores);
        for kind in ON_NODES {
            if count > 1 && plans_nodes(kind) {
                // Conservative's and Slurm's backfill reservations hold particular nodes,
                // which the count of processors does not see
                // (`plans_on_one_node_are_the_processor_rule`).
                continue;
            }
            let run = |p: &Platform| -> Result<Vec<SimTime>, SimError> {
                let out = simulate(p, &jobs, kind, &no_kill(), &mut |_, _| true)?;
                Ok(out.outcomes.iter().map(|o| o.start).collect())
            };
            assert_eq!(
                run(&nodes).unwrap(),
                run(&flat).unwrap(),
                "case {case} {kind}"
            );
        }
    }
}

/// The policies whose reservations hold particular nodes ([`ON_NODES`] less those that
/// count cores for their plans).
fn plans_nodes(kind: LocalPolicyKind) -> bool {
    matches!(
        kind,
        LocalPolicyKind::Conservative
            | LocalPolicyKind::ConservativeRebuild
            | LocalPolicyKind::Slurm
    )
}

/// Conservative backfilling and Slurm's backfill on nodes plan per node (docs/nodes.md):
/// on one node of any size, cores only, that is the processor rule exactly (conservative
/// with compression and by rebuild), jobs killed at their estimates or not: the same
/// starts on random workloads and on the first 3,000 jobs of SDSC-SP2 (128 processors as
/// one node).
#[test]
fn plans_on_one_node_are_the_processor_rule() {
    let mut rng = SimRng::new(39);
    let one_node = |cores: u32| {
        node_site(vec![NodeType {
            name: String::new(),
            count: 1,
            cores,
            mem_kb: 0,
            gpus: 0,
            power: None,
            exclusive: false,
        }])
    };
    let kill = RunConfig::default();
    for case in 0..150 {
        let cores = 1 + rng.range_u64(0, 16) as u32;
        let jobs = random_jobs(&mut rng, 80, cores);
        let cfg = if case % 2 == 0 { no_kill() } else { kill };
        for kind in [
            LocalPolicyKind::Conservative,
            LocalPolicyKind::ConservativeRebuild,
            LocalPolicyKind::Slurm,
        ] {
            let run = |p: &Platform| -> Vec<SimTime> {
                simulate(p, &jobs, kind, &cfg, &mut |_, _| true)
                    .unwrap_or_else(|e| panic!("case {case} {kind}: {e}"))
                    .outcomes
                    .iter()
                    .map(|o| o.start)
                    .collect()
            };
            let flat = Platform::single(Site::flat("N", cores));
            assert_eq!(run(&one_node(cores)), run(&flat), "case {case} {kind}");
        }
    }
    let name = "SDSC-SP2-1998-4.2-cln.swf.gz";
    let bytes = std::fs::read(crate::trace(name)).unwrap();
    let w = read_swf(name, &bytes, &SwfOptions::default()).unwrap();
    let jobs: Vec<Job> = w.jobs.into_iter().take(3_000).collect();
    for kind in [
        LocalPolicyKind::Conservative,
        LocalPolicyKind::ConservativeRebuild,
        LocalPolicyKind::Slurm,
    ] {
        let run = |p: &Platform| -> Vec<SimTime> {
            let out = simulate(p, &jobs, kind, &kill, &mut |_, _| true).unwrap();
            out.outcomes.iter().map(|o| o.start).collect()
        };
        let flat = Platform::single(Site::flat("N", 128));
        assert_eq!(run(&one_node(128)), run(&flat), "SDSC-SP2 {kind}");
    }
}

/// Node types came in scenario version 3: a version-2 file that lists them says so; one
/// without them reads (and runs) as before, upgraded to the current version.
#[test]
fn node_types_are_versioned_in_the_scenario() {
    let scenario = |version: u32, site: &str| {
        format!(
            r#"{{"version":{version},"platform":{{"kind":"sites","name":"P","sites":[{site}]}},"workload":{{"kind":"swf","file":"t.swf"}},"algorithms":[{{"local":"fcfs"}}]}}"#
        )
    };
    let typed = r#"{"name":"N","nodes":2,"cpus_per_node":4,"node_types":[{"count":2,"cores":4,"mem_kb":100}]}"#;
    let plain = r#"{"name":"N","nodes":2,"cpus_per_node":4}"#;
    let e = Scenario::from_json(&scenario(2, typed))
        .unwrap_err()
        .to_string();
    assert!(e.contains("came in scenario version 3"), "{e}");
    let s = Scenario::from_json(&scenario(3, typed)).unwrap();
    let PlatformSpec::Sites { sites, .. } = &s.platform else {
        panic!("sites")
    };
    assert_eq!(sites[0].node_types.len(), 1);
    assert_eq!(s.version, 3);
    // Without node types a scenario stays version 2, byte for byte (even one written as 3).
    for version in [2, 3] {
        let old = Scenario::from_json(&scenario(version, plain)).unwrap();
        assert_eq!(old.version, SCENARIO_VERSION);
        assert!(!old.to_json().contains("node_types"));
    }
    // A node type that says what it draws came with version 5 (issue #40): written as 5,
    // so an older reader says the file is newer rather than that `power` is unknown.
    let powered = r#"{"name":"N","nodes":2,"cpus_per_node":4,"node_types":[{"count":2,"cores":4,"mem_kb":100,"power":{"idle_w":95.0,"epsilon_w":95.0,"all_cores_w":190.738}}]}"#;
    let s = Scenario::from_json(&scenario(3, powered)).unwrap();
    assert_eq!(s.version, gridscope::scenario::POWER_VERSION);
    assert!(s.to_json().contains(r#""version": 5"#), "{}", s.to_json());
    // An algorithm's best-fit placement came with version 8; first fit is written as before.
    let placed = |version: u32, rule: &str| {
        scenario(version, typed).replace(
            r#"{"local":"fcfs"}"#,
            &format!(r#"{{"local":"fcfs","placement":"{rule}"}}"#),
        )
    };
    let e = Scenario::from_json(&placed(7, "best_fit"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("came in scenario version 8"), "{e}");
    let s = Scenario::from_json(&placed(8, "best_fit")).unwrap();
    assert_eq!(s.version, gridscope::scenario::PLACEMENT_VERSION);
    assert_eq!(s.algorithms[0].label(), "fcfs, best-fit");
    let s = Scenario::from_json(&placed(8, "first_fit")).unwrap();
    assert_eq!(s.version, 3);
    assert!(!s.to_json().contains("placement"));
}

/// `simulate --placement` runs each policy under each rule, side by side, and refuses a
/// rule it does not know or a platform without nodes.
#[test]
fn cli_placement_runs_each_rule_beside_the_others() {
    let out = fcfs_on_the_memory_fixture(&["--placement", "first-fit,best-fit", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let labels: Vec<&str> = json["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["fcfs", "fcfs, best-fit"]);
    let out = fcfs_on_the_memory_fixture(&["--placement", "worst-fit"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("'worst-fit' is not a placement"), "{err}");
    let flat = gridscope(&[
        "simulate",
        "tests/fixtures/memory_decides.swf",
        "--procs",
        "8",
        "--placement",
        "best-fit",
    ]);
    assert!(!flat.status.success());
}

/// Two nodes × 4 cores × 100 KB, jobs (submit, processors, KB per processor, run time =
/// estimate) run under EASY: each job's start and nodes.
fn easy_on_two_nodes(jobs: &[(i64, u32, u64, i64)]) -> Vec<(i64, String)> {
    on_two_nodes(LocalPolicyKind::Easy, PlacementRule::FirstFit, jobs)
}

/// Each job's start and nodes under `kind`, placed by `rule`, on [`two_nodes`].
fn on_two_nodes(
    kind: LocalPolicyKind,
    rule: PlacementRule,
    jobs: &[(i64, u32, u64, i64)],
) -> Vec<(i64, String)> {
    let (platform, jobs, demands) = two_nodes(jobs);
    let out = gridscope::engine::Simulation::new(
        &platform,
        &jobs[..],
        kind,
        Default::default(),
        &Default::default(),
        &no_kill(),
    )
    .and_then(|s| s.with_demands(&demands[..]))
    .and_then(|s| s.with_placement(rule))
    .and_then(|s| s.run(&mut |_, _| true))
    .unwrap();
    (0..jobs.len())
        .map(|i| {
            let start = out.outcomes[i].start.0 / 1000;
            (start, out.placements.nodes_text(i))
        })
        .collect()
}

/// The platform, jobs and demands of [`easy_on_two_nodes`].
fn two_nodes(jobs: &[(i64, u32, u64, i64)]) -> (Platform, Vec<Job>, Vec<Demand>) {
    let platform = node_site(vec![NodeType {
        name: String::new(),
        count: 2,
        cores: 4,
        mem_kb: 100,
        gpus: 0,
        power: None,
        exclusive: false,
    }]);
    let (jobs, demands): (Vec<Job>, Vec<Demand>) = jobs
        .iter()
        .enumerate()
        .map(|(i, &(submit, procs, mem_kb, runtime))| {
            let job = Job {
                id: i as i64,
                submit: SimTime::from_secs(submit),
                runtime: SimTime::from_secs(runtime),
                estimate: SimTime::from_secs(runtime),
                procs,
                home: 0,
                user: -1,
                partition: -1,
            };
            let demand = Demand {
                mem_kb,
                ..Demand::default()
            };
            (job, demand)
        })
        .unzip();
    (platform, jobs, demands)
}

/// The step-through's head reservation on a node-typed site is the one on nodes: a head
/// that memory holds back while enough cores are free gets its node shadow, not "fits now".
#[test]
fn step_through_reports_the_node_shadow() {
    let (platform, jobs, demands) = two_nodes(&[
        (0, 4, 25, 100),  // A fills node 0 (cores and memory) until 100
        (0, 1, 100, 200), // B takes node 1's memory: 3 cores free there, no memory
        (1, 2, 50, 100),  // H, the head: 3 cores free but no memory; waits for A's end
    ]);
    let mut sim = gridscope::engine::Simulation::new(
        &platform,
        &jobs[..],
        LocalPolicyKind::Easy,
        Default::default(),
        &Default::default(),
        &no_kill(),
    )
    .and_then(|s| s.with_demands(&demands[..]))
    .unwrap();
    while sim.now() < SimTime::from_secs(1) {
        assert!(sim.step().unwrap());
    }
    let snap = sim.site_snapshot(0).unwrap();
    assert_eq!(snap.free, 3);
    let head = snap.head.expect("the head waits for memory");
    assert_eq!(head.job, 2);
    assert_eq!(head.shadow, SimTime::from_secs(100));
    // At 100 node 0 is free again: 4 + 3 cores, of which the head takes 2.
    assert_eq!(head.extra, 5);
}

/// Memory makes EASY's head wait with cores free, and a small job backfills on a node the
/// head's reservation does not need.
#[test]
fn easy_on_nodes_backfills_beside_a_head_memory_holds_back() {
    let got = easy_on_two_nodes(&[
        (0, 4, 25, 100),  // A fills node 0 (cores and memory) until 100
        (0, 1, 100, 200), // B takes node 1's memory: 3 cores free there, no memory
        (1, 2, 50, 100),  // H, the head: 3 cores free but no memory; waits for A's end
        (2, 1, 0, 500),   // S: no memory, runs past 100, fits on node 1 beside B
    ]);
    assert_eq!(
        got,
        [
            (0, "0".to_string()),
            (0, "1".to_string()),
            (100, "0".to_string()),
            (2, "1".to_string())
        ]
    );
}

/// A job that fits now but would still hold the cores EASY's head needs at its shadow time
/// does not start; one that ends by the shadow does.
#[test]
fn easy_on_nodes_never_backfills_into_the_heads_reservation() {
    let got = easy_on_two_nodes(&[
        (0, 4, 25, 100), // A fills node 0 until 100
        (0, 2, 25, 200), // B: 2 cores of node 1 until 200
        (1, 6, 10, 100), // H, the head: needs node 0 and node 1's 2 free cores at 100
        (2, 1, 0, 500),  // long: would leave node 1 one core at 100, delaying H
        (3, 1, 0, 50),   // short: ends at 53, before H's shadow
    ]);
    assert_eq!(got[2].0, 100, "the head starts at its shadow: {got:?}");
    assert_eq!(got[2].1, "0-1");
    assert!(got[3].0 >= 100, "the long job waits: {got:?}");
    assert_eq!(got[4], (3, "1".to_string()), "the short job backfills");
}

/// Slurm's backfill on nodes (Slurm's defaults: equal priorities, so arrival order; run
/// times planned in whole minutes, `bf_resolution` 60 s): the head H gets a reservation of
/// node 0 and node 1's two free cores at 100 until 220; the long job would take one of
/// those cores of node 1, so it is reserved after them; the short one (planned 60 s) ends
/// before 100 and starts at once beside them.
#[test]
fn slurm_on_nodes_never_backfills_into_a_reservations_nodes() {
    let got = on_two_nodes(
        LocalPolicyKind::Slurm,
        PlacementRule::FirstFit,
        &[
            (0, 4, 25, 100), // A fills node 0 until 100
            (0, 2, 25, 200), // B: 2 cores of node 1 until 200
            (1, 6, 10, 100), // H: node 0 and node 1's 2 free cores from 100
            (2, 1, 0, 500),  // long: would leave node 1 one core at 100
            (3, 1, 0, 50),   // short: ends at 53
        ],
    );
    assert_eq!(got[2], (100, "0-1".to_string()), "{got:?}");
    assert!(got[3].0 >= 200, "the long job waits for H's nodes: {got:?}");
    assert_eq!(got[4], (3, "1".to_string()), "the short job backfills");
    // Memory holds the head back with cores free; a job with no memory backfills on the
    // node the head's reservation does not need.
    let got = on_two_nodes(
        LocalPolicyKind::Slurm,
        PlacementRule::FirstFit,
        &[
            (0, 4, 25, 100),
            (0, 1, 100, 200),
            (1, 2, 50, 100),
            (2, 1, 0, 500),
        ],
    );
    let want = [(0, "0"), (0, "1"), (100, "0"), (2, "1")].map(|(t, n)| (t, n.to_string()));
    assert_eq!(got, want);
}

/// `PriorityWeightTRES` on nodes (2 × 4 cores × 100 KB: 8 cores, 200 KB). A holds every
/// core until 100; X (8 cores, no memory) is queued at 1, Y (8 cores, 12 KB a core: 96 KB,
/// 0.48 of the site's memory) at 2. Alike but for memory, they go in arrival order (X at
/// 100, Y at 200) under no TRES weight and under a CPU weight alone (both 8/8 of the
/// CPUs); under `Mem=1000` Y's 480 puts it first.
#[test]
fn slurm_tres_weights_read_the_jobs_memory() {
    use gridscope::policy::local::Slurm;
    use gridscope::policy::slurm::{SlurmConfig, TresWeights};
    let (platform, jobs, demands) = two_nodes(&[(0, 8, 25, 100), (1, 8, 0, 100), (2, 8, 12, 100)]);
    let run = |tres: TresWeights| -> Vec<i64> {
        let cfg = SlurmConfig {
            weight_tres: tres,
            ..SlurmConfig::default()
        };
        let out = gridscope::engine::Simulation::with_local_policies(
            &platform,
            &jobs[..],
            &mut Slurm::factory(cfg, &jobs),
            Default::default(),
            &Default::default(),
            &no_kill(),
        )
        .and_then(|s| s.with_demands(&demands[..]))
        .and_then(|s| s.run(&mut |_, _| true))
        .unwrap();
        out.outcomes.iter().map(|o| o.start.0 / 1000).collect()
    };
    assert_eq!(run(TresWeights::default()), [0, 100, 200]);
    let cpu = TresWeights {
        cpu: 1000,
        ..TresWeights::default()
    };
    assert_eq!(run(cpu), [0, 100, 200]);
    let mem = TresWeights {
        mem: 1000,
        ..TresWeights::default()
    };
    assert_eq!(run(mem), [0, 200, 100]);
}

/// Slurm partitions as node sets: two node types of one 4-core node each, partition 1 on
/// type `a`, partition 2 on type `b`. A (partition 1, 4 cores) fills node 0 until 100;
/// B (partition 1, 2 cores) at 1 waits for it though node 1 is free; C (partition 2, 4
/// cores) at 2 starts at once on node 1, B's blocked partition holding up only its own
/// nodes; D (partition 2, 8 cores) is rejected, its partition's nodes having 4 cores.
/// Without the node sets B starts at 1 on node 1 and C waits for A's end.
#[test]
fn slurm_partitions_as_node_sets() {
    use gridscope::engine::{JobOutcome, RejectReason};
    use gridscope::model::Resource;
    use gridscope::policy::local::Slurm;
    use gridscope::policy::slurm::{JobLabels, PartitionFactor, SlurmConfig};
    let node = |name: &str| NodeType {
        name: name.into(),
        count: 1,
        cores: 4,
        mem_kb: 0,
        gpus: 0,
        power: None,
        exclusive: false,
    };
    let platform = node_site(vec![node("a"), node("b")]);
    let job = |id: i64, submit: i64, procs: u32, partition: i32| Job {
        id,
        submit: SimTime::from_secs(submit),
        runtime: SimTime::from_secs(100),
        estimate: SimTime::from_secs(100),
        procs,
        home: 0,
        user: 1,
        partition,
    };
    let jobs = [
        job(1, 0, 4, 1),
        job(2, 1, 2, 1),
        job(3, 2, 4, 2),
        job(4, 3, 8, 2),
    ];
    let demands = vec![Demand::default(); jobs.len()];
    let on = |name: &str, types: &str| PartitionFactor {
        nodes: Some(vec![types.to_string()]),
        ..PartitionFactor::new(name, 1)
    };
    let cfg = SlurmConfig {
        partitions: vec![on("1", "a"), on("2", "b")],
        ..SlurmConfig::default()
    };
    let run = |sets: bool| {
        let mut factory: Box<dyn FnMut(usize) -> Box<dyn gridscope::policy::local::LocalPolicy>> =
            match sets {
                true => Box::new(Slurm::factory_on(
                    cfg.clone(),
                    &jobs,
                    &demands,
                    &platform,
                    JobLabels::default(),
                )),
                false => Box::new(Slurm::factory(cfg.clone(), &jobs)),
            };
        let out = gridscope::engine::Simulation::with_local_policies(
            &platform,
            &jobs[..],
            &mut factory,
            Default::default(),
            &Default::default(),
            &no_kill(),
        )
        .and_then(|s| s.with_demands(&demands[..]))
        .and_then(|s| s.run(&mut |_, _| true))
        .unwrap();
        let starts: Vec<(i64, String)> = (0..jobs.len())
            .map(|i| (out.outcomes[i].start.0 / 1000, out.placements.nodes_text(i)))
            .collect();
        (starts, out.outcomes)
    };
    let (starts, outcomes) = run(true);
    let want = [(0, "0"), (100, "0"), (2, "1")].map(|(t, n)| (t, n.to_string()));
    assert_eq!(starts[..3], want, "{starts:?}");
    assert_eq!(
        outcomes[3].status,
        JobOutcome::Rejected(RejectReason::PartitionNodes {
            resource: Resource::Cores,
            needs: 8,
            most: 4
        })
    );
    let (starts, _) = run(false);
    let want = [(0, "0"), (1, "1"), (100, "0"), (200, "0-1")].map(|(t, n)| (t, n.to_string()));
    assert_eq!(starts, want, "{starts:?}");
}

/// Best fit keeps a whole node free where first fit splits it (worked by hand; 2 nodes × 4
/// cores × 100 KB): job 0 fills node 0 until 50, job 1 holds 2 cores and 50 KB of node 1
/// until 1000. At 60 job 2 (2 cores, 50 KB) goes to node 0 under first fit, to node 1
/// under best fit (rank 52 against 104). At 70 job 3 asks 75 KB on one core: under first
/// fit each node has 50 KB left, so it waits for job 2's end at 560; under best fit node 0
/// is whole and it starts at once.
#[test]
fn best_fit_keeps_a_whole_node_free_where_first_fit_splits_it() {
    let jobs = [
        (0, 4, 25, 50),
        (0, 2, 25, 1000),
        (60, 2, 25, 500),
        (70, 1, 75, 100),
    ];
    for kind in [
        LocalPolicyKind::Fcfs,
        LocalPolicyKind::Easy,
        LocalPolicyKind::Conservative,
    ] {
        let first = on_two_nodes(kind, PlacementRule::FirstFit, &jobs);
        let best = on_two_nodes(kind, PlacementRule::BestFit, &jobs);
        assert_eq!(
            first,
            [
                (0, "0".into()),
                (0, "1".into()),
                (60, "0".into()),
                (560, "0".into())
            ],
            "{kind} first fit"
        );
        assert_eq!(
            best,
            [
                (0, "0".into()),
                (0, "1".into()),
                (60, "1".into()),
                (70, "0".into())
            ],
            "{kind} best fit"
        );
    }
}
