//! Switching idle nodes off (issue #40, docs/energy.md): a node no job has held for the
//! timeout switches off; a job placed on it waits for it to boot. Batsim's minimal
//! switching case run through the engine to the joule, the boundary cases worked out in the
//! comments, and random workloads under every policy that places on nodes — every run's
//! invariants checked by the engine (a job holds its nodes from the instant it was
//! started, a sleeping node is held whole until woken, nothing computes on a node that is
//! off or booting), its energy accounted, and a timeout no node reaches giving the
//! always-on schedule byte for byte. Then the carbon (the scenario's series against
//! `--carbon`, the carbon-aware delay) and the power cap (worked by hand, and random
//! platforms whose capped runs stay under their cap).

use gridscope::engine::{RunConfig, RunOutput, SimError, Simulation};
use gridscope::model::power::{PowerModel, Transition};
use gridscope::model::{Demand, Job, NodeType, Platform};
use gridscope::policy::grid::{GridParams, GridScheme};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::rng::SimRng;
use gridscope::scenario::energy::{job_emissions, job_energy, run_energy};
use gridscope::time::SimTime;

use crate::failures::{job, spans};

const ON_NODES: [LocalPolicyKind; 7] = [
    LocalPolicyKind::Fcfs,
    LocalPolicyKind::Easy,
    LocalPolicyKind::Conservative,
    LocalPolicyKind::ConservativeRebuild,
    LocalPolicyKind::Sjf,
    LocalPolicyKind::FirstFit,
    LocalPolicyKind::Slurm,
];

/// `count` nodes of `cores` cores drawing as Batsim's `cluster_energy_128` host.
fn powered(count: u32, cores: u32) -> Platform {
    crate::nodes::node_site(vec![NodeType {
        name: "n".into(),
        count,
        cores,
        mem_kb: 0,
        gpus: 0,
        power: Some(PowerModel::BATSIM_CLUSTER_ENERGY_128),
        exclusive: false,
    }])
}

fn run(
    p: &Platform,
    jobs: &[Job],
    demands: &[Demand],
    policy: LocalPolicyKind,
    off_after: Option<i64>,
) -> Result<RunOutput, SimError> {
    let sim = Simulation::new(
        p,
        jobs,
        policy,
        GridScheme::Local,
        &GridParams::default(),
        &RunConfig::default(),
    )?
    .with_demands(demands)?;
    let sim = match off_after {
        Some(ms) => sim.with_idle_off(SimTime(ms))?,
        None => sim,
    };
    sim.run(&mut |_, _| true)
}

/// Batsim's `test_energy_minimal_load100` on two `cluster_energy_128` hosts, as a
/// scheduler with a 20 s idle timeout runs it: job 0 (both nodes, 10 s) at 0; both idle
/// from 10, switched off at 30 (6.1 s at 100.9967 W), asleep (9.75 W) from 36.1; job 1
/// (both nodes, 10 s) submitted at 100 wakes them: boot 100 → 251.52 (125.1744 W), then it
/// computes to 261.52. Per host 25,920.289958 J (docs/energy.md works it out piece by
/// piece); 51,840.579916 J for the two.
#[test]
fn batsims_minimal_switching_case_runs_to_the_joule() {
    let p = powered(2, 1);
    let jobs = [job(0, 0, 2, 10, 10), job(1, 100, 2, 10, 10)];
    let whole = Demand {
        nodes: 2,
        ..Demand::default()
    };
    for policy in ON_NODES {
        let out = run(&p, &jobs, &[whole, whole], policy, Some(20_000)).expect("runs");
        let starts: Vec<i64> = out.outcomes.iter().map(|o| o.start.0).collect();
        assert_eq!(starts, [0, 251_520], "{policy:?}");
        assert_eq!(out.outcomes[1].end.0, 261_520);
        let log = out.power.as_ref().expect("a power log");
        assert_eq!(log.cycles.len(), 2);
        assert_eq!(log.boots(), 2);
        assert_eq!(log.delayed, [(1, SimTime::from_secs(100))]);
        let c = log.cycles[0];
        assert_eq!(
            (
                c.off_at.0,
                c.asleep_at.0,
                c.woken_at.0,
                c.boot_at.0,
                c.on_at.0
            ),
            (30_000, 36_100, 100_000, 100_000, 251_520)
        );
        let e = run_energy(&p, &out.outcomes, &out.placements, out.power.as_ref())
            .unwrap()
            .expect("powered");
        assert!(
            (e.total_j - 51_840.579_916).abs() < 1e-6,
            "{policy:?}: {e:?}"
        );
        let idle_off = e.idle_off.expect("the policy's summary");
        assert_eq!((idle_off.switch_offs, idle_off.boots), (2, 2));
        assert_eq!(idle_off.jobs_delayed, 1);
        assert!((idle_off.boot_wait_s - 151.52).abs() < 1e-9);
    }
}

