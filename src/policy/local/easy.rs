use super::nodefit::{node_shadow, window_bound, NodeShadow, NodesView, Release};
use super::width_queue::{Known, Scan};
use super::{HeadReservation, LocalPolicy, NowFit, PassNote, QueuedJob, SiteView, WidthQueue};
use crate::model::{JobIdx, Share};
use crate::policy::Profile;
use crate::time::SimTime;
use std::ops::Bound;

/// FCFS with EASY backfilling, as in Mu'alem & Feitelson (2001) and SOB's "FCFS+BF".
///
/// A pass starts jobs from the head while they fit. When the head does not fit it gets one
/// reservation at its *shadow time*: the earliest predicted end (start + estimate) of running
/// jobs at which enough units are free. The units free at the shadow time beyond the head's
/// need are the *extra* units. A later job (in arrival order) starts now if it fits now and
/// either ends by the shadow time or uses no more than the extra units (which it then
/// consumes). Running jobs are predicted by their estimates, never by their real runtimes.
/// On a site holding advance reservations the same rule runs on the planning profile (see
/// [`Easy::backfill_around_reservations`]). On a site with node types the same rule runs on
/// nodes (see [`Easy::schedule_on_nodes`]).
#[derive(Default)]
pub struct Easy {
    queue: WidthQueue,
    /// Predicted releases of jobs started in the current pass (not yet in the site view).
    started_now: Vec<(SimTime, u32)>,
    /// The last pass, for the step-by-step view.
    last: PassNote,
    /// What the last pass saw when it started nothing, so the next one can skip the jobs
    /// it already turned down (see [`Memo`]).
    memo: Option<Memo>,
    /// On a node-typed site: the jobs started from the head in the current pass, as
    /// (predicted end, processors, first share, shares) into `started_shares`.
    started_on_nodes: Vec<(SimTime, u32, usize, usize)>,
    started_shares: Vec<Share>,
    /// [`Memo`]'s counterpart on nodes.
    node_memo: Option<NodeMemo>,
    /// The head's reservation on nodes after the last pass ([`Kept`]).
    kept: Option<Kept>,
    /// The last head's [`window_bound`] under maintenance windows: (head, estimate, bound),
    /// the same until the clock passes it.
    window_bound: Option<(JobIdx, SimTime, SimTime)>,
}

/// On a node-typed site, the state after a pass that started no job and left a blocked
/// head: the same argument as [`Memo`]'s, with the pool's version standing for the free
/// nodes (any start or end changes it) and the nodes at the shadow ([`Kept`]) for the
/// extra units.
#[derive(Clone, Debug)]
struct NodeMemo {
    version: u64,
    running: usize,
    head: JobIdx,
    seen: usize,
}

/// The head's reservation on nodes as the last pass left it (with the shares of the jobs
/// it backfilled past the shadow taken out): [`NodeMemo`]'s reservation, and the start
/// of the next pass's, for any head of units only ([`NodeShadow::again`]) while `exact`, that is
/// while its nodes are still those free at its release instant: a job predicted to end
/// after it that ends gives its nodes back there too (`released_nodes`), a node that goes
/// down or comes back leaves or rejoins them (`node_changed`); a job that outlives its
/// estimate ends that (`replan`). A pass that walked back from it skips the releases up to it
/// (RICC with lanl05-wbl: 614 per pass, 257 million in all).
#[derive(Clone, Debug)]
struct Kept {
    head: JobIdx,
    exact: bool,
    reservation: NodeShadow,
}

/// The state after a pass that started no job. If the next pass sees the same running set
/// (no completion: the same free units and running count; no expiry: the plan is valid),
/// no reservation and the same head, then the head still does not fit, the shadow time and
/// extra units are the same, and every job the last pass turned down is turned down again
/// (time only moved on, so fewer jobs end by the shadow): only the jobs queued since need
/// a look. This keeps a long queue from being rescanned at every arrival.
#[derive(Clone, Copy, Debug)]
struct Memo {
    free: u32,
    running: usize,
    head: JobIdx,
    seen: usize,
    shadow: SimTime,
    extra: u32,
}

