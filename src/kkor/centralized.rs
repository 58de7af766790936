//! KKOR §2.2: the centralized grid scheduler.
//!
//! Every job goes to one grid scheduler that works in batches: the current batch is
//! scheduled as soon as it holds S jobs (`batch_jobs`) or L time (`batch_length`) has passed
//! since its first job's release. A batch is ordered by earliest due date (EDD; ties by
//! release, then input order) and placed by greedy list scheduling over the free slots that
//! every cluster reports: a slot (t', t'', m) is one step of the cluster's plan (a
//! [`Profile`]), m processors free from t' to t''.
//!
//! The list scheduling, as the paper writes it: take the slots by increasing start (ties by
//! cluster index); for the slot ψ_kI choose the first job of the EDD queue that needs no more
//! than the free processors of this slot *and of every following slot of the same cluster*
//! for its whole duration p·s_k from t'_kI; start it at t'_kI and try the same slot again
//! (now with fewer processors free). When no job fits, go on to the cluster's next slot with
//! *more* free processors than this one (a per-cluster rule: processors of different
//! clusters do not compare). One addition, so that no job is ever left out: a cluster's last
//! slot, open-ended with all m_k processors free, is always tried; a job that fits nowhere
//! there fits no cluster at all.
//!
//! Reading of "l ≥ L": the paper defines l as the time between the first and the last job of
//! the batch; a batch would then wait for a next arrival forever. We close it when the time
//! since its first release reaches L (a timer), or at the arrival that makes l ≥ L.

use super::{
    edd_sort, release_order, t, BatchWindow, Cluster, KkorJob, KkorParams, Placement, Plan,
};
use crate::policy::Profile;
use crate::time::SimTime;

/// The free slots (t', t'', m) of a plan from `now` on; t'' is `None` for the last, open
/// slot. These are what a cluster reports to the grid scheduler.
pub fn free_slots(profile: &Profile, now: SimTime) -> Vec<(i64, Option<i64>, u32)> {
    let (times, frees) = (profile.times(), profile.frees());
    let first = times.partition_point(|&s| s <= now).saturating_sub(1);
    (first..times.len())
        .map(|i| {
            let start = times[i].max(now).0;
            let end = times.get(i + 1).map(|s| s.0);
            (start, end, frees[i])
        })
        .collect()
}

/// The cluster's next slot at or after `cursor` worth trying: the step in force at `cursor`
/// or a later one, with more free processors than `threshold` (the last slot always counts).
/// Returns (start, free, is_last).
fn candidate(profile: &Profile, cursor: SimTime, threshold: Option<u32>) -> (SimTime, u32, bool) {
    let (times, frees) = (profile.times(), profile.frees());
    let mut i = times.partition_point(|&s| s <= cursor).saturating_sub(1);
    loop {
        let last = i + 1 >= times.len();
        let (s, free) = (times[i], frees[i]);
        if last || threshold.is_none_or(|m| free > m) {
            return (s.max(cursor), free, last);
        }
        i += 1;
    }
}

