//! What the running jobs of a `slurm` site hold of its QOS limits (issue #42,
//! docs/slurm.md "QOS"): per user under each QOS, running jobs (`MaxJobsPU`) and CPUs
//! (`MaxTRESPU=cpu`); per QOS, running jobs (`GrpJobs`) and CPUs (`GrpTRES=cpu`). A job a
//! limit holds is passed over by the main scheduler (it blocks nothing, as slurmctld's
//! `acct_policy_job_runnable_*` checks come before the job is tried) and by the backfill
//! (no reservation), until an end frees the limit.

use std::collections::BTreeMap;

use super::{QosLimit, Refusal};
use crate::model::JobIdx;
use crate::policy::slurm::{QosDef, SlurmJobs, NO_QOS};

/// Running jobs and their CPUs.
#[derive(Clone, Copy, Debug, Default)]
struct Held {
    jobs: u32,
    cpus: u64,
}

/// The limit a job would pass, and what is held of it now.
#[derive(Clone, Copy, Debug)]
enum Hold {
    MaxJobsPerUser { max: u32 },
    MaxCpusPerUser { max: u64, held: u64 },
    GrpJobs { max: u32 },
    GrpCpus { max: u64, held: u64 },
}

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
        let needs = jobs.qos_cpus(idx);
        let mine = self
            .per_user
            .get(&(q as u32, user))
            .copied()
            .unwrap_or_default();
        let all = self.per_qos[q];
        if let Some(max) = d.max_jobs_per_user.filter(|&m| mine.jobs >= m) {
            return Some(Hold::MaxJobsPerUser { max });
        }
        if let Some(max) = d.max_cpus_per_user.filter(|&m| mine.cpus + needs > m) {
            return Some(Hold::MaxCpusPerUser {
                max,
                held: mine.cpus,
            });
        }
        if let Some(max) = d.grp_jobs.filter(|&m| all.jobs >= m) {
            return Some(Hold::GrpJobs { max });
        }
        let max = d.grp_cpus.filter(|&m| all.cpus + needs > m)?;
        Some(Hold::GrpCpus {
            max,
            held: all.cpus,
        })
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
        let needs = jobs.qos_cpus(idx);
        Some(match hold {
            Hold::MaxJobsPerUser { max } => format!(
                "QOS {name}'s MaxJobsPU={max}: its user runs {} jobs under it (Slurm's reason QOSMaxJobsPerUserLimit)",
                mine.jobs
            ),
            Hold::MaxCpusPerUser { max, held } => format!(
                "QOS {name}'s MaxTRESPU=cpu={max}: its user's running jobs under it hold {held} CPUs and this one needs {needs} (Slurm's reason QOSMaxCpuPerUserLimit)"
            ),
            Hold::GrpJobs { max } => format!(
                "QOS {name}'s GrpJobs={max}: {} jobs run under it (Slurm's reason QOSGrpJobsLimit)",
                self.per_qos[q].jobs
            ),
            Hold::GrpCpus { max, held } => format!(
                "QOS {name}'s GrpTRES=cpu={max}: its running jobs hold {held} CPUs and this one needs {needs} (Slurm's reason QOSGrpCpuLimit)"
            ),
        })
    }

    /// Job `idx` starts: it holds its QOS's limits until [`QosLimits::ended`].
    pub fn started(&mut self, jobs: &SlurmJobs, idx: JobIdx) {
        let Some((q, user)) = self.of(jobs, idx) else {
            return;
        };
        let cpus = jobs.qos_cpus(idx);
        for h in [
            self.per_user.entry((q as u32, user)).or_default(),
            &mut self.per_qos[q],
        ] {
            h.jobs += 1;
            h.cpus += cpus;
        }
    }

    /// Job `idx`, started here, ended.
    pub fn ended(&mut self, jobs: &SlurmJobs, idx: JobIdx) {
        let Some((q, user)) = self.of(jobs, idx) else {
            return;
        };
        let cpus = jobs.qos_cpus(idx);
        let key = (q as u32, user);
        if let Some(h) = self.per_user.get_mut(&key) {
            h.jobs = h.jobs.saturating_sub(1);
            h.cpus = h.cpus.saturating_sub(cpus);
            if h.jobs == 0 {
                self.per_user.remove(&key);
            }
        }
        let h = &mut self.per_qos[q];
        h.jobs = h.jobs.saturating_sub(1);
        h.cpus = h.cpus.saturating_sub(cpus);
    }

    /// Why job `idx` can never start under its QOS: `MaxJobsPU=0` or `GrpJobs=0`, or more
    /// processors than its `MaxTRESPU=cpu` or `GrpTRES=cpu` allows.
    pub fn refuses(&self, jobs: &SlurmJobs, idx: JobIdx) -> Option<Refusal> {
        let (q, _) = self.of(jobs, idx)?;
        let d = &self.defs[q];
        let needs = jobs.qos_cpus(idx);
        let refusal = |limit, needs, most| Some(Refusal::QosLimit { limit, needs, most });
        if d.max_jobs_per_user == Some(0) {
            return refusal(QosLimit::MaxJobsPerUser, 1, 0);
        }
        if d.grp_jobs == Some(0) {
            return refusal(QosLimit::GrpJobs, 1, 0);
        }
        if let Some(m) = d.max_cpus_per_user.filter(|&m| needs > m) {
            return refusal(QosLimit::MaxCpusPerUser, needs, m);
        }
        let m = d.grp_cpus.filter(|&m| needs > m)?;
        refusal(QosLimit::GrpCpus, needs, m)
    }
}
