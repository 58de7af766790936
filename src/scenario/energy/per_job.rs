//! What a run's energy and carbon come to per job, and its emissions (issue #40,
//! docs/energy.md "Energy per job" and "Carbon"): each job's share of its nodes' power,
//! measured in joules or, under a carbon series, in grams of CO₂, read from the powered
//! sites' node timelines.

use super::{node_cores, powered_sites, site_models, PoweredSite};
use crate::energy::{emissions_g, CarbonSeries};
use crate::engine::{Outcome, PowerLog};
use crate::model::{Placements, Platform};
use crate::scenario::ScenarioError;
use crate::time::SimTime;

/// Each job's joules (0 for a job that did not run or ran off the powered sites): its share
/// of its nodes' power while it computed. While k of a node's N cores are busy the node draws
/// `Epsilon + (AllCores − Epsilon)·k/N`, and a job holding c of those k cores is given c/k
/// of it; so the jobs' joules add up to the run's `computing_j` (idle, switching and off
/// joules belong to no job; a boot a job waited for is switching). `None` when no site is
/// powered.
pub fn job_energy(
    platform: &Platform,
    outcomes: &[Outcome],
    placements: &Placements,
    power: Option<&PowerLog>,
) -> Result<Option<Vec<f64>>, ScenarioError> {
    let seconds = |a: SimTime, b: SimTime| (b.0 - a.0) as f64 / 1000.0;
    job_shares(platform, outcomes, placements, power, &seconds)
}

/// Each job's grams of CO₂ under `series` (0 for a job that did not run or ran off the
/// powered sites): [`job_energy`]'s share of its nodes' power, each piece's watts times the
/// intensity over the piece (g/kWh × ms / 3.6·10⁹ = g per W). `None` when no site is
/// powered.
pub fn job_emissions(
    platform: &Platform,
    outcomes: &[Outcome],
    placements: &Placements,
    power: Option<&PowerLog>,
    series: &CarbonSeries,
) -> Result<Option<Vec<f64>>, ScenarioError> {
    Ok(emissions(platform, outcomes, placements, series, power)?.map(|(_, per_job)| per_job))
}

/// A run's grams of CO₂ under `series` ([`run_emissions`]) and each job's
/// ([`job_emissions`]), from one build of the powered sites' timelines; `None` when no site
/// is powered.
pub fn emissions(
    platform: &Platform,
    outcomes: &[Outcome],
    placements: &Placements,
    series: &CarbonSeries,
    power: Option<&PowerLog>,
) -> Result<Option<(f64, Vec<f64>)>, ScenarioError> {
    let (powered, _, _) = powered_sites(platform, outcomes, placements, power)?;
    if powered.is_empty() {
        return Ok(None);
    }
    let grams_per_watt = |a: SimTime, b: SimTime| series.integral(a, b) / 3.6e9;
    let per_job = shares_of(&powered, outcomes, placements, &grams_per_watt);
    let (mut timelines, mut models) = (Vec::new(), Vec::new());
    for p in powered {
        timelines.extend(p.timelines);
        models.extend(p.models);
    }
    let grams =
        emissions_g(&timelines, &|n| models[n], series).map_err(|e| ScenarioError::Invalid(e.0))?;
    Ok(Some((grams, per_job)))
}

/// Σ over each job's pieces of its share of its nodes' watts × `measure(from, to)` of the
/// piece ([`job_energy`], [`job_emissions`]).
fn job_shares(
    platform: &Platform,
    outcomes: &[Outcome],
    placements: &Placements,
    power: Option<&PowerLog>,
    measure: &dyn Fn(SimTime, SimTime) -> f64,
) -> Result<Option<Vec<f64>>, ScenarioError> {
    let (powered, _, _) = powered_sites(platform, outcomes, placements, power)?;
    if powered.is_empty() {
        return Ok(None);
    }
    Ok(Some(shares_of(&powered, outcomes, placements, measure)))
}

/// [`job_shares`] over the `powered` sites' timelines.
fn shares_of(
    powered: &[PoweredSite],
    outcomes: &[Outcome],
    placements: &Placements,
    measure: &dyn Fn(SimTime, SimTime) -> f64,
) -> Vec<f64> {
    let mut joules = vec![0.0; outcomes.len()];
    for p in powered {
        for (idx, o) in outcomes.iter().enumerate() {
            if o.site as usize != p.site || !o.ran() || o.end <= o.start {
                continue;
            }
            for sh in placements.busy_of(idx) {
                let (Some(t), Some(m)) = (
                    p.timelines.get(sh.node as usize),
                    p.models.get(sh.node as usize),
                ) else {
                    continue;
                };
                // The node's pieces over [start, end): from the one in force at the start.
                let first = t.breakpoints.partition_point(|b| b.0 <= o.start);
                for k in first.saturating_sub(1)..t.breakpoints.len() {
                    let (from, state) = t.breakpoints[k];
                    let to = t.breakpoints.get(k + 1).map_or(t.end, |b| b.0);
                    let (a, b) = (from.max(o.start), to.min(o.end));
                    if from >= o.end {
                        break;
                    }
                    if let crate::energy::NodeState::On { busy } = state {
                        if busy > 0 && b > a {
                            let share = f64::from(sh.cores) / f64::from(busy);
                            joules[idx] += m.watts(busy, t.cores) * share * measure(a, b);
                        }
                    }
                }
            }
        }
    }
    joules
}

/// Grams of CO₂ of the jobs' work on the powered sites under `series` (see
/// [`RunEnergy::work_emissions_g`]); `None` when no site is powered.
pub fn work_emissions(
    platform: &Platform,
    outcomes: &[Outcome],
    placements: &Placements,
    series: &CarbonSeries,
) -> Result<Option<f64>, ScenarioError> {
    let mut grams = None;
    for site in 0..platform.sites.len() {
        let Some(models) = site_models(platform, site)? else {
            continue;
        };
        let cores = node_cores(platform, site);
        let mut sum = 0.0;
        for (idx, o) in outcomes.iter().enumerate() {
            if o.site as usize != site || !o.ran() || o.end <= o.start {
                continue;
            }
            // g/kWh × ms over the run, then × W / (3.6e6 J/kWh × 1000 ms/s).
            let dose = series.integral(o.start, o.end);
            for sh in placements.busy_of(idx) {
                let (m, n) = (&models[sh.node as usize], cores[sh.node as usize]);
                let watts = (m.all_cores_w - m.epsilon_w) * f64::from(sh.cores) / f64::from(n);
                sum += watts * dose / 3.6e9;
            }
        }
        *grams.get_or_insert(0.0) += sum;
    }
    Ok(grams)
}

/// Grams of CO₂ of a run's powered sites under `series` (the run's span must lie within
/// it); `None` when no site is powered.
pub fn run_emissions(
    platform: &Platform,
    outcomes: &[Outcome],
    placements: &Placements,
    series: &CarbonSeries,
    power: Option<&PowerLog>,
) -> Result<Option<f64>, ScenarioError> {
    Ok(emissions(platform, outcomes, placements, series, power)?.map(|(grams, _)| grams))
}
