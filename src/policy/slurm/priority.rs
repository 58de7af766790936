//! Slurm's multifactor priority (slurm.schedmd.com/priority_multifactor.html):
//! `priority = Σ weightᵢ · factorᵢ`, each factor in [0, 1], truncated to an integer as
//! slurmctld does; fair-share usage decayed by `PriorityDecayHalfLife` and everything
//! recomputed at `PriorityCalcPeriod` ticks (multiples of the period from t = 0).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::Arc;

use super::assoc_of_jobs::AssocOfJobs;
use super::qos::QosOfJobs;
use super::SlurmConfig;
use crate::model::{Job, JobIdx};
use crate::time::SimTime;

/// Who each job belongs to, as dense indices: users (SWF field 12) and partitions (field
/// 16), each numbered in increasing order of the trace's number. Built once per run and
/// shared by every site's policy. An empty table (a policy built without the workload)
/// puts every job in user 0 and partition 0.
#[derive(Clone, Debug, Default)]
pub struct SlurmJobs {
    user: Vec<u32>,
    partition: Vec<u32>,
    users: Vec<i32>,
    partitions: Vec<i32>,
    /// Each job's QOS definition (issue #42; none unless [`SlurmJobs::with_qos`]).
    qos: QosOfJobs,
    /// Each job's association (by user unless [`SlurmJobs::with_assocs`]).
    assocs: AssocOfJobs,
}

impl SlurmJobs {
    pub fn from_jobs(jobs: &[Job]) -> SlurmJobs {
        fn dense(values: impl Iterator<Item = i32> + Clone) -> (Vec<u32>, Vec<i32>) {
            let distinct: BTreeMap<i32, u32> = values.clone().map(|v| (v, 0)).collect();
            let names: Vec<i32> = distinct.keys().copied().collect();
            let index: BTreeMap<i32, u32> = names
                .iter()
                .enumerate()
                .map(|(i, &v)| (v, i as u32))
                .collect();
            (values.map(|v| index[&v]).collect(), names)
        }
        let (user, users) = dense(jobs.iter().map(|j| j.user));
        let (partition, partitions) = dense(jobs.iter().map(|j| j.partition));
        SlurmJobs {
            user,
            partition,
            users,
            partitions,
            qos: QosOfJobs::default(),
            assocs: AssocOfJobs::default(),
        }
    }

    /// The table with each job's association (fair share's usage is charged to it).
    pub fn with_assocs(self, assocs: AssocOfJobs) -> SlurmJobs {
        SlurmJobs { assocs, ..self }
    }

    /// Job `idx`'s association, densely numbered: its user's dense index when the
    /// configuration has no account tree.
    pub fn assoc(&self, idx: JobIdx) -> u32 {
        match self.assocs.is_by_user() {
            true => self.user(idx),
            false => self.assocs.get(idx as usize).unwrap_or(0),
        }
    }

    /// The user (densely numbered) of association `a`.
    fn user_of_assoc(&self, a: usize) -> usize {
        match self.assocs.keys().get(a) {
            Some(&(user, _)) => self.users.binary_search(&user).unwrap_or(0),
            None => a,
        }
    }

    /// The associations fair share charges (at least 1).
    fn assoc_count(&self) -> usize {
        match self.assocs.is_by_user() {
            true => self.user_count(),
            false => self.assocs.keys().len().max(1),
        }
    }

    /// The table with each job's QOS definition.
    pub fn with_qos(self, qos: QosOfJobs) -> SlurmJobs {
        SlurmJobs { qos, ..self }
    }

    /// Job `idx`'s QOS definition (an index into the configuration's `qos`), or
    /// [`super::NO_QOS`].
    pub fn qos(&self, idx: JobIdx) -> u32 {
        self.qos.get(idx as usize)
    }

    /// Job `idx`'s CPUs, memory (KB) and GPUs, as a QOS's TRES limits count them (zeros
    /// unless one does).
    pub fn qos_tres(&self, idx: JobIdx) -> [u64; 3] {
        self.qos.tres(idx as usize)
    }

    /// Job `idx`'s user, densely numbered.
    pub fn user(&self, idx: JobIdx) -> u32 {
        self.user.get(idx as usize).copied().unwrap_or(0)
    }

