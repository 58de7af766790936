//! Jobs on nodes that exist (issue #37): the engine's side of node-typed sites — the
//! placement every start makes (first-fit, the one the policy's pass found), the nodes given
//! back at the end, the jobs no node can ever hold, and the check every run ends with: no
//! node's cores, memory or GPUs ever exceeded, every job on nodes that exist, each job's
//! shares adding up to what it asked.

use super::Simulation;
use crate::engine::{FailureLog, PowerLog};
use crate::engine::{InvariantViolation, JobOutcome, Outcome, RejectReason, SimError, SimTime};
use crate::model::{Demand, Job, JobIdx, NodePool, PlacementRule, Placements, Platform, Share};

impl Simulation<'_> {
    /// Places every start on the node-typed sites by `rule` (first fit unless told; the
    /// policies' "fits now" and reservations walk the nodes by it too); before the first
    /// step. Best fit on a platform without node types is refused: it would place nothing.
    pub fn with_placement(mut self, rule: PlacementRule) -> Result<Self, SimError> {
        if rule == self.placement {
            return Ok(self);
        }
        if !self.platform.sites.iter().any(|s| s.has_nodes()) {
            return Err(SimError::InvalidPlatform {
                reason: format!(
                    "{} placement picks nodes: give the site node types (docs/nodes.md)",
                    rule.name()
                ),
            });
        }
        for site in &mut self.sites {
            site.res.nodes = site.res.nodes.take().map(|pool| pool.with_rule(rule));
        }
        self.placement = rule;
        Ok(self)
    }

    /// Job `idx`'s demand beyond processors.
    fn demand(&self, idx: JobIdx) -> Demand {
        self.demands.get(idx as usize).copied().unwrap_or_default()
    }

    /// Places job `idx`, which the policy just started on site `s` for `estimate`, on that
    /// site's nodes (nothing on a site without node types), clear of known maintenance
    /// windows; a start that finds no nodes is a policy bug.
    pub(super) fn place_start(
        &mut self,
        s: u32,
        idx: JobIdx,
        estimate: SimTime,
    ) -> Result<(), SimError> {
        let demand = self.demand(idx);
        let job = &self.jobs[idx as usize];
        let now = self.now;
        let site = &mut self.sites[s as usize];
        if site.res.nodes.is_none() {
            return Ok(());
        }
        let chosen = site.policy.chosen_nodes(idx, &mut self.shares);
        let Some(pool) = site.res.nodes.as_mut() else {
            return Ok(());
        };
        let allowed = pool
            .maintenance
            .as_ref()
            .and_then(|m| m.allowed(now, now + estimate));
        let placed = match chosen {
            // The policy's own nodes: each within the nodes clear of maintenance, adding up
            // to the job's processors and GPUs.
            true => chosen_holds(&self.shares, allowed.as_deref(), job.procs, &demand, pool),
            false => pool
                .place_within(job.procs, &demand, allowed.as_deref(), &mut self.shares)
                .is_ok(),
        };
        if !placed || !pool.take(&self.shares) {
            return Err(InvariantViolation(format!(
                "job {} was started at t={} but no placement on the nodes of site {s} holds it",
                job.id, self.now
            ))
            .into());
        }
        match pool.is_exclusive() {
            true => {
                let shares = &self.shares;
                let whole = |n: u32| pool.is_exclusive_node(n as usize);
                self.placements
                    .record_whole(idx as usize, shares, job.procs, &demand, whole);
            }
            false => self.placements.record(idx as usize, &self.shares),
        }
        Ok(())
    }

    /// Gives job `idx`'s nodes back to site `s` when it ends.
    pub(super) fn release_nodes(&mut self, s: usize, idx: JobIdx) {
        if let Some(pool) = self.sites[s].res.nodes.as_mut() {
            pool.give_back(self.placements.of(idx as usize));
        }
    }

    /// What each node of site `s` has free now (`None` when the site has no node types).
    pub fn free_nodes(&self, s: usize) -> Option<&crate::model::NodeFree> {
        Some(self.sites.get(s)?.res.nodes.as_ref()?.free())
    }

    /// Why job `idx`, queued at site `s`, finds no nodes free now (the explain view: its
    /// processors may be free in number while no node holds its part): the resource the
    /// nodes free now lack, tried as [`NodePool::never_fits`] tries the empty site (cores
    /// alone, then with memory, then with GPUs, then the node count), or `None` for the
    /// maintenance windows that keep its estimate from the nodes that would hold it.
    /// `Ok(())` when first-fit places it now, or the site has no node types.
    pub fn node_shortfall(
        &self,
        s: usize,
        idx: JobIdx,
        estimate: SimTime,
    ) -> Result<(), Option<crate::model::Resource>> {
        use crate::model::fit::first_fit_within;
        use crate::model::Resource;
        let Some(pool) = self.sites.get(s).and_then(|st| st.res.nodes.as_ref()) else {
            return Ok(());
        };
        let (procs, demand) = (self.jobs[idx as usize].procs, self.demand(idx));
        let (free, memory) = (pool.free(), pool.tracks_memory);
        let mut out = Vec::new();
        let fits = |memory: bool, d: &Demand, allowed: Option<&[u64]>, out: &mut Vec<Share>| {
            first_fit_within(free, memory, procs, d, allowed, out).is_ok()
        };
        let cores = Demand {
            mem_kb: 0,
            gpus: 0,
            nodes: 0,
            ..demand
        };
        if !fits(false, &cores, None, &mut out) {
            return Err(Some(Resource::Cores));
        }
        let with_memory = Demand {
            gpus: 0,
            nodes: 0,
            ..demand
        };
        if !fits(memory, &with_memory, None, &mut out) {
            return Err(Some(Resource::Memory));
        }
        if !fits(memory, &Demand { nodes: 0, ..demand }, None, &mut out) {
            return Err(Some(Resource::Gpus));
        }
        if !fits(memory, &demand, None, &mut out) {
            return Err(Some(Resource::Nodes));
        }
        let now = self.now;
        let allowed = pool
            .maintenance
            .as_ref()
            .and_then(|m| m.allowed(now, now + estimate));
        match fits(memory, &demand, allowed.as_deref(), &mut out) {
            true => Ok(()),
            false => Err(None),
        }
    }

    /// The maintenance windows of site `s` that a run from now of `estimate` would overlap
    /// on the nodes with a free core, as (node, start, end), by end then node: the windows
    /// that keep such a run from the nodes free now (the explain view names them).
    pub fn maintenance_in_the_way(
        &self,
        s: usize,
        estimate: SimTime,
    ) -> Vec<(u32, SimTime, SimTime)> {
        let Some(pool) = self.sites.get(s).and_then(|st| st.res.nodes.as_ref()) else {
            return Vec::new();
        };
        let Some(m) = pool.maintenance.as_ref() else {
            return Vec::new();
        };
        let free = pool.free();
        m.overlapping(self.now, self.now + estimate)
            .filter(|&(n, ..)| free.cores.get(n as usize).is_some_and(|&c| c > 0))
            .collect()
    }

    /// Why job `idx` can never run on site `s`'s nodes (`None` when it can, or the site
    /// has no node types).
    pub(super) fn never_fits(&self, s: usize, idx: JobIdx) -> Option<RejectReason> {
        let units = self
            .platform
            .sites
            .get(s)?
            .units_for(self.jobs[idx as usize].procs);
        if let Some(most) = self.power_cap_units(s).filter(|&k| units > k) {
            return Some(RejectReason::Unplaceable {
                resource: crate::model::Resource::Power,
                needs: u64::from(units),
                most: u64::from(most),
            });
        }
        let refusal = self
            .sites
            .get(s)?
            .policy
            .refuses(idx, &self.jobs[idx as usize]);
        if let Some(refusal) = refusal {
            return Some(refusal.into());
        }
        let pool = self.sites.get(s)?.res.nodes.as_ref()?;
        let (resource, needs, most) =
            pool.never_fits(self.jobs[idx as usize].procs, &self.demand(idx))?;
        Some(RejectReason::Unplaceable {
            resource,
            needs,
            most,
        })
    }
}