/// One node, timeout 20 s: job 0 ends at 10. Job 1, submitted at 30 — the node idle
/// exactly the timeout at that instant — finds it still on (a node switches off only if it
/// stays idle through the instant its timeout ends) and starts at 30. Job 2, submitted at
/// 62 (the node idle since 40, so switching off from 60 to 66.1), waits for the switch-off
/// and then the boot: 66.1 + 151.52 = 217.62.
#[test]
fn a_node_switches_off_after_the_instant_its_timeout_ends() {
    let p = powered(1, 1);
    let jobs = [
        job(0, 0, 1, 10, 10),
        job(1, 30, 1, 10, 10),
        job(2, 62, 1, 10, 10),
    ];
    for policy in ON_NODES {
        let out = run(&p, &jobs, &[], policy, Some(20_000)).expect("runs");
        let starts: Vec<i64> = out.outcomes.iter().map(|o| o.start.0).collect();
        assert_eq!(starts, [0, 30_000, 217_620], "{policy:?}");
        let log = out.power.expect("a power log");
        assert_eq!(log.cycles.len(), 1, "{policy:?}: {:?}", log.cycles);
        let c = log.cycles[0];
        assert_eq!(
            (
                c.off_at.0,
                c.asleep_at.0,
                c.woken_at.0,
                c.boot_at.0,
                c.on_at.0
            ),
            (60_000, 66_100, 62_000, 66_100, 217_620)
        );
    }
}

/// Three one-core nodes, timeout 5 s, FCFS. Jobs 0–2 start at 0 on nodes 0–2; jobs 0 and
/// 1 end at 10, job 2 runs to 100. Nodes 0 and 1 switch off at 15 (6.1 s; asleep from
/// 21.1). Job 3 (at 50) finds no node on and free: it wakes node 0 and computes after its
/// boot, from 201.52. Job 4 (at 60) wakes node 1 (node 0 is held): from 211.52. Job 5 (at
/// 70) finds every node held and waits for node 2, on and free at 100: no boot. Node 2,
/// idle from 110 to the run's end at 221.52, switches off at 115 and sleeps to the end.
/// Job 6 at 112, with node 2 on and free and nodes 0 and 1 held, takes node 2.
#[test]
fn first_fit_takes_the_nodes_that_are_on_before_waking_one() {
    let p = powered(3, 1);
    let jobs = [
        job(0, 0, 1, 10, 10),
        job(1, 0, 1, 10, 10),
        job(2, 0, 1, 100, 100),
        job(3, 50, 1, 10, 10),
        job(4, 60, 1, 10, 10),
        job(5, 70, 1, 10, 10),
    ];
    let out = run(&p, &jobs, &[], LocalPolicyKind::Fcfs, Some(5_000)).expect("runs");
    let nodes: Vec<u32> = (0..6).map(|i| out.placements.of(i)[0].node).collect();
    assert_eq!(nodes, [0, 1, 2, 0, 1, 2]);
    let starts: Vec<i64> = out.outcomes.iter().map(|o| o.start.0).collect();
    assert_eq!(starts, [0, 0, 0, 201_520, 211_520, 100_000]);
    let log = out.power.expect("a power log");
    assert_eq!(log.boots(), 2);
    let last = log
        .cycles
        .iter()
        .find(|c| c.node == 2)
        .expect("node 2 switched off");
    assert_eq!((last.off_at.0, last.boot_at), (115_000, SimTime::NEVER));
    let mut more = jobs.to_vec();
    more.push(job(6, 112, 1, 10, 10));
    let out = run(&p, &more, &[], LocalPolicyKind::Fcfs, Some(5_000)).expect("runs");
    assert_eq!(out.placements.of(6)[0].node, 2);
    assert_eq!(out.outcomes[6].start.0, 112_000);
}

