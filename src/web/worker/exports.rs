//! What the worker hands out besides runs: exports (per-job CSV, SWF), the Gantt layout of
//! one site, the hyper-Erlang fit's comparison and SF sweeps.

use super::{now_ms, post, State, FIT_CDF_POINTS, GANTT_MAX_RECTS};
use crate::model::Platform;
use crate::scenario::{jobs_csv, Report};
use crate::time::SimTime;
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
        ExportKind::BatsimJobsCsv => {
            let r = st.last.as_ref()?;
            let rr = r.runs.get(run)?;
            let platform = st.last_platforms.get(run).map_or(&r.platform, |p| &**p);
            let text = crate::metrics::batsim::batsim_jobs_csv(
                platform,
                &r.workload.jobs,
                &rr.outcomes,
                &rr.placements,
                &st.last_options,
                &r.workload.name,
            )
            .ok()?;
            Some((format!("jobs.{}.batsim.csv", rr.label), "text/csv", text))
        }
        ExportKind::WorkloadBatsimJson => {
            let r = st.last.as_ref()?;
            Some((
                format!("{}.batsim.json", safe_base(&r.workload.name)),
                "application/json",
                crate::workload::write_batsim_json(&r.workload, st.last_header.max_procs),
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

/// Runs `a` and `b` of the last result compared job by job (issue #29): the per-job test
/// and tables, and the scatter's points.
pub(super) fn compare_runs(st: &State, a: usize, b: usize) -> Result<AbData, String> {
    use crate::metrics::compare::{compare, pair, waits_of};
    let r = st
        .last
        .as_ref()
        .ok_or("no result to compare: run a scenario first")?;
    let (ra, rb) = match (r.runs.get(a), r.runs.get(b)) {
        (Some(x), Some(y)) => (x, y),
        _ => return Err(format!("runs {a} and {b}: the result has {}", r.runs.len())),
    };
    let wa = waits_of(&ra.label, &r.workload.jobs, &ra.outcomes);
    let wb = waits_of(&rb.label, &r.workload.jobs, &rb.outcomes);
    let (pairs, ..) = pair(&wa, &wb);
    // Waits are paired in milliseconds; the page reads seconds.
    let secs = |&(id, x, y): &(i64, i64, i64)| (id, x as f64 / 1000.0, y as f64 / 1000.0);
    let step = pairs.len().div_ceil(AB_POINTS).max(1);
    let points = pairs.iter().step_by(step).map(secs).collect();
    let comparison = compare(&[(wa, wb)], 10, 1000, 1)?;
    let density = AbDensity::of(pairs.iter().map(secs).map(|(_, a, b)| (a, b)));
    // The listed gainers and losers, then the longest waits under either run (by id on
    // ties, so the marks do not depend on the sort's stability).
    let mut marked: Vec<(i64, f64, f64)> = comparison
        .top_gainers
        .iter()
        .chain(&comparison.top_losers)
        .map(|d| (d.job_id, d.wait_a_s, d.wait_b_s))
        .collect();
    let mut longest: Vec<&(i64, i64, i64)> = pairs.iter().collect();
    longest.sort_by_key(|&&(id, x, y)| (std::cmp::Reverse(x.max(y)), id));
    for p in longest.into_iter().take(AB_LONGEST).map(secs) {
        if !marked.contains(&p) {
            marked.push(p);
        }
    }
    Ok(AbData {
        a,
        b,
        comparison,
        points,
        density,
        marked,
    })
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

/// Runs this worker's share of an SF sweep (tasks `worker`, `worker + of`, …), posting
/// progress at most every 50 ms.
pub fn sweep_part(
    spec: &crate::allocation::sweep::SweepSpec,
    seeds: u64,
    batches: u64,
    worker: u64,
    of: u64,
) -> FromWorker {
    use crate::allocation::sweep::SweepPlan;
    let plan = match SweepPlan::new(spec, seeds, batches, &crate::limits::Limits::default()) {
        Ok(plan) => plan,
        Err(message) => return FromWorker::SweepFailed { message },
    };
    let mine: Vec<u64> = plan.share(worker, of).collect();
    let mut samples = Vec::with_capacity(mine.len());
    let mut last_post = 0.0;
    for (i, &k) in mine.iter().enumerate() {
        samples.push(plan.run_task(k));
        let t = now_ms();
        if t - last_post > 50.0 {
            last_post = t;
            post(&FromWorker::SweepProgress {
                done: i as u64 + 1,
                total: mine.len() as u64,
            });
        }
    }
    FromWorker::SweepPartDone { worker, samples }
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
    if let Some(g) =
        super::node_gantt::node_gantt(r, platform, (run, site), (from_s, to_s), GANTT_MAX_RECTS)
    {
        return g;
    }
    let s = &platform.sites[site];
    let cap = s.capacity_units();
    let outcomes = &r.runs[run].outcomes;
    let jobs: Vec<(usize, crate::model::packing::Interval)> = (0..outcomes.len())
        .filter(|&i| outcomes[i].ran() && outcomes[i].site as usize == site)
        .map(|i| {
            let o = &outcomes[i];
            let units = s.units_for(r.workload.jobs[i].procs);
            (i, (r.workload.jobs[i].id, o.start, o.end, units))
        })
        .collect();
    let intervals: Vec<_> = jobs.iter().map(|j| j.1).collect();
    let (placed, truncated) = crate::model::packing::pack_units(
        &intervals,
        cap,
        SimTime::from_secs_f64(from_s),
        SimTime::from_secs_f64(to_s),
        GANTT_MAX_RECTS,
    );
    let rects = placed
        .into_iter()
        .map(|(k, lo, n)| {
            let (id, st, en, _) = intervals[k];
            (id, st.as_secs_f64(), en.as_secs_f64(), lo, n)
        })
        .collect();
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
        killed: Vec::new(),
        down: Vec::new(),
        truncated,
    }
}
