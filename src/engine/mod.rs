//! The discrete-event kernel: integer time, the event queue and the simulation loop, plus the
//! invariant checks every run ends with. No I/O, no web, no serde: inputs arrive as plain
//! data and results leave as plain data.

mod invariants;
mod queue;
mod sim;
mod time;

pub use invariants::{check_invariants, InvariantViolation};
pub use queue::EventQueue;
pub use sim::{
    simulate, wallclock_limit, EstimateSource, JobOutcome, Outcome, RejectReason, RunConfig,
    RunOutput, SimError,
};
pub use time::{SimTime, TICKS_PER_SEC};
