//! What the running jobs of a `slurm` site hold of its QOS limits (issue #42,
//! docs/slurm.md "QOS"): per user under each QOS, running jobs (`MaxJobsPU`) and CPUs,
//! memory and GPUs (`MaxTRESPU`); per QOS, running jobs (`GrpJobs`) and CPUs, memory and
//! GPUs (`GrpTRES`). A job a
//! limit holds is passed over by the main scheduler (it blocks nothing, as slurmctld's
//! `acct_policy_job_runnable_*` checks come before the job is tried) and by the backfill
//! (no reservation), until an end frees the limit.

use std::collections::BTreeMap;

use super::{QosLimit, Refusal};
use crate::model::JobIdx;
use crate::policy::slurm::{secs, QosDef, SlurmJobs, NO_QOS, QOS_TRES};
use crate::time::SimTime;

/// Running jobs and their CPUs, memory (KB) and GPUs ([`QOS_TRES`]).
#[derive(Clone, Copy, Debug, Default)]
struct Held {
    jobs: u32,
    tres: [u64; 3],
}

/// The limit a job would pass, and what is held of it now (`r` a TRES: [`QOS_TRES`]).
#[derive(Clone, Copy, Debug)]
enum Hold {
    MaxJobsPerUser { max: u32 },
    MaxTresPerUser { r: usize, max: u64, held: u64 },
    GrpJobs { max: u32 },
    GrpTres { r: usize, max: u64, held: u64 },
}

/// What a TRES is counted in, and Slurm's pending reasons for its per-user and group
/// limits.
const TRES_WORDS: [(&str, &str, &str); 3] = [
    ("CPUs", "QOSMaxCpuPerUserLimit", "QOSGrpCpuLimit"),
    ("KB of memory", "QOSMaxMemoryPerUser", "QOSGrpMemLimit"),
    ("GPUs", "QOSMaxGRESPerUser", "QOSGrpGRES"),
];

/// The refusal kind of a TRES's per-user and group limits.
const TRES_LIMITS: [(QosLimit, QosLimit); 3] = [
    (QosLimit::MaxCpusPerUser, QosLimit::GrpCpus),
    (QosLimit::MaxMemPerUser, QosLimit::GrpMem),
    (QosLimit::MaxGpusPerUser, QosLimit::GrpGpus),
];

/// The running jobs' holds on the QOS limits.
#[derive(Clone, Debug, Default)]
pub(super) struct QosLimits {
    /// The definitions (none when no QOS has a limit).
    defs: Vec<QosDef>,
    /// Per (definition, dense user).
    per_user: BTreeMap<(u32, u32), Held>,
    /// Per definition.
    per_qos: Vec<Held>,
}

impl QosLimits {
    pub fn new(defs: &[QosDef]) -> QosLimits {
        match defs.iter().any(QosDef::limits) {
            true => QosLimits {
                defs: defs.to_vec(),
                per_user: BTreeMap::new(),
                per_qos: vec![Held::default(); defs.len()],
            },
            false => QosLimits::default(),
        }
    }

    /// True when some QOS limits what runs.
    pub fn any(&self) -> bool {
        !self.defs.is_empty()
    }

    /// Job `idx`'s definition (its index) and its user, when it runs under a QOS.
    fn of(&self, jobs: &SlurmJobs, idx: JobIdx) -> Option<(usize, u32)> {
        let q = jobs.qos(idx);
        (q != NO_QOS && (q as usize) < self.defs.len()).then(|| (q as usize, jobs.user(idx)))
    }

    /// The first limit of job `idx`'s QOS that it would pass if it started now.
    fn hold(&self, jobs: &SlurmJobs, idx: JobIdx) -> Option<Hold> {
        let (q, user) = self.of(jobs, idx)?;
        let d = &self.defs[q];
        let needs = jobs.qos_tres(idx);
        let mine = self
            .per_user
            .get(&(q as u32, user))
            .copied()
            .unwrap_or_default();
        let all = self.per_qos[q];
        if let Some(max) = d.max_jobs_per_user.filter(|&m| mine.jobs >= m) {
            return Some(Hold::MaxJobsPerUser { max });
        }
        for (r, limit) in d.per_user_tres().into_iter().enumerate() {
            if let Some(max) = limit.filter(|&m| mine.tres[r] + needs[r] > m) {
                let held = mine.tres[r];
                return Some(Hold::MaxTresPerUser { r, max, held });
            }
        }
        if let Some(max) = d.grp_jobs.filter(|&m| all.jobs >= m) {
            return Some(Hold::GrpJobs { max });
        }
        for (r, limit) in d.grp_tres().into_iter().enumerate() {
            if let Some(max) = limit.filter(|&m| all.tres[r] + needs[r] > m) {
                let held = all.tres[r];
                return Some(Hold::GrpTres { r, max, held });
            }
        }
        None
    }