/// True when `shares`, a placement a policy chose, is on distinct nodes that exist and are
/// `allowed` (clear of maintenance), and adds up to `procs` cores and the demand's GPUs (on
/// as many nodes as a node count asks). Memory is held to each node's capacity by the take
/// that follows and by the run's final node check, not summed here.
fn chosen_holds(
    shares: &[Share],
    allowed: Option<&[u64]>,
    procs: u32,
    demand: &Demand,
    pool: &NodePool,
) -> bool {
    let on_nodes = shares.windows(2).all(|w| w[0].node < w[1].node)
        && shares.iter().all(|s| {
            let n = s.node as usize;
            n < pool.len() && allowed.is_none_or(|a| a[n / 64] & (1 << (n % 64)) != 0)
        });
    let nodes_ok = demand.nodes == 0 || shares.len() == demand.nodes as usize;
    on_nodes && nodes_ok && adds_up(shares, pool, procs, demand)
}

/// True when `shares` add up to `procs` cores and the demand's GPUs; when some are on
/// node-exclusive nodes, when each of those is all of its node and together they hold at
/// least as much.
fn adds_up(shares: &[Share], pool: &NodePool, procs: u32, demand: &Demand) -> bool {
    let cores: u64 = shares.iter().map(|s| u64::from(s.cores)).sum();
    let gpus: u64 = shares.iter().map(|s| u64::from(s.gpus)).sum();
    let on_whole = |s: &&Share| pool.is_exclusive_node(s.node as usize);
    match shares.iter().find(on_whole) {
        Some(_) => {
            shares
                .iter()
                .filter(on_whole)
                .all(|s| *s == whole_node(pool, s.node as usize))
                && cores >= u64::from(procs)
                && gpus >= u64::from(demand.gpus)
        }
        None => cores == u64::from(procs) && gpus == u64::from(demand.gpus),
    }
}

