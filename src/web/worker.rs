//! The engine side: runs in a dedicated Web Worker, never on the page's thread. It keeps the
//! imported files and the last run, and answers the page's [`ToWorker`] messages.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use sha2::{Digest, Sha256};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use super::protocol::*;
use crate::engine::Outcome;
use crate::scenario::{
    jobs_csv, load_workload, run_loaded, AlgorithmSpec, Report, RunReport, Scenario, WorkloadSpec,
};
use crate::workload::hyper_erlang::{fit_classes, synthesize, Synthetic, SYNTHETIC_SEED};
use crate::workload::{read_swf, write_swf, SwfHeader, SwfOptions, Workload};

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
    /// The last run: one report whose `runs` grow as algorithms finish.
    last: Option<Report>,
    last_header: SwfHeader,
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

fn now_ms() -> f64 {
    js_sys::Date::now()
}

pub fn start() {
    let state = Rc::new(RefCell::new(State::default()));
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
    let w = read_swf(name, &bytes, &SwfOptions { strict: false }).map_err(|e| e.to_string())?;
    if w.jobs.is_empty() {
        let mut msg =
            format!("{name}: no job could be read, so this is not a usable SWF workload.\n");
        msg.push_str(&w.report.summary());
        return Err(msg);
    }
    Ok((info, LoadedFileView { bytes, workload: w }))
}

pub struct LoadedFileView {
    bytes: Vec<u8>,
    workload: Workload,
}

fn handle(st: &mut State, msg: ToWorker, file: Option<web_sys::Blob>) {
    match msg {
        ToWorker::Load { name } => {
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
                    });
                }
                Err(error) => {
                    st.files.remove(&name);
                    post(&FromWorker::LoadFailed { name, error });
                }
            }
        }
        ToWorker::Forget { name } => {
            st.files.remove(&name);
        }
        ToWorker::Fit {
            name,
            cpus_per_node,
        } => match st.files.get(&name) {
            Some(_) if cpus_per_node == 0 => post(&FromWorker::FitFailed {
                name,
                error: "CPUs per node must be at least 1".into(),
            }),
            Some(f) => {
                let classes = fit_classes(&f.workload.jobs, cpus_per_node);
                let (compare, synthetic) = fit_compare(&f.workload.jobs, &classes);
                st.synthetic = synthetic.map(|w| (name.clone(), cpus_per_node, w));
                post(&FromWorker::Fitted {
                    name,
                    cpus_per_node,
                    classes,
                    compare: Some(Box::new(compare)),
                });
            }
            None => post(&FromWorker::FitFailed {
                error: format!("{name} is not loaded"),
                name,
            }),
        },
        ToWorker::Sweep {
            spec,
            seeds,
            batches,
        } => match sweep(&spec, seeds, batches) {
            Ok(data) => post(&FromWorker::SweepDone(Box::new(data))),
            Err(message) => post(&FromWorker::SweepFailed { message }),
        },
        ToWorker::Family { request } => super::families::run(&request),
        ToWorker::Run { scenario } => {
            if let Err(message) = run(st, &scenario) {
                post(&FromWorker::Failed { message });
            }
        }
        ToWorker::Gantt {
            run,
            site,
            from_s,
            to_s,
        } => match &st.last {
            Some(r) if run < r.runs.len() && site < r.platform.sites.len() => {
                post(&FromWorker::Gantt(Box::new(gantt(
                    r, run, site, from_s, to_s,
                ))));
            }
            _ => {}
        },
        ToWorker::Export { what, run } => {
            match export(st, what, run) {
                Some((filename, mime, text)) => post(&FromWorker::Export {
                    filename,
                    mime: mime.into(),
                    text,
                }),
                // A cancelled run restarts the worker, which forgets the last draw.
                None if what == ExportKind::SyntheticSwf => post(&FromWorker::Failed {
                    message: "the synthetic workload is gone (the engine was restarted): fit the model again".into(),
                }),
                None => {}
            }
        }
    }
}

