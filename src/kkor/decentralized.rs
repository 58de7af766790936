//! KKOR §2.3: decentralized scheduling by autonomous clusters with cooperation
//! coefficients; `local` is the same algorithm with migration switched off.
//!
//! **Local jobs (§2.3.1).** Cluster k's last batch was computed at t0 and its schedule ended
//! at t1; t_max is the current makespan (t1, grown by accepted foreign jobs). A job released
//! before t_max is placed by conservative backfilling — the earliest start in the plan that
//! delays no scheduled job (a [`Profile`] reservation never moves) — if it ends by t_max.
//! Otherwise it is deferred to the next batch, computed at t_max (at once when the cluster is
//! idle); if t_max + p·s_k > d it is first offered to the other clusters. At t_max the
//! deferred jobs are sorted EDD and list-scheduled greedily: at time t with m' processors
//! free, the first job needing ≤ m' starts at t; when none fits, t advances to the next end
//! of a scheduled job, t', and every job that has just become late (t + p·s_k ≤ d <
//! t' + p·s_k) is offered to the other clusters before the rest continue locally.
//!
//! **Migration requests (§2.3.2).** Every "may refuse" is exercised (organizations are
//! selfish within the agreement). Receiver l refuses sender k's job J when
//! 1. k's exported surface in its current batch already exceeds L_k = c_k·(t1−t0)·m_k,
//! 2. accepting J would take l's accepted foreign surface in its current batch over
//!    L_l = c_l·(t1−t0)·m_l (l is obliged to accept up to L_l in total, no further; with
//!    [`ReceiverLimit::UntilReached`]: l has already accepted L_l or more), or
//! 3. l's earliest strip of q processors × p·s_l that delays no scheduled job exists only at
//!    the end of its schedule and ends more than c_l·(t1−t0) after max(t1, now) (the batch's
//!    makespan grows, cumulatively, by more than the allowance);
//!
//! otherwise it answers with that strip. The sender migrates J to the answer with the
//! earliest start among those ending by J's due date (ties to the lower index); the strip is
//! reserved, the receiver's t_max grows if needed, both counters grow by q·p·s_l ("surface").
//! Surfaces are processor-ticks on the receiver. A batch's counters start at zero when it is
//! computed; while a sender computes its batch, its L is still the last one it broadcast.
//! A cluster that has not run a batch yet has L = 0.
//!
//! **Latency.** With a latency δ > 0 an offered strip starts no earlier than now + 3δ
//! (request, answer, transfer); answers are computed on the receivers' state at the request
//! (the simulation is sequential, so an offered strip cannot be taken meanwhile).

use super::{
    edd_sort, release_order, t, BatchWindow, Cluster, KkorJob, KkorParams, Offers, Placement, Plan,
    ReceiverLimit,
};
use crate::policy::Profile;
use crate::time::SimTime;

/// One cluster's state.
struct Org {
    profile: Profile,
    t0: i64,
    t1: i64,
    t_max: i64,
    /// L_k of the current batch (processor-ticks).
    limit: i64,
    /// c_k·(t1 − t0): how far the batch's makespan may be pushed (ticks).
    allowance: i64,
    accepted: i64,
    exported: i64,
    batch: u32,
    deferred: Vec<usize>,
    batch_due: Option<i64>,
}

impl Org {
    fn window(&self, cluster: usize) -> BatchWindow {
        BatchWindow {
            cluster,
            batch: self.batch,
            t0: self.t0,
            t1: self.t1,
            limit: self.limit,
            accepted: self.accepted,
            exported: self.exported,
        }
    }
}

struct Grid<'a> {
    clusters: &'a [Cluster],
    jobs: &'a [KkorJob],
    coefficients: Vec<f64>,
    latency: i64,
    receiver_limit: ReceiverLimit,
    migrate: bool,
    orgs: Vec<Org>,
    plan: Plan,
    windows: Vec<BatchWindow>,
    offers: Offers,
}

