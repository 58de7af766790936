use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::sync::Arc;

use super::node_plan::{After, NodePlan};
use super::nodefit::NodesView;
use super::slurm_node_sets::NodeSets;
use super::slurm_qos::QosLimits;
use super::{LocalPolicy, NowFit, QueuedJob, Refusal, SiteView};
use crate::model::{Demand, Job, JobIdx, NodeFree, Platform, Share};
use crate::policy::slurm::{
    secs, Factors, JobLabels, Priorities, SlurmConfig, SlurmJobs, TresShare,
};
use crate::time::SimTime;

#[path = "slurm_passes.rs"]
mod passes;
use passes::{floor, within, Shape};

/// Slurm's own scheduling (issue #42, docs/slurm.md): the queue in multifactor priority
/// order ([`Priorities`], recomputed at every `PriorityCalcPeriod` tick; a job arriving
/// between ticks gets its priority at submission; ties by arrival; a partition of a higher
/// `PriorityTier` before any of a lower one), then at every pass
///
/// 1. the main scheduler: jobs in priority order start while they fit; it stops at the
///    first that does not (Slurm's rule within a partition);
/// 2. the backfill: the pending jobs in priority order, at most `bf_max_job_test` of them,
///    each placed at its earliest start in the plan (running jobs by estimates, the
///    reservations of the jobs examined before it, run times rounded up to
///    `bf_resolution`): a job whose start is now starts; one whose start lies beyond
///    now + `bf_window` gets no reservation, nor one queued for less than
///    `bf_min_age_reserve`; every other gets one. So each higher-priority job examined
///    holds a reservation (conservative within the window, not EASY). With
///    `bf_max_job_user`, a user's jobs past that many are skipped (not counted). With
///    `bf_interval`, the backfill runs only at the passes on its multiples (the policy
///    wakes there).
///
/// Usage for fair share is what the jobs started here really ran, in unit-seconds.
///
/// On a node-typed site (issue #37) the main scheduler's "fits" is the site's placement
/// (first or best fit, as for FCFS), and the backfill plans on the nodes ([`NodePlan`],
/// made afresh at each pass as Slurm's backfill makes its plan): each job examined is
/// placed at the earliest instant particular nodes hold it throughout its planned run, and
/// one that starts now starts on exactly those nodes.
pub struct Slurm {
    cfg: SlurmConfig,
    prio: Priorities,
    /// The queue in Slurm's order ([`Entry::key`]: partition tier, then priority, then
    /// arrival).
    queue: Vec<Entry>,
    /// A tick passed: the priorities are recomputed and the queue sorted at the next pass.
    dirty: bool,
    /// The site's capacity the queue's priorities were last computed for (the job-size
    /// factor's denominator); 0 before any.
    sorted_for: u32,
    /// How many queued jobs ask for each number of units: the narrowest, which
    /// [`LocalPolicy::wake_at`] asks at every pass, without a walk of the queue.
    widths: BTreeMap<u32, u32>,
    /// The jobs started here and still running, keyed as the site keys them.
    running: BTreeMap<(SimTime, JobIdx), u32>,
    /// Ends heard of (`released`) not yet matched to a job: (when, predicted end, units).
    ended: Vec<(SimTime, SimTime, u32)>,
    /// The site's capacity, for the job-size factor.
    capacity: u32,
    /// The site's memory (KB) and GPUs, summed over its nodes once, when a TRES weight on
    /// either asks for them.
    tres_totals: Option<(f64, f64)>,
    /// On a node-typed site: the backfill's plan (made at each pass; kept for its
    /// buffers) and the nodes of the backfill's starts, for the engine to take.
    plan: NodePlan,
    chosen: Vec<(JobIdx, Vec<Share>)>,
    /// The partitions that are node sets on this site (none unless built by
    /// [`Slurm::factory_on`] with a `Nodes=` naming this site's node types).
    sets: NodeSets,
    /// What the running jobs hold of the QOS limits (none unless a QOS has one).
    qos: QosLimits,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    job: QueuedJob,
    /// Its partition's `PriorityTier`.
    tier: u32,
    /// Its share of the site's memory and GPUs (for `PriorityWeightTRES`); `None` until
    /// the first pass after its arrival sees the nodes (the engine shows them to passes).
    tres: Option<TresShare>,
    priority: u64,
}

