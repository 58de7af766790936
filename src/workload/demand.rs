//! What jobs ask beyond processors, as the readers collect it (issue #37): memory, GPUs and
//! node counts per job ([`Demands`]), counted per resource for the import report (known,
//! from the used value, missing). A workload with none keeps no per-job table at all, so
//! processor-only traces cost what they did.

use serde::Serialize;

use crate::model::{Demand, Job};
use crate::time::SimTime;

/// How many accepted jobs stated one resource (issue #37): known from the trace, taken from
/// the used value because the requested one is missing (SWF field 7 for field 10), or
/// missing (the job asks for none of it).
#[derive(Clone, Copy, Debug, Default, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct SourceCounts {
    pub known: u64,
    pub from_used: u64,
    pub missing: u64,
}

/// Per resource beyond processors: how many jobs stated it, and how.
#[derive(Clone, Copy, Debug, Default, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct ResourceCounts {
    /// Memory: SWF/GWF field 10 (requested, KB per processor), else field 7 (used); sacct
    /// `ReqTRES`/`ReqMem`.
    pub memory: SourceCounts,
    /// GPUs: sacct `gres/gpu`.
    pub gpus: SourceCounts,
    /// Node counts: sacct `node=` / `NNodes`.
    pub nodes: SourceCounts,
}

/// Where a job's memory came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Source {
    Known,
    FromUsed,
    Missing,
}

/// The demands of the jobs pushed so far: empty until the first job that asks for more
/// than processors, then one per job.
#[derive(Debug, Default)]
pub(super) struct Demands {
    pub table: Vec<Demand>,
    pub counts: ResourceCounts,
}

fn count(c: &mut SourceCounts, s: Source) {
    match s {
        Source::Known => c.known += 1,
        Source::FromUsed => c.from_used += 1,
        Source::Missing => c.missing += 1,
    }
}

/// A memory field pair (KB, −1 or 0 unknown): the requested value, else the used one.
pub(super) fn memory_kb(requested: i64, used: i64) -> (u64, Source) {
    if requested > 0 {
        (requested as u64, Source::Known)
    } else if used > 0 {
        (used as u64, Source::FromUsed)
    } else {
        (0, Source::Missing)
    }
}

impl Demands {
    /// The demand of the job about to be pushed as job number `index` (the jobs before it
    /// asked for nothing more if the table is still empty), with where each part came from.
    pub fn push(&mut self, index: usize, d: Demand, memory: Source, gpus: Source, nodes: Source) {
        count(&mut self.counts.memory, memory);
        count(&mut self.counts.gpus, gpus);
        count(&mut self.counts.nodes, nodes);
        if self.table.is_empty() && d.is_processors_only() {
            return;
        }
        if self.table.len() < index {
            self.table.resize(index, Demand::default());
        }
        self.table.push(d);
    }

    /// The per-job table (empty, or one per job) and the counts the report carries when
    /// any job stated any resource.
    pub fn finish(mut self, jobs: usize) -> (Vec<Demand>, Option<ResourceCounts>) {
        if !self.table.is_empty() {
            self.table.resize(jobs, Demand::default());
        }
        let c = &self.counts;
        let stated = |s: &SourceCounts| s.known + s.from_used > 0;
        let any = stated(&c.memory) || stated(&c.gpus) || stated(&c.nodes);
        (self.table, any.then_some(self.counts))
    }
}

/// Sorts jobs by submit time (stable: input order among equals), their demands, logged
/// waits, QOS and accounts with them (each empty or one per job).
pub(super) fn sort_by_submit(
    jobs: &mut Vec<Job>,
    demands: &mut Vec<Demand>,
    waits: &mut Vec<Option<SimTime>>,
    labels: [&mut Vec<i32>; 2],
) {
    if demands.is_empty() && waits.is_empty() && labels.iter().all(|l| l.is_empty()) {
        jobs.sort_by_key(|j| j.submit);
        return;
    }
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| jobs[i].submit);
    fn permuted<T: Clone>(v: &[T], order: &[usize]) -> Vec<T> {
        match v.is_empty() {
            true => Vec::new(),
            false => order.iter().map(|&i| v[i].clone()).collect(),
        }
    }
    *demands = permuted(demands, &order);
    *waits = permuted(waits, &order);
    for label in labels {
        *label = permuted(label, &order);
    }
    *jobs = permuted(jobs, &order);
}

/// The jobs' QOS (or accounts) as a workload keeps them: empty when no job names one (-1
/// each).
pub(super) fn kept_labels(labels: Vec<i32>) -> Vec<i32> {
    match labels.iter().any(|&l| l >= 0) {
        true => labels,
        false => Vec::new(),
    }
}

/// The logged waits as a workload keeps them: empty when no job has one.
pub(super) fn logged_waits(waits: Vec<Option<SimTime>>) -> Vec<Option<SimTime>> {
    match waits.iter().any(Option::is_some) {
        true => waits,
        false => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_starts_at_the_first_job_that_asks() {
        let mut d = Demands::default();
        let none = Demand::default();
        d.push(0, none, Source::Missing, Source::Missing, Source::Missing);
        assert!(d.table.is_empty());
        let mem = Demand { mem_kb: 5, ..none };
        d.push(1, mem, Source::Known, Source::Missing, Source::Missing);
        let (table, counts) = d.finish(3);
        assert_eq!(table, vec![none, mem, none]);
        let c = counts.unwrap();
        assert_eq!((c.memory.known, c.memory.missing), (1, 1));
        let (table, counts) = Demands::default().finish(2);
        assert!(table.is_empty() && counts.is_none());
    }
}
