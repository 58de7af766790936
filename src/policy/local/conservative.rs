use std::cmp::Reverse;

use super::conservative_nodes::NodeConservative;
use super::placement::{place, Floors};
use super::{LocalPolicy, QueuedJob, SiteView};
use crate::model::JobIdx;
use crate::policy::Profile;
use crate::time::SimTime;

mod queue;
use queue::{ArrivalQueue, Entry, StartHeap};

/// Conservative backfilling with compression (Mu'alem & Feitelson 2001, as the reference
/// simulator pyss implements it; `conservative` from scenario version 2 on): every queued
/// job holds a reservation at the earliest time it fits in the availability profile, given
/// in arrival order; a job jumps ahead only into a hole that delays no reservation. The
/// promise: once given, a reservation never moves later.
///
/// When a running job ends (pyss: on every termination, early or not) the rest of its
/// block is given back, then each queued job, in arrival order, is taken out of the plan
/// and put back at its earliest start given every other reservation — never later than
/// it was, since its own slot is still free for it. Arrivals are placed into the plan as
/// they come. Two cases cannot keep the promise and rebuild the plan instead (every queued
/// job re-placed in arrival order, as [`super::ConservativeRebuild`] does): a job that
/// outlives its estimate without being killed (its predicted end moves into room that was
/// promised) and, in SCJG runs, an advance reservation made or released.
///
/// Cost. A pass must look at every queued job, but most cannot move: a job moves only
/// into room freed *before its reservation* since it was last placed (were the freed room
/// all at or after its start, every window that failed it then still fails). Each release
/// — a tail, the old slot of a job that moved up, a withdrawn job's block — is logged with
/// a stamp, the first and last instant it freed and the most units free there after (tails
/// and old slots in two logs, see [`FreedLog`]); a job asks what was released since its own
/// stamp (a walk forward from where the previous job's question was answered) and is
/// searched for only when room was freed before its start and wide enough, from the first
/// window that could reach that room to the earlier of its start and the last freed
/// instant ([`Profile::earliest_before`]). A failed search bounds the next one for a job as
/// wide, no shorter and reserved no sooner ([`Failed`]), and a pass stops at the first job
/// stamped after the newest release. What is left is the visits, searches and moves
/// themselves (RICC: 627 million visits, 110 million searches, 48 million moves in 322,000
/// passes; a same-instant backlog of N jobs: about 0.45·N² moves).
#[derive(Default)]
pub struct Conservative {
    /// The jobs in arrival order, each with its reservation (`None` until placed) and the
    /// stamp of its last placement or check.
    queue: ArrivalQueue,
    /// (reserved start, arrival sequence) of every placed job, soonest first.
    by_start: StartHeap,
    /// The plan: running jobs until their predicted ends, every queued job's reservation,
    /// advance reservations. `None` until the first pass, and when it must be rebuilt.
    profile: Option<Profile>,
    /// Lower bounds for placing newcomers; they hold only while the plan loses room.
    floors: Floors,
    floors_valid: bool,
    freed: FreedLog,
    arrivals: u64,
    /// Failed searches of the current pass (see [`FailedTable`]).
    failed: FailedTable,
    /// The old slots given back by the moves of the current pass (see [`Failed`]).
    pass_slots: PassSlots,
    /// A job ended or was withdrawn since the last pass: the next pass compresses.
    compress_pending: bool,
    /// The plan no longer describes the site (an overrun, a reservation change).
    rebuild_pending: bool,
    /// Room was given back since the last pass (an early end, a withdrawal): a pass that
    /// sees the engine's `plan_invalidated` without this has missed a notice and rebuilds.
    released_since_pass: bool,
    /// Plan work so far ([`LocalPolicy::plan_work`]): the engine's bound on a backlog.
    work: u64,
    /// Room for the stretch of the plan a move changes ([`Profile::move_sooner`]).
    scratch: Profile,
    /// On a node-typed site, the plan on nodes that runs the rule instead
    /// ([`super::conservative_nodes`]).
    on_nodes: Option<Box<NodeConservative>>,
}