/// Each site's nodes, none taken, placing by `rule` (`None` for a site without node types).
pub(super) fn empty_pools(platform: &Platform, rule: PlacementRule) -> Vec<Option<NodePool>> {
    platform
        .sites
        .iter()
        .map(|s| s.node_pool().map(|p| p.with_rule(rule)))
        .collect()
}

/// Every node-typed site's nodes over the run: each job that ran there holds shares that
/// add up to its processors (and its memory and GPUs when the site models them), on nodes
/// that exist; a sweep over starts and ends (ends first at an instant, as the engine frees
/// them first) finds no node over its cores, memory or GPUs; a job rejected as unplaceable
/// really has no placement on the empty site. Under a power policy a job holds its nodes
/// from the instant it was started (it may wait there for a boot), a node switched off is
/// held whole until a job wakes it, and no job computes on a node between its switch-off
/// and the end of its boot. `pools` are the sites' nodes, empty, placing by the run's rule
/// ([`empty_pools`]).
pub(super) fn check_nodes(
    pools: Vec<Option<NodePool>>,
    jobs: &[Job],
    demands: &[Demand],
    outcomes: &[Outcome],
    placements: &Placements,
    failures: Option<&FailureLog>,
    power: Option<&PowerLog>,
) -> Result<(), String> {
    if placements.is_empty() {
        return Ok(());
    }
    // (time, 0 = end / 1 = start, what, index) per site with nodes.
    let mut events: Vec<Vec<(SimTime, u8, Held, usize)>> = vec![Vec::new(); pools.len()];
    for (i, (job, out)) in jobs.iter().zip(outcomes).enumerate() {
        let demand = demands.get(i).copied().unwrap_or_default();
        if let JobOutcome::Rejected(RejectReason::Unplaceable { resource, .. }) = out.status {
            if resource == crate::model::Resource::Power {
                continue; // the power cap's check (`cap::check_cap`) reads these
            }
            let home = pools.get(job.home as usize).and_then(Option::as_ref);
            if home.is_none_or(|p| p.never_fits(job.procs, &demand).is_none()) {
                return Err(format!(
                    "job {} rejected as unplaceable although it fits",
                    job.id
                ));
            }
            continue;
        }
        if !out.ran() {
            continue;
        }
        let Some(Some(pool)) = pools.get(out.site as usize) else {
            continue;
        };
        let shares = placements.of(i);
        if shares.iter().any(|s| s.node as usize >= pool.len()) {
            return Err(format!(
                "job {} placed on a node that does not exist",
                job.id
            ));
        }
        if !adds_up(shares, pool, job.procs, &demand) {
            let cores: u64 = shares.iter().map(|s| u64::from(s.cores)).sum();
            let gpus: u64 = shares.iter().map(|s| u64::from(s.gpus)).sum();
            let whole = match pool.is_exclusive() {
                true => " (node-exclusive: whole nodes, at least as many)",
                false => "",
            };
            return Err(format!(
                "job {} holds {cores} cores and {gpus} GPUs on nodes but asked for {} and {}{whole}",
                job.id, job.procs, demand.gpus
            ));
        }
        let from = power.map_or(out.start, |p| p.held_from(i as JobIdx, out.start));
        if from > out.start {
            return Err(format!("job {} computed before it was started", job.id));
        }
        events[out.site as usize].push((from, 1, Held::Job, i));
        events[out.site as usize].push((out.end, 0, Held::Job, i));
    }
    if let Some(log) = failures {
        held_by_failures(log, outcomes, &mut events);
    }
    if let Some(log) = power {
        let nodes: Vec<usize> = pools
            .iter()
            .map(|p| p.as_ref().map_or(0, NodePool::len))
            .collect();
        off_while_computing(log, jobs, outcomes, placements, &nodes)?;
        for (i, c) in log.cycles.iter().enumerate() {
            events[c.site as usize].push((c.off_at, 1, Held::Off, i));
            if c.woken_at != SimTime::NEVER {
                events[c.site as usize].push((c.woken_at, 0, Held::Off, i));
            }
        }
    }
    let mut whole = Vec::new();
    for (site, (pool, mut ev)) in pools.into_iter().zip(events).enumerate() {
        let Some(mut pool) = pool else { continue };
        // Pushed job by job (then killed runs, downtimes, switch-offs, each in order): the
        // stable sort by (instant, end or start) is the tuples' sort.
        if !crate::radix::sort_by_instant_and_flag(&mut ev, |e| e.0 .0, |e| e.1 == 1) {
            ev.sort_unstable();
        }
        for (t, kind, held, i) in ev {
            let shares = match (held, failures) {
                (Held::Job, _) => placements.of(i),
                (Held::Off, _) => {
                    let n = power.map_or(0, |p| p.cycles[i].node) as usize;
                    whole.clear();
                    whole.push(whole_node(&pool, n));
                    &whole[..]
                }
                (Held::Killed, Some(log)) => log.shares_of(&log.killed[i]),
                (Held::Down, Some(log)) => {
                    whole.clear();
                    whole.push(whole_node(&pool, log.downtimes[i].node as usize));
                    &whole[..]
                }
                (_, None) => &[],
            };
            if kind == 0 {
                pool.give_back(shares);
            } else if !pool.take(shares) {
                let who = match held {
                    Held::Down => format!("node {} down", log_node(failures, i)),
                    Held::Off => format!(
                        "node {} switched off",
                        power.map_or(0, |p| p.cycles[i].node)
                    ),
                    Held::Job => format!("job {}", jobs[i].id),
                    Held::Killed => {
                        format!("a killed run of job {}", killed_job(failures, jobs, i))
                    }
                };
                return Err(format!(
                    "a node of site {site} is over its cores, memory or GPUs, or held while down, at t={t} ({who})"
                ));
            }
        }
    }
    Ok(())
}

