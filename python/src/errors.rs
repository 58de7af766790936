//! The Python exceptions and the one table that maps the library's typed errors to them.
//!
//! `GridscopeError` is the base (`except GridscopeError` catches every engine failure);
//! each subclass says what to change: the scenario or the arguments (`ScenarioError`), the
//! trace or workload input (`WorkloadError`), a limit (`LimitExceeded`), or nothing — a bug
//! to report (`EngineBug`). The message is always the library's own `Display`, unchanged,
//! so a subclass adds a way to tell failures apart without changing what is printed.
//!
//! A new typed library error joins by one `impl EngineError` below; `engine_err` then
//! maps it at every call site with no change there.

use std::fmt::Display;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use gridscope::engine::{InvariantViolation, SimError};
use gridscope::limits;
use gridscope::scenario;
use gridscope::workload::swf::SwfError;

// Module `gridscope` (where the package exports them), not `_gridscope`: tracebacks name
// the class users catch, and pickle (multiprocessing) finds it again.
create_exception!(
    gridscope,
    GridscopeError,
    PyException,
    "An error of the Gridscope engine: a bad scenario, trace or parameter, a failed run, or a Python scheduler that broke the rules (the message says which job and instant). The subclasses say which; a Python scheduler's broken rule and a stopped run are raised as this class itself."
);
create_exception!(
    gridscope,
    ScenarioError,
    GridscopeError,
    "A bad scenario, option or argument: invalid JSON or an unknown field, an unknown policy, preset or format, parameters out of range. Change the call or the scenario."
);
create_exception!(
    gridscope,
    WorkloadError,
    GridscopeError,
    "The trace or workload input cannot be used: a file that cannot be read, a malformed line (the message names the file and line), damaged gzip data, nothing runnable left after the import."
);
create_exception!(
    gridscope,
    LimitExceeded,
    GridscopeError,
    "An input passed one of the limits that guard against runaway inputs (file bytes, jobs, sites, a conservative queue too long to re-plan); the message names the limit and how to raise it."
);
create_exception!(
    gridscope,
    EngineBug,
    GridscopeError,
    "An engine invariant did not hold: a bug in Gridscope, not in the input. The message says which invariant and where; please report it with the scenario."
);

/// Which exception an error becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Scenario,
    Workload,
    Limit,
    Bug,
    /// Neither the input's fault nor surely a bug (a cancelled run, a Python scheduler
    /// that broke the rules): the base class.
    Other,
}

impl Kind {
    fn new_err(self, message: String) -> PyErr {
        match self {
            Kind::Scenario => ScenarioError::new_err(message),
            Kind::Workload => WorkloadError::new_err(message),
            Kind::Limit => LimitExceeded::new_err(message),
            Kind::Bug => EngineBug::new_err(message),
            Kind::Other => GridscopeError::new_err(message),
        }
    }
}

/// A library error the Python layer raises: its message (`Display`) and its kind.
pub(crate) trait EngineError: Display {
    fn kind(&self) -> Kind;
}

/// Any library error as its `GridscopeError` subclass, carrying the library's message.
pub(crate) fn engine_err(e: impl EngineError) -> PyErr {
    e.kind().new_err(e.to_string())
}

/// An error ending a run under a Python scheduler. An invariant that fails there (jobs
/// still queued at the end) is most likely the scheduler's doing, not an engine bug: it is
/// the base `GridscopeError`, as the scheduler's other broken rules are (`policy.rs`).
pub(crate) fn python_policy_err(e: SimError) -> PyErr {
    match e {
        SimError::Invariant(_) => Kind::Other.new_err(e.to_string()),
        e => engine_err(e),
    }
}

/// A problem of the workload the binding itself finds (nothing to fit, nothing to schedule).
pub(crate) fn workload_err(message: impl Into<String>) -> PyErr {
    WorkloadError::new_err(message.into())
}

impl EngineError for scenario::ScenarioError {
    fn kind(&self) -> Kind {
        use scenario::ScenarioError as E;
        match self {
            E::Load { .. } | E::EmptyWorkload { .. } => Kind::Workload,
            E::Swf(e) => e.kind(),
            E::Limit(e) => e.kind(),
            E::Sim(e) => e.kind(),
            // Json, UnsupportedVersion, NoAlgorithms, UnknownPlatformPreset,
            // InvalidPlatform, InvalidGridParams, TooFewSites, InvalidGenerator, Merge,
            // Invalid, and any variant added later (the enum is non_exhaustive).
            _ => Kind::Scenario,
        }
    }
}

impl EngineError for SimError {
    fn kind(&self) -> Kind {
        match self {
            SimError::Invariant(_) => Kind::Bug,
            SimError::Limit(_) => Kind::Limit,
            SimError::Cancelled => Kind::Other,
            // The jobs themselves: out of order, too many to index, or times that would
            // run past the clock.
            SimError::Unsorted { .. }
            | SimError::TooManyJobs { .. }
            | SimError::ClockOverflow { .. } => Kind::Workload,
            // InvalidPlatform, InvalidGridParams and later variants.
            _ => Kind::Scenario,
        }
    }
}

impl EngineError for InvariantViolation {
    fn kind(&self) -> Kind {
        Kind::Bug
    }
}

impl EngineError for SwfError {
    fn kind(&self) -> Kind {
        match self {
            SwfError::Limit(_) => Kind::Limit,
            // Malformed (file:line), Gzip, TooBigToHold.
            _ => Kind::Workload,
        }
    }
}

impl EngineError for gridscope::family::FamilyError {
    fn kind(&self) -> Kind {
        use gridscope::family::FamilyError as E;
        match self {
            E::Load { .. } => Kind::Workload,
            E::Limit(_) => Kind::Limit,
            // UnknownPreset, Usage, Invalid, Run and later variants.
            _ => Kind::Scenario,
        }
    }
}

impl EngineError for limits::LimitExceeded {
    fn kind(&self) -> Kind {
        Kind::Limit
    }
}

// Errors the library gives only as text: the options and arguments of the edges (a trace
// format, a fit method, a generator's parameters, a share link).
// They are all `ScenarioError`; a typed library error gets its own impl above (as the
// families' `FamilyError` has) and its call sites need no change.
impl EngineError for String {
    fn kind(&self) -> Kind {
        Kind::Scenario
    }
}

impl EngineError for &str {
    fn kind(&self) -> Kind {
        Kind::Scenario
    }
}

// JSON the caller gave (parsing); serializing the engine's own values does not fail.
impl EngineError for serde_json::Error {
    fn kind(&self) -> Kind {
        Kind::Scenario
    }
}

/// Registers the exception classes in the extension module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("GridscopeError", py.get_type::<GridscopeError>())?;
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add("WorkloadError", py.get_type::<WorkloadError>())?;
    m.add("LimitExceeded", py.get_type::<LimitExceeded>())?;
    m.add("EngineBug", py.get_type::<EngineBug>())?;
    Ok(())
}
