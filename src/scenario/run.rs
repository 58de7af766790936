//! Running a scenario: the checks, each algorithm's run (on all cores natively), its report.
//! The web worker's sliced runner calls the same pieces ([`prepare`], [`check_algorithm`],
//! [`run_report`], [`conventions`]), so both give the same bytes.

use super::{group_platform, load_workload, resolve_platform};
use super::{AlgorithmSpec, Conventions, Report, RunReport, Scenario, ScenarioError};
use crate::engine::{
    EstimateSource, EventOrder, InvariantViolation, JobOutcome, RejectReason, RunConfig, RunOutput,
    SimError, Simulation,
};
use crate::limits::{Limit, Limits};
use crate::metrics::compute;
use crate::model::{Job, Platform};
use crate::policy::grid::GridScheme;
use crate::policy::local::LocalPolicyKind;
use crate::workload::{ImportReport, Workload};

/// The checks a scenario and its workload get before any run, and the platform it runs on
/// (with how it was chosen). A single-site platform takes every job (their homes become 0,
/// in place).
pub fn prepare(
    scenario: &Scenario,
    workload: &mut Workload,
    limits: &Limits,
) -> Result<(Platform, String), ScenarioError> {
    if scenario.algorithms.is_empty() {
        return Err(ScenarioError::NoAlgorithms);
    }
    if workload.jobs.is_empty() {
        return Err(ScenarioError::EmptyWorkload {
            name: workload.name.clone(),
            summary: workload.report.summary().trim_end().to_string(),
        });
    }
    let (platform, platform_note) = resolve_platform(&scenario.platform, workload)?;
    limits
        .check(
            Limit::Sites,
            platform.sites.len() as u64,
            &format!("platform '{}'", platform.name),
        )
        .map_err(ScenarioError::Limit)?;
    let homes = workload.jobs.iter().map(|j| j.home).max().unwrap_or(0) as usize + 1;
    if platform.sites.len() == 1 {
        // A single-site platform takes every job (in place: no copy of the job list).
        for j in &mut workload.jobs {
            j.home = 0;
        }
    } else if homes > platform.sites.len() {
        return Err(ScenarioError::TooFewSites {
            workload_sites: homes,
            platform: platform.name.clone(),
            platform_sites: platform.sites.len(),
        });
    }
    Ok((platform, platform_note))
}

/// An algorithm's own parameters, checked before its run.
pub fn check_algorithm(alg: &AlgorithmSpec) -> Result<(), ScenarioError> {
    alg.grid_params
        .validate()
        .map_err(|reason| ScenarioError::InvalidGridParams {
            label: alg.label(),
            reason,
        })
}

/// A finished run's report: its metrics, the accounting of every record of the import and
/// the first rejected jobs with their reasons. `platform` is the one the run ran on.
pub fn run_report(
    alg: &AlgorithmSpec,
    platform: &Platform,
    jobs: &[Job],
    cfg: &RunConfig,
    import: &ImportReport,
    out: RunOutput,
) -> Result<RunReport, ScenarioError> {
    let metrics = compute(
        platform,
        jobs,
        &out.outcomes,
        cfg,
        import.skipped_total,
        out.ideal_capacity,
    );
    let accounted = metrics.jobs_finished + metrics.jobs_rejected + metrics.jobs_skipped;
    if accounted != import.records {
        return Err(ScenarioError::Sim(SimError::Invariant(InvariantViolation(format!(
            "{accounted} jobs accounted for (finished + rejected + skipped) but the workload has {} records",
            import.records
        )))));
    }
    let rejected = jobs
        .iter()
        .zip(&out.outcomes)
        .filter_map(|(j, o)| match o.status {
            JobOutcome::Rejected(RejectReason::TooWide { needs, capacity }) => Some(format!(
                "job {}: needs {needs} units ({} processors), its site has {capacity}",
                j.id, j.procs
            )),
            JobOutcome::Rejected(RejectReason::NoSuchSite) => {
                Some(format!("job {}: home site {} does not exist", j.id, j.home))
            }
            _ => None,
        })
        .take(20)
        .collect();
    Ok(RunReport {
        label: alg.label(),
        algorithm: alg.algorithm(),
        metrics,
        rejected,
        events: out.events,
        max_queue: out.max_queue,
        series: None,
        outcomes: out.outcomes,
    })
}

/// The conventions every report states.
pub fn conventions(cfg: &RunConfig) -> Conventions {
    Conventions {
        estimates: match cfg.estimates {
            EstimateSource::Trace => "trace (SWF field 9; runtime when missing)",
            EstimateSource::Exact => "exact (the real runtime)",
        },
        kill_at_estimate: cfg.kill_at_estimate,
        time_unit: "seconds from the workload's first submit",
        same_instant_order: match cfg.event_order {
            EventOrder::Gridscope => {
                "completions, then arrivals in input order, then one scheduling pass per site"
            }
            EventOrder::Pyss => {
                "pyss: jobs ending at their estimate freed, then each arrival and each other event with a scheduling pass after it"
            }
            EventOrder::Cqsim => {
                "cqsim: each completion, then each arrival, with a scheduling pass after each"
            }
        },
    }
}

/// What every run of a scenario shares (read-only, so runs may go on separate threads).
pub(super) struct RunInputs<'a> {
    pub(super) scenario: &'a Scenario,
    platform: &'a Platform,
    jobs: &'a [Job],
    cfg: RunConfig,
    import: &'a ImportReport,
    /// Bounds a conservative run's plan work ([`Limits::plan_work`]).
    work_limit: u64,
}

