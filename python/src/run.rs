//! Scenarios in, reports out: the library's `run_loaded_on` (the CLI's own path, so the
//! JSON is the CLI's bytes) with the GIL released, and a run under a Python scheduler (the
//! same runner, `ScenarioRun`, with the scheduler as every site's local policy).

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use gridscope::engine::{JobOutcome, RunConfig, SimError};
use gridscope::limits::{read_bounded, Limits, ReadError};
use gridscope::metrics::batsim::batsim_jobs_csv;
use gridscope::policy::local::LocalPolicy;
use gridscope::scenario::{
    self as sc, load_workload, run_loaded_on, Scenario, ScenarioError, ScenarioRun, Slice,
    WorkloadSpec, SCENARIO_PRESETS,
};

use crate::columns::Columns;
use crate::policy::PyPolicy;
use crate::workload::Workload;
use crate::{engine_err, GridscopeError};

/// A scenario's report: every run's metrics (as the CLI's JSON), per-job outcomes.
#[pyclass(frozen, module = "gridscope._gridscope")]
pub struct Report {
    inner: Arc<sc::Report>,
    cfg: RunConfig,
}

impl Report {
    fn run(&self, i: usize) -> PyResult<&sc::RunReport> {
        self.inner.runs.get(i).ok_or_else(|| {
            pyo3::exceptions::PyIndexError::new_err(format!(
                "run {i} of a report of {} runs",
                self.inner.runs.len()
            ))
        })
    }
}