/// Random workloads (some jobs with a node count or memory) on random node platforms with
/// random timeouts, under every policy that places on nodes: each run passes the engine's
/// checks and its energy is accounted; a timeout longer than the run changes nothing.
#[test]
fn random_runs_keep_the_invariants_and_a_long_timeout_changes_nothing() {
    // Per policy, the jobs that waited for a boot over all seeds: the cases must reach it.
    let mut delayed = [0usize; ON_NODES.len()];
    for seed in 0..40u64 {
        let mut rng = SimRng::new(seed);
        let count = rng.range_u64(1, 6) as u32;
        let cores = rng.range_u64(1, 4) as u32;
        let switch = |rng: &mut SimRng| Transition {
            seconds: rng.range_u64(0, 30) as f64 + 0.25,
            watts: 100.0,
        };
        let model = PowerModel {
            switch_off: Some(switch(&mut rng)),
            switch_on: Some(switch(&mut rng)),
            ..PowerModel::BATSIM_CLUSTER_ENERGY_128
        };
        let p = crate::nodes::node_site(vec![NodeType {
            name: "n".into(),
            count,
            cores,
            mem_kb: 1000,
            gpus: 0,
            power: Some(model),
            exclusive: false,
        }]);
        let n = rng.range_u64(5, 60) as usize;
        let mut t = 0;
        let mut jobs = Vec::new();
        let mut demands = Vec::new();
        for i in 0..n {
            t += rng.range_u64(0, 120) as i64;
            let run_s = rng.range_u64(0, 200) as i64;
            let procs = rng.range_u64(1, u64::from(count * cores)) as u32;
            jobs.push(job(
                i as i64,
                t,
                procs,
                run_s,
                run_s + rng.range_u64(0, 60) as i64,
            ));
            demands.push(match rng.range_u64(0, 3) {
                0 if procs >= 1 && procs <= count => Demand {
                    nodes: procs,
                    ..Demand::default()
                },
                1 => Demand {
                    mem_kb: rng.range_u64(1, 1000 / u64::from(cores)),
                    ..Demand::default()
                },
                _ => Demand::default(),
            });
        }
        let after = rng.range_u64(0, 300) as i64 * 1000;
        for (k, policy) in ON_NODES.into_iter().enumerate() {
            let on = run(&p, &jobs, &demands, policy, None).expect("always on runs");
            let off = run(&p, &jobs, &demands, policy, Some(after))
                .unwrap_or_else(|e| panic!("seed {seed} {policy:?} off after {after} ms: {e}"));
            let e = run_energy(&p, &off.outcomes, &off.placements, off.power.as_ref())
                .unwrap_or_else(|e| panic!("seed {seed} {policy:?}: {e}"))
                .expect("powered");
            assert!(e.total_j.is_finite() && e.total_j >= 0.0);
            // The jobs' shares of their nodes' power add up to the computing joules.
            let per_job = job_energy(&p, &off.outcomes, &off.placements, off.power.as_ref())
                .unwrap()
                .expect("powered");
            let sum: f64 = per_job.iter().sum();
            assert!(
                (sum - e.computing_j).abs() <= 1e-9 * e.computing_j.max(1.0),
                "seed {seed} {policy:?}: jobs {sum} J, computing {} J",
                e.computing_j
            );
            delayed[k] += off.power.as_ref().map_or(0, |l| l.delayed.len());
            // Every job still accounted for, none starting before it was submitted.
            for (j, o) in jobs.iter().zip(&off.outcomes) {
                assert!(!o.ran() || o.start >= j.submit, "seed {seed} {policy:?}");
            }
            let never = run(&p, &jobs, &demands, policy, Some(365 * 86_400_000)).unwrap();
            assert_eq!(spans(&never), spans(&on), "seed {seed} {policy:?}");
            assert_eq!(never.outcomes, on.outcomes, "seed {seed} {policy:?}");
            assert!(never.power.expect("log").cycles.is_empty());
        }
    }
    assert!(
        delayed.iter().all(|&d| d >= 20),
        "jobs delayed by boots: {delayed:?}"
    );
}

/// A job's energy is its share of its node's power: one 4-core `cluster_energy_128` node
/// (Epsilon = Idle = 95 W, 190.738 W all cores busy); job 0 holds 1 core for 100 s, job 1
/// 3 cores for 50 s, both from 0. Over [0, 50) 4 cores are busy (190.738 W): job 0 gets a
/// quarter, job 1 three; over [50, 100) 1 core (95 + 95.738/4 = 118.9345 W), all job 0's.
/// Job 0: 47.6845 × 50 + 118.9345 × 50 = 8,330.95 J; job 1: 143.0535 × 50 = 7,152.675 J;
/// 15,483.625 J in all, the run's computing joules.
#[test]
fn a_jobs_energy_is_its_share_of_its_nodes_power() {
    let p = powered(1, 4);
    let jobs = [job(0, 0, 1, 100, 100), job(1, 0, 3, 50, 50)];
    let out = run(&p, &jobs, &[], LocalPolicyKind::Fcfs, None).unwrap();
    let per_job = job_energy(&p, &out.outcomes, &out.placements, None)
        .unwrap()
        .expect("powered");
    assert!((per_job[0] - 8_330.95).abs() < 1e-6, "{per_job:?}");
    assert!((per_job[1] - 7_152.675).abs() < 1e-6, "{per_job:?}");
    let e = run_energy(&p, &out.outcomes, &out.placements, None)
        .unwrap()
        .expect("powered");
    assert!(
        (e.computing_j - 15_483.625).abs() < 1e-6,
        "{}",
        e.computing_j
    );
    // Its grams of CO₂: the same shares times the grid's intensity while each piece lasts.
    // At 400 g/kWh to 50 s and 100 after: job 0 draws 190.738 / 4 W for 50 s at 400, then
    // 118.9345 W for 50 s at 100, (47.6845 · 20,000 + 118.9345 · 5,000) / 3.6e6 g; job 1
    // 190.738 · 3/4 W for 50 s at 400, 143.0535 · 20,000 / 3.6e6 g.
    let grid = gridscope::energy::CarbonSeries::parse(
        "grid.csv",
        b"start_s,end_s,g_per_kwh\n0,50,400\n50,1000,100\n",
    )
    .unwrap();
    let grams = job_emissions(&p, &out.outcomes, &out.placements, None, &grid)
        .unwrap()
        .expect("powered");
    let want = [
        (47.6845 * 20_000.0 + 118.9345 * 5_000.0) / 3.6e6,
        143.0535 * 20_000.0 / 3.6e6,
    ];
    for (g, w) in grams.iter().zip(want) {
        assert!((g - w).abs() < 1e-12, "{grams:?} against {want:?}");
    }
}

