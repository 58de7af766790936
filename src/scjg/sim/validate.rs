//! What an SCJG run refuses before it starts: no sites or metaschedulers, a site without
//! units, back-off and delay parameters out of range, unsorted workloads, a metajob naming
//! a metascheduler that does not exist, too many jobs for the loop's 32-bit keys.

use crate::scjg::{Mode, ScjgInput, ScjgParams};
use crate::time::SimTime;

pub(super) fn validate(input: &ScjgInput, params: &ScjgParams) -> Result<(), String> {
    if input.sites.is_empty() {
        return Err("an SCJG run needs at least one site".into());
    }
    if input.local.len() != input.sites.len() {
        return Err("one local workload per site is needed".into());
    }
    if params.metaschedulers == 0 {
        return Err("at least one metascheduler is needed".into());
    }
    if let Some(s) = input.sites.iter().find(|s| s.units == 0) {
        return Err(format!("site {} has no units", s.name));
    }
    if !(params.backoff.factor.is_finite() && params.backoff.factor >= 1.0) {
        return Err("the back-off factor must be a finite number ≥ 1".into());
    }
    if params.delay < SimTime::ZERO || params.backoff.base <= SimTime::ZERO {
        return Err("the query-to-reserve delay must be ≥ 0 and the back-off base > 0".into());
    }
    if let Mode::Lockdown(l) = params.mode {
        l.validate(input.sites[0].units)?;
    }
    for (s, jobs) in input.local.iter().enumerate() {
        if jobs.windows(2).any(|w| w[1].submit < w[0].submit) {
            return Err(format!(
                "site {}'s jobs are not sorted by submit time",
                input.sites[s].name
            ));
        }
    }
    if input.metajobs.windows(2).any(|w| w[1].submit < w[0].submit) {
        return Err("metajobs are not sorted by submit time".into());
    }
    if let Some(m) = input
        .metajobs
        .iter()
        .find(|m| m.scheduler >= params.metaschedulers)
    {
        return Err(format!(
            "metajob {} names metascheduler {} of {}",
            m.id, m.scheduler, params.metaschedulers
        ));
    }
    let total: usize = input.local.iter().map(|j| j.len()).sum::<usize>() + input.metajobs.len();
    if total >= u32::MAX as usize / 2 {
        return Err(format!("{total} jobs are too many for one run"));
    }
    Ok(())
}
