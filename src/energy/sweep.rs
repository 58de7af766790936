//! A run's energy straight from its jobs' node shares and switch-offs, in one sweep over
//! time, without the node timelines: [`account_runs`] gives, bit for bit, what [`account`]
//! gives for the timelines [`busy_timelines`] and [`with_off_spans`] would build from the
//! same shares, at a fraction of the cost (no list of spans, no breakpoint lists, no sort
//! of the power steps). The report's energy uses it; what needs the timelines themselves
//! (per-job joules, the power and node-state series, emissions, the SimGrid replay) still
//! builds them.
//!
//! Why the bits are the same: a node's joules are still summed piece by piece in time
//! order, and the platform's power still steps in (instant, node) order — the sweep visits
//! instants in time order and, at each, the nodes whose state changed in increasing order —
//! each step the new state's watts less the old one's, as [`account`]'s steps are. The
//! differential test `the_sweep_accounts_as_the_timelines_do` holds it to the timelines
//! on random runs with switch-offs.
//!
//! [`account`]: super::account
//! [`busy_timelines`]: super::busy_timelines
//! [`with_off_spans`]: super::with_off_spans

use super::timeline::{check_span, seconds, watts};
use super::{BusySpan, EnergyReport, NodeEnergy, NodeState, OffSpan, TimelineError};
use crate::model::power::PowerModel;
use crate::model::Share;
use crate::time::SimTime;

/// What a power policy lays over a node's busy state ([`OffSpan`]'s phases).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Overlay {
    /// On: the node shows its busy cores.
    Busy,
    Show(NodeState),
}

/// One job's run: from `start` to `end` on the nodes of its shares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobRun {
    pub start: SimTime,
    pub end: SimTime,
    /// What the run's shares are read by (a job's index).
    pub job: u32,
}

/// The energy of `nodes` nodes of `cores(i)` cores drawing by `model(i)`, on from `from` to
/// `to` (an error unless `to > from`), each of `runs` holding the cores of its `shares(job)` from its start
/// to its end, and switched off as `offs` say: what [`super::account`] reports for the
/// timelines [`super::busy_timelines`] and [`super::with_off_spans`] build from the same
/// (each share a [`super::BusySpan`]), with the same errors for shares and switch-offs
/// that are not a run.
pub fn account_runs<'s>(
    cores: &dyn Fn(usize) -> u32,
    nodes: usize,
    (runs, shares): (&[JobRun], &dyn Fn(u32) -> &'s [Share]),
    offs: &[OffSpan],
    (from, to): (SimTime, SimTime),
    model: &dyn Fn(usize) -> PowerModel,
) -> Result<EnergyReport, TimelineError> {
    if to <= from {
        return Err(TimelineError(format!(
            "a run ending at {} ms, not after its start at {} ms",
            to.0, from.0
        )));
    }
    let mut models = Vec::with_capacity(nodes);
    let mut node_cores = Vec::with_capacity(nodes);
    for n in 0..nodes {
        let m = model(n);
        m.validate(&format!("node {n}'s power model"))?;
        models.push(m);
        node_cores.push(cores(n));
    }
    let (by_start, by_end) = busy_runs(runs, shares, nodes, from, to)?;
    let overlay = overlay_events(offs, nodes, from)?;
    let mut sweep = Sweep {
        cores: &node_cores,
        models: &models,
        busy: vec![0i64; nodes],
        shown: vec![Overlay::Busy; nodes],
        state: vec![NodeState::On { busy: 0 }; nodes],
        since: vec![from; nodes],
        energy: vec![NodeEnergy::default(); nodes],
        now_w: 0.0,
        peak_w: 0.0,
        touched: Vec::new(),
    };
    let (mut i, mut j, mut k) = (0, 0, 0);
    let mut first = true;
    loop {
        let next = [
            by_start.get(i).map(|r| r.0),
            by_end.get(j).map(|r| r.0),
            overlay.get(k).map(|e| e.0),
        ];
        let at = next.into_iter().flatten().min().unwrap_or(to).max(from);
        if at >= to {
            break;
        }
        if first && at > from {
            // Nothing happens at `from`: every node starts idle there.
            sweep.start(from)?;
            first = false;
        }
        while j < by_end.len() && by_end[j].0 == at {
            for s in shares(runs[by_end[j].1 as usize].job) {
                sweep.busy[s.node as usize] -= i64::from(s.cores);
                sweep.touched.push(s.node);
            }
            j += 1;
        }
        while i < by_start.len() && by_start[i].0 == at {
            for s in shares(runs[by_start[i].1 as usize].job) {
                sweep.busy[s.node as usize] += i64::from(s.cores);
                sweep.touched.push(s.node);
            }
            i += 1;
        }
        while k < overlay.len() && overlay[k].0 == at {
            let (_, node, shown) = overlay[k];
            let n = node as usize;
            if shown == Overlay::Show(NodeState::SwitchingOff) && sweep.busy[n] != 0 {
                return Err(TimelineError(format!(
                    "node {n}: switched off at {} ms while computing",
                    at.0
                )));
            }
            sweep.shown[n] = shown;
            sweep.touched.push(node);
            k += 1;
        }
        if first {
            sweep.start(from)?;
            first = false;
        } else {
            sweep.settle(at)?;
        }
    }
    if first {
        sweep.start(from)?;
    }
    Ok(sweep.finish(from, to))
}

