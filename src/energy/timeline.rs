//! What each node did when, and the joules it cost: a node's timeline is a list of
//! breakpoints (from this instant on, the node is in this state), integrated against its
//! power model. Times are the engine's integer milliseconds; joules are watts × seconds
//! summed piece by piece in time order, as SimGrid's plugin accumulates them.

use serde::Serialize;

use crate::model::power::{PowerError, PowerModel};
use crate::time::SimTime;

/// A node's state over a piece of its timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum NodeState {
    /// On, with `busy` cores computing (0: idle).
    On {
        busy: u32,
    },
    Off,
    SwitchingOff,
    SwitchingOn,
}

/// One node's states from its first breakpoint to `end`.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeTimeline {
    pub cores: u32,
    /// (from, state), strictly increasing in time; the first state holds from the first
    /// instant, each until the next breakpoint, the last until `end`.
    pub breakpoints: Vec<(SimTime, NodeState)>,
    pub end: SimTime,
}

/// Joules of one node, by what it was doing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct NodeEnergy {
    pub computing_j: f64,
    pub idle_j: f64,
    pub switching_j: f64,
    pub off_j: f64,
}

impl NodeEnergy {
    pub fn total_j(&self) -> f64 {
        self.computing_j + self.idle_j + self.switching_j + self.off_j
    }
}

/// A run's energy: per node and in all, with the platform's average and peak power.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EnergyReport {
    pub nodes: Vec<NodeEnergy>,
    pub total_j: f64,
    pub computing_j: f64,
    pub idle_j: f64,
    pub switching_j: f64,
    pub off_j: f64,
    /// Total joules over the span from the earliest breakpoint to the latest end.
    pub average_w: f64,
    /// The most the platform drew at once (the sum over nodes, piecewise constant).
    pub peak_w: f64,
}

/// A timeline that is not one (breakpoints out of order, a state past its node's cores).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimelineError(pub String);

impl std::fmt::Display for TimelineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TimelineError {}

impl From<PowerError> for TimelineError {
    fn from(e: PowerError) -> Self {
        TimelineError(e.0)
    }
}

/// Seconds of `to − from` (milliseconds on the clock).
fn seconds(from: SimTime, to: SimTime) -> f64 {
    (to.0 - from.0) as f64 / 1000.0
}

/// Watts a node of `cores` cores draws in `state` (with no transition, a node switching
/// off draws its off watts and one booting its idle watts).
pub(super) fn watts(model: &PowerModel, cores: u32, state: NodeState) -> f64 {
    match state {
        NodeState::On { busy } => model.watts(busy, cores),
        NodeState::Off => model.off_w,
        NodeState::SwitchingOff => model.switch_off.map_or(model.off_w, |t| t.watts),
        NodeState::SwitchingOn => model.switch_on.map_or(model.idle_w, |t| t.watts),
    }
}

/// Checks `t` (node `n`) is a timeline: breakpoints strictly increasing and not past its
/// end, no more cores busy than it has.
fn check(n: usize, t: &NodeTimeline) -> Result<(), TimelineError> {
    for w in t.breakpoints.windows(2) {
        if w[1].0 <= w[0].0 {
            return Err(TimelineError(format!(
                "node {n}: breakpoint at {} ms is not after the one at {} ms",
                w[1].0 .0, w[0].0 .0
            )));
        }
    }
    if let Some(&(last, _)) = t.breakpoints.last() {
        if last > t.end {
            return Err(TimelineError(format!(
                "node {n}: a breakpoint at {} ms is after the timeline's end at {} ms",
                last.0, t.end.0
            )));
        }
    }
    if let Some(&(at, NodeState::On { busy })) = t
        .breakpoints
        .iter()
        .find(|(_, s)| matches!(s, NodeState::On { busy } if *busy > t.cores))
    {
        return Err(TimelineError(format!(
            "node {n}: {busy} cores busy at {} ms, on a node of {}",
            at.0, t.cores
        )));
    }
    Ok(())
}

