//! `explain --at T` under the `slurm` policy (issue #42, docs/slurm.md "Priorities at an
//! instant"): every queued job's priority and its weighted factors at one instant, as
//! Slurm's `sprio -l` prints them, so a site administrator sees which factor held a job
//! back.

use serde::{Deserialize, Serialize};

use super::{Scenario, ScenarioError, ScenarioRun};
use crate::policy::local::LocalPolicyKind;
use crate::policy::slurm::{Factors, SlurmConfig};
use crate::time::SimTime;
use crate::workload::Workload;

/// The queue at an instant, in priority order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Priorities {
    pub algorithm: String,
    /// The instant asked for, in seconds from the first submit: the queue after every
    /// event up to it.
    pub at_s: f64,
    /// The weights each factor is multiplied by (`PriorityWeight*`).
    pub weights: Weights,
    /// Every queued job in the order the scheduler takes them: the higher partition
    /// `PriorityTier` first, then the higher priority.
    pub jobs: Vec<JobPriority>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Weights {
    pub age: u32,
    pub fairshare: u32,
    pub job_size: u32,
    pub partition: u32,
    pub qos: u32,
    /// `PriorityWeightTRES`'s CPU, memory and GPU weights.
    #[serde(default)]
    pub tres_cpu: u32,
    #[serde(default)]
    pub tres_mem: u32,
    #[serde(default)]
    pub tres_gpu: u32,
}

impl Weights {
    fn any_tres(&self) -> bool {
        self.tres_cpu > 0 || self.tres_mem > 0 || self.tres_gpu > 0
    }
}

/// One queued job: its priority, each factor in [0, 1] and each factor's share of the
/// priority (weight × factor, what `sprio -l` prints).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobPriority {
    /// The job's id (SWF field 1).
    pub job: i64,
    /// Its site's name.
    pub site: String,
    /// SWF field 12 / sacct's user, numbered.
    pub user: i32,
    /// SWF field 16 / sacct's partition, numbered.
    pub partition: i32,
    /// The user's and the partition's names where the log has them (sacct), else absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_name: Option<String>,
    /// Seconds queued at the instant.
    pub queued_s: f64,
    /// Σ weight × factor, truncated as slurmctld does, as of the last `PriorityCalcPeriod`
    /// tick at or before the instant.
    pub priority: u64,
    pub factors: FactorValues,
    pub weighted: FactorValues,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FactorValues {
    pub age: f64,
    pub fairshare: f64,
    pub job_size: f64,
    pub partition: f64,
    pub qos: f64,
    /// The TRES factors: the job's share of its site's CPUs, memory and GPUs.
    #[serde(default)]
    pub tres_cpu: f64,
    #[serde(default)]
    pub tres_mem: f64,
    #[serde(default)]
    pub tres_gpu: f64,
}

impl FactorValues {
    fn of(f: &Factors) -> FactorValues {
        FactorValues {
            age: f.age,
            fairshare: f.fairshare,
            job_size: f.job_size,
            partition: f.partition,
            qos: f.qos,
            tres_cpu: f.tres_cpu,
            tres_mem: f.tres_mem,
            tres_gpu: f.tres_gpu,
        }
    }

    fn weighted(f: &Factors, w: &Weights) -> FactorValues {
        FactorValues {
            age: f.age * w.age as f64,
            fairshare: f.fairshare * w.fairshare as f64,
            job_size: f.job_size * w.job_size as f64,
            partition: f.partition * w.partition as f64,
            qos: f.qos * w.qos as f64,
            tres_cpu: f.tres_cpu * w.tres_cpu as f64,
            tres_mem: f.tres_mem * w.tres_mem as f64,
            tres_gpu: f.tres_gpu * w.tres_gpu as f64,
        }
    }
}

