//! The hyper-Erlang distribution of common order HE(n, λ1, λ2, ρ) (SOB §3.1, after Jann et
//! al. and Johnson & Taaffe): sampling, raw moments and the exact three-moment match; and the
//! size class, a processor range with one such distribution for its inter-arrival times and
//! one for its run times.

use serde::{Deserialize, Serialize};

use crate::rng::SimRng;

/// Highest Erlang order accepted for a distribution (sampling costs n draws).
pub const MAX_ORDER: u32 = 1000;

/// Hyper-Erlang distribution of common order: with probability `rho` Erlang(n, lambda1), else
/// Erlang(n, lambda2). Rates are per second.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HyperErlang {
    pub n: u32,
    pub lambda1: f64,
    pub lambda2: f64,
    pub rho: f64,
}

impl HyperErlang {
    pub const fn new(n: u32, lambda1: f64, lambda2: f64, rho: f64) -> HyperErlang {
        HyperErlang {
            n,
            lambda1,
            lambda2,
            rho,
        }
    }

    /// Plain exponential with the given mean (n = 1, both rates equal, ρ = 1).
    pub fn exponential(mean: f64) -> HyperErlang {
        HyperErlang::new(1, 1.0 / mean, 1.0 / mean, 1.0)
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.n == 0 || self.n > MAX_ORDER {
            return Err(format!(
                "order n must be between 1 and {MAX_ORDER} (got {})",
                self.n
            ));
        }
        for (name, v) in [("lambda1", self.lambda1), ("lambda2", self.lambda2)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!(
                    "{name} must be a positive rate per second (got {v})"
                ));
            }
        }
        if !(self.rho.is_finite() && (0.0..=1.0).contains(&self.rho)) {
            return Err(format!("rho must be between 0 and 1 (got {})", self.rho));
        }
        Ok(())
    }

    /// One sample, in seconds.
    pub fn sample(&self, rng: &mut SimRng) -> f64 {
        let rate = if rng.uniform() < self.rho {
            self.lambda1
        } else {
            self.lambda2
        };
        let mean = 1.0 / rate;
        let mut x = 0.0;
        for _ in 0..self.n {
            x += rng.exponential(mean);
        }
        x
    }

    /// Raw moment E[X^k]: ρ·a_k/λ1^k + (1−ρ)·a_k/λ2^k with a_k = n(n+1)…(n+k−1).
    pub fn moment(&self, k: u32) -> f64 {
        let a = rising(self.n, k);
        let e = k as f64;
        self.rho * a / libm::pow(self.lambda1, e)
            + (1.0 - self.rho) * a / libm::pow(self.lambda2, e)
    }

    /// The first three raw moments.
    pub fn moments(&self) -> [f64; 3] {
        [self.moment(1), self.moment(2), self.moment(3)]
    }

    pub fn mean(&self) -> f64 {
        self.moment(1)
    }

    /// Squared coefficient of variation, Var / mean².
    pub fn scv(&self) -> f64 {
        let m1 = self.moment(1);
        self.moment(2) / (m1 * m1) - 1.0
    }

    /// Exact three-moment match (Johnson & Taaffe 1989) with the smallest order n in
    /// 1..=`max_order`, or `None` when no order gives λ1, λ2 > 0 and 0 ≤ ρ ≤ 1.
    ///
    /// Derivation: with a_k = n(n+1)…(n+k−1), u = 1/λ1, v = 1/λ2 the moment equations read
    /// y_k := m_k / a_k = ρ·u^k + (1−ρ)·v^k for k = 1, 2, 3 (y_0 = 1), i.e. (u, v) are the atoms
    /// of a two-point distribution with moments y_1..y_3. Its atoms are the roots of
    /// x² − s·x + p = 0, and the moments obey y_{k+2} = s·y_{k+1} − p·y_k, which gives
    /// s = (y3 − y1·y2) / (y2 − y1²), p = s·y1 − y2. A solution needs y2 > y1² (SCV > 1/n) and
    /// p > 0 (y1·y3 > y2², i.e. m1·m3/m2² > (n+2)/(n+1)); then u, v = (s ± √(s² − 4p))/2 and
    /// ρ = (y1 − v)/(u − v). Both conditions get easier as n grows, so the first n that works
    /// is the smallest.
    pub fn fit_three_moments(m: [f64; 3], max_order: u32) -> Option<HyperErlang> {
        let [m1, m2, m3] = m;
        if !(m1.is_finite() && m2.is_finite() && m3.is_finite()) || m1 <= 0.0 || m2 <= 0.0 {
            return None;
        }
        for n in 1..=max_order.max(1) {
            let y1 = m1 / rising(n, 1);
            let y2 = m2 / rising(n, 2);
            let y3 = m3 / rising(n, 3);
            let det = y2 - y1 * y1;
            if det <= 1e-12 * y1 * y1 {
                continue;
            }
            let s = (y3 - y1 * y2) / det;
            let p = s * y1 - y2;
            if !(s > 0.0 && p > 0.0) {
                continue;
            }
            let disc = s * s - 4.0 * p;
            if disc < 0.0 {
                continue;
            }
            let r = libm::sqrt(disc);
            let u = 0.5 * (s + r);
            // p / u rather than (s − r)/2: no cancellation when v ≪ u.
            let v = p / u;
            if !(u > v && v > 0.0 && u.is_finite()) {
                continue;
            }
            let rho = (y1 - v) / (u - v);
            if !(-1e-9..=1.0 + 1e-9).contains(&rho) {
                continue;
            }
            let he = HyperErlang::new(n, 1.0 / u, 1.0 / v, rho.clamp(0.0, 1.0));
            if he.validate().is_ok() {
                return Some(he);
            }
        }
        None
    }
}

/// n(n+1)…(n+k−1) as f64 (1 for k = 0).
fn rising(n: u32, k: u32) -> f64 {
    (0..k).map(|i| (n + i) as f64).product()
}

/// One size class: jobs of `nmin..=nmax` processors with their own arrival stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SizeClass {
    pub nmin: u32,
    pub nmax: u32,
    /// Share of the jobs in the source trace, in percent. Informational only: the generated
    /// share follows from the arrival rates.
    pub share_pct: f64,
    pub interarrival: HyperErlang,
    pub service: HyperErlang,
}

impl SizeClass {
    pub fn validate(&self) -> Result<(), String> {
        let name = format!("class [{}, {}]", self.nmin, self.nmax);
        if self.nmin == 0 || self.nmin > self.nmax {
            return Err(format!("{name}: need 1 ≤ nmin ≤ nmax"));
        }
        if !(self.share_pct.is_finite() && self.share_pct >= 0.0) {
            return Err(format!("{name}: share_pct must be ≥ 0"));
        }
        self.interarrival
            .validate()
            .map_err(|e| format!("{name}, inter-arrival time: {e}"))?;
        self.service
            .validate()
            .map_err(|e| format!("{name}, service time: {e}"))?;
        Ok(())
    }
}
