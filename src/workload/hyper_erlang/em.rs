//! Maximum-likelihood fitting of one distribution by EM, over the same family as the moment
//! fit (two Erlang branches of a common order): an alternative to SOB §3.1's moment
//! matching that follows the bulk of the samples rather than their tail.

use super::dist::HyperErlang;
use super::moments::{fit_samples, raw_moments, FittedMoments};

/// Erlang orders the maximum-likelihood fit tries.
const ML_ORDERS: [u32; 6] = [1, 2, 3, 4, 6, 8];
/// EM rounds per order at most; it stops earlier once the log-likelihood settles.
const ML_ROUNDS: usize = 150;

/// Maximum-likelihood hyper-Erlang of common order (two branches), by EM for each order of
/// [`ML_ORDERS`], keeping the order of highest likelihood. Samples are held to at least 1 ms
/// (a zero gap has no likelihood under an Erlang of order > 1). Fewer than 2 usable samples
/// fall back to [`fit_samples`].
///
/// EM for a mixture of Erlang(n, λ1) and Erlang(n, λ2) with weights ρ, 1 − ρ: E-step, each
/// sample's responsibility w = ρ f1(x) / (ρ f1(x) + (1 − ρ) f2(x)); M-step, ρ = mean w,
/// λ1 = n Σ w / Σ w x, λ2 = n Σ (1 − w) / Σ (1 − w) x. Started from the lower and upper
/// halves of the sorted samples.
pub fn fit_samples_ml(xs: &[f64], fallback_mean: f64) -> (HyperErlang, FittedMoments) {
    let mut clean: Vec<f64> = xs
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .map(|x| x.max(1e-3))
        .collect();
    if clean.len() < 2 {
        return fit_samples(xs, fallback_mean);
    }
    clean.sort_by(f64::total_cmp);
    let sum_ln: f64 = clean.iter().map(|&x| libm::log(x)).sum();
    let mut best: Option<(HyperErlang, f64)> = None;
    for n in ML_ORDERS {
        if let Some((he, ll)) = em_order(&clean, n, sum_ln) {
            if best.as_ref().is_none_or(|&(_, b)| ll > b) {
                best = Some((he, ll));
            }
        }
    }
    let Some((he, ll)) = best else {
        return fit_samples(xs, fallback_mean);
    };
    let fm = FittedMoments {
        samples: xs.len() as u64,
        sample: raw_moments(xs),
        fitted: he.moments(),
        exact: false,
        note: format!(
            "maximum likelihood (EM), order {}, mean log-likelihood {:.4}",
            he.n,
            ll / clean.len() as f64
        ),
    };
    (he, fm)
}

/// EM for one order `n` on sorted samples; `(model, log-likelihood)`.
fn em_order(xs: &[f64], n: u32, sum_ln: f64) -> Option<(HyperErlang, f64)> {
    let nf = n as f64;
    let half = xs.len() / 2;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let (lo, hi) = (mean(&xs[..half.max(1)]), mean(&xs[half..]));
    let (mut l1, mut l2, mut rho) = (nf / lo, nf / hi.max(lo * 1.000001), 0.5);
    // Σ over samples of (n − 1) ln x − ln (n − 1)!: the same for both branches.
    let common = (nf - 1.0) * sum_ln - xs.len() as f64 * libm::lgamma(nf);
    let mut last = f64::NEG_INFINITY;
    let mut ll = f64::NEG_INFINITY;
    for _ in 0..ML_ROUNDS {
        let (ln_r1, ln_r2) = (libm::log(rho), libm::log(1.0 - rho));
        let (ln_l1, ln_l2) = (nf * libm::log(l1), nf * libm::log(l2));
        let (mut s1, mut sx1, mut sx2, mut sum) = (0.0, 0.0, 0.0, 0.0);
        for &x in xs {
            let a1 = ln_r1 + ln_l1 - l1 * x;
            let a2 = ln_r2 + ln_l2 - l2 * x;
            let m = a1.max(a2);
            let (e1, e2) = (libm::exp(a1 - m), libm::exp(a2 - m));
            let w = e1 / (e1 + e2);
            s1 += w;
            sx1 += w * x;
            sx2 += (1.0 - w) * x;
            sum += m + libm::log(e1 + e2);
        }
        ll = sum + common;
        let s2 = xs.len() as f64 - s1;
        if !(s1 > 1e-9 && s2 > 1e-9 && sx1 > 0.0 && sx2 > 0.0) {
            // One branch emptied: the best of this order is a single Erlang.
            let rate = nf * xs.len() as f64 / xs.iter().sum::<f64>();
            let ll1 = xs
                .iter()
                .map(|&x| nf * libm::log(rate) - rate * x)
                .sum::<f64>()
                + common;
            return Some((HyperErlang::new(n, rate, rate, 1.0), ll1));
        }
        rho = s1 / xs.len() as f64;
        l1 = nf * s1 / sx1;
        l2 = nf * s2 / sx2;
        if (ll - last).abs() <= 1e-9 * ll.abs() {
            break;
        }
        last = ll;
    }
    let he = HyperErlang::new(n, l1, l2, rho.clamp(0.0, 1.0));
    (he.validate().is_ok() && ll.is_finite()).then_some((he, ll))
}
