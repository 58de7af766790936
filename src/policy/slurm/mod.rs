//! Slurm's own policy (issue #42, docs/slurm.md): its configuration ([`SlurmConfig`], with
//! Slurm's documented defaults and the `medium_cluster` preset of `slurm_sim_tools`), the
//! `slurm.conf` lines that matter ([`read_slurm_conf`]) and the multifactor priority
//! ([`Priorities`]: age, fair share, job size, partition, QOS; slurm.schedmd.com,
//! `priority_multifactor`). The scheduling passes are `policy::local::Slurm`.
//!
//! Plain data and arithmetic: no I/O, no threads (the page runs it in wasm too).

mod assoc;
mod assoc_of_jobs;
mod conf;
mod fair_tree;
mod priority;
mod qos;

pub use assoc::{read_assoc, AssocError, AssocTree, UserAssoc};
pub use assoc_of_jobs::{AssocOfJobs, NO_ACCOUNT};
pub use conf::{read_slurm_conf, SlurmConfError, SlurmConfReport};
pub use priority::{Factors, Priorities, SlurmJobs, TresShare};
pub use qos::{qos_notes, read_qos, QosDef, QosDump, QosError, QosOfJobs, NO_QOS, QOS_TRES};

use serde::{Deserialize, Serialize};

/// What a workload's records say of each job beyond `Job` that the `slurm` policy reads:
/// its QOS and its account, each a number per job (-1: none; empty: no job names one) and
/// the names of the numbers (empty: the numbers are the names, as in SWF).
/// The users' and partitions' names (sacct's; empty for SWF) let a configuration that names
/// them (a pasted `slurm.conf`, an association dump) find their jobs.
#[derive(Clone, Copy, Debug, Default)]
pub struct JobLabels<'a> {
    pub qos: &'a [i32],
    pub qos_names: &'a [String],
    pub accounts: &'a [i32],
    pub account_names: &'a [String],
    pub user_names: &'a [String],
    pub partition_names: &'a [String],
    /// The jobs' demands (memory, GPUs), which a QOS's TRES limits count (empty:
    /// processors only).
    pub demands: &'a [crate::model::Demand],
}

impl JobLabels<'_> {
    /// `cfg` fitted to the jobs at a run's start: each partition named as the workload
    /// names one (a name that is a number is the number, as SWF has them and as
    /// [`SlurmConfig::fit_to_workload`] leaves them), and the association dump it carries
    /// (`assoc_dump`) turned into shares and an account tree for the jobs' users. Returns
    /// the dump's notes. A dump that does not read is left unapplied (the configuration's
    /// check refuses it before any run).
    pub fn resolve(&self, cfg: &mut SlurmConfig, jobs: &[crate::model::Job]) -> Vec<String> {
        if !self.partition_names.is_empty() {
            for p in &mut cfg.partitions {
                if p.name.parse::<i32>().is_ok() {
                    continue;
                }
                if let Some(i) = self.partition_names.iter().position(|n| *n == p.name) {
                    p.name = i.to_string();
                }
            }
        }
        if cfg.assoc_dump.is_empty() {
            return Vec::new();
        }
        let Ok(tree) = read_assoc(cfg.assoc_dump.as_bytes()) else {
            return Vec::new();
        };
        cfg.assoc_dump.clear();
        cfg.fit_to_workload(jobs, self.user_names, &[], Some(&tree))
    }

    /// The jobs' table for a run under `cfg`: users, partitions, QOS and associations.
    pub fn table(&self, cfg: &SlurmConfig, jobs: &[crate::model::Job]) -> SlurmJobs {
        let qos = QosOfJobs::new(&cfg.qos, jobs, self.demands, self.qos, self.qos_names);
        let assocs = AssocOfJobs::new(&cfg.accounts, jobs, self.accounts, self.account_names);
        SlurmJobs::from_jobs(jobs).with_qos(qos).with_assocs(assocs)
    }

    /// Notes for the user on how the jobs' accounts met the configuration's tree.
    pub fn account_notes(&self, cfg: &SlurmConfig, jobs: &[crate::model::Job]) -> Vec<String> {
        AssocOfJobs::new(&cfg.accounts, jobs, self.accounts, self.account_names).notes()
    }
}

/// A row of a sacctmgr dump (associations, QOS) that its reader cannot use: which dump, the
/// 1-based line (0: the file as a whole) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpError {
    pub dump: &'static str,
    pub line: usize,
    pub reason: String,
}

