//! The SF paper's experiments as sweep presets: each point is a batch system, each policy
//! runs on it with N seeds (the same seeds for every policy), and the result is the median
//! with a confidence band from order statistics.

use serde::Serialize;

use super::{simulate_allocation, AllocationPolicy, BatchSystem, Dispatch, RateChange};

/// SF Table III: ten resources of speeds 1 (×4), 2 (×3), 5 (×2) and 10.
pub fn table_three() -> Vec<f64> {
    let mut r = vec![1.0; 4];
    r.extend([2.0; 3]);
    r.extend([5.0; 2]);
    r.push(10.0);
    r
}

pub struct SweepPreset {
    pub name: &'static str,
    pub description: &'static str,
    pub x_label: &'static str,
    pub policies: &'static [AllocationPolicy],
    /// The paper's headline numbers, to print beside the measured ones.
    pub paper: &'static str,
}

use AllocationPolicy::{Dll, Hybrid, Owa, Ww};

pub const SWEEP_PRESETS: &[SweepPreset] = &[
    SweepPreset {
        name: "sf-heterogeneity",
        description: "nine resources of speed 1 and one of speed h = 1..20; λ = 0.1 batches/s, k = 10 (SF §V-B, Fig. 3)",
        x_label: "speed of the fast resource (h)",
        policies: &[Ww, Owa, Dll],
        paper: "OWA 41 % better than WW at 20:1",
    },
    SweepPreset {
        name: "sf-size",
        description: "n = 2..20 resources, half of speed 1 and half of speed 10; λ = 0.1, k = 10 (SF §V-C, Fig. 4)",
        x_label: "resources (n)",
        policies: &[Ww, Owa, Dll],
        paper: "OWA better than WW by 21 % at 6 resources, 35 % at 20",
    },
    SweepPreset {
        name: "sf-batch",
        description: "SF Table III's ten resources (Σμ = 30); batch size k = 1..50; λ = 0.1 (SF §V-D, Fig. 5)",
        x_label: "batch size (k)",
        policies: &[Ww, Owa, Dll],
        paper: "OWA better than WW by 62 % at k = 1, 20 % at 10, 1.5 % at 50",
    },
    SweepPreset {
        name: "sf-cv",
        description: "Table III resources, k = 10, load λk/Σμ = 0.05; inter-arrival CV 1..3 (two-stage hyper-exponential) (SF §V-E, Fig. 8)",
        x_label: "coefficient of variation of batch inter-arrivals",
        policies: &[Ww, Owa, Dll],
        paper: "at CV 3, OWA 10 % better than WW and 15 % worse than DLL",
    },
    SweepPreset {
        name: "sf-hybrid",
        description: "Table III resources, k = 20, load 0.3; halfway through, the speed-10 resource drops to the x-axis value; static OWA (from the initial rates) vs the hybrid scheduler (SF §VI, Figs. 10–12)",
        x_label: "rate of the fast resource after degradation",
        policies: &[Owa, Hybrid, Dll],
        paper: "hybrid 14.3 % better than static on average (real grid)",
    },
];

pub fn sweep_preset(name: &str) -> Option<&'static SweepPreset> {
    SWEEP_PRESETS.iter().find(|p| p.name == name)
}

