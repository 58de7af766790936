//! A finished run's report ([`run_report`]): its metrics, every record of the import
//! accounted for, its energy and its resources.

use super::{AlgorithmSpec, RunReport, ScenarioError};
use crate::engine::{InvariantViolation, JobOutcome, RunConfig, RunOutput, SimError};
use crate::metrics::compute_placed;
use crate::model::{Job, Platform};
use crate::workload::ImportReport;

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
    run_report_on(alg, platform, jobs, cfg, import, out, 1)
}

/// [`run_report`] with up to `threads` threads: with more than one, the energy and
/// resource accounts run side by side (the same report).
pub fn run_report_on(
    alg: &AlgorithmSpec,
    platform: &Platform,
    jobs: &[Job],
    cfg: &RunConfig,
    import: &ImportReport,
    out: RunOutput,
    threads: usize,
) -> Result<RunReport, ScenarioError> {
    let metrics = compute_placed(
        platform,
        jobs,
        &out.outcomes,
        &out.placements,
        cfg,
        import.skipped_total,
        out.ideal_capacity,
    );
    let failures = out
        .failures
        .as_ref()
        .map(|log| super::failures::run_failures(platform, jobs, &out.outcomes, log));
    let lost = failures.as_ref().map_or(0, |f| f.jobs_lost);
    let accounted = metrics.jobs_finished + metrics.jobs_rejected + metrics.jobs_skipped + lost;
    if accounted != import.records {
        return Err(ScenarioError::Sim(SimError::Invariant(InvariantViolation(format!(
            "{accounted} jobs accounted for (finished + rejected + skipped + lost to failures) but the workload has {} records",
            import.records
        )))));
    }
    let rejected = jobs
        .iter()
        .zip(&out.outcomes)
        .filter_map(|(j, o)| match o.status {
            JobOutcome::Rejected(why) => {
                Some(format!("job {}: {}", j.id, why.describe(j.procs, j.home)))
            }
            _ => None,
        })
        .take(20)
        .collect();
    // Two independent accounts of the run: side by side when a second thread is there to
    // take one (a scenario of one run, natively), each the same either way.
    let first_submit = jobs.first().map(|j| j.submit).unwrap_or_default();
    let (energy, resources) = crate::par::join(
        threads,
        || super::energy::run_energy(platform, &out.outcomes, &out.placements, out.power.as_ref()),
        || {
            crate::metrics::resources::run_resources(
                platform,
                &out.outcomes,
                &out.placements,
                first_submit,
            )
        },
    );
    let energy = energy?;
    let resources =
        resources.map_err(|e| ScenarioError::Sim(SimError::Invariant(InvariantViolation(e))))?;
    Ok(RunReport {
        resources,
        energy,
        failures,
        label: alg.label(),
        algorithm: alg.algorithm(),
        metrics,
        rejected,
        events: out.events,
        max_queue: out.max_queue,
        series: None,
        outcomes: out.outcomes,
        placements: out.placements,
        failure_log: out.failures,
        power_log: out.power,
        vs_log: None,
        job_emissions_g: None,
    })
}