impl Entry {
    /// Slurm's queue order (`sort_job_queue2`): the higher tier first, then the higher
    /// priority, then the earlier arrival.
    fn key(&self) -> (Reverse<u32>, Reverse<u64>, JobIdx) {
        (Reverse(self.tier), Reverse(self.priority), self.job.idx)
    }
}

impl Default for Slurm {
    /// Slurm's defaults without the workload: every job in one user and one partition.
    fn default() -> Self {
        Slurm::new(SlurmConfig::default(), Arc::new(SlurmJobs::default()))
    }
}

impl Slurm {
    pub fn new(cfg: SlurmConfig, jobs: Arc<SlurmJobs>) -> Slurm {
        Slurm {
            qos: QosLimits::new(&cfg.qos),
            prio: Priorities::new(&cfg, jobs),
            cfg,
            queue: Vec::new(),
            dirty: false,
            sorted_for: 0,
            widths: BTreeMap::new(),
            running: BTreeMap::new(),
            ended: Vec::new(),
            capacity: 0,
            tres_totals: None,
            plan: NodePlan::skipping_full_nodes(),
            chosen: Vec::new(),
            sets: NodeSets::default(),
        }
    }

    /// [`Slurm::factory`] for a run on `platform`, whose partitions' `Nodes=` may name its
    /// sites' node types (a partition is then those nodes at that site); `demands` are
    /// the jobs', to reject a job its partition's nodes can never hold; `labels` the jobs'
    /// QOS and accounts with their names.
    pub fn factory_on(
        mut cfg: SlurmConfig,
        jobs: &[Job],
        demands: &[Demand],
        platform: &Platform,
        labels: JobLabels,
    ) -> impl FnMut(usize) -> Box<dyn LocalPolicy> {
        labels.resolve(&mut cfg, jobs);
        let labels = JobLabels { demands, ..labels };
        let table = Arc::new(labels.table(&cfg, jobs));
        let named = cfg.partitions.iter().any(|p| p.nodes.is_some());
        let sites = match named {
            true => platform.sites.clone(),
            false => Vec::new(),
        };
        let demands = Arc::new(match named {
            true => demands.to_vec(),
            false => Vec::new(),
        });
        move |s| {
            let mut policy = Slurm::new(cfg.clone(), table.clone());
            if let Some(site) = sites.get(s) {
                policy.sets = NodeSets::for_site(&cfg, &table, site, demands.clone());
            }
            Box::new(policy) as Box<dyn LocalPolicy>
        }
    }

    /// Job `idx`'s partition's nodes, when the partition is a node set here.
    fn mask_of(&self, idx: JobIdx) -> Option<&[u64]> {
        self.sets.mask(self.prio.partition(idx))
    }

    /// Each site's policy for a run of `jobs` under `cfg` (the users' and partitions' table
    /// is made once and shared).
    pub fn factory(cfg: SlurmConfig, jobs: &[Job]) -> impl FnMut(usize) -> Box<dyn LocalPolicy> {
        let table = Arc::new(JobLabels::default().table(&cfg, jobs));
        move |_| Box::new(Slurm::new(cfg.clone(), table.clone())) as Box<dyn LocalPolicy>
    }

    /// Every queued job's factors and priority as of the last computation, in queue order
    /// (what `sprio -l` shows).
    pub fn factors(&self) -> Vec<(JobIdx, Factors, u64)> {
        self.factors_by(&self.prio)
    }