/// The systems of a preset's points: (x, system).
pub fn points(preset: &SweepPreset, batches: u64) -> Vec<(f64, BatchSystem)> {
    let sys = |rates: Vec<f64>, lambda: f64, k: u32, cv: f64| BatchSystem {
        rates,
        lambda,
        batch_size: k,
        arrival_cv: cv,
        rate_changes: vec![],
    };
    match preset.name {
        "sf-heterogeneity" => (1..=20)
            .map(|h| {
                let mut r = vec![1.0; 9];
                r.push(h as f64);
                (h as f64, sys(r, 0.1, 10, 1.0))
            })
            .collect(),
        "sf-size" => (1..=10)
            .map(|half| {
                let mut r = vec![1.0; half];
                r.extend(vec![10.0; half]);
                ((2 * half) as f64, sys(r, 0.1, 10, 1.0))
            })
            .collect(),
        "sf-batch" => [1, 2, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50]
            .into_iter()
            .map(|k| (k as f64, sys(table_three(), 0.1, k, 1.0)))
            .collect(),
        "sf-cv" => [1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0]
            .into_iter()
            .map(|cv| (cv, sys(table_three(), 0.05 * 30.0 / 10.0, 10, cv)))
            .collect(),
        "sf-hybrid" => {
            let lambda = 0.3 * 30.0 / 20.0;
            let halfway = batches as f64 / 2.0 / lambda;
            [10.0, 5.0, 2.0, 1.0, 0.5]
                .into_iter()
                .map(|rate| {
                    let mut s = sys(table_three(), lambda, 20, 1.0);
                    s.rate_changes.push(RateChange {
                        at_s: halfway,
                        resource: 9,
                        rate,
                    });
                    (rate, s)
                })
                .collect()
        }
        _ => vec![],
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct PolicySeries {
    pub policy: &'static str,
    /// Median over seeds of the mean response time, per point (seconds).
    pub median: Vec<f64>,
    /// Confidence band of the median from order statistics (see `confidence`).
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SweepResult {
    pub preset: &'static str,
    pub description: &'static str,
    pub x_label: &'static str,
    pub paper: &'static str,
    pub x: Vec<f64>,
    pub seeds: u64,
    pub batches: u64,
    pub warmup: u64,
    /// Coverage of the band: P(lo < true median < hi).
    pub confidence: f64,
    pub series: Vec<PolicySeries>,
    /// Gap of the first policy over the second at each point: 1 − median(2nd) / median(1st).
    pub gap_label: String,
    pub gap: Vec<f64>,
}

/// Order-statistic band for the median of `n` sorted samples: the band is
/// `[x[i], x[n-1-i]]` (0-based) with coverage 1 − 2·P(Bin(n, ½) ≤ i); `i` is the largest
/// index keeping the coverage at or above 95 % (0, min to max, when `n` is too small).
fn median_band(n: usize) -> (usize, f64) {
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

/// Runs a preset: every point × policy × seed. `progress(done, total)` may return false to
/// cancel.
pub fn run_sweep(
    preset: &'static SweepPreset,
    seeds: u64,
    batches: u64,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<SweepResult, String> {
    if seeds == 0 || seeds > 1000 {
        return Err(format!("seeds must be 1..1000 (got {seeds})"));
    }
    if !(100..=10_000_000).contains(&batches) {
        return Err(format!("batches must be 100..10,000,000 (got {batches})"));
    }
    // SF discards the first third (50,000 of 150,000 batches); the hybrid preset measures
    // the whole run, degradation included.
    let warmup = if preset.name == "sf-hybrid" {
        0
    } else {
        batches / 3
    };
    let pts = points(preset, batches);
    let total = (pts.len() * preset.policies.len()) as u64 * seeds;
    let mut done = 0;
    let (band_lo, confidence) = median_band(seeds as usize);
    let mut series: Vec<PolicySeries> = preset
        .policies
        .iter()
        .map(|p| PolicySeries {
            policy: p.name(),
            median: vec![],
            lo: vec![],
            hi: vec![],
        })
        .collect();
    for (_, sys) in &pts {
        for (pi, &policy) in preset.policies.iter().enumerate() {
            let mut samples = Vec::with_capacity(seeds as usize);
            for seed in 0..seeds {
                let out =
                    simulate_allocation(sys, policy, Dispatch::Random, batches, warmup, seed + 1)?;
                samples.push(out.mean_response_s);
                done += 1;
                if !progress(done, total) {
                    return Err("sweep cancelled".into());
                }
            }
            samples.sort_by(|a, b| a.total_cmp(b));
            let n = samples.len();
            let median = if n % 2 == 1 {
                samples[n / 2]
            } else {
                (samples[n / 2 - 1] + samples[n / 2]) / 2.0
            };
            series[pi].median.push(median);
            series[pi].lo.push(samples[band_lo]);
            series[pi].hi.push(samples[n - 1 - band_lo]);
        }
    }
    let gap = series[1]
        .median
        .iter()
        .zip(&series[0].median)
        .map(|(b, a)| 1.0 - b / a)
        .collect();
    Ok(SweepResult {
        preset: preset.name,
        description: preset.description,
        x_label: preset.x_label,
        paper: preset.paper,
        x: pts.iter().map(|(x, _)| *x).collect(),
        seeds,
        batches,
        warmup,
        confidence,
        gap_label: format!(
            "{} better than {} by (1 − {}/{})",
            series[1].policy, series[0].policy, series[1].policy, series[0].policy
        ),
        series,
        gap,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_band_of_ten_is_second_and_ninth() {
        let (lo, cov) = median_band(10);
        assert_eq!(lo, 1);
        assert!((cov - (1.0 - 2.0 * 11.0 / 1024.0)).abs() < 1e-12);
        assert_eq!(median_band(1).0, 0);
    }

    #[test]
    fn every_preset_has_points() {
        for p in SWEEP_PRESETS {
            assert!(!points(p, 1000).is_empty(), "{}", p.name);
        }
    }
}