impl std::fmt::Display for DumpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} line {}: {}", self.dump, self.line, self.reason)
    }
}

impl std::error::Error for DumpError {}

/// One partition's settings (slurm.conf `PartitionName=NAME PriorityJobFactor=N
/// PriorityTier=T MaxTime=…`). A job's partition (SWF field 16) matches `name` when `name`
/// is its number written out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartitionFactor {
    pub name: String,
    pub priority_job_factor: u32,
    /// `PriorityTier` (Slurm's default 1): the pending jobs of a higher tier come before
    /// those of a lower one whatever their priorities (slurmctld's `sort_job_queue2`
    /// orders by tier, then priority, then submission), in the main scheduler and the
    /// backfill alike. Written only when not 1, so older files keep their bytes.
    #[serde(default = "tier_one", skip_serializing_if = "is_tier_one")]
    pub priority_tier: u32,
    /// `MaxTime` in seconds (`None`: `UNLIMITED`, Slurm's default): a job whose time limit
    /// exceeds it never starts (Slurm leaves it pending with reason `PartitionTimeLimit`,
    /// or refuses it at submission under `EnforcePartLimits`); a run rejects it with that
    /// reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_time_s: Option<u64>,
    /// `Nodes=`: the node types (by their names in the platform file) whose nodes the
    /// partition's jobs run on, on a site with node types that has every one of them;
    /// elsewhere, and for `None` (`Nodes=ALL`), the partition spans its site.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<String>>,
}

impl PartitionFactor {
    /// A partition with Slurm's defaults but for its `PriorityJobFactor`.
    pub fn new(name: impl Into<String>, priority_job_factor: u32) -> PartitionFactor {
        PartitionFactor {
            name: name.into(),
            priority_job_factor,
            priority_tier: 1,
            max_time_s: None,
            nodes: None,
        }
    }
}

fn tier_one() -> u32 {
    1
}

fn is_tier_one(v: &u32) -> bool {
    *v == 1
}

/// `PriorityWeightTRES=CPU=…,Mem=…,GRES/gpu=…`: the weights of a job's share of its
/// partition's (here its site's) CPUs, memory and GPUs (Slurm's TRES factors,
/// `priority_multifactor`: the job's requested count of each TRES over the partition's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TresWeights {
    pub cpu: u32,
    pub mem: u32,
    pub gpu: u32,
}

impl TresWeights {
    pub fn is_zero(&self) -> bool {
        *self == TresWeights::default()
    }
}

/// A user's fair-share shares (sacctmgr's `Fairshare=`); users not listed have 1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserShares {
    /// The user's number (SWF field 12).
    pub user: i32,
    pub shares: u32,
}

/// One account of the fair-share tree, as an association dump gives it (Fair Tree over
/// accounts, issue #42): `root` has no parent; every other account names one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountShares {
    pub name: String,
    /// The parent account (empty for `root`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub parent: String,
    /// Raw shares among its siblings (sacctmgr's `Fairshare=`).
    pub shares: u32,
    /// The workload's users in it (by number), with their raw shares.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub users: Vec<UserShares>,
    /// The raw shares of each of its user associations whose user runs no job here (the
    /// root user, other users): Fair Tree ranks them too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub idle_users: Vec<u32>,
}

/// Accounts nest at most this deep (Fair Tree walks them recursively).
pub const MAX_ACCOUNT_DEPTH: usize = 64;