    /// Every queued job's factors and priority under `prio` at its last tick, in queue
    /// order.
    fn factors_by(&self, prio: &Priorities) -> Vec<(JobIdx, Factors, u64)> {
        let at = prio.last_tick();
        self.queue
            .iter()
            .map(|e| {
                let j = e.job;
                let tres = e.tres.unwrap_or_default();
                let f = prio.factors(j.idx, j.units, self.capacity, tres, j.queued_at, at);
                (j.idx, f, prio.priority(&f))
            })
            .collect()
    }

    fn priority_at(&self, job: &QueuedJob, tres: TresShare, at: SimTime) -> u64 {
        let f = self
            .prio
            .factors(job.idx, job.units, self.capacity, tres, job.queued_at, at);
        self.prio.priority(&f)
    }

    /// True when a TRES weight reads the jobs' memory or GPUs.
    fn weighs_mem_or_gpus(&self) -> bool {
        let w = self.cfg.weight_tres;
        w.mem > 0 || w.gpu > 0
    }

    /// Gives the jobs that arrived since the last pass their share of the site's memory
    /// and GPUs, and their priorities with it (as of their arrival, as `enqueue` does;
    /// a tick since then recomputes every priority in [`Slurm::resort`]).
    fn settle_tres(&mut self, site: &SiteView) {
        if !self.weighs_mem_or_gpus() || !self.queue.iter().any(|e| e.tres.is_none()) {
            return;
        }
        for i in 0..self.queue.len() {
            let e = self.queue[i];
            if e.tres.is_some() {
                continue;
            }
            let tres = self.tres_share(&e.job, site);
            self.queue[i].tres = Some(tres);
            self.queue[i].priority = self.priority_at(&e.job, tres, e.job.queued_at);
        }
        // Keys are unique (the job's index breaks ties), so any sort gives this order; the
        // stable one takes the runs a tick leaves in order (ages move together, users'
        // fair shares by user) instead of partitioning all of them again.
        self.queue.sort_by_key(Entry::key);
    }

    /// `job`'s share of the site's memory and GPUs: its memory (per processor × its
    /// processors, or per node × its nodes, at least one) and GPUs over the nodes' sums.
    /// Zero on a site of processors.
    fn tres_share(&mut self, job: &QueuedJob, site: &SiteView) -> TresShare {
        let Some(nodes) = site.nodes.as_ref() else {
            return TresShare::default();
        };
        let (mem_total, gpu_total) = *self.tres_totals.get_or_insert_with(|| {
            let c = &nodes.pool.capacity;
            let mem: u64 = c.mem_kb.iter().sum();
            let gpus: u64 = c.gpus.iter().map(|&g| u64::from(g)).sum();
            (mem as f64, gpus as f64)
        });
        let d = nodes.demand(job.idx);
        let mem = match d.mem_per_node {
            true => d.mem_kb as f64 * f64::from(d.nodes.max(1)),
            false => d.mem_kb as f64 * f64::from(job.units),
        };
        let share = |x: f64, total: f64| if total > 0.0 { x / total } else { 0.0 };
        TresShare {
            mem: share(mem, mem_total),
            gpu: share(f64::from(d.gpus), gpu_total),
        }
    }

    /// Brings usage and priorities to `now`.
    fn advance(&mut self, now: SimTime) {
        if !self.prio.tick_due(now) {
            return;
        }
        let first = self.first_pending();
        if self.prio.advance(now, &first) {
            self.dirty = true;
        }
    }

    /// Each association's lowest pending job (`JobIdx::MAX` for none), for a tick's fair share;
    /// empty when fair share weighs nothing (the factor is then never read) or is Fair Tree
    /// (which does not read it).
    fn first_pending(&self) -> Vec<JobIdx> {
        if self.cfg.weight_fairshare == 0 || !self.prio.needs_first_pending() {
            return Vec::new();
        }
        let mut first = vec![JobIdx::MAX; self.prio.assocs()];
        for e in &self.queue {
            if let Some(f) = first.get_mut(self.prio.assoc(e.job.idx) as usize) {
                *f = (*f).min(e.job.idx);
            }
        }
        first
    }

