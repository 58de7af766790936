//! A scheduler written in Python as an engine `LocalPolicy`. The adapter owns the queue (as
//! every local policy does), shows Python a read-only `View` at each pass and starts what
//! `schedule(view)` returns — after checking it: each index must name a job waiting in this
//! site's queue, once, and fit the units still free. A rule broken, or an exception raised,
//! becomes a `GridscopeError` naming the policy, the job and the instant; the run stops
//! there and the engine never sees a bad start (its own capacity check and the end-of-run
//! invariants stay behind it as for every policy).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::PyList;

use gridscope::engine::SimTime;
use gridscope::model::{Job, JobIdx};
use gridscope::policy::local::{LocalPolicy, LocalPolicyKind, QueuedJob as EngineQueued, SiteView};

use crate::GridscopeError;

/// Every built-in local policy's name, as the CLI's `--policy` takes them (the library's
/// `LocalPolicyKind::EVERY`, older scenarios' variants included): the package's
/// `BUILTIN_POLICIES`.
pub fn builtin_names() -> Vec<&'static str> {
    // `slurm` is not in `EVERY` (the CLI's `all` runs as before) but runs by name too.
    let mut names: Vec<&'static str> = LocalPolicyKind::EVERY.iter().map(|k| k.name()).collect();
    names.push(LocalPolicyKind::Slurm.name());
    names
}

/// Engine time (ms) as seconds.
pub(crate) fn secs(t: SimTime) -> f64 {
    t.0 as f64 / 1000.0
}

/// A job waiting in the site's queue, as `schedule` sees it. Return its `idx` (or the
/// object itself) to start it.
#[pyclass(frozen, get_all, module = "gridscope._gridscope")]
pub struct QueuedJob {
    /// Its index in the workload: what `schedule` returns to start it.
    pub(crate) idx: u32,
    /// Its number in the trace (SWF field 1), as in the job tables.
    pub(crate) job_id: i64,
    /// Allocation units it needs here (processors, or nodes on a node-exclusive site).
    pub(crate) units: u32,
    /// The estimate the scheduler plans with (s), scaled to this site's speed.
    pub(crate) estimate: f64,
    /// Submit time (s from the workload's first submit).
    pub(crate) submit: f64,
    /// When it joined this queue (s).
    pub(crate) queued_at: f64,
    /// The estimate in the engine's integer milliseconds: sums and comparisons of these are
    /// exact, where float seconds can round in the last bit.
    pub(crate) estimate_ms: i64,
}

#[pymethods]
impl QueuedJob {
    fn __repr__(&self) -> String {
        format!(
            "QueuedJob(idx={}, job_id={}, units={}, estimate={}, submit={}, queued_at={})",
            self.idx, self.job_id, self.units, self.estimate, self.submit, self.queued_at
        )
    }
}

/// A running job: its units and when it is predicted to end (start + estimate).
#[pyclass(frozen, get_all, module = "gridscope._gridscope")]
pub struct RunningJob {
    idx: u32,
    job_id: i64,
    units: u32,
    predicted_end: f64,
    /// The predicted end in integer milliseconds (exact).
    predicted_end_ms: i64,
}

#[pymethods]
impl RunningJob {
    fn __repr__(&self) -> String {
        format!(
            "RunningJob(idx={}, job_id={}, units={}, predicted_end={})",
            self.idx, self.job_id, self.units, self.predicted_end
        )
    }
}

/// What a Python scheduler sees at a pass: the instant, the site, its units, the queue in
/// arrival order, the running jobs by predicted end (then index) and the site's advance
/// reservations `(start, end, units)` (SCJG only; empty otherwise).
#[pyclass(frozen, get_all, module = "gridscope._gridscope")]
pub struct View {
    now: f64,
    /// The instant in integer milliseconds (exact).
    now_ms: i64,
    site: usize,
    capacity: u32,
    free: u32,
    queue: Py<PyList>,
    running: Py<PyList>,
    reservations: Py<PyList>,
}

#[pymethods]
impl View {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "View(now={}, site={}, capacity={}, free={}, queue=<{} jobs>, running=<{} jobs>)",
            self.now,
            self.site,
            self.capacity,
            self.free,
            self.queue.bind(py).len(),
            self.running.bind(py).len()
        )
    }
}

/// The `View` of `site` with `queue` (already made), the running jobs and the reservations.
pub(crate) fn make_view(
    py: Python<'_>,
    site: &SiteView,
    index: usize,
    queue: Bound<'_, PyList>,
    jobs: &[Job],
) -> PyResult<Py<View>> {
    let running = PyList::empty(py);
    for (&(end, idx), &units) in site.running.iter() {
        let job = RunningJob {
            idx,
            job_id: jobs[idx as usize].id,
            units,
            predicted_end: secs(end),
            predicted_end_ms: end.0,
        };
        running.append(Py::new(py, job)?)?;
    }
    let reservations = PyList::new(
        py,
        site.reservations
            .iter()
            .map(|r| (secs(r.start), secs(r.end), r.units)),
    )?;
    Py::new(
        py,
        View {
            now: secs(site.now),
            now_ms: site.now.0,
            site: index,
            capacity: site.capacity,
            free: site.free,
            queue: queue.unbind(),
            running: running.unbind(),
            reservations: reservations.unbind(),
        },
    )
}

pub(crate) struct PyPolicy {
    obj: Py<PyAny>,
    name: String,
    site: usize,
    jobs: Arc<[Job]>,
    /// Arrival order; each job's Python object made once, at enqueue.
    queue: Vec<(EngineQueued, Py<QueuedJob>)>,
    /// The first error of the run; the run loop raises it after the step.
    error: Rc<RefCell<Option<PyErr>>>,
}