/// What the `slurm` policy reads of a site's Slurm configuration. Every field's default is
/// Slurm's documented one (slurm.conf(5), Slurm 22.05): all weights 0 (so the queue is in
/// submission order), `PriorityMaxAge=7-0`, `PriorityDecayHalfLife=7-0`,
/// `PriorityCalcPeriod=5` (minutes), `PriorityFavorSmall=NO`, `bf_window=1440` (minutes),
/// `bf_max_job_test=500`, `bf_resolution=60` (seconds) — but classic fair share, where
/// Slurm's default is Fair Tree, so that scenarios written before `fair_tree` existed keep
/// their numbers (a `slurm.conf` read gives Slurm's). Times are stored in seconds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SlurmConfig {
    /// `PriorityWeightAge`.
    pub weight_age: u32,
    /// `PriorityWeightFairshare`.
    pub weight_fairshare: u32,
    /// `PriorityWeightJobSize`.
    pub weight_job_size: u32,
    /// `PriorityWeightPartition`.
    pub weight_partition: u32,
    /// `PriorityWeightQOS`: the weight of a job's QOS's priority over the highest QOS
    /// priority (0 for a job under no QOS).
    pub weight_qos: u32,
    /// `PriorityWeightTRES` (CPU, memory and GPUs; none by default, and then not written,
    /// so older files keep their bytes).
    #[serde(skip_serializing_if = "TresWeights::is_zero")]
    pub weight_tres: TresWeights,
    /// `PriorityMaxAge` in seconds: the age factor reaches 1 there.
    pub max_age_s: u64,
    /// `PriorityDecayHalfLife` in seconds (0: usage never decays).
    pub decay_half_life_s: u64,
    /// `PriorityCalcPeriod` in seconds (slurm.conf gives whole minutes).
    pub calc_period_s: u64,
    /// `PriorityFavorSmall`: the job-size factor is 1 − size instead of size.
    pub favor_small: bool,
    /// `bf_window` in minutes: no reservation starts later than now + window.
    pub bf_window_min: u64,
    /// `bf_max_job_test`: jobs a backfill pass examines.
    pub bf_max_job_test: u32,
    /// `bf_resolution` in seconds: planned run times are rounded up to it.
    pub bf_resolution_s: u64,
    /// `bf_max_job_user`: jobs of one user a backfill pass examines (0: no limit). A job
    /// past it is skipped and does not count towards `bf_max_job_test` (Slurm's
    /// `backfill.c` checks it before the job's test).
    #[serde(skip_serializing_if = "is_zero_u32")]
    pub bf_max_job_user: u32,
    /// `bf_min_age_reserve` in seconds: a job queued for less gets no reservation (it may
    /// still start at once; 0: every job may reserve).
    #[serde(skip_serializing_if = "is_zero_u64")]
    pub bf_min_age_reserve_s: u64,
    /// `bf_interval` in seconds: the backfill runs at the scheduling passes that fall on a
    /// multiple of it from the trace's start (the policy wakes there while a queued job
    /// would fit); the main scheduler still runs at every pass. 0 (the default, so that
    /// older scenarios keep their numbers; Slurm's own default is 30): the backfill runs at
    /// every pass.
    #[serde(skip_serializing_if = "is_zero_u64")]
    pub bf_interval_s: u64,
    /// Backfill reservations hold whole nodes, as Slurm's do: `backfill.c` keeps a map of
    /// the nodes free over time, and a reservation takes its nodes out of the map for its
    /// window however few of their CPUs the job uses (`_add_reservation`), so no job may
    /// start on them if it would still run when the reservation begins. On a site of
    /// processors a node is this many of them (slurm.conf's `NodeName … CPUs=`) and a
    /// reservation holds ⌈units / N⌉ · N (at most the site); on a node-typed site a
    /// reservation holds the nodes it was placed on, whole, for any N above 0. 0 (the
    /// default, so older scenarios keep their numbers): a reservation holds only the
    /// job's own units.
    #[serde(skip_serializing_if = "is_zero_u32")]
    pub bf_node_cpus: u32,
    /// `PartitionName=… PriorityJobFactor=…` lines; partitions not listed have 1.
    pub partitions: Vec<PartitionFactor>,
    /// Fair-share shares per user; every user not listed has 1.
    pub shares: Vec<UserShares>,
    /// Shares beside the workload's users at the top of the tree, held by associations
    /// that run no job here (the root user, other accounts): they count in every user's
    /// normalised shares (`shares / (Σ users' shares + other_shares)`). Set from an
    /// association dump ([`AssocTree::apply`]); 0 by default.
    #[serde(skip_serializing_if = "is_zero_u64")]
    pub other_shares: u64,
    /// User associations of the tree that run no job here (the root user, users of other
    /// accounts): Fair Tree ranks every user association, and they count in the ranks'
    /// denominator. Set from an association dump; 0 by default.
    #[serde(skip_serializing_if = "is_zero_u32")]
    pub other_users: u32,
    /// Fair share by Fair Tree (Slurm's default since 19.05, `PriorityFlags` without
    /// `NO_FAIR_TREE`): users ranked by level fair share S/U, factor rank / users. False
    /// (the default, so older scenarios keep their numbers): classic, 2^(−U/S).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fair_tree: bool,
    /// The association tree's accounts, `root` first, when users sit under accounts (from an
    /// association dump): Fair Tree then ranks accounts level by level and users within
    /// them, as Slurm's `fair_tree.c` does; classic fair share ignores it (it uses `shares`,
    /// the users' normalised shares). Empty by default, and then not written, so older
    /// files keep their bytes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub accounts: Vec<AccountShares>,
    /// The site's QOS (`sacctmgr show qos`; issue #42): priorities and the limits
    /// `MaxJobsPU` and `GrpTRES=cpu`. A job runs under the one its record names, else
    /// `normal` if defined, else none. Empty by default, and then not written, so older
    /// files keep their bytes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub qos: Vec<QosDef>,
    /// An association dump (`sacctmgr show assoc format=Cluster,Account,User,Fairshare,
    /// ParentName -P`) as the site printed it, by names: applied at the run's start to the
    /// workload's users ([`JobLabels::resolve`]), replacing `shares`, `other_shares`,
    /// `other_users` and `accounts`. What the page's paste box keeps (the page does not know
    /// the log's user names before a run). Empty by default, and then not written.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub assoc_dump: String,
}