impl Easy {
    /// Shadow time and extra units for a head needing `need` units with `free` free now.
    fn shadow(&self, site: &SiteView, free: u32, need: u32) -> (SimTime, u32) {
        // Merge the running jobs (ordered by predicted end) with those started this pass.
        let mut running = site
            .running
            .iter()
            .map(|(&(end, _), &u)| (end, u))
            .peekable();
        let mut fresh = self.started_now.iter().copied().peekable();
        let mut avail = free;
        let mut shadow: Option<SimTime> = None;
        loop {
            let next = match (running.peek(), fresh.peek()) {
                (Some(a), Some(b)) => {
                    if a.0 <= b.0 {
                        running.next()
                    } else {
                        fresh.next()
                    }
                }
                (Some(_), None) => running.next(),
                (None, Some(_)) => fresh.next(),
                (None, None) => None,
            };
            let Some((end, units)) = next else { break };
            if let Some(s) = shadow {
                if end > s {
                    break;
                }
            }
            avail += units;
            if shadow.is_none() && avail >= need {
                // Keep adding releases at the same instant: they are free at the shadow too.
                shadow = Some(end.max(site.now));
            }
        }
        match shadow {
            Some(s) => (s, avail - need),
            // Cannot happen for a job that fits the site; plan as if never.
            None => (SimTime::NEVER, 0),
        }
    }
}

impl Easy {
    fn memo_holds(&self, memo: &Memo, site: &SiteView) -> bool {
        memo.free == site.free
            && memo.running == site.running.len()
            && !site.plan_invalidated
            && site.reservations.is_empty()
            && self.queue.first().map(|j| j.idx) == Some(memo.head)
            && memo.seen <= self.queue.end()
    }

    /// After a pass: remember it if it started nothing and left a blocked head.
    fn remember(&mut self, site: &SiteView, started: usize) {
        self.memo = match (started, self.last.reservation, self.queue.first()) {
            (0, Some(r), Some(head)) if site.reservations.is_empty() => Some(Memo {
                free: site.free,
                running: site.running.len(),
                head: head.idx,
                seen: self.queue.end(),
                shadow: r.shadow,
                extra: r.extra,
            }),
            _ => None,
        };
    }

    /// The pass when [`Memo`] holds: the old jobs are turned down again, the newcomers
    /// meet the same shadow time and extra units.
    fn backfill_newcomers(&mut self, site: &SiteView, memo: Memo, starts: &mut Vec<JobIdx>) {
        let (mut free, mut extra) = (site.free, memo.extra);
        let before = starts.len();
        let (mut from, mut taken) = (memo.seen, Vec::new());
        let window = memo.shadow - site.now;
        // One scan until a start ([`Scan`]): the calls before it ask the same units.
        let mut scan = Scan::default();
        while let Some(k) = self
            .queue
            .next_in(&mut scan, from, (free, extra, window), Known::NONE)
        {
            if free == 0 {
                break;
            }
            from = k + 1;
            let job = self.queue.at(k);
            let ends_in_time = site.now + job.estimate <= memo.shadow;
            if ends_in_time || job.units <= extra {
                free -= job.units;
                if !ends_in_time {
                    extra -= job.units;
                }
                starts.push(job.idx);
                taken.push(k);
                scan = Scan::default();
            }
        }
        self.last = PassNote {
            heads: 0,
            reservation: Some(HeadReservation {
                job: memo.head,
                shadow: memo.shadow,
                extra: memo.extra,
            }),
        };
        let started = starts.len() - before;
        self.queue.remove_at(&taken);
        if started == 0 {
            self.memo = Some(Memo {
                seen: self.queue.end(),
                ..memo
            });
        }
    }

    /// Mu'alem & Feitelson's rule: the shadow time from the running jobs' predicted ends;
    /// a later job starts if it fits now and ends by the shadow or uses only extra units.
    fn backfill(
        &mut self,
        site: &SiteView,
        mut free: u32,
        starts: &mut Vec<JobIdx>,
        taken: &mut Vec<usize>,
    ) {
        self.started_now.sort_unstable();
        let Some(&head) = self.queue.first() else {
            return;
        };
        let (shadow, mut extra) = self.shadow(site, free, head.units);
        self.last.reservation = Some(HeadReservation {
            job: head.idx,
            shadow,
            extra,
        });
        let mut from = self.queue.head() + 1;
        // A job qualifies when it ends by the shadow (estimate ≤ shadow − now) or fits the
        // extra units; the queue skips the others a block at a time.
        let window = shadow - site.now;
        // One scan until a start ([`Scan`]): the calls before it ask the same units.
        let mut scan = Scan::default();
        while let Some(k) = self
            .queue
            .next_in(&mut scan, from, (free, extra, window), Known::NONE)
        {
            if free == 0 {
                break;
            }
            from = k + 1;
            let job = self.queue.at(k);
            let ends_in_time = site.now + job.estimate <= shadow;
            if ends_in_time || job.units <= extra {
                free -= job.units;
                if !ends_in_time {
                    extra -= job.units;
                }
                starts.push(job.idx);
                taken.push(k);
                scan = Scan::default();
            }
        }
    }

