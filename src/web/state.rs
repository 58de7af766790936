//! What the panels share, in one context: the scenario being edited, the workload files,
//! the results of the last run and the engine worker. Panels read [`AppState`] and change it
//! only through [`AppAction`]s, which the app applies in order ([`AppState::apply`]); a
//! panel's own choices (a sort order, a chart's metric, a zoom window) stay in the panel.

use std::rc::Rc;

use yew::prelude::*;

use super::format;
use super::hub::{Hub, WorkerEvent};
use super::protocol::{FileInfo, FromWorker, RunResult, ToWorker};
use super::share::{self, Shared};
use crate::model::Platform;
use crate::policy::grid::GridScheme;
use crate::scenario::{AlgorithmSpec, PlatformSpec, Scenario, WorkloadSpec, SCENARIO_PRESETS};

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
    Cancel,
    /// Puts the scenario in the page address.
    Share,
    HashChanged,
    /// The run the per-run charts and the per-job export show.
    SelectRun(usize),
    Error(String),
    DismissError,
    ExportJson,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FileStatus {
    Loading,
    Loaded {
        info: FileInfo,
        jobs: u64,
        summary: String,
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
    /// The algorithm being run and its progress in events.
    pub run: usize,
    pub done: u64,
    pub total: u64,
    pub algorithms: usize,
}

/// The last run's results as they stream in.
#[derive(Clone, Default, PartialEq)]
pub struct Results {
    /// Counts the runs started on this page: per-run choices of the panels reset with it.
    pub id: u32,
    /// The runs' specifications, as run.
    pub algorithms: Vec<AlgorithmSpec>,
    pub platform: Option<Platform>,
    pub platform_note: String,
    pub import_summary: String,
    pub jobs: u64,
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
    pub share_url: Option<String>,
}

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
            share_url: None,
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
        WorkloadSpec::Swf { file, .. } | WorkloadSpec::SwfPartitions { file, .. } => {
            vec![file.clone()]
        }
        WorkloadSpec::SwfSites { files, .. } => files.clone(),
        _ => vec![],
    }
}

impl AppState {
    /// Applies one action; `false` when nothing visible changed.
    pub fn apply(&mut self, action: AppAction, hub: &Hub) -> bool {
        match action {
            AppAction::Worker(WorkerEvent::Message(m)) => return self.on_message(&m, hub),
            AppAction::Worker(WorkerEvent::Failed(m)) => {
                self.errors.push(m);
                self.run.running = false;
                self.restart(hub);
            }
            AppAction::Worker(WorkerEvent::SendFailed(m)) | AppAction::Error(m) => {
                self.errors.push(m)
            }
            AppAction::Worker(WorkerEvent::Restarted) => return false,
            AppAction::Files(files) => self.add_files(files, hub),
            AppAction::RemoveFile(name) => {
                self.files.retain(|f| f.name != name);
                self.send(hub, ToWorker::Forget { name });
            }
            AppAction::Edit(apply) => {
                let mut s = self.scenario.clone();
                match apply(&mut s) {
                    Ok(()) => {
                        self.scenario = s;
                        self.share_url = None;
                    }
                    Err(e) => self.errors.push(e),
                }
            }
            AppAction::Preset(name) => self.choose_preset(&name),
            AppAction::Run => {
                self.errors.clear();
                self.start_run(hub);
            }
            AppAction::Cancel => self.cancel(hub),
            AppAction::Share => self.share(),
            AppAction::HashChanged => self.hash_changed(hub),
            AppAction::SelectRun(i) => self.selected_run = i,
            AppAction::DismissError => self.errors.clear(),
            AppAction::ExportJson => {
                if let Some(j) = self.results.report_json.clone() {
                    self.download("metrics.json", "application/json", &j);
                }
            }
        }
        true
    }

    /// The first scenario: the page's fragment, else the demo, run at once unless it waits
    /// for files.
    pub fn open(&mut self, hub: &Hub) {
        self.load_from_hash();
        if self.needed.is_empty() {
            self.start_run(hub);
        }
    }