/// The per-job CSV of a run under a carbon series has each job's grams beside its joules:
/// under a flat 500 g/kWh, energy_j × 500 / 3.6e6.
#[test]
fn the_per_job_csv_gives_each_jobs_emissions() {
    let (dir, file) = scratch("job_emissions");
    let swf = file(
        "jobs.swf",
        "1 0 -1 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n2 10 -1 300 2 -1 -1 2 300 -1 1 1 -1 -1 -1 -1 -1 -1\n",
    );
    let platform = file(
        "two.json",
        r#"{"name": "two", "nodes": 2, "cpus_per_node": 2, "node_types": [{"name": "n", "count": 2, "cores": 2}]}"#,
    );
    let grid = file("grid.csv", "start_s,end_s,g_per_kwh\n0,100000,500\n");
    let csv = dir.join("jobs.csv");
    let out = crate::cli::gridscope(&[
        "simulate",
        &swf,
        "--platform",
        &platform,
        "--power",
        "batsim-cluster-energy-128",
        "--policy",
        "fcfs",
        "--carbon",
        &grid,
        "--jobs",
        csv.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", crate::cli::stderr(&out));
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).expect(name);
    let (joules, grams) = (col("energy_j"), col("emissions_g"));
    assert_eq!(grams, head.len() - 1, "{text}");
    let rows: Vec<Vec<f64>> = lines
        .map(|l| {
            l.split(',')
                .map(|f| f.parse().unwrap_or(f64::NAN))
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    for r in rows {
        assert!(r[joules] > 0.0, "{text}");
        assert!(
            (r[grams] - r[joules] * 500.0 / 3.6e6).abs() < 1e-6,
            "{text}"
        );
    }
}

/// A fresh folder `name` for a test's files, and a writer that puts a file there and gives
/// its path.
fn scratch(name: &str) -> (std::path::PathBuf, impl Fn(&str, &str) -> String) {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let at = dir.clone();
    let file = move |name: &str, text: &str| {
        let p = at.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    (dir, file)
}

/// The carbon-aware delay through the CLI: one one-core `cluster_energy_128` node, a job of
/// 100 s at 0; the grid at 500 g/kWh for the first hour, 100 after. With 2 h of slack the
/// job is held to 3600 (its wait 3600 s): its work — 95.738 W above Epsilon for 100 s —
/// emits 0.26594 g instead of 1.32969 g. The platform's emissions over the run's span grow
/// instead (an idle node for the hour it was held), which is why both are reported.
#[test]
fn a_carbon_aware_delay_holds_a_job_for_the_clean_hour() {
    let (_, file) = scratch("carbon_slack");
    let swf = file(
        "job.swf",
        "1 0 -1 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n",
    );
    let platform = file(
        "one.json",
        r#"{"name": "one", "nodes": 1, "cpus_per_node": 1, "node_types": [{"name": "n", "count": 1, "cores": 1}]}"#,
    );
    let grid = file(
        "grid.csv",
        "start_s,end_s,g_per_kwh\n0,3600,500\n3600,100000,100\n",
    );
    let args = [
        "simulate",
        &swf,
        "--platform",
        &platform,
        "--power",
        "batsim-cluster-energy-128",
        "--policy",
        "fcfs",
        "--carbon",
        &grid,
        "--carbon-slack",
        "never,7200",
        "--json",
    ];
    let out = crate::cli::gridscope(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs[1]["label"], "fcfs, carbon slack 7200 s");
    let wait = |r: &serde_json::Value| r["metrics"]["avg_wait_s"].as_f64().unwrap();
    assert_eq!((wait(&runs[0]), wait(&runs[1])), (0.0, 3600.0));
    let work = |r: &serde_json::Value| r["energy"]["work_emissions_g"].as_f64().unwrap();
    let w = 190.738 - 95.0;
    assert!((work(&runs[0]) - w * 100.0 * 500.0 / 3.6e6).abs() < 1e-9);
    assert!((work(&runs[1]) - w * 100.0 * 100.0 / 3.6e6).abs() < 1e-9);
    let held = &runs[1]["energy"]["carbon_delay"];
    assert_eq!(
        (held["jobs_held"].as_u64(), held["held_s"].as_f64()),
        (Some(1), Some(3600.0))
    );
    assert!(runs[0]["energy"].get("carbon_delay").is_none());
    // A bad entry is named; a scenario asking for the delay without a series says what it
    // lacks.
    let bad = crate::cli::gridscope(&[&args[..8], &["--power-off-after", "x"]].concat());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("'x' is not a number of seconds"), "{err}");
    let scenario = file(
        "held.json",
        r#"{"version": 5, "platform": {"kind": "sites", "name": "one", "sites": [{"name": "one",
            "nodes": 1, "cpus_per_node": 1, "node_types": [{"name": "n", "count": 1, "cores": 1,
            "power": {"idle_w": 95, "epsilon_w": 95, "all_cores_w": 190.738}}]}]},
            "workload": {"kind": "swf", "file": "job.swf"},
            "algorithms": [{"local": "fcfs", "carbon_slack_s": 60}]}"#,
    );
    let out = crate::cli::gridscope(&["run", &scenario]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("needs the grid's carbon intensity"),
        "{err}"
    );
}

