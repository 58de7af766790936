//! How a family view drives engine workers: one [`Runner`] for every view (SF, SCJG, SES,
//! KKOR, the report card), started on Run and dropped on Cancel or when done. A [`Task`]
//! says what each worker is sent and what its answers mean; a task may spread over a pool
//! of workers (the SF sweep: one per core, each running every n-th run, the parts put back
//! in worker order), a family preset runs in one ([`FamilyTask`]).

use yew::prelude::*;

use super::form::DraftInput;
use crate::family::Opt;
use crate::web::engine_worker::{self, EngineWorker};
use crate::web::protocol::{FamilyRequest, FamilyResult, FromWorker, ToWorker};
use crate::web::share;

/// A worker's message (or failure), tagged with the run it belongs to and the worker (its
/// index in the pool) that sent it.
pub type Delivery = (u32, u64, Result<FromWorker, String>);

/// What a worker's message means to its task.
pub enum Answer {
    /// `done` steps of this worker's share; `total` of the whole task when the worker
    /// knows it (a pool's total is known before it starts).
    Progress {
        done: u64,
        total: Option<u64>,
    },
    /// This worker's share is done (the message is kept for [`Task::finish`]), with the
    /// time the worker measured, if it did (else the page's clock counts).
    Done {
        elapsed_ms: Option<f64>,
    },
    Failed(String),
    /// Not this task's business.
    Other,
}

/// A job for engine workers: what each is sent once ready and how its answers read.
pub trait Task: 'static {
    type Output;
    /// Workers to spread the task over (1: one worker).
    fn workers(&self) -> u64 {
        1
    }
    /// Steps of the whole task when known before it starts (0: the worker says).
    fn total(&self) -> u64 {
        0
    }
    /// What worker `worker` of `of` is sent once it is ready.
    fn message(&self, worker: u64, of: u64) -> ToWorker;
    /// A file sent with the first worker's message (read there, never uploaded).
    fn file(&self) -> Option<web_sys::File> {
        None
    }
    fn read(&self, m: &FromWorker) -> Answer;
    /// Every worker's last message, in worker order, into the result; `elapsed_ms` is the
    /// run's time (the workers' own when they measured it).
    fn finish(self, parts: Vec<FromWorker>, elapsed_ms: f64) -> Result<Self::Output, String>;
}

/// The workers of the task going on, and its progress.
pub struct Runner<T: Task> {
    workers: Vec<EngineWorker>,
    generation: u32,
    task: Option<T>,
    /// Each worker's last message (`None` until it is done) and steps done so far.
    parts: Vec<Option<FromWorker>>,
    part_done: Vec<u64>,
    started_ms: f64,
    worker_ms: Option<f64>,
    pub running: bool,
    pub done: u64,
    pub total: u64,
    /// Time of the last finished task, and the workers it ran on.
    pub elapsed_ms: Option<f64>,
    pub last_workers: usize,
}

impl<T: Task> Default for Runner<T> {
    fn default() -> Self {
        Runner {
            workers: Vec::new(),
            generation: 0,
            task: None,
            parts: Vec::new(),
            part_done: Vec::new(),
            started_ms: 0.0,
            worker_ms: None,
            running: false,
            done: 0,
            total: 0,
            elapsed_ms: None,
            last_workers: 0,
        }
    }
}

impl<T: Task> Runner<T> {
    /// Starts `task` in new workers (the old ones, if any, are dropped).
    pub fn start(&mut self, task: T, deliver: Callback<Delivery>) -> Result<(), String> {
        self.stop();
        self.generation += 1;
        let gen = self.generation;
        self.done = 0;
        self.total = task.total();
        let n = task.workers().max(1);
        for i in 0..n {
            let deliver = deliver.clone();
            match engine_worker::spawn(move |m| deliver.emit((gen, i, m))) {
                Ok(w) => self.workers.push(w),
                Err(e) => {
                    self.stop();
                    return Err(e);
                }
            }
        }
        self.parts = vec![None; n as usize];
        self.part_done = vec![0; n as usize];
        self.started_ms = js_sys::Date::now();
        self.worker_ms = None;
        self.task = Some(task);
        self.running = true;
        Ok(())
    }

