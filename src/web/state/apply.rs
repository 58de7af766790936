//! How the app applies an action: the worker's messages, runs (start, pause, cancel),
//! sharing and presets. Files are in `files.rs`.

use std::rc::Rc;

use super::{workload_files, AppAction, AppState, FileStatus, Results, RunState};
use crate::limits::Limits;
use crate::scenario::{
    Scenario, CONFIRM_ABOVE_JOB_RUNS, CONFIRM_ABOVE_PLAN_WORK, SCENARIO_PRESETS,
};
use crate::web::engine_worker::{why_it_died, DEATH};
use crate::web::format;
use crate::web::hub::{Hub, WorkerEvent};
use crate::web::protocol::{FileInfo, FromWorker, ToWorker};
use crate::web::share::{self, Shared};

/// A message about the run going on (or a cancelled one).
fn about_a_run(m: &FromWorker) -> bool {
    matches!(
        m,
        FromWorker::Started { .. }
            | FromWorker::Progress { .. }
            | FromWorker::RunResult(_)
            | FromWorker::Done { .. }
            | FromWorker::Failed { .. }
            | FromWorker::Paused { .. }
            | FromWorker::Resumed
    )
}

impl AppState {
    /// Applies one action; `false` when nothing visible changed.
    pub fn apply(&mut self, action: AppAction, hub: &Hub) -> bool {
        match action {
            AppAction::Worker(WorkerEvent::Message(m)) => return self.on_message(&m, hub),
            AppAction::Worker(WorkerEvent::Failed(m)) => {
                self.died = Some(why_it_died(&m));
                self.run.running = false;
                self.run.paused = false;
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
                        // The version follows what the scenario describes (node types: 3,
                        // failures: 4), so its link and the worker read it as written.
                        self.scenario = s.upgrade();
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
            AppAction::TogglePause => self.toggle_pause(hub),
            AppAction::Cancel => self.cancel(hub),
            AppAction::CancelTimedOut => return self.cancel_timed_out(hub),
            AppAction::Share => self.share(),
            AppAction::HashChanged => self.hash_changed(hub),
            AppAction::SelectRun(i) => self.selected_run = i,
            AppAction::ExplainJob(job) => {
                let asked = self.explain.map_or(0, |e| e.2.wrapping_add(1));
                self.explain = Some((self.selected_run, job, asked));
            }
            AppAction::DismissError => {
                self.errors.clear();
                self.died = None;
            }
            AppAction::ReloadLastGood => self.reload_last_good(hub),
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
        let shared = self.load_from_hash();
        if self.needed.is_empty() && !(shared && self.asks_first()) {
            self.start_run(hub);
        }
    }

    /// A shared scenario above the cost estimate does not start by itself: the visitor
    /// sees what it would run and presses Run (a hostile link cannot tie up the tab).
    fn asks_first(&mut self) -> bool {
        let runs = self
            .scenario
            .expected_job_runs()
            .filter(|&c| c > CONFIRM_ABOVE_JOB_RUNS);
        // Job-runs miss conservative backfilling's plans, which grow with a backlog's cube.
        let plan = self
            .scenario
            .expected_plan_work()
            .filter(|&w| w > CONFIRM_ABOVE_PLAN_WORK);
        self.confirm = Some(match (runs, plan) {
            (Some(cost), _) => format!(
                "This shared scenario asks for about {} job-runs ({} algorithm(s) on a generated workload) — more than a link starts by itself ({}). It could keep this tab busy for a while; press Run to start it (Cancel stops it at any time).",
                format::fmt_num(cost, 0),
                self.scenario.algorithms.len(),
                format::fmt_num(CONFIRM_ABOVE_JOB_RUNS, 0),
            ),
            (None, Some(work)) => format!(
                "This shared scenario overloads its platform under conservative backfilling: up to about {work:.1e} steps of plan work (N jobs leaving a backlog of B cost up to about N·B² when estimates exceed run times: every early end moves the queue up), more than a link starts by itself ({CONFIRM_ABOVE_PLAN_WORK:.0e}, a few seconds). It could keep this tab busy for minutes — the page stops a run at {:.0e} steps; press Run to start it (Cancel stops it at any time).",
                Limits::default().plan_work as f64,
            ),
            (None, None) => return false,
        });
        true
    }

    fn on_message(&mut self, m: &FromWorker, hub: &Hub) -> bool {
        if self.cancelling > 0 && about_a_run(m) {
            return false;
        }
        // Words about a run before this run's `Started`, or a result out of turn, belong to
        // an earlier run (the cancel guard above should already have dropped them).
        let stale = match m {
            FromWorker::Progress { .. } | FromWorker::Done { .. } => !self.run.started,
            FromWorker::RunResult(r) => !self.run.started || r.idx != self.results.runs.len(),
            _ => false,
        };
        if stale {
            return false;
        }
        match m {
            FromWorker::Loaded {
                file,
                jobs,
                summary,
                site,
                ..
            } => self.on_loaded(hub, file.clone(), *jobs, summary.clone(), site.clone()),
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
                offered_load,
            } => {
                let r = Rc::make_mut(&mut self.results);
                r.offered_load = *offered_load;
                r.platform = Some(platform.clone());
                r.platform_note = platform_note.clone();
                r.import_summary = import_summary.clone();
                r.jobs = *jobs;
                self.run.algorithms = *algorithms;
                self.run.started = true;
            }
            FromWorker::Progress {
                run,
                done,
                total,
                in_flight,
            } => {
                self.run.run = *run;
                self.run.done = *done;
                self.run.total = *total;
                self.run.in_flight = (*in_flight).max(1);
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
                self.last_good = r.scenario.clone();
                r.elapsed_ms = Some(*elapsed_ms);
                if self.selected_run >= r.runs.len() {
                    self.selected_run = 0;
                }
            }
            FromWorker::Failed { message } => {
                self.run.running = false;
                // A pool worker that died took the run with it: the same words and offer
                // as the page's own worker.
                match message.strip_prefix(DEATH) {
                    Some(_) => self.died = Some(why_it_died(message)),
                    None => self.errors.push(message.clone()),
                }
            }
            FromWorker::Cancelled { .. } => self.cancelling = self.cancelling.saturating_sub(1),
            FromWorker::Paused { .. } => self.run.paused = self.run.running,
            FromWorker::Resumed => self.run.paused = false,
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

    pub(super) fn send(&mut self, hub: &Hub, msg: ToWorker) {
        if let Err(e) = hub.send(msg) {
            self.errors.push(e);
        }
    }

    /// A fresh worker (the current run stops at once) that knows the files again.
    fn restart(&mut self, hub: &Hub) {
        // The old worker's answers will never come.
        self.cancelling = 0;
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

    pub(super) fn start_run(&mut self, hub: &Hub) {
        // Whatever was waiting for the visitor's go is answered by this run.
        self.confirm = None;
        if self.run.running {
            // One run at a time: the worker drops the current one first.
            self.cancelling += 1;
            self.send(hub, ToWorker::Cancel);
        }
        self.results = Rc::new(Results {
            id: self.results.id + 1,
            algorithms: self.scenario.algorithms.clone(),
            scenario: Some(Rc::new(self.scenario.clone())),
            ..Results::default()
        });
        self.run = RunState {
            running: true,
            algorithms: self.scenario.algorithms.len(),
            ..RunState::default()
        };
        let msg = ToWorker::Run {
            scenario: self.scenario.clone(),
            workers: crate::web::engine_worker::cores() as u32,
        };
        self.send(hub, msg);
    }

    /// Runs the last scenario whose runs all finished again (after a worker died).
    fn reload_last_good(&mut self, hub: &Hub) {
        let Some(good) = self.last_good.clone() else {
            return;
        };
        self.died = None;
        self.errors.clear();
        self.scenario = Scenario::clone(&good);
        self.preset = if SCENARIO_PRESETS.iter().any(|p| p.0 == self.scenario.name) {
            self.scenario.name.clone()
        } else {
            String::new()
        };
        self.share_url = None;
        self.needed.clear();
        self.notice = Some(format!(
            "Reloaded the last scenario that ran well ({}); running it.",
            self.scenario.name
        ));
        self.start_run(hub);
    }

    /// Stops the run; the worker (and the files it holds) lives on. Its answers about the
    /// run are dropped until it says it cancelled.
    fn cancel(&mut self, hub: &Hub) {
        if self.run.running {
            self.cancelling += 1;
            self.send(hub, ToWorker::Cancel);
            self.run.running = false;
            self.run.paused = false;
            self.notice = Some(format!(
                "Run cancelled after {} of {} algorithms.",
                self.results.runs.len(),
                self.run.algorithms
            ));
        }
    }

    /// The worker is stuck in a step it cannot slice: the old way, a fresh worker (a run
    /// started since is sent to it again).
    fn cancel_timed_out(&mut self, hub: &Hub) -> bool {
        if self.cancelling == 0 {
            return false;
        }
        self.restart(hub);
        if self.run.running {
            self.run.running = false;
            self.start_run(hub);
        }
        true
    }

    fn toggle_pause(&mut self, hub: &Hub) {
        if self.run.running {
            self.run.paused = !self.run.paused;
            let msg = if self.run.paused {
                ToWorker::Pause
            } else {
                ToWorker::Resume
            };
            self.send(hub, msg);
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
        let frag = match share::encode(&Shared {
            scenario: self.scenario.clone(),
            files,
        }) {
            Ok(frag) => frag,
            Err(e) => return self.errors.push(e),
        };
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
        // Back to a link already open (after visiting another view's tab) changes nothing.
        let same = matches!(share::decode(&hash), Ok(Some(s)) if s.scenario == self.scenario);
        if Some(hash) != ours
            && !same
            && self.load_from_hash()
            && self.needed.is_empty()
            && !self.asks_first()
        {
            self.start_run(hub);
        }
    }

    /// Takes the scenario of a share link in the fragment; `false` when there is none.
    fn load_from_hash(&mut self) -> bool {
        match share::decode(&format::location_hash()) {
            Ok(None) => false,
            Ok(Some(shared)) => {
                // Refused before the form is built from it (a row per site, per file).
                if let Err(e) = shared.scenario.check_limits(&Limits::default()) {
                    self.errors.push(format!(
                        "This shared scenario cannot open: {e}. The default scenario was loaded instead."
                    ));
                    self.scenario = Scenario::demo();
                    self.needed.clear();
                    format::replace_url(None);
                    return true;
                }
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
        self.confirm = None;
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
}
