//! `gridscope._gridscope`: the Python edge of the engine. Thin on purpose — every rule lives
//! in the `gridscope` crate; this layer converts arguments, releases the GIL around runs,
//! turns every engine error into a Python exception (a `GridscopeError` subclass chosen in
//! `errors.rs`, with the engine's own message) and hands results over as JSON text (parsed
//! once in Python) or as raw column buffers (wrapped by pyarrow without a Python object per
//! row). The friendly API is the Python package around it (`pysrc/gridscope/__init__.py`).
//!
//! No panic may cross into the interpreter: nothing here unwraps, and PyO3 turns a panic
//! that escapes anyway into a Python `PanicException` instead of aborting.

use pyo3::prelude::*;

mod columns;
mod errors;
mod family;
mod policy;
mod run;
mod slurm;
mod stepper;
mod workload;

pub(crate) use errors::{engine_err, GridscopeError};

/// Where the presets and share links that name the shared traces look for them unless told
/// otherwise (the CLI's `--traces` default, relative to the working directory): the
/// package's `DEFAULT_TRACES` and `run_family_preset`'s default.
pub(crate) const DEFAULT_TRACES: &str = gridscope::family::DEFAULT_TRACES;

#[pymodule]
fn _gridscope(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<workload::Workload>()?;
    m.add_class::<run::Report>()?;
    m.add_class::<policy::View>()?;
    m.add_class::<policy::QueuedJob>()?;
    m.add_class::<policy::RunningJob>()?;
    m.add_class::<stepper::Stepper>()?;
    m.add_function(wrap_pyfunction!(workload::read_swf, m)?)?;
    m.add_function(wrap_pyfunction!(workload::read_trace, m)?)?;
    m.add_function(wrap_pyfunction!(workload::lublin, m)?)?;
    m.add_function(wrap_pyfunction!(workload::fit_and_synthesize, m)?)?;
    m.add_function(wrap_pyfunction!(run::run_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(run::run_with_python_policy, m)?)?;
    m.add_function(wrap_pyfunction!(run::scenario_presets, m)?)?;
    m.add_function(wrap_pyfunction!(run::preset_json, m)?)?;
    m.add_function(wrap_pyfunction!(slurm::slurm_config_json, m)?)?;
    m.add_function(wrap_pyfunction!(run::decode_share_link, m)?)?;
    m.add_function(wrap_pyfunction!(run::normalize_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(family::run_family_preset, m)?)?;
    m.add_function(wrap_pyfunction!(family::family_names, m)?)?;
    m.add("BUILTIN_POLICIES", policy::builtin_names())?;
    m.add("TRACE_FORMATS", workload::trace_formats())?;
    m.add("DEFAULT_TRACES", DEFAULT_TRACES)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