/// The sweep's state: each node's busy cores, what a power policy shows instead, the state
/// of its current piece and since when, its joules so far; the platform's power.
struct Sweep<'a> {
    cores: &'a [u32],
    models: &'a [PowerModel],
    busy: Vec<i64>,
    shown: Vec<Overlay>,
    state: Vec<NodeState>,
    since: Vec<SimTime>,
    energy: Vec<NodeEnergy>,
    now_w: f64,
    peak_w: f64,
    /// Nodes changed at the current instant (repeats allowed).
    touched: Vec<u32>,
}

impl Sweep<'_> {
    /// Node `n`'s state after the changes of the instant `at`, checked.
    fn shown_state(&self, n: usize, at: SimTime) -> Result<NodeState, TimelineError> {
        let busy = u32::try_from(self.busy[n]).map_err(|_| {
            TimelineError(format!("node {n}: cores busy went below 0 at {} ms", at.0))
        })?;
        if busy > self.cores[n] {
            return Err(TimelineError(format!(
                "node {n}: {busy} cores busy at {} ms, on a node of {}",
                at.0, self.cores[n]
            )));
        }
        Ok(match self.shown[n] {
            Overlay::Busy => NodeState::On { busy },
            Overlay::Show(s) => s,
        })
    }

    /// The first instant: every node's first piece, its power a step up from nothing, in
    /// node order.
    fn start(&mut self, from: SimTime) -> Result<(), TimelineError> {
        self.touched.clear();
        for n in 0..self.state.len() {
            let state = self.shown_state(n, from)?;
            self.state[n] = state;
            self.now_w += watts(&self.models[n], self.cores[n], state);
        }
        self.peak_w = self.peak_w.max(self.now_w);
        Ok(())
    }

    /// Closes node `n`'s current piece at `at`, adding its joules.
    fn close(&mut self, n: usize, at: SimTime) {
        let state = self.state[n];
        let j = watts(&self.models[n], self.cores[n], state) * seconds(self.since[n], at);
        let e = &mut self.energy[n];
        match state {
            NodeState::On { busy: 0 } => e.idle_j += j,
            NodeState::On { .. } => e.computing_j += j,
            NodeState::Off => e.off_j += j,
            NodeState::SwitchingOff | NodeState::SwitchingOn => e.switching_j += j,
        }
    }

    /// The nodes changed at `at`, in node order: a new piece for each whose state changed,
    /// and the platform's power stepping by each one's change in watts.
    fn settle(&mut self, at: SimTime) -> Result<(), TimelineError> {
        let mut touched = std::mem::take(&mut self.touched);
        touched.sort_unstable();
        touched.dedup();
        for &node in &touched {
            let n = node as usize;
            let state = self.shown_state(n, at)?;
            if state == self.state[n] {
                continue;
            }
            self.close(n, at);
            let (m, c) = (&self.models[n], self.cores[n]);
            self.now_w += watts(m, c, state) - watts(m, c, self.state[n]);
            self.state[n] = state;
            self.since[n] = at;
        }
        self.peak_w = self.peak_w.max(self.now_w);
        touched.clear();
        self.touched = touched;
        Ok(())
    }

    /// The last instant `to`: every node's last piece closed and its power stepped down,
    /// in node order; the report.
    fn finish(mut self, from: SimTime, to: SimTime) -> EnergyReport {
        let mut report = EnergyReport::default();
        for n in 0..self.state.len() {
            self.close(n, to);
            self.now_w += -watts(&self.models[n], self.cores[n], self.state[n]);
            let e = self.energy[n];
            report.computing_j += e.computing_j;
            report.idle_j += e.idle_j;
            report.switching_j += e.switching_j;
            report.off_j += e.off_j;
        }
        self.peak_w = self.peak_w.max(self.now_w);
        report.nodes = self.energy;
        report.total_j = report.computing_j + report.idle_j + report.switching_j + report.off_j;
        report.average_w = report.total_j / seconds(from, to);
        report.peak_w = self.peak_w;
        report
    }
}