    /// Job `idx`'s partition, densely numbered.
    pub fn partition(&self, idx: JobIdx) -> u32 {
        self.partition.get(idx as usize).copied().unwrap_or(0)
    }

    /// The trace's user numbers, by dense index.
    pub fn users(&self) -> &[i32] {
        &self.users
    }

    /// The trace's partition numbers, by dense index.
    pub fn partitions(&self) -> &[i32] {
        &self.partitions
    }

    fn user_count(&self) -> usize {
        self.users.len().max(1)
    }

    fn partition_count(&self) -> usize {
        self.partitions.len().max(1)
    }
}

/// One job's factors, each in [0, 1] (what `sprio -l` shows before the weights).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Factors {
    pub age: f64,
    pub fairshare: f64,
    pub job_size: f64,
    pub partition: f64,
    pub qos: f64,
    /// The TRES factors: the job's share of its site's CPUs, memory and GPUs.
    pub tres_cpu: f64,
    pub tres_mem: f64,
    pub tres_gpu: f64,
}

/// A job's share of its site's memory and GPUs (its TRES factors but CPU's, which is its
/// units over the site's); zero on a site of processors, which has neither.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TresShare {
    pub mem: f64,
    pub gpu: f64,
}

/// The multifactor state of one site: usage per user and the factors derived from it at
/// the last tick.
#[derive(Clone, Debug)]
pub struct Priorities {
    /// Age, fair share, job size, partition, QOS, then TRES CPU, memory and GPUs.
    weights: [f64; 8],
    max_age: SimTime,
    favor_small: bool,
    period: SimTime,
    /// Usage is multiplied by this at every tick: 2^(−period / half-life).
    decay: f64,
    jobs: Arc<SlurmJobs>,
    /// Each user's share of the whole (shares / Σ shares).
    norm_shares: Vec<f64>,
    /// Each partition's `PriorityJobFactor` over the largest.
    partition_factor: Vec<f64>,
    /// Each QOS definition's factor: its priority over the highest.
    qos_factor: Vec<f64>,
    /// Each partition's `PriorityTier`.
    tier: Vec<u32>,
    /// Each partition's `MaxTime` (`None`: unlimited).
    max_time: Vec<Option<SimTime>>,
    /// Decayed usage at the last tick (unit-seconds).
    usage: Vec<f64>,
    /// Usage since the last tick, not yet decayed.
    accrued: Vec<f64>,
    /// Units each user has running now.
    rate: Vec<u64>,
    /// Up to when `accrued` counts.
    accrued_to: Vec<SimTime>,
    /// The fair-share factor of each user as of the last tick; NaN until first read after
    /// a classic tick ([`Priorities::fairshare_of`]).
    fairshare: Vec<Cell<f64>>,
    /// Each user's effective usage (U) at the last classic tick.
    effective: Vec<f64>,
    /// When each running job started, and its units: a job is charged only at the ticks
    /// it runs through (what it ran after the last tick before its end is never charged,
    /// as in Slurm), in job order.
    running_since: BTreeMap<JobIdx, (SimTime, u32)>,
    /// Fair Tree instead of classic fair share ([`SlurmConfig::fair_tree`]).
    fair_tree: bool,
    /// A Fair Tree tick passed and the ranks are not computed yet (they are when first
    /// read: with fair share unweighted they never are).
    ranks_stale: Cell<bool>,
    /// User associations with no job here, and whether they hold shares (then, having used
    /// nothing, they rank first; else last).
    other_users: u32,
    others_hold_shares: bool,
    /// The account tree Fair Tree walks when users sit under accounts
    /// ([`SlurmConfig::accounts`]); `None`: every user under `root`.
    tree: Option<super::fair_tree::AccountTree>,
    last_tick: SimTime,
    next_tick: SimTime,
}