/// The energy of `timelines`, node `i` drawing by `model(i)`. Every model is validated;
/// a node's joules are summed piece by piece in time order.
pub fn account(
    timelines: &[NodeTimeline],
    model: &dyn Fn(usize) -> PowerModel,
) -> Result<EnergyReport, TimelineError> {
    let mut report = EnergyReport::default();
    let mut steps: Vec<Step> = Vec::new();
    let (mut first, mut last) = (SimTime::NEVER, SimTime::ZERO);
    for (n, t) in timelines.iter().enumerate() {
        check(n, t)?;
        let m = model(n);
        m.validate(&format!("node {n}'s power model"))?;
        let mut e = NodeEnergy::default();
        for (k, &(from, state)) in t.breakpoints.iter().enumerate() {
            let to = t.breakpoints.get(k + 1).map_or(t.end, |b| b.0);
            let w = watts(&m, t.cores, state);
            let j = w * seconds(from, to);
            match state {
                NodeState::On { busy: 0 } => e.idle_j += j,
                NodeState::On { .. } => e.computing_j += j,
                NodeState::Off => e.off_j += j,
                NodeState::SwitchingOff | NodeState::SwitchingOn => e.switching_j += j,
            }
        }
        push_steps(&mut steps, n, t, &m);
        if let Some(&(from, _)) = t.breakpoints.first() {
            first = first.min(from);
            last = last.max(t.end);
        }
        report.computing_j += e.computing_j;
        report.idle_j += e.idle_j;
        report.switching_j += e.switching_j;
        report.off_j += e.off_j;
        report.nodes.push(e);
    }
    report.total_j = report.computing_j + report.idle_j + report.switching_j + report.off_j;
    if last > first {
        report.average_w = report.total_j / seconds(first, last);
    }
    report.peak_w = series_of(steps).iter().map(|p| p.1).fold(0.0, f64::max);
    Ok(report)
}

/// A change in the platform's power: (instant, node, push order, change in watts).
type Step = (SimTime, u32, u32, f64);

/// Node `n`'s changes in power over its timeline `t` drawing by `m`, in time order, each
/// numbered by its place in `steps` (the sort's tie-break in [`series_of`]).
fn push_steps(steps: &mut Vec<Step>, n: usize, t: &NodeTimeline, m: &PowerModel) {
    let mut before = 0.0;
    for &(from, state) in &t.breakpoints {
        let w = watts(m, t.cores, state);
        steps.push((from, n as u32, steps.len() as u32, w - before));
        before = w;
    }
    if !t.breakpoints.is_empty() {
        steps.push((t.end, n as u32, steps.len() as u32, -before));
    }
}

/// The platform's power from each instant on (watts summed over nodes), from `steps`
/// pushed node by node ([`push_steps`]). Same-instant changes are summed before a value is
/// kept, so a job ending as another starts is not a blip. The sum runs in (instant, node,
/// push order) order, one order, the same bits natively and in wasm: the steps come node
/// by node, each node's in time order, so a stable sort by instant alone gives it — and
/// merges the nodes' sorted runs instead of sorting from scratch (a third of the
/// unstable sort of the whole key on RICC's 1,024 nodes). An 8-bit radix sort was a
/// little quicker on RICC's 1,024 nodes and twice as slow on HPC2N's 120 (tried).
fn series_of(mut steps: Vec<Step>) -> Vec<(SimTime, f64)> {
    debug_assert!(steps
        .windows(2)
        .all(|w| (w[0].1, w[0].0) <= (w[1].1, w[1].0)));
    steps.sort_by_key(|s| s.0);
    let mut out: Vec<(SimTime, f64)> = Vec::new();
    let mut now = 0.0f64;
    let mut i = 0;
    while i < steps.len() {
        let at = steps[i].0;
        while i < steps.len() && steps[i].0 == at {
            now += steps[i].3;
            i += 1;
        }
        out.push((at, now));
    }
    out
}

/// The platform's power over time: (instant, watts from then on) at every change, the last
/// 0 W at the latest end. Node `i` draws by `model(i)`; timelines as [`account`] takes them.
pub fn power_series(
    timelines: &[NodeTimeline],
    model: &dyn Fn(usize) -> PowerModel,
) -> Result<Vec<(SimTime, f64)>, TimelineError> {
    let mut steps = Vec::new();
    for (n, t) in timelines.iter().enumerate() {
        check(n, t)?;
        push_steps(&mut steps, n, t, &model(n));
    }
    Ok(series_of(steps))
}

/// How many nodes are in each state: computing, idle, switching (off or booting), off.
pub type StateCounts = [u32; 4];

/// The index of `state` in a [`StateCounts`].
fn state_index(state: NodeState) -> usize {
    match state {
        NodeState::On { busy: 0 } => 1,
        NodeState::On { .. } => 0,
        NodeState::SwitchingOff | NodeState::SwitchingOn => 2,
        NodeState::Off => 3,
    }
}

