//! A scenario's workload, loaded: trace files through the caller's loader (a path for the
//! CLI, a dropped file for the page), or drawn from a generator, held to the limits before
//! anything large is allocated.

use super::{Scenario, ScenarioError, WorkloadSpec};
use crate::limits::{Limit, LimitExceeded, Limits};
use crate::workload::hyper_erlang::HyperErlangWorkload;
use crate::workload::{
    merge_sites, read_trace, split_by_partition, Align, SwfOptions, TraceOptions, Workload,
};

/// A hyper-Erlang workload's expected draws (jobs × Erlang orders) against the limit:
/// an order-1000 model drawing 5 M jobs ran 80 s unasked. Parameters that do not resolve
/// pass here; generating reports them.
pub(super) fn check_draws(
    sites: &[HyperErlangWorkload],
    limits: &Limits,
) -> Result<(), LimitExceeded> {
    let draws: f64 = sites
        .iter()
        .map(|g| g.expected_draws().unwrap_or(0.0))
        .sum();
    if draws.is_nan() || draws > limits.generator_draws as f64 {
        return Err(LimitExceeded {
            limit: Limit::GeneratorDraws,
            max: limits.generator_draws,
            context: format!("the hyper-Erlang workload (about {draws:.2e} draws expected)"),
        });
    }
    Ok(())
}

/// Loads the workload the scenario names. `load(file)` returns a file's bytes. Files are
/// read within `limits`; a generated workload is held to the same job limit.
pub fn load_workload(
    scenario: &Scenario,
    limits: &Limits,
    load: &mut dyn FnMut(&str) -> Result<Vec<u8>, String>,
) -> Result<Workload, ScenarioError> {
    let w = load_unchecked(scenario, limits, load)?;
    limits
        .check(
            Limit::Jobs,
            w.jobs.len() as u64,
            &format!("workload '{}'", w.name),
        )
        .map_err(ScenarioError::Limit)?;
    Ok(w)
}

fn load_unchecked(
    scenario: &Scenario,
    limits: &Limits,
    load: &mut dyn FnMut(&str) -> Result<Vec<u8>, String>,
) -> Result<Workload, ScenarioError> {
    let read_as = |load: &mut dyn FnMut(&str) -> Result<Vec<u8>, String>,
                   file: &str,
                   strict: bool,
                   trace: &TraceOptions| {
        let bytes = load(file).map_err(|reason| ScenarioError::Load {
            file: file.to_string(),
            reason,
        })?;
        let opts = SwfOptions {
            strict,
            limits: *limits,
        };
        read_trace(file, &bytes, &opts, trace).map_err(ScenarioError::Swf)
    };
    let read = |load: &mut dyn FnMut(&str) -> Result<Vec<u8>, String>, file: &str, strict: bool| {
        read_as(load, file, strict, &TraceOptions::default())
    };
    match &scenario.workload {
        WorkloadSpec::Swf {
            file,
            strict,
            format,
            utc_offset_min,
        } => {
            let trace = TraceOptions {
                format: *format,
                utc_offset_min: *utc_offset_min,
            };
            let mut w = read_as(load, file, *strict, &trace)?;
            w.on_one_site();
            Ok(w)
        }
        WorkloadSpec::OriginSites {
            file,
            strict,
            format,
        } => {
            let trace = TraceOptions {
                format: *format,
                utc_offset_min: 0,
            };
            read_as(load, file, *strict, &trace)
        }
        WorkloadSpec::SesPoisson(g) => g
            .generate(scenario.seed)
            .map_err(|reason| ScenarioError::InvalidGenerator { reason }),
        WorkloadSpec::Lublin(g) => {
            // Checked before drawing: a link asking for a billion jobs is refused unallocated.
            limits
                .check(Limit::Jobs, g.jobs as u64, "the Lublin–Feitelson workload")
                .map_err(ScenarioError::Limit)?;
            g.generate(scenario.seed)
                .map_err(|reason| ScenarioError::InvalidGenerator { reason })
        }
        WorkloadSpec::SwfSites {
            files,
            align,
            window,
            strict,
        } => {
            let parts = files
                .iter()
                .map(|f| read(load, f, *strict))
                .collect::<Result<Vec<_>, _>>()?;
            merge_sites(parts, *align, *window).map_err(|reason| ScenarioError::Merge { reason })
        }
        WorkloadSpec::SwfPartitions { file, strict } => {
            let (w, _) = split_by_partition(read(load, file, *strict)?);
            Ok(w)
        }
        WorkloadSpec::HyperErlang { sites } => {
            // Checked before drawing: a link asking for thousands of sites of millions of
            // jobs is refused without allocating them.
            limits
                .check(
                    Limit::Sites,
                    sites.len() as u64,
                    "the hyper-Erlang workload",
                )
                .map_err(ScenarioError::Limit)?;
            let mut expected = 0f64;
            for g in sites {
                expected += g
                    .expected_jobs()
                    .map_err(|reason| ScenarioError::InvalidGenerator { reason })?;
            }
            if expected.is_nan() || expected > limits.jobs as f64 {
                return Err(ScenarioError::Limit(LimitExceeded {
                    limit: Limit::Jobs,
                    max: limits.jobs,
                    context: format!(
                        "the hyper-Erlang workload (about {expected:.0} jobs expected)"
                    ),
                }));
            }
            check_draws(sites, limits).map_err(ScenarioError::Limit)?;
            let parts = sites
                .iter()
                .enumerate()
                .map(|(i, g)| {
                    // Each site's own stream: the scenario seed and the site index.
                    let seed = scenario.seed.wrapping_mul(1_000_003).wrapping_add(i as u64);
                    g.generate(seed)
                        .map_err(|reason| ScenarioError::InvalidGenerator { reason })
                })
                .collect::<Result<Vec<_>, _>>()?;
            merge_sites(parts, Align::Zero, None).map_err(|reason| ScenarioError::Merge { reason })
        }
    }
}
