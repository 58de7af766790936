//! The platform a scenario runs on: a preset, explicit sites, or one site sized from the
//! trace (and the note saying which), and SES's view of one site's node groups as sites.

use super::{platform_preset, PlatformSpec, ScenarioError, PLATFORM_PRESETS};
use crate::model::{Platform, Site, MAX_SITE_UNITS};
use crate::workload::Workload;

/// Resolves the platform for a workload.
pub fn resolve_platform(
    spec: &PlatformSpec,
    workload: &Workload,
) -> Result<(Platform, String), ScenarioError> {
    let platform = match spec {
        PlatformSpec::Preset { name } => {
            let p = platform_preset(name).ok_or_else(|| ScenarioError::UnknownPlatformPreset {
                name: name.clone(),
                known: PLATFORM_PRESETS.iter().map(|p| p.0.to_string()).collect(),
            })?;
            (p, format!("preset {name}"))
        }
        PlatformSpec::Sites { name, sites } => (
            Platform {
                name: name.clone(),
                sites: sites.clone(),
            },
            "explicit sites".into(),
        ),
        PlatformSpec::FromTrace { procs } => {
            let h = &workload.report.header;
            // A job clamped on import (it asked for more than 2³² − 1 processors) is wider
            // than any site can be: it does not size the platform, it is rejected.
            let widest = workload
                .jobs
                .iter()
                .map(|j| j.procs)
                .filter(|&p| p <= MAX_SITE_UNITS)
                .max()
                .unwrap_or(1);
            let clamp = |n: u64| n.min(u64::from(MAX_SITE_UNITS)) as u32;
            let clamped = |n: u64| match n > u64::from(MAX_SITE_UNITS) {
                true => format!(" ({n}, clamped to {MAX_SITE_UNITS}: the most a site can have)"),
                false => String::new(),
            };
            let (n, why) = match (procs, h.max_procs, h.max_nodes) {
                (Some(p), _, _) => (
                    *p,
                    "the size given (--procs or the scenario's procs)".to_string(),
                ),
                (None, Some(p), _) => (clamp(p), format!("the header's MaxProcs{}", clamped(p))),
                (None, None, Some(n)) => (
                    clamp(n),
                    format!("the header's MaxNodes (no MaxProcs){}", clamped(n)),
                ),
                (None, None, None) => (
                    widest,
                    "the widest job (the header gives neither MaxProcs nor MaxNodes)".into(),
                ),
            };
            let site_name = workload
                .name
                .rsplit('/')
                .next()
                .unwrap_or("site")
                .trim_end_matches(".gz")
                .trim_end_matches(".swf")
                .to_string();
            (
                Platform::single(Site::flat(site_name, n)),
                format!("one site of {n} processors from {why}"),
            )
        }
    };
    platform
        .0
        .validate()
        .map_err(|reason| ScenarioError::InvalidPlatform { reason })?;
    Ok(platform)
}

/// The platform SES's node-group selection runs on: each node group of the one site becomes
/// a node-exclusive site of its own (name, nodes, CPUs per node; the site's speed). A
/// platform of several sites, or of one without groups, is taken as it is: its sites are the
/// groups.
pub fn group_platform(platform: &Platform) -> Result<Platform, ScenarioError> {
    let [site] = platform.sites.as_slice() else {
        return Ok(platform.clone());
    };
    if site.groups.is_empty() {
        return Ok(platform.clone());
    }
    let sites = site
        .groups
        .iter()
        .map(|g| Site {
            name: g.name.clone(),
            nodes: g.nodes,
            cpus_per_node: g.cpus_per_node,
            speed: site.speed,
            allocation: crate::model::Allocation::Node,
            groups: Vec::new(),
            node_types: Vec::new(),
        })
        .collect();
    let expanded = Platform {
        name: format!("{} (node groups)", platform.name),
        sites,
    };
    expanded
        .validate()
        .map_err(|reason| ScenarioError::InvalidPlatform { reason })?;
    Ok(expanded)
}