impl PyPolicy {
    pub(crate) fn new(
        obj: Py<PyAny>,
        name: String,
        site: usize,
        jobs: Arc<[Job]>,
        error: Rc<RefCell<Option<PyErr>>>,
    ) -> PyPolicy {
        PyPolicy {
            obj,
            name,
            site,
            jobs,
            queue: Vec::new(),
            error,
        }
    }

    fn fail(&self, e: PyErr) {
        let mut slot = self.error.borrow_mut();
        if slot.is_none() {
            *slot = Some(e);
        }
    }

    fn broke(&self, now: SimTime, what: String) -> PyErr {
        GridscopeError::new_err(format!(
            "Python policy {} at t={now} s on site {}: {what}",
            self.name, self.site
        ))
    }

    fn view(&self, py: Python<'_>, site: &SiteView) -> PyResult<Py<View>> {
        let queue = PyList::new(py, self.queue.iter().map(|(_, o)| o.clone_ref(py)))?;
        make_view(py, site, self.site, queue, &self.jobs)
    }

    /// One pass: the view to Python, its answer checked; queue positions started, in the
    /// order returned.
    fn pass(&self, py: Python<'_>, site: &SiteView) -> PyResult<Vec<usize>> {
        let now = site.now;
        let view = self.view(py, site)?;
        let answer = match self.obj.bind(py).call_method1("schedule", (view,)) {
            Ok(a) => a,
            // Ctrl-C inside the callback stops the run as itself.
            Err(e) if e.is_instance_of::<PyKeyboardInterrupt>(py) => return Err(e),
            Err(e) => {
                let err = self.broke(now, format!("schedule() raised {e}"));
                err.set_cause(py, Some(e));
                return Err(err);
            }
        };
        let items = answer.try_iter().map_err(|_| {
            self.broke(
                now,
                format!(
                    "schedule() must return a list of job indices, not {}",
                    answer
                        .get_type()
                        .name()
                        .map_or("?".to_string(), |n| n.to_string())
                ),
            )
        })?;
        let mut free = site.free;
        let mut taken: Vec<usize> = Vec::new();
        for item in items {
            let item = item?;
            let idx: i64 = match item.extract::<PyRef<'_, QueuedJob>>() {
                Ok(q) => q.idx as i64,
                Err(_) => item.extract::<i64>().map_err(|_| {
                    self.broke(
                        now,
                        format!("schedule() returned {item}, which is not a job index"),
                    )
                })?,
            };
            let pos = self
                .queue
                .iter()
                .position(|(q, _)| q.idx as i64 == idx)
                .filter(|p| !taken.contains(p));
            let Some(pos) = pos else {
                let what = match usize::try_from(idx).ok().and_then(|i| self.jobs.get(i)) {
                    Some(j) => format!(
                        "returned job {idx} (trace job {}), which is not waiting in this site's queue (not arrived yet, started already, queued elsewhere or returned twice)",
                        j.id
                    ),
                    None => format!(
                        "returned job {idx}, but the workload has no such job (indices run from 0 to {})",
                        self.jobs.len().saturating_sub(1)
                    ),
                };
                return Err(self.broke(now, what));
            };
            let q = self.queue[pos].0;
            if q.units > free {
                return Err(self.broke(
                    now,
                    format!(
                        "started job {idx} (trace job {}) needing {} units with only {free} free: a policy may start only what fits now",
                        self.jobs[q.idx as usize].id, q.units
                    ),
                ));
            }
            free -= q.units;
            taken.push(pos);
        }
        Ok(taken)
    }
}

impl LocalPolicy for PyPolicy {
    fn name(&self) -> &'static str {
        "python"
    }

    fn enqueue(&mut self, job: EngineQueued, _site: &SiteView) {
        let j = &self.jobs[job.idx as usize];
        let made = Python::attach(|py| {
            Py::new(
                py,
                QueuedJob {
                    idx: job.idx,
                    job_id: j.id,
                    units: job.units,
                    estimate: secs(job.estimate),
                    submit: secs(j.submit),
                    queued_at: secs(job.queued_at),
                    estimate_ms: job.estimate.0,
                },
            )
        });
        match made {
            Ok(obj) => self.queue.push((job, obj)),
            Err(e) => self.fail(e),
        }
    }

    fn schedule(&mut self, site: &SiteView, starts: &mut Vec<JobIdx>) {
        // Nothing to decide without a queue, and nothing more after a failure (the run
        // loop stops at the end of this step).
        if self.queue.is_empty() || self.error.borrow().is_some() {
            return;
        }
        match Python::attach(|py| self.pass(py, site)) {
            Ok(taken) => {
                starts.extend(taken.iter().map(|&p| self.queue[p].0.idx));
                let mut gone = vec![false; self.queue.len()];
                for p in taken {
                    gone[p] = true;
                }
                let mut k = 0;
                self.queue.retain(|_| {
                    k += 1;
                    !gone[k - 1]
                });
            }
            Err(e) => self.fail(e),
        }
    }

    fn queue_len(&self) -> usize {
        self.queue.len()
    }

    fn queued(&self) -> Vec<EngineQueued> {
        self.queue.iter().map(|(q, _)| *q).collect()
    }

    fn withdraw(&mut self, job: JobIdx) -> bool {
        match self.queue.iter().position(|(q, _)| q.idx == job) {
            Some(p) => {
                self.queue.remove(p);
                true
            }
            None => false,
        }
    }
}