impl Priorities {
    pub fn new(cfg: &SlurmConfig, jobs: Arc<SlurmJobs>) -> Priorities {
        let mut shares = vec![1.0f64; jobs.user_count()];
        for s in &cfg.shares {
            if let Ok(i) = jobs.users.binary_search(&s.user) {
                shares[i] = s.shares as f64;
            }
        }
        let total: f64 = shares.iter().sum::<f64>() + cfg.other_shares as f64;
        // Each association has its user's normalised shares (classic fair share; a user's
        // second account is not scaled by its own path: docs/slurm.md).
        let users = jobs.assoc_count();
        let norm_shares = (0..users)
            .map(|a| shares[jobs.user_of_assoc(a)])
            .map(|s| if total > 0.0 { s / total } else { 0.0 })
            .collect();
        let mut pjf = vec![1u32; jobs.partition_count()];
        let mut tier = vec![1u32; jobs.partition_count()];
        let mut max_time = vec![None; jobs.partition_count()];
        for (i, raw) in jobs.partitions.iter().enumerate() {
            let name = raw.to_string();
            if let Some(p) = cfg.partitions.iter().find(|p| p.name == name) {
                pjf[i] = p.priority_job_factor;
                tier[i] = p.priority_tier;
                max_time[i] = p.max_time_s.map(super::secs);
            }
        }
        // The normalisation runs over every partition the configuration names too.
        let max = pjf
            .iter()
            .copied()
            .chain(cfg.partitions.iter().map(|p| p.priority_job_factor))
            .max()
            .unwrap_or(1);
        let partition_factor = pjf
            .iter()
            .map(|&f| if max == 0 { 0.0 } else { f as f64 / max as f64 })
            .collect();
        // Slurm normalises a QOS's priority by the highest of any QOS.
        let qos_max = cfg.qos.iter().map(|q| q.priority).max().unwrap_or(0);
        let qos_factor = cfg
            .qos
            .iter()
            .map(|q| match qos_max {
                0 => 0.0,
                m => q.priority as f64 / m as f64,
            })
            .collect();
        let period = super::secs(cfg.calc_period_s.max(1));
        let decay = if cfg.decay_half_life_s == 0 {
            1.0
        } else {
            libm::exp2(-period.as_secs_f64() / super::secs(cfg.decay_half_life_s).as_secs_f64())
        };
        let tree = cfg
            .fair_tree
            .then(|| {
                let dense = |account: usize, user: i32| match jobs.assocs.is_by_user() {
                    true => jobs.users.binary_search(&user).ok(),
                    false => jobs.assocs.find(account as u32, user),
                };
                super::fair_tree::AccountTree::new(&cfg.accounts, dense, users)
            })
            .flatten();
        Priorities {
            weights: [
                cfg.weight_age as f64,
                cfg.weight_fairshare as f64,
                cfg.weight_job_size as f64,
                cfg.weight_partition as f64,
                cfg.weight_qos as f64,
                cfg.weight_tres.cpu as f64,
                cfg.weight_tres.mem as f64,
                cfg.weight_tres.gpu as f64,
            ],
            max_age: super::secs(cfg.max_age_s),
            favor_small: cfg.favor_small,
            period,
            decay,
            jobs,
            norm_shares,
            partition_factor,
            qos_factor,
            tier,
            max_time,
            usage: vec![0.0; users],
            accrued: vec![0.0; users],
            rate: vec![0; users],
            accrued_to: vec![SimTime::ZERO; users],
            fairshare: vec![Cell::new(1.0); users],
            effective: vec![0.0; users],
            running_since: BTreeMap::new(),
            fair_tree: cfg.fair_tree,
            ranks_stale: Cell::new(false),
            other_users: cfg.other_users,
            others_hold_shares: cfg.other_shares > 0,
            tree,
            last_tick: SimTime::ZERO,
            next_tick: period,
        }
    }

    /// Job `idx`'s user, densely numbered.
    pub fn user(&self, idx: JobIdx) -> u32 {
        self.jobs.user(idx)
    }

    /// Job `idx`'s partition, densely numbered.
    pub fn partition(&self, idx: JobIdx) -> u32 {
        self.jobs.partition(idx)
    }

    /// Who each job belongs to.
    pub fn table(&self) -> &SlurmJobs {
        &self.jobs
    }

    /// The `PriorityTier` of job `idx`'s partition.
    pub fn tier(&self, idx: JobIdx) -> u32 {
        let p = self.jobs.partition(idx) as usize;
        self.tier.get(p).copied().unwrap_or(1)
    }

    /// The `MaxTime` of job `idx`'s partition (`None`: unlimited).
    pub fn max_time(&self, idx: JobIdx) -> Option<SimTime> {
        let p = self.jobs.partition(idx) as usize;
        self.max_time.get(p).copied().flatten()
    }

    /// Users in the workload (at least 1).
    pub fn users(&self) -> usize {
        self.jobs.user_count()
    }

