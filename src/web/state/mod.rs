//! What the panels share, in one context: the scenario being edited, the workload files,
//! the results of the last run and the engine worker. Panels read [`AppState`] and change it
//! only through [`AppAction`]s, which the app applies in order ([`AppState::apply`]); a
//! panel's own choices (a sort order, a chart's metric, a zoom window) stay in the panel.

mod apply;
mod files;

use std::rc::Rc;

use yew::prelude::*;

use super::hub::{Hub, WorkerEvent};
use super::protocol::{FileInfo, RunResult, ToWorker};
use crate::model::Platform;
use crate::policy::grid::GridScheme;
use crate::scenario::{AlgorithmSpec, Scenario, WorkloadSpec};

/// A change to the scenario; `Err` is shown and the scenario stays as it was.
pub type Edit = Rc<dyn Fn(&mut Scenario) -> Result<(), String>>;

/// Wraps a scenario change for [`AppAction::Edit`].
pub fn edit(f: impl Fn(&mut Scenario) -> Result<(), String> + 'static) -> AppAction {
    AppAction::Edit(Rc::new(f))
}

pub enum AppAction {
    Worker(WorkerEvent),
    /// Files dropped or picked.
    Files(Vec<web_sys::File>),
    RemoveFile(String),
    Edit(Edit),
    /// A scenario preset by name.
    Preset(String),
    Run,
    /// Holds the run going on, or lets it go on.
    TogglePause,
    Cancel,
    /// The worker did not answer a cancel in time: it is restarted.
    CancelTimedOut,
    /// Puts the scenario in the page address.
    Share,
    HashChanged,
    /// The run the per-run charts and the per-job export show.
    SelectRun(usize),
    /// Why did this job of the selected run wait? (a click on a job in a chart)
    ExplainJob(i64),
    Error(String),
    DismissError,
    /// After a worker died: runs the last scenario that ran to the end again.
    ReloadLastGood,
    ExportJson,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FileStatus {
    Loading,
    Loaded {
        info: FileInfo,
        jobs: u64,
        summary: String,
        /// The one site the file alone would run on (several files: a site each).
        site: Option<crate::model::Site>,
    },
    Failed(String),
}

#[derive(Clone, PartialEq)]
pub struct FileEntry {
    /// The name the worker knows the file by.
    pub name: String,
    pub file: web_sys::File,
    pub status: FileStatus,
}

#[derive(Clone, Copy, Default, PartialEq)]
pub struct RunState {
    pub running: bool,
    /// Held by the user (the worker stops between slices).
    pub paused: bool,
    /// The algorithm being run and its progress in events.
    pub run: usize,
    pub done: u64,
    pub total: u64,
    pub algorithms: usize,
    /// Runs going on at once (a pool of workers); `done`/`total` add up theirs.
    pub in_flight: usize,
    /// The worker said `Started` for this run: progress, results and `Done` before it are
    /// an earlier run's.
    pub started: bool,
}

/// The last run's results as they stream in.
#[derive(Clone, Default, PartialEq)]
pub struct Results {
    /// Counts the runs started on this page: per-run choices of the panels reset with it.
    pub id: u32,
    /// The runs' specifications, as run.
    pub algorithms: Vec<AlgorithmSpec>,
    /// The whole scenario as run: the results' header names it, and says when the form no
    /// longer describes these numbers.
    pub scenario: Option<Rc<Scenario>>,
    pub platform: Option<Platform>,
    pub platform_note: String,
    pub import_summary: String,
    pub jobs: u64,
    /// The workload's offered load on the platform, when it has an arrival span.
    pub offered_load: Option<f64>,
    pub runs: Vec<Rc<RunResult>>,
    /// The CLI's `--json` report, once every algorithm has run.
    pub report_json: Option<Rc<str>>,
    pub elapsed_ms: Option<f64>,
}

impl Results {
    /// Every algorithm has run.
    pub fn done(&self) -> bool {
        self.report_json.is_some()
    }

    pub fn labels(&self) -> Vec<String> {
        self.runs.iter().map(|r| r.label().to_string()).collect()
    }

    pub fn site_names(&self) -> Vec<String> {
        self.platform
            .as_ref()
            .map(|p| p.sites.iter().map(|s| s.name.clone()).collect())
            .unwrap_or_default()
    }

