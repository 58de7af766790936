//! Energy against a real SimGrid (issue #40): random node timelines — cores busy, idle and
//! off pieces, random wattages — accounted by `gridscope::energy` and replayed on SimGrid
//! 3.32's host energy plugin (`scripts/simgrid/replay.cpp`); every host's joules agree to
//! 1e-9 relative. Needs the replay program: `scripts/simgrid_test.sh` installs Debian's
//! libsimgrid-dev, builds it and runs this test with GRIDSCOPE_SIMGRID_REPLAY set.

use std::path::PathBuf;
use std::process::Command;

use gridscope::energy::{account, busy_timelines, simgrid, BusySpan, NodeState, PowerModel};
use gridscope::rng::SimRng;
use gridscope::time::SimTime;

fn random_model(rng: &mut SimRng) -> PowerModel {
    let idle = 40.0 + 160.0 * rng.uniform();
    PowerModel {
        idle_w: idle,
        epsilon_w: idle * (0.8 + 0.4 * rng.uniform()),
        all_cores_w: idle + 20.0 + 300.0 * rng.uniform(),
        off_w: 15.0 * rng.uniform(),
        switch_off: None,
        switch_on: None,
    }
}

/// A random always-on schedule of jobs on `nodes` nodes, then some idle nodes switched off
/// for a while (where nothing runs on them).
fn random_case(seed: u64) -> (Vec<gridscope::energy::NodeTimeline>, Vec<PowerModel>) {
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
    // Every idle piece of over 10 s is off from 1 s after it starts to 1 s before it ends.
    for tl in &mut t {
        let mut out = Vec::new();
        for (k, &(from, state)) in tl.breakpoints.iter().enumerate() {
            let to = tl.breakpoints.get(k + 1).map_or(tl.end, |b| b.0);
            out.push((from, state));
            if state == (NodeState::On { busy: 0 }) && (to - from).0 > 10_000 {
                out.push((SimTime(from.0 + 1_000), NodeState::Off));
                out.push((SimTime(to.0 - 1_000), NodeState::On { busy: 0 }));
            }
        }
        tl.breakpoints = out;
    }
    let models = (0..nodes).map(|_| random_model(&mut rng)).collect();
    (t, models)
}

#[test]
#[ignore = "needs SimGrid: run by scripts/simgrid_test.sh"]
fn joules_equal_a_real_simgrids_on_random_timelines() {
    let replay = std::env::var("GRIDSCOPE_SIMGRID_REPLAY")
        .expect("GRIDSCOPE_SIMGRID_REPLAY names the replay program (scripts/simgrid_test.sh)");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("simgrid");
    std::fs::create_dir_all(&dir).unwrap();
    let mut worst = 0.0f64;
    let cases = 25;
    for seed in 0..cases {
        let (timelines, models) = random_case(seed);
        let ours = account(&timelines, &|i| models[i]).unwrap();
        let (plat, acts) = (dir.join("platform.xml"), dir.join("actions.txt"));
        std::fs::write(&plat, simgrid::platform_xml(&timelines, &|i| models[i])).unwrap();
        std::fs::write(&acts, simgrid::actions(&timelines).unwrap()).unwrap();
        let out = Command::new(&replay)
            .arg(&plat)
            .arg(&acts)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "case {seed}: the replay failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let theirs =
            simgrid::parse_joules(&String::from_utf8_lossy(&out.stdout), timelines.len()).unwrap();
        for (n, (a, b)) in ours.nodes.iter().zip(&theirs).enumerate() {
            let rel = (a.total_j() - b).abs() / b.abs().max(1e-300);
            worst = worst.max(rel);
            assert!(
                rel <= 1e-9,
                "case {seed} node {n}: Gridscope {} J, SimGrid {b} J (relative {rel:e})",
                a.total_j()
            );
        }
    }
    println!("{cases} random cases: worst relative difference {worst:e}");
}