#[pymethods]
impl Report {
    /// The report as `gridscope run/simulate --json` prints it (without the final newline).
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string_pretty(&*self.inner).map_err(engine_err)
    }

    fn __len__(&self) -> usize {
        self.inner.runs.len()
    }

    /// The runs' labels, in scenario order.
    fn labels(&self) -> Vec<String> {
        self.inner.runs.iter().map(|r| r.label.clone()).collect()
    }

    /// Run `i`'s per-job CSV exactly as `--jobs FILE` writes it.
    fn cli_jobs_csv(&self, i: usize) -> PyResult<String> {
        Ok(sc::jobs_csv(&self.inner, self.run(i)?))
    }

    /// Run `i`'s jobs in Batsim's `jobs.csv` schema (what evalys reads).
    fn batsim_jobs_csv(&self, i: usize) -> PyResult<String> {
        let run = self.run(i)?;
        let r = &self.inner;
        batsim_jobs_csv(
            &r.platform,
            &r.workload.jobs,
            &run.outcomes,
            &run.placements,
            &self.cfg,
            &r.workload.name,
        )
        .map_err(engine_err)
    }

    /// Utilization and queue length over time in `buckets` buckets, as JSON (`--series N`).
    fn series_json(&self, i: usize, buckets: usize) -> PyResult<String> {
        let run = self.run(i)?;
        let r = &self.inner;
        let downtimes = run.failure_log.as_ref().map_or(&[][..], |l| &l.downtimes);
        let mut s = gridscope::metrics::series_with_downtimes(
            &r.platform,
            &r.workload.jobs,
            &run.outcomes,
            &run.placements,
            buckets,
            downtimes,
        );
        gridscope::metrics::resources::add_resource_series(
            &r.platform,
            &run.outcomes,
            &run.placements,
            &mut s,
        );
        serde_json::to_string(&s).map_err(engine_err)
    }

    /// Run `i`'s waits against the log's, as JSON (`--vs-log`; issue #42), or `None` when
    /// the log records no wait.
    fn vs_log_json(&self, i: usize) -> PyResult<Option<String>> {
        let run = self.run(i)?;
        let w = &self.inner.workload;
        gridscope::metrics::vs_log(&w.jobs, &w.logged_waits, &run.outcomes)
            .map(|v| serde_json::to_string(&v).map_err(engine_err))
            .transpose()
    }

    /// Run `i`'s jobs as column buffers, one row per job of the workload in input order
    /// (rejected jobs too: their start, end and wait are null).
    fn job_columns<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyDict>> {
        let run = self.run(i)?;
        let r = &self.inner;
        let jobs = &r.workload.jobs;
        let outs = &run.outcomes;
        let ran = |o: &gridscope::engine::Outcome| o.ran();
        let mut c = Columns::default();
        c.i64("job_id", jobs.iter().map(|j| j.id));
        c.secs("submit", jobs.iter().map(|j| Some(j.submit)));
        c.secs("start", outs.iter().map(|o| ran(o).then_some(o.start)));
        c.secs("end", outs.iter().map(|o| ran(o).then_some(o.end)));
        c.secs(
            "wait",
            jobs.iter()
                .zip(outs)
                .map(|(j, o)| ran(o).then(|| o.start - j.submit)),
        );
        c.secs(
            "response",
            jobs.iter()
                .zip(outs)
                .map(|(j, o)| ran(o).then(|| o.end - j.submit)),
        );
        c.secs("estimate", jobs.iter().map(|j| Some(j.estimate)));
        c.secs("runtime", jobs.iter().map(|j| Some(j.runtime)));
        c.u32("procs", jobs.iter().map(|j| j.procs));
        let names: Vec<String> = r.platform.sites.iter().map(|s| s.name.clone()).collect();
        let n = names.len() as i32;
        // A job that never reached a site (rejected at its home) has site "".
        let mut site_names = names.clone();
        site_names.push(String::new());
        c.dict(
            "home",
            site_names.clone(),
            jobs.iter().map(|j| (j.home as i32).min(n)),
        );
        c.dict(
            "site",
            site_names,
            outs.iter().map(|o| (o.site as i64).min(n as i64) as i32),
        );
        // "lost": killed by a node failure and not run again (issue #41).
        let statuses = ["finished", "killed", "rejected", "pending", "lost"];
        c.dict(
            "status",
            statuses.iter().map(|s| s.to_string()).collect(),
            outs.iter().map(|o| match o.status {
                JobOutcome::Finished => 0,
                JobOutcome::Killed => 1,
                JobOutcome::Rejected(_) => 2,
                JobOutcome::Pending => 3,
                JobOutcome::Lost => 4,
            }),
        );
        c.bool("ran", outs.iter().map(|o| o.ran()));
        // Each job's joules on a run with energy (issue #40, docs/energy.md): its share of
        // its nodes' power, as `--jobs` writes `energy_j`; null for a job that did not run.
        if run.energy.is_some() {
            let joules =
                sc::energy::job_energy(&r.platform, outs, &run.placements, run.power_log.as_ref())
                    .map_err(engine_err)?
                    .unwrap_or_default();
            c.f64(
                "energy_j",
                outs.iter()
                    .enumerate()
                    .map(|(k, o)| o.ran().then(|| joules.get(k).copied().unwrap_or(0.0))),
            );
            // And its grams of CO₂ under the run's carbon series, as `--jobs` writes
            // `emissions_g`.
            if let Some(grams) = &run.job_emissions_g {
                c.f64(
                    "emissions_g",
                    outs.iter()
                        .enumerate()
                        .map(|(k, o)| o.ran().then(|| grams.get(k).copied().unwrap_or(0.0))),
                );
            }
        }
        c.into_dict(py)
    }
}

/// Reads a file within the default limits (the library's bounded read: a huge file or
/// `/dev/zero` is an error naming the limit, not an endless read).
pub(crate) fn read_file(path: &std::path::Path) -> Result<Vec<u8>, String> {
    let name = path.display().to_string();
    std::fs::File::open(path)
        .map_err(|e| ReadError::io(&name, e))
        .and_then(|file| read_bounded(file, &name, &Limits::default()))
        .map_err(|e| e.to_string())
}

/// Reads a scenario's files relative to `base` (any path: the caller chose the scenario).
fn file_loader(base: PathBuf) -> impl FnMut(&str) -> Result<Vec<u8>, String> {
    move |f: &str| read_file(&base.join(f))
}

