//! Workloads: the trace readers (SWF and every other imported format), the Lublin–Feitelson model and the hyper-Erlang fit, each the
//! library's own function; a `Workload` is shared (an `Arc`), never copied per call.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use gridscope::limits::Limits;
use gridscope::workload::hyper_erlang::{fit_classes_with, synthesize, FitMethod};
use gridscope::workload::trace::{TraceFormat, TraceOptions};
use gridscope::workload::{self as wl, Lublin, SwfOptions};

use crate::columns::Columns;
use crate::engine_err;
use crate::errors::workload_err;

/// Jobs ready to simulate with the report of their import (`report_json`).
#[pyclass(frozen, module = "gridscope._gridscope")]
pub struct Workload {
    pub(crate) inner: Arc<wl::Workload>,
}

#[pymethods]
impl Workload {
    /// The file name or generator description.
    #[getter]
    fn name(&self) -> String {
        self.inner.name.clone()
    }

    fn __len__(&self) -> usize {
        self.inner.jobs.len()
    }

    /// The import report (records, jobs, skipped with reasons, header, warnings) as JSON:
    /// the same object `gridscope lint --json` prints.
    fn report_json(&self) -> PyResult<String> {
        serde_json::to_string_pretty(&self.inner.report).map_err(engine_err)
    }

    /// The jobs as raw column buffers (see `columns.rs`): id, submit, runtime, estimate (s),
    /// procs, home, user, partition.
    fn columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let jobs = &self.inner.jobs;
        let mut c = Columns::default();
        c.i64("job_id", jobs.iter().map(|j| j.id));
        c.secs("submit", jobs.iter().map(|j| Some(j.submit)));
        c.secs("runtime", jobs.iter().map(|j| Some(j.runtime)));
        c.secs("estimate", jobs.iter().map(|j| Some(j.estimate)));
        c.u32("procs", jobs.iter().map(|j| j.procs));
        c.u32("home", jobs.iter().map(|j| j.home));
        c.i32("user", jobs.iter().map(|j| j.user));
        c.i32("partition", jobs.iter().map(|j| j.partition));
        c.into_dict(py)
    }

    /// `count` jobs from position `start`, their submits shifted so the first is at 0 (an
    /// episode of the Gymnasium environment). The report counts only those jobs.
    fn window(&self, start: usize, count: usize) -> PyResult<Workload> {
        let jobs = &self.inner.jobs;
        if start >= jobs.len() || count == 0 {
            return Err(engine_err(format!(
                "a window of {count} jobs from job {start} is empty: the workload has {} jobs",
                jobs.len()
            )));
        }
        let end = start.saturating_add(count).min(jobs.len());
        let t0 = jobs[start].submit;
        let part: Vec<_> = jobs[start..end]
            .iter()
            .map(|j| {
                let mut j = j.clone();
                j.submit = j.submit - t0;
                j
            })
            .collect();
        let name = format!("{} [jobs {start}..{end}]", self.inner.name);
        let mut w = wl::Workload::generated(name, part, Vec::new());
        // The window keeps the trace's header (MaxProcs sizes a platform from the trace).
        w.report.header = self.inner.report.header.clone();
        Ok(Workload { inner: Arc::new(w) })
    }
}

/// Reads SWF bytes (plain or gzip): `name` is how reports name it.
#[pyfunction]
#[pyo3(signature = (name, data, strict = false))]
pub fn read_swf(py: Python<'_>, name: &str, data: &[u8], strict: bool) -> PyResult<Workload> {
    let opts = SwfOptions {
        strict,
        limits: Limits::default(),
    };
    // Parsing a large trace takes a moment: other Python threads run meanwhile.
    let w = py
        .detach(|| wl::read_swf(name, data, &opts))
        .map_err(engine_err)?;
    Ok(Workload { inner: Arc::new(w) })
}

/// Reads a trace of any format Gridscope imports (SWF, GWF, Batsim JSON, Slurm `sacct
/// --parsable2`; plain or gzip), the format told from the content unless `format` names it:
/// the same reader as `gridscope simulate --format F --utc-offset M`.
#[pyfunction]
#[pyo3(signature = (name, data, format = "auto", utc_offset_min = 0, strict = false))]
pub fn read_trace(
    py: Python<'_>,
    name: &str,
    data: &[u8],
    format: &str,
    utc_offset_min: i32,
    strict: bool,
) -> PyResult<Workload> {
    let opts = SwfOptions {
        strict,
        limits: Limits::default(),
    };
    let trace = TraceOptions {
        format: format.parse::<TraceFormat>().map_err(engine_err)?,
        utc_offset_min,
    };
    let w = py
        .detach(|| wl::trace::read_trace(name, data, &opts, &trace))
        .map_err(engine_err)?;
    Ok(Workload { inner: Arc::new(w) })
}

/// The Lublin–Feitelson model: `params_json` holds the scenario's `lublin` fields.
#[pyfunction]
pub fn lublin(py: Python<'_>, params_json: &str, seed: u64) -> PyResult<Workload> {
    let g: Lublin = serde_json::from_str(params_json)
        .map_err(|e| engine_err(format!("invalid Lublin parameters: {e}")))?;
    Limits::default()
        .check(
            gridscope::limits::Limit::Jobs,
            g.jobs as u64,
            "the Lublin workload",
        )
        .map_err(engine_err)?;
    let w = py.detach(|| g.generate(seed)).map_err(engine_err)?;
    Ok(Workload { inner: Arc::new(w) })
}

/// SOB's hyper-Erlang fit of a workload (classes of `cpus_per_node` CPUs) and a synthetic
/// workload drawn from it with `seed`: `(fit as JSON, synthetic workload)`, what
/// `gridscope fit --json` computes.
#[pyfunction]
#[pyo3(signature = (workload, cpus_per_node = 1, seed = 1, method = "moments"))]
pub fn fit_and_synthesize(
    py: Python<'_>,
    workload: &Workload,
    cpus_per_node: u32,
    seed: u64,
    method: &str,
) -> PyResult<(String, Workload)> {
    let method = FitMethod::parse(method).map_err(engine_err)?;
    let jobs = &workload.inner.jobs;
    if jobs.is_empty() {
        return Err(workload_err(format!(
            "{}: no runnable job to fit",
            workload.inner.name
        )));
    }
    let (fitted, synth) = py.detach(|| {
        let fitted = fit_classes_with(jobs, cpus_per_node.max(1), method);
        let synth = synthesize(jobs, &fitted, seed);
        (fitted, synth)
    });
    // Its one failure is a fit without a class: a workload with no job to draw from.
    let synth = synth.map_err(workload_err)?;
    let fit = serde_json::json!({
        "method": method,
        "classes": fitted,
        "trace_jobs": jobs.len(),
        "synthetic_jobs": synth.workload.jobs.len(),
        "horizon_s": synth.horizon_s,
    });
    Ok((
        serde_json::to_string(&fit).map_err(engine_err)?,
        Workload {
            inner: Arc::new(synth.workload),
        },
    ))
}

/// The trace formats `read_trace` takes (the CLI's `--format` values), in the library's
/// order: the package's `TRACE_FORMATS`.
pub fn trace_formats() -> Vec<&'static str> {
    TraceFormat::ALL.iter().map(|f| f.name()).collect()
}
