//! The page's runs: one scenario at a time, simulated in slices of events ([`ScenarioRun`])
//! with the worker's event loop between them, so the page's pause, resume and cancel are
//! read at once and the worker lives on (its files and its last report stay). Progress is
//! posted after each slice; each algorithm's result as soon as it ends. A big scenario's
//! runs are spread over a pool of workers instead (`pool`), each of which runs its share
//! here, one run at a time ([`start_part`]).

use wasm_bindgen::prelude::*;

use super::pool::{self, encode_outcomes, pool_size};
use super::{
    finish_scenario, now_ms, post, post_with_bytes, workload_for, State, CDF_POINTS, SERIES_BUCKETS,
};
use crate::engine::Outcome;
use crate::model::{Job, Platform};
use crate::scenario::{RunReport, Scenario, ScenarioRun, Slice};
use crate::time::SimTime;
use crate::web::protocol::*;

/// What one slice aims at: short enough that the page's messages wait at most about this
/// long, long enough that the hops between slices cost little.
const SLICE_MS: f64 = 30.0;
/// Events of the first slice; later ones are sized from the time the last one took.
const FIRST_BUDGET: u64 = 4096;

/// The scenario being run.
pub(super) struct Active {
    run: ScenarioRun,
    /// When the scenario and the current algorithm started (ms).
    t0: f64,
    t_run: f64,
    /// Events per slice.
    budget: u64,
    /// A pool worker's share (tag, run): its answers go to the coordinating worker.
    part: Option<(u64, usize)>,
}

/// Prepares a run of `scenario` (replacing any run going on) and posts `Started`; the
/// slices follow from the event loop, here or, for a big scenario and `cores` > 1, in a
/// pool of workers.
pub(super) fn start(st: &mut State, scenario: &Scenario, cores: u32) -> Result<(), String> {
    st.active = None;
    pool::cancel(st);
    st.paused = false;
    st.last = None;
    st.last_platforms.clear();
    if scenario.algorithms.is_empty() {
        return Err("choose at least one algorithm to run".into());
    }
    let (workload, header) = workload_for(st, scenario)?;
    st.last_options = scenario.options;
    st.last_header = header;
    let run = ScenarioRun::new(scenario, workload).map_err(|e| e.to_string())?;
    post(&FromWorker::Started {
        platform: run.platform().clone(),
        platform_note: run.platform_note().to_string(),
        import_summary: run.import_summary(),
        jobs: run.jobs().len() as u64,
        algorithms: run.algorithms(),
        offered_load: crate::metrics::offered_load(run.platform(), run.jobs(), &scenario.options),
    });
    let size = pool_size(cores, &run);
    if size > 1 {
        return pool::start(st, run, scenario, size);
    }
    activate(st, run, None);
    Ok(())
}

/// Makes `run` the run going on (a pool worker's share when `part` says which) and asks
/// for its first slice.
fn activate(st: &mut State, run: ScenarioRun, part: Option<(u64, usize)>) {
    let now = now_ms();
    st.active = Some(Active {
        run,
        t0: now,
        t_run: now,
        budget: FIRST_BUDGET,
        part,
    });
    schedule(st);
}

/// A pool worker's share: run `index` of the pooled run `tag` alone, answered under `tag`.
pub(super) fn start_part(st: &mut State, tag: u64, index: usize) -> Result<(), String> {
    st.active = None;
    st.paused = false;
    // The runs of one pooled run share the run the coordinator prepared (`RunBase`, sent
    // before the first part); a pool worker has neither the files nor a reason to generate
    // the workload again, so a part without it is an error, not a second preparation.
    let base = match st.part_base.take() {
        Some((t, base)) if t == tag => base,
        _ => {
            return Err(format!(
                "a pool worker got a part of pooled run {tag} without its prepared run"
            ))
        }
    };
    let run = base.fresh().only(index).map_err(|e| e.to_string())?;
    st.part_base = Some((tag, base));
    activate(st, run, Some((tag, index)));
    Ok(())
}

/// Asks the event loop for the next slice (once), after the messages already waiting.
pub(super) fn schedule(st: &mut State) {
    if st.scheduled || st.paused || st.active.is_none() {
        return;
    }
    if let Some(port) = &st.tick {
        st.scheduled = port.post_message(&JsValue::NULL).is_ok();
    }
}