impl Default for SlurmConfig {
    fn default() -> Self {
        SlurmConfig {
            weight_age: 0,
            weight_fairshare: 0,
            weight_job_size: 0,
            weight_partition: 0,
            weight_qos: 0,
            weight_tres: TresWeights::default(),
            max_age_s: 7 * DAY,
            decay_half_life_s: 7 * DAY,
            calc_period_s: 5 * 60,
            favor_small: false,
            bf_window_min: 1440,
            bf_max_job_test: 500,
            bf_resolution_s: 60,
            bf_max_job_user: 0,
            bf_min_age_reserve_s: 0,
            bf_interval_s: 0,
            bf_node_cpus: 0,
            partitions: Vec::new(),
            shares: Vec::new(),
            other_shares: 0,
            other_users: 0,
            fair_tree: false,
            accounts: Vec::new(),
            qos: Vec::new(),
            assoc_dump: String::new(),
        }
    }
}

const DAY: u64 = 86_400;

fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}

fn is_zero_u64(v: &u64) -> bool {
    *v == 0
}

/// The longest time a field may hold, in seconds (about 35,000 years).
const MAX_SECS: u64 = 1 << 40;

/// `secs` as a [`SimTime`], saturating at [`MAX_SECS`] (a configuration built in code may
/// skip [`SlurmConfig::check`]).
pub(crate) fn secs(secs: u64) -> crate::time::SimTime {
    crate::time::SimTime::from_secs(secs.min(MAX_SECS) as i64)
}

/// The presets `--slurm-preset` names.
pub const SLURM_PRESETS: [&str; 2] = ["default", "medium_cluster"];

impl SlurmConfig {
    /// The `medium_cluster` tutorial of `ubccr-slurm-simulator/slurm_sim_tools`
    /// (`tutorials/medium_cluster/etc/slurm.conf`): weights fair share 120000, age 70000,
    /// job size 200000, QOS 50000, partition 1000000; half-life 30 days; max age 7 days;
    /// `bf_window=4320`, `bf_max_job_test=2500` (its `bf_interval=120` is not modelled: the
    /// backfill runs at every pass). Other values are Slurm's defaults.
    pub fn medium_cluster() -> SlurmConfig {
        SlurmConfig {
            weight_age: 70_000,
            weight_fairshare: 120_000,
            weight_job_size: 200_000,
            weight_partition: 1_000_000,
            weight_qos: 50_000,
            max_age_s: 7 * DAY,
            decay_half_life_s: 30 * DAY,
            bf_window_min: 4320,
            bf_max_job_test: 2500,
            ..SlurmConfig::default()
        }
    }

    /// Fits the configuration to a workload whose jobs carry numbers for named users and
    /// partitions (sacct's, `user_names[i]` and `partition_names[i]` for number i; both
    /// empty for SWF, whose numbers are the names). A `PartitionName=main` line then holds
    /// for the jobs of partition `main`, and an association dump's users find their jobs.
    /// Returns notes for the user (what the dump left out or approximated).
    pub fn fit_to_workload(
        &mut self,
        jobs: &[crate::model::Job],
        user_names: &[String],
        partition_names: &[String],
        assoc: Option<&AssocTree>,
    ) -> Vec<String> {
        if !partition_names.is_empty() {
            for p in &mut self.partitions {
                if let Some(i) = partition_names.iter().position(|n| *n == p.name) {
                    p.name = i.to_string();
                }
            }
        }
        let Some(tree) = assoc else {
            return Vec::new();
        };
        let mut users: Vec<i32> = jobs.iter().map(|j| j.user).collect();
        users.sort_unstable();
        users.dedup();
        let user_id = |name: &str| -> Option<i32> {
            if user_names.is_empty() {
                name.parse().ok()
            } else {
                user_names.iter().position(|n| n == name).map(|i| i as i32)
            }
        };
        tree.apply(self, user_id, &users)
    }