    fn on_message(&mut self, m: &FromWorker, hub: &Hub) -> bool {
        match m {
            FromWorker::Loaded {
                file,
                jobs,
                summary,
                ..
            } => self.on_loaded(hub, file.clone(), *jobs, summary.clone()),
            FromWorker::LoadFailed { name, error } => {
                self.set_status(name, FileStatus::Failed(error.clone()));
                self.errors.push(format!(
                    "Cannot use {name}: {}",
                    error.lines().next().unwrap_or("")
                ));
            }
            FromWorker::Started {
                platform,
                platform_note,
                import_summary,
                jobs,
                algorithms,
            } => {
                let r = Rc::make_mut(&mut self.results);
                r.platform = Some(platform.clone());
                r.platform_note = platform_note.clone();
                r.import_summary = import_summary.clone();
                r.jobs = *jobs;
                self.run.algorithms = *algorithms;
            }
            FromWorker::Progress { run, done, total } => {
                self.run.run = *run;
                self.run.done = *done;
                self.run.total = *total;
            }
            FromWorker::RunResult(r) => {
                let results = Rc::make_mut(&mut self.results);
                results.runs.push(Rc::new((**r).clone()));
                self.run.run = results.runs.len();
                self.run.done = 0;
            }
            FromWorker::Done {
                report_json,
                elapsed_ms,
            } => {
                self.run.running = false;
                let r = Rc::make_mut(&mut self.results);
                r.report_json = Some(Rc::from(report_json.as_str()));
                r.elapsed_ms = Some(*elapsed_ms);
                if self.selected_run >= r.runs.len() {
                    self.selected_run = 0;
                }
            }
            FromWorker::Failed { message } => {
                self.run.running = false;
                self.errors.push(message.clone());
            }
            FromWorker::Export {
                filename,
                mime,
                text,
            } => self.download(filename, mime, text),
            // The panels that asked for them take the others.
            _ => return false,
        }
        true
    }

    fn send(&mut self, hub: &Hub, msg: ToWorker) {
        if let Err(e) = hub.send(msg) {
            self.errors.push(e);
        }
    }

    /// A fresh worker (the current run stops at once) that knows the files again.
    fn restart(&mut self, hub: &Hub) {
        let files = self
            .files
            .iter()
            .filter(|f| !matches!(f.status, FileStatus::Failed(_)))
            .map(|f| (f.name.clone(), f.file.clone()))
            .collect();
        if let Err(e) = hub.restart(files) {
            self.errors.push(e);
        }
    }

    fn download(&mut self, filename: &str, mime: &str, text: &str) {
        if let Err(e) = format::download_text(filename, mime, text) {
            self.errors.push(e);
        }
    }

    fn start_run(&mut self, hub: &Hub) {
        if self.run.running {
            // One run at a time: stop the current one at once.
            self.restart(hub);
        }
        self.results = Rc::new(Results {
            id: self.results.id + 1,
            algorithms: self.scenario.algorithms.clone(),
            ..Results::default()
        });
        self.run = RunState {
            running: true,
            algorithms: self.scenario.algorithms.len(),
            ..RunState::default()
        };
        let msg = ToWorker::Run {
            scenario: self.scenario.clone(),
        };
        self.send(hub, msg);
    }

    fn cancel(&mut self, hub: &Hub) {
        if self.run.running {
            self.restart(hub);
            self.run.running = false;
            self.notice = Some(format!(
                "Run cancelled after {} of {} algorithms.",
                self.results.runs.len(),
                self.run.algorithms
            ));
        }
    }

