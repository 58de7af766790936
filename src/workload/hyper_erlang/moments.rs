//! One distribution fitted to samples by its moments (SOB §3.1): the sample's raw moments,
//! the exact three-moment match of smallest order, and the fallbacks when none exists. The
//! class fit ([`super::fit`]) and the maximum-likelihood fit's fallback ([`super::em`]) share
//! it.

use serde::{Deserialize, Serialize};

use super::dist::HyperErlang;

/// Highest Erlang order the fitter tries.
pub const MAX_FIT_ORDER: u32 = 20;

/// Sample moments beside the fitted model's analytic ones, for one distribution of a class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FittedMoments {
    /// Number of samples (inter-arrival gaps or run times).
    pub samples: u64,
    /// Sample raw moments μ1, μ2, μ3 (seconds, s², s³).
    pub sample: [f64; 3],
    /// The fitted distribution's analytic raw moments.
    pub fitted: [f64; 3],
    /// True when all three moments are matched exactly.
    pub exact: bool,
    /// How the fit was obtained (empty for an exact match).
    pub note: String,
}

/// Raw moments μ1..μ3 of `xs` (zeros for an empty slice).
pub fn raw_moments(xs: &[f64]) -> [f64; 3] {
    if xs.is_empty() {
        return [0.0; 3];
    }
    let n = xs.len() as f64;
    let mut m = [0.0; 3];
    for &x in xs {
        m[0] += x;
        m[1] += x * x;
        m[2] += x * x * x;
    }
    m.map(|s| s / n)
}

/// Fits a hyper-Erlang of common order to samples: the exact three-moment match of smallest
/// order when one exists; otherwise, for SCV > 1, the balanced-means two-phase
/// hyper-exponential (mean and variance matched); for SCV ≤ 1 the Erlang of order
/// round(1/SCV) (≤ [`MAX_FIT_ORDER`]) with the sample mean; with no usable samples an
/// exponential of mean `fallback_mean`.
pub fn fit_samples(xs: &[f64], fallback_mean: f64) -> (HyperErlang, FittedMoments) {
    let sample = raw_moments(xs);
    let [m1, m2, _] = sample;
    let (he, exact, note) = if xs.is_empty() || m1.is_nan() || m1 <= 0.0 {
        let mean = if fallback_mean.is_finite() && fallback_mean > 0.0 {
            fallback_mean
        } else {
            1.0
        };
        let why = if xs.is_empty() {
            "no samples"
        } else {
            "sample mean is not positive"
        };
        (
            HyperErlang::exponential(mean),
            false,
            format!("{why}: exponential with mean {mean} s"),
        )
    } else if let Some(he) = HyperErlang::fit_three_moments(sample, MAX_FIT_ORDER) {
        (he, true, String::new())
    } else {
        let scv = (m2 / (m1 * m1) - 1.0).max(0.0);
        if scv > 1.0 {
            let rho = 0.5 * (1.0 + libm::sqrt((scv - 1.0) / (scv + 1.0)));
            (
                HyperErlang::new(1, 2.0 * rho / m1, 2.0 * (1.0 - rho) / m1, rho),
                false,
                format!(
                    "no exact match up to order {MAX_FIT_ORDER}: balanced-means hyper-exponential (mean and variance matched)"
                ),
            )
        } else {
            let n = if scv > 0.0 {
                (libm::round(1.0 / scv) as u32).clamp(1, MAX_FIT_ORDER)
            } else {
                MAX_FIT_ORDER
            };
            let rate = n as f64 / m1;
            (
                HyperErlang::new(n, rate, rate, 1.0),
                false,
                format!("no exact match up to order {MAX_FIT_ORDER}: Erlang of order {n} with the sample mean"),
            )
        }
    };
    let fm = FittedMoments {
        samples: xs.len() as u64,
        sample,
        fitted: he.moments(),
        exact,
        note,
    };
    (he, fm)
}