    /// Job `idx`'s association (fair share's unit), densely numbered.
    pub fn assoc(&self, idx: JobIdx) -> u32 {
        self.jobs.assoc(idx)
    }

    /// Associations in the workload (at least 1): its users unless jobs run under an
    /// account tree.
    pub fn assocs(&self) -> usize {
        self.jobs.assoc_count()
    }

    /// The last tick at or before the present.
    pub fn last_tick(&self) -> SimTime {
        self.last_tick
    }

    /// The first tick after the last [`Priorities::advance`].
    pub fn next_tick(&self) -> SimTime {
        self.next_tick
    }

    /// True when a tick falls at or before `now` (so [`Priorities::advance`] needs each
    /// user's first pending job).
    pub fn tick_due(&self, now: SimTime) -> bool {
        now >= self.next_tick
    }

    /// True when [`Priorities::advance`] reads each user's first pending job (classic fair
    /// share; Fair Tree charges every running job before it ranks anyone).
    pub fn needs_first_pending(&self) -> bool {
        !self.fair_tree
    }

    /// Brings the usage to `now`: every tick at or before it decays the usage and adds
    /// what ran since the tick before. True when at least one tick passed (the caller
    /// recomputes its queue's priorities at [`Priorities::last_tick`]).
    ///
    /// `first_pending[u]` is user u's lowest pending job (`JobIdx::MAX` for none): the
    /// fair-share factor a tick gives a user with pending jobs is Slurm's, which walks its
    /// job list in job order, charging each running job its new usage and fixing each
    /// user's effective usage (own usage over everyone's, as charged so far) at that user's
    /// first pending job (priority_multifactor's decay thread, seen on a real slurmctld:
    /// docs/slurm.md "Against a real slurmctld"). A user with none gets it from the whole
    /// tick's usage, when a job of theirs next arrives.
    pub fn advance(&mut self, now: SimTime, first_pending: &[JobIdx]) -> bool {
        if now < self.next_tick {
            return false;
        }
        let prev_tick = self.last_tick;
        // Ticks T₁ < … < T_k ≤ now. The first interval ends at T₁; the k − 1 after it are
        // whole periods run at constant rates (no job started or ended in between: the
        // policy hears of every start and end when it happens).
        let k = (now - self.next_tick).0 / self.period.0 + 1;
        let first = self.next_tick;
        let last = first + SimTime(self.period.0 * (k - 1));
        let p = self.period.as_secs_f64();
        let d = self.decay;
        // d^(k−1) and 1 + d + … + d^(k−2).
        let dk1 = libm::pow(d, (k - 1) as f64);
        let geometric = |n: i64| {
            if d == 1.0 {
                n as f64
            } else {
                (1.0 - libm::pow(d, n as f64)) / (1.0 - d)
            }
        };
        // The same for every user (computed once: a tick of a site with hundreds of users
        // would otherwise spend most of its time in `pow`).
        let (dk2, g2, g1) = if k == 1 {
            (1.0, 0.0, 0.0)
        } else {
            (
                libm::pow(d, (k - 2) as f64),
                geometric(k - 2),
                geometric(k - 1),
            )
        };
        // `before`: the usage after tick T_{k−1}, from which the walk of tick T_k starts.
        let mut before = Vec::with_capacity(self.usage.len());
        for u in 0..self.usage.len() {
            let r = self.rate[u] as f64;
            let a1 = self.accrued[u] + r * (first - self.accrued_to[u]).as_secs_f64();
            // U₁ = U₀·d + a₁, then U_j = U_{j−1}·d + r·P.
            let u1 = self.usage[u] * d + a1;
            before.push(if k == 1 {
                self.usage[u]
            } else {
                u1 * dk2 + r * p * g2
            });
            self.usage[u] = if k == 1 { u1 } else { u1 * dk1 + r * p * g1 };
            self.accrued[u] = 0.0;
            self.accrued_to[u] = last;
        }
        self.last_tick = last;
        self.next_tick = last + self.period;
        if self.fair_tree {
            self.ranks_stale.set(true);
            return true;
        }
        // The walk of tick T_k: usage decayed, then each running job in job order charged
        // what it ran since T_{k−1} (or its start, when only one tick passed).
        let from = if k == 1 {
            prev_tick
        } else {
            last - self.period
        };
        let mut own: Vec<f64> = before.iter().map(|b| b * d).collect();
        let mut total: f64 = own.iter().sum();
        let mut effective: Vec<Option<f64>> = vec![None; own.len()];
        // Users with pending jobs, in the order the walk meets their first one.
        let mut waiting: Vec<(JobIdx, usize)> = first_pending
            .iter()
            .enumerate()
            .filter(|&(u, &f)| f != JobIdx::MAX && u < own.len())
            .map(|(u, &f)| (f, u))
            .collect();
        waiting.sort_unstable();
        let mut next = waiting.iter().peekable();
        let ratio = |own: f64, total: f64| if total > 0.0 { own / total } else { 0.0 };
        for (&idx, &(since, units)) in &self.running_since {
            while let Some(&(_, u)) = next.next_if(|&&(f, _)| f < idx) {
                effective[u] = Some(ratio(own[u], total));
            }
            let charge = units as f64 * (last - since.max(from)).as_secs_f64();
            let u = self.jobs.assoc(idx) as usize;
            own[u] += charge;
            total += charge;
        }
        for &(_, u) in next {
            effective[u] = Some(ratio(own[u], total));
        }
        let whole: f64 = self.usage.iter().sum();
        for (u, fixed) in effective.into_iter().enumerate() {
            let share = match fixed {
                Some(e) => e,
                None if whole > 0.0 => self.usage[u] / whole,
                None => 0.0,
            };
            self.effective[u] = share;
            self.fairshare[u].set(f64::NAN);
        }
        true
    }