/// A compression search that found no sooner start for a job of some width: no window
/// starting in `[lowest, before)` had room for `estimate` before `reserved_at`. The same
/// holds for a job as wide that needs at least as much — no shorter, reserved no sooner:
/// its stretch before its reservation contains the first one's — whose search may then
/// begin at `before` (a queue of job-array members asks the same question again and
/// again). It holds while the plan only loses room where such a job's windows look: a
/// move gives back its old slot, usually far later, so the failure stays good for every
/// job whose windows starting before `before` end before the first instant given back
/// since. Room is given back during a pass only by moves, whose old slots the pass lists
/// in order ([`PassSlots`]); a failure keeps how far into that list it has read and the
/// first instant given back there, so that each check reads only the slots freed since the
/// previous one (a binary search of the release log per check was a fifth of RICC's run).
#[derive(Clone, Copy, Debug)]
struct Failed {
    lowest: SimTime,
    before: SimTime,
    estimate: SimTime,
    reserved_at: SimTime,
    /// Slots of the pass read so far, and the first instant they gave back.
    read: usize,
    first_freed: SimTime,
}

/// The first instant of each old slot given back by a move of the current pass, in order.
#[derive(Clone, Debug, Default)]
struct PassSlots(Vec<SimTime>);

/// The last failed search per width, in a small direct-mapped table (a lost entry only
/// loses a bound); entries of an older pass are empty. A map cost a tree insert per
/// failed search (tens of millions on RICC).
#[derive(Clone, Debug)]
struct FailedTable {
    slots: Vec<(u32, u64, Failed)>,
    pass: u64,
}

impl Default for FailedTable {
    fn default() -> Self {
        let empty = Failed {
            lowest: SimTime::NEVER,
            before: SimTime::ZERO,
            estimate: SimTime::NEVER,
            reserved_at: SimTime::NEVER,
            read: 0,
            first_freed: SimTime::NEVER,
        };
        FailedTable {
            slots: vec![(0, 0, empty); 256],
            pass: 1,
        }
    }
}

impl FailedTable {
    fn slot(units: u32) -> usize {
        (units.wrapping_mul(0x9E37_79B9) >> 24) as usize
    }

    fn clear(&mut self) {
        self.pass += 1;
    }

    fn get(&mut self, units: u32) -> Option<&mut Failed> {
        let (u, pass, f) = &mut self.slots[Self::slot(units)];
        (*u == units && *pass == self.pass).then_some(f)
    }

    fn insert(&mut self, units: u32, failed: Failed) {
        self.slots[Self::slot(units)] = (units, self.pass, failed);
    }
}

impl Failed {
    /// True when this failure covers every start a job of `estimate` reserved at
    /// `reserved_at` could try from `lowest` until `self.before`.
    fn covers(
        &mut self,
        lowest: SimTime,
        estimate: SimTime,
        reserved_at: SimTime,
        slots: &PassSlots,
    ) -> bool {
        if lowest < self.lowest || estimate < self.estimate || reserved_at < self.reserved_at {
            return false;
        }
        if let Some(unread) = slots.0.get(self.read..) {
            self.first_freed = unread.iter().fold(self.first_freed, |a, &b| a.min(b));
            self.read = slots.0.len();
        }
        // The windows it stands for end (capped at the job's reservation) by this instant.
        let reach = (self.before + estimate).min(reserved_at);
        self.first_freed >= reach
    }
}

/// The releases of room in the plan, each with a stamp, in two logs sharing one stamp
/// counter: *tails* (an early end's rest, a withdrawn job's block: given back with the most
/// units free in the stretch after) and *slots* (the old slot of a job that moved up: no
/// width measured, see [`Conservative::compress`]). A job asks each log what was released
/// after its own stamp: the earliest first instant, the latest end and the most units, each
/// kept in a [`BestSince`] (the three answers may come from different releases: a bound,
/// never a miss). Two logs, not one: a tail starts now but is often narrow, a slot is
/// unbounded in width but starts late; merged, every job after the first move of a pass
/// looked as if room as wide as the machine had been freed from now on.
#[derive(Clone, Debug, Default)]
struct FreedLog {
    tails: ReleaseLog,
    slots: ReleaseLog,
    stamp: u64,
}