/// The grid's carbon intensity in the scenario (version 6), as the page writes it: a CSV
/// carried in full gives the bytes `simulate --carbon FILE` gives; the synthetic daily curve
/// gives the bytes of the same curve written out as a CSV (each hour's value printed in
/// full); a bad line or field of either is named.
#[test]
fn a_scenarios_carbon_gives_the_emissions_of_the_carbon_flag() {
    use gridscope::scenario::carbon::DailyCurve;
    let (dir, file) = scratch("scenario_carbon");
    // Three jobs over two days on two one-core nodes.
    file(
        "jobs.swf",
        "1 0 -1 5000 1 -1 -1 1 6000 -1 1 1 -1 -1 -1 -1 -1 -1\n\
         2 30000 -1 20000 2 -1 -1 2 20000 -1 1 1 -1 -1 -1 -1 -1 -1\n\
         3 90000 -1 3000 1 -1 -1 1 3000 -1 1 1 -1 -1 -1 -1 -1 -1\n",
    );
    let curve = DailyCurve::DEFAULT;
    let mut csv = String::from("start_s,end_s,g_per_kwh\n");
    for h in 0..24 * 7 {
        csv.push_str(&format!(
            "{},{},{}\n",
            h * 3600,
            (h + 1) * 3600,
            curve.at_hour(h)
        ));
    }
    let grid = file("grid.csv", &csv);
    let scenario = |carbon: &str| {
        format!(
            r#"{{"version": 6, "platform": {{"kind": "sites", "name": "two", "sites": [{{"name": "two",
            "nodes": 2, "cpus_per_node": 1, "node_types": [{{"name": "n", "count": 2, "cores": 1,
            "power": {{"idle_w": 95, "epsilon_w": 95, "all_cores_w": 190.738, "off_w": 9.75}}}}]}}]}},
            "workload": {{"kind": "swf", "file": "jobs.swf"}},
            "algorithms": [{{"local": "easy"}}, {{"local": "easy", "carbon_slack_s": 21600}}]{carbon}}}"#
        )
    };
    let run = |name: &str, carbon: &str, extra: &[&str]| {
        let path = file(name, &scenario(carbon));
        let out = crate::cli::gridscope(&[&["run", &path, "--json"][..], extra].concat());
        (out.status.success(), out)
    };
    let energy = |out: &std::process::Output| {
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let runs = v["runs"].as_array().unwrap().clone();
        runs.iter().map(|r| r["energy"].clone()).collect::<Vec<_>>()
    };
    let flag = crate::cli::gridscope(&["run", &file("flag.json", &scenario("")), "--json"]);
    // `run` takes no --carbon: the scenario carries it. The CSV in full first.
    let inline = format!(
        r#", "carbon": {{"kind": "csv", "file": "grid.csv", "csv": {}}}"#,
        serde_json::to_string(&csv).unwrap()
    );
    let (ok, with_csv) = run("csv.json", &inline, &[]);
    assert!(ok, "{}", String::from_utf8_lossy(&with_csv.stderr));
    let (ok, daily) = run(
        "daily.json",
        r#", "carbon": {"kind": "daily", "mean_g_per_kwh": 300, "daily_g_per_kwh": 150, "weekly_g_per_kwh": 50}"#,
        &[],
    );
    assert!(ok, "{}", String::from_utf8_lossy(&daily.stderr));
    assert_eq!(energy(&with_csv), energy(&daily));
    let e = energy(&daily);
    assert!(e[0]["emissions_g"].as_f64().unwrap() > 0.0, "{e:?}");
    assert!(
        e[1]["carbon_delay"]["jobs_held"].as_u64() >= Some(1),
        "{e:?}"
    );
    assert!(e[1]["work_emissions_g"].as_f64() < e[0]["work_emissions_g"].as_f64());
    // `simulate --carbon FILE` on the same jobs and platform: the same emissions.
    assert!(
        !flag.status.success(),
        "a slack without a series is refused"
    );
    let platform = file(
        "two.json",
        r#"{"name": "two", "nodes": 2, "cpus_per_node": 1, "node_types": [{"name": "n", "count": 2, "cores": 1,
            "power": {"idle_w": 95, "epsilon_w": 95, "all_cores_w": 190.738, "off_w": 9.75}}]}"#,
    );
    let jobs = dir.join("jobs.swf");
    let sim = crate::cli::gridscope(&[
        "simulate",
        jobs.to_str().unwrap(),
        "--platform",
        &platform,
        // The platform's own models stay; the flag is what --carbon asks for.
        "--power",
        "simgrid-example",
        "--policy",
        "easy",
        "--carbon",
        &grid,
        "--carbon-slack",
        "never,21600",
        "--json",
    ]);
    assert!(
        sim.status.success(),
        "{}",
        String::from_utf8_lossy(&sim.stderr)
    );
    let g = |es: &[serde_json::Value]| -> Vec<_> {
        es.iter()
            .map(|x| (x["emissions_g"].clone(), x["work_emissions_g"].clone()))
            .collect()
    };
    assert_eq!(g(&energy(&sim)), g(&e));
    // Bad input is named: a line of the CSV, a field of the curve.
    let bad = inline.replace("3600,7200,", "3600,7300,");
    let (ok, out) = run("bad.json", &bad, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!ok && err.contains("grid.csv line 4"), "{err}");
    let (ok, out) = run(
        "neg.json",
        r#", "carbon": {"kind": "daily", "mean_g_per_kwh": 100, "daily_g_per_kwh": 150}"#,
        &[],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !ok && err.contains("daily_g_per_kwh + weekly_g_per_kwh"),
        "{err}"
    );
}

