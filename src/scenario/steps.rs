//! The step-by-step view (the page's "Step through" panel): one site of one run, event by
//! event — what ended, arrived and started at each instant and *why* a job started (head of
//! the queue, or backfilled: ending by the head's shadow time, or on its extra units), with
//! the queue, the running jobs and the free-units profile after the step. Any workload: the
//! run is simulated silently up to the window's start, then at most `max_steps` frames are
//! kept, so the page can go back as well as forward.

use serde::{Deserialize, Serialize};

use super::{group_platform, resolve_platform, AlgorithmSpec, Scenario, ScenarioError};
use crate::engine::{SimError, Simulation};
use crate::model::{Job, JobIdx, Platform};
use crate::policy::local::HeadReservation;
use crate::time::SimTime;
use crate::workload::Workload;

/// One instant at the site.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepFrame {
    /// The instant, seconds from the first submit.
    pub time_s: f64,
    /// What happened at this site, in order ("job 7 ended", "job 9 started: …").
    pub events: Vec<String>,
    pub capacity: u32,
    pub free: u32,
    /// (job id, units, predicted end s), soonest predicted end first.
    pub running: Vec<(i64, u32, f64)>,
    /// (job id, units, estimate s) in the policy's order.
    pub queue: Vec<(i64, u32, f64)>,
    /// (from s, free units): the running jobs' profile by estimates.
    pub profile: Vec<(f64, u32)>,
    /// The head's reservation (job id, shadow time s, extra units), for EASY.
    pub head: Option<(i64, f64, u32)>,
    /// The jobs started at this instant at the site, in order.
    #[serde(default)]
    pub started: Vec<StartedJob>,
}

/// A job started at a frame's instant.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StartedJob {
    pub job: i64,
    pub units: u32,
    /// Started out of order around the head's reservation (EASY), not from the head.
    pub backfilled: bool,
}

/// The steps of run `alg` of `scenario` at `site`, up to `max_steps` instants at which
/// something happened there, from `from_s` seconds after the first submission on (the
/// run before it is simulated without frames: a window of a real trace).
pub fn trace_steps(
    scenario: &Scenario,
    mut workload: Workload,
    alg: usize,
    site: usize,
    from_s: f64,
    max_steps: usize,
) -> Result<Vec<StepFrame>, ScenarioError> {
    let spec = scenario
        .algorithms
        .get(alg)
        .ok_or_else(|| ScenarioError::Invalid(format!("no algorithm {alg}")))?;
    if !(from_s.is_finite() && from_s >= 0.0) {
        return Err(ScenarioError::Invalid(format!(
            "the window starts at {from_s} s: give a time from 0 s (the first submission) on"
        )));
    }
    let platform = stepping_platform(scenario, spec, &mut workload)?;
    if site >= platform.sites.len() {
        return Err(ScenarioError::Invalid(format!(
            "no site {site}: the platform has {}",
            platform.sites.len()
        )));
    }
    let origin = workload.jobs.first().map_or(0, |j| j.submit.0);
    let secs = |t: i64| (t - origin) as f64 / 1000.0;
    let jobs = &workload.jobs[..];
    let mut sim = stepping_run(scenario, spec, &platform, jobs, &workload.demands)?.record_passes();
    let mut frames = Vec::new();
    let from = origin.saturating_add((from_s * 1000.0).round() as i64);
    while frames.len() < max_steps && sim.step().map_err(ScenarioError::Sim)? {
        if sim.now().0 < from {
            continue;
        }
        let Some(snap) = sim.site_snapshot(site) else {
            return Err(ScenarioError::Sim(SimError::Cancelled));
        };
        let (events, started) = site_events(&sim, jobs, site as u32, &snap.running, &secs);
        if events.is_empty() {
            continue;
        }
        let id = |j: JobIdx| jobs[j as usize].id;
        frames.push(StepFrame {
            time_s: secs(sim.now().0),
            events,
            capacity: snap.capacity,
            free: snap.free,
            running: snap
                .running
                .iter()
                .map(|&(j, u, end)| (id(j), u, secs(end.0)))
                .collect(),
            queue: snap
                .queue
                .iter()
                .map(|q| (id(q.idx), q.units, q.estimate.0 as f64 / 1000.0))
                .collect(),
            profile: snap.profile.iter().map(|&(t, f)| (secs(t.0), f)).collect(),
            head: snap.head.map(|h| (id(h.job), secs(h.shadow.0), h.extra)),
            started,
        });
    }
    Ok(frames)
}