/// One log of [`FreedLog`].
#[derive(Clone, Debug, Default)]
struct ReleaseLog {
    /// First instants freed: the earliest is best.
    firsts: BestSince<Reverse<SimTime>>,
    /// Ends of the freed stretches: the latest is best.
    ends: BestSince<SimTime>,
    /// Most units free in the freed stretches: the most is best.
    widths: BestSince<u32>,
}

/// The largest value pushed after a stamp: a stack of (stamp, value) whose values strictly
/// decrease with the stamps, since a value beaten by a later one can never be the answer
/// (every query that sees it sees the later one too). A pass asks for the stamps of the
/// queue's jobs, which never decrease along it, so the answer's place is kept between
/// queries and walked forward (a binary search per query was a tenth of RICC's run).
#[derive(Clone, Debug)]
struct BestSince<T> {
    stack: Vec<(u64, T)>,
    /// Every entry before `cursor` has a stamp at most `asked`, the last stamp asked for.
    cursor: usize,
    asked: u64,
}

impl<T> Default for BestSince<T> {
    fn default() -> Self {
        BestSince {
            stack: Vec::new(),
            cursor: 0,
            asked: 0,
        }
    }
}

impl<T: Ord + Copy> BestSince<T> {
    fn push(&mut self, stamp: u64, value: T) {
        while self.stack.last().is_some_and(|&(_, v)| v <= value) {
            self.stack.pop();
        }
        // The entries left are unchanged; the new one is yet to be walked over.
        self.cursor = self.cursor.min(self.stack.len());
        self.stack.push((stamp, value));
    }

    /// The largest value pushed after stamp `checked`, if any.
    fn after(&mut self, checked: u64) -> Option<T> {
        if checked < self.asked {
            self.cursor = 0;
        }
        self.asked = checked;
        let mut i = self.cursor.min(self.stack.len());
        while self.stack.get(i).is_some_and(|&(s, _)| s <= checked) {
            i += 1;
        }
        self.cursor = i;
        self.stack.get(i).map(|&(_, v)| v)
    }

    /// Forgets the values pushed at stamps up to `oldest`.
    fn forget_through(&mut self, oldest: u64) {
        let i = self.stack.partition_point(|&(s, _)| s <= oldest);
        self.stack.drain(..i);
        self.cursor = self.cursor.saturating_sub(i);
    }
}

/// What was released after a stamp (see [`FreedLog`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Released {
    first: SimTime,
    end: SimTime,
    units: u32,
}

impl ReleaseLog {
    fn push(&mut self, stamp: u64, from: SimTime, to: SimTime, units: u32) {
        self.firsts.push(stamp, Reverse(from));
        self.ends.push(stamp, to);
        self.widths.push(stamp, units);
    }

    fn since(&mut self, checked: u64) -> Option<Released> {
        Some(Released {
            first: self.firsts.after(checked).map(|Reverse(t)| t)?,
            end: self.ends.after(checked)?,
            units: self.widths.after(checked)?,
        })
    }

    fn forget_through(&mut self, oldest: u64) {
        self.firsts.forget_through(oldest);
        self.ends.forget_through(oldest);
        self.widths.forget_through(oldest);
    }

    fn is_empty(&self) -> bool {
        self.firsts.stack.is_empty()
    }
}

impl FreedLog {
    fn now(&self) -> u64 {
        self.stamp
    }

    /// Logs room given back during `[from, to)`, with at most `units` free there after.
    fn push(&mut self, from: SimTime, to: SimTime, units: u32) {
        self.stamp += 1;
        self.tails.push(self.stamp, from, to, units);
    }