/// A file name's stem made safe to save: no directories, no `.swf` / `.gz`, only
/// `[A-Za-z0-9._-]`.
fn safe_base(name: &str) -> String {
    let base = name.rsplit('/').next().unwrap_or("workload");
    let base = base.trim_end_matches(".gz").trim_end_matches(".swf");
    base.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// (file name, MIME type, text) of an export, or `None` when there is nothing to export.
fn export(st: &State, what: ExportKind, run: usize) -> Option<(String, &'static str, String)> {
    match what {
        ExportKind::JobsCsv => {
            let r = st.last.as_ref()?;
            let rr = r.runs.get(run)?;
            Some((
                format!("jobs.{}.csv", rr.label),
                "text/csv",
                jobs_csv(r, rr),
            ))
        }
        ExportKind::WorkloadSwf => {
            let r = st.last.as_ref()?;
            Some((
                format!("{}.swf", safe_base(&r.workload.name)),
                "text/plain",
                write_swf(&r.workload, &st.last_header),
            ))
        }
        ExportKind::SyntheticSwf => {
            let (name, cpn, s) = st.synthetic.as_ref()?;
            // The CLI's `fit --out` writes the same text (default header).
            Some((
                format!("{}.fit-cpn{cpn}-seed{}.swf", safe_base(name), s.seed),
                "text/plain",
                write_swf(&s.workload, &SwfHeader::default()),
            ))
        }
    }
}

/// SOB §3.1 end to end: the fitted classes drawn over the trace's span with the CLI's seed
/// (`hyper_erlang::synthesize`), and both workloads as CDFs of inter-arrival time, run time
/// and processors. A failed draw still returns the trace's CDFs, with the reason.
pub fn fit_compare(
    jobs: &[crate::model::Job],
    classes: &[crate::workload::hyper_erlang::FittedClass],
) -> (FitCompare, Option<Synthetic>) {
    let original = crate::metrics::workload_cdfs(jobs, FIT_CDF_POINTS);
    match synthesize(jobs, classes, SYNTHETIC_SEED) {
        Ok(s) => (
            FitCompare {
                original,
                synthetic: crate::metrics::workload_cdfs(&s.workload.jobs, FIT_CDF_POINTS),
                seed: s.seed,
                horizon_s: s.horizon_s,
                error: None,
            },
            Some(s),
        ),
        Err(e) => (
            FitCompare {
                original,
                seed: SYNTHETIC_SEED,
                error: Some(format!(
                    "cannot draw a synthetic workload from the fit: {e}"
                )),
                ..Default::default()
            },
            None,
        ),
    }
}

/// Runs an SF sweep, posting progress at most every 50 ms.
pub fn sweep(
    spec: &crate::allocation::sweep::SweepSpec,
    seeds: u64,
    batches: u64,
) -> Result<SweepData, String> {
    let t0 = now_ms();
    let mut last_post = 0.0;
    let mut result =
        crate::allocation::sweep::run_sweep(spec, seeds, batches, &mut |done, total| {
            let t = now_ms();
            if t - last_post > 50.0 {
                last_post = t;
                post(&FromWorker::SweepProgress { done, total });
            }
            true
        })?;
    result.elapsed_ms = now_ms() - t0;
    Ok(result)
}

/// Loads the scenario's workload from the imported files (or its generator).
fn workload_for(st: &State, scenario: &Scenario) -> Result<(Workload, SwfHeader), String> {
    match &scenario.workload {
        WorkloadSpec::Swf { file, strict } => {
            let f = st.files.get(file).ok_or_else(|| {
                format!("the workload file '{file}' has not been loaded: drop it on the page or pick it")
            })?;
            if *strict {
                let w = read_swf(file, &f.bytes, &SwfOptions { strict: true })
                    .map_err(|e| e.to_string())?;
                Ok((w, f.header.clone()))
            } else {
                Ok((f.workload.clone(), f.header.clone()))
            }
        }
        // Generators and multi-site workloads: files by name from the loaded ones.
        _ => {
            let w = load_workload(scenario, &mut |name| {
                st.files.get(name).map(|f| f.bytes.clone()).ok_or_else(|| {
                    format!("the workload file '{name}' has not been loaded: drop it on the page or pick it")
                })
            })
            .map_err(|e| e.to_string())?;
            Ok((w, SwfHeader::default()))
        }
    }
}

/// Runs the algorithms one at a time and posts each result as it finishes.
fn run(st: &mut State, scenario: &Scenario) -> Result<(), String> {
    let t0 = now_ms();
    st.last = None;
    if scenario.algorithms.is_empty() {
        return Err("choose at least one algorithm to run".into());
    }
    let (workload, header) = workload_for(st, scenario)?;
    st.last_header = header;
    let n = scenario.algorithms.len();
    let mut combined: Option<Report> = None;
    for (i, alg) in scenario.algorithms.iter().enumerate() {
        let t_run = now_ms();
        let single = Scenario {
            algorithms: vec![AlgorithmSpec::clone(alg)],
            ..scenario.clone()
        };
        let w = match &combined {
            Some(c) => Workload {
                jobs: workload.jobs.clone(),
                ..c.workload.clone()
            },
            None => workload.clone(),
        };
        let mut last_post = 0.0;
        let mut report = run_loaded(&single, w, &mut |_, done, total| {
            let t = now_ms();
            if t - last_post > 50.0 {
                last_post = t;
                post(&FromWorker::Progress {
                    run: i,
                    done,
                    total,
                });
            }
            true
        })
        .map_err(|e| e.to_string())?;
        if combined.is_none() {
            post(&FromWorker::Started {
                platform: report.platform.clone(),
                platform_note: report.platform_note.clone(),
                import_summary: report.import.summary(),
                jobs: report.workload.jobs.len() as u64,
                algorithms: n,
            });
        }
        let mut rr = report.runs.pop().ok_or("the engine returned no run")?;
        let result = run_result(i, &mut rr, &report, now_ms() - t_run);
        match &mut combined {
            None => {
                report.runs.push(rr);
                combined = Some(report);
            }
            Some(c) => c.runs.push(rr),
        }
        post(&FromWorker::RunResult(Box::new(result)));
    }
    let report = combined.ok_or("no run")?;
    let report_json = serde_json::to_string_pretty(&report).unwrap_or_default();
    st.last = Some(report);
    post(&FromWorker::Done {
        report_json,
        elapsed_ms: now_ms() - t0,
    });
    Ok(())
}

/// What the page gets of run `idx` (`rr`, out of `report`): its report without the per-job
/// outcomes (they stay here, for exports and the Gantt chart), its wait CDF and its series.
pub fn run_result(idx: usize, rr: &mut RunReport, report: &Report, elapsed_ms: f64) -> RunResult {
    let outcomes = std::mem::take(&mut rr.outcomes);
    let result = RunResult {
        idx,
        report: rr.clone(),
        wait_cdf: wait_cdf(&report.workload, &outcomes),
        series: series(
            &report.platform,
            &report.workload.jobs,
            &outcomes,
            SERIES_BUCKETS,
        ),
        elapsed_ms,
    };
    rr.outcomes = outcomes;
    result
}

fn wait_cdf(w: &Workload, outcomes: &[Outcome]) -> Vec<(f64, f64)> {
    let mut waits: Vec<f64> = w
        .jobs
        .iter()
        .zip(outcomes)
        .filter(|(_, o)| o.ran())
        .map(|(j, o)| (o.start - j.submit).as_secs_f64())
        .collect();
    if waits.is_empty() {
        return vec![];
    }
    waits.sort_by(f64::total_cmp);
    let n = waits.len();
    let step = (n / CDF_POINTS).max(1);
    let mut out: Vec<(f64, f64)> = (0..n)
        .step_by(step)
        .map(|i| (waits[i], (i + 1) as f64 / n as f64))
        .collect();
    out.push((waits[n - 1], 1.0));
    out
}

/// Packs one site's jobs onto allocation units (first fit over free intervals, lowest units
/// first) and returns the rectangles inside the window. The engine only counts units; this
/// placement is for drawing.
pub fn gantt(r: &Report, run: usize, site: usize, from_s: f64, to_s: f64) -> GanttData {
    let s = &r.platform.sites[site];
    let cap = s.capacity_units();
    let outcomes = &r.runs[run].outcomes;
    let mut order: Vec<usize> = (0..outcomes.len())
        .filter(|&i| outcomes[i].ran() && outcomes[i].site as usize == site)
        .collect();
    order.sort_by_key(|&i| (outcomes[i].start, i));
    // Free intervals [lo, hi) sorted by lo; running jobs in a min-heap by end.
    let mut free: Vec<(u32, u32)> = vec![(0, cap)];
    let mut running: std::collections::BinaryHeap<std::cmp::Reverse<(i64, usize)>> =
        Default::default();
    let mut held: HashMap<usize, Vec<(u32, u32)>> = HashMap::new();
    let mut rects = Vec::new();
    let mut truncated = false;
    let release = |free: &mut Vec<(u32, u32)>, blocks: Vec<(u32, u32)>| {
        free.extend(blocks);
        free.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(free.len());
        for &(lo, hi) in free.iter() {
            match merged.last_mut() {
                Some(last) if last.1 == lo => last.1 = hi,
                _ => merged.push((lo, hi)),
            }
        }
        *free = merged;
    };
    for &i in &order {
        let o = &outcomes[i];
        while let Some(std::cmp::Reverse((end, j))) = running.peek().copied() {
            if end > o.start.0 {
                break;
            }
            running.pop();
            if let Some(b) = held.remove(&j) {
                release(&mut free, b);
            }
        }
        if o.start.as_secs_f64() > to_s {
            break;
        }
        let mut need = s.units_for(r.workload.jobs[i].procs).min(cap);
        let mut blocks = Vec::new();
        if let Some(k) = free.iter().position(|&(lo, hi)| hi - lo >= need) {
            let (lo, hi) = free[k];
            blocks.push((lo, lo + need));
            if hi - lo == need {
                free.remove(k);
            } else {
                free[k].0 = lo + need;
            }
        } else {
            while need > 0 && !free.is_empty() {
                let (lo, hi) = free[0];
                let take = need.min(hi - lo);
                blocks.push((lo, lo + take));
                need -= take;
                if take == hi - lo {
                    free.remove(0);
                } else {
                    free[0].0 = lo + take;
                }
            }
        }
        let (st, en) = (o.start.as_secs_f64(), o.end.as_secs_f64());
        if en >= from_s && st <= to_s {
            for &(lo, hi) in &blocks {
                if rects.len() >= GANTT_MAX_RECTS {
                    truncated = true;
                    break;
                }
                rects.push((r.workload.jobs[i].id, st, en, lo, hi - lo));
            }
        }
        running.push(std::cmp::Reverse((o.end.0, i)));
        held.insert(i, blocks);
    }
    GanttData {
        run,
        site,
        from_s,
        to_s,
        capacity: cap,
        unit: match s.allocation {
            crate::model::Allocation::Processor => "processors".into(),
            crate::model::Allocation::Node => "nodes".into(),
        },
        rects,
        truncated,
    }
}

/// Per-site utilization and queue length, time-averaged over equal buckets of
/// `[0, last end]` (`metrics::series`), in the protocol's shape.
pub fn series(
    platform: &crate::model::Platform,
    jobs: &[crate::model::Job],
    outcomes: &[Outcome],
    buckets: usize,
) -> SeriesData {
    let s = crate::metrics::series(platform, jobs, outcomes, buckets);
    SeriesData {
        bucket_s: s.bucket_s,
        sites: s
            .sites
            .into_iter()
            .map(|x| SiteSeriesData {
                name: x.name,
                utilization: x.utilization,
                queue_length: x.queue_length,
            })
            .collect(),
    }
}