    fn resort(&mut self) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        // Without age or fair share weighed, a tick changes no priority: every factor left
        // is the job's own (size, partition, QOS, TRES), fixed while the site's capacity
        // is (METACENTRUM under Slurm's defaults spent two thirds of its run here).
        if !self.prio.ticks_change_priorities() && self.capacity == self.sorted_for {
            return;
        }
        self.sorted_for = self.capacity;
        let at = self.prio.last_tick();
        for i in 0..self.queue.len() {
            let e = self.queue[i];
            let tres = e.tres.unwrap_or_default();
            self.queue[i].priority = self.priority_at(&e.job, tres, at);
        }
        // Keys are unique (the job's index breaks ties), so any sort gives this order; the
        // stable one takes the runs a tick leaves in order (ages move together, users'
        // fair shares by user) instead of partitioning all of them again.
        self.queue.sort_by_key(Entry::key);
    }

    /// Matches the ends heard of to the jobs that ended and stops their usage.
    fn settle_ends(&mut self, site: &SiteView) {
        let mut reconcile = None;
        for (t, predicted, units) in std::mem::take(&mut self.ended) {
            self.advance(t);
            let mut candidates = self
                .running
                .range((predicted, 0)..=(predicted, JobIdx::MAX))
                .filter(|(_, &u)| u == units)
                .map(|(&k, _)| k);
            match (candidates.next(), candidates.next()) {
                (Some(k), None) => {
                    self.running.remove(&k);
                    self.prio.ended(k.1, units, t);
                    self.qos.ended(self.prio.table(), k.1);
                }
                // Two alike, or a job that outlived its estimate (the site re-keyed it).
                _ => reconcile = Some(t),
            }
        }
        if reconcile.is_none() && self.running.len() != site.running.len() {
            reconcile = Some(site.now);
        }
        if let Some(t) = reconcile {
            let mut live: Vec<JobIdx> = site.running.keys().map(|k| k.1).collect();
            live.sort_unstable();
            let gone: Vec<((SimTime, JobIdx), u32)> = self
                .running
                .iter()
                .filter(|(k, _)| live.binary_search(&k.1).is_err())
                .map(|(&k, &u)| (k, u))
                .collect();
            for (k, units) in gone {
                self.running.remove(&k);
                self.prio.ended(k.1, units, t);
                self.qos.ended(self.prio.table(), k.1);
            }
        }
    }

    /// True when a limit of job `idx`'s QOS holds it now.
    fn held(&self, idx: JobIdx) -> bool {
        self.qos.any() && self.qos.holds(self.prio.table(), idx)
    }

    /// Job `idx` is chosen to start: its QOS's limits count it from now on, for the rest
    /// of the pass too (its start follows the pass's choices).
    fn admit(&mut self, idx: JobIdx) {
        if self.qos.any() {
            self.qos.started(self.prio.table(), idx);
        }
    }

    /// Job `units` wide left the queue.
    fn forget_width(&mut self, units: u32) {
        if let Some(n) = self.widths.get_mut(&units) {
            *n -= 1;
            if *n == 0 {
                self.widths.remove(&units);
            }
        }
    }

    fn start(&mut self, job: QueuedJob, now: SimTime, starts: &mut Vec<JobIdx>) {
        self.forget_width(job.units);
        starts.push(job.idx);
        self.running
            .insert((now + job.estimate, job.idx), job.units);
        self.prio.started(job.idx, job.units, now);
    }

    /// `t` rounded up to a whole number of `bf_resolution`s.
    fn rounded(&self, t: SimTime) -> SimTime {
        let r = secs(self.cfg.bf_resolution_s.max(1)).0;
        // Estimates are at least one tick, so the quotient rounds up as written.
        SimTime((t.0.saturating_add(r - 1) / r).saturating_mul(r))
    }
}

