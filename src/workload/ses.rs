//! SES's workload model (Sessini, §3.2 and Table A3): Poisson arrivals, exponential
//! runtimes, processor counts drawn from the observed frequency table.

use serde::{Deserialize, Serialize};

use super::Workload;
use crate::model::Job;
use crate::rng::SimRng;
use crate::time::SimTime;

/// SES Table A3: (processors, jobs observed), 889 jobs in all.
pub const SES_PROCESSOR_TABLE: [(u32, u64); 6] =
    [(1, 744), (2, 46), (3, 1), (4, 26), (8, 64), (16, 8)];

/// Parameters of the SES generator. Defaults are the paper's: λ = 3.125 jobs per 30 min,
/// mean runtime 496.3 min.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[serde(deny_unknown_fields)]
pub struct SesPoisson {
    pub jobs: u32,
    /// Mean arrivals per 30 minutes (SES: 3.125).
    pub arrivals_per_30min: f64,
    /// Mean runtime in minutes (SES: 496.3).
    pub mean_runtime_min: f64,
    /// Multiplies the arrival rate: > 1 makes a heavier load on the same platform.
    pub load_factor: f64,
    /// Estimates are the runtime times this factor (≥ 1; SES gives none; 1 = exact).
    pub estimate_factor: f64,
    /// The share of jobs needing 4 CPUs or more (Table A3 has 98 of 889, 11 %). When set,
    /// Table A3's frequencies are rescaled so that the jobs of 1–3 CPUs keep their relative
    /// frequencies with total 1 − share, and those of 4, 8, 16 theirs with total share.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wide_share: Option<f64>,
}

impl Default for SesPoisson {
    fn default() -> Self {
        SesPoisson {
            jobs: 2000,
            arrivals_per_30min: 3.125,
            mean_runtime_min: 496.3,
            load_factor: 1.0,
            estimate_factor: 1.0,
            wide_share: None,
        }
    }
}

impl SesPoisson {
    pub fn validate(&self) -> Result<(), String> {
        let pos = |v: f64| v.is_finite() && v > 0.0;
        if self.jobs == 0 || self.jobs > 5_000_000 {
            return Err(format!(
                "jobs must be between 1 and 5,000,000 (got {})",
                self.jobs
            ));
        }
        if !pos(self.arrivals_per_30min) || !pos(self.mean_runtime_min) || !pos(self.load_factor) {
            return Err("arrival rate, mean runtime and load factor must be positive".into());
        }
        if !(self.estimate_factor.is_finite() && self.estimate_factor >= 1.0) {
            return Err(format!(
                "estimate_factor must be at least 1 (got {})",
                self.estimate_factor
            ));
        }
        if let Some(w) = self.wide_share {
            if !(w.is_finite() && (0.0..=1.0).contains(&w)) {
                return Err(format!("wide_share must be in [0, 1] (got {w})"));
            }
        }
        Ok(())
    }

    /// The processor-count weights the generator draws with (Table A3, or rescaled to
    /// `wide_share`; integers, in millionths of the total, so the draw stays exact).
    pub fn processor_weights(&self) -> Vec<u64> {
        let table = SES_PROCESSOR_TABLE.iter().map(|&(_, w)| w);
        let Some(share) = self.wide_share else {
            return table.collect();
        };
        let wide = |p: u32| p >= 4;
        let total = |is_wide: bool| -> u64 {
            SES_PROCESSOR_TABLE
                .iter()
                .filter(|&&(p, _)| wide(p) == is_wide)
                .map(|&(_, w)| w)
                .sum()
        };
        let (small_total, wide_total) = (total(false) as f64, total(true) as f64);
        SES_PROCESSOR_TABLE
            .iter()
            .map(|&(p, w)| {
                let class = if wide(p) {
                    share / wide_total
                } else {
                    (1.0 - share) / small_total
                };
                (w as f64 * class * 1e6).round() as u64
            })
            .collect()
    }

    /// Mean processors per job under [`Self::processor_weights`].
    pub fn mean_processors(&self) -> f64 {
        let w = self.processor_weights();
        let total: u64 = w.iter().sum();
        SES_PROCESSOR_TABLE
            .iter()
            .zip(&w)
            .map(|(&(p, _), &w)| p as f64 * w as f64)
            .sum::<f64>()
            / total.max(1) as f64
    }

    /// Draws the workload; the same seed gives the same jobs on every platform.
    pub fn generate(&self, seed: u64) -> Result<Workload, String> {
        self.validate()?;
        let mut rng = SimRng::new(seed);
        let mean_gap_s = 1800.0 / (self.arrivals_per_30min * self.load_factor);
        let weights = self.processor_weights();
        if weights.iter().sum::<u64>() == 0 {
            return Err("every processor count has weight 0".into());
        }
        let mut t = 0.0f64;
        let mut jobs = Vec::with_capacity(self.jobs as usize);
        for i in 0..self.jobs {
            if i > 0 {
                t += rng.exponential(mean_gap_s);
            }
            let runtime_s = rng
                .exponential(self.mean_runtime_min * 60.0)
                .round()
                .max(1.0);
            let procs = SES_PROCESSOR_TABLE[rng.weighted(&weights)].0;
            let runtime = SimTime::from_secs(runtime_s as i64);
            let estimate = SimTime::from_secs((runtime_s * self.estimate_factor).ceil() as i64);
            jobs.push(Job {
                id: i as i64 + 1,
                submit: SimTime::from_secs(t.floor() as i64),
                runtime,
                estimate,
                procs,
                home: 0,
                user: -1,
                partition: -1,
            });
        }
        let name = format!(
            "ses-poisson(jobs={}, load={}, seed={seed})",
            self.jobs, self.load_factor
        );
        Ok(Workload::generated(name, jobs, vec![]))
    }
}