pub(super) fn pause(st: &mut State) {
    pool::pause(st);
    if let Some(a) = &st.active {
        st.paused = true;
        let (run, done, total) = a.run.progress();
        post(&FromWorker::Paused { run, done, total });
    }
}

pub(super) fn resume(st: &mut State) {
    pool::resume(st);
    if st.active.is_some() && st.paused {
        st.paused = false;
        post(&FromWorker::Resumed);
        schedule(st);
    }
}

/// Drops the run going on (if any) and says so; the page ignores the run's messages until
/// this answer.
pub(super) fn cancel(st: &mut State) {
    // A pool worker's prepared run (48 bytes a job) goes too: a later pooled run sends its own.
    st.part_base = None;
    let pooled = pool::cancel(st);
    let runs = st.active.take().map_or(pooled, |a| a.run.finished());
    st.paused = false;
    post(&FromWorker::Cancelled { runs });
}

/// One slice of the run going on, then the next one asked for.
pub(super) fn slice(st: &mut State) {
    st.scheduled = false;
    if st.paused {
        return;
    }
    let Some(a) = st.active.as_mut() else {
        return;
    };
    let t = now_ms();
    match (a.run.slice(a.budget), a.part) {
        (Err(e), part) => {
            st.active = None;
            let message = e.to_string();
            post(&match part {
                Some((tag, index)) => FromWorker::PartFailed {
                    tag,
                    index,
                    message,
                },
                None => FromWorker::Failed { message },
            });
            return;
        }
        (Ok(Slice::Running), part) => {
            a.budget = next_budget(a.budget, now_ms() - t);
            let (run, done, total) = a.run.progress();
            post(&match part {
                Some((tag, index)) => FromWorker::PartProgress {
                    tag,
                    index,
                    done,
                    total,
                },
                None => FromWorker::Progress {
                    run,
                    done,
                    total,
                    in_flight: 1,
                },
            });
        }
        (Ok(Slice::RunDone(_)), Some((tag, index))) => {
            let elapsed_ms = now_ms() - a.t_run;
            // The wait CDF and the series are computed here, in parallel with the other
            // pool workers, not one run after another in the coordinator.
            let carbon = a.run.prepared_scenario().carbon().ok().flatten();
            let result = a.run.last_run().map(|(rr, platform, jobs)| {
                with_carbon(run_result(index, rr, platform, jobs, elapsed_ms), carbon)
            });
            if let (Some(result), Some(mut report)) = (result, a.run.take_last_run()) {
                let bytes = encode_outcomes(&std::mem::take(&mut report.outcomes));
                let msg = FromWorker::PartDone {
                    tag,
                    index,
                    result: Box::new(result),
                };
                post_with_bytes(&msg, bytes);
            }
            st.active = None;
            return;
        }
        (Ok(Slice::RunDone(i)), None) => {
            let elapsed = now_ms() - std::mem::replace(&mut a.t_run, now_ms());
            let carbon = a.run.prepared_scenario().carbon().ok().flatten();
            a.run.add_vs_log();
            if let Some((rr, platform, jobs)) = a.run.last_run() {
                let result = with_carbon(run_result(i, rr, platform, jobs, elapsed), carbon);
                post(&FromWorker::RunResult(Box::new(result)));
            }
        }
        (Ok(Slice::AllDone), _) => return finish(st),
    }
    schedule(st);
}

/// Every algorithm has run: the report (kept for exports and Gantt charts) and `Done`.
fn finish(st: &mut State) {
    let Some(a) = st.active.take() else { return };
    finish_scenario(st, a.run, a.t0);
}

/// The next slice's budget, scaled so it takes about [`SLICE_MS`].
fn next_budget(budget: u64, took_ms: f64) -> u64 {
    let scale = (SLICE_MS / took_ms.max(1.0)).clamp(0.25, 4.0);
    ((budget as f64 * scale) as u64).clamp(256, 1 << 24)
}

/// `result` with the grid's carbon intensity over its buckets, under a scenario that has
/// one (issue #40): the curve drawn under the run's power.
fn with_carbon(
    mut result: RunResult,
    carbon: Option<crate::scenario::carbon::CarbonSource>,
) -> RunResult {
    let (Some(carbon), true) = (carbon, result.report.energy.is_some()) else {
        return result;
    };
    let s = &mut result.series;
    let buckets = s.sites.first().map_or(0, |x| x.utilization.len());
    let until = SimTime::from_secs_f64(s.bucket_s * buckets as f64);
    let steps: Vec<(SimTime, f64)> = carbon
        .series(until)
        .pieces
        .iter()
        .map(|p| (p.start, p.g_per_kwh))
        .collect();
    s.carbon_g_per_kwh = crate::metrics::bucket_means(&steps, s.bucket_s * 1000.0, buckets);
    result
}