impl Slurm {
    /// The jobs the backfill may reach, in queue order, with the per-user cap applied:
    /// the first `bf_max_job_test`, or with `bf_max_job_user` any (a job past its user's
    /// cap is skipped and not counted, as in Slurm's backfill.c); and the narrowest job
    /// from each position on (once fewer units are free now, no later job can start now).
    fn reachable(&self) -> (Vec<usize>, Vec<u32>) {
        let limit = self.cfg.bf_max_job_test as usize;
        let per_user = self.cfg.bf_max_job_user;
        let span = match per_user {
            0 => self.queue.len().min(limit),
            _ => self.queue.len(),
        };
        let mut narrowest = vec![u32::MAX; span + 1];
        for i in (0..span).rev() {
            narrowest[i] = narrowest[i + 1].min(self.queue[i].job.units);
        }
        let mut examined = vec![0u32; if per_user > 0 { self.prio.users() } else { 0 }];
        let mut tried = Vec::new();
        for i in 0..span {
            if tried.len() == limit {
                break;
            }
            if per_user > 0 {
                let n = &mut examined[self.prio.user(self.queue[i].job.idx) as usize];
                if *n >= per_user {
                    continue;
                }
                *n += 1;
            }
            tried.push(i);
        }
        (tried, narrowest)
    }

    /// True when the backfill runs at a pass at `now`: at every pass, or with
    /// `bf_interval` at those on a multiple of it.
    fn backfill_due(&self, now: SimTime) -> bool {
        match self.cfg.bf_interval_s {
            0 => true,
            i => now.0 % secs(i).0 == 0,
        }
    }

    /// The first instant after `now` at which the backfill runs, with `bf_interval`.
    fn next_backfill(&self, now: SimTime) -> Option<SimTime> {
        let i = secs(self.cfg.bf_interval_s).0;
        (i > 0).then(|| SimTime((now.0.div_euclid(i) + 1).saturating_mul(i)))
    }

    /// Cuts `tried` after the last job that `may_start_now` says could start now on the
    /// room free now (before any reservation; the plan never has more). The backfill's
    /// reservations matter only to what starts now in this pass (the next pass plans
    /// afresh), and a job's search and reservation bear only on the jobs after it, so the
    /// jobs after that last one change nothing: without any such job the pass has no
    /// backfill to do.
    fn up_to_last_candidate(
        &self,
        tried: &mut Vec<usize>,
        mut may_start_now: impl FnMut(&QueuedJob) -> bool,
    ) {
        let last = tried
            .iter()
            .rposition(|&i| may_start_now(&self.queue[i].job));
        tried.truncate(last.map_or(0, |k| k + 1));
    }

    /// Whether job `job` gets a reservation at `at`: within the backfill's window, and
    /// queued for at least `bf_min_age_reserve`.
    fn may_reserve(&self, job: &QueuedJob, now: SimTime, at: SimTime) -> bool {
        at < self.search_before(job, now)
    }

    /// The instant before which a backfill search for `job` matters: a start at or after it
    /// neither starts now nor gets a reservation (past the window, or too young to reserve).
    fn search_before(&self, job: &QueuedJob, now: SimTime) -> SimTime {
        if now - job.queued_at < secs(self.cfg.bf_min_age_reserve_s) {
            return SimTime(now.0.saturating_add(1));
        }
        let window = now + secs(self.cfg.bf_window_min.saturating_mul(60));
        SimTime(window.0.saturating_add(1))
    }

