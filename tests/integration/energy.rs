//! Energy against a real SimGrid (issue #40): node timelines — cores busy, idle, switching
//! off, off and booting pieces, random wattages — accounted by `gridscope::energy` and
//! replayed on SimGrid 3.32's host energy plugin (`scripts/simgrid/replay.cpp`); every
//! host's joules agree to 1e-9 relative. The timelines are random ones and those of the
//! engine's own runs with idle nodes switched off. Needs the replay program:
//! `scripts/simgrid_test.sh` installs Debian's libsimgrid-dev, builds it and runs these
//! tests with GRIDSCOPE_SIMGRID_REPLAY set.

use std::path::{Path, PathBuf};
use std::process::Command;

use gridscope::energy::{
    account, busy_timelines, simgrid, BusySpan, NodeState, NodeTimeline, PowerModel, Transition,
};
use gridscope::rng::SimRng;
use gridscope::time::SimTime;

fn random_model(rng: &mut SimRng) -> PowerModel {
    let idle = 40.0 + 160.0 * rng.uniform();
    let mut transition = || {
        (rng.uniform() < 0.7).then(|| Transition {
            seconds: 0.5 + 200.0 * rng.uniform(),
            watts: 20.0 + 150.0 * rng.uniform(),
        })
    };
    let (switch_off, switch_on) = (transition(), transition());
    PowerModel {
        idle_w: idle,
        epsilon_w: idle * (0.8 + 0.4 * rng.uniform()),
        all_cores_w: idle + 20.0 + 300.0 * rng.uniform(),
        off_w: 15.0 * rng.uniform(),
        switch_off,
        switch_on,
    }
}

/// A random always-on schedule of jobs on `nodes` nodes, then some idle nodes switched off
/// for a while (where nothing runs on them): switching off for 0.5-30 s, off, then
/// booting for 0.5-30 s when the idle piece has room for all three.
fn random_case(seed: u64) -> (Vec<NodeTimeline>, Vec<PowerModel>) {
    let mut rng = SimRng::new(seed);
    let nodes = rng.range_u64(1, 7) as usize;
    let cores: Vec<u32> = (0..nodes).map(|_| rng.range_u64(1, 9) as u32).collect();
    let end = SimTime(rng.range_u64(10_000, 500_000) as i64);
    let mut spans = Vec::new();
    for (n, &c) in cores.iter().enumerate() {
        // Jobs one after another on each core, with gaps: never more than its cores.
        for _core in 0..c {
            let mut t = rng.range_u64(0, 5_000) as i64;
            while t < end.0 {
                let len = rng.range_u64(1, 60_000) as i64;
                let stop = (t + len).min(end.0);
                if rng.uniform() < 0.7 {
                    spans.push(BusySpan {
                        node: n as u32,
                        cores: 1,
                        start: SimTime(t),
                        end: SimTime(stop),
                    });
                }
                t = stop + rng.range_u64(0, 20_000) as i64;
            }
        }
    }
    let mut t = busy_timelines(&|i| cores[i], nodes, &spans, SimTime::ZERO, end).unwrap();
    // Every idle piece of over 10 s is off from 1 s after it starts to 1 s before it ends,
    // with a switch-off and a boot inside that when they fit with an off piece between.
    for tl in &mut t {
        let mut out = Vec::new();
        for (k, &(from, state)) in tl.breakpoints.iter().enumerate() {
            let to = tl.breakpoints.get(k + 1).map_or(tl.end, |b| b.0);
            out.push((from, state));
            if state == (NodeState::On { busy: 0 }) && (to - from).0 > 10_000 {
                let (down, up) = (
                    rng.range_u64(500, 30_000) as i64,
                    rng.range_u64(500, 30_000) as i64,
                );
                let (off, on) = (from.0 + 1_000, to.0 - 1_000);
                if on - off > down + up {
                    out.push((SimTime(off), NodeState::SwitchingOff));
                    out.push((SimTime(off + down), NodeState::Off));
                    out.push((SimTime(on - up), NodeState::SwitchingOn));
                } else {
                    out.push((SimTime(off), NodeState::Off));
                }
                out.push((SimTime(on), NodeState::On { busy: 0 }));
            }
        }
        tl.breakpoints = out;
    }
    let models = (0..nodes).map(|_| random_model(&mut rng)).collect();
    (t, models)
}