/// The runs as (instant, index in `runs`) by start and by end, as [`super::busy_timelines`] sweeps its
/// spans, with its checks (each share a span). A run of no time holds nothing.
#[allow(clippy::type_complexity)]
fn busy_runs<'s>(
    runs: &[JobRun],
    shares: &dyn Fn(u32) -> &'s [Share],
    nodes: usize,
    from: SimTime,
    to: SimTime,
) -> Result<(Vec<(SimTime, u32)>, Vec<(SimTime, u32)>), TimelineError> {
    let mut by_start = Vec::with_capacity(runs.len());
    for (k, r) in runs.iter().enumerate() {
        for s in shares(r.job) {
            let span = BusySpan {
                node: s.node,
                cores: s.cores,
                start: r.start,
                end: r.end,
            };
            check_span(&span, nodes, (from, to))?;
        }
        if r.end > r.start {
            by_start.push((r.start, k as u32));
        }
    }
    let mut by_end: Vec<(SimTime, u32)> = by_start
        .iter()
        .map(|&(_, k)| (runs[k as usize].end, k))
        .collect();
    // Same-instant changes are summed before a state is read, so any order of one
    // instant's runs will do: unstable sorts, and none when already in order.
    for v in [&mut by_start, &mut by_end] {
        if !v.windows(2).all(|w| w[0].0 <= w[1].0) {
            v.sort_unstable_by_key(|r| r.0);
        }
    }
    Ok((by_start, by_end))
}

/// The switch-offs as (instant, node, what the node shows from then on), in time order
/// and, at one instant, in each node's order of phases: [`super::with_off_spans`]'s
/// overlay, with its checks. A node's switch-offs after one it never woke from are
/// dropped, as the overlay drops them.
fn overlay_events(
    offs: &[OffSpan],
    nodes: usize,
    from: SimTime,
) -> Result<Vec<(SimTime, u32, Overlay)>, TimelineError> {
    if let Some(s) = offs.iter().find(|s| s.node as usize >= nodes) {
        return Err(TimelineError(format!(
            "a switch-off of node {} of a platform of {nodes} nodes",
            s.node
        )));
    }
    let mut order: Vec<&OffSpan> = offs.iter().collect();
    order.sort_by_key(|s| (s.node, s.off_at));
    let mut events = Vec::with_capacity(4 * order.len());
    let mut asleep_for_good: Option<u32> = None;
    for s in order {
        if asleep_for_good == Some(s.node) {
            continue;
        }
        if s.off_at < from || s.asleep_at < s.off_at {
            return Err(TimelineError(format!(
                "node {}: a switch-off at {} ms outside its timeline",
                s.node, s.off_at.0
            )));
        }
        events.push((s.off_at, s.node, Overlay::Show(NodeState::SwitchingOff)));
        events.push((s.asleep_at, s.node, Overlay::Show(NodeState::Off)));
        if s.boot_at == SimTime::NEVER {
            asleep_for_good = Some(s.node);
            continue;
        }
        events.push((s.boot_at, s.node, Overlay::Show(NodeState::SwitchingOn)));
        events.push((s.on_at, s.node, Overlay::Busy));
    }
    // Stable: a node's phases at one instant keep their order, the last one holding.
    events.sort_by_key(|e| e.0);
    Ok(events)
}
