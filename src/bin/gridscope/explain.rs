//! `explain`: why one job of a trace waited under one policy — each instant between its
//! submission and its start and what held it back (`scenario::explain`); or, with `--at`
//! under the `slurm` policy, every queued job's priority and factors at an instant
//! (`scenario::sprio`, Slurm's `sprio -l`).

use gridscope::scenario::explain::explain as explain_job;
use gridscope::scenario::{prepare, PlatformSpec, ScenarioError};

use crate::cli::ExplainArgs;
use crate::io::{read_text, read_trace};
use crate::run::{trace_scenario, TraceOptions};
use crate::{output, CliError};

pub fn explain(a: &ExplainArgs) -> Result<(), CliError> {
    let limits = a.limits.limits();
    let mut scenario = trace_scenario(
        &a.trace,
        &[a.policy],
        TraceOptions {
            procs: a.procs,
            estimates: a.estimates,
            no_kill: a.no_kill,
            event_order: a.event_order,
            strict: a.strict,
            format: a.format.clone(),
        },
    );
    if let Some(file) = &a.platform {
        let text = read_text(file, &limits)?;
        let name = file.display().to_string();
        let mut p =
            gridscope::scenario::read_platform_file(&name, &text).map_err(CliError::Failed)?;
        if a.node_exclusive {
            crate::run::node_exclusive(&mut p, &name)?;
        }
        scenario.platform = PlatformSpec::Sites {
            name: p.name,
            sites: p.sites,
        };
        scenario = scenario.upgrade();
    }
    if let Some(rule) = a.placement {
        scenario.algorithms[0].placement = rule;
    }
    let trace = crate::run::TraceRef {
        path: &a.trace,
        strict: a.strict,
        format: &a.format,
    };
    if let Some((config, _)) = crate::run::slurm_config(&a.slurm, &[a.policy], &limits, trace)? {
        scenario.algorithms[0].slurm = Some(config);
    }
    let mut workload = read_trace(&a.trace, a.strict, &limits, &a.format)?;
    // The same checks and platform as `simulate` (jobs wider than the machine rejected).
    prepare(&scenario, &mut workload, &limits)?;
    let failed = |e| match e {
        // The job's absence is said without "invalid scenario:".
        ScenarioError::Invalid(m) => CliError::Failed(m),
        other => CliError::Scenario(other),
    };
    let Some(job) = a.job else {
        let at = a.at.unwrap_or(0.0);
        let p = gridscope::scenario::sprio::priorities_at(&scenario, workload, 0, at)
            .map_err(failed)?;
        return match a.json {
            true => output::stdout(&format!("{}\n", serde_json::to_string_pretty(&p)?)),
            false => output::stdout(&p.text()),
        };
    };
    let e = explain_job(&scenario, workload, 0, job).map_err(|e| match e {
        // The job's absence is said without "invalid scenario:".
        ScenarioError::Invalid(m) => CliError::Failed(m),
        other => CliError::Scenario(other),
    })?;
    if a.json {
        let json = serde_json::to_string_pretty(&e)?;
        output::stdout(&format!("{json}\n"))
    } else {
        output::stdout(&e.text())
    }
}