/// The power cap worked by hand: four one-core `cluster_energy_128` nodes idle at 380 W, a
/// busy core adding 95.738 W. A 580 W cap lets ⌊200 / 95.738⌋ = 2 cores compute at once,
/// so of four 100 s jobs at 0 two start at 0 and two at 100 under every policy (the peak
/// 571.476 W); a 3-core job is rejected with the cap as its reason; a cap under the idle
/// power, or one that leaves less than a core's watts, is refused with why.
#[test]
fn a_power_cap_lets_two_of_four_cores_compute() {
    let (_, file) = scratch("power_cap");
    let mut swf = String::new();
    for id in 1..=4 {
        swf.push_str(&format!(
            "{id} 0 -1 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
        ));
    }
    swf.push_str("5 0 -1 100 3 -1 -1 3 100 -1 1 1 -1 -1 -1 -1 -1 -1\n");
    let swf = file("jobs.swf", &swf);
    let platform = file(
        "four.json",
        r#"{"name": "four", "nodes": 4, "cpus_per_node": 1, "node_types": [{"name": "n", "count": 4, "cores": 1}]}"#,
    );
    let run = |cap: &str| {
        crate::cli::gridscope(&[
            "simulate",
            &swf,
            "--platform",
            &platform,
            "--power",
            "batsim-cluster-energy-128",
            "--policy",
            "fcfs,easy,conservative",
            "--power-cap",
            cap,
            "--json",
        ])
    };
    let out = run("never,580");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 6);
    for pair in runs.chunks(2) {
        let (free, capped) = (&pair[0], &pair[1]);
        assert!(capped["label"].as_str().unwrap().ends_with(", cap 580 W"));
        let makespan = |r: &serde_json::Value| r["metrics"]["makespan_s"].as_f64().unwrap();
        assert_eq!(makespan(capped), 200.0, "{}", capped["label"]);
        assert_eq!(
            capped["metrics"]["avg_wait_s"].as_f64(),
            Some(50.0),
            "{}",
            capped["label"]
        );
        let peak = capped["energy"]["peak_w"].as_f64().unwrap();
        assert!((peak - (380.0 + 2.0 * 95.738)).abs() < 1e-9, "{peak}");
        // Without the cap the four run at once, and the 3-core job after them.
        assert!(free["energy"]["peak_w"].as_f64().unwrap() > 580.0);
        let why = capped["rejected"][0].as_str().unwrap();
        assert!(why.contains("power cap lets at most 2 compute"), "{why}");
    }
    for (cap, says) in [
        ("300", "below site 'four''s idle power (380 W"),
        ("400", "less than one core adds"),
    ] {
        let out = run(cap);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(says), "{cap}: {err}");
    }
    let bad = run("0");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("'0' is not a number of watts above 0"),
        "{err}"
    );
}