/// The decentralized algorithm (`migrate`) or local scheduling (no migration) over the
/// whole job stream: placements per job and every local batch window.
pub(crate) fn schedule(
    clusters: &[Cluster],
    jobs: &[KkorJob],
    params: &KkorParams,
    migrate: bool,
) -> Result<(Vec<Placement>, Vec<BatchWindow>, Offers), String> {
    let orgs = clusters
        .iter()
        .map(|c| Org {
            profile: Profile::empty(SimTime::ZERO, c.procs),
            t0: 0,
            t1: 0,
            t_max: 0,
            limit: 0,
            allowance: 0,
            accepted: 0,
            exported: 0,
            batch: 0,
            deferred: Vec::new(),
            batch_due: None,
        })
        .collect();
    let mut g = Grid {
        clusters,
        jobs,
        coefficients: (0..clusters.len()).map(|k| params.coefficient(k)).collect(),
        latency: params.latency,
        receiver_limit: params.receiver_limit,
        migrate,
        orgs,
        plan: Plan::new(jobs.len()),
        windows: Vec::new(),
        offers: Offers::default(),
    };
    let order = release_order(jobs);
    let mut next = 0;
    loop {
        // Arrivals at an instant come before the batches due at it.
        let batch = (g.orgs.iter().enumerate())
            .filter_map(|(k, o)| o.batch_due.map(|tb| (tb, k)))
            .min();
        let arrival = order.get(next).copied();
        match (arrival, batch) {
            (Some(j), None) => {
                next += 1;
                g.arrive(j)?;
            }
            (Some(j), Some((tb, _))) if jobs[j].release <= tb => {
                next += 1;
                g.arrive(j)?;
            }
            (_, Some((tb, k))) => g.run_batch(k, tb)?,
            (None, None) => break,
        }
    }
    for k in 0..clusters.len() {
        let w = g.orgs[k].window(k);
        g.log(w);
    }
    Ok((g.plan.finish()?, g.windows, g.offers))
}

