//! Workload allocation for batch arrivals (SF paper): the static fractions (weighted, OWA
//! batch), the queueing simulation that compares them with dynamic least load and the
//! hybrid adaptive scheduler, and the paper's sweeps.

pub mod fractions;
pub(crate) mod sim;
pub mod sweep;

pub use sim::{
    simulate_allocation, AllocationOutcome, AllocationPolicy, BatchSystem, Dispatch, RateChange,
    HYBRID_WINDOW,
};