    /// The backfill on a site of units: the queue positions that start now.
    fn backfill(&mut self, site: &SiteView, fit: &mut NowFit) -> Vec<usize> {
        let now = site.now;
        let (mut tried, narrowest) = self.reachable();
        let free = fit.profile(site).free_at(now);
        self.up_to_last_candidate(&mut tried, |job| job.units <= free);
        let mut started = Vec::new();
        for i in tried {
            if fit.profile(site).free_at(now) < narrowest[i] {
                break;
            }
            let job = self.queue[i].job;
            if self.held(job.idx) {
                continue;
            }
            let planned = self.rounded(job.estimate);
            let profile = fit.profile(site);
            let Some(at) = profile.earliest_start(now, job.units, planned) else {
                continue;
            };
            if at == now {
                fit.take(job.units, job.estimate);
                self.admit(job.idx);
                started.push(i);
            } else if self.may_reserve(&job, now, at) {
                match self.cfg.bf_node_cpus {
                    0 | 1 => fit.profile(site).reserve(at, planned, job.units),
                    n => {
                        // Slurm reserves whole nodes: ⌈units / n⌉ of them, all they have free.
                        let whole = job.units.div_ceil(n).saturating_mul(n).min(site.capacity);
                        fit.profile(site).reserve_up_to(at, planned, whole);
                    }
                }
            }
        }
        started
    }

    /// The backfill on a node-typed site: a plan of the nodes with the running jobs, the
    /// main scheduler's starts (`placed`: estimate and nodes) and each reservation made,
    /// every job examined placed at its earliest start on particular nodes. `free` is what
    /// the nodes have free now after the main scheduler's starts: a start now must be
    /// within it (the plan holds a job past its estimate until the next tick, so it is).
    fn backfill_on_nodes(
        &mut self,
        site: &SiteView,
        nodes: &NodesView,
        placed: &[(SimTime, Vec<Share>)],
        mut free: NodeFree,
        fit: &mut NowFit,
    ) -> Vec<usize> {
        let now = site.now;
        let (mut tried, narrowest) = self.reachable();
        // A job of units that the nodes free now cannot hold cannot start now whatever the
        // plan (its placement succeeds on the plan's room only if on more room); a job
        // with GPUs or a node count may (its placement is not monotone in the room).
        let sets = &self.sets;
        let prio = &self.prio;
        self.up_to_last_candidate(&mut tried, |job| {
            let mask = sets.mask(prio.partition(job.idx));
            nodes.unit_mem_of(job).is_none()
                || fit.nodes.fits_within(nodes, job.idx, job.units, mask)
        });
        if tried.is_empty() {
            return Vec::new();
        }
        self.plan.build(site, nodes, true);
        for (estimate, shares) in placed {
            self.plan.hold(now, now.after(*estimate), shares);
        }
        let mut started = Vec::new();
        // Per shape of a job of units (processors, KB per processor, planned run), where
        // this pass's last search of that shape ended (its start, or where it stopped).
        // The plan only gains holds within a pass, and a job of units fits wherever one
        // at least as wide, as hungry and as long does, so a job starts no sooner than
        // any shape it covers (RICC's queues repeat shapes; a search there tried 17
        // instants, each a walk of the nodes).
        let mut floors: Vec<(Shape, SimTime)> = Vec::new();
        for i in tried {
            if self.plan.cores_free_at(now) < narrowest[i] {
                break;
            }
            let job = self.queue[i].job;
            if self.held(job.idx) {
                continue;
            }
            let planned = QueuedJob {
                estimate: self.rounded(job.estimate),
                ..job
            };
            // A start past the window or a job too young to reserve changes nothing: the
            // search stops there (the plan's searches are its cost on nodes).
            let before = self.search_before(&job, now);
            let partition = self.prio.partition(job.idx);
            let shape = nodes
                .unit_mem_of(&job)
                .map(|m| (partition, job.units, m, planned.estimate));
            let from = shape.map_or(now, |k| floor(&floors, k).max(now));
            let mask = self.sets.mask(partition);
            let found = match from < before {
                true => self
                    .plan
                    .earliest((now, from), before, &planned, nodes, mask),
                false => None,
            };
            if let Some(k) = shape {
                let end = found.unwrap_or(before.max(from));
                match floors.iter_mut().find(|f| f.0 == k) {
                    Some(f) => f.1 = end,
                    None => floors.push((k, end)),
                }
            }
            let Some(at) = found else {
                continue;
            };
            let shares = self.plan.take_probe();
            if at == now {
                if !within(&free, &shares) {
                    continue;
                }
                free.take(&shares);
                self.plan.hold(now, now.after(job.estimate), &shares);
                self.chosen.push((job.idx, shares));
                self.admit(job.idx);
                started.push(i);
            } else if self.may_reserve(&job, now, at) {
                match self.cfg.bf_node_cpus {
                    // Slurm reserves the nodes whole, whatever share of them the job takes.
                    0 => self.plan.hold(at, at.after(planned.estimate), &shares),
                    _ => self
                        .plan
                        .hold_nodes(at, at.after(planned.estimate), &shares),
                }
            }
        }
        started
    }
}

