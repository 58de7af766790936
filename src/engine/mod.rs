//! The discrete-event kernel: integer time, the event queue and the simulation loop, plus the
//! invariant checks every run ends with. No I/O, no web, no serde (the scenario layer serializes what crosses the edges): inputs arrive as plain
//! data and results leave as plain data.

#![warn(missing_docs)]

mod failure_log;
mod ideal;
mod invariants;
mod outcome;
mod power_log;
mod queue;
mod sim;

/// Re-exported for callers that know time as the engine's (the type lives in [`crate::time`],
/// below the model and the policies, so that they need not import the engine).
pub use crate::time::{SimTime, TICKS_PER_SEC};
pub use failure_log::{Downtime, FailureLog, KilledRun};
pub use ideal::{check_ideal, ideal_capacity, ideal_work, simulate_ideal};
pub use invariants::{check_invariants, check_invariants_with_failures};
pub(crate) use outcome::planned_and_effective;
pub use outcome::{
    wallclock_limit, EstimateSource, EventOrder, InvariantViolation, JobOutcome, Outcome,
    RejectReason, RunConfig, RunOutput, SimError,
};
pub use power_log::{OffCycle, PowerLog};
pub use queue::EventQueue;
pub use sim::{simulate, simulate_grid, Input, Simulation, SiteSnapshot, StepLog};
