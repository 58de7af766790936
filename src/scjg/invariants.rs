//! What every SCJG run must satisfy, checked after it (a violation is a bug: the run fails).
//!
//! - Every local job either ran (`start ≥ submit`, `end = start + min(runtime, estimate)`,
//!   killed iff its runtime exceeds its estimate) or was rejected for a stated reason (wider
//!   than its site; under lock-down, needing the block's units longer than the gap between
//!   windows).
//! - Every metajob ran, failed after more than `max_retries` rounds (with its history) or
//!   was rejected with a reason; one that ran started at or after its submission, all its
//!   components at one instant (rule 5), with the units and sites its request allows.
//! - No site is ever over capacity, counting local jobs, metajob components and the
//!   lock-down block while a window is open; block metajobs run inside one window, within
//!   the block's units. Since a component holds exactly its reservation's units from the
//!   reservation's start, this is also "a reservation's units are never used by another
//!   job during its window".

use super::{LocalOutcome, MetaStatus, Mode, Request, ScjgInput, ScjgOutput, ScjgParams};
use crate::time::SimTime;

pub fn check(input: &ScjgInput, params: &ScjgParams, out: &ScjgOutput) -> Result<(), String> {
    check_local(input, params, out)?;
    check_meta(input, params, out)?;
    for s in 0..input.sites.len() {
        check_capacity(input, params, out, s)?;
    }
    Ok(())
}

fn check_local(input: &ScjgInput, params: &ScjgParams, out: &ScjgOutput) -> Result<(), String> {
    for (s, jobs) in input.local.iter().enumerate() {
        let cap = input.sites[s].units;
        for (job, o) in jobs.iter().zip(&out.local[s]) {
            let Some(start) = o.start else {
                let lockdown_bound =
                    matches!(params.mode, Mode::Lockdown(l) if s == 0 && job.procs > cap - l.units);
                if job.procs > cap || lockdown_bound {
                    continue;
                }
                return Err(format!("local job {} at site {s} never ran", job.id));
            };
            let run = job.runtime.min(job.estimate).max(SimTime::ZERO);
            if start < job.submit
                || o.end != start + run
                || o.killed != (job.runtime > job.estimate)
            {
                return Err(format!(
                    "local job {} at site {s}: bad outcome {o:?}",
                    job.id
                ));
            }
        }
    }
    Ok(())
}

fn check_meta(input: &ScjgInput, params: &ScjgParams, out: &ScjgOutput) -> Result<(), String> {
    for (mj, o) in input.metajobs.iter().zip(&out.meta) {
        match &o.status {
            MetaStatus::Waiting => {
                return Err(format!("metajob {} was neither placed nor given up", mj.id))
            }
            MetaStatus::Failed if o.retries <= params.max_retries => {
                return Err(format!(
                    "metajob {} failed after only {} rounds",
                    mj.id, o.retries
                ))
            }
            MetaStatus::Failed | MetaStatus::Rejected(_) => {}
            MetaStatus::Ran { start, end, parts } => {
                let ok_parts = match &mj.request {
                    Request::Specified(p) => {
                        let (mut a, mut b) = (p.clone(), parts.clone());
                        a.sort_unstable();
                        b.sort_unstable();
                        a == b
                    }
                    Request::Single { units } => parts.len() == 1 && parts[0].1 == *units,
                    Request::General { units, max_sites } => {
                        parts.len() <= *max_sites as usize
                            && parts.iter().map(|p| p.1).sum::<u32>() == *units
                    }
                };
                let mut sites: Vec<u32> = parts.iter().map(|p| p.0).collect();
                sites.sort_unstable();
                sites.dedup();
                if !ok_parts || sites.len() != parts.len() {
                    return Err(format!(
                        "metajob {} ran on {parts:?}, not its request",
                        mj.id
                    ));
                }
                if *start < mj.submit || *end != *start + mj.runtime.min(mj.wallclock) {
                    return Err(format!("metajob {}: bad times {start}..{end}", mj.id));
                }
            }
        }
    }
    Ok(())
}

/// Usage changes at site `s`: `(time, +units | −units)`, releases sorted before acquisitions.
fn check_capacity(
    input: &ScjgInput,
    params: &ScjgParams,
    out: &ScjgOutput,
    s: usize,
) -> Result<(), String> {
    let mut changes: Vec<(SimTime, i64)> = Vec::new();
    let mut add = |a: SimTime, b: SimTime, u: u32| {
        if b > a {
            changes.push((a, u as i64));
            changes.push((b, -(u as i64)));
        }
    };
    for (job, o) in input.local[s].iter().zip(&out.local[s]) {
        if let LocalOutcome {
            start: Some(a),
            end,
            ..
        } = *o
        {
            add(a, end, job.procs);
        }
    }
    let lockdown = match params.mode {
        Mode::Lockdown(l) => Some(l),
        Mode::Reservations => None,
    };
    let mut block: Vec<(SimTime, i64)> = Vec::new();
    for (mj, o) in input.metajobs.iter().zip(&out.meta) {
        let MetaStatus::Ran { start, end, parts } = &o.status else {
            continue;
        };
        for &(site, units) in parts {
            if site as usize != s {
                continue;
            }
            if let Some(l) = lockdown {
                // Inside one window, within the block (which the windows below count).
                let inside = out.windows.iter().any(|&(a, b)| a <= *start && *end <= b);
                if !inside || *end - *start > l.length() {
                    return Err(format!("block metajob {} ran outside a window", mj.id));
                }
                block.push((*start, units as i64));
                block.push((*end, -(units as i64)));
            } else {
                add(*start, *end, units);
            }
        }
    }
    if let (Some(l), 0) = (lockdown, s) {
        for &(a, b) in &out.windows {
            add(a, b, l.units);
        }
        over(&mut block, l.units, "the lock-down block")?;
    }
    over(&mut changes, input.sites[s].units, &input.sites[s].name)
}

fn over(changes: &mut [(SimTime, i64)], cap: u32, name: &str) -> Result<(), String> {
    changes.sort_unstable();
    let mut used = 0i64;
    for &(t, d) in changes.iter() {
        used += d;
        if used > cap as i64 {
            return Err(format!(
                "{name} is over capacity at {t} s: {used} of {cap} units"
            ));
        }
    }
    Ok(())
}
