//! How well SOB's hyper-Erlang model fits a trace beyond the three matched moments: the
//! Kolmogorov–Smirnov distance D = sup_x |F_n(x) − F(x)| between the trace's empirical CDF
//! and the model's, per size class (inter-arrival and run times) and pooled over all jobs
//! (run times against the mixture of the classes, weighted by their shares). D is 0 for a
//! perfect fit and at most 1; matching moments says nothing about it (KTH-SP2: 29.6 % of the
//! trace's run times are ≤ 60 s against 2.1 % of the model's).

use serde::{Deserialize, Serialize};

use super::dist::HyperErlang;
use super::fit::FittedClass;
use crate::model::Job;
use crate::time::SimTime;

/// The KS distances of one size class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassFit {
    pub nmin: u32,
    pub nmax: u32,
    pub jobs: u64,
    /// D between the class's run times and its fitted service distribution.
    pub service_ks: f64,
    /// D between the gaps between the class's submits and its fitted inter-arrival one
    /// (0 when the class has fewer than two jobs).
    pub interarrival_ks: f64,
}

/// Goodness of fit of a whole fit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitQuality {
    pub classes: Vec<ClassFit>,
    /// D between every job's run time and the classes' service distributions mixed by the
    /// classes' shares of the jobs.
    pub pooled_service_ks: f64,
}

/// P(X ≤ x) for an Erlang(n, λ): 1 − Σ_{k<n} e^{−λx} (λx)^k / k!, summed in logs so that a
/// large λx neither overflows nor loses the tail.
fn erlang_cdf(n: u32, lambda: f64, x: f64) -> f64 {
    if x <= 0.0 || lambda.is_nan() || lambda <= 0.0 {
        return 0.0;
    }
    let lx = lambda * x;
    let ln_lx = libm::log(lx);
    let mut ln_term = -lx; // k = 0: e^{−λx}
    let mut below = 0.0;
    for k in 0..n {
        if k > 0 {
            ln_term += ln_lx - libm::log(k as f64);
        }
        below += libm::exp(ln_term);
    }
    (1.0 - below).clamp(0.0, 1.0)
}

/// The hyper-Erlang's CDF: ρ·Erlang(n, λ1) + (1 − ρ)·Erlang(n, λ2).
pub fn hyper_erlang_cdf(h: &HyperErlang, x: f64) -> f64 {
    h.rho * erlang_cdf(h.n, h.lambda1, x) + (1.0 - h.rho) * erlang_cdf(h.n, h.lambda2, x)
}

/// sup |F_n − F| over sorted samples (F continuous): at each sample the empirical CDF jumps
/// from i/n to (i+1)/n. 0 for no samples.
pub fn ks_distance(sorted: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let n = sorted.len() as f64;
    sorted
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            ((i as f64 + 1.0) / n - f).max(f - i as f64 / n)
        })
        .fold(0.0, f64::max)
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

/// The KS distances of `fitted` (from [`super::fit_classes`]) against `jobs`.
pub fn fit_quality(jobs: &[Job], fitted: &[FittedClass]) -> FitQuality {
    let in_class =
        |j: &Job, f: &FittedClass| (f.class.nmin..=f.class.nmax).contains(&j.procs.max(1));
    let classes = fitted
        .iter()
        .map(|f| {
            let runtimes = sorted(
                jobs.iter()
                    .filter(|j| in_class(j, f))
                    .map(|j| j.runtime.as_secs_f64())
                    .collect(),
            );
            let mut submits: Vec<i64> = jobs
                .iter()
                .filter(|j| in_class(j, f))
                .map(|j| j.submit.ticks())
                .collect();
            submits.sort_unstable();
            let gaps = sorted(
                submits
                    .windows(2)
                    .map(|w| SimTime(w[1] - w[0]).as_secs_f64())
                    .collect(),
            );
            ClassFit {
                nmin: f.class.nmin,
                nmax: f.class.nmax,
                jobs: runtimes.len() as u64,
                service_ks: ks_distance(&runtimes, |x| hyper_erlang_cdf(&f.class.service, x)),
                interarrival_ks: ks_distance(&gaps, |x| hyper_erlang_cdf(&f.class.interarrival, x)),
            }
        })
        .collect();
    let total: f64 = fitted.iter().map(|f| f.jobs as f64).sum();
    let all = sorted(jobs.iter().map(|j| j.runtime.as_secs_f64()).collect());
    let pooled_service_ks = ks_distance(&all, |x| {
        fitted
            .iter()
            .map(|f| f.jobs as f64 / total.max(1.0) * hyper_erlang_cdf(&f.class.service, x))
            .sum()
    });
    FitQuality {
        classes,
        pooled_service_ks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erlang_cdf_by_hand() {
        // Erlang(1, λ) is the exponential: 1 − e^{−λx}.
        assert!((erlang_cdf(1, 2.0, 0.5) - (1.0 - (-1.0f64).exp())).abs() < 1e-12);
        // Erlang(2, 1) at 1: 1 − e^{−1}(1 + 1) = 0.26424…
        assert!((erlang_cdf(2, 1.0, 1.0) - 0.264_241_117_657_115_4).abs() < 1e-12);
        // A huge λx is 1, not NaN.
        assert_eq!(erlang_cdf(20, 1e30, 1e10), 1.0);
        assert_eq!(erlang_cdf(3, 1.0, 0.0), 0.0);
    }

    #[test]
    fn ks_distance_by_hand() {
        // Samples 0.25 and 0.75 against the uniform CDF on [0, 1]: F_n jumps 0 → ½ at 0.25
        // (F = ¼) and ½ → 1 at 0.75 (F = ¾): D = ¼.
        let d = ks_distance(&[0.25, 0.75], |x| x.clamp(0.0, 1.0));
        assert!((d - 0.25).abs() < 1e-12);
        // All samples at one point far in the tail: D ≈ 1.
        let d = ks_distance(&[100.0, 100.0], |x| 1.0 - (-x / 1e6f64).exp());
        assert!(d > 0.99);
        assert_eq!(ks_distance(&[], |_| 0.5), 0.0);
    }
}