/// A random platform of one or two node types drawing as `models` say, jobs (some with
/// memory) and a cap 30-90 % of the way from what the nodes draw computing nothing to what
/// they draw in full; a node holding no core draws idle, or (`switching`) the most of idle,
/// off and switching off.
struct CappedCase {
    p: Platform,
    jobs: Vec<Job>,
    demands: Vec<Demand>,
    cap: f64,
    full: f64,
}

fn capped_case(rng: &mut SimRng, models: &[PowerModel], switching: bool) -> CappedCase {
    let mut types = Vec::new();
    for name in ["a", "b"].iter().take(rng.range_u64(1, 2) as usize) {
        types.push(NodeType {
            name: (*name).into(),
            count: rng.range_u64(1, 8) as u32,
            cores: [1, 2, 4, 8][rng.range_u64(0, 3) as usize],
            mem_kb: 1000,
            gpus: 0,
            power: Some(models[rng.range_u64(0, models.len() as u64 - 1) as usize]),
            exclusive: false,
        });
    }
    let sum = |f: &dyn Fn(&NodeType, &PowerModel) -> f64| -> f64 {
        types.iter().map(|t| f(t, t.power.as_ref().unwrap())).sum()
    };
    // The most a node draws holding no core: it boots only for a job that holds one.
    let rest = |m: &PowerModel| match switching {
        false => m.idle_w,
        true => m
            .switch_off
            .map_or(m.off_w, |t| t.watts)
            .max(m.idle_w.max(m.off_w)),
    };
    let idle = sum(&|t, m| rest(m) * f64::from(t.count));
    let full = sum(&|t, m| m.all_cores_w * f64::from(t.count));
    let cap = idle + (0.3 + 0.6 * rng.range_u64(0, 100) as f64 / 100.0) * (full - idle);
    let cores: u32 = types.iter().map(|t| t.count * t.cores).sum();
    let p = crate::nodes::node_site(types);
    let (mut jobs, mut demands, mut t) = (Vec::new(), Vec::new(), 0);
    for i in 0..rng.range_u64(5, 60) as usize {
        t += rng.range_u64(0, if switching { 900 } else { 120 }) as i64;
        let run_s = rng.range_u64(1, 300) as i64;
        let procs = rng.range_u64(1, u64::from(cores)) as u32;
        jobs.push(job(
            i as i64,
            t,
            procs,
            run_s,
            run_s + rng.range_u64(0, 60) as i64,
        ));
        demands.push(match rng.range_u64(0, 3) {
            0 => Demand {
                mem_kb: rng.range_u64(1, 120),
                ..Demand::default()
            },
            _ => Demand::default(),
        });
    }
    CappedCase {
        p,
        jobs,
        demands,
        cap,
        full,
    }
}