    /// User u's fair-share factor as of the last tick. Classic's 2^(−U/S) is computed when
    /// first read after a tick (most users of a long log have no job queued at a given
    /// tick, and a tick would otherwise spend most of its time in `exp2`), Fair Tree's
    /// ranks when the first user's is read; the values do not depend on when.
    fn fairshare_of(&self, u: usize) -> f64 {
        if self.ranks_stale.replace(false) {
            self.rank_fair_tree();
        }
        let cached = self.fairshare[u].get();
        if !cached.is_nan() {
            return cached;
        }
        let (share, norm) = (self.effective[u], self.norm_shares[u]);
        let f = if norm > 0.0 {
            libm::exp2(-share / norm)
        } else {
            0.0
        };
        self.fairshare[u].set(f);
        f
    }

    /// Fair Tree (Slurm's `fair_tree.c`, `_apply_priority_fs`), all users under one root:
    /// each user's level fair share is S / U, S its shares over its level's, U its decayed
    /// usage over the root's (S / 0 = ∞: a user who used nothing ranks first; S = 0 ranks
    /// last). Users are walked from the highest level fair share down; each gets
    /// rank / users, the rank counting down from the number of user associations, and a
    /// user tied with the one before keeps its rank.
    fn rank_fair_tree(&self) {
        if let Some(tree) = &self.tree {
            return tree.rank(&self.usage, &self.fairshare);
        }
        let root: f64 = self.usage.iter().sum();
        let level: Vec<f64> = (0..self.usage.len())
            .map(|u| {
                let s = self.norm_shares[u];
                if s == 0.0 {
                    0.0
                } else {
                    s / if root > 0.0 {
                        self.usage[u] / root
                    } else {
                        0.0
                    }
                }
            })
            .collect();
        let mut order: Vec<usize> = (0..level.len()).collect();
        order.sort_by(|&a, &b| level[b].total_cmp(&level[a]));
        let other = if self.others_hold_shares {
            f64::INFINITY
        } else {
            0.0
        };
        let n = level.len() + self.other_users as usize;
        let (mut rank, mut rnt) = (n, n);
        let mut others = self.other_users;
        let mut prev: Option<f64> = None;
        let mut users = order.into_iter().peekable();
        loop {
            // At a tie it does not matter who goes first: both keep the rank.
            let user = users.next_if(|&u| others == 0 || level[u] >= other);
            let value = match user {
                Some(u) => level[u],
                None if others > 0 => {
                    others -= 1;
                    other
                }
                None => break,
            };
            if prev != Some(value) {
                rank = rnt;
            }
            if let Some(u) = user {
                self.fairshare[u].set(rank as f64 / n as f64);
            }
            rnt -= 1;
            prev = Some(value);
        }
    }