    /// Run `i` used SOB's idealized scheme (no processors to draw).
    pub fn is_ideal(&self, i: usize) -> bool {
        self.algorithms
            .get(i)
            .is_some_and(|a| a.grid == GridScheme::Ideal)
    }
}

#[derive(Clone)]
pub struct AppState {
    pub scenario: Scenario,
    /// The scenario preset last chosen (empty for a shared or custom scenario).
    pub preset: String,
    pub files: Vec<FileEntry>,
    /// Files a shared scenario needs before it can run.
    pub needed: Vec<FileInfo>,
    pub run: RunState,
    pub results: Rc<Results>,
    pub selected_run: usize,
    pub errors: Vec<String>,
    pub notice: Option<String>,
    /// A shared link above the cost estimate waits here for the visitor's go (Run).
    pub confirm: Option<String>,
    pub share_url: Option<String>,
    /// Cancels the worker has not answered yet: until then, what it says about runs belongs
    /// to a cancelled run and is dropped.
    pub cancelling: u32,
    /// The last "why did this job wait?" asked from a chart: (run, job id, a count that
    /// makes the same question asked again a new one).
    pub explain: Option<(usize, i64, u32)>,
    /// Why the engine worker died, in words ([`crate::web::engine_worker::why_it_died`]);
    /// shown with an offer to reload [`AppState::last_good`].
    pub died: Option<String>,
    /// The last scenario whose runs all finished: what a visitor goes back to after a
    /// worker died on another one.
    pub last_good: Option<Rc<Scenario>>,
    /// The files of the last drop or pick, in order: several become several sites.
    pub dropped_together: Vec<String>,
}

/// How long the worker has to answer a cancel (it does between two slices of ~30 ms, but
/// not inside one step that cannot be sliced: reading a workload, the idealized scheme, or
/// one conservative pass over a backlog of tens of thousands of jobs, which takes seconds)
/// before the page terminates it and starts a fresh one: Cancel stops any run within a
/// second (issue #30; the fresh worker reads the files again in the background).
pub const CANCEL_GRACE_MS: u32 = 500;

impl Default for AppState {
    fn default() -> Self {
        AppState {
            scenario: Scenario::demo(),
            preset: "demo".into(),
            files: vec![],
            needed: vec![],
            run: RunState::default(),
            results: Rc::default(),
            // The second algorithm: after FCFS, the first one worth a Gantt chart.
            selected_run: 1,
            errors: vec![],
            notice: None,
            confirm: None,
            share_url: None,
            cancelling: 0,
            explain: None,
            died: None,
            last_good: None,
            dropped_together: vec![],
        }
    }
}

/// What every panel gets from the app: the state, a way to change it, the engine worker.
#[derive(Clone)]
pub struct AppContext {
    pub state: Rc<AppState>,
    pub dispatch: Callback<AppAction>,
    pub hub: Hub,
}

impl PartialEq for AppContext {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.state, &other.state) && self.hub == other.hub
    }
}

impl std::ops::Deref for AppContext {
    type Target = AppState;
    fn deref(&self) -> &AppState {
        &self.state
    }
}

impl AppContext {
    pub fn send(&self, action: AppAction) {
        self.dispatch.emit(action);
    }

    /// A callback that sends the action `f` makes of an event.
    pub fn callback<E: 'static>(&self, f: impl Fn(E) -> AppAction + 'static) -> Callback<E> {
        let dispatch = self.dispatch.clone();
        Callback::from(move |e: E| dispatch.emit(f(e)))
    }

    /// Sends a message to the engine worker; a failure is shown as an error.
    pub fn to_worker(&self, msg: ToWorker) {
        if let Err(e) = self.hub.send(msg) {
            self.send(AppAction::Error(e));
        }
    }
}

/// The app context; outside the app (never in the page) a detached one with the defaults.
#[hook]
pub fn use_app() -> AppContext {
    use_context::<AppContext>().unwrap_or_else(|| AppContext {
        state: Rc::new(AppState::default()),
        dispatch: Callback::noop(),
        hub: Hub::default(),
    })
}

/// Files a workload reads, by name (empty for generators).
pub fn workload_files(w: &WorkloadSpec) -> Vec<String> {
    match w {
        WorkloadSpec::Swf { file, .. }
        | WorkloadSpec::SwfPartitions { file, .. }
        | WorkloadSpec::OriginSites { file, .. } => {
            vec![file.clone()]
        }
        WorkloadSpec::SwfSites { files, .. } => files.clone(),
        _ => vec![],
    }
}

/// Calls `on` with every event of the app's engine worker while the component lives. `on`
/// is the first render's: it should only hold stable handles (state setters, dispatchers).
#[hook]
pub fn use_worker_events(app: &AppContext, on: impl Fn(WorkerEvent) + 'static) {
    let on = Callback::from(on);
    use_effect_with(app.hub.clone(), move |hub| {
        let sub = hub.subscribe(on);
        move || drop(sub)
    });
}