    /// True when a limit of job `idx`'s QOS holds it now.
    pub fn holds(&self, jobs: &SlurmJobs, idx: JobIdx) -> bool {
        self.hold(jobs, idx).is_some()
    }

    /// The limit that holds job `idx` now, in words (with Slurm's pending reason), or
    /// `None`.
    pub fn why(&self, jobs: &SlurmJobs, idx: JobIdx) -> Option<String> {
        let hold = self.hold(jobs, idx)?;
        let (q, user) = self.of(jobs, idx)?;
        let name = &self.defs[q].name;
        let mine = self
            .per_user
            .get(&(q as u32, user))
            .copied()
            .unwrap_or_default();
        let needs = jobs.qos_tres(idx);
        Some(match hold {
            Hold::MaxJobsPerUser { max } => format!(
                "QOS {name}'s MaxJobsPU={max}: its user runs {} jobs under it (Slurm's reason QOSMaxJobsPerUserLimit)",
                mine.jobs
            ),
            Hold::MaxTresPerUser { r, max, held } => {
                let (unit, reason, _) = TRES_WORDS[r];
                format!(
                    "QOS {name}'s MaxTRESPU={}={max}: its user's running jobs under it hold {held} {unit} and this one needs {} (Slurm's reason {reason})",
                    QOS_TRES[r], needs[r]
                )
            }
            Hold::GrpJobs { max } => format!(
                "QOS {name}'s GrpJobs={max}: {} jobs run under it (Slurm's reason QOSGrpJobsLimit)",
                self.per_qos[q].jobs
            ),
            Hold::GrpTres { r, max, held } => {
                let (unit, _, reason) = TRES_WORDS[r];
                format!(
                    "QOS {name}'s GrpTRES={}={max}: its running jobs hold {held} {unit} and this one needs {} (Slurm's reason {reason})",
                    QOS_TRES[r], needs[r]
                )
            }
        })
    }

    /// Job `idx` starts: it holds its QOS's limits until [`QosLimits::ended`].
    pub fn started(&mut self, jobs: &SlurmJobs, idx: JobIdx) {
        let Some((q, user)) = self.of(jobs, idx) else {
            return;
        };
        let tres = jobs.qos_tres(idx);
        for h in [
            self.per_user.entry((q as u32, user)).or_default(),
            &mut self.per_qos[q],
        ] {
            h.jobs += 1;
            (0..3).for_each(|r| h.tres[r] += tres[r]);
        }
    }

    /// Job `idx`, started here, ended.
    pub fn ended(&mut self, jobs: &SlurmJobs, idx: JobIdx) {
        let Some((q, user)) = self.of(jobs, idx) else {
            return;
        };
        let tres = jobs.qos_tres(idx);
        let release = |h: &mut Held| {
            h.jobs = h.jobs.saturating_sub(1);
            (0..3).for_each(|r| h.tres[r] = h.tres[r].saturating_sub(tres[r]));
        };
        let key = (q as u32, user);
        if let Some(h) = self.per_user.get_mut(&key) {
            release(h);
            if h.jobs == 0 {
                self.per_user.remove(&key);
            }
        }
        release(&mut self.per_qos[q]);
    }

    /// Why job `idx`, of time limit `estimate`, can never start under its QOS:
    /// `MaxJobsPU=0` or `GrpJobs=0`, more CPUs, memory or GPUs than its `MaxTRESPU` or
    /// `GrpTRES` allows, or a time limit beyond its `MaxWall`.
    pub fn refuses(&self, jobs: &SlurmJobs, idx: JobIdx, estimate: SimTime) -> Option<Refusal> {
        let (q, _) = self.of(jobs, idx)?;
        let d = &self.defs[q];
        if let Some(m) = d.max_wall_s.filter(|&m| estimate > secs(m)) {
            let limit_s = (estimate.0.saturating_add(999) / 1000).max(0) as u64;
            return Some(Refusal::QosLimit {
                limit: QosLimit::MaxWall,
                needs: limit_s,
                most: m,
            });
        }
        let needs = jobs.qos_tres(idx);
        let refusal = |limit, needs, most| Some(Refusal::QosLimit { limit, needs, most });
        if d.max_jobs_per_user == Some(0) {
            return refusal(QosLimit::MaxJobsPerUser, 1, 0);
        }
        if d.grp_jobs == Some(0) {
            return refusal(QosLimit::GrpJobs, 1, 0);
        }
        for (r, limit) in d.per_user_tres().into_iter().enumerate() {
            if let Some(m) = limit.filter(|&m| needs[r] > m) {
                return refusal(TRES_LIMITS[r].0, needs[r], m);
            }
        }
        for (r, limit) in d.grp_tres().into_iter().enumerate() {
            if let Some(m) = limit.filter(|&m| needs[r] > m) {
                return refusal(TRES_LIMITS[r].1, needs[r], m);
            }
        }
        None
    }
}
