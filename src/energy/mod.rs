//! Power, energy and carbon (issue #40): what a node draws in each state and the joules a schedule
//! costs. The model is SimGrid's host energy plugin (`src/plugins/host_energy.cpp`): with k
//! of a node's N cores busy it draws `Epsilon + (AllCores − Epsilon)·k/N` watts, with none
//! `Idle`, switched off `Off`; switching off and on take a time at a power, as Batsim
//! models them (`src/pstate.cpp`). Energy is the integral of power over time.
//!
//! Plain data in, numbers out: [`NodeTimeline`]s (what each node did when) and a
//! [`PowerModel`] per node give an [`EnergyReport`]. Nothing here schedules; the
//! engine's node placements become timelines with [`busy_timelines`]. [`simgrid`] writes
//! the same timelines as a replay program for a real SimGrid reads them, so the joules can
//! be checked against SimGrid's own plugin (`scripts/simgrid_test.sh`). A carbon-intensity
//! series ([`CarbonSeries`]) turns the power into grams of CO₂ ([`emissions_g`]).

mod carbon;
pub mod simgrid;
mod sweep;
mod timeline;

/// The power model is plain data of a node type (`model`); it is re-exported here, where
/// it is used.
pub use crate::model::power::{PowerError, PowerModel, Transition};
pub use carbon::{emissions_g, CarbonError, CarbonSeries, Intensity};
pub use sweep::{account_runs, JobRun};
pub use timeline::{
    account, busy_timelines, power_series, BusySpan, EnergyReport, NodeEnergy, NodeState,
    NodeTimeline, TimelineError,
};
pub use timeline::{state_series, with_off_spans, OffSpan, StateCounts};

#[cfg(test)]
mod tests;
