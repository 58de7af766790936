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
pub(super) fn seconds(from: SimTime, to: SimTime) -> f64 {
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
    let mut steps: Vec<Step> = Vec::with_capacity(steps_of(timelines));
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
        push_steps(&mut steps, t, &m);
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
    sort_steps(&mut steps, timelines.len());
    report.peak_w = power_sums(&steps).map(|p| p.1).fold(0.0, f64::max);
    Ok(report)
}

/// A change in the platform's power: (instant, change in watts).
///
/// The steps are pushed node by node, each node's in time order ([`push_steps`]), and
/// summed in (instant, node, push order) order: one order, the same bits natively and in
/// wasm. A stable sort by instant alone gives that order ([`sort_steps`]), so node and
/// push order need not be kept in a step.
type Step = (SimTime, f64);

/// Puts `steps` of `nodes` nodes in (instant, node, push order) order ([`Step`]) with
/// the cheaper of two stable sorts, which give the same order. The standard sort merges
/// the nodes' sorted runs, about log2(nodes) passes; the radix sort makes a pass per 12
/// bits of the span of instants, each as dear as about three merges (measured: RICC's
/// 1.5 million steps on 1,024 nodes over 36 bits, 3 passes, 55–70 ms against 77–95 ms;
/// HPC2N's 1.6 million on 120 nodes, 4 passes, slower than the merges' 54 ms).
fn sort_steps(steps: &mut Vec<Step>, nodes: usize) {
    let Some(first) = steps.iter().map(|s| s.0).min() else {
        return;
    };
    // `abs_diff`: a distance from the least instant, which cannot overflow.
    let span = steps
        .iter()
        .map(|s| s.0 .0.abs_diff(first.0))
        .max()
        .unwrap_or(0);
    let merges = usize::BITS - nodes.leading_zeros();
    if steps.len() >= 1 << 16 && crate::radix::passes(span) * 3 < merges {
        crate::radix::sort_by_key(steps, |s| s.0 .0.abs_diff(first.0));
    } else {
        steps.sort_by_key(|s| s.0);
    }
}

/// How many steps [`push_steps`] pushes for `timelines`.
fn steps_of(timelines: &[NodeTimeline]) -> usize {
    timelines.iter().map(|t| t.breakpoints.len() + 1).sum()
}

/// Node timeline `t`'s changes in power drawing by `m`, in time order.
fn push_steps(steps: &mut Vec<Step>, t: &NodeTimeline, m: &PowerModel) {
    let mut before = 0.0;
    for &(from, state) in &t.breakpoints {
        let w = watts(m, t.cores, state);
        steps.push((from, w - before));
        before = w;
    }
    if !t.breakpoints.is_empty() {
        steps.push((t.end, -before));
    }
}

/// The platform's power from each instant on (watts summed over nodes), from `steps`
/// sorted as [`Step`] says. Same-instant changes are summed before a value is given, so a
/// job ending as another starts is not a blip.
fn power_sums(steps: &[Step]) -> impl Iterator<Item = (SimTime, f64)> + '_ {
    let mut now = 0.0f64;
    let mut i = 0;
    std::iter::from_fn(move || {
        let at = steps.get(i)?.0;
        while i < steps.len() && steps[i].0 == at {
            now += steps[i].1;
            i += 1;
        }
        Some((at, now))
    })
}