/// The queue of run `alg` of `scenario` (a `slurm` run) at `at_s` seconds from the first
/// submit, every site's, in priority order within each site.
pub fn priorities_at(
    scenario: &Scenario,
    workload: Workload,
    alg: usize,
    at_s: f64,
) -> Result<Priorities, ScenarioError> {
    let spec = scenario
        .algorithms
        .get(alg)
        .ok_or_else(|| ScenarioError::Invalid(format!("no algorithm {alg}")))?;
    if spec.local != LocalPolicyKind::Slurm {
        return Err(ScenarioError::Invalid(format!(
            "priorities at an instant are the slurm policy's (sprio -l); {} has none",
            spec.local
        )));
    }
    if !(at_s.is_finite() && at_s >= 0.0) {
        return Err(ScenarioError::Invalid(format!(
            "--at {at_s}: an instant is seconds from the first submit, 0 or more"
        )));
    }
    let cfg = spec.slurm.clone().unwrap_or_else(SlurmConfig::default);
    let weights = Weights {
        age: cfg.weight_age,
        fairshare: cfg.weight_fairshare,
        job_size: cfg.weight_job_size,
        partition: cfg.weight_partition,
        qos: cfg.weight_qos,
        tres_cpu: cfg.weight_tres.cpu,
        tres_mem: cfg.weight_tres.mem,
        tres_gpu: cfg.weight_tres.gpu,
    };
    let user_names = workload.report.user_names.clone();
    let partition_names = workload.report.partition_names.clone();
    let name = |names: &[String], number: i32| -> Option<String> {
        usize::try_from(number)
            .ok()
            .and_then(|i| names.get(i))
            .cloned()
    };
    let mut run = ScenarioRun::new(scenario, workload)?;
    let (platform, mut sim) = run.simulation(alg)?;
    let jobs = run.jobs();
    let origin = jobs.first().map_or(0, |j| j.submit.0);
    let at = SimTime(origin) + SimTime::from_secs_f64(at_s);
    sim.run_until(at).map_err(ScenarioError::Sim)?;
    let mut rows = Vec::new();
    for (s, site) in platform.sites.iter().enumerate() {
        for (idx, f, priority) in sim.site_priorities(s, at).unwrap_or_default() {
            let job = &jobs[idx as usize];
            rows.push(JobPriority {
                job: job.id,
                site: site.name.clone(),
                user: job.user,
                partition: job.partition,
                user_name: name(&user_names, job.user),
                partition_name: name(&partition_names, job.partition),
                queued_s: (at - job.submit).as_secs_f64(),
                priority,
                factors: FactorValues::of(&f),
                weighted: FactorValues::weighted(&f, &weights),
            });
        }
    }
    Ok(Priorities {
        algorithm: spec.label(),
        at_s,
        weights,
        jobs: rows,
    })
}

impl Priorities {
    /// `sprio -l`'s columns: JOBID, (SITE, on several sites,) USER, PARTITION (names where
    /// the log has them, else numbers), PRIORITY,
    /// then each factor's weighted share (whole numbers), then the seconds queued.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let w = &self.weights;
        let mut out = format!(
            "{} queued job(s) under {} at {} s (weights: age {}, fair share {}, job size {}, partition {}, QOS {}{}), in the scheduler's order (tier, then priority):\n",
            self.jobs.len(),
            self.algorithm,
            self.at_s,
            w.age,
            w.fairshare,
            w.job_size,
            w.partition,
            w.qos,
            match w.any_tres() {
                true => format!(
                    ", TRES cpu={},mem={},gres/gpu={}",
                    w.tres_cpu, w.tres_mem, w.tres_gpu
                ),
                false => String::new(),
            }
        );
        // The site's name only when the jobs are on several.
        let sites = self.jobs.iter().any(|j| j.site != self.jobs[0].site);
        let site = |name: &str| match sites {
            true => format!(" {name:>12}"),
            false => String::new(),
        };
        let _ = writeln!(
            out,
            "{:>10}{} {:>8} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12}",
            "JOBID",
            site("SITE"),
            "USER",
            "PARTITION",
            "PRIORITY",
            "AGE",
            "FAIRSHARE",
            "JOBSIZE",
            "PARTITION",
            "QOS",
            "QUEUED_S"
        );
        if w.any_tres() {
            out.pop();
            out.push_str("  TRES\n");
        }
        for j in &self.jobs {
            let v = &j.weighted;
            let _ = writeln!(
                out,
                "{:>10}{} {:>8} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12}",
                j.job,
                site(&j.site),
                j.user_name.clone().unwrap_or_else(|| j.user.to_string()),
                j.partition_name
                    .clone()
                    .unwrap_or_else(|| j.partition.to_string()),
                j.priority,
                v.age.floor(),
                v.fairshare.floor(),
                v.job_size.floor(),
                v.partition.floor(),
                v.qos.floor(),
                j.queued_s
            );
            if w.any_tres() {
                out.pop();
                let _ = writeln!(
                    out,
                    "  cpu={},mem={},gres/gpu={}",
                    v.tres_cpu.floor(),
                    v.tres_mem.floor(),
                    v.tres_gpu.floor()
                );
            }
        }
        out
    }
}