    /// A preset by name (one of [`SLURM_PRESETS`]).
    pub fn preset(name: &str) -> Option<SlurmConfig> {
        match name {
            "default" => Some(SlurmConfig::default()),
            "medium_cluster" | "medium-cluster" => Some(SlurmConfig::medium_cluster()),
            _ => None,
        }
    }

    /// The values a run cannot use, named: a zero `PriorityCalcPeriod`, `bf_resolution` or
    /// `bf_max_job_test` (Slurm's own minimum is 1 for each), or a time beyond 2^40 s.
    pub fn check(&self) -> Result<(), String> {
        for (name, v) in [
            ("PriorityMaxAge", self.max_age_s),
            ("PriorityDecayHalfLife", self.decay_half_life_s),
            ("PriorityCalcPeriod", self.calc_period_s),
            ("bf_window", self.bf_window_min.saturating_mul(60)),
            ("bf_resolution", self.bf_resolution_s),
            ("bf_min_age_reserve", self.bf_min_age_reserve_s),
            ("bf_interval", self.bf_interval_s),
        ] {
            if v > MAX_SECS {
                return Err(format!("{name} is beyond 2^40 seconds"));
            }
        }
        for (name, v) in [
            ("PriorityCalcPeriod", self.calc_period_s),
            ("bf_resolution", self.bf_resolution_s),
            ("bf_max_job_test", self.bf_max_job_test as u64),
        ] {
            if v == 0 {
                return Err(format!("{name} must be at least 1"));
            }
        }
        for (i, q) in self.qos.iter().enumerate() {
            if self.qos[..i].iter().any(|o| o.name == q.name) {
                return Err(format!("QOS {} is defined twice", q.name));
            }
        }
        self.check_accounts()?;
        if !self.assoc_dump.is_empty() {
            read_assoc(self.assoc_dump.as_bytes()).map_err(|e| e.to_string())?;
        }
        for p in &self.partitions {
            if p.max_time_s.is_some_and(|t| t > MAX_SECS) {
                return Err(format!(
                    "partition {}'s MaxTime is beyond 2^40 seconds",
                    p.name
                ));
            }
        }
        Ok(())
    }

    /// The account tree is a tree: `root` first and only there, names unique, every parent
    /// defined, no deeper than [`MAX_ACCOUNT_DEPTH`], a user at most once in each account.
    fn check_accounts(&self) -> Result<(), String> {
        let Some(root) = self.accounts.first() else {
            return Ok(());
        };
        if root.name != "root" || !root.parent.is_empty() {
            return Err("the first account must be root, with no parent".into());
        }
        let mut index: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
        for (i, a) in self.accounts.iter().enumerate() {
            if index.insert(a.name.as_str(), i).is_some() {
                return Err(format!("account {} is defined twice", a.name));
            }
        }
        let too_deep = |i: usize| {
            let a = &self.accounts[i].name;
            format!("account {a} is not under root within {MAX_ACCOUNT_DEPTH} levels (a cycle?)")
        };
        // Each account's depth below root, walked once (`depth[i]` known once computed).
        let mut depth: Vec<Option<usize>> = vec![None; self.accounts.len()];
        depth[0] = Some(0);
        for i in 1..self.accounts.len() {
            let mut path = Vec::new();
            let mut at = i;
            while depth[at].is_none() {
                if path.len() > MAX_ACCOUNT_DEPTH {
                    return Err(too_deep(i));
                }
                path.push(at);
                let a = &self.accounts[at];
                at = *index.get(a.parent.as_str()).ok_or_else(|| {
                    format!("account {}'s parent {} is not defined", a.name, a.parent)
                })?;
            }
            let mut d = depth[at].unwrap_or(0);
            for &p in path.iter().rev() {
                d += 1;
                depth[p] = Some(d);
            }
            if d > MAX_ACCOUNT_DEPTH {
                return Err(too_deep(i));
            }
        }
        // A user may be in several accounts (an association each), once in each.
        for a in &self.accounts {
            let mut users: Vec<i32> = a.users.iter().map(|u| u.user).collect();
            users.sort_unstable();
            if let Some(w) = users.windows(2).find(|w| w[0] == w[1]) {
                return Err(format!("user {} is twice in account {}", w[0], a.name));
            }
        }
        Ok(())
    }
}
