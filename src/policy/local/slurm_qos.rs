//! What the running jobs of a `slurm` site hold of its QOS limits (issue #42,
//! docs/slurm.md "QOS"): running jobs per user under each QOS (`MaxJobsPU`) and the CPUs
//! of each QOS's running jobs (`GrpTRES=cpu`). A job a limit holds is passed over by the
//! main scheduler (it blocks nothing, as slurmctld's `acct_policy_job_runnable_*` checks
//! come before the job is tried) and by the backfill (no reservation), until an end frees
//! the limit.

use std::collections::BTreeMap;

use super::{QosLimit, Refusal};
use crate::model::JobIdx;
use crate::policy::slurm::{QosDef, SlurmJobs, NO_QOS};

/// A definition's `MaxJobsPU` and `GrpTRES=cpu`.
type Limits = (Option<u32>, Option<u64>);

/// The running jobs' holds on the QOS limits.
#[derive(Clone, Debug, Default)]
pub(super) struct QosLimits {
    /// Each definition's `MaxJobsPU` and `GrpTRES=cpu`.
    limits: Vec<Limits>,
    /// Each definition's name.
    names: Vec<String>,
    /// Running jobs per (definition, dense user) under a `MaxJobsPU`.
    per_user: BTreeMap<(u32, u32), u32>,
    /// CPUs of the running jobs per definition.
    cpus: Vec<u64>,
}

impl QosLimits {
    pub fn new(defs: &[QosDef]) -> QosLimits {
        match defs.iter().any(QosDef::limits) {
            true => QosLimits {
                limits: defs
                    .iter()
                    .map(|d| (d.max_jobs_per_user, d.grp_cpus))
                    .collect(),
                names: defs.iter().map(|d| d.name.clone()).collect(),
                per_user: BTreeMap::new(),
                cpus: vec![0; defs.len()],
            },
            false => QosLimits::default(),
        }
    }

    /// True when some QOS limits what runs.
    pub fn any(&self) -> bool {
        !self.limits.is_empty()
    }

    fn of(&self, jobs: &SlurmJobs, idx: JobIdx) -> Option<(usize, Limits)> {
        let q = jobs.qos(idx);
        if q == NO_QOS {
            return None;
        }
        let l = *self.limits.get(q as usize)?;
        Some((q as usize, l))
    }

    /// True when a limit of job `idx`'s QOS holds it now.
    pub fn holds(&self, jobs: &SlurmJobs, idx: JobIdx) -> bool {
        let Some((q, (max_jobs, grp_cpus))) = self.of(jobs, idx) else {
            return false;
        };
        if let Some(max) = max_jobs {
            let running = self.per_user.get(&(q as u32, jobs.user(idx)));
            if running.copied().unwrap_or(0) >= max {
                return true;
            }
        }
        grp_cpus.is_some_and(|g| self.cpus[q] + jobs.qos_cpus(idx) > g)
    }

    /// The limit that holds job `idx` now, in words (with Slurm's pending reason), or
    /// `None`.
    pub fn why(&self, jobs: &SlurmJobs, idx: JobIdx) -> Option<String> {
        let (q, (max_jobs, grp_cpus)) = self.of(jobs, idx)?;
        let name = &self.names[q];
        if let Some(max) = max_jobs {
            let running = self.per_user.get(&(q as u32, jobs.user(idx))).copied();
            if running.unwrap_or(0) >= max {
                return Some(format!(
                    "QOS {name}'s MaxJobsPU={max}: its user runs {} jobs under it (Slurm's reason QOSMaxJobsPerUserLimit)",
                    running.unwrap_or(0)
                ));
            }
        }
        let g = grp_cpus?;
        let (held, needs) = (self.cpus[q], jobs.qos_cpus(idx));
        (held + needs > g).then(|| {
            format!(
                "QOS {name}'s GrpTRES=cpu={g}: its running jobs hold {held} CPUs and this one needs {needs} (Slurm's reason QOSGrpCpuLimit)"
            )
        })
    }

    /// Job `idx` starts: it holds its QOS's limits until [`QosLimits::ended`].
    pub fn started(&mut self, jobs: &SlurmJobs, idx: JobIdx) {
        let Some((q, (max_jobs, grp_cpus))) = self.of(jobs, idx) else {
            return;
        };
        if max_jobs.is_some() {
            *self.per_user.entry((q as u32, jobs.user(idx))).or_insert(0) += 1;
        }
        if grp_cpus.is_some() {
            self.cpus[q] += jobs.qos_cpus(idx);
        }
    }

    /// Job `idx`, started here, ended.
    pub fn ended(&mut self, jobs: &SlurmJobs, idx: JobIdx) {
        let Some((q, (max_jobs, grp_cpus))) = self.of(jobs, idx) else {
            return;
        };
        if max_jobs.is_some() {
            let key = (q as u32, jobs.user(idx));
            if let Some(n) = self.per_user.get_mut(&key) {
                *n -= 1;
                if *n == 0 {
                    self.per_user.remove(&key);
                }
            }
        }
        if grp_cpus.is_some() {
            self.cpus[q] = self.cpus[q].saturating_sub(jobs.qos_cpus(idx));
        }
    }

    /// Why job `idx` can never start under its QOS: `MaxJobsPU=0`, or more processors than
    /// its `GrpTRES=cpu` lets all the QOS's jobs hold.
    pub fn refuses(&self, jobs: &SlurmJobs, idx: JobIdx) -> Option<Refusal> {
        let (_, (max_jobs, grp_cpus)) = self.of(jobs, idx)?;
        if max_jobs == Some(0) {
            return Some(Refusal::QosLimit {
                limit: QosLimit::MaxJobsPerUser,
                needs: 1,
                most: 0,
            });
        }
        let needs = jobs.qos_cpus(idx);
        let most = grp_cpus.filter(|&g| needs > g)?;
        Some(Refusal::QosLimit {
            limit: QosLimit::GrpCpus,
            needs,
            most,
        })
    }
}