    /// Logs the old slot `[from, to)` of a job that moved up.
    fn push_slot(&mut self, from: SimTime, to: SimTime) {
        self.stamp += 1;
        self.slots.push(self.stamp, from, to, u32::MAX);
    }

    /// What each log released after stamp `checked`: (tails, slots).
    fn since(&mut self, checked: u64) -> [Option<Released>; 2] {
        [self.tails.since(checked), self.slots.since(checked)]
    }

    /// Forgets releases no job can still be waiting for (every stamp is at least `oldest`).
    fn forget_through(&mut self, oldest: u64) {
        self.tails.forget_through(oldest);
        self.slots.forget_through(oldest);
    }

    fn clear(&mut self) {
        self.forget_through(u64::MAX);
    }

    fn is_empty(&self) -> bool {
        self.tails.is_empty() && self.slots.is_empty()
    }
}

/// Where a job reserved at `start` (`units` × `estimate`) could move given what was released
/// since its last check (`released`, from [`FreedLog::since`]): the first start worth trying
/// and the start to search before, or `None` when it provably cannot move. A window that
/// reaches no instant freed since, with room for the job there, failed before and still
/// fails: it must start after some such release's first instant minus the estimate and
/// before that release's end, and before the job's own start.
fn search_range(
    released: &[Option<Released>; 2],
    now: SimTime,
    start: SimTime,
    units: u32,
    estimate: SimTime,
) -> Option<(SimTime, SimTime)> {
    let mut range: Option<(SimTime, SimTime)> = None;
    for r in released.iter().flatten() {
        let first_freed = r.first.max(now);
        if first_freed >= start || r.units < units {
            continue;
        }
        let lowest = (first_freed - estimate + SimTime(1)).max(now);
        range = Some(match range {
            Some((lo, end)) => (lo.min(lowest), end.max(r.end)),
            None => (lowest, r.end),
        });
    }
    range.map(|(lowest, end)| (lowest, start.min(end)))
}

impl Conservative {
    /// Every queued job placed again in arrival order into a fresh plan (the fallback when
    /// the promise cannot be kept).
    fn rebuild(&mut self, site: &SiteView) {
        let mut profile = site.planning_profile();
        self.by_start.clear();
        self.floors.clear(self.queue.len());
        self.floors_valid = true;
        self.freed.clear();
        let stamp = self.freed.now();
        for e in self.queue.iter_mut() {
            let s = place(&mut profile, &mut self.floors, site.now, &e.job);
            e.start = Some(s);
            e.checked = stamp;
            self.by_start.push(s, e.seq);
        }
        let steps = profile.steps().len() as u64;
        self.work = (self.work).saturating_add(self.queue.len() as u64 * steps);
        self.profile = Some(profile);
        self.rebuild_pending = false;
        self.compress_pending = false;
    }