/// Greedy list scheduling of `queue` (already in EDD order) over the clusters' free slots
/// from `now`, reserving each placed job in its cluster's plan. Returns `(job, cluster,
/// start)` in placement order; jobs that fit no cluster are left out (the caller refuses
/// them).
pub fn list_schedule(
    profiles: &mut [Profile],
    clusters: &[Cluster],
    jobs: &[KkorJob],
    queue: &[usize],
    now: SimTime,
) -> Vec<(usize, usize, SimTime)> {
    let n = clusters.len().min(profiles.len());
    let mut queue = queue.to_vec();
    let mut cursor = vec![now; n];
    let mut threshold: Vec<Option<u32>> = vec![None; n];
    let mut done = vec![false; n];
    let mut out = Vec::with_capacity(queue.len());
    while !queue.is_empty() {
        // The earliest slot worth trying over all clusters (ties to the lower index).
        let mut best: Option<(SimTime, usize, u32, bool)> = None;
        for k in (0..n).filter(|&k| !done[k]) {
            let (start, free, last) = candidate(&profiles[k], cursor[k], threshold[k]);
            if best.is_none_or(|b| start < b.0) {
                best = Some((start, k, free, last));
            }
        }
        let Some((start, k, free, last)) = best else {
            break;
        };
        let fits = |&j: &usize| {
            let q = jobs[j].procs;
            let d = t(clusters[k].duration(jobs[j].length));
            q <= free && profiles[k].earliest_start(start, q, d) == Some(start)
        };
        if let Some(pos) = queue.iter().position(fits) {
            let j = queue.remove(pos);
            let d = t(clusters[k].duration(jobs[j].length));
            profiles[k].reserve(start, d, jobs[j].procs);
            out.push((j, k, start));
            cursor[k] = start;
            threshold[k] = None;
        } else if last {
            done[k] = true;
        } else {
            threshold[k] = Some(free);
            let times = profiles[k].times();
            let next = times.partition_point(|&s| s <= start);
            cursor[k] = times[next];
        }
    }
    out
}

/// The centralized algorithm over the whole job stream: placements per job and one window
/// per grid batch (its close time and the end of its last job).
pub(crate) fn schedule(
    clusters: &[Cluster],
    jobs: &[KkorJob],
    params: &KkorParams,
) -> Result<(Vec<Placement>, Vec<BatchWindow>), String> {
    let order = release_order(jobs);
    let mut profiles: Vec<Profile> = clusters
        .iter()
        .map(|c| Profile::empty(SimTime::ZERO, c.procs))
        .collect();
    let mut plan = Plan::new(jobs.len());
    let mut windows = Vec::new();
    let mut batch: Vec<usize> = Vec::new();
    let mut first = 0i64;
    let mut next = 0;
    loop {
        let timer = first.saturating_add(params.batch_length);
        let close_at =
            if next < order.len() && (batch.is_empty() || jobs[order[next]].release <= timer) {
                let j = order[next];
                next += 1;
                if batch.is_empty() {
                    first = jobs[j].release;
                }
                batch.push(j);
                let r = jobs[j].release;
                if batch.len() >= params.batch_jobs as usize || r - first >= params.batch_length {
                    r
                } else {
                    continue;
                }
            } else if !batch.is_empty() {
                timer
            } else {
                break;
            };
        let no = windows.len() as u32;
        let end = close_batch(
            &mut profiles,
            clusters,
            jobs,
            &mut batch,
            close_at,
            no,
            &mut plan,
        )?;
        windows.push(BatchWindow {
            cluster: 0,
            batch: no,
            t0: close_at,
            t1: end,
            limit: 0,
            accepted: 0,
            exported: 0,
        });
    }
    Ok((plan.finish()?, windows))
}

/// Schedules one grid batch at `now`; returns the end of its last job.
fn close_batch(
    profiles: &mut [Profile],
    clusters: &[Cluster],
    jobs: &[KkorJob],
    batch: &mut Vec<usize>,
    now: i64,
    no: u32,
    plan: &mut Plan,
) -> Result<i64, String> {
    for p in profiles.iter_mut() {
        p.forget_before(t(now));
    }
    edd_sort(jobs, batch);
    let placed = list_schedule(profiles, clusters, jobs, batch, t(now));
    if placed.len() != batch.len() {
        return Err(format!(
            "{} job(s) of the batch at {now} fit no cluster",
            batch.len() - placed.len()
        ));
    }
    let mut end = now;
    for (j, k, start) in placed {
        let e = start.0 + clusters[k].duration(jobs[j].length);
        end = end.max(e);
        let p = Placement {
            cluster: k,
            start: start.0,
            end: e,
            migrated: k != jobs[j].org,
            batch: no,
        };
        plan.place(j, p)?;
    }
    batch.clear();
    Ok(end)
}
