//! The same timelines for a real SimGrid: a platform file (one host per node, its wattages
//! as SimGrid's `wattage_per_state` / `wattage_off` properties) and a list of actions that
//! `scripts/simgrid/replay.cpp` plays with SimGrid's host energy plugin — `k` actors each
//! computing on one core through a piece where `k` cores are busy, the host turned off
//! through an off piece, the host in a switching power state through a switching piece —
//! printing each host's joules. `scripts/simgrid_test.sh` builds it against Debian's
//! `libsimgrid-dev` and the integration test compares the joules.
//!
//! SimGrid's plugin knows no switching: like Batsim, the replay gives each host two more
//! power states whose every wattage is the switch's (`Idle = Epsilon = AllCores`), and
//! holds the idle host in one of them while it switches off or boots.

use std::fmt::Write;

use super::timeline::{watts, NodeState, NodeTimeline, TimelineError};
use crate::model::power::PowerModel;
use crate::time::SimTime;

/// Seconds as SimGrid reads them: the clock's milliseconds, exactly.
fn secs(t: SimTime) -> String {
    let sign = if t.0 < 0 { "-" } else { "" };
    format!(
        "{sign}{}.{:03}",
        t.0.unsigned_abs() / 1000,
        t.0.unsigned_abs() % 1000
    )
}

/// The platform: host `n<i>` for node `i` (1 Gflop/s a core; power state 0 computes, 1
/// switches off, 2 boots), and `ctl`, the host the replay's controller runs on (drawing
/// nothing, and not reported).
pub fn platform_xml(timelines: &[NodeTimeline], model: &dyn Fn(usize) -> PowerModel) -> String {
    let mut x = String::from(
        "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n  <zone id=\"world\" routing=\"Full\">\n",
    );
    for (i, t) in timelines.iter().enumerate() {
        let m = model(i);
        let _ = writeln!(
            x,
            "    <host id=\"n{i}\" speed=\"1Gf,1Gf,1Gf\" pstate=\"0\" core=\"{}\">\n      <prop id=\"wattage_per_state\" value=\"{:?}:{:?}:{:?}, {off:?}:{off:?}:{off:?}, {on:?}:{on:?}:{on:?}\" />\n      <prop id=\"wattage_off\" value=\"{:?}\" />\n    </host>",
            t.cores.max(1),
            m.idle_w,
            m.epsilon_w,
            m.all_cores_w,
            m.off_w,
            off = watts(&m, 0, NodeState::SwitchingOff),
            on = watts(&m, 0, NodeState::SwitchingOn),
        );
    }
    x.push_str("    <host id=\"ctl\" speed=\"1Gf\">\n      <prop id=\"wattage_per_state\" value=\"0.0:0.0:0.0\" />\n      <prop id=\"wattage_off\" value=\"0.0\" />\n    </host>\n  </zone>\n</platform>\n");
    x
}

/// The actions: `hosts N`, then `busy n<i> FROM TO K`, `off n<i> FROM TO` and
/// `pstate n<i> FROM TO P` (seconds; P 1 switching off, 2 booting), then `end T`, the
/// instant the joules are read.
pub fn actions(timelines: &[NodeTimeline]) -> Result<String, TimelineError> {
    let mut a = format!("hosts {}\n", timelines.len());
    let mut end = SimTime::ZERO;
    for (i, t) in timelines.iter().enumerate() {
        if t.breakpoints.first().is_some_and(|b| b.0 != SimTime::ZERO) {
            return Err(TimelineError(format!(
                "node {i}: a replay starts every node at 0 s"
            )));
        }
        end = end.max(t.end);
        for (k, &(from, state)) in t.breakpoints.iter().enumerate() {
            let to = t.breakpoints.get(k + 1).map_or(t.end, |b| b.0);
            match state {
                NodeState::On { busy: 0 } => {}
                NodeState::On { busy } => {
                    let _ = writeln!(a, "busy n{i} {} {} {busy}", secs(from), secs(to));
                }
                NodeState::Off => {
                    let _ = writeln!(a, "off n{i} {} {}", secs(from), secs(to));
                }
                NodeState::SwitchingOff => {
                    let _ = writeln!(a, "pstate n{i} {} {} 1", secs(from), secs(to));
                }
                NodeState::SwitchingOn => {
                    let _ = writeln!(a, "pstate n{i} {} {} 2", secs(from), secs(to));
                }
            }
        }
    }
    if timelines.iter().any(|t| t.end != end) {
        return Err(TimelineError(
            "a replay reads every node's joules at one instant: the timelines must end together"
                .into(),
        ));
    }
    let _ = writeln!(a, "end {}", secs(end));
    Ok(a)
}

/// The replay's output: `n<i> JOULES` lines, in node order.
pub fn parse_joules(out: &str, nodes: usize) -> Result<Vec<f64>, String> {
    let mut joules = vec![f64::NAN; nodes];
    for (k, line) in out.lines().enumerate() {
        let mut f = line.split_whitespace();
        let (Some(host), Some(j)) = (f.next(), f.next()) else {
            continue;
        };
        let i: usize = host
            .strip_prefix('n')
            .and_then(|i| i.parse().ok())
            .filter(|&i| i < nodes)
            .ok_or_else(|| format!("replay output line {}: unknown host '{host}'", k + 1))?;
        joules[i] = j
            .parse()
            .map_err(|_| format!("replay output line {}: '{j}' is not a number", k + 1))?;
    }
    match joules.iter().position(|j| j.is_nan()) {
        Some(i) => Err(format!("replay output has no joules for host n{i}")),
        None => Ok(joules),
    }
}
