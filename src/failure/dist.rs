//! The distributions failure models draw from: exponential, Weibull, log-normal and gamma,
//! with the parameters as the Failure Trace Archive's fits state them (Javadi, Kondo, Iosup,
//! Epema, JPDC 2013, table 5; OpenDC's `failure/prefab/` passes the same numbers to Apache
//! Commons Math). Every draw is from the run's [`SimRng`] with `libm`'s functions, so a
//! failure model gives the same outages natively and in wasm.

use serde::{Deserialize, Serialize};

use super::FailureError;
use crate::rng::SimRng;

/// A positive continuous distribution (samples in the model's unit, see
/// [`super::FailureModel::unit_s`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Dist {
    /// Exponential of mean `mean`.
    Exponential { mean: f64 },
    /// Weibull: `scale · (−ln U)^(1/shape)`; mean `scale · Γ(1 + 1/shape)`.
    Weibull { shape: f64, scale: f64 },
    /// Log-normal: `exp(mu + sigma · Z)`; mean `exp(mu + sigma²/2)`.
    LogNormal { mu: f64, sigma: f64 },
    /// Gamma of `shape` and `scale`; mean `shape · scale`.
    Gamma { shape: f64, scale: f64 },
}

impl Dist {
    /// Refuses a parameter that is not a finite number of the right sign (`field` names
    /// where the distribution was given, e.g. `up`).
    pub fn check(&self, field: &str) -> Result<(), FailureError> {
        let positive = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(FailureError::Model(format!(
                    "{field}.{name} must be a positive number, not {v}"
                )))
            }
        };
        match *self {
            Dist::Exponential { mean } => positive("mean", mean),
            Dist::Weibull { shape, scale } | Dist::Gamma { shape, scale } => {
                positive("shape", shape)?;
                positive("scale", scale)
            }
            Dist::LogNormal { mu, sigma } => {
                if !mu.is_finite() {
                    return Err(FailureError::Model(format!(
                        "{field}.mu must be a finite number, not {mu}"
                    )));
                }
                positive("sigma", sigma)
            }
        }
    }

    /// The distribution's mean.
    pub fn mean(&self) -> f64 {
        match *self {
            Dist::Exponential { mean } => mean,
            Dist::Weibull { shape, scale } => scale * libm::tgamma(1.0 + 1.0 / shape),
            Dist::LogNormal { mu, sigma } => libm::exp(mu + sigma * sigma / 2.0),
            Dist::Gamma { shape, scale } => shape * scale,
        }
    }

    /// One draw.
    pub fn sample(&self, rng: &mut SimRng) -> f64 {
        match *self {
            Dist::Exponential { mean } => rng.exponential(mean),
            Dist::Weibull { shape, scale } => {
                scale * libm::pow(-libm::log(rng.uniform_open0()), 1.0 / shape)
            }
            Dist::LogNormal { mu, sigma } => libm::exp(mu + sigma * normal(rng)),
            Dist::Gamma { shape, scale } => scale * gamma(shape, rng),
        }
    }
}

/// A standard normal draw (Box–Muller, the cosine half).
fn normal(rng: &mut SimRng) -> f64 {
    let r = libm::sqrt(-2.0 * libm::log(rng.uniform_open0()));
    r * libm::cos(2.0 * std::f64::consts::PI * rng.uniform())
}

/// A gamma draw of scale 1: Marsaglia and Tsang's method (ACM TOMS 26(3), 2000) for
/// shape ≥ 1, and for shape < 1 a draw of shape + 1 times `U^(1/shape)` (their §6).
fn gamma(shape: f64, rng: &mut SimRng) -> f64 {
    if shape < 1.0 {
        let u = rng.uniform_open0();
        return gamma(shape + 1.0, rng) * libm::pow(u, 1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / libm::sqrt(9.0 * d);
    loop {
        let x = normal(rng);
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u = rng.uniform_open0();
        if libm::log(u) < 0.5 * x * x + d - d * v + d * libm::log(v) {
            return d * v;
        }
    }
}