/// The nodes of `timelines` in each state over time: (instant, counts from then on) at every
/// change, all zero at the latest end. Counts are whole numbers, so the order in which the
/// changes of one instant are summed cannot change them.
pub fn state_series(
    timelines: &[NodeTimeline],
) -> Result<Vec<(SimTime, StateCounts)>, TimelineError> {
    // (instant, state index, +1 or -1)
    let mut changes: Vec<(SimTime, usize, i64)> = Vec::new();
    for (n, t) in timelines.iter().enumerate() {
        check(n, t)?;
        let mut before = None;
        for &(from, state) in &t.breakpoints {
            let i = state_index(state);
            if before == Some(i) {
                continue;
            }
            if let Some(b) = before {
                changes.push((from, b, -1));
            }
            changes.push((from, i, 1));
            before = Some(i);
        }
        if let Some(b) = before {
            changes.push((t.end, b, -1));
        }
    }
    changes.sort_unstable_by_key(|c| c.0);
    let mut now = [0i64; 4];
    let mut out: Vec<(SimTime, StateCounts)> = Vec::new();
    let mut k = 0;
    while k < changes.len() {
        let at = changes[k].0;
        while k < changes.len() && changes[k].0 == at {
            now[changes[k].1] += changes[k].2;
            k += 1;
        }
        out.push((at, now.map(|c| c.max(0) as u32)));
    }
    Ok(out)
}

/// A job's share of one node: `cores` of it busy from `start` to `end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BusySpan {
    pub node: u32,
    pub cores: u32,
    pub start: SimTime,
    pub end: SimTime,
}

/// The timelines of `nodes` nodes of `cores(i)` cores, on from `from` to `to`, busy as
/// `spans` say (an always-on platform). A span outside `[from, to]` or past a node's
/// cores is an error, not clipped.
pub fn busy_timelines(
    cores: &dyn Fn(usize) -> u32,
    nodes: usize,
    spans: &[BusySpan],
    from: SimTime,
    to: SimTime,
) -> Result<Vec<NodeTimeline>, TimelineError> {
    // (node, instant, change in busy cores), sorted: each node's changes in time order.
    // Each node's (instant, change in busy cores), grouped by node with a counting sort
    // (one pass to count, one to place), then each node's few sorted by instant: far
    // cheaper than one sort of every change on a machine of a thousand nodes.
    let mut count = vec![0usize; nodes + 1];
    for s in spans {
        if s.node as usize >= nodes {
            return Err(TimelineError(format!(
                "a job on node {} of a platform of {nodes} nodes",
                s.node
            )));
        }
        if s.start < from || s.end > to || s.end < s.start {
            return Err(TimelineError(format!(
                "node {}: a job from {} ms to {} ms outside the run ({} ms to {} ms)",
                s.node, s.start.0, s.end.0, from.0, to.0
            )));
        }
        if s.end > s.start && s.cores > 0 {
            count[s.node as usize + 1] += 2;
        }
    }
    for n in 0..nodes {
        count[n + 1] += count[n];
    }
    let mut next = count.clone();
    let mut deltas: Vec<(SimTime, i64)> = vec![(SimTime::ZERO, 0); count[nodes]];
    for s in spans.iter().filter(|s| s.end > s.start && s.cores > 0) {
        let at = &mut next[s.node as usize];
        deltas[*at] = (s.start, i64::from(s.cores));
        deltas[*at + 1] = (s.end, -i64::from(s.cores));
        *at += 2;
    }
    let mut out: Vec<NodeTimeline> = Vec::with_capacity(nodes);
    for node in 0..nodes {
        let mine = &mut deltas[count[node]..count[node + 1]];
        // Unstable is enough: same-instant changes are summed, in any order, as integers.
        mine.sort_unstable_by_key(|d| d.0);
        let mut t = NodeTimeline {
            cores: cores(node),
            breakpoints: vec![(from, NodeState::On { busy: 0 })],
            end: to,
        };
        let mut busy: i64 = 0;
        let mut i = 0;
        while i < mine.len() {
            let at = mine[i].0;
            while i < mine.len() && mine[i].0 == at {
                busy += mine[i].1;
                i += 1;
            }
            let now = u32::try_from(busy).map_err(|_| {
                TimelineError(format!(
                    "node {node}: cores busy went below 0 at {} ms",
                    at.0
                ))
            })?;
            let state = NodeState::On { busy: now };
            match t.breakpoints.last_mut() {
                Some(last) if last.0 == at => last.1 = state,
                Some(last) if last.1 == state => {}
                _ => t.breakpoints.push((at, state)),
            }
            // Changes that cancel at one instant leave the state before them: one piece.
            let len = t.breakpoints.len();
            if len >= 2 && t.breakpoints[len - 2].1 == t.breakpoints[len - 1].1 {
                t.breakpoints.pop();
            }
        }
        out.push(t);
    }
    for (n, t) in out.iter_mut().enumerate() {
        // A last breakpoint at the end lasts no time: drop it (it was the jobs ending).
        if t.breakpoints.len() > 1 && t.breakpoints.last().is_some_and(|b| b.0 == t.end) {
            t.breakpoints.pop();
        }
        check(n, t)?;
    }
    Ok(out)
}

