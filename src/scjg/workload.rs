//! Metajob workloads (SCJG §4): a seeded share of a trace's jobs become metajobs, keeping
//! their submit time, size, runtime and wallclock limit; the rest stays the local workload.

use super::{Metajob, Request};
use crate::model::Job;
use crate::rng::SimRng;
use crate::time::SimTime;

/// How the chosen jobs ask for resources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One site, any (single-site ASAP).
    Single,
    /// Split into `k` components of near-equal units on sites `0..k` (specified
    /// co-allocation); jobs with fewer than `k` processors get one component per processor.
    Split(u32),
    /// `units` in all on at most `k` sites the metascheduler picks (general co-allocation).
    General(u32),
}

/// Splits `jobs` into (local jobs, metajobs): `round(percent / 100 × n)` jobs drawn
/// uniformly with `seed` become metajobs. The draw is a seeded permutation whose first k
/// jobs are taken, so with the same seed a larger share keeps every metajob of a smaller
/// one (the curves of a sweep differ only by the added metajobs). Metajobs go to the
/// metaschedulers in turn (`i mod metaschedulers`).
pub fn split_metajobs(
    jobs: &[Job],
    percent: f64,
    seed: u64,
    shape: Shape,
    metaschedulers: u32,
) -> (Vec<Job>, Vec<Metajob>) {
    let n = jobs.len();
    let k = ((percent.clamp(0.0, 100.0) / 100.0) * n as f64).round() as usize;
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = SimRng::new(seed);
    // Partial Fisher–Yates: the first k positions are a uniform sample.
    for i in 0..k.min(n) {
        let j = i + rng.range_u64(0, (n - i - 1) as u64) as usize;
        order.swap(i, j);
    }
    let mut chosen = vec![false; n];
    for &i in &order[..k.min(n)] {
        chosen[i] = true;
    }
    let mut local = Vec::with_capacity(n - k);
    let mut meta = Vec::with_capacity(k);
    for (i, job) in jobs.iter().enumerate() {
        if !chosen[i] {
            local.push(job.clone());
            continue;
        }
        let scheduler = (meta.len() as u32) % metaschedulers.max(1);
        meta.push(metajob(job, shape, scheduler));
    }
    (local, meta)
}

/// `job` as a metajob of `shape`.
pub fn metajob(job: &Job, shape: Shape, scheduler: u32) -> Metajob {
    let request = match shape {
        Shape::Single => Request::Single { units: job.procs },
        Shape::General(k) => Request::General {
            units: job.procs,
            max_sites: k.max(1),
        },
        Shape::Split(k) => {
            let k = k.max(1).min(job.procs.max(1));
            let base = job.procs / k;
            let extra = job.procs % k;
            Request::Specified((0..k).map(|c| (c, base + u32::from(c < extra))).collect())
        }
    };
    Metajob {
        id: job.id,
        submit: job.submit,
        runtime: job.runtime.min(job.estimate),
        wallclock: job.estimate,
        request,
        scheduler,
        earliest: SimTime::ZERO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs(n: u64) -> Vec<Job> {
        (0..n)
            .map(|i| Job {
                id: i as i64 + 1,
                submit: SimTime::from_secs(i as i64),
                runtime: SimTime::from_secs(50),
                estimate: SimTime::from_secs(100),
                procs: 5,
                home: 0,
                user: -1,
                partition: -1,
            })
            .collect()
    }

    #[test]
    fn shares_are_exact_nested_and_seeded() {
        let all = jobs(1000);
        let (l1, m1) = split_metajobs(&all, 1.0, 7, Shape::Single, 2);
        let (l5, m5) = split_metajobs(&all, 5.0, 7, Shape::Single, 2);
        assert_eq!((l1.len(), m1.len(), l5.len(), m5.len()), (990, 10, 950, 50));
        let ids5: Vec<i64> = m5.iter().map(|m| m.id).collect();
        assert!(m1.iter().all(|m| ids5.contains(&m.id)), "1 % ⊂ 5 %");
        assert_eq!(split_metajobs(&all, 5.0, 7, Shape::Single, 2).1, m5);
        assert_ne!(split_metajobs(&all, 5.0, 8, Shape::Single, 2).1, m5);
        assert!(m5.windows(2).all(|w| w[0].submit <= w[1].submit));
        assert_eq!(m5[0].scheduler, 0);
        assert_eq!(m5[1].scheduler, 1);
    }

    #[test]
    fn splits_keep_the_units() {
        let m = metajob(&jobs(1)[0], Shape::Split(2), 0);
        assert_eq!(m.request, Request::Specified(vec![(0, 3), (1, 2)]));
        assert_eq!(m.request.units(), 5);
    }
}
