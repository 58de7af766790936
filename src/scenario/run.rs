//! Running a whole scenario at once (the CLI, reproduce, Python's `run_scenario`): the
//! [`ScenarioRun`] runner driven to its end, its runs on all cores natively. The page's
//! worker drives the same runner a slice at a time, so both give the same bytes.

use super::runner::ScenarioRun;
use super::{load_workload, AlgorithmSpec, Report, RunReport, Scenario, ScenarioError};
use crate::engine::SimError;
use crate::limits::Limits;
use crate::policy::grid::GridScheme;
use crate::policy::local::LocalPolicyKind;
use crate::workload::Workload;

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
    workload: Workload,
    threads: usize,
    limits: &Limits,
    progress: &mut dyn FnMut(usize, u64, u64) -> bool,
) -> Result<Report, ScenarioError> {
    let run = ScenarioRun::with_limits(scenario, workload, limits)?;
    run_all(run, threads, progress)
}

/// [`run_loaded_on`] with nodes going down in every run as `outages` says (issue #41), in
/// place of the scenario's own `failures`.
pub fn run_loaded_with_outages(
    scenario: &Scenario,
    workload: Workload,
    threads: usize,
    limits: &Limits,
    outages: crate::failure::Outages,
    progress: &mut dyn FnMut(usize, u64, u64) -> bool,
) -> Result<Report, ScenarioError> {
    let run = ScenarioRun::with_limits(scenario, workload, limits)?.with_outages(outages);
    run_all(run, threads, progress)
}

/// [`run_loaded_with_outages`] under the grid's carbon intensity `carbon` (the runs with a
/// carbon-aware delay read it; issue #40).
pub fn run_loaded_with_carbon(
    scenario: &Scenario,
    workload: Workload,
    threads: usize,
    limits: &Limits,
    outages: crate::failure::Outages,
    carbon: crate::energy::CarbonSeries,
    progress: &mut dyn FnMut(usize, u64, u64) -> bool,
) -> Result<Report, ScenarioError> {
    let run = ScenarioRun::with_limits(scenario, workload, limits)?
        .with_outages(outages)
        .with_carbon(carbon);
    run_all(run, threads, progress)
}

/// Every run of `run`, on up to `threads` threads; the report.
fn run_all(
    mut run: ScenarioRun,
    threads: usize,
    progress: &mut dyn FnMut(usize, u64, u64) -> bool,
) -> Result<Report, ScenarioError> {
    if threads > 1 && run.algorithms() > 1 {
        for (i, report) in run_on_threads(&run, threads, progress)?
            .into_iter()
            .enumerate()
        {
            run.adopt(i, report?)?;
        }
    } else {
        run = run.with_analysis_threads(threads);
        run.run_to_end(progress)?;
    }
    Ok(run.finish().0)
}

/// Every run of `run` (none done yet) on up to `threads` threads, costly ones first
/// ([`hand_out_order`]); the results in scenario order. A cancel stops them all.
fn run_on_threads(
    run: &ScenarioRun,
    threads: usize,
    progress: &mut dyn FnMut(usize, u64, u64) -> bool,
) -> Result<Vec<Result<RunReport, ScenarioError>>, ScenarioError> {
    let base = run.prepared_scenario();
    let order = hand_out_order(&run.scenario().algorithms);
    crate::par::map_in_order_by(&order, threads, &|i, p| base.run_one(i, p), progress)
        .ok_or(ScenarioError::Sim(SimError::Cancelled))
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