/// The replay program, from GRIDSCOPE_SIMGRID_REPLAY, and a scratch directory.
fn replay_program(case: &str) -> (String, PathBuf) {
    let replay = std::env::var("GRIDSCOPE_SIMGRID_REPLAY")
        .expect("GRIDSCOPE_SIMGRID_REPLAY names the replay program (scripts/simgrid_test.sh)");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(case);
    std::fs::create_dir_all(&dir).unwrap();
    (replay, dir)
}

/// Accounts `timelines` and replays them on SimGrid; asserts every host's joules agree to
/// 1e-9 relative and returns the worst relative difference.
fn compare_with_simgrid(
    replay: &str,
    dir: &Path,
    case: &str,
    timelines: &[NodeTimeline],
    models: &[PowerModel],
) -> f64 {
    let ours = account(timelines, &|i| models[i]).unwrap();
    let (plat, acts) = (dir.join("platform.xml"), dir.join("actions.txt"));
    std::fs::write(&plat, simgrid::platform_xml(timelines, &|i| models[i])).unwrap();
    std::fs::write(&acts, simgrid::actions(timelines).unwrap()).unwrap();
    let out = Command::new(replay).arg(&plat).arg(&acts).output().unwrap();
    assert!(
        out.status.success(),
        "{case}: the replay failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs =
        simgrid::parse_joules(&String::from_utf8_lossy(&out.stdout), timelines.len()).unwrap();
    let mut worst = 0.0f64;
    for (n, (a, b)) in ours.nodes.iter().zip(&theirs).enumerate() {
        let rel = (a.total_j() - b).abs() / b.abs().max(1e-300);
        worst = worst.max(rel);
        assert!(
            rel <= 1e-9,
            "{case} node {n}: Gridscope {} J, SimGrid {b} J (relative {rel:e})",
            a.total_j()
        );
    }
    worst
}

#[test]
#[ignore = "needs SimGrid: run by scripts/simgrid_test.sh"]
fn joules_equal_a_real_simgrids_on_random_timelines() {
    let (replay, dir) = replay_program("simgrid");
    let mut worst = 0.0f64;
    let cases = 25;
    let mut switching = 0;
    for seed in 0..cases {
        let (timelines, models) = random_case(seed);
        switching += timelines
            .iter()
            .flat_map(|t| &t.breakpoints)
            .filter(|b| b.1 == NodeState::SwitchingOff)
            .count();
        let case = format!("case {seed}");
        worst = worst.max(compare_with_simgrid(
            &replay, &dir, &case, &timelines, &models,
        ));
    }
    assert!(switching > 0, "the random cases switch no node off");
    println!("{cases} random cases ({switching} switch-offs): worst relative difference {worst:e}");
}

/// The engine's own schedules: every run of the `energy-demo` preset (FCFS, EASY and
/// conservative on 128 of Batsim's hosts, always on and switching idle nodes off after
/// 600 s and 60 s), and each again under a 16 kW cap — which job on which node when, and
/// each node's switch-offs, sleeps and boots — replayed on SimGrid.
#[test]
#[ignore = "needs SimGrid: run by scripts/simgrid_test.sh"]
fn joules_equal_a_real_simgrids_on_the_engines_own_schedules() {
    use gridscope::scenario::{load_workload, AlgorithmSpec, Scenario, ScenarioRun};
    let (replay, dir) = replay_program("simgrid_runs");
    let mut scenario = Scenario::preset("energy-demo").unwrap();
    // And each under a site power cap of 16 kW (at most 40 of the 128 cores computing
    // with every node on, 32 with idle nodes switched off).
    let capped: Vec<_> = scenario
        .algorithms
        .iter()
        .map(|a| AlgorithmSpec {
            power_cap_w: Some(16_000.0),
            ..a.clone()
        })
        .collect();
    scenario.algorithms.extend(capped);
    let workload = load_workload(&scenario, &Default::default(), &mut |f| {
        Err(format!("no file {f}"))
    })
    .unwrap();
    let mut run = ScenarioRun::new(&scenario, workload).unwrap();
    run.run_to_end(&mut |_, _, _| true).unwrap();
    let (report, platforms) = run.finish();
    let (mut worst, mut cycles) = (0.0f64, 0);
    for (r, platform) in report.runs.iter().zip(&platforms) {
        cycles += r.power_log.as_ref().map_or(0, |l| l.cycles.len());
        let sites = gridscope::scenario::energy::site_timelines(
            platform,
            &r.outcomes,
            &r.placements,
            r.power_log.as_ref(),
        )
        .unwrap();
        for s in sites {
            let w = compare_with_simgrid(&replay, &dir, &r.label, &s.timelines, &s.models);
            worst = worst.max(w);
        }
    }
    assert!(cycles > 0, "no run switched a node off");
    let peak = |r: &gridscope::scenario::RunReport| r.energy.as_ref().unwrap().peak_w;
    assert!(report.runs[9..].iter().all(|r| peak(r) <= 16_000.0));
    println!(
        "{} runs of energy-demo and capped ({cycles} switch-offs): worst relative difference {worst:e}",
        report.runs.len()
    );
}

/// `simulate --platform P --power MODEL`: two jobs on two 4-core nodes under FCFS — job 1
/// takes node 0's four cores for 100 s, job 2 two of node 1's for 50 s. With SimGrid's
/// example host (idle 100 W, Epsilon 93.33 W, all cores 200 W): node 0 draws 200 W for
/// 100 s (20,000 J); node 1 146.67 W for 50 s, then idles 50 s (12,333.33 J).
#[test]
fn simulate_reports_a_runs_energy_from_its_node_placements() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("energy_cli");
    std::fs::create_dir_all(&dir).unwrap();
    let swf = dir.join("two.swf");
    std::fs::write(
        &swf,
        "1 0 -1 100 4 -1 -1 4 100 -1 1 1 -1 -1 -1 -1 -1 -1\n2 0 -1 50 2 -1 -1 2 50 -1 1 1 -1 -1 -1 -1 -1 -1\n",
    )
    .unwrap();
    let platform = dir.join("platform.json");
    std::fs::write(
        &platform,
        r#"{"name": "two", "nodes": 2, "cpus_per_node": 4, "node_types": [{"name": "n", "count": 2, "cores": 4}]}"#,
    )
    .unwrap();
    let (swf, platform) = (swf.to_str().unwrap(), platform.to_str().unwrap());
    let args = [
        "simulate",
        swf,
        "--platform",
        platform,
        "--policy",
        "fcfs",
        "--power",
        "simgrid-example",
    ];
    let out = crate::cli::gridscope(&[&args[..], &["--json"]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let e = &v["runs"][0]["energy"];
    let half = 93.333_333_333_333_33 + (200.0 - 93.333_333_333_333_33) / 2.0;
    let want = 20_000.0 + 50.0 * half + 5_000.0;
    let total = e["total_j"].as_f64().unwrap();
    assert!((total - want).abs() < 1e-6, "{e}");
    assert!(
        (e["peak_w"].as_f64().unwrap() - (200.0 + half)).abs() < 1e-9,
        "{e}"
    );
    assert_eq!(e["sites"][0]["nodes"], 2);
    // The table says it too; without --power there is no energy at all.
    let text = crate::cli::gridscope(&args);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("energy (node power models; docs/energy.md)"),
        "{text}"
    );
    let plain = crate::cli::gridscope(&[&args[..6], &["--json"]].concat());
    assert!(!String::from_utf8_lossy(&plain.stdout).contains("\"energy\""));
    // Under a grid of 360 g/kWh for the run's 100 s: grams = joules × 360 / 3.6e6.
    let grid = dir.join("grid.csv");
    std::fs::write(&grid, "start_s,end_s,g_per_kwh\n0,60,360\n60,100,360\n").unwrap();
    let with_carbon = [&args[..], &["--carbon", grid.to_str().unwrap(), "--json"]].concat();
    let out = crate::cli::gridscope(&with_carbon);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let grams = v["runs"][0]["energy"]["emissions_g"].as_f64().unwrap();
    assert!((grams - want * 1e-4).abs() < 1e-9, "{grams}");
    std::fs::write(&grid, "0,60,360\n70,100,360\n").unwrap();
    let out = crate::cli::gridscope(&with_carbon);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("grid.csv line 2: the piece from 70 s leaves a gap"),
        "{err}"
    );
    // A power model that is not one names its field.
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"idle_w": -5, "epsilon_w": 1, "all_cores_w": 2}"#).unwrap();
    let mut args = args;
    args[7] = bad.to_str().unwrap();
    let out = crate::cli::gridscope(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("idle_w is -5"),
        "{err}"
    );
}
