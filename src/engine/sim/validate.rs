//! The input checks every run starts with.

use crate::engine::SimError;
use crate::model::{Job, Platform};
use crate::policy::grid::{GridParams, GridScheme};

/// Refuses a workload whose schedule could overflow the millisecond clock: even run one
/// after another on the slowest site, every job must end within ±4·10¹⁸ ms. (The SWF reader
/// bounds each field; this bounds their sum, for any input.)
pub(super) fn check_horizon(platform: &Platform, jobs: &[Job]) -> Result<(), SimError> {
    let speeds = platform.sites.iter().map(|s| s.speed);
    let slowdown = speeds.clone().fold(0.0, f64::max) / speeds.fold(f64::INFINITY, f64::min);
    let first = jobs.first().map_or(0.0, |j| j.submit.0 as f64);
    let last = jobs.last().map_or(0.0, |j| j.submit.0 as f64);
    let work: f64 = jobs
        .iter()
        .map(|j| j.runtime.0.max(j.estimate.0).max(0) as f64)
        .sum();
    let horizon = last + work * slowdown.max(1.0) + 1e9;
    if !(horizon.abs() < 4.0e18 && first.abs() < 4.0e18) {
        return Err(SimError::ClockOverflow {
            last_submit_s: last / 1000.0,
            work_s: work / 1000.0,
        });
    }
    Ok(())
}

/// The input checks every run starts with.
pub(super) fn validate(
    platform: &Platform,
    jobs: &[Job],
    scheme: GridScheme,
    params: &GridParams,
) -> Result<(), SimError> {
    platform
        .validate()
        .map_err(|reason| SimError::InvalidPlatform { reason })?;
    check_horizon(platform, jobs)?;
    if scheme == GridScheme::Ideal {
        return Ok(());
    }
    params
        .validate()
        .map_err(|reason| SimError::InvalidGridParams { reason })?;
    if let Some(w) = jobs.windows(2).position(|w| w[1].submit < w[0].submit) {
        return Err(SimError::Unsorted {
            job: jobs[w + 1].id,
            after: jobs[w].id,
        });
    }
    if jobs.len() >= u32::MAX as usize {
        return Err(SimError::TooManyJobs { jobs: jobs.len() });
    }
    Ok(())
}

/// Node-typed sites (issue #37) run under policies that decide by placement (FCFS, EASY,
/// conservative, SJF, first-fit), and under every grid scheme but the idealized machine
/// (one malleable pool of processors) and SES's node-group selection (sites of groups):
/// anything else is refused here, by name, rather than run as if the nodes were not there.
pub(super) fn validate_nodes(
    platform: &Platform,
    sites: &[super::SiteState],
    scheme: GridScheme,
) -> Result<(), SimError> {
    let Some(site) = platform.sites.iter().find(|s| s.has_nodes()) else {
        return Ok(());
    };
    if scheme == GridScheme::Ideal || scheme.is_group_selection() {
        return Err(SimError::InvalidPlatform {
            reason: format!(
                "site '{}' lists node types; the grid scheme {} does not place jobs on nodes (the local scheme and SOB's sender, receiver, symmetric and central schemes do)",
                site.name,
                scheme.name()
            ),
        });
    }
    for (s, st) in platform.sites.iter().zip(sites) {
        if s.has_nodes() && !st.policy.places_on_nodes() {
            return Err(SimError::InvalidPlatform {
                reason: format!(
                    "site '{}' lists node types; the local policy {} does not place jobs on nodes yet (fcfs, easy, conservative, conservative-rebuild, sjf, firstfit and slurm do)",
                    s.name,
                    st.policy.name()
                ),
            });
        }
    }
    Ok(())
}

/// Checks a run's outages against its platform and conventions; the node count of each
/// site (0 for a site without node types).
pub(super) fn validate_outages(
    platform: &Platform,
    outages: &crate::failure::Outages,
    cfg: &crate::engine::RunConfig,
) -> Result<Vec<u32>, SimError> {
    let invalid = |reason: String| Err(SimError::InvalidPlatform { reason });
    let nodes: Vec<u32> = platform
        .sites
        .iter()
        .map(|s| s.node_pool().map_or(0, |p| p.len() as u32))
        .collect();
    if nodes.iter().all(|&n| n == 0) {
        return invalid(
            "failures take nodes down, and no site lists node types (docs/nodes.md says how to give a site nodes)"
                .into(),
        );
    }
    if cfg.event_order == crate::engine::EventOrder::Pyss {
        return invalid(
            "failures run under the gridscope and cqsim event orders, not pyss's".into(),
        );
    }
    if let Some(model) = &outages.model {
        model.check().map_err(|e| SimError::InvalidPlatform {
            reason: e.to_string(),
        })?;
    }
    for o in &outages.windows {
        let n = nodes.get(o.site as usize).copied().unwrap_or(0);
        if o.node >= n || o.end <= o.start {
            return invalid(format!(
                "an outage of node {} of site {} from {} to {} does not fit the platform ({} nodes there) or ends before it starts",
                o.node, o.site, o.start, o.end, n
            ));
        }
    }
    Ok(nodes)
}
