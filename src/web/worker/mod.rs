//! The engine side: runs in a dedicated Web Worker, never on the page's thread. It keeps the
//! imported files and the last run's report, and answers the page's [`ToWorker`] messages.
//! A run goes in slices (`run`, driving `scenario::ScenarioRun`; `pool` spreads a big one
//! over workers) so the worker answers the page during it; the rest (`exports`) answers at
//! once.

mod exports;
mod families;
mod node_gantt;
mod pool;
mod prepared;
mod run;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use std::sync::Arc;

use sha2::{Digest, Sha256};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use super::protocol::*;
use crate::model::Platform;
use crate::scenario::{load_workload, Report, Scenario, ScenarioRun, WorkloadSpec};
use crate::workload::hyper_erlang::Synthetic;
use crate::workload::{read_trace, SwfHeader, SwfOptions, TraceOptions, Workload};

/// The runner under the name the worker's tests know it by.
pub use crate::scenario::{ScenarioRun as SlicedRun, Slice};
pub use exports::{fit_compare, gantt, sweep_part};
pub use pool::{
    decode_jobs, decode_outcomes, encode_jobs, encode_outcomes, pool_size, POOL_ABOVE_JOB_RUNS,
};
pub use run::{run_result, series};

/// Buckets of the utilization and queue-length series.
const SERIES_BUCKETS: usize = 240;
/// Points of the wait-time CDF sent to the page.
const CDF_POINTS: usize = 400;
/// Points of each CDF of the fit comparison (trace vs synthetic workload).
const FIT_CDF_POINTS: usize = 200;
/// Rectangles of one Gantt window.
const GANTT_MAX_RECTS: usize = 30_000;

struct LoadedFile {
    bytes: Vec<u8>,
    workload: Workload,
    header: SwfHeader,
}

