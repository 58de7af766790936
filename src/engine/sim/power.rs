//! The idle-timeout power policy (issue #40, docs/energy.md "Switching idle nodes off"): a
//! node no job has held for the timeout switches off (its type's switch-off time at its
//! watts), then sleeps; a job placed on a sleeping node waits for it to finish switching
//! off, then for its boot, holding its nodes meanwhile, and computes from then on.
//!
//! Nothing here is an event: whether a node is asleep follows from when it went idle, so
//! the queue of events (and every run without the policy) is untouched. Before each pass
//! the nodes whose timeout passed *before* now are marked asleep (a node idle exactly the
//! timeout at an instant is still on for that instant's passes), and first-fit takes the
//! nodes that are on before the sleeping ones (`model::nodes`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::engine::power_log::{OffCycle, PowerLog};
use crate::engine::SimTime;
use crate::model::{NodePool, Platform, Share};

/// One node-typed site's nodes as the power policy sees them.
struct SitePower {
    /// Per node, its type's switch-off and boot times (zero without a transition).
    off_for: Vec<SimTime>,
    on_for: Vec<SimTime>,
    /// Per node, when its last job ended (zero at the start), while no job holds it.
    idle_since: Vec<SimTime>,
    /// Per node, its open switch-off in the log while it sleeps.
    asleep: Vec<Option<usize>>,
    /// Per node, when its last boot ends (jobs placed on it compute from then).
    ready: Vec<SimTime>,
    /// (idle since + timeout, node): the nodes that may be due to switch off.
    due: BinaryHeap<Reverse<(SimTime, u32)>>,
}

/// The power policy's state over a run.
pub(super) struct PowerState {
    after: SimTime,
    /// Per site (`None` for a site without node types).
    sites: Vec<Option<SitePower>>,
    pub(super) log: PowerLog,
}

impl PowerState {
    /// Every node of every node-typed site of `platform` on and idle at time zero; a node
    /// idle `after` switches off.
    pub(super) fn new(platform: &Platform, after: SimTime) -> PowerState {
        let sites = platform
            .sites
            .iter()
            .map(|s| {
                if !s.has_nodes() {
                    return None;
                }
                let per_node = |f: &dyn Fn(&crate::model::power::PowerModel) -> SimTime| {
                    s.node_types
                        .iter()
                        .flat_map(|t| {
                            let d = t.power.as_ref().map_or(SimTime::ZERO, f);
                            std::iter::repeat_n(d, t.count as usize)
                        })
                        .collect::<Vec<SimTime>>()
                };
                let off_for = per_node(&|m| m.switch_off.map_or(SimTime::ZERO, |t| t.duration()));
                let on_for = per_node(&|m| m.switch_on.map_or(SimTime::ZERO, |t| t.duration()));
                let n = off_for.len();
                let due = (0..n as u32).map(|i| Reverse((after, i))).collect();
                Some(SitePower {
                    off_for,
                    on_for,
                    idle_since: vec![SimTime::ZERO; n],
                    asleep: vec![None; n],
                    ready: vec![SimTime::ZERO; n],
                    due,
                })
            })
            .collect();
        PowerState {
            after,
            sites,
            log: PowerLog {
                idle_off_after: after,
                ..PowerLog::default()
            },
        }
    }

    /// Before a pass at `now` on site `s`: the nodes idle since more than the timeout ago
    /// are switched off (marked asleep in `pool`, their switch-off logged).
    pub(super) fn settle(&mut self, s: usize, now: SimTime, pool: &mut NodePool) {
        let Some(Some(site)) = self.sites.get_mut(s) else {
            return;
        };
        while let Some(&Reverse((at, n))) = site.due.peek() {
            if at >= now {
                break;
            }
            site.due.pop();
            let i = n as usize;
            let still_idle = pool.is_idle(i) && site.idle_since[i] + self.after == at;
            if !still_idle || site.asleep[i].is_some() {
                continue;
            }
            pool.set_asleep(i, true);
            site.asleep[i] = Some(self.log.cycles.len());
            self.log.cycles.push(OffCycle {
                site: s as u32,
                node: n,
                off_at: at,
                asleep_at: at + site.off_for[i],
                woken_at: SimTime::NEVER,
                boot_at: SimTime::NEVER,
                on_at: SimTime::NEVER,
            });
        }
    }

    /// A job was placed at `now` on `shares` of site `s`: the sleeping nodes among them
    /// boot (after switching off, if they still are). Returns when the job computes: once
    /// every node of it is on.
    pub(super) fn wake(&mut self, s: usize, now: SimTime, shares: &[Share]) -> SimTime {
        let Some(Some(site)) = self.sites.get_mut(s) else {
            return now;
        };
        let mut start = now;
        for sh in shares {
            let i = sh.node as usize;
            if let Some(c) = site.asleep[i].take() {
                let cycle = &mut self.log.cycles[c];
                cycle.woken_at = now;
                cycle.boot_at = now.max(cycle.asleep_at);
                cycle.on_at = cycle.boot_at + site.on_for[i];
                site.ready[i] = cycle.on_at;
            }
            start = start.max(site.ready[i]);
        }
        start
    }

    /// A job ended at `now` on `shares` of site `s`: the nodes no job holds any more are
    /// idle from now.
    pub(super) fn released(&mut self, s: usize, now: SimTime, shares: &[Share], pool: &NodePool) {
        let Some(Some(site)) = self.sites.get_mut(s) else {
            return;
        };
        for sh in shares {
            let i = sh.node as usize;
            if pool.is_idle(i) {
                site.idle_since[i] = now;
                site.due.push(Reverse((now + self.after, sh.node)));
            }
        }
    }

    /// The log at the run's `end` (its last job's end): the nodes idle for more than the
    /// timeout before it, but not yet marked asleep by a pass, switched off too.
    pub(super) fn finish(mut self, end: SimTime, pools: &[Option<&NodePool>]) -> PowerLog {
        for (s, site) in self.sites.iter().enumerate() {
            let (Some(site), Some(Some(pool))) = (site, pools.get(s)) else {
                continue;
            };
            for i in 0..site.idle_since.len() {
                let off_at = site.idle_since[i] + self.after;
                if site.asleep[i].is_none() && pool.is_idle(i) && off_at < end {
                    self.log.cycles.push(OffCycle {
                        site: s as u32,
                        node: i as u32,
                        off_at,
                        asleep_at: off_at + site.off_for[i],
                        woken_at: SimTime::NEVER,
                        boot_at: SimTime::NEVER,
                        on_at: SimTime::NEVER,
                    });
                }
            }
        }
        self.log
            .cycles
            .sort_unstable_by_key(|c| (c.site, c.node, c.off_at));
        self.log.delayed.sort_unstable();
        self.log
    }
}