/// Every policy on nodes, idle nodes switched off after 0-300 s, under a random cap: the
/// switch-offs and boots draw more than idle on two of the three models (Batsim's host, and
/// one booting at 400 W against 80 W idle, more than its busy cores add), and the cap's
/// bound counts them, so no run passes its cap.
#[test]
fn random_capped_runs_with_idle_nodes_off_stay_under_the_cap() {
    let slow_boot = PowerModel {
        idle_w: 80.0,
        epsilon_w: 120.0,
        all_cores_w: 250.0,
        off_w: 5.0,
        switch_off: Some(Transition {
            seconds: 3.0,
            watts: 60.0,
        }),
        switch_on: Some(Transition {
            seconds: 90.0,
            watts: 400.0,
        }),
    };
    let models = [
        PowerModel::BATSIM_CLUSTER_ENERGY_128,
        PowerModel::SIMGRID_EXAMPLE,
        slow_boot,
    ];
    let (mut switch_offs, mut runs, mut worst) = (0, 0, 0.0f64);
    for seed in 0..40u64 {
        let mut rng = SimRng::new(1000 + seed);
        let case = capped_case(&mut rng, &models, true);
        let after = SimTime::from_secs(rng.range_u64(0, 300) as i64);
        for policy in ON_NODES {
            let out = Simulation::new(
                &case.p,
                &case.jobs[..],
                policy,
                GridScheme::Local,
                &GridParams::default(),
                &RunConfig::default(),
            )
            .and_then(|s| s.with_demands(&case.demands[..]))
            .and_then(|s| s.with_idle_off(after))
            .and_then(|s| s.with_power_cap(case.cap))
            .and_then(|s| s.run(&mut |_, _| true));
            let out = match out {
                Err(e) if e.to_string().contains("no job could ever start") => continue,
                out => {
                    out.unwrap_or_else(|e| panic!("seed {seed} {policy:?} cap {} W: {e}", case.cap))
                }
            };
            let e = run_energy(&case.p, &out.outcomes, &out.placements, out.power.as_ref())
                .unwrap()
                .expect("powered");
            assert!(
                e.peak_w <= case.cap * (1.0 + 1e-12),
                "seed {seed} {policy:?}: peak {} W over the cap {} W",
                e.peak_w,
                case.cap
            );
            worst = worst.max(e.peak_w / case.cap);
            runs += 1;
            switch_offs += out.power.as_ref().map_or(0, |l| l.cycles.len());
        }
    }
    assert!(
        runs > 40 * ON_NODES.len() * 3 / 4,
        "only {runs} runs not refused"
    );
    assert!(switch_offs > 100, "{switch_offs} switch-offs");
    println!("{runs} capped runs switching idle nodes off ({switch_offs} switch-offs): peak/cap at most {worst:.4}");
}

/// Random platforms (one or two node types of 1–8 cores, Epsilon below, at and above
/// Idle), workloads with memory and node-count demands, and caps from 30 % to 90 % of the
/// way from idle to full power, under every policy that places on nodes: the engine's own
/// checks pass (never more than the cap's K cores computing, every job rejected for the cap
/// wider than K), the peak power of the run's node timelines stays under the cap, and a cap
/// above full power changes nothing (a cap too tight for one core is refused, and skipped).
#[test]
fn random_capped_runs_stay_under_the_cap() {
    let hot = PowerModel {
        idle_w: 80.0,
        epsilon_w: 120.0,
        all_cores_w: 250.0,
        off_w: 5.0,
        switch_off: None,
        switch_on: None,
    };
    let models = [
        PowerModel::BATSIM_CLUSTER_ENERGY_128,
        PowerModel::SIMGRID_EXAMPLE,
        hot,
    ];
    let (mut rejected_for_cap, mut refused) = (0, 0);
    for seed in 0..40u64 {
        let mut rng = SimRng::new(seed);
        let CappedCase {
            p,
            jobs,
            demands,
            cap,
            full,
        } = capped_case(&mut rng, &models, false);
        for policy in ON_NODES {
            let capped = |w: f64| {
                Simulation::new(
                    &p,
                    &jobs[..],
                    policy,
                    GridScheme::Local,
                    &GridParams::default(),
                    &RunConfig::default(),
                )?
                .with_demands(&demands[..])?
                .with_power_cap(w)?
                .run(&mut |_, _| true)
            };
            // A cap that leaves less than a core's watts above the idle power is refused.
            let out = match capped(cap) {
                Err(e) if e.to_string().contains("no job could ever start") => {
                    refused += 1;
                    continue;
                }
                out => out.unwrap_or_else(|e| panic!("seed {seed} {policy:?} cap {cap} W: {e}")),
            };
            let e = run_energy(&p, &out.outcomes, &out.placements, None)
                .unwrap()
                .expect("powered");
            assert!(
                e.peak_w <= cap * (1.0 + 1e-12),
                "seed {seed} {policy:?}: peak {} W over the cap {cap} W",
                e.peak_w
            );
            rejected_for_cap += out
                .outcomes
                .iter()
                .filter(|o| {
                    matches!(
                        o.status,
                        gridscope::engine::JobOutcome::Rejected(
                            gridscope::engine::RejectReason::Unplaceable {
                                resource: gridscope::model::Resource::Power,
                                ..
                            }
                        )
                    )
                })
                .count();
            let free = run(&p, &jobs, &demands, policy, None).unwrap();
            let above = capped(full * 2.0).unwrap();
            assert_eq!(above.outcomes, free.outcomes, "seed {seed} {policy:?}");
        }
    }
    assert!(
        rejected_for_cap > 0,
        "no case reached a job wider than its cap"
    );
    assert!(refused < 40 * ON_NODES.len() / 4, "{refused} runs refused");
}