/// All of node `n` of `pool`: what a node down or switched off holds in the sweep.
fn whole_node(pool: &NodePool, n: usize) -> Share {
    Share {
        node: n as u32,
        cores: pool.capacity.cores[n],
        mem_kb: pool.capacity.mem_kb[n],
        gpus: pool.capacity.gpus[n],
    }
}

/// What holds a node in the sweep of [`check_nodes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Held {
    /// A job's (last) run, from its outcome.
    Job,
    /// A run a failure killed (the job ran again later).
    Killed,
    /// The whole node, down.
    Down,
    /// The whole node, switched off by the power policy until a job woke it.
    Off,
}

/// Checks that no job computed on a node while it was switched off or booting: between a
/// switch-off and the end of the boot that followed (or the end of the run).
fn off_while_computing(
    log: &PowerLog,
    jobs: &[Job],
    outcomes: &[Outcome],
    placements: &Placements,
    nodes: &[usize],
) -> Result<(), String> {
    // The cycles are sorted by site, node and time: each node's are a contiguous run, found
    // by counting once (a binary search over every cycle per job and node was a tenth of
    // a long run).
    let mut first: Vec<Vec<usize>> = nodes.iter().map(|&n| vec![0; n + 1]).collect();
    for c in &log.cycles {
        match first
            .get_mut(c.site as usize)
            .and_then(|f| f.get_mut(c.node as usize + 1))
        {
            Some(count) => *count += 1,
            None => {
                return Err(format!(
                    "a switch-off of node {} of site {}, which does not exist",
                    c.node, c.site
                ))
            }
        }
    }
    let mut before = 0;
    for f in &mut first {
        f[0] = before;
        for k in 1..f.len() {
            f[k] += f[k - 1];
        }
        before = f[f.len() - 1];
    }
    let of_node = |site: u32, node: u32| {
        let f = &first[site as usize];
        let n = node as usize;
        &log.cycles[f[n]..f[n + 1]]
    };
    // Per node, where the last search ended: jobs taken in start order end in about time
    // order on each node, so the next search is a step or two from it (a binary search
    // per job and node was 2 % of a run).
    let mut cursor: Vec<Vec<usize>> = nodes.iter().map(|&n| vec![0; n]).collect();
    for i in placements.in_start_order() {
        let Some(out) = outcomes.get(i) else { continue };
        if !out.ran() || out.end <= out.start {
            continue;
        }
        for sh in placements.of(i) {
            let cycles = of_node(out.site, sh.node);
            if cycles.is_empty() {
                continue;
            }
            // The last switch-off before the job's end is the only one it could overlap:
            // cycle k − 1, with k the first switch-off at or after the end.
            let k = &mut cursor[out.site as usize][sh.node as usize];
            while *k < cycles.len() && cycles[*k].off_at < out.end {
                *k += 1;
            }
            while *k > 0 && cycles[*k - 1].off_at >= out.end {
                *k -= 1;
            }
            let k = *k;
            if k > 0 && cycles[k - 1].on_at > out.start {
                return Err(format!(
                    "job {} computed on node {} of site {} while it was off or booting (t={})",
                    jobs[i].id, sh.node, out.site, out.start
                ));
            }
        }
    }
    Ok(())
}

