//! A node type's power model (issue #40; the accounting is `crate::energy`): SimGrid's three wattages of a power state (`Idle:Epsilon:AllCores`)
//! and its `wattage_off`, plus Batsim's switching transitions (a duration at a power).

use serde::{Deserialize, Serialize};

use crate::time::SimTime;

/// Switching a node off or on: it takes `seconds` at `watts` (Batsim's virtual pstates:
/// one flop at the transition's speed, so `1 / speed` seconds).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Transition {
    pub seconds: f64,
    pub watts: f64,
}

impl Transition {
    /// The duration on the engine's clock (milliseconds, rounded).
    pub fn duration(&self) -> SimTime {
        SimTime::from_secs_f64(self.seconds)
    }
}

/// What one node draws, in watts, by state (SimGrid's host energy model).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerModel {
    /// On with no core busy.
    pub idle_w: f64,
    /// On with some core busy, before the share of busy cores is added (SimGrid's
    /// `Epsilon`; SimGrid before 3.19 took it equal to `Idle`).
    pub epsilon_w: f64,
    /// Every core busy.
    pub all_cores_w: f64,
    /// Switched off (or asleep).
    #[serde(default)]
    pub off_w: f64,
    /// Switching off (Batsim's switch-off transition), when the model has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch_off: Option<Transition>,
    /// Switching on (booting).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch_on: Option<Transition>,
}

/// The longest idle time before a node is switched off: ten years of seconds (a longer
/// one never switches a node off in any trace).
pub const MAX_IDLE_OFF_S: i64 = 10 * 366 * 24 * 3600;

/// The most a node may draw: a gigawatt. Far above any machine, and low enough that a run's
/// joules stay finite (10⁹ W over 10¹² s of run per node is 10²¹ J, well inside `f64`).
pub const MAX_WATTS: f64 = 1e9;

/// A number as a person reads it in a message: 1e308 rather than its 309 digits.
fn show(x: f64) -> String {
    if x.is_finite() && x.abs() >= 1e9 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// A power model that cannot describe a real node; the message names the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PowerError(pub String);

impl std::fmt::Display for PowerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PowerError {}

impl PowerModel {
    /// SimGrid's `energy_platform.xml` at pstate 0 (`100.0:93.33333333333333:200.0`, off
    /// 10 W): the hosts of its `energy-exec` example.
    pub const SIMGRID_EXAMPLE: PowerModel = PowerModel {
        idle_w: 100.0,
        epsilon_w: 93.333_333_333_333_33,
        all_cores_w: 200.0,
        off_w: 10.0,
        switch_off: None,
        switch_on: None,
    };

    /// Batsim's `cluster_energy_128.xml`: 95 W idle, 190.738 W with every core busy,
    /// 9.75 W asleep; switching off takes 6.1 s at 100.9967 W, booting 151.52 s at
    /// 125.1744 W. (One core per host there: Epsilon plays no part; it is set to Idle.)
    pub const BATSIM_CLUSTER_ENERGY_128: PowerModel = PowerModel {
        idle_w: 95.0,
        epsilon_w: 95.0,
        all_cores_w: 190.738,
        off_w: 9.75,
        switch_off: Some(Transition {
            seconds: 6.1,
            watts: 100.9967,
        }),
        switch_on: Some(Transition {
            seconds: 151.52,
            watts: 125.1744,
        }),
    };

    /// The presets a scenario or the page names (`--power NAME`), with what each is.
    pub const PRESETS: [(&'static str, PowerModel, &'static str); 2] = [
        (
            "batsim-cluster-energy-128",
            PowerModel::BATSIM_CLUSTER_ENERGY_128,
            "Batsim's cluster_energy_128: 95 W idle, 190.738 W busy, 9.75 W asleep; off in 6.1 s at 100.9967 W, boot in 151.52 s at 125.1744 W",
        ),
        (
            "simgrid-example",
            PowerModel::SIMGRID_EXAMPLE,
            "SimGrid's energy_platform.xml: 100 W idle, 93.33 W Epsilon, 200 W all cores, 10 W off; no switching times",
        ),
    ];

    /// The preset called `name`.
    pub fn preset(name: &str) -> Option<PowerModel> {
        PowerModel::PRESETS
            .iter()
            .find(|p| p.0 == name)
            .map(|p| p.1)
    }

    /// Watts with `busy` of `cores` cores computing (the node on).
    pub fn watts(&self, busy: u32, cores: u32) -> f64 {
        if busy == 0 || cores == 0 {
            self.idle_w
        } else {
            let share = f64::from(busy.min(cores)) / f64::from(cores);
            self.epsilon_w + (self.all_cores_w - self.epsilon_w) * share
        }
    }

    /// Checks every wattage is a finite number ≥ 0 and every transition takes time when it
    /// costs energy; `what` names the model in the message (a node type, a file).
    pub fn validate(&self, what: &str) -> Result<(), PowerError> {
        let fields = [
            ("idle_w", self.idle_w),
            ("epsilon_w", self.epsilon_w),
            ("all_cores_w", self.all_cores_w),
            ("off_w", self.off_w),
        ];
        for (name, w) in fields {
            if !(w.is_finite() && (0.0..=MAX_WATTS).contains(&w)) {
                return Err(PowerError(format!(
                    "{what}: {name} is {}; a node's power is a number of watts from 0 to 10⁹",
                    show(w)
                )));
            }
        }
        for (name, t) in [
            ("switch_off", self.switch_off),
            ("switch_on", self.switch_on),
        ] {
            let Some(t) = t else { continue };
            if !(t.watts.is_finite() && (0.0..=MAX_WATTS).contains(&t.watts)) {
                return Err(PowerError(format!(
                    "{what}: {name}.watts is {}; a node's power is a number of watts from 0 to 10⁹",
                    show(t.watts)
                )));
            }
            if !(t.seconds.is_finite() && t.seconds >= 0.0 && t.seconds <= 1e9) {
                return Err(PowerError(format!(
                    "{what}: {name}.seconds is {}; give a duration from 0 to 10⁹ s",
                    t.seconds
                )));
            }
            if t.duration() == SimTime::ZERO && t.watts > 0.0 && t.seconds > 0.0 {
                return Err(PowerError(format!(
                    "{what}: {name} takes {} s, under the clock's millisecond, at {} W: a transition that costs energy must take time",
                    t.seconds, t.watts
                )));
            }
        }
        Ok(())
    }
}