    /// One compression pass: each placed job not yet due, in arrival order, moves to its
    /// earliest start if that is sooner.
    fn compress(&mut self, now: SimTime) {
        self.compress_pending = false;
        let Some(profile) = self.profile.as_mut() else {
            return;
        };
        // No room given back since the previous pass began: no job can move (on-time ends
        // only, as with exact estimates).
        if self.freed.is_empty() {
            return;
        }
        // Every job is checked below, so releases before this pass are spent afterwards.
        let pass_began = self.freed.now();
        // Searches that failed since the plan last gained room, by width (see `Failed`).
        let failed = &mut self.failed;
        failed.clear();
        let slots = &mut self.pass_slots;
        slots.0.clear();
        // Where the previous search of the pass began in the plan (see
        // `Profile::earliest_before_counted`).
        let mut hint = 0;
        // Jobs checked at the same stamp (runs of them: a pass checks job after job while
        // nothing moves) ask the log the same question.
        let mut asked: Option<(u64, [Option<Released>; 2])> = None;
        for e in self.queue.iter_mut() {
            // Stamps never decrease along the queue (a pass stamps jobs in arrival order,
            // newcomers come last with the newest, a rebuild stamps all alike): from the
            // first job checked after the newest release on, no job has anything to see.
            // A pass after on-time ends stops at the last job the previous pass moved.
            if e.checked >= self.freed.now() {
                break;
            }
            let Some(start) = e.start else { continue };
            if start <= now {
                continue;
            }
            let since = e.checked;
            e.checked = self.freed.now();
            self.work += 1;
            let released = match asked {
                Some((stamp, answer)) if stamp == since => answer,
                _ => {
                    let answer = self.freed.since(since);
                    asked = Some((since, answer));
                    answer
                }
            };
            let QueuedJob {
                units, estimate, ..
            } = e.job;
            let Some((lowest, before)) = search_range(&released, now, start, units, estimate)
            else {
                continue;
            };
            // Where a search that failed for a job as wide, no shorter and reserved no
            // sooner left off: every start it tried fails for this one too.
            let mut from = lowest;
            if let Some(f) = failed.get(units) {
                if f.covers(lowest, estimate, start, slots) {
                    from = f.before.max(lowest);
                    // Covered whole (most visits: 518 million of RICC's 627 million): the
                    // failure stays as it is. Put in its place with this job's estimate and
                    // start (no shorter, no sooner) it would cover no job of a shorter
                    // estimate or sooner start after this one; kept, it covers fewer jobs
                    // only where a slot freed since it reaches them, and RICC's run took
                    // 2–4 % less time (both bounds hold: the schedules are the same).
                    if from >= before {
                        continue;
                    }
                }
            }
            let mut scanned = 0;
            // An empty range (most covered jobs: the failure reached their start) needs
            // no call.
            let found = if from >= before {
                None
            } else {
                profile.earliest_before_counted(
                    from,
                    units,
                    estimate,
                    start,
                    before,
                    &mut scanned,
                    &mut hint,
                )
            };
            self.work = self.work.saturating_add(scanned);
            let Some((sooner, at)) = found else {
                failed.insert(
                    units,
                    Failed {
                        lowest,
                        before: before.max(from),
                        estimate,
                        reserved_at: start,
                        read: slots.0.len(),
                        first_freed: SimTime::NEVER,
                    },
                );
                continue;
            };
            // `at` is the step in force at `sooner`.
            profile.move_sooner(start, sooner, estimate, units, at, &mut self.scratch);
            self.work = self.work.saturating_add(profile.steps().len() as u64);
            e.start = Some(sooner);
            e.checked = self.freed.now() + 1;
            // Its old slot, where it no longer overlaps the new one, is free again. The most
            // units free there is left unbounded: measuring it cost more than the width
            // test it feeds saved (an old slot lies late in the plan, where room abounds).
            let (from, to) = ((sooner + estimate).max(start), start + estimate);
            self.freed.push_slot(from, to);
            slots.0.push(from);
            asked = None;
            self.by_start.push(sooner, e.seq);
            self.floors_valid = false;
        }
        self.freed.forget_through(pass_began);
    }

    /// Places the jobs that arrived since the last pass, in arrival order: they are the
    /// unplaced jobs at the back of the queue.
    fn place_newcomers(&mut self, now: SimTime) {
        let Some(profile) = self.profile.as_mut() else {
            return;
        };
        if self.queue.unplaced_mut().next().is_none() {
            return;
        }
        if self.floors_valid {
            self.floors.fit_to(self.queue.len());
        } else {
            self.floors.clear(self.queue.len());
            self.floors_valid = true;
        }
        let stamp = self.freed.now();
        let mut placed = 0u64;
        for e in self.queue.unplaced_mut() {
            let s = place(profile, &mut self.floors, now, &e.job);
            e.start = Some(s);
            e.checked = stamp;
            self.by_start.push(s, e.seq);
            placed += 1;
        }
        let steps = profile.steps().len() as u64;
        self.work = self.work.saturating_add(placed * steps);
    }