    /// The same rule on a site holding advance reservations (SCJG §2), where the free units
    /// no longer only grow with time: the head's shadow time is its earliest start for its
    /// whole estimate in the planning profile (running jobs, this pass's starts and the
    /// reservations), and a later job starts now iff it fits that profile with the head's
    /// reservation in it. Without reservations the two rules start the same jobs.
    fn backfill_around_reservations(
        &mut self,
        site: &SiteView,
        mut fit: NowFit,
        starts: &mut Vec<JobIdx>,
        taken: &mut Vec<usize>,
    ) {
        let Some(&head) = self.queue.first() else {
            return;
        };
        let profile = fit.profile(site);
        let shadow = head_start(profile, site.now, &head);
        self.last.reservation = Some(HeadReservation {
            job: head.idx,
            shadow,
            extra: profile.free_at(shadow).saturating_sub(head.units),
        });
        if shadow != SimTime::NEVER {
            profile.reserve(shadow, head.estimate, head.units);
        }
        let mut from = self.queue.head() + 1;
        while let Some(k) = self.queue.next_within(from, fit.free()) {
            if fit.free() == 0 {
                break;
            }
            from = k + 1;
            let job = self.queue.at(k);
            if fit.fits(site, job.units, job.estimate) {
                fit.take(job.units, job.estimate);
                starts.push(job.idx);
                taken.push(k);
            }
        }
    }
}

impl Easy {
    /// EASY on a node-typed site (docs/nodes.md, "EASY on nodes"). Jobs start from the head
    /// while first-fit places them. A blocked head gets a reservation on nodes: its shadow
    /// time is the first predicted end of running jobs (this pass's starts included) at
    /// which, with every job ending by then having given its nodes back, first-fit places
    /// it. A later job (in arrival order) starts now iff first-fit places it now and either
    /// it ends by the shadow time (by its estimate) or first-fit still places the head at
    /// the shadow time on the nodes left with this job (and every job backfilled past the
    /// shadow before it) still holding its nodes. Node-typed sites hold no advance
    /// reservations (only SCJG's grid schemes make them, refused there).
    fn schedule_on_nodes(&mut self, site: &SiteView, nodes: &NodesView, starts: &mut Vec<JobIdx>) {
        self.memo = None;
        self.queue.fill_mems(|j| nodes.unit_mem_of(j));
        let mut fit = NowFit::new(site);
        let mut kept = self.kept.take();
        if let (Some(memo), Some(k)) = (self.node_memo.take(), &kept) {
            let holds = memo.version == nodes.pool.version()
                && memo.running == site.running.len()
                && k.head == memo.head
                && k.reservation.shadow >= site.now
                && site.reservations.is_empty()
                && self.queue.first().map(|j| j.idx) == Some(memo.head)
                && memo.seen <= self.queue.end();
            if holds {
                if let Some(k) = kept.take() {
                    self.last.heads = 0;
                    let kept = (k.reservation, k.exact);
                    return self.backfill_on_nodes(site, nodes, fit, memo.seen, kept, starts);
                }
            }
        }
        self.started_on_nodes.clear();
        self.started_shares.clear();
        let mut heads = Vec::new();
        for (pos, job) in self.queue.iter() {
            if !fit.fits_job(site, job) {
                break;
            }
            let at = self.started_shares.len();
            self.started_shares.extend_from_slice(fit.nodes.last());
            let end = site.now + job.estimate;
            self.started_on_nodes
                .push((end, job.units, at, fit.nodes.last().len()));
            fit.take_job(site, job);
            starts.push(job.idx);
            heads.push(pos);
        }
        self.queue.remove_at(&heads);
        self.last = PassNote {
            heads: heads.len(),
            reservation: None,
        };
        let Some(&head) = self.queue.first() else {
            return;
        };
        if fit.free() == 0 {
            return;
        }
        let want = (head.units, nodes.demand(head.idx), head.estimate);
        let not_before = match self.window_bound {
            Some((idx, est, bound))
                if idx == head.idx && est == head.estimate && site.now <= bound =>
            {
                bound
            }
            _ => {
                let bound = window_bound(nodes, site.now, want);
                self.window_bound = Some((head.idx, head.estimate, bound));
                bound
            }
        };
        self.started_on_nodes.sort_unstable_by_key(|s| s.0);
        let again = kept.and_then(|k| self.reservation_again(site, nodes, k, &head, not_before));
        let reservation = if let Some(r) = again {
            r
        } else {
            let fresh = self.started_on_nodes.iter().map(|&(end, units, at, n)| {
                (end, units, &self.started_shares[at..at + n]) as Release
            });
            let running = site.running.iter().map(|(&(end, idx), &units)| {
                (end, units, nodes.placements.of(idx as usize)) as Release
            });
            let releases = merge_by_end(running, fresh);
            node_shadow(
                nodes,
                fit.nodes.free(nodes),
                fit.free(),
                releases,
                (site.now, not_before),
                want,
            )
        };
        self.last.reservation = Some(HeadReservation {
            job: head.idx,
            shadow: reservation.shadow,
            extra: reservation.extra(head.units),
        });
        let from = self.queue.head() + 1;
        let started = starts.len();
        let kept = (reservation, true);
        self.backfill_on_nodes(site, nodes, fit, from, kept, starts);
        if starts.len() > started || !heads.is_empty() {
            self.node_memo = None;
        }
    }