/// The scenario and its workload: `workload` when given (a `Workload` read or generated
/// in Python), else what the scenario names, its files relative to `base`.
fn scenario_and_workload(
    py: Python<'_>,
    scenario_json: &str,
    base: Option<String>,
    workload: Option<&Workload>,
) -> PyResult<(Scenario, gridscope::workload::Workload)> {
    let scenario = Scenario::from_json(scenario_json).map_err(engine_err)?;
    scenario
        .check_limits(&Limits::default())
        .map_err(engine_err)?;
    let w = match workload {
        // Cloned because `prepare` sets every home to 0 on a single site, in place.
        Some(w) => {
            let mut w = (*w.inner).clone();
            // A trace read on its own (`swf` kind) runs on one machine, as the scenario
            // loader does it: the report says so when the trace had several origin sites.
            if matches!(scenario.workload, WorkloadSpec::Swf { .. }) {
                w.on_one_site();
            }
            w
        }
        None => {
            let mut load = file_loader(base.map(PathBuf::from).unwrap_or_default());
            py.detach(|| load_workload(&scenario, &Limits::default(), &mut load))
                .map_err(engine_err)?
        }
    };
    Ok((scenario, w))
}

/// Runs a scenario (JSON text) the CLI's way, on up to `threads` cores with the GIL
/// released. Ctrl-C is seen between slices of a few thousand events (the engine's progress
/// callback) and cancels every run.
#[pyfunction]
#[pyo3(signature = (scenario_json, base = None, workload = None, threads = 1))]
pub fn run_scenario(
    py: Python<'_>,
    scenario_json: &str,
    base: Option<String>,
    workload: Option<&Workload>,
    threads: usize,
) -> PyResult<Report> {
    let (scenario, w) = scenario_and_workload(py, scenario_json, base, workload)?;
    let mut interrupt: Option<PyErr> = None;
    let result = py.detach(|| {
        run_loaded_on(
            &scenario,
            w,
            threads.max(1),
            &Limits::default(),
            &mut |_, _, _| {
                // Signals are delivered to the main thread's Python code: take the GIL for
                // a moment to let it look (every 16,384 events, a few µs each time).
                match Python::attach(|py| py.check_signals()) {
                    Ok(()) => true,
                    Err(e) => {
                        interrupt = Some(e);
                        false
                    }
                }
            },
        )
    });
    // A signal seen in the engine's last progress call (whose answer a finished run does not
    // read) still stops the call: the handler ran and raised, so dropping its error would
    // swallow the user's Ctrl-C.
    if let Some(e) = interrupt {
        return Err(e);
    }
    match result {
        Ok(report) => Ok(Report {
            inner: Arc::new(report),
            cfg: scenario.options,
        }),
        Err(e) => Err(engine_err(e)),
    }
}

