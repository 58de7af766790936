//! A hyper-Erlang model fitted to a trace (SOB §3.1): size classes of width
//! `cpus_per_node` with the 2 % merge rule, then each class's inter-arrival and run times
//! fitted by moments ([`super::moments`]) or by maximum likelihood ([`super::em`]).

use serde::{Deserialize, Serialize};

use super::dist::SizeClass;
use super::em::fit_samples_ml;
use super::moments::{fit_samples, FittedMoments};
use crate::model::Job;
use crate::time::SimTime;

/// Share of the jobs below which a fitted class is merged into a neighbour (SOB: 2 %).
pub const MERGE_THRESHOLD_PCT: f64 = 2.0;

/// One class fitted to a trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FittedClass {
    pub class: SizeClass,
    pub jobs: u64,
    pub interarrival: FittedMoments,
    pub service: FittedMoments,
    /// Both distributions matched exactly.
    pub exact: bool,
}

/// How a class's distributions are fitted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FitMethod {
    /// SOB §3.1: the first three moments matched exactly ([`fit_samples`]). The paper's.
    #[default]
    Moments,
    /// Maximum likelihood (EM) over the same family — two Erlang branches of a common order,
    /// the order that fits best among 1–8 ([`fit_samples_ml`]): follows the bulk of the
    /// samples rather than their tail, at the price of the higher moments.
    MaxLikelihood,
}

impl FitMethod {
    pub const ALL: [FitMethod; 2] = [FitMethod::Moments, FitMethod::MaxLikelihood];

    pub fn name(self) -> &'static str {
        match self {
            FitMethod::Moments => "moments",
            FitMethod::MaxLikelihood => "max_likelihood",
        }
    }

    /// How the method reads in a sentence ("fitted by …").
    pub fn label(self) -> &'static str {
        match self {
            FitMethod::Moments => "matching three moments (SOB §3.1)",
            FitMethod::MaxLikelihood => "maximum likelihood (EM)",
        }
    }

    pub fn parse(s: &str) -> Result<FitMethod, String> {
        FitMethod::ALL
            .into_iter()
            .find(|m| m.name() == s || (s == "ml" && *m == FitMethod::MaxLikelihood))
            .ok_or_else(|| format!("unknown fit method '{s}' (moments, max_likelihood)"))
    }
}

/// Size classes of a trace before fitting: (nmin, nmax, jobs), after the 2 % merge rule.
///
/// Initial classes have width `cpus_per_node` (1..=c, c+1..=2c, …, up to the class of the
/// widest job). While some class holds less than 2 % of the jobs, the one with the fewest jobs
/// (tie: the lowest) is merged into its neighbour with fewer jobs (tie: the lower neighbour).
///
/// Only the classes that hold a job are built (a job 2³¹ CPUs wide made 2³¹ classes, 32 GiB,
/// issue #30's fuzzing): the empty ones have the fewest jobs, so they go first, lowest first,
/// and where each ends up is known without building it (see [`absorb_empty_classes`]). The
/// merges that follow take the smallest class from an ordered set: O(k log k) for k widths.
pub fn merge_classes(jobs: &[Job], cpus_per_node: u32) -> Vec<(u32, u32, u64)> {
    let c = cpus_per_node.max(1);
    if jobs.is_empty() {
        return Vec::new();
    }
    let mut counts: std::collections::BTreeMap<u32, u64> = std::collections::BTreeMap::new();
    for j in jobs {
        *counts.entry((j.procs.max(1) - 1) / c).or_default() += 1;
    }
    let classes = absorb_empty_classes(&counts, c);
    merge_small_classes(classes, jobs.len() as f64)
}

/// The classes left once every empty class is merged, as the merge rule does it: the lowest
/// empty class goes first; a run of empty classes at the bottom joins the first class with
/// jobs (class 0 merges into class 1), a run between two classes with jobs merges into
/// itself (its right neighbour is empty, with fewer jobs than its left) until one class is
/// left, which joins the neighbour with fewer jobs (tie: the lower). No class with jobs
/// changes its count meanwhile, so each run's fate depends on its two neighbours alone.
fn absorb_empty_classes(
    counts: &std::collections::BTreeMap<u32, u64>,
    c: u32,
) -> Vec<(u32, u32, u64)> {
    let lo = |k: u32| k.saturating_mul(c).saturating_add(1);
    let hi = |k: u32| (k.saturating_add(1)).saturating_mul(c);
    let nonempty: Vec<(u32, u64)> = counts.iter().map(|(&k, &n)| (k, n)).collect();
    // (first class, last class, jobs) of each class with jobs, grown by the runs it absorbs.
    let mut spans: Vec<(u32, u32, u64)> = nonempty.iter().map(|&(k, n)| (k, k, n)).collect();
    spans[0].0 = 0;
    for i in 1..nonempty.len() {
        let (left, right) = (nonempty[i - 1], nonempty[i]);
        if right.0 > left.0 + 1 {
            if left.1 <= right.1 {
                spans[i - 1].1 = right.0 - 1;
            } else {
                spans[i].0 = left.0 + 1;
            }
        }
    }
    spans
        .into_iter()
        .map(|(a, b, n)| (lo(a), hi(b), n))
        .collect()
}