    /// The head's reservation found from the last pass's ([`Kept`], [`NodeShadow::again`])
    /// when it is still exact; `None` otherwise, or when it cannot be.
    fn reservation_again(
        &self,
        site: &SiteView,
        nodes: &NodesView,
        k: Kept,
        head: &QueuedJob,
        not_before: SimTime,
    ) -> Option<NodeShadow> {
        if !k.exact {
            return None;
        }
        // The walk relies on the free units being the free cores (always so).
        let cores = nodes.pool.free().cores_free();
        if cores != u64::from(site.free) || not_before > site.now {
            return None;
        }
        let e = k.reservation.release;
        let fresh = self
            .started_on_nodes
            .iter()
            .map(|&(end, units, at, n)| (end, units, &self.started_shares[at..at + n]) as Release);
        let of = |(&(end, idx), &units): (&(SimTime, JobIdx), &u32)| {
            (end, units, nodes.placements.of(idx as usize)) as Release
        };
        let before = merge_by_end_desc(
            site.running.range(..=(e, JobIdx::MAX)).rev().map(of),
            fresh.clone().rev().filter(|r| r.0 <= e),
        );
        let later = (Bound::Excluded((e, JobIdx::MAX)), Bound::Unbounded);
        let after = merge_by_end(
            site.running.range(later).map(of),
            fresh.clone().filter(|r| r.0 > e),
        );
        let shape = (head.units, nodes.demand(head.idx));
        k.reservation
            .again(nodes, shape, site.now, fresh, before, after)
    }

