//! Checks every KKOR run ends with; a violation is a bug and the run fails with `Err`.
//!
//! - every job placed exactly once (also enforced while placing: see `Plan`), on a cluster
//!   wide enough for it, for exactly p·s_l, never before its release;
//! - no cluster over capacity at any instant (a sweep over starts and ends, ends first);
//! - decentralized: the foreign surface accepted in every batch window is what the
//!   placements add up to, and never more than that window's L_k (the rules oblige a cluster
//!   to accept up to L_k, and it refuses beyond); under [`ReceiverLimit::UntilReached`] the
//!   last job may pass L_k, so what is checked is that the window's surface minus its
//!   largest accepted job is below L_k (or nothing was accepted).

use std::collections::BTreeMap;

use super::{BatchWindow, Cluster, KkorJob, Placement, ReceiverLimit};

pub fn check(
    clusters: &[Cluster],
    jobs: &[KkorJob],
    placements: &[Placement],
    windows: &[BatchWindow],
    limits: Option<ReceiverLimit>,
) -> Result<(), String> {
    if placements.len() != jobs.len() {
        return Err(format!(
            "invariant: {} placements for {} jobs",
            placements.len(),
            jobs.len()
        ));
    }
    let mut events: Vec<Vec<(i64, i64)>> = vec![Vec::new(); clusters.len()];
    for (i, (j, p)) in jobs.iter().zip(placements).enumerate() {
        let at = |what: &str| Err(format!("invariant: job {i} (id {}): {what}", j.id));
        let Some(c) = clusters.get(p.cluster) else {
            return at("placed on a cluster that does not exist");
        };
        if j.procs > c.procs {
            return at("placed on a cluster narrower than it");
        }
        if p.start < j.release {
            return at(&format!(
                "starts at {} before its release {}",
                p.start, j.release
            ));
        }
        if p.end != p.start + c.duration(j.length) {
            return at("does not run for p·s_l");
        }
        if p.migrated != (p.cluster != j.org) {
            return at("its migrated flag is wrong");
        }
        let q = i64::from(j.procs);
        events[p.cluster].push((p.start, q));
        events[p.cluster].push((p.end, -q));
    }
    for (k, ev) in events.iter_mut().enumerate() {
        // Ends (negative) before starts at the same instant.
        ev.sort_unstable();
        let mut used = 0i64;
        for &(time, delta) in ev.iter() {
            used += delta;
            if used > i64::from(clusters[k].procs) {
                return Err(format!(
                    "invariant: cluster {k} runs {used} processors at {time}, it has {}",
                    clusters[k].procs
                ));
            }
        }
    }
    if let Some(rule) = limits {
        check_limits(jobs, placements, windows, rule)?;
    }
    Ok(())
}

/// Accepted foreign surface per (host, batch) from the placements, against the windows.
fn check_limits(
    jobs: &[KkorJob],
    placements: &[Placement],
    windows: &[BatchWindow],
    rule: ReceiverLimit,
) -> Result<(), String> {
    // (sum, largest) of the accepted surfaces per (host, batch).
    let mut accepted: BTreeMap<(usize, u32), (i64, i64)> = BTreeMap::new();
    for (j, p) in jobs.iter().zip(placements).filter(|(_, p)| p.migrated) {
        let a = accepted.entry((p.cluster, p.batch)).or_default();
        let surface = i64::from(j.procs) * (p.end - p.start);
        a.0 += surface;
        a.1 = a.1.max(surface);
    }
    for w in windows {
        let (sum, largest) = accepted.remove(&(w.cluster, w.batch)).unwrap_or((0, 0));
        if sum != w.accepted {
            return Err(format!(
                "invariant: cluster {} batch {} counted {} accepted surface, its jobs add up to {sum}",
                w.cluster, w.batch, w.accepted
            ));
        }
        let over = match rule {
            ReceiverLimit::Within => w.accepted > w.limit,
            ReceiverLimit::UntilReached => sum > 0 && sum - largest >= w.limit,
        };
        if over {
            return Err(format!(
                "invariant: cluster {} batch {} accepted surface {} over its limit L = {}",
                w.cluster, w.batch, w.accepted, w.limit
            ));
        }
    }
    if let Some(((k, b), _)) = accepted.into_iter().next() {
        return Err(format!(
            "invariant: jobs migrated to cluster {k} in batch {b}, which has no window"
        ));
    }
    Ok(())
}
