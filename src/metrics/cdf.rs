//! Empirical distribution functions of a workload, for drawing a trace beside a model of it
//! (SOB §3.1: the hyper-Erlang fit). Computed where the jobs are (the worker, the CLI) so that
//! only a few hundred points cross to the page, whatever the trace's size.

use serde::{Deserialize, Serialize};

use crate::model::Job;

/// Empirical CDF of `values`: points `(x, F(x))` with F(x) = share of the values ≤ x,
/// ascending in x, at most `max_points` of them (at least one when any value is finite), the
/// last one `(max, 1)`. Non-finite values are left out (they have no place on an axis).
///
/// With more distinct values than `max_points`, x runs over evenly spaced order statistics
/// (quantiles k/max_points), and each F is still exact at its x (ties counted in full), so
/// a line through the points never overstates or understates the distribution at a point.
pub fn empirical_cdf(values: &[f64], max_points: usize) -> Vec<(f64, f64)> {
    let mut xs: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if xs.is_empty() {
        return Vec::new();
    }
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    let max_points = max_points.max(1);
    // Index just past the last copy of xs[i]: the count of values ≤ xs[i].
    let upper = |i: usize| i + xs[i..].partition_point(|&v| v <= xs[i]);
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(max_points.min(n));
    for k in 1..=max_points.min(n) {
        // The ceil(k·n/m)-th smallest value (1-based), so k = m lands on the maximum.
        let i = (k * n).div_ceil(max_points.min(n)) - 1;
        let x = xs[i];
        if out.last().is_some_and(|p| p.0 == x) {
            continue;
        }
        out.push((x, upper(i) as f64 / n as f64));
    }
    out
}

/// CDFs of the three things SOB's model describes, for one workload.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkloadCdfs {
    /// Jobs in the workload.
    pub jobs: u64,
    /// Gaps between consecutive submits of the whole workload (all classes together), s.
    pub interarrival_s: Vec<(f64, f64)>,
    /// Run times, s.
    pub runtime_s: Vec<(f64, f64)>,
    /// Processors requested.
    pub procs: Vec<(f64, f64)>,
}

/// [`empirical_cdf`] of a workload's inter-arrival times, run times and processor counts.
pub fn workload_cdfs(jobs: &[Job], max_points: usize) -> WorkloadCdfs {
    let mut submits: Vec<i64> = jobs.iter().map(|j| j.submit.ticks()).collect();
    submits.sort_unstable();
    let gaps: Vec<f64> = submits
        .windows(2)
        .map(|w| crate::time::SimTime(w[1] - w[0]).as_secs_f64())
        .collect();
    let runtimes: Vec<f64> = jobs.iter().map(|j| j.runtime.as_secs_f64()).collect();
    let procs: Vec<f64> = jobs.iter().map(|j| j.procs as f64).collect();
    WorkloadCdfs {
        jobs: jobs.len() as u64,
        interarrival_s: empirical_cdf(&gaps, max_points),
        runtime_s: empirical_cdf(&runtimes, max_points),
        procs: empirical_cdf(&procs, max_points),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SimRng;

    fn check(cdf: &[(f64, f64)], max_points: usize) {
        assert!(!cdf.is_empty());
        assert!(
            cdf.len() <= max_points.max(1),
            "{} > {max_points}",
            cdf.len()
        );
        for w in cdf.windows(2) {
            assert!(w[0].0 < w[1].0, "x strictly ascending: {w:?}");
            assert!(w[0].1 <= w[1].1, "F non-decreasing: {w:?}");
        }
        assert!(cdf.iter().all(|p| p.1 > 0.0 && p.1 <= 1.0));
        assert_eq!(cdf.last().map(|p| p.1), Some(1.0));
    }

    #[test]
    fn cdf_is_monotone_ends_at_one_and_respects_the_point_budget() {
        let mut rng = SimRng::new(7);
        let xs: Vec<f64> = (0..10_000).map(|_| rng.exponential(100.0)).collect();
        for m in [1, 2, 3, 7, 200, 9_999, 10_000, 20_000] {
            let cdf = empirical_cdf(&xs, m);
            check(&cdf, m);
            let max = xs.iter().cloned().fold(f64::MIN, f64::max);
            assert_eq!(cdf.last().unwrap().0, max);
        }
        // Every F is exact at its x.
        for &(x, f) in &empirical_cdf(&xs, 50) {
            let le = xs.iter().filter(|&&v| v <= x).count() as f64 / xs.len() as f64;
            assert_eq!(f, le);
        }
    }

    #[test]
    fn cdf_counts_ties_in_full_and_skips_non_finite_values() {
        // Processor counts: few distinct values, many ties.
        let xs = [1.0, 1.0, 1.0, 2.0, 4.0, 4.0, f64::NAN, f64::INFINITY, 8.0];
        let cdf = empirical_cdf(&xs, 200);
        assert_eq!(
            cdf,
            vec![
                (1.0, 3.0 / 7.0),
                (2.0, 4.0 / 7.0),
                (4.0, 6.0 / 7.0),
                (8.0, 1.0)
            ]
        );
        check(&empirical_cdf(&xs, 2), 2);
        assert_eq!(empirical_cdf(&[5.0; 1000], 10), vec![(5.0, 1.0)]);
        assert!(empirical_cdf(&[], 10).is_empty());
        assert!(empirical_cdf(&[f64::NAN], 10).is_empty());
        assert_eq!(empirical_cdf(&[3.0], 0), vec![(3.0, 1.0)]);
    }

    #[test]
    fn workload_cdfs_cover_gaps_runtimes_and_procs() {
        use crate::time::SimTime;
        let job = |submit: i64, runtime: i64, procs: u32| Job {
            id: 0,
            submit: SimTime::from_secs(submit),
            runtime: SimTime::from_secs(runtime),
            estimate: SimTime::from_secs(runtime),
            procs,
            home: 0,
            user: -1,
            partition: -1,
        };
        // Out of submit order on purpose: gaps are taken between sorted submits.
        let jobs = [job(10, 5, 4), job(0, 1, 1), job(30, 100, 2)];
        let c = workload_cdfs(&jobs, 200);
        assert_eq!(c.jobs, 3);
        assert_eq!(c.interarrival_s, vec![(10.0, 0.5), (20.0, 1.0)]);
        assert_eq!(c.runtime_s.last(), Some(&(100.0, 1.0)));
        assert_eq!(c.procs.first(), Some(&(1.0, 1.0 / 3.0)));
        let empty = workload_cdfs(&[], 200);
        assert_eq!(empty.jobs, 0);
        assert!(empty.interarrival_s.is_empty() && empty.procs.is_empty());
    }
}