    fn accrue(&mut self, u: usize, t: SimTime) {
        let from = self.accrued_to[u];
        if t > from {
            self.accrued[u] += self.rate[u] as f64 * (t - from).as_secs_f64();
            self.accrued_to[u] = t;
        }
    }

    /// Job `idx` started `units` at `t` (after [`Priorities::advance`] to `t`).
    pub fn started(&mut self, idx: JobIdx, units: u32, t: SimTime) {
        let u = self.jobs.assoc(idx) as usize;
        self.accrue(u, t);
        self.rate[u] += units as u64;
        self.running_since.insert(idx, (t, units));
    }

    /// Job `idx`, which held `units`, ended at `t` (after [`Priorities::advance`] to `t`).
    pub fn ended(&mut self, idx: JobIdx, units: u32, t: SimTime) {
        let u = self.jobs.assoc(idx) as usize;
        self.accrue(u, t);
        self.rate[u] = self.rate[u].saturating_sub(units as u64);
        // Slurm charges running jobs at its ticks only: what this job ran since the last
        // tick (or its start) is not charged.
        if let Some((since, _)) = self.running_since.remove(&idx) {
            let from = since.max(self.last_tick);
            if t > from {
                let lost = units as f64 * (t - from).as_secs_f64();
                self.accrued[u] = (self.accrued[u] - lost).max(0.0);
            }
        }
    }

    /// The factors of job `idx` needing `units` of a site of `capacity`, queued since
    /// `queued_at`, as of instant `at`.
    pub fn factors(
        &self,
        idx: JobIdx,
        units: u32,
        capacity: u32,
        tres: TresShare,
        queued_at: SimTime,
        at: SimTime,
    ) -> Factors {
        let age = if self.max_age <= SimTime::ZERO {
            1.0
        } else {
            let waited = (at - queued_at).max(SimTime::ZERO);
            (waited.0 as f64 / self.max_age.0 as f64).min(1.0)
        };
        let size = if capacity == 0 {
            0.0
        } else {
            (units as f64 / capacity as f64).min(1.0)
        };
        Factors {
            age,
            fairshare: self.fairshare_of(self.jobs.assoc(idx) as usize),
            job_size: if self.favor_small { 1.0 - size } else { size },
            partition: self.partition_factor[self.jobs.partition(idx) as usize],
            qos: self
                .qos_factor
                .get(self.jobs.qos(idx) as usize)
                .copied()
                .unwrap_or(0.0),
            tres_cpu: size,
            tres_mem: tres.mem.min(1.0),
            tres_gpu: tres.gpu.min(1.0),
        }
    }

    /// True when a tick can change a queued job's priority: age or fair share is weighed
    /// (the other factors are the job's own).
    pub fn ticks_change_priorities(&self) -> bool {
        self.weights[0] != 0.0 || self.weights[1] != 0.0
    }

    /// `Σ weightᵢ · factorᵢ`, truncated (the sum in a fixed order, so every run agrees).
    pub fn priority(&self, f: &Factors) -> u64 {
        let w = &self.weights;
        // The TRES terms come last: with their weights 0 the sum is the same bits as
        // before they existed.
        let sum = w[0] * f.age
            + w[1] * f.fairshare
            + w[2] * f.job_size
            + w[3] * f.partition
            + w[4] * f.qos
            + w[5] * f.tres_cpu
            + w[6] * f.tres_mem
            + w[7] * f.tres_gpu;
        sum.max(0.0) as u64
    }

