//! The discrete-event kernel: integer time, the event queue and the simulation loop, plus the
//! invariant checks every run ends with. No I/O, no web, no serde: inputs arrive as plain
//! data and results leave as plain data.

mod ideal;
mod invariants;
mod queue;
mod sim;
mod time;

pub use ideal::{check_ideal, ideal_capacity, ideal_work, simulate_ideal};
pub use invariants::{check_invariants, InvariantViolation};
pub use queue::EventQueue;
pub use sim::{
    simulate, simulate_grid, wallclock_limit, EstimateSource, JobOutcome, Outcome, RejectReason,
    RunConfig, RunOutput, SimError,
};
pub use time::{SimTime, TICKS_PER_SEC};