/// One time a node was switched off by a power policy: switching off from `off_at`, off
/// from `asleep_at`, booting from `boot_at` and on again from `on_at` (both
/// [`SimTime::NEVER`] when it stayed off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffSpan {
    pub node: u32,
    pub off_at: SimTime,
    pub asleep_at: SimTime,
    pub boot_at: SimTime,
    pub on_at: SimTime,
}

/// Lays `spans` (each node's in time order, none overlapping another of its node nor a busy
/// piece) over always-on `timelines` ([`busy_timelines`]): switching off, off, booting, then
/// what the node was doing when it came back on. Pieces past a timeline's end are cut.
pub fn with_off_spans(
    timelines: &mut [NodeTimeline],
    spans: &[OffSpan],
) -> Result<(), TimelineError> {
    let mut by_node: Vec<Vec<OffSpan>> = vec![Vec::new(); timelines.len()];
    for s in spans {
        let Some(mine) = by_node.get_mut(s.node as usize) else {
            return Err(TimelineError(format!(
                "a switch-off of node {} of a platform of {} nodes",
                s.node,
                timelines.len()
            )));
        };
        mine.push(*s);
    }
    for (n, (t, mine)) in timelines.iter_mut().zip(&mut by_node).enumerate() {
        if mine.is_empty() {
            continue;
        }
        mine.sort_unstable_by_key(|s| s.off_at);
        let old = std::mem::take(&mut t.breakpoints);
        let state_at = |at: SimTime| {
            let k = old.partition_point(|b| b.0 <= at);
            old[k.saturating_sub(1)].1
        };
        let end = t.end;
        let mut out: Vec<(SimTime, NodeState)> = Vec::with_capacity(old.len() + 4 * mine.len());
        let push = |out: &mut Vec<(SimTime, NodeState)>, at: SimTime, state: NodeState| {
            if at >= end && !out.is_empty() {
                return;
            }
            match out.last_mut() {
                Some(last) if last.0 == at => last.1 = state,
                Some(last) if last.1 == state => {}
                _ => out.push((at, state)),
            }
            // A piece that changed back to the state before it: one piece.
            let len = out.len();
            if len >= 2 && out[len - 2].1 == out[len - 1].1 {
                out.pop();
            }
        };
        let mut k = 0;
        for s in mine.iter() {
            if s.off_at < old.first().map_or(SimTime::ZERO, |b| b.0) || s.asleep_at < s.off_at {
                return Err(TimelineError(format!(
                    "node {n}: a switch-off at {} ms outside its timeline",
                    s.off_at.0
                )));
            }
            while k < old.len() && old[k].0 < s.off_at {
                push(&mut out, old[k].0, old[k].1);
                k += 1;
            }
            if state_at(s.off_at) != (NodeState::On { busy: 0 }) {
                return Err(TimelineError(format!(
                    "node {n}: switched off at {} ms while computing",
                    s.off_at.0
                )));
            }
            push(&mut out, s.off_at, NodeState::SwitchingOff);
            push(&mut out, s.asleep_at, NodeState::Off);
            if s.boot_at == SimTime::NEVER {
                k = old.len();
                break;
            }
            push(&mut out, s.boot_at, NodeState::SwitchingOn);
            push(&mut out, s.on_at, state_at(s.on_at));
            while k < old.len() && old[k].0 <= s.on_at {
                k += 1;
            }
        }
        for &(at, state) in &old[k..] {
            push(&mut out, at, state);
        }
        t.breakpoints = out;
        check(n, t)?;
    }
    Ok(())
}
