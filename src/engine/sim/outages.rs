//! Nodes that go down (issue #41, docs/failures.md): the engine's side of
//! [`crate::failure::Outages`].
//!
//! A node goes down at an outage's start: every job with a share on it is killed (its
//! resources given back, its site's policy told as of an early end), then the whole node
//! is taken, so that no placement can use it and the site's free units drop by its cores;
//! the schedulers see it as gone until it is repaired (they do not know when: EASY's
//! reservation and the projections plan without it). At the outage's end the node comes
//! back. Overlapping outages of a node merge (it is down while any is in force). A killed
//! job goes back to its site's queue (at the end, or at the front: [`RequeueAt`]) or is
//! lost ([`OnFailure`]).
//!
//! A failure model draws each node's outages lazily from its own stream: the first up
//! time from the run's first instant, the next at each repair, and none once every job is
//! done, so the run ends. A correlated model ([`FailureModel::share`]) draws per site
//! instead: each event takes a share of the site's nodes down together, and the end of
//! one event draws the next. Every kill is kept ([`KilledRun`]) and the node check every run
//! ends with sweeps them and the down times too: no node is over its capacity and no job
//! holds a node while it is down.

use super::{Event, Simulation};
use crate::engine::failure_log::{Downtime, FailureLog, KilledRun};
use crate::engine::outcome::{planned_and_effective, saved_at_speed, scale};
use crate::engine::{InvariantViolation, JobOutcome, Outcome, SimError, SimTime};
use crate::failure::{
    node_rng, FailureModel, JobCheckpoints, OnFailure, Outage, OutageKind, Outages, RequeueAt,
};
use crate::model::{JobIdx, Share};
use crate::policy::local::QueuedJob;
use crate::rng::SimRng;

/// The engine's failure state (present only in a run with outages).
pub(super) struct OutageState {
    on_failure: OnFailure,
    max_requeue: u32,
    requeue_at: RequeueAt,
    /// Times each job was requeued.
    requeues: Vec<u32>,
    model: Option<FailureModel>,
    /// Per site, per node: its model stream (empty without a model, and under correlated
    /// failures, which draw from the site's own in `site_rngs`).
    rngs: Vec<Vec<SimRng>>,
    /// Under correlated failures ([`FailureModel::share`]): per site, its events' stream,
    /// its node count and the first outage of its current event (whose repair draws the
    /// next).
    site_rngs: Vec<(SimRng, u32, Option<u32>)>,
    /// Every outage an event points at: the file's, then those drawn.
    table: Vec<Outage>,
    /// How many of the table's outages came from the file (those after are drawn).
    from_file: usize,
    /// Per site, per node: outages in force, and since when the node is down.
    down: Vec<Vec<(u32, SimTime, OutageKind)>>,
    /// Per job, the work its killed runs checkpointed, at the speed of the site in
    /// `saved_at` (the last one a run of it was killed on); empty without checkpointing.
    saved: Vec<SimTime>,
    /// Per job, the site whose speed `saved` is counted at. A job offered to the grid
    /// again ([`RequeueAt::Grid`]) may run next on a site of another speed: its saved work
    /// is rescaled from here once, when read ([`saved_at_speed`]), never step by step.
    saved_at: Vec<u32>,
    pub(super) log: FailureLog,
}