/// The 2 % rule on classes that all hold jobs: while some class holds less than 2 % of the
/// jobs, the one with the fewest (tie: the lowest) merges into its neighbour with fewer jobs
/// (tie: the lower neighbour).
fn merge_small_classes(mut classes: Vec<(u32, u32, u64)>, total: f64) -> Vec<(u32, u32, u64)> {
    use std::collections::BTreeSet;
    let n = classes.len();
    let small = |count: u64| (count as f64) * 100.0 < MERGE_THRESHOLD_PCT * total;
    // Neighbours among the classes still there; positions keep their order, so the lowest
    // position is the lowest class.
    let mut prev: Vec<Option<usize>> = (0..n).map(|i| i.checked_sub(1)).collect();
    let mut next: Vec<Option<usize>> = (0..n).map(|i| (i + 1 < n).then_some(i + 1)).collect();
    let mut alive = vec![true; n];
    let mut queue: BTreeSet<(u64, usize)> = (0..n)
        .filter(|&i| small(classes[i].2))
        .map(|i| (classes[i].2, i))
        .collect();
    let mut left = n;
    while left > 1 {
        let Some((_, i)) = queue.pop_first() else {
            break;
        };
        let target = match (prev[i], next[i]) {
            (None, Some(r)) => r,
            (Some(l), None) => l,
            (Some(l), Some(r)) if classes[l].2 <= classes[r].2 => l,
            (Some(_), Some(r)) => r,
            (None, None) => break,
        };
        let (a, b) = (i.min(target), i.max(target));
        queue.remove(&(classes[target].2, target));
        classes[a] = (classes[a].0, classes[b].1, classes[a].2 + classes[b].2);
        alive[b] = false;
        next[a] = next[b];
        if let Some(r) = next[b] {
            prev[r] = Some(a);
        }
        left -= 1;
        if small(classes[a].2) {
            queue.insert((classes[a].2, a));
        }
    }
    classes
        .into_iter()
        .zip(alive)
        .filter_map(|(cl, keep)| keep.then_some(cl))
        .collect()
}

/// SOB §3.1: classes from `cpus_per_node` with the 2 % merge rule, then per class the first
/// three raw moments of the inter-arrival times (between consecutive submits of the class's
/// jobs, in seconds) and of the run times, each moment-matched by a hyper-Erlang of common
/// order (see [`fit_samples`]). A class with a single job (or all its jobs submitted at once)
/// gets an exponential inter-arrival time with mean span / jobs-in-class, where span is the
/// whole trace's first-to-last submit (flagged inexact).
pub fn fit_classes(jobs: &[Job], cpus_per_node: u32) -> Vec<FittedClass> {
    fit_classes_with(jobs, cpus_per_node, FitMethod::Moments)
}

/// [`fit_classes`] with each distribution fitted by `method`.
pub fn fit_classes_with(jobs: &[Job], cpus_per_node: u32, method: FitMethod) -> Vec<FittedClass> {
    let fit = match method {
        FitMethod::Moments => fit_samples,
        FitMethod::MaxLikelihood => fit_samples_ml,
    };
    let classes = merge_classes(jobs, cpus_per_node);
    let total = jobs.len() as f64;
    let (first, last) = jobs.iter().fold((i64::MAX, i64::MIN), |(a, b), j| {
        (a.min(j.submit.ticks()), b.max(j.submit.ticks()))
    });
    let span_s = if jobs.len() > 1 {
        SimTime(last - first).as_secs_f64()
    } else {
        0.0
    };
    let trace_gap = if jobs.len() > 1 {
        span_s / (jobs.len() - 1) as f64
    } else {
        1.0
    };
    classes
        .iter()
        .map(|&(nmin, nmax, count)| {
            let mut submits: Vec<i64> = Vec::with_capacity(count as usize);
            let mut runtimes: Vec<f64> = Vec::with_capacity(count as usize);
            for j in jobs {
                let p = j.procs.max(1);
                if p >= nmin && p <= nmax {
                    submits.push(j.submit.ticks());
                    runtimes.push(j.runtime.as_secs_f64());
                }
            }
            submits.sort_unstable();
            let gaps: Vec<f64> = submits
                .windows(2)
                .map(|w| SimTime(w[1] - w[0]).as_secs_f64())
                .collect();
            let (ia, ia_m) = fit(&gaps, trace_gap * total / count.max(1) as f64);
            let (sv, sv_m) = fit(&runtimes, 1.0);
            FittedClass {
                class: SizeClass {
                    nmin,
                    nmax,
                    share_pct: count as f64 * 100.0 / total,
                    interarrival: ia,
                    service: sv,
                },
                jobs: count,
                exact: ia_m.exact && sv_m.exact,
                interarrival: ia_m,
                service: sv_m,
            }
        })
        .collect()
}
