//! A finished sweep as the page and `gridscope run --json` receive it.

use serde::{Deserialize, Serialize};

use super::spec::SweepSpec;

/// One policy's line: the median over seeds of the mean response time per point, and its
/// order-statistic band.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PolicySeries {
    pub policy: String,
    /// Median over seeds of the mean response time, per point (seconds).
    pub median: Vec<f64>,
    /// Confidence band of the median from order statistics (see `confidence`).
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
}

/// How the hybrid scheduler's share for the degraded resource moved during one run (seed 1,
/// the sweep's last point): SF Figs. 10–12 in one picture.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FractionHistory {
    /// The x value of the run shown.
    pub x: f64,
    /// The resource whose share is shown (the fastest, 0-based).
    pub resource: usize,
    /// Batch index of each sample.
    pub batch: Vec<u64>,
    /// The hybrid scheduler's fraction α for `resource` before that batch.
    pub hybrid: Vec<f64>,
    /// Static OWA's fraction, from the initial rates.
    pub static_owa: f64,
    /// OWA's fraction for the true rates after degradation (what the hybrid should reach);
    /// none when the degraded system is saturated.
    pub owa_after: Option<f64>,
    /// The batch at which the rate changes (in expectation).
    pub change_batch: u64,
}

/// A finished sweep. The same JSON reaches the page and `gridscope run --json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SweepResult {
    /// The preset's name, or "custom" when the spec differs from every preset's.
    pub preset: String,
    pub description: String,
    pub x_label: String,
    /// The paper's headline numbers (empty for a custom sweep).
    pub paper: String,
    pub spec: Option<SweepSpec>,
    pub x: Vec<f64>,
    pub seeds: u64,
    pub batches: u64,
    pub warmup: u64,
    /// Coverage of the band: P(lo < true median < hi).
    pub confidence: f64,
    pub series: Vec<PolicySeries>,
    /// Gap of the second policy over the first at each point: 1 − median(2nd) / median(1st).
    pub gap_label: String,
    pub gap: Vec<f64>,
    /// Present when the sweep runs the hybrid policy on a degrading resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<FractionHistory>,
    /// Wall time, filled in by whoever timed the run (the engine has no clock).
    #[serde(default)]
    pub elapsed_ms: f64,
}