    /// Decayed usage per user (dense index) as of the last tick, in unit-seconds.
    pub fn usage(&self) -> &[f64] {
        &self.usage
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: JobIdx = JobIdx::MAX;

    /// Two jobs per user, job i user i mod `users`; `cfg` with a tick every 100 s and no
    /// decay.
    fn priorities(users: i64, cfg: SlurmConfig) -> Priorities {
        let job = |id: i64| Job {
            id,
            submit: SimTime::ZERO,
            runtime: SimTime::from_secs(1000),
            estimate: SimTime::from_secs(1000),
            procs: 10,
            home: 0,
            user: (id % users) as i32,
            partition: 1,
        };
        let cfg = SlurmConfig {
            calc_period_s: 100,
            decay_half_life_s: 0,
            ..cfg
        };
        let jobs: Vec<Job> = (0..2 * users).map(job).collect();
        Priorities::new(&cfg, Arc::new(SlurmJobs::from_jobs(&jobs)))
    }

    /// Jobs 0 and 2 are user 0's, 1 and 3 user 1's.
    fn two_users() -> Priorities {
        priorities(2, SlurmConfig::default())
    }

    fn fairshare(p: &Priorities, idx: JobIdx) -> f64 {
        p.factors(
            idx,
            1,
            10,
            TresShare::default(),
            SimTime::ZERO,
            p.last_tick(),
        )
        .fairshare
    }

    /// What slurmctld 22.05 did in the replay (docs/slurm.md): a job that starts and ends
    /// between two ticks is never charged; one that runs across a tick is charged up to it,
    /// and not for what it ran after the last tick before its end.
    #[test]
    fn only_jobs_running_at_a_tick_are_charged() {
        let mut p = two_users();
        p.started(0, 10, SimTime::from_secs(10));
        p.ended(0, 10, SimTime::from_secs(50));
        p.started(1, 4, SimTime::from_secs(60));
        assert!(p.advance(SimTime::from_secs(100), &[]));
        assert_eq!(p.usage(), [0.0, 160.0]);
        p.ended(1, 4, SimTime::from_secs(150));
        p.advance(SimTime::from_secs(200), &[]);
        assert_eq!(p.usage(), [0.0, 160.0]);
    }

    /// A tick walks the jobs in job order: user 1's effective usage is fixed at its first
    /// pending job. Pending job 3 comes after its running job 1, so the tick's 1000 unit-s
    /// count (all the usage: 2^(−1/0.5)); pending job 0 (given as user 1's here) comes
    /// before it, so they do not (0 of 0: 1). A user with no pending job gets the whole
    /// tick's usage. Three ticks at once give what three single ticks give.
    #[test]
    fn a_tick_walks_the_jobs_in_order() {
        let after = |first: &[JobIdx]| {
            let mut p = two_users();
            p.started(1, 10, SimTime::ZERO);
            p.advance(SimTime::from_secs(100), first);
            (fairshare(&p, 0), fairshare(&p, 1))
        };
        assert_eq!(after(&[2, 3]), (1.0, 0.25));
        assert_eq!(after(&[2, 0]), (1.0, 1.0));
        assert_eq!(after(&[NONE, NONE]), (1.0, 0.25));
        let mut q = two_users();
        q.started(1, 10, SimTime::ZERO);
        q.advance(SimTime::from_secs(300), &[2, 0]);
        let mut r = two_users();
        r.started(1, 10, SimTime::ZERO);
        for t in [100, 200, 300] {
            r.advance(SimTime::from_secs(t), &[2, 0]);
        }
        assert_eq!(q.usage(), r.usage());
        assert_eq!(fairshare(&q, 1), fairshare(&r, 1));
        // At 300 the walk meets job 0 before job 1's charge: 2000 of 2000 unit-s.
        assert_eq!(fairshare(&q, 1), 0.25);
    }

    /// Fair Tree: three users of 1 share beside the root user's 1 (four user associations).
    /// Over the first 100 s user 1 runs `units1` and user 2 `units2`. Level fair share
    /// S / U: user 0 and root used nothing (∞, rank 4 both); then the ranks count down.
    #[test]
    fn fair_tree_ranks_users_by_level_fair_share() {
        let ranks = |units1: u32, units2: u32, first_pending: &[JobIdx]| {
            let cfg = SlurmConfig {
                fair_tree: true,
                other_users: 1,
                other_shares: 1,
                ..SlurmConfig::default()
            };
            let mut p = priorities(3, cfg);
            assert!(!p.needs_first_pending());
            p.started(1, units1, SimTime::ZERO);
            p.started(2, units2, SimTime::ZERO);
            p.advance(SimTime::from_secs(100), first_pending);
            [0, 1, 2].map(|j| fairshare(&p, j))
        };
        // U: 1000/1500 and 500/1500; S = 1/4: levels 0.375 and 0.75.
        assert_eq!(ranks(10, 5, &[]), [1.0, 0.25, 0.5]);
        // Equal levels tie: both rank 2 (rank 1 is skipped).
        assert_eq!(ranks(5, 5, &[]), [1.0, 0.5, 0.5]);
        // Every running job is charged before anyone is ranked: pending jobs do not matter.
        assert_eq!(ranks(10, 5, &[0, 1, 2]), [1.0, 0.25, 0.5]);
    }
}