impl Grid<'_> {
    fn duration(&self, j: usize, k: usize) -> i64 {
        self.clusters[k].duration(self.jobs[j].length)
    }

    /// Keeps a finished batch window (the empty window before a cluster's first batch only
    /// when something happened in it).
    fn log(&mut self, w: BatchWindow) {
        if w.batch > 0 || w.accepted > 0 || w.exported > 0 {
            self.windows.push(w);
        }
    }

    /// Job `j` is released on its own cluster.
    fn arrive(&mut self, j: usize) -> Result<(), String> {
        let jobs = self.jobs;
        let job = &jobs[j];
        let (k, now) = (job.org, job.release);
        let dur = self.duration(j, k);
        let o = &mut self.orgs[k];
        o.profile.forget_before(t(now));
        if o.t_max > now {
            let s = o.profile.earliest_start(t(now), job.procs, t(dur));
            if let Some(s) = s.filter(|s| s.0 + dur <= o.t_max) {
                o.profile.reserve(s, t(dur), job.procs);
                let p = Placement {
                    cluster: k,
                    start: s.0,
                    end: s.0 + dur,
                    migrated: false,
                    batch: o.batch,
                };
                return self.plan.place(j, p);
            }
        }
        let at = o.t_max.max(now);
        if at + dur > job.due && self.try_migrate(j, now)? {
            return Ok(());
        }
        let o = &mut self.orgs[k];
        o.deferred.push(j);
        o.batch_due.get_or_insert(at);
        Ok(())
    }

    /// Cluster `k`'s next batch at `now` (its t_max, or later if t_max grew meanwhile).
    fn run_batch(&mut self, k: usize, now: i64) -> Result<(), String> {
        if self.orgs[k].t_max > now {
            self.orgs[k].batch_due = Some(self.orgs[k].t_max);
            return Ok(());
        }
        let old = self.orgs[k].window(k);
        self.log(old);
        let o = &mut self.orgs[k];
        o.batch += 1;
        o.accepted = 0;
        o.exported = 0;
        o.batch_due = None;
        o.profile.forget_before(t(now));
        let mut list = std::mem::take(&mut o.deferred);
        edd_sort(self.jobs, &mut list);
        let end = self.list_schedule(k, now, list)?;
        // Local scheduling has no agreement: its windows carry no limits.
        let c = if self.migrate {
            self.coefficients[k]
        } else {
            0.0
        };
        let m = self.clusters[k].procs;
        let o = &mut self.orgs[k];
        o.t0 = now;
        o.t1 = end;
        o.t_max = o.t_max.max(end);
        let len = (end - now) as f64;
        o.allowance = libm::floor(c * len) as i64;
        o.limit = libm::floor(c * len * f64::from(m)) as i64;
        Ok(())
    }

    /// Greedy EDD list scheduling of `list` on cluster `k` from `now`; jobs that become late
    /// while waiting are offered to the others. Returns the end of the last local job.
    fn list_schedule(&mut self, k: usize, now: i64, mut list: Vec<usize>) -> Result<i64, String> {
        let mut at = now;
        let mut end = now;
        let batch = self.orgs[k].batch;
        while !list.is_empty() {
            let free = self.orgs[k].profile.free_at(t(at));
            let fits = |&j: &usize| {
                let (q, d) = (self.jobs[j].procs, t(self.duration(j, k)));
                q <= free && self.orgs[k].profile.earliest_start(t(at), q, d) == Some(t(at))
            };
            if let Some(pos) = list.iter().position(fits) {
                let j = list.remove(pos);
                let dur = self.duration(j, k);
                self.orgs[k]
                    .profile
                    .reserve(t(at), t(dur), self.jobs[j].procs);
                end = end.max(at + dur);
                let p = Placement {
                    cluster: k,
                    start: at,
                    end: at + dur,
                    migrated: false,
                    batch,
                };
                self.plan.place(j, p)?;
                continue;
            }
            let times = self.orgs[k].profile.times();
            let Some(&next) = times.get(times.partition_point(|&s| s.0 <= at)) else {
                return Err(format!(
                    "cluster {k}: {} deferred job(s) fit nowhere in its schedule",
                    list.len()
                ));
            };
            if self.migrate {
                let mut i = 0;
                while i < list.len() {
                    let j = list[i];
                    let (dur, due) = (self.duration(j, k), self.jobs[j].due);
                    if at + dur <= due && next.0 + dur > due && self.try_migrate(j, now)? {
                        list.remove(i);
                    } else {
                        i += 1;
                    }
                }
            }
            at = next.0;
        }
        Ok(end)
    }

    /// Offers job `j` to every other cluster at `now`; migrates it to the earliest strip
    /// that ends by its due date. Returns whether it moved.
    fn try_migrate(&mut self, j: usize, now: i64) -> Result<bool, String> {
        let jobs = self.jobs;
        let job = &jobs[j];
        let from = job.org;
        // Rule 1: anyone may refuse the jobs of an organization that exported more than L_k.
        if !self.migrate {
            return Ok(false);
        }
        self.offers.offered += 1;
        if self.orgs[from].exported > self.orgs[from].limit {
            self.offers.refused_sender_limit += 1;
            return Ok(false);
        }
        let not_before = now + 3 * self.latency;
        let mut best: Option<(i64, usize)> = None;
        for l in (0..self.orgs.len()).filter(|&l| l != from) {
            if job.procs > self.clusters[l].procs {
                continue;
            }
            let dur = self.duration(j, l);
            let o = &self.orgs[l];
            // Rule 2: obliged to accept up to L_l in all, and no further.
            let over = match self.receiver_limit {
                ReceiverLimit::Within => o.accepted + i64::from(job.procs) * dur > o.limit,
                ReceiverLimit::UntilReached => o.accepted >= o.limit,
            };
            if over {
                self.offers.refused_receiver_limit += 1;
                continue;
            }
            let Some(s) = o.profile.earliest_start(t(not_before), job.procs, t(dur)) else {
                continue;
            };
            let e = s.0 + dur;
            // Rule 3: a strip only at the end may not push the makespan past the allowance.
            if e > o.t_max && e - o.t1.max(now) > o.allowance {
                self.offers.refused_makespan += 1;
                continue;
            }
            if e > job.due {
                self.offers.too_late += 1;
            } else if best.is_none_or(|(bs, _)| s.0 < bs) {
                best = Some((s.0, l));
            }
        }
        let Some((s, l)) = best else {
            return Ok(false);
        };
        let dur = self.duration(j, l);
        let surface = i64::from(job.procs) * dur;
        let host = &mut self.orgs[l];
        host.profile.reserve(t(s), t(dur), job.procs);
        host.t_max = host.t_max.max(s + dur);
        host.accepted += surface;
        let p = Placement {
            cluster: l,
            start: s,
            end: s + dur,
            migrated: true,
            batch: host.batch,
        };
        self.orgs[from].exported += surface;
        self.offers.migrated += 1;
        self.plan.place(j, p)?;
        Ok(true)
    }
}