/// The platform a run steps on, as a run resolves it: one site takes every job, SES node
/// groups become sites (the step-by-step view and `explain`).
pub(super) fn stepping_platform(
    scenario: &Scenario,
    spec: &AlgorithmSpec,
    workload: &mut Workload,
) -> Result<Platform, ScenarioError> {
    let (mut platform, _) = resolve_platform(&scenario.platform, workload)?;
    if platform.sites.len() == 1 {
        workload.jobs.iter_mut().for_each(|j| j.home = 0);
    }
    if spec.grid.is_group_selection() {
        platform = group_platform(&platform)?;
    }
    Ok(platform)
}

/// The run's simulation, to be stepped, with the jobs' demands beyond processors (the
/// workload's: node-typed sites place by them, as the run does).
pub(super) fn stepping_run<'a>(
    scenario: &Scenario,
    spec: &AlgorithmSpec,
    platform: &'a Platform,
    jobs: &'a [Job],
    demands: &'a [crate::model::Demand],
) -> Result<Simulation<'a>, ScenarioError> {
    Ok(Simulation::new(
        platform,
        jobs,
        spec.local,
        spec.grid,
        &spec.grid_params,
        &scenario.options,
    )
    .and_then(|sim| sim.with_demands(demands))
    .map_err(ScenarioError::Sim)?
    .with_seed(scenario.seed))
}

/// The lines of what the last step did at `site`, and the jobs it started there.
fn site_events(
    sim: &Simulation,
    jobs: &[Job],
    site: u32,
    running: &[(JobIdx, u32, SimTime)],
    secs: &dyn Fn(i64) -> f64,
) -> (Vec<String>, Vec<StartedJob>) {
    // A job started now holds its units until, by its estimate, the running set predicts.
    let held = |j: JobIdx| running.iter().find(|r| r.0 == j);
    let log = sim.last_step();
    let outcomes = sim.outcomes();
    let on_site = |j: JobIdx| outcomes[j as usize].site == site;
    let mut lines = Vec::new();
    let mut started = Vec::new();
    for &j in log.completed.iter().filter(|&&j| on_site(j)) {
        lines.push(format!("job {} ended", jobs[j as usize].id));
    }
    for &j in log.arrived.iter().filter(|&&j| on_site(j)) {
        let job = &jobs[j as usize];
        lines.push(format!("job {} arrived ({} processors)", job.id, job.procs));
    }
    for pass in log.passes.iter().filter(|p| p.site == site) {
        let note = pass.note.unwrap_or_default();
        for (k, &j) in pass.started.iter().enumerate() {
            let end = held(j).map_or(f64::NAN, |r| secs(r.2 .0));
            let (why, backfilled) = match (pass.note, note.reservation) {
                (Some(_), _) if k < note.heads => {
                    ("head of the queue, fits now".to_string(), false)
                }
                (Some(_), Some(r)) => (backfill_reason(&r, end, secs), true),
                _ => ("fits now (this policy's rule)".to_string(), false),
            };
            lines.push(format!("job {} started: {why}", jobs[j as usize].id));
            let units = held(j).map_or(jobs[j as usize].procs, |r| r.1);
            started.push(StartedJob {
                job: jobs[j as usize].id,
                units,
                backfilled,
            });
        }
    }
    (lines, started)
}

fn backfill_reason(r: &HeadReservation, end_s: f64, secs: &dyn Fn(i64) -> f64) -> String {
    let shadow = secs(r.shadow.0);
    if end_s <= shadow {
        format!("backfilled — ends (by its estimate) at {end_s} s, by the head's shadow time {shadow} s")
    } else {
        format!(
            "backfilled — runs past the head's shadow time {shadow} s on the {} extra units the head leaves free",
            r.extra
        )
    }
}