    /// Backfills the queue from position `from` around the head's `reservation` on nodes
    /// (`exact` as [`Kept`]'s); a pass that starts nothing is remembered ([`NodeMemo`]),
    /// and the reservation is kept.
    fn backfill_on_nodes(
        &mut self,
        site: &SiteView,
        nodes: &NodesView,
        mut fit: NowFit,
        mut from: usize,
        (mut reservation, exact): (NodeShadow, bool),
        starts: &mut Vec<JobIdx>,
    ) {
        let Some(&head) = self.queue.first() else {
            return;
        };
        let want = (head.units, nodes.demand(head.idx));
        let shadow = reservation.shadow;
        let (mut taken, mut probe) = (Vec::new(), Vec::new());
        // A job held past the shadow takes its cores out of those free there, so it must
        // ask at most the cores free there beyond the head's (`extra`): the queue skips
        // the jobs that neither end by the shadow nor pass that test, a block at a time.
        let mut extra = reservation.extra(head.units);
        let window = shadow - site.now;
        // The queue also skips the jobs the pass knows the nodes lack memory for, and those
        // it knows delay the head: the tests below would refuse them one by one (nothing is
        // freed within a pass; a start forgets both).
        // The scan's masks hold until the pass starts a job ([`Scan`]).
        let mut scan = Scan::default();
        while let Some(k) = self.queue.next_in(
            &mut scan,
            from,
            (fit.free(), extra, window),
            reservation.known(&fit.nodes),
        ) {
            if fit.free() == 0 {
                break;
            }
            from = k + 1;
            let job = self.queue.at(k);
            let past = site.now + job.estimate > shadow;
            let asks = (job.units, nodes.demand(job.idx));
            if past && reservation.delays_head(nodes, asks.0, &asks.1) {
                continue;
            }
            if !fit.fits_job(site, &job) {
                continue;
            }
            if past {
                let shares = fit.nodes.last();
                if !reservation.keeps_head_for(nodes, want, asks, shares, &mut probe) {
                    continue;
                }
                extra -= job.units;
            }
            fit.take_job(site, &job);
            reservation.nodes_taken();
            scan = Scan::default();
            starts.push(job.idx);
            taken.push(k);
        }
        self.queue.remove_at(&taken);
        self.node_memo = match taken.is_empty() {
            true => Some(NodeMemo {
                version: nodes.pool.version(),
                running: site.running.len(),
                head: head.idx,
                seen: self.queue.end(),
            }),
            false => None,
        };
        // Backfills ending by the shadow change nothing there, and those past it were
        // taken out of it: still what is free at the release instant if that is not
        // before now (a job ending by a shadow now, yet after the instant, is not).
        let exact = exact && reservation.release >= site.now;
        self.kept = Some(Kept {
            head: head.idx,
            exact,
            reservation,
        });
    }
}

impl Easy {
    /// [`LocalPolicy::head_reservation`] on a node-typed site: the head's reservation on
    /// nodes as a pass would make it now ([`node_shadow`]), or `None` when first-fit places
    /// the head now.
    fn node_reservation(
        site: &SiteView,
        nodes: &NodesView,
        head: &QueuedJob,
    ) -> Option<HeadReservation> {
        if NowFit::new(site).fits_job(site, head) {
            return None;
        }
        let want = (head.units, nodes.demand(head.idx), head.estimate);
        let releases = site.running.iter().map(|(&(end, idx), &units)| {
            (end, units, nodes.placements.of(idx as usize)) as Release
        });
        let free = nodes.pool.free();
        let not_before = window_bound(nodes, site.now, want);
        let reservation = node_shadow(
            nodes,
            free,
            site.free,
            releases,
            (site.now, not_before),
            want,
        );
        Some(HeadReservation {
            job: head.idx,
            shadow: reservation.shadow,
            extra: reservation.extra(head.units),
        })
    }
}

/// Two streams of releases, each in order of predicted end, merged in that order (the
/// first stream's first at equal ends).
fn merge_by_end<'a>(
    a: impl Iterator<Item = Release<'a>>,
    b: impl Iterator<Item = Release<'a>>,
) -> impl Iterator<Item = Release<'a>> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if x.0 > y.0 => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}

/// [`merge_by_end`] for two streams each in reverse order of predicted end.
fn merge_by_end_desc<'a>(
    a: impl Iterator<Item = Release<'a>>,
    b: impl Iterator<Item = Release<'a>>,
) -> impl Iterator<Item = Release<'a>> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if x.0 < y.0 => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}

/// The head's earliest start for its whole estimate in `profile` (NEVER if none).
fn head_start(profile: &Profile, now: SimTime, head: &QueuedJob) -> SimTime {
    profile
        .earliest_start(now, head.units, head.estimate)
        .unwrap_or(SimTime::NEVER)
}

