//! Failures drawn from a model: each node alternates between up (available) and down
//! (failed) periods whose lengths are independent draws, as the Failure Trace Archive
//! describes a node (availability and unavailability intervals). The named models are the
//! FTA's fits that OpenDC ships as prefabs (`opendc-compute-failure/.../prefab/Lanl05.kt`:
//! the parameters are in hours there, `SampleBasedFailureModel` multiplies by 3.6·10⁶ ms).
//!
//! OpenDC applies such a model to the whole cluster: one failure event every draw of the
//! interval, hitting a uniform share of the hosts. Gridscope applies it per node, which is
//! what the FTA fitted (per-node intervals); docs/failures.md says so.

use serde::{Deserialize, Serialize};

use super::{Dist, FailureError};
use crate::rng::SimRng;
use crate::time::SimTime;

/// How long a node stays up and how long it stays down, drawn independently per node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailureModel {
    /// A name for reports (a preset's name, or the file it came from).
    #[serde(default)]
    pub name: String,
    /// Time from a repair (or the start of the run) to the node's next failure.
    pub up: Dist,
    /// How long a failure lasts.
    pub down: Dist,
    /// Seconds in one unit of the distributions (3600: the FTA fits are in hours).
    #[serde(default = "hours")]
    pub unit_s: f64,
    /// Correlated failures, as OpenDC draws them: when set, a site's failures come as
    /// events — `up` is then the time from the end of one event to the next — each taking
    /// down this share of the site's nodes at once (at least one, chosen uniformly) for one
    /// `down` draw. Unset, each node fails on its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<f64>,
}

fn hours() -> f64 {
    3600.0
}

/// The named models: (name, what it is, up, down), in hours.
const PRESETS: &[(&str, &str, Dist, Dist)] = &[
    (
        "lanl05-exp",
        "LANL 2005, exponential fits (FTA; OpenDC createLanl05Exp)",
        Dist::Exponential { mean: 1779.99 },
        Dist::Exponential { mean: 5.92 },
    ),
    (
        "lanl05-wbl",
        "LANL 2005, Weibull fits (FTA; OpenDC createLanl05Wbl)",
        Dist::Weibull {
            shape: 0.48,
            scale: 816.60,
        },
        Dist::Weibull {
            shape: 0.58,
            scale: 2.18,
        },
    ),
    (
        "lanl05-logn",
        "LANL 2005, log-normal fits (FTA; OpenDC createLanl05LogN)",
        Dist::LogNormal {
            mu: 5.56,
            sigma: 2.39,
        },
        Dist::LogNormal {
            mu: 0.05,
            sigma: 1.42,
        },
    ),
    (
        "lanl05-gam",
        "LANL 2005, gamma fits (FTA; OpenDC createLanl05Gam)",
        Dist::Gamma {
            shape: 0.35,
            scale: 5102.71,
        },
        Dist::Gamma {
            shape: 0.38,
            scale: 15.44,
        },
    ),
];

impl FailureModel {
    /// The named model `name`, or `None`.
    pub fn preset(name: &str) -> Option<FailureModel> {
        PRESETS
            .iter()
            .find(|p| p.0 == name)
            .map(|&(name, _, up, down)| FailureModel {
                name: name.to_string(),
                up,
                down,
                unit_s: hours(),
                share: None,
            })
    }

    /// Every named model as (name, what it is).
    pub fn presets() -> impl Iterator<Item = (&'static str, &'static str)> {
        PRESETS.iter().map(|p| (p.0, p.1))
    }

    /// Exponential failures of mean `mtbf_s` and repairs of mean `mttr_s`, in seconds.
    pub fn exponential(mtbf_s: f64, mttr_s: f64) -> FailureModel {
        FailureModel {
            name: format!("exponential (MTBF {mtbf_s} s, MTTR {mttr_s} s)"),
            up: Dist::Exponential { mean: mtbf_s },
            down: Dist::Exponential { mean: mttr_s },
            unit_s: 1.0,
            share: None,
        }
    }

    /// Refuses a model with a parameter out of range, naming the field.
    pub fn check(&self) -> Result<(), FailureError> {
        if !(self.unit_s.is_finite() && self.unit_s > 0.0) {
            return Err(FailureError::Model(format!(
                "unit_s must be a positive number of seconds, not {}",
                self.unit_s
            )));
        }
        if let Some(share) = self.share {
            if !(share > 0.0 && share <= 1.0) {
                return Err(FailureError::Model(format!(
                    "share must be a fraction of a site's nodes in (0, 1], not {share}"
                )));
            }
        }
        self.up.check("up")?;
        self.down.check("down")
    }

    /// How many of `nodes` nodes one correlated event takes down (at least one).
    pub fn event_nodes(&self, nodes: u32) -> u32 {
        let share = self.share.unwrap_or(0.0);
        ((share * f64::from(nodes)).round() as u32).clamp(1, nodes.max(1))
    }

    /// A node's mean time between failures in seconds (the mean up time).
    pub fn mtbf_s(&self) -> f64 {
        self.up.mean() * self.unit_s
    }

    /// A node's mean time to repair in seconds (the mean down time).
    pub fn mttr_s(&self) -> f64 {
        self.down.mean() * self.unit_s
    }

    /// How long a node stays up from now (at least one tick).
    pub fn draw_up(&self, rng: &mut SimRng) -> SimTime {
        to_ticks(self.up.sample(rng) * self.unit_s)
    }

    /// How long a failure lasts (at least one tick).
    pub fn draw_down(&self, rng: &mut SimRng) -> SimTime {
        to_ticks(self.down.sample(rng) * self.unit_s)
    }

    /// The next failure after `from`: an up period, then a down one; (start, end).
    pub fn draw_span(&self, rng: &mut SimRng, from: SimTime) -> (SimTime, SimTime) {
        let start = SimTime(from.0.saturating_add(self.draw_up(rng).0));
        (
            start,
            SimTime(start.0.saturating_add(self.draw_down(rng).0)),
        )
    }
}

/// Seconds to ticks, at least one, at most a century (a heavy tail must not overflow time).
fn to_ticks(secs: f64) -> SimTime {
    const CENTURY_S: f64 = 100.0 * 365.0 * 86_400.0;
    SimTime::from_secs_f64(secs.clamp(0.0, CENTURY_S)).max(SimTime(1))
}

/// The random stream of node `node` of site `site` under the run's failure seed: each node
/// draws from its own stream, so its outages do not depend on when other nodes fail or on
/// the order the engine handles them in.
pub fn node_rng(seed: u64, site: u32, node: u32) -> SimRng {
    let mix = |mut z: u64| {
        // SplitMix64's finalizer: neighbouring (site, node) pairs get unrelated seeds.
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let key = (u64::from(site) << 32) | u64::from(node);
    SimRng::new(mix(
        seed.wrapping_add(mix(key.wrapping_add(0x9e37_79b9_7f4a_7c15)))
    ))
}