#[derive(Default)]
struct State {
    files: HashMap<String, LoadedFile>,
    /// The run going on, stepped a slice at a time.
    active: Option<run::Active>,
    /// The workers a big run is spread over, and that run.
    pool: pool::Pool,
    /// A pool worker's prepared scenario for the runs of the pooled run `tag`.
    part_base: Option<(u64, ScenarioRun)>,
    /// This state, for the pool workers' message handlers.
    me: Weak<RefCell<State>>,
    paused: bool,
    /// A slice is asked for (a message on `tick` is on its way).
    scheduled: bool,
    /// The port whose messages run the slices (its partner calls [`run::slice`]).
    tick: Option<web_sys::MessagePort>,
    /// The last finished run's report and the platform each of its runs used.
    last: Option<Report>,
    last_platforms: Vec<Arc<Platform>>,
    last_header: SwfHeader,
    /// The options the last scenario ran with (Batsim's requested_time follows them).
    last_options: crate::engine::RunConfig,
    /// (file, CPUs per node, workload) of the last fit's synthetic draw, for its SWF export.
    synthetic: Option<(String, u32, Synthetic)>,
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post(msg: &FromWorker) {
    let text = serde_json::to_string(msg).unwrap_or_else(|e| {
        format!("{{\"ev\":\"failed\",\"message\":\"cannot encode a message: {e}\"}}")
    });
    let _ = scope().post_message(&JsValue::from_str(&text));
}

/// Posts a message with bytes riding along (transferred, not copied).
fn post_with_bytes(msg: &FromWorker, bytes: Vec<u8>) {
    let Ok(text) = serde_json::to_string(msg) else {
        return post(&FromWorker::Failed {
            message: "cannot encode a message".into(),
        });
    };
    let array = js_sys::Uint8Array::from(bytes.as_slice());
    let data = js_sys::Array::of2(&JsValue::from_str(&text), &array);
    let transfer = js_sys::Array::of1(&array.buffer());
    if scope()
        .post_message_with_transfer(&data, &transfer)
        .is_err()
    {
        post(&FromWorker::Failed {
            message: "cannot post a run's outcomes".into(),
        });
    }
}

fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// The scenario started at `t0` (ms) has every run in `run`, here or from the pool: its
/// report is kept for exports and Gantt charts, and the page gets `Done`.
fn finish_scenario(st: &mut State, run: ScenarioRun, t0: f64) {
    let (report, platforms) = run.finish();
    let report_json = serde_json::to_string_pretty(&report).unwrap_or_default();
    st.last = Some(report);
    st.last_platforms = platforms;
    post(&FromWorker::Done {
        report_json,
        elapsed_ms: now_ms() - t0,
    });
}

pub fn start() {
    let state = Rc::new(RefCell::new(State::default()));
    state.borrow_mut().me = Rc::downgrade(&state);
    // Slices run from a message channel's messages: a task each, after the page's messages
    // already waiting, with no timer clamping.
    if let Ok(channel) = web_sys::MessageChannel::new() {
        let st = state.clone();
        let on_tick = Closure::<dyn FnMut(MessageEvent)>::new(move |_: MessageEvent| {
            run::slice(&mut st.borrow_mut());
        });
        channel
            .port1()
            .set_onmessage(Some(on_tick.as_ref().unchecked_ref()));
        on_tick.forget();
        state.borrow_mut().tick = Some(channel.port2());
        std::mem::forget(channel);
    }
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let data = e.data();
        let (text, file) = if let Some(arr) = data.dyn_ref::<js_sys::Array>() {
            (
                arr.get(0).as_string(),
                arr.get(1).dyn_into::<web_sys::Blob>().ok(),
            )
        } else {
            (data.as_string(), None)
        };
        let Some(text) = text else { return };
        match serde_json::from_str::<ToWorker>(&text) {
            Ok(msg) => handle(&mut state.borrow_mut(), msg, file),
            Err(e) => post(&FromWorker::Failed {
                message: format!("bad message to the worker: {e}"),
            }),
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(&FromWorker::Ready);
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn read_blob(blob: &web_sys::Blob) -> Result<Vec<u8>, String> {
    let reader = web_sys::FileReaderSync::new().map_err(|e| format!("{e:?}"))?;
    let buf = reader
        .read_as_array_buffer(blob)
        .map_err(|e| format!("cannot read the file: {e:?}"))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// Imports a file leniently; a file with no job at all is an error.
pub fn import(name: &str, bytes: Vec<u8>) -> Result<(FileInfo, LoadedFileView), String> {
    let sha256 = hex(&Sha256::digest(&bytes));
    let info = FileInfo {
        name: name.to_string(),
        size: bytes.len() as u64,
        sha256,
    };
    // Any format Gridscope reads, told from the content (issue #29).
    let w = read_trace(
        name,
        &bytes,
        &SwfOptions::default(),
        &TraceOptions::default(),
    )
    .map_err(|e| e.to_string())?;
    if w.jobs.is_empty() {
        let mut msg = format!("{name}: no job could be read, so this is not a usable workload.\n");
        msg.push_str(&w.report.summary());
        return Err(msg);
    }
    Ok((info, LoadedFileView { bytes, workload: w }))
}

pub struct LoadedFileView {
    bytes: Vec<u8>,
    workload: Workload,
}

/// The step-by-step frames of one site of one run (`scenario::steps`).
fn steps(
    st: &mut State,
    scenario: &Scenario,
    algorithm: usize,
    site: usize,
    from_s: f64,
    max_steps: usize,
) {
    let frames = workload_for(st, scenario).and_then(|(w, _)| {
        crate::scenario::steps::trace_steps(scenario, w, algorithm, site, from_s, max_steps)
            .map_err(|e| e.to_string())
    });
    post(&match frames {
        Ok(frames) => FromWorker::Steps {
            algorithm,
            site,
            frames,
        },
        Err(message) => FromWorker::StepsFailed { message },
    });
}

/// Why one job of one run waited (`scenario::explain`).
fn explain(st: &mut State, scenario: &Scenario, algorithm: usize, job: i64) {
    let explained = workload_for(st, scenario).and_then(|(w, _)| {
        crate::scenario::explain::explain(scenario, w, algorithm, job).map_err(|e| match e {
            // A job id the workload does not have is not an invalid scenario (issue #38): its
            // message says which id, as the CLI's `explain` says it.
            crate::scenario::ScenarioError::Invalid(m) => m,
            other => other.to_string(),
        })
    });
    post(&match explained {
        Ok(explanation) => FromWorker::Explained { explanation },
        Err(message) => FromWorker::ExplainFailed { message },
    });
}

fn handle(st: &mut State, msg: ToWorker, file: Option<web_sys::Blob>) {
    match msg {
        ToWorker::Load { name } => {
            st.part_base = None;
            load(st, name, file)
        }
        ToWorker::Forget { name } => {
            st.part_base = None;
            st.files.remove(&name);
        }
        ToWorker::Fit {
            name,
            cpus_per_node,
            method,
        } => fit(st, name, cpus_per_node, method),
        ToWorker::SweepPart {
            spec,
            seeds,
            batches,
            worker,
            of,
        } => post(&sweep_part(&spec, seeds, batches, worker, of)),
        ToWorker::Family { request } => {
            families::run(&request, file.as_ref().map(read_blob).transpose())
        }
        ToWorker::Steps {
            scenario,
            algorithm,
            site,
            from_s,
            max_steps,
        } => steps(st, &scenario, algorithm, site, from_s, max_steps),
        ToWorker::Explain {
            scenario,
            algorithm,
            job,
        } => explain(st, &scenario, algorithm, job),
        ToWorker::Run { scenario, workers } => {
            if let Err(message) = run::start(st, &scenario, workers) {
                post(&FromWorker::Failed { message });
            }
        }
        ToWorker::RunBase { tag, base } => {
            // A pool worker: the coordinator's prepared run, its jobs attached.
            let jobs = file
                .ok_or_else(|| "the prepared run came without its jobs".to_string())
                .and_then(|f| read_blob(&f))
                .and_then(|bytes| pool::decode_jobs(&bytes));
            match jobs {
                Ok(jobs) => st.part_base = Some((tag, ScenarioRun::from_prepared(*base, jobs))),
                Err(message) => {
                    st.part_base = None;
                    post(&FromWorker::PartFailed {
                        tag,
                        index: 0,
                        message,
                    });
                }
            }
        }
        ToWorker::RunPart { tag, index } => {
            if let Err(message) = run::start_part(st, tag, index) {
                post(&FromWorker::PartFailed {
                    tag,
                    index,
                    message,
                });
            }
        }
        ToWorker::Pause => run::pause(st),
        ToWorker::Resume => run::resume(st),
        ToWorker::Cancel => run::cancel(st),
        ToWorker::Gantt {
            run,
            site,
            from_s,
            to_s,
        } => {
            if let Some(r) = &st.last {
                // The platform the run ran on (SES node groups are sites of their own).
                let platform = st.last_platforms.get(run).map_or(&r.platform, |p| &**p);
                if run < r.runs.len() && site < platform.sites.len() {
                    let g = gantt(r, platform, run, site, from_s, to_s);
                    post(&FromWorker::Gantt(Box::new(g)));
                }
            }
        }
        ToWorker::Compare { a, b } => match exports::compare_runs(st, a, b) {
            Ok(d) => post(&FromWorker::Compared(Box::new(d))),
            Err(message) => post(&FromWorker::Failed { message }),
        },
        ToWorker::Export { what, run } => match exports::export(st, what, run) {
            Some((filename, mime, text)) => post(&FromWorker::Export {
                filename,
                mime: mime.into(),
                text,
            }),
            // A restarted worker forgets the last draw.
            None if what == ExportKind::SyntheticSwf => post(&FromWorker::Failed {
                message:
                    "the synthetic workload is gone (the engine was restarted): fit the model again"
                        .into(),
            }),
            None => {}
        },
    }
}

/// Reads, hashes and imports a dropped file; the page gets its summary and report.
fn load(st: &mut State, name: String, file: Option<web_sys::Blob>) {
    let result = file
        .ok_or_else(|| "no file attached".to_string())
        .and_then(|f| read_blob(&f))
        .and_then(|bytes| import(&name, bytes));
    match result {
        Ok((info, v)) => {
            let report = Box::new(v.workload.report.clone());
            let summary = v.workload.report.summary();
            let jobs = v.workload.jobs.len() as u64;
            let header = v.workload.report.header.clone();
            // Sized as the CLI sizes a trace's one site (several dropped files: one each).
            let site = crate::scenario::resolve_platform(
                &crate::scenario::PlatformSpec::FromTrace { procs: None },
                &v.workload,
            )
            .ok()
            .and_then(|(p, _)| p.sites.into_iter().next());
            st.files.insert(
                name,
                LoadedFile {
                    bytes: v.bytes,
                    workload: v.workload,
                    header,
                },
            );
            post(&FromWorker::Loaded {
                file: info,
                jobs,
                summary,
                report,
                site,
            });
        }
        Err(error) => {
            st.files.remove(&name);
            post(&FromWorker::LoadFailed { name, error });
        }
    }
}

/// The SOB hyper-Erlang fit of a loaded file and the synthetic workload drawn from it.
fn fit(
    st: &mut State,
    name: String,
    cpus_per_node: u32,
    method: crate::workload::hyper_erlang::FitMethod,
) {
    let Some(f) = st.files.get(&name) else {
        return post(&FromWorker::FitFailed {
            error: format!("{name} is not loaded"),
            name,
        });
    };
    if cpus_per_node == 0 {
        return post(&FromWorker::FitFailed {
            name,
            error: "CPUs per node must be at least 1".into(),
        });
    }
    let classes =
        crate::workload::hyper_erlang::fit_classes_with(&f.workload.jobs, cpus_per_node, method);
    let (compare, synthetic) = fit_compare(&f.workload.jobs, &classes);
    let quality = crate::workload::fit_quality::fit_quality(&f.workload.jobs, &classes);
    st.synthetic = synthetic.map(|w| (name.clone(), cpus_per_node, w));
    post(&FromWorker::Fitted {
        name,
        cpus_per_node,
        classes,
        compare: Some(Box::new(compare)),
        quality: Some(quality),
        method,
    });
}

/// Loads the scenario's workload from the imported files (or its generator).
fn workload_for(st: &State, scenario: &Scenario) -> Result<(Workload, SwfHeader), String> {
    match &scenario.workload {
        WorkloadSpec::Swf {
            file,
            strict,
            format,
            utc_offset_min,
        } => {
            let f = st.files.get(file).ok_or_else(|| {
                format!("the workload file '{file}' has not been loaded: drop it on the page or pick it")
            })?;
            let mut w = if *strict || !format.is_auto() || *utc_offset_min != 0 {
                let trace = TraceOptions {
                    format: *format,
                    utc_offset_min: *utc_offset_min,
                };
                let opts = SwfOptions {
                    strict: *strict,
                    ..Default::default()
                };
                read_trace(file, &f.bytes, &opts, &trace).map_err(|e| e.to_string())?
            } else {
                f.workload.clone()
            };
            w.on_one_site();
            Ok((w, f.header.clone()))
        }
        // Generators and multi-site workloads: files by name from the loaded ones.
        _ => {
            let w = load_workload(scenario, &Default::default(), &mut |name| {
                st.files.get(name).map(|f| f.bytes.clone()).ok_or_else(|| {
                    format!("the workload file '{name}' has not been loaded: drop it on the page or pick it")
                })
            })
            .map_err(|e| e.to_string())?;
            Ok((w, SwfHeader::default()))
        }
    }
}