    fn share(&mut self) {
        let mut files: Vec<FileInfo> = vec![];
        for file in workload_files(&self.scenario.workload) {
            files.extend(
                self.files
                    .iter()
                    .filter_map(|f| match &f.status {
                        FileStatus::Loaded { info, .. } if info.name == file => Some(info.clone()),
                        _ => None,
                    })
                    .chain(self.needed.iter().filter(|n| n.name == file).cloned()),
            );
        }
        let frag = share::encode(&Shared {
            scenario: self.scenario.clone(),
            files,
        });
        let url = share::link(&frag);
        format::replace_url(Some(&url));
        self.share_url = Some(url);
    }

    fn hash_changed(&mut self, hub: &Hub) {
        let hash = format::location_hash();
        let ours = self
            .share_url
            .as_deref()
            .and_then(|u| u.split_once('#'))
            .map(|(_, f)| format!("#{f}"));
        if Some(hash) != ours && self.load_from_hash() && self.needed.is_empty() {
            self.start_run(hub);
        }
    }

    /// Takes the scenario of a share link in the fragment; `false` when there is none.
    fn load_from_hash(&mut self) -> bool {
        match share::decode(&format::location_hash()) {
            Ok(None) => false,
            Ok(Some(shared)) => {
                self.scenario = shared.scenario;
                self.preset = if SCENARIO_PRESETS.iter().any(|p| p.0 == self.scenario.name) {
                    self.scenario.name.clone()
                } else {
                    String::new()
                };
                // Files already dropped that match are reused.
                let have: Vec<&FileInfo> = self
                    .files
                    .iter()
                    .filter_map(|f| match &f.status {
                        FileStatus::Loaded { info, .. } => Some(info),
                        _ => None,
                    })
                    .collect();
                self.needed = shared
                    .files
                    .into_iter()
                    .filter(|n| !have.contains(&n))
                    .collect();
                self.notice = Some(if self.needed.is_empty() {
                    "Opened a shared scenario.".into()
                } else {
                    "Opened a shared scenario: it needs the workload file(s) below.".into()
                });
                true
            }
            Err(e) => {
                self.errors
                    .push(format!("{e}. The default scenario was loaded instead."));
                self.scenario = Scenario::demo();
                // Drop the broken fragment so a reload does not show the same error again.
                format::replace_url(None);
                true
            }
        }
    }

    fn choose_preset(&mut self, name: &str) {
        let Some(sc) = Scenario::preset(name) else {
            self.errors
                .push(format!("unknown scenario preset '{name}'"));
            return;
        };
        self.scenario = sc;
        self.preset = name.to_string();
        self.share_url = None;
        self.needed.clear();
        let missing = self.missing_files();
        self.notice = Some(if missing.is_empty() {
            format!("Loaded the scenario preset {name}: press Run.")
        } else {
            format!(
                "The scenario preset {name} reads {} trace file(s) by name: drop or pick them (listed under Workload); it runs when they are all here.",
                missing.len()
            )
        });
    }

    fn add_files(&mut self, files: Vec<web_sys::File>, hub: &Hub) {
        for file in files {
            let mut name = file.name();
            if let Some(first) = self.needed.first() {
                if !self.needed.iter().any(|n| n.name == name) {
                    // A shared scenario is waiting for a file: take this one as the first
                    // missing one (its hash decides).
                    name = first.name.clone();
                }
            }
            self.files.retain(|f| f.name != name);
            self.files.push(FileEntry {
                name: name.clone(),
                file: file.clone(),
                status: FileStatus::Loading,
            });
            if let Err(e) = hub.send_file(ToWorker::Load { name }, file) {
                self.errors.push(e);
            }
        }
    }

