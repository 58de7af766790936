//! What the worker hands out besides runs: exports (per-job CSV, SWF), the Gantt layout of
//! one site, the hyper-Erlang fit's comparison and SF sweeps.

use std::collections::HashMap;

use super::{now_ms, post, State, FIT_CDF_POINTS, GANTT_MAX_RECTS};
use crate::model::Platform;
use crate::scenario::{jobs_csv, Report};
use crate::web::protocol::*;
use crate::workload::hyper_erlang::{synthesize, Synthetic, SYNTHETIC_SEED};
use crate::workload::{write_swf, SwfHeader};

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
pub(super) fn export(
    st: &State,
    what: ExportKind,
    run: usize,
) -> Option<(String, &'static str, String)> {
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

/// Packs one site's jobs onto allocation units (first fit over free intervals, lowest units
/// first) and returns the rectangles inside the window. The engine only counts units; this
/// placement is for drawing. `platform` is the one run `run` ran on.
pub fn gantt(
    r: &Report,
    platform: &Platform,
    run: usize,
    site: usize,
    from_s: f64,
    to_s: f64,
) -> GanttData {
    let s = &platform.sites[site];
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