impl LocalPolicy for Easy {
    fn name(&self) -> &'static str {
        "easy"
    }

    fn enqueue(&mut self, job: QueuedJob, _site: &SiteView) {
        self.queue.push(job);
    }

    /// A job predicted to end after the kept reservation's release instant held `shares`
    /// there: they are free there now. (One predicted to end by then gave them back there
    /// already.)
    fn released_nodes(&mut self, predicted_end: SimTime, shares: &[Share]) {
        if let Some(k) = self.kept.as_mut() {
            if k.exact && predicted_end > k.reservation.release {
                k.reservation.give_back(shares);
            }
        }
    }

    /// A node went down (its jobs killed, so all of it is free at the kept instant) or came
    /// back: it is gone from what is free there, or back in whole. (If the kept nodes do not
    /// show it so, they are no longer exact.)
    fn node_changed(&mut self, whole: Share, down: bool) {
        if let Some(k) = self.kept.as_mut() {
            k.exact = k.exact && k.reservation.node_changed(whole, down);
        }
    }

    /// A job's predicted end moved (it outlived its estimate): the kept nodes are no
    /// longer exact ([`NodeMemo`] still holds as before).
    fn replan(&mut self) {
        if let Some(k) = self.kept.as_mut() {
            k.exact = false;
        }
    }

    fn enqueue_front(&mut self, job: QueuedJob, _site: &SiteView) {
        // The head changes: what the last pass remembered of the queue is void.
        self.memo = None;
        self.node_memo = None;
        self.queue.push_front(job);
    }

    fn schedule(&mut self, site: &SiteView, starts: &mut Vec<JobIdx>) {
        if let Some(nodes) = &site.nodes {
            return self.schedule_on_nodes(site, nodes, starts);
        }
        if let Some(memo) = self.memo.take() {
            if self.memo_holds(&memo, site) {
                return self.backfill_newcomers(site, memo, starts);
            }
        }
        let mut fit = NowFit::new(site);
        self.started_now.clear();
        // 1. Start from the head while it fits.
        let mut heads = Vec::new();
        for (pos, job) in self.queue.iter() {
            if !fit.fits(site, job.units, job.estimate) {
                break;
            }
            fit.take(job.units, job.estimate);
            starts.push(job.idx);
            self.started_now.push((site.now + job.estimate, job.units));
            heads.push(pos);
        }
        self.queue.remove_at(&heads);
        let heads = heads.len();
        self.last = PassNote {
            heads,
            reservation: None,
        };
        if self.queue.is_empty() || fit.free() == 0 {
            return;
        }
        // 2. Reserve for the head at its shadow time, then backfill behind it.
        let before = starts.len();
        let mut taken = Vec::new();
        if fit.has_reservations() {
            self.backfill_around_reservations(site, fit, starts, &mut taken);
        } else {
            self.backfill(site, fit.free(), starts, &mut taken);
        }
        self.queue.remove_at(&taken);
        self.remember(site, heads + starts.len() - before);
    }

    fn queue_len(&self) -> usize {
        self.queue.len()
    }

    fn queued(&self) -> Vec<QueuedJob> {
        self.queue.to_vec()
    }

    fn projects_in_arrival_order(&self) -> bool {
        true
    }

    fn withdraw(&mut self, job: JobIdx) -> bool {
        // Positions may move: the memo's are forgotten.
        self.memo = None;
        self.node_memo = None;
        self.queue.withdraw(job)
    }

    fn last_pass(&self) -> Option<PassNote> {
        Some(self.last)
    }

    fn places_on_nodes(&self) -> bool {
        true
    }

    /// EASY guarantees only its head: the planning profile with the head at its shadow
    /// time (or now, when it fits now and starts at the next pass).
    fn guarded_profile(&self, site: &SiteView) -> Profile {
        let mut profile = site.planning_profile();
        if let Some(head) = self.queue.first() {
            let start = head_start(&profile, site.now, head);
            if start != SimTime::NEVER {
                profile.reserve(start, head.estimate, head.units);
            }
        }
        profile
    }

    fn head_reservation(&self, site: &SiteView) -> Option<HeadReservation> {
        let head = self.queue.first()?;
        if !site.reservations.is_empty() {
            let profile = site.planning_profile();
            let shadow = head_start(&profile, site.now, head);
            if shadow == site.now {
                return None;
            }
            return Some(HeadReservation {
                job: head.idx,
                shadow,
                extra: profile.free_at(shadow).saturating_sub(head.units),
            });
        }
        if let Some(nodes) = &site.nodes {
            return Easy::node_reservation(site, nodes, head);
        }
        if head.units <= site.free {
            // The head fits now: it starts at the next pass and needs no reservation.
            return None;
        }
        // A fresh computation from the site alone (nothing started in a pass under way).
        let (shadow, extra) = Easy::default().shadow(site, site.free, head.units);
        Some(HeadReservation {
            job: head.idx,
            shadow,
            extra,
        })
    }
}