/// What the page gets of run `idx` (`rr`, on `platform`): its report without the per-job
/// outcomes (they stay here, for exports and the Gantt chart), its wait CDF and its series.
pub fn run_result(
    idx: usize,
    rr: &mut RunReport,
    platform: &Platform,
    jobs: &[Job],
    elapsed_ms: f64,
) -> RunResult {
    let outcomes = std::mem::take(&mut rr.outcomes);
    let result = RunResult {
        idx,
        report: rr.clone(),
        wait_cdf: wait_cdf(jobs, &outcomes),
        series: series(rr, platform, jobs, &outcomes, SERIES_BUCKETS),
        elapsed_ms,
    };
    rr.outcomes = outcomes;
    result
}

fn wait_cdf(jobs: &[Job], outcomes: &[Outcome]) -> Vec<(f64, f64)> {
    // Sorted as integer milliseconds (seconds are a monotone map of them, so the order and
    // every point are the same as sorting the seconds, at a fraction of the cost).
    let mut waits: Vec<i64> = jobs
        .iter()
        .zip(outcomes)
        .filter(|(_, o)| o.ran())
        .map(|(j, o)| (o.start - j.submit).0)
        .collect();
    if waits.is_empty() {
        return vec![];
    }
    waits.sort_unstable();
    let secs = |ms: i64| SimTime(ms).as_secs_f64();
    let n = waits.len();
    let step = (n / CDF_POINTS).max(1);
    let mut out: Vec<(f64, f64)> = (0..n)
        .step_by(step)
        .map(|i| (secs(waits[i]), (i + 1) as f64 / n as f64))
        .collect();
    out.push((secs(waits[n - 1]), 1.0));
    out
}

/// Per-site utilization and queue length, time-averaged over equal buckets of
/// `[0, last end]` (`metrics::series`), in the protocol's shape.
pub fn series(
    rr: &RunReport,
    platform: &crate::model::Platform,
    jobs: &[crate::model::Job],
    outcomes: &[Outcome],
    buckets: usize,
) -> SeriesData {
    let downtimes = rr.failure_log.as_ref().map_or(&[][..], |l| &l.downtimes);
    let mut s = crate::metrics::series_with_downtimes(
        platform,
        jobs,
        outcomes,
        &rr.placements,
        buckets,
        downtimes,
    );
    crate::metrics::resources::add_resource_series(platform, outcomes, &rr.placements, &mut s);
    let mut sites: Vec<SiteSeriesData> = s
        .sites
        .into_iter()
        .map(|x| SiteSeriesData {
            name: x.name,
            utilization: x.utilization,
            queue_length: x.queue_length,
            nodes_up: x.nodes_up,
            memory: x.memory,
            gpus: x.gpus,
            cores_stranded: x.cores_stranded,
            memory_stranded: x.memory_stranded,
            gpus_stranded: x.gpus_stranded,
            power_w: Vec::new(),
            node_states: Vec::new(),
        })
        .collect();
    // Power and node states on powered sites (issue #40). The energy report was computed
    // from the same timelines, so they cannot fail here; if they did, the charts are left
    // out rather than the run.
    if rr.energy.is_some() {
        let width = s.bucket_s * 1000.0;
        let over = crate::scenario::energy::sites_over_time(
            platform,
            outcomes,
            &rr.placements,
            rr.power_log.as_ref(),
        );
        for o in over.into_iter().flatten() {
            let Some(site) = sites.get_mut(o.site) else {
                continue;
            };
            site.power_w = crate::metrics::bucket_means(&o.power, width, buckets);
            let mut states = vec![[0.0; 4]; buckets.max(1)];
            for k in 0..4 {
                let steps: Vec<_> = o
                    .states
                    .iter()
                    .map(|(t, c)| (*t, f64::from(c[k])))
                    .collect();
                for (b, v) in crate::metrics::bucket_means(&steps, width, buckets)
                    .into_iter()
                    .enumerate()
                {
                    states[b][k] = v;
                }
            }
            site.node_states = states;
        }
    }
    SeriesData {
        bucket_s: s.bucket_s,
        sites,
        carbon_g_per_kwh: Vec::new(),
    }
}