impl Slurm {
    /// Starts the jobs at queue positions `started` (increasing) and takes them out.
    fn start_positions(&mut self, started: &[usize], now: SimTime, starts: &mut Vec<JobIdx>) {
        for &i in started {
            let job = self.queue[i].job;
            self.start(job, now, starts);
        }
        // The queue's head (the main scheduler's usual starts): one move of the rest.
        if started.last().is_none_or(|&l| l + 1 == started.len()) {
            self.queue.drain(..started.len());
            return;
        }
        let mut k = 0;
        let mut i = 0;
        self.queue.retain(|_| {
            let keep = started.get(k) != Some(&i);
            if !keep {
                k += 1;
            }
            i += 1;
            keep
        });
    }
}

impl LocalPolicy for Slurm {
    fn name(&self) -> &'static str {
        "slurm"
    }

    fn enqueue(&mut self, job: QueuedJob, site: &SiteView) {
        self.capacity = site.capacity;
        self.advance(site.now);
        // The nodes (and so a job's share of their memory and GPUs) are seen at passes.
        let tres = (!self.weighs_mem_or_gpus()).then(TresShare::default);
        let entry = Entry {
            job,
            tier: self.prio.tier(job.idx),
            tres,
            priority: self.priority_at(&job, tres.unwrap_or_default(), site.now),
        };
        let at = self.queue.partition_point(|e| e.key() < entry.key());
        self.queue.insert(at, entry);
        *self.widths.entry(job.units).or_insert(0) += 1;
    }

    fn schedule(&mut self, site: &SiteView, starts: &mut Vec<JobIdx>) {
        let now = site.now;
        self.capacity = site.capacity;
        self.chosen.clear();
        self.settle_ends(site);
        self.advance(now);
        self.settle_tres(site);
        self.resort();
        let mut fit = NowFit::new(site);
        // 1. The main scheduler: in priority order while the jobs fit (on a node-typed
        // site, where the engine's placement puts them: their nodes are kept for the plan).
        let mut placed = Vec::new();
        match &site.nodes {
            Some(nodes) if self.sets.any() => {
                self.main_on_node_sets(site, nodes, &mut fit, &mut placed, starts);
            }
            _ => {
                let mut started = Vec::new();
                for i in 0..self.queue.len() {
                    let job = self.queue[i].job;
                    // A job its QOS holds blocks nothing (slurmctld checks the limits
                    // before it tries the job).
                    if self.held(job.idx) {
                        continue;
                    }
                    if !fit.fits_job(site, &job) {
                        break;
                    }
                    if site.nodes.is_some() {
                        placed.push((job.estimate, fit.nodes.last().to_vec()));
                    }
                    fit.take_job(site, &job);
                    self.admit(job.idx);
                    started.push(i);
                }
                self.start_positions(&started, now, starts);
            }
        }
        if self.queue.is_empty() || fit.free() == 0 || !self.backfill_due(now) {
            return;
        }
        // 2. The backfill, on the plan with this pass's starts.
        let started = match &site.nodes {
            None => self.backfill(site, &mut fit),
            Some(nodes) => {
                let free = fit.nodes.free(nodes).clone();
                self.backfill_on_nodes(site, nodes, &placed, free, &mut fit)
            }
        };
        self.start_positions(&started, now, starts);
    }

    fn refuses(&self, idx: JobIdx, job: &Job) -> Option<Refusal> {
        if let Some(r) = self.qos.refuses(self.prio.table(), idx, job.estimate) {
            return Some(r);
        }
        if let Some(max) = self.prio.max_time(idx).filter(|&m| job.estimate > m) {
            return Some(Refusal::PartitionTimeLimit {
                limit_s: (job.estimate.0.saturating_add(999) / 1000).max(0) as u64,
                max_time_s: (max.0 / 1000).max(0) as u64,
            });
        }
        let p = self.prio.partition(idx);
        let (resource, needs, most) = self.sets.never_holds(p, idx as usize, job.procs)?;
        Some(Refusal::PartitionNodes {
            resource,
            needs,
            most,
        })
    }

    fn places_on_nodes(&self) -> bool {
        true
    }

    fn chosen_nodes(&mut self, idx: JobIdx, out: &mut Vec<Share>) -> bool {
        match self.chosen.iter().position(|c| c.0 == idx) {
            Some(i) => {
                let (_, shares) = self.chosen.swap_remove(i);
                out.clear();
                out.extend_from_slice(&shares);
                true
            }
            None => false,
        }
    }

    fn queue_len(&self) -> usize {
        self.queue.len()
    }

    fn held_by_limit(&self, idx: JobIdx) -> Option<String> {
        self.qos.why(self.prio.table(), idx)
    }

    fn priorities(&self, at: SimTime) -> Option<Vec<(JobIdx, Factors, u64)>> {
        // A copy brought to `at`: Slurm recomputes at every PriorityCalcPeriod tick, events
        // or not, and `sprio` shows the last computation.
        let mut prio = self.prio.clone();
        prio.advance(at, &self.first_pending());
        let mut rows = self.factors_by(&prio);
        rows.sort_by_key(|&(idx, _, p)| (Reverse(self.prio.tier(idx)), Reverse(p), idx));
        Some(rows)
    }

    fn queued(&self) -> Vec<QueuedJob> {
        self.queue.iter().map(|e| e.job).collect()
    }

    fn withdraw(&mut self, job: JobIdx) -> bool {
        match self.queue.iter().position(|e| e.job.idx == job) {
            Some(at) => {
                let gone = self.queue.remove(at);
                self.forget_width(gone.job.units);
                true
            }
            None => false,
        }
    }

    fn released(&mut self, now: SimTime, units: u32, predicted_end: SimTime) {
        self.ended.push((now, predicted_end, units));
    }

    /// The next tick (or, with `bf_interval`, the next backfill if sooner), while a queued
    /// job would fit in what is free: Slurm's schedulers run every second or so, events or
    /// not, so a job the tick makes the head starts at the tick (docs/slurm.md). With
    /// nothing narrow enough free, a tick changes no start and the next end brings the
    /// pass.
    fn wake_at(&self, site: &SiteView) -> Option<SimTime> {
        // A job its QOS holds waits for an end, which brings a pass anyway.
        let narrowest = match self.qos.any() {
            true => self
                .queue
                .iter()
                .filter(|e| !self.held(e.job.idx))
                .map(|e| e.job.units)
                .min()?,
            false => *self.widths.keys().next()?,
        };
        if site.free < narrowest {
            return None;
        }
        let tick = self.prio.next_tick();
        Some(self.next_backfill(site.now).map_or(tick, |b| b.min(tick)))
    }
}