    /// Brings the plan up to date for a pass at `site.now` without starting anything.
    fn plan(&mut self, site: &SiteView) {
        let unexplained = site.plan_invalidated && !self.released_since_pass;
        if self.profile.is_none() || self.rebuild_pending || unexplained {
            self.rebuild(site);
        } else if self.compress_pending {
            self.compress(site.now);
        }
        self.place_newcomers(site.now);
        self.released_since_pass = false;
    }

    /// Starts every job whose reservation has come and whose units are free. A job due now
    /// that does not fit yet waits for the rest of this instant: under the per-event orders
    /// (cqsim, pyss) a pass runs after each completion, while the plan already counts every
    /// job predicted to end now as free.
    fn start_due(&mut self, site: &SiteView, starts: &mut Vec<JobIdx>) {
        let mut free = site.free;
        let mut later = Vec::new();
        while let Some((start, seq)) = self.by_start.pop_due(site.now, &self.queue) {
            let Some(e) = self.queue.get(seq) else {
                continue;
            };
            if e.job.units > free {
                later.push((start, seq));
                continue;
            }
            free -= e.job.units;
            starts.push(e.job.idx);
            self.queue.remove(seq);
        }
        for (start, seq) in later {
            self.by_start.push(start, seq);
        }
        self.by_start.settle(&self.queue);
        if let Some(profile) = self.profile.as_mut() {
            profile.forget_before(site.now);
        }
    }

    /// True when the next pass changes the kept plan beyond placing newcomers: a rebuild,
    /// or a compression with room given back (after on-time ends alone it moves nothing).
    fn plan_pending(&self, site: &SiteView) -> bool {
        self.profile.is_none()
            || self.rebuild_pending
            || (self.compress_pending && !self.freed.is_empty())
            || (site.plan_invalidated && !self.released_since_pass)
    }

    /// A copy to plan ahead on (the approximate-wait queries), without the shape table.
    fn scratch(&self) -> Conservative {
        Conservative {
            queue: self.queue.clone(),
            by_start: StartHeap::default(),
            profile: self.profile.clone(),
            floors: Floors::default(),
            floors_valid: false,
            failed: FailedTable::default(),
            pass_slots: PassSlots::default(),
            freed: self.freed.clone(),
            arrivals: self.arrivals,
            compress_pending: self.compress_pending,
            rebuild_pending: self.rebuild_pending,
            released_since_pass: self.released_since_pass,
            work: self.work,
            scratch: Profile::default(),
            on_nodes: None,
        }
    }
}

/// The plan on nodes, made at the first pass of a node-typed site.
pub(super) fn on_nodes(
    slot: &mut Option<Box<NodeConservative>>,
    compress: bool,
) -> &mut NodeConservative {
    slot.get_or_insert_with(|| Box::new(NodeConservative::new(compress)))
}