/// The platform's power over time: (instant, watts from then on) at every change, the last
/// 0 W at the latest end. Node `i` draws by `model(i)`; timelines as [`account`] takes them.
pub fn power_series(
    timelines: &[NodeTimeline],
    model: &dyn Fn(usize) -> PowerModel,
) -> Result<Vec<(SimTime, f64)>, TimelineError> {
    let mut steps = Vec::with_capacity(steps_of(timelines));
    for (n, t) in timelines.iter().enumerate() {
        check(n, t)?;
        push_steps(&mut steps, t, &model(n));
    }
    sort_steps(&mut steps, timelines.len());
    Ok(power_sums(&steps).collect())
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
    // One sweep over every instant a job starts or ends, in time order, building all the
    // nodes' timelines at once. A job's spans come one after another with one start and
    // one end (a "run" below), so only the jobs are put in order — by start (the engine
    // records them about so: exactly when no job waited for a boot) and by end — never the
    // millions of per-node changes, nor a copy of them grouped by node.
    let mut changes = vec![0usize; nodes];
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for (k, s) in spans.iter().enumerate() {
        check_span(s, nodes, (from, to))?;
        if s.end == s.start || s.cores == 0 {
            continue;
        }
        changes[s.node as usize] += 2;
        match runs.last_mut() {
            Some(r) if r.0 + r.1 == k as u32 && same_times(&spans[r.0 as usize], s) => r.1 += 1,
            _ => runs.push((k as u32, 1)),
        }
    }
    let by_start = sorted_runs(&runs, |r| spans[r.0 as usize].start);
    let by_end = sorted_runs(&runs, |r| spans[r.0 as usize].end);
    let mut timelines: Vec<NodeTimeline> = (0..nodes)
        .map(|n| {
            let mut breakpoints = Vec::with_capacity(changes[n] + 1);
            breakpoints.push((from, NodeState::On { busy: 0 }));
            NodeTimeline {
                cores: cores(n),
                breakpoints,
                end: to,
            }
        })
        .collect();
    let mut busy = vec![0i64; nodes];
    let mut touched: Vec<u32> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < by_start.len() || j < by_end.len() {
        let at = match (by_start.get(i), by_end.get(j)) {
            (Some(a), Some(b)) => a.0.min(b.0),
            (Some(a), None) | (None, Some(a)) => a.0,
            (None, None) => break,
        };
        // Every change at `at`, then each changed node's state: same-instant changes are
        // summed (as integers, so in any order) before a breakpoint is kept.
        while j < by_end.len() && by_end[j].0 == at {
            let (_, first, len) = by_end[j];
            for s in &spans[first as usize..(first + len) as usize] {
                busy[s.node as usize] -= i64::from(s.cores);
                touched.push(s.node);
            }
            j += 1;
        }
        while i < by_start.len() && by_start[i].0 == at {
            let (_, first, len) = by_start[i];
            for s in &spans[first as usize..(first + len) as usize] {
                busy[s.node as usize] += i64::from(s.cores);
                touched.push(s.node);
            }
            i += 1;
        }
        for &node in &touched {
            let n = node as usize;
            set_busy(n, &mut timelines[n], busy[n], at)?;
        }
        touched.clear();
    }
    for t in &mut timelines {
        // A last breakpoint at the end lasts no time: drop it (it was the jobs ending).
        if t.breakpoints.len() > 1 && t.breakpoints.last().is_some_and(|b| b.0 == t.end) {
            t.breakpoints.pop();
        }
    }
    debug_assert!(timelines
        .iter()
        .enumerate()
        .all(|(n, t)| check(n, t).is_ok()));
    Ok(timelines)
}

/// Checks `s` is a job's share of one of `nodes` nodes within the run `[from, to]` (also
/// what `sweep::account_runs` checks of each share, with the same words).
pub(super) fn check_span(
    s: &BusySpan,
    nodes: usize,
    (from, to): (SimTime, SimTime),
) -> Result<(), TimelineError> {
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
    Ok(())
}

/// Whether two spans start and end together (one job's, as a run).
pub(super) fn same_times(a: &BusySpan, b: &BusySpan) -> bool {
    a.start == b.start && a.end == b.end
}

/// `runs` as (instant, first span, spans), in the order of their instant `at` (checked in
/// one pass, sorted only when out of order; unstable is enough, as same-instant changes
/// are summed in any order). The instant is kept beside each run, so neither the sort nor
/// the sweep reads the spans to compare.
pub(super) fn sorted_runs(
    runs: &[(u32, u32)],
    at: impl Fn(&(u32, u32)) -> SimTime,
) -> Vec<(SimTime, u32, u32)> {
    let mut out: Vec<(SimTime, u32, u32)> = runs.iter().map(|r| (at(r), r.0, r.1)).collect();
    if !out.windows(2).all(|w| w[0].0 <= w[1].0) {
        out.sort_unstable_by_key(|r| r.0);
    }
    out
}

/// Node `n` (timeline `t`) has `busy` cores busy from `at` on, after every change at `at`:
/// a breakpoint, unless the state is the one before. Checked as it is set: never more
/// cores busy than the node has, never fewer than none.
fn set_busy(n: usize, t: &mut NodeTimeline, busy: i64, at: SimTime) -> Result<(), TimelineError> {
    let now = u32::try_from(busy)
        .map_err(|_| TimelineError(format!("node {n}: cores busy went below 0 at {} ms", at.0)))?;
    if now > t.cores {
        return Err(TimelineError(format!(
            "node {n}: {now} cores busy at {} ms, on a node of {}",
            at.0, t.cores
        )));
    }
    set_state(&mut t.breakpoints, at, NodeState::On { busy: now });
    Ok(())
}

/// `breakpoints` in state `state` from `at` on (`at` not before the last breakpoint): a
/// change at the last breakpoint's instant replaces its state, and a state the same as
/// the one before adds no breakpoint — changes that cancel at one instant, or a piece
/// that changed back to the state before it, leave one piece.
fn set_state(breakpoints: &mut Vec<(SimTime, NodeState)>, at: SimTime, state: NodeState) {
    match breakpoints.last_mut() {
        Some(last) if last.0 == at => last.1 = state,
        Some(last) if last.1 == state => {}
        _ => breakpoints.push((at, state)),
    }
    let len = breakpoints.len();
    if len >= 2 && breakpoints[len - 2].1 == breakpoints[len - 1].1 {
        breakpoints.pop();
    }
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
            set_state(out, at, state);
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