impl OutageState {
    /// The state for `outages` on sites of `nodes[s]` nodes each (0: no node types), each
    /// job following its plan in `plans` if there are some.
    pub(super) fn new(
        outages: Outages,
        nodes: &[u32],
        jobs: usize,
        plans: Option<JobCheckpoints>,
    ) -> OutageState {
        let model = outages.model;
        let correlated = model.as_ref().is_some_and(|m| m.share.is_some());
        let rngs = nodes
            .iter()
            .enumerate()
            .map(|(s, &n)| match &model {
                Some(_) if !correlated => (0..n)
                    .map(|i| node_rng(outages.seed, s as u32, i))
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        // A site's stream is keyed past every node's, so it is none of theirs.
        let site_rngs = match correlated {
            true => nodes
                .iter()
                .enumerate()
                .map(|(s, &n)| (node_rng(outages.seed, s as u32, u32::MAX), n, None))
                .collect(),
            false => Vec::new(),
        };
        OutageState {
            on_failure: outages.on_failure,
            max_requeue: outages.max_requeue,
            requeue_at: outages.requeue_at,
            requeues: vec![0; jobs],
            model,
            rngs,
            site_rngs,
            from_file: outages.windows.len(),
            table: outages.windows,
            down: nodes
                .iter()
                .map(|&n| vec![(0, SimTime::ZERO, OutageKind::Failure); n as usize])
                .collect(),
            saved: match plans {
                Some(_) => vec![SimTime::ZERO; jobs],
                None => Vec::new(),
            },
            saved_at: match plans {
                Some(_) => vec![0; jobs],
                None => Vec::new(),
            },
            log: FailureLog {
                on_failure: outages.on_failure,
                requeue_at: outages.requeue_at,
                cut_at_limit: match plans.as_ref().is_some_and(|c| c.within_limit) {
                    true => vec![SimTime::ZERO; jobs],
                    false => Vec::new(),
                },
                checkpoint: plans,
                ..FailureLog::default()
            },
        }
    }

    /// Draws node `node` of site `site`'s next failure from `from`; its index in the table.
    fn draw(&mut self, site: u32, node: u32, from: SimTime) -> Option<u32> {
        let model = self.model.as_ref()?;
        let rng = &mut self.rngs[site as usize][node as usize];
        let (start, end) = model.draw_span(rng, from);
        self.table.push(Outage {
            site,
            node,
            start,
            end,
            kind: OutageKind::Failure,
        });
        Some(self.table.len() as u32 - 1)
    }

    /// Draws site `site`'s next correlated event from `from`: the share of its nodes it
    /// takes, chosen uniformly (a partial Fisher–Yates shuffle of the node numbers), each
    /// one outage of the same span, in node order; their indices in the table.
    fn draw_event(&mut self, site: u32, from: SimTime) -> Vec<u32> {
        let Some(model) = self.model.as_ref() else {
            return Vec::new();
        };
        let (rng, nodes, lead) = &mut self.site_rngs[site as usize];
        if *nodes == 0 {
            return Vec::new();
        }
        let (start, end) = model.draw_span(rng, from);
        let take = model.event_nodes(*nodes) as usize;
        let mut order: Vec<u32> = (0..*nodes).collect();
        for i in 0..take {
            let j = rng.range_u64(i as u64, u64::from(*nodes) - 1) as usize;
            order.swap(i, j);
        }
        let mut chosen = order[..take].to_vec();
        chosen.sort_unstable();
        let first = self.table.len() as u32;
        *lead = Some(first);
        for node in chosen {
            self.table.push(Outage {
                site,
                node,
                start,
                end,
                kind: OutageKind::Failure,
            });
        }
        (first..self.table.len() as u32).collect()
    }

    /// True for an outage drawn from the model (after the file's).
    fn drawn(&self, idx: u32) -> bool {
        self.model.is_some() && idx as usize >= self.from_file
    }
}

impl Simulation<'_> {
    /// How long a run of job `idx` is planned to last when its wallclock limit at its site
    /// is `limit`: with checkpointing, the restart, the work not yet saved and the
    /// checkpoints on the way ([`crate::failure::CheckpointPlan::run_length`] of the limit),
    /// unless the checkpoints count against the limit; `limit` itself otherwise.
    pub(super) fn planned_run(&self, idx: JobIdx, site: u32, limit: SimTime) -> SimTime {
        match self.checkpoints() {
            Some((c, _)) if c.within_limit => limit,
            Some((c, _)) => c
                .of(idx as usize)
                .run_length(limit, self.saved_here(idx, site)),
            None => limit,
        }
    }

    /// The work job `idx` has checkpointed, at the speed of site `site`.
    fn saved_here(&self, idx: JobIdx, site: u32) -> SimTime {
        let Some(st) = self.outages.as_deref() else {
            return SimTime::ZERO;
        };
        let i = idx as usize;
        match (st.saved.get(i), st.saved_at.get(i)) {
            (Some(&saved), Some(&at)) => saved_at_speed(
                saved,
                self.sites[at as usize].res.speed,
                self.sites[site as usize].res.speed,
            ),
            _ => SimTime::ZERO,
        }
    }

    /// How long a run of job `idx` lasts when its work takes `full` at its site and its
    /// limit there is `limit`, and the work left undone when its checkpoints push it past
    /// the limit, where it is killed (with the checkpoints counted against the limit and
    /// jobs killed at it; zero otherwise).
    pub(super) fn actual_run(
        &self,
        idx: JobIdx,
        site: u32,
        full: SimTime,
        limit: SimTime,
    ) -> (SimTime, SimTime) {
        let Some((c, _)) = self.checkpoints() else {
            return (full, SimTime::ZERO);
        };
        let (plan, saved) = (c.of(idx as usize), self.saved_here(idx, site));
        let run = plan.run_length(full, saved);
        if !(c.within_limit && self.cfg.kill_at_estimate && run > limit) {
            return (run, SimTime::ZERO);
        }
        let (done, _) = plan.cut_run(limit, saved.0 > 0);
        (limit, SimTime((full.0 - saved.0 - done.0).max(1)))
    }

    /// Notes the work job `idx`'s run, starting now, leaves undone at its limit.
    pub(super) fn note_cut(&mut self, idx: JobIdx, cut: SimTime) {
        let log = self.outages.as_deref_mut().map(|st| &mut st.log);
        if let Some(flag) = log.and_then(|l| l.cut_at_limit.get_mut(idx as usize)) {
            *flag = cut;
        }
    }

    /// The run's checkpointing and the work each job has saved, if jobs checkpoint.
    fn checkpoints(&self) -> Option<(&JobCheckpoints, &[SimTime])> {
        let st = self.outages.as_deref()?;
        Some((st.log.checkpoint.as_ref()?, &st.saved))
    }

    /// At the run's first instant: every known outage and every node's first drawn failure
    /// onto the heap.
    pub(super) fn start_outages(&mut self) {
        let now = self.now;
        let Some(st) = self.outages.as_mut() else {
            return;
        };
        for (i, o) in st.table.iter().enumerate() {
            self.events.push(o.start.max(now), Event::Down(i as u32));
        }
        for site in 0..st.rngs.len() {
            for node in 0..st.rngs[site].len() {
                if let Some(i) = st.draw(site as u32, node as u32, now) {
                    self.events.push(st.table[i as usize].start, Event::Down(i));
                }
            }
        }
        for site in 0..st.site_rngs.len() {
            for i in st.draw_event(site as u32, now) {
                self.events.push(st.table[i as usize].start, Event::Down(i));
            }
        }
    }

    /// Outage `i` begins: its node goes down, the jobs on it are killed.
    pub(super) fn node_down(&mut self, i: u32) -> Result<(), SimError> {
        let now = self.now;
        let all_done = self.done == self.jobs.len() as u64;
        let Some(st) = self.outages.as_mut() else {
            return Ok(());
        };
        let o = st.table[i as usize];
        if all_done || o.end <= now {
            st.log.after_the_end += u64::from(all_done);
            return Ok(());
        }
        self.events.push(o.end, Event::Up(i));
        let slot = &mut st.down[o.site as usize][o.node as usize];
        slot.0 += 1;
        if slot.0 > 1 {
            return Ok(());
        }
        *slot = (1, now, o.kind);
        let s = o.site as usize;
        let victims: Vec<(SimTime, JobIdx)> = self.sites[s]
            .res
            .running
            .keys()
            .filter(|&&(_, idx)| {
                self.placements
                    .of(idx as usize)
                    .iter()
                    .any(|sh| sh.node == o.node)
            })
            .copied()
            .collect();
        for key in victims {
            // A job that ends at this very instant ends before the node goes down (every
            // completion of an instant comes first; its own event, later, finds it gone).
            if self.outcomes[key.1 as usize].end == now {
                self.complete(key.1)?;
            } else {
                self.kill_for_failure(s, key)?;
            }
        }
        let res = &mut self.sites[s].res;
        let Some(pool) = res.nodes.as_mut() else {
            return Err(
                InvariantViolation(format!("an outage on site {s}, which has no nodes")).into(),
            );
        };
        let whole = whole_node(pool, o.node);
        if !pool.take(&[whole]) {
            return Err(InvariantViolation(format!(
                "node {} of site {s} still held by a job after its jobs were killed at t={now}",
                o.node
            ))
            .into());
        }
        res.free -= whole.cores;
        self.site_lost_or_gained(s, Some((whole, true)));
        Ok(())
    }

    /// Outage `i` ends: its node comes back once no other outage holds it, and a drawn
    /// failure draws the node's next.
    pub(super) fn node_up(&mut self, i: u32) -> Result<(), SimError> {
        let now = self.now;
        let jobs_left = self.done < self.jobs.len() as u64;
        let Some(st) = self.outages.as_mut() else {
            return Ok(());
        };
        let o = st.table[i as usize];
        if st.drawn(i) && jobs_left {
            if st.site_rngs.is_empty() {
                if let Some(next) = st.draw(o.site, o.node, now) {
                    self.events
                        .push(st.table[next as usize].start, Event::Down(next));
                }
            } else if st.site_rngs[o.site as usize].2 == Some(i) {
                // The end of a correlated event (its first outage's repair) draws the next.
                for next in st.draw_event(o.site, now) {
                    self.events
                        .push(st.table[next as usize].start, Event::Down(next));
                }
            }
        }
        let slot = &mut st.down[o.site as usize][o.node as usize];
        slot.0 -= 1;
        if slot.0 > 0 {
            return Ok(());
        }
        st.log.downtimes.push(Downtime {
            site: o.site,
            node: o.node,
            start: slot.1,
            end: now,
            kind: slot.2,
        });
        let s = o.site as usize;
        let res = &mut self.sites[s].res;
        let mut back = None;
        if let Some(pool) = res.nodes.as_mut() {
            let whole = whole_node(pool, o.node);
            pool.give_back(&[whole]);
            res.free += whole.cores;
            back = Some((whole, false));
        }
        self.site_lost_or_gained(s, back);
        Ok(())
    }

    /// Site `s` lost or regained a node (`whole`, and whether it went down): its plans and
    /// kept projection are stale, and it gets a pass.
    fn site_lost_or_gained(&mut self, s: usize, node: Option<(Share, bool)>) {
        self.sites[s].changed();
        self.sites[s].res.plan_invalidated = true;
        match node {
            Some((whole, down)) => self.sites[s].policy.node_changed(whole, down),
            None => self.sites[s].policy.replan(),
        }
        self.touched.push(s as u32);
    }

    /// Kills the running job `key.1` of site `s` (planned until `key.0`) for a failure.
    fn kill_for_failure(&mut self, s: usize, key: (SimTime, JobIdx)) -> Result<(), SimError> {
        let now = self.now;
        let idx = key.1;
        let res = &mut self.sites[s].res;
        let Some(units) = res.running.remove(&key) else {
            return Err(InvariantViolation(format!(
                "a failure killed job {}, which was not running",
                self.jobs[idx as usize].id
            ))
            .into());
        };
        res.free += units;
        let speed = res.speed;
        let out = self.outcomes[idx as usize];
        let job = &self.jobs[idx as usize];
        let home_speed = self.platform.sites[job.home as usize].speed;
        let (_, effective) = planned_and_effective(job, &self.cfg);
        // The speed of the site the job's saved work is counted at (this one if none).
        let saved_speed = self
            .outages
            .as_deref()
            .and_then(|st| st.saved_at.get(idx as usize))
            .map_or(speed, |&at| self.sites[at as usize].res.speed);
        let Some(st) = self.outages.as_mut() else {
            return Ok(());
        };
        // The work this run checkpointed before the failure; the next run resumes after it.
        let saved = match st.log.checkpoint.as_ref().map(|c| c.of(idx as usize)) {
            Some(plan) => {
                let i = idx as usize;
                let before = saved_at_speed(st.saved[i], saved_speed, speed);
                let full = scale(effective, home_speed, speed);
                let saved = plan.saved_by_run(full, before, now - out.start);
                st.saved[i] = before + saved;
                st.saved_at[i] = s as u32;
                saved
            }
            None => SimTime::ZERO,
        };
        let shares = self.placements.of(idx as usize);
        st.log.killed.push(KilledRun {
            job: idx,
            site: s as u32,
            start: out.start,
            end: now,
            shares: (st.log.shares.len() as u32, shares.len() as u32),
            saved,
        });
        st.log.shares.extend_from_slice(shares);
        let requeue_at = st.requeue_at;
        let count = &mut st.requeues[idx as usize];
        let on_failure = match st.on_failure {
            OnFailure::Requeue if *count >= st.max_requeue => {
                st.log.requeue_limit += 1;
                OnFailure::Lost
            }
            OnFailure::Requeue => {
                *count += 1;
                OnFailure::Requeue
            }
            OnFailure::Lost => OnFailure::Lost,
        };
        self.release_nodes(s, idx);
        self.sites[s].policy.released(now, units, key.0);
        let shares = self.placements.of(idx as usize);
        self.sites[s].policy.released_nodes(key.0, shares);
        self.sites[s].changed();
        match on_failure {
            OnFailure::Lost => {
                let o = &mut self.outcomes[idx as usize];
                o.end = now;
                o.status = JobOutcome::Lost;
                self.done += 1;
            }
            OnFailure::Requeue => {
                if requeue_at == RequeueAt::Grid {
                    // As a new submission: at no site until the scheme sends it to one (it
                    // may hold it first, in no site's queue).
                    self.outcomes[idx as usize] = Outcome::PENDING;
                    self.grid_decides(|g, v, a| g.on_arrival(idx, v, a));
                    return Ok(());
                }
                self.outcomes[idx as usize] = Outcome {
                    site: s as u32,
                    ..Outcome::PENDING
                };
                let estimate = self.estimate_here(idx);
                // What it asks, not what it held (a node-exclusive site's whole nodes).
                let units = self.platform.sites[s].units_for(self.jobs[idx as usize].procs);
                let site = &mut self.sites[s];
                let queued = QueuedJob {
                    idx,
                    units,
                    estimate,
                    queued_at: now,
                };
                let view = site.res.view(now);
                match requeue_at {
                    RequeueAt::Front => site.policy.enqueue_front(queued, &view),
                    RequeueAt::Back | RequeueAt::Grid => site.policy.enqueue(queued, &view),
                }
            }
        }
        Ok(())
    }
}

/// All of node `node`'s capacity, as one share.
fn whole_node(pool: &crate::model::NodePool, node: u32) -> Share {
    let n = node as usize;
    Share {
        node,
        cores: pool.capacity.cores[n],
        mem_kb: pool.capacity.mem_kb[n],
        gpus: pool.capacity.gpus[n],
    }
}