    fn stop(&mut self) {
        self.running = false;
        self.task = None;
        self.workers.clear();
        self.parts.clear();
        self.part_done.clear();
    }

    /// Whether a delivery belongs to the task going on (a cancelled or replaced task's
    /// messages do not).
    pub fn is_current(&self, d: &Delivery) -> bool {
        d.0 == self.generation
    }

    /// Handles a worker message: `Ok(Some(result))` when it completes the task, `Err` when
    /// the task failed (its workers are gone then).
    pub fn on_message(&mut self, (gen, worker, m): Delivery) -> Result<Option<T::Output>, String> {
        if gen != self.generation {
            return Ok(None);
        }
        let m = m.inspect_err(|_| self.stop())?;
        let Some(task) = &self.task else {
            return Ok(None);
        };
        if let FromWorker::Ready = m {
            let msg = task.message(worker, self.workers.len() as u64);
            let file = if worker == 0 { task.file() } else { None };
            if let Some(Err(e)) = self
                .workers
                .get(worker as usize)
                .map(|w| w.send(&msg, file.as_deref()))
            {
                self.stop();
                return Err(e);
            }
            return Ok(None);
        }
        match task.read(&m) {
            Answer::Progress { done, total } => {
                if let Some(d) = self.part_done.get_mut(worker as usize) {
                    *d = done;
                }
                self.done = self.part_done.iter().sum();
                if let Some(total) = total {
                    self.total = total;
                }
            }
            Answer::Failed(message) => {
                self.stop();
                return Err(message);
            }
            Answer::Done { elapsed_ms } => {
                if let Some(slot) = self.parts.get_mut(worker as usize) {
                    *slot = Some(m);
                }
                if let Some(ms) = elapsed_ms {
                    self.worker_ms = Some(self.worker_ms.map_or(ms, |w| w.max(ms)));
                }
                if self.parts.iter().all(Option::is_some) {
                    return self.finish().map(Some);
                }
            }
            Answer::Other => {}
        }
        Ok(None)
    }

    /// Every worker is done: their parts, in worker order, into the result.
    fn finish(&mut self) -> Result<T::Output, String> {
        let elapsed = self
            .worker_ms
            .unwrap_or_else(|| js_sys::Date::now() - self.started_ms);
        let parts: Vec<FromWorker> = std::mem::take(&mut self.parts)
            .into_iter()
            .flatten()
            .collect();
        self.last_workers = parts.len();
        let task = self.task.take();
        self.stop();
        let result = task
            .ok_or_else(|| "the run was replaced".to_string())
            .and_then(|t| t.finish(parts, elapsed))?;
        self.elapsed_ms = Some(elapsed);
        self.done = self.total.max(1);
        self.total = self.done;
        Ok(result)
    }

    /// Drops the task going on; `true` if there was one.
    pub fn cancel(&mut self) -> bool {
        if !self.running {
            return false;
        }
        self.stop();
        self.generation += 1;
        true
    }

    /// The share done, in 0..=1, for the progress bar.
    pub fn fraction(&self) -> f64 {
        if self.total > 0 {
            (self.done as f64 / self.total as f64).min(1.0)
        } else {
            0.0
        }
    }
}

/// A family preset (or the report card) in one worker, with the trace file it reads.
pub struct FamilyTask {
    pub request: FamilyRequest,
    pub file: Option<web_sys::File>,
}

impl Task for FamilyTask {
    type Output = FamilyResult;

    fn message(&self, _worker: u64, _of: u64) -> ToWorker {
        ToWorker::Family {
            request: self.request.clone(),
        }
    }

    fn file(&self) -> Option<web_sys::File> {
        self.file.clone()
    }

