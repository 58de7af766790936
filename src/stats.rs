//! Order statistics every family's seed sweep shares: the median of a point's samples and
//! the band around it that covers the true median with at least 95 % (SF's rule, used by
//! SES, KKOR and SCJG too).

/// Order-statistic band for the median of `n` sorted samples: the band is
/// `[x[i], x[n-1-i]]` (0-based) with coverage 1 − 2·P(Bin(n, ½) ≤ i); `i` is the largest
/// index keeping the coverage at or above 95 % (0, min to max, when `n` is too small).
pub fn median_band(n: usize) -> (usize, f64) {
    let half_n = libm::pow(0.5, n as f64);
    // cdf[j] = P(Bin(n, ½) ≤ j)
    let mut cdf = Vec::with_capacity(n);
    let mut coef = 1.0f64;
    let mut acc = 0.0;
    for j in 0..n {
        if j > 0 {
            coef = coef * (n - j + 1) as f64 / j as f64;
        }
        acc += coef * half_n;
        cdf.push(acc);
    }
    let mut i = 0;
    while i + 1 < n / 2 && 1.0 - 2.0 * cdf[i + 1] >= 0.95 {
        i += 1;
    }
    (i, 1.0 - 2.0 * cdf.get(i).copied().unwrap_or(0.0))
}

/// Sorts `samples` (one per seed) and returns their median and the order-statistic band
/// `[x[band_lo], x[n − 1 − band_lo]]` (`band_lo` from [`median_band`]); zeros when empty.
pub fn median_and_band(samples: &mut [f64], band_lo: usize) -> (f64, f64, f64) {
    samples.sort_by(|a, b| a.total_cmp(b));
    let n = samples.len();
    if n == 0 {
        return (0.0, 0.0, 0.0);
    }
    let median = if n % 2 == 1 {
        samples[n / 2]
    } else {
        (samples[n / 2 - 1] + samples[n / 2]) / 2.0
    };
    let lo = band_lo.min(n - 1);
    (median, samples[lo], samples[n - 1 - lo])
}