    fn on_loaded(&mut self, hub: &Hub, info: FileInfo, jobs: u64, summary: String) {
        let name = info.name.clone();
        let reloaded = self
            .files
            .iter()
            .any(|f| f.name == name && matches!(f.status, FileStatus::Loaded { .. }));
        if reloaded {
            // A fresh worker (after a cancel) got the file again: nothing to decide.
            return;
        }
        if let Some(pos) = self.needed.iter().position(|n| n.name == name) {
            return self.on_needed_loaded(hub, pos, info, jobs, summary);
        }
        self.set_status(
            &name,
            FileStatus::Loaded {
                info,
                jobs,
                summary,
            },
        );
        if !matches!(self.scenario.workload, WorkloadSpec::Swf { .. })
            && workload_files(&self.scenario.workload).contains(&name)
        {
            return self.on_preset_file_loaded(hub);
        }
        if self.files.iter().any(|f| f.status == FileStatus::Loading) {
            // Several files were dropped at once: run when the last one is read.
            return;
        }
        let loaded = self
            .files
            .iter()
            .filter(|f| matches!(f.status, FileStatus::Loaded { .. }))
            .count();
        if loaded > 1 {
            self.notice = Some(format!(
                "{loaded} files are loaded; a run uses one workload file for now (several files as several sites come later). Running {name}; choose another under Workload."
            ));
        }
        if !matches!(self.scenario.workload, WorkloadSpec::Swf { .. })
            || !matches!(self.scenario.platform, PlatformSpec::Sites { .. })
        {
            self.scenario.platform = PlatformSpec::FromTrace { procs: None };
        }
        self.scenario.workload = WorkloadSpec::Swf {
            file: name.clone(),
            strict: false,
        };
        self.scenario.name = format!("{name}, one site sized from the trace");
        self.start_run(hub);
    }

    /// A file a shared scenario pinned by hash: refused unless it is the same file.
    fn on_needed_loaded(
        &mut self,
        hub: &Hub,
        pos: usize,
        info: FileInfo,
        jobs: u64,
        summary: String,
    ) {
        let name = info.name.clone();
        let want = &self.needed[pos];
        if want.sha256 != info.sha256 {
            self.errors.push(format!(
                "{name} is not the file the shared scenario was made with: its SHA-256 is {} ({} bytes) but the scenario needs {} ({} bytes). The file was not used.",
                info.sha256, info.size, want.sha256, want.size
            ));
            self.files.retain(|f| f.name != name);
            self.send(hub, ToWorker::Forget { name });
            return;
        }
        self.needed.remove(pos);
        self.set_status(
            &name,
            FileStatus::Loaded {
                info,
                jobs,
                summary,
            },
        );
        if self.needed.is_empty() {
            self.notice = Some("All files of the shared scenario are here; running it.".into());
            self.start_run(hub);
        }
    }

    /// A file the scenario (a multi-site preset) reads by name: run when all are here.
    fn on_preset_file_loaded(&mut self, hub: &Hub) {
        if self.files.iter().any(|f| f.status == FileStatus::Loading) {
            return;
        }
        let missing = self.missing_files();
        if missing.is_empty() {
            self.notice = Some("All files of this scenario are here; running it.".into());
            self.start_run(hub);
        } else {
            self.notice = Some(format!(
                "This scenario still needs: {}.",
                missing.join(", ")
            ));
        }
    }

    /// Files the scenario reads that are neither loaded (or loading) nor pinned by hash in
    /// `needed`: the page asks for them by name.
    pub fn missing_files(&self) -> Vec<String> {
        workload_files(&self.scenario.workload)
            .into_iter()
            .filter(|n| {
                !self
                    .files
                    .iter()
                    .any(|f| &f.name == n && !matches!(f.status, FileStatus::Failed(_)))
                    && !self.needed.iter().any(|x| &x.name == n)
            })
            .collect()
    }

    /// Names of the files read without error, then those a shared scenario waits for.
    pub fn loaded_files(&self) -> Vec<String> {
        self.files
            .iter()
            .filter(|f| matches!(f.status, FileStatus::Loaded { .. }))
            .map(|f| f.name.clone())
            .chain(self.needed.iter().map(|n| n.name.clone()))
            .collect()
    }

    fn set_status(&mut self, name: &str, status: FileStatus) {
        if let Some(f) = self.files.iter_mut().find(|f| f.name == name) {
            f.status = status;
        }
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