/// Adds the runs failures killed (all but a lost job's, which is its outcome) and the
/// nodes' down times to the sweep.
fn held_by_failures(
    log: &FailureLog,
    outcomes: &[Outcome],
    events: &mut [Vec<(SimTime, u8, Held, usize)>],
) {
    for (i, k) in log.killed.iter().enumerate() {
        if outcomes[k.job as usize].status == JobOutcome::Lost {
            continue;
        }
        events[k.site as usize].push((k.start, 1, Held::Killed, i));
        events[k.site as usize].push((k.end, 0, Held::Killed, i));
    }
    for (i, d) in log.downtimes.iter().enumerate() {
        events[d.site as usize].push((d.start, 1, Held::Down, i));
        events[d.site as usize].push((d.end, 0, Held::Down, i));
    }
}

fn log_node(failures: Option<&FailureLog>, i: usize) -> u32 {
    failures.map_or(0, |l| l.downtimes[i].node)
}

fn killed_job(failures: Option<&FailureLog>, jobs: &[Job], i: usize) -> i64 {
    failures.map_or(0, |l| jobs[l.killed[i].job as usize].id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::OffCycle;

    fn s(secs: i64) -> SimTime {
        SimTime::from_secs(secs)
    }

    /// A job computing while its node was switched off or booting is caught whatever the
    /// order the jobs started in, and a job clear of every cycle is not: the search from
    /// where the node's last one ended steps both ways.
    #[test]
    fn a_job_on_a_node_off_or_booting_is_caught() {
        let job = |id| Job {
            id,
            submit: s(0),
            runtime: s(10),
            estimate: s(10),
            procs: 1,
            home: 0,
            user: -1,
            partition: -1,
        };
        let share = Share {
            node: 0,
            cores: 1,
            mem_kb: 0,
            gpus: 0,
        };
        // Node 0 switched off at 100 s, asleep at 106, booting at 200, on at 350.
        let cycle = OffCycle {
            site: 0,
            node: 0,
            off_at: s(100),
            asleep_at: s(106),
            woken_at: s(200),
            boot_at: s(200),
            on_at: s(350),
        };
        let log = PowerLog {
            idle_off_after: s(60),
            cycles: vec![cycle],
            delayed: Vec::new(),
        };
        let ran = |start, end| Outcome {
            site: 0,
            start: s(start),
            end: s(end),
            status: JobOutcome::Finished,
        };
        let check = |runs: &[(i64, i64)]| {
            let jobs: Vec<Job> = (0..runs.len() as i64).map(|i| job(i + 1)).collect();
            let outcomes: Vec<Outcome> = runs.iter().map(|&(a, b)| ran(a, b)).collect();
            let mut placements = Placements::for_jobs(runs.len());
            for i in 0..runs.len() {
                placements.record(i, &[share]);
            }
            off_while_computing(&log, &jobs, &outcomes, &placements, &[1])
        };
        // Before the switch-off, after the boot, and in either order: clear.
        assert!(check(&[(0, 90), (400, 500)]).is_ok());
        assert!(check(&[(400, 500), (0, 90)]).is_ok());
        // Ending in the boot, starting in it, or spanning the whole cycle: caught, also
        // after a later job moved the node's search past the cycle.
        for bad in [(50, 250), (300, 360), (90, 400)] {
            let e = check(&[(400, 500), bad]).unwrap_err();
            assert!(e.contains("job 2 computed on node 0"), "{e}");
            assert!(check(&[bad]).is_err());
        }
    }
}