    fn read(&self, m: &FromWorker) -> Answer {
        match m {
            FromWorker::FamilyProgress { done, total } => Answer::Progress {
                done: *done,
                total: Some(*total),
            },
            FromWorker::FamilyDone { elapsed_ms, .. } => Answer::Done {
                elapsed_ms: Some(*elapsed_ms),
            },
            FromWorker::FamilyFailed { message } => Answer::Failed(message.clone()),
            _ => Answer::Other,
        }
    }

    fn finish(self, parts: Vec<FromWorker>, _elapsed_ms: f64) -> Result<FamilyResult, String> {
        parts
            .into_iter()
            .find_map(|m| match m {
                FromWorker::FamilyDone { result, .. } => Some(*result),
                _ => None,
            })
            .ok_or_else(|| "the worker ended without a result".to_string())
    }
}

/// Seeds as typed: a whole number in 1..1000.
pub fn parse_seeds(v: &str) -> Result<u64, String> {
    match v.trim().parse::<u64>() {
        Ok(n) if (1..=1000).contains(&n) => Ok(n),
        _ => Err(format!(
            "seeds: '{}' is not a whole number in 1..1000",
            v.trim()
        )),
    }
}

/// The request of a family link (`#f2=`, or the older `#f1=`) in the page's address, if
/// there is one; `Err` for a damaged link (the alert over the page says so).
pub fn linked_request() -> Result<Option<FamilyRequest>, String> {
    share::decode_family(&crate::web::format::location_hash())
}

/// A family's report as the worker sent it (its CLI JSON), read back as `T`.
pub fn read_report<T: serde::de::DeserializeOwned>(report: serde_json::Value) -> Result<T, String> {
    serde_json::from_value(report).map_err(|e| format!("the worker's report does not read: {e}"))
}

/// What option `opt` of the registry family `family` is called and means
/// (`crate::family::FamilyInfo::options`): the page's field label and help.
pub fn opt_text(family: &str, opt: Opt) -> (&'static str, &'static str) {
    crate::family::by_id(family)
        .and_then(|f| f.info().option(opt))
        .map_or(("", ""), |o| (o.name, o.help))
}

/// The text field of option `opt` of the registry family `family`, labelled and explained
/// as the registry says.
pub fn opt_field(
    family: &str,
    opt: Opt,
    id: &'static str,
    value: &str,
    onchange: Callback<Event>,
) -> Html {
    let (label, help) = opt_text(family, opt);
    field(id, label, value, help, onchange)
}

/// The registry family `family`'s introduction (`FamilyInfo::intro`), then `more`.
pub fn intro(family: &str, more: &str) -> Html {
    let text = crate::family::by_id(family).map_or("", |f| f.info().intro);
    html! {
        <p class="help">{ super::with_doc_links(&format!("{text}{more}")) }</p>
    }
}

/// A labelled text field with its help.
pub fn field(
    id: &'static str,
    label: &str,
    value: &str,
    help: &str,
    onchange: Callback<Event>,
) -> Html {
    html! {
        <div class="field">
            <label for={id}>{label.to_string()}</label>
            <DraftInput {id} value={value.to_string()} {onchange} />
            <span class="help">{help.to_string()}</span>
        </div>
    }
}

/// The preset picker every family form opens with, and the chosen preset's description
/// (test ids `{id}-preset`, `{id}-description`).
pub fn preset_select(
    id: &str,
    names: &[&str],
    chosen: usize,
    description: &str,
    onchange: Callback<Event>,
) -> Html {
    html! {
        <>
            <label>{"Preset "}
                <select data-testid={format!("{id}-preset")} onkeydown={super::form::hold_preset_keys} title={super::form::PRESET_KEYS_HELP} {onchange}>
                    { for names.iter().enumerate().map(|(i, p)| html!{
                        <option value={i.to_string()} selected={i == chosen}>{*p}</option>
                    }) }
                </select>
            </label>
            <p class="help" data-testid={format!("{id}-description")}>{description.to_string()}</p>
        </>
    }
}