/// Runs the scenario's first algorithm with every site's local policy replaced by `policy`,
/// a Python object with `schedule(view) -> list of job indices`: the library's
/// `ScenarioRun` (the CLI's runner) with a policy factory, stepped an instant at a time.
/// The GIL stays held (each pass calls Python); Ctrl-C is checked every 256 instants and
/// inside the callbacks.
#[pyfunction]
#[pyo3(signature = (scenario_json, policy, name, base = None, workload = None))]
pub fn run_with_python_policy(
    py: Python<'_>,
    scenario_json: &str,
    policy: Py<PyAny>,
    name: String,
    base: Option<String>,
    workload: Option<&Workload>,
) -> PyResult<Report> {
    let (scenario, w) = scenario_and_workload(py, scenario_json, base, workload)?;
    let run = ScenarioRun::new(&scenario, w)
        .and_then(|run| run.only(0))
        .map_err(engine_err)?;
    let error: Rc<RefCell<Option<PyErr>>> = Rc::new(RefCell::new(None));
    let (jobs, cell, policy_name) = (run.shared_jobs(), error.clone(), name.clone());
    let mut run = run.with_policies(Box::new(move |site| -> Box<dyn LocalPolicy> {
        Box::new(PyPolicy::new(
            Python::attach(|py| policy.clone_ref(py)),
            policy_name.clone(),
            site,
            jobs.clone(),
            cell.clone(),
        ))
    }));
    let mut instants: u64 = 0;
    loop {
        let slice = run.step();
        // The policy's own error (it raised, or broke a rule) is the cause of anything else.
        if let Some(e) = error.borrow_mut().take() {
            return Err(e);
        }
        let over = match slice {
            Ok(Slice::Running) => false,
            Ok(_) => true,
            Err(ScenarioError::Sim(SimError::Cancelled)) => {
                return Err(GridscopeError::new_err("the run stopped before its end"))
            }
            // An invariant that fails at the end (jobs still queued) is most likely the
            // scheduler's doing: the base class, as its other broken rules are.
            Err(ScenarioError::Sim(e)) => return Err(crate::errors::python_policy_err(e)),
            Err(e) => return Err(engine_err(e)),
        };
        instants += 1;
        if instants.is_multiple_of(256) {
            py.check_signals()?;
        }
        if over {
            break;
        }
    }
    let (mut report, _) = run.finish();
    let alg = &scenario.algorithms[0];
    for run in &mut report.runs {
        run.algorithm = format!("python:{name}");
        run.label = alg.label.clone().unwrap_or_else(|| name.clone());
    }
    Ok(Report {
        inner: Arc::new(report),
        cfg: scenario.options,
    })
}

/// `(name, description)` of every scenario preset (`gridscope run --preset NAME`).
#[pyfunction]
pub fn scenario_presets() -> Vec<(String, String)> {
    SCENARIO_PRESETS
        .iter()
        .map(|(n, d)| (n.to_string(), d.to_string()))
        .collect()
}

/// A scenario preset as JSON, or a `GridscopeError` listing the known names.
#[pyfunction]
pub fn preset_json(name: &str) -> PyResult<String> {
    let s = Scenario::preset(name).ok_or_else(|| {
        let known: Vec<&str> = SCENARIO_PRESETS.iter().map(|p| p.0).collect();
        engine_err(format!(
            "unknown scenario preset '{name}'; known: {}",
            known.join(", ")
        ))
    })?;
    Ok(s.to_json())
}

/// The scenario of a page's share link (`…#s1=…`, or the fragment alone) as JSON, with the
/// names of the files it was run on; an older link is upgraded as the page does.
#[pyfunction]
pub fn decode_share_link(link: &str) -> PyResult<(String, Vec<String>)> {
    #[derive(serde::Deserialize)]
    struct Shared {
        scenario: Scenario,
        #[serde(default)]
        files: Vec<FileInfo>,
    }
    #[derive(serde::Deserialize)]
    struct FileInfo {
        name: String,
    }
    let fragment = link.rsplit_once('#').map_or(link, |(_, f)| f);
    let shared = gridscope::scenario::link::unpack::<Shared>("s1=", fragment, "scenario")
        .map_err(engine_err)?
        .ok_or_else(|| {
            engine_err(format!(
                "'{}' is not a scenario share link (#s1=…)",
                fragment.chars().take(40).collect::<String>()
            ))
        })?;
    // Through the JSON reader, so the version is checked and an old link upgraded.
    let scenario = Scenario::from_json(&shared.scenario.to_json()).map_err(engine_err)?;
    Ok((
        scenario.to_json(),
        shared.files.into_iter().map(|f| f.name).collect(),
    ))
}

/// A scenario JSON read, checked and written back in the current version (what the CLI
/// would run), or the engine's message on what is wrong with it.
#[pyfunction]
pub fn normalize_scenario(scenario_json: &str) -> PyResult<String> {
    let s = Scenario::from_json(scenario_json).map_err(engine_err)?;
    s.check_limits(&Limits::default()).map_err(engine_err)?;
    Ok(s.to_json())
}