/// Runs every algorithm of the scenario on an already loaded workload, one after another,
/// checking the invariants after each run. `progress(run, done, total)` may return false to
/// cancel.
pub fn run_loaded(
    scenario: &Scenario,
    workload: Workload,
    progress: &mut dyn FnMut(usize, u64, u64) -> bool,
) -> Result<Report, ScenarioError> {
    run_loaded_on(scenario, workload, 1, &Limits::default(), progress)
}

/// [`run_loaded`] with up to `threads` runs at once (natively; one at a time in wasm). The
/// report is the same, byte for byte, whatever `threads` is: runs are independent and land
/// in scenario order; the first failing run (in scenario order) gives the error.
pub fn run_loaded_on(
    scenario: &Scenario,
    mut workload: Workload,
    threads: usize,
    limits: &Limits,
    progress: &mut dyn FnMut(usize, u64, u64) -> bool,
) -> Result<Report, ScenarioError> {
    let (platform, platform_note) = prepare(scenario, &mut workload, limits)?;
    let cfg = scenario.options;
    let inputs = RunInputs {
        scenario,
        platform: &platform,
        jobs: &workload.jobs,
        cfg,
        import: &workload.report,
        work_limit: limits.plan_work,
    };
    let runs = run_all(&inputs, threads, progress)?;
    Ok(Report {
        scenario: scenario.name.clone(),
        offered_load: crate::metrics::offered_load(&platform, &workload.jobs, &cfg),
        platform,
        platform_note,
        conventions: conventions(&cfg),
        runs,
        import: workload.report.clone(),
        workload,
    })
}

/// The order independent runs are handed out to threads (natively) or pool workers (in the
/// page): the costly ones first — conservative backfilling (7–20× the other local policies
/// on the shared traces), then the grid schemes that ask every site for an approximate wait
/// on each arrival (sender, symmetric, central: 30–40× the local scheme on
/// `sob-synthetic-heavy`) — each group in run order, so that a long run does not start
/// last while the other workers sit idle. Results are still collected in run order.
pub fn hand_out_order(algorithms: &[AlgorithmSpec]) -> Vec<usize> {
    let cost_rank = |a: &AlgorithmSpec| {
        let asks_every_site = matches!(
            a.grid,
            GridScheme::Sender | GridScheme::Symmetric | GridScheme::Central
        );
        let conservative = matches!(
            a.local,
            LocalPolicyKind::Conservative | LocalPolicyKind::ConservativeRebuild
        );
        match (conservative, asks_every_site) {
            (true, _) => 0,
            (false, true) => 1,
            (false, false) => 2,
        }
    };
    let mut order: Vec<usize> = (0..algorithms.len()).collect();
    order.sort_by_key(|&i| cost_rank(&algorithms[i]));
    order
}

/// Every run, in scenario order.
fn run_all(
    inputs: &RunInputs,
    threads: usize,
    progress: &mut dyn FnMut(usize, u64, u64) -> bool,
) -> Result<Vec<RunReport>, ScenarioError> {
    #[cfg(not(target_arch = "wasm32"))]
    if threads > 1 && inputs.scenario.algorithms.len() > 1 {
        return super::parallel::run_all(inputs, threads, progress);
    }
    let _ = threads;
    (0..inputs.scenario.algorithms.len())
        .map(|i| run_one(inputs, i, &mut |d, t| progress(i, d, t)))
        .collect()
}

/// Run `i` of the scenario: the simulation (its invariants checked by the engine), the
/// metrics and the accounting of every record.
pub(super) fn run_one(
    inputs: &RunInputs,
    i: usize,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<RunReport, ScenarioError> {
    let RunInputs {
        scenario,
        jobs,
        cfg,
        ..
    } = *inputs;
    let alg = &scenario.algorithms[i];
    check_algorithm(alg)?;
    // SES node-group selection runs on the site's groups, one engine site each.
    let expanded = if alg.grid.is_group_selection() {
        Some(group_platform(inputs.platform)?)
    } else {
        None
    };
    let platform = expanded.as_ref().unwrap_or(inputs.platform);
    let out = Simulation::new(platform, jobs, alg.local, alg.grid, &alg.grid_params, &cfg)
        .map(|sim| {
            sim.with_seed(scenario.seed)
                .with_work_limit(inputs.work_limit)
        })
        .and_then(|sim| sim.run(progress))
        // The engine checked the run's invariants before returning it.
        .map_err(ScenarioError::Sim)?;
    run_report(alg, platform, jobs, &cfg, inputs.import, out)
}

/// Loads and runs a scenario (within the default [`Limits`]).
pub fn run_scenario(
    scenario: &Scenario,
    load: &mut dyn FnMut(&str) -> Result<Vec<u8>, String>,
    progress: &mut dyn FnMut(usize, u64, u64) -> bool,
) -> Result<Report, ScenarioError> {
    let workload = load_workload(scenario, &Limits::default(), load)?;
    run_loaded(scenario, workload, progress)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costly_runs_are_handed_out_first_each_group_in_run_order() {
        use GridScheme::{Central, Ideal, Local, Receiver, Sender};
        use LocalPolicyKind::{Conservative, Easy, Fcfs};
        let algorithms = [
            AlgorithmSpec::grid(Local, Easy),
            AlgorithmSpec::grid(Sender, Easy),
            AlgorithmSpec::grid(Receiver, Easy),
            AlgorithmSpec::grid(Local, Conservative),
            AlgorithmSpec::grid(Ideal, Fcfs),
            AlgorithmSpec::grid(Central, Easy),
            AlgorithmSpec::grid(Sender, Conservative),
        ];
        assert_eq!(hand_out_order(&algorithms), [3, 6, 1, 5, 0, 2, 4]);
    }
}