impl LocalPolicy for Conservative {
    fn name(&self) -> &'static str {
        "conservative"
    }

    fn enqueue(&mut self, job: QueuedJob, _site: &SiteView) {
        if let Some(n) = self.on_nodes.as_mut() {
            return n.enqueue(job);
        }
        self.queue.push(Entry::new(self.arrivals, job));
        self.arrivals += 1;
    }

    fn enqueue_front(&mut self, job: QueuedJob, site: &SiteView) {
        match self.on_nodes.as_mut() {
            Some(n) => n.enqueue_front(job),
            None => self.enqueue(job, site),
        }
    }

    fn schedule(&mut self, site: &SiteView, starts: &mut Vec<JobIdx>) {
        if let Some(nodes) = &site.nodes {
            // Jobs are queued through a view without the nodes: the first pass on a
            // node-typed site takes them over, in arrival order.
            let queued = std::mem::take(&mut self.queue);
            let plan = on_nodes(&mut self.on_nodes, true);
            queued.iter().for_each(|e| plan.enqueue(e.job));
            return plan.schedule(site, nodes, starts);
        }
        self.plan(site);
        self.start_due(site, starts);
    }

    fn queue_len(&self) -> usize {
        match &self.on_nodes {
            Some(n) => n.queue_len(),
            None => self.queue.len(),
        }
    }

    fn plan_work(&self) -> u64 {
        self.work + self.on_nodes.as_ref().map_or(0, |n| n.plan_work())
    }

    fn places_on_nodes(&self) -> bool {
        true
    }

    fn chosen_nodes(&mut self, idx: JobIdx, out: &mut Vec<crate::model::Share>) -> bool {
        self.on_nodes
            .as_mut()
            .is_some_and(|n| n.chosen_nodes(idx, out))
    }

    fn released_nodes(&mut self, predicted_end: SimTime, shares: &[crate::model::Share]) {
        if let Some(n) = self.on_nodes.as_mut() {
            n.released_nodes(predicted_end, shares);
        }
    }

    /// Drops the job and gives its reservation back; the next pass compresses.
    fn withdraw(&mut self, job: JobIdx) -> bool {
        if let Some(n) = self.on_nodes.as_mut() {
            return n.withdraw(job);
        }
        let Some(e) = self
            .queue
            .find_job(job)
            .and_then(|seq| self.queue.remove(seq))
        else {
            return false;
        };
        self.by_start.settle(&self.queue);
        if let Some(start) = e.start {
            if let Some(profile) = self.profile.as_mut() {
                let end = start + e.job.estimate;
                profile.release(start, e.job.estimate, e.job.units);
                self.freed.push(start, end, profile.max_free(start, end));
                self.floors_valid = false;
            }
        }
        self.compress_pending = true;
        self.released_since_pass = true;
        true
    }

    fn released(&mut self, now: SimTime, units: u32, predicted_end: SimTime) {
        if let Some(n) = self.on_nodes.as_mut() {
            return n.released(now);
        }
        self.compress_pending = true;
        if predicted_end <= now {
            return;
        }
        if let Some(profile) = self.profile.as_mut() {
            profile.release(now, predicted_end - now, units);
            self.freed
                .push(now, predicted_end, profile.max_free(now, predicted_end));
            self.floors_valid = false;
        }
        self.released_since_pass = true;
    }

    fn replan(&mut self) {
        if let Some(n) = self.on_nodes.as_mut() {
            n.replan();
        }
        self.rebuild_pending = true;
    }

    fn queued(&self) -> Vec<QueuedJob> {
        match &self.on_nodes {
            Some(n) => n.queued(),
            None => self.queue.iter().map(|e| e.job).collect(),
        }
    }

    fn projection(&self, site: &SiteView) -> Option<super::Projection> {
        let (profile, barrier) = self.projected_profile(site);
        let up_to_date = !self.plan_pending(site) && self.queue.iter().all(|e| e.start.is_some());
        // The kept plan's soonest reservation; after pending changes, no earlier than now.
        let first_start = if up_to_date {
            self.by_start
                .first()
                .map_or(SimTime::NEVER, |(start, _)| start)
        } else {
            site.now
        };
        Some(super::Projection {
            profile,
            barrier,
            first_start,
            placed: Vec::new(),
        })
    }

    /// The plan as the next pass will make it: the kept plan, compressed if a job ended
    /// since, with the newcomers placed after it (on a copy; nothing here changes).
    fn projected_profile(&self, site: &SiteView) -> (Profile, SimTime) {
        if let (Some(kept), false) = (&self.profile, self.plan_pending(site)) {
            // Only newcomers to place: the widths' floors, not the shape table (copying
            // up to 512 KiB for every approximate-wait query costs more than it saves).
            let mut profile = kept.clone();
            let mut floors = if self.floors_valid {
                self.floors.widths_only()
            } else {
                Floors::default()
            };
            for e in self.queue.iter().filter(|e| e.start.is_none()) {
                place(&mut profile, &mut floors, site.now, &e.job);
            }
            return (profile, site.now);
        }
        let mut copy = self.scratch();
        copy.plan(site);
        (
            copy.profile.unwrap_or_else(|| site.planning_profile()),
            site.now,
        )
    }
}

#[cfg(test)]
mod tests;
