//! A run's energy (issue #40, docs/energy.md): on sites whose node types all say what a
//! node draws, the jobs' node placements become node timelines — every node on from the
//! first submission to the run's last end, busy with the cores its jobs hold — and the
//! energy accounting gives joules per site and in all. A run with no powered site has none.
//! Under the idle-timeout power policy the nodes' switch-offs, sleeps and boots are laid
//! over those timelines (`energy::with_off_spans`).

use serde::{Deserialize, Serialize};

use super::ScenarioError;
use crate::energy::{
    account, account_runs, busy_timelines, with_off_spans, BusySpan, JobRun, NodeTimeline, OffSpan,
    PowerModel,
};
use crate::engine::{Outcome, PowerLog};
use crate::model::{Placements, Platform};
use crate::time::SimTime;

mod per_job;
pub use per_job::{emissions, job_emissions, job_energy, run_emissions, work_emissions};

/// One site's joules and power.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiteEnergy {
    pub site: String,
    pub nodes: usize,
    pub total_j: f64,
    pub computing_j: f64,
    pub idle_j: f64,
    pub average_w: f64,
    pub peak_w: f64,
}

/// A run's energy over its powered sites.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunEnergy {
    pub total_j: f64,
    pub total_kwh: f64,
    pub computing_j: f64,
    pub idle_j: f64,
    /// Total joules over the run's span (first submission to last end).
    pub average_w: f64,
    /// The most the powered sites drew at once.
    pub peak_w: f64,
    /// Energy × the run's span (J·s): lower is better on both counts.
    pub energy_delay_js: f64,
    /// Joules spent switching nodes off and on, and asleep (a run with a power policy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switching_j: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off_j: Option<f64>,
    /// What switching idle nodes off did (a run with the policy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_off: Option<IdleOff>,
    /// What the carbon-aware delay did (a run with one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carbon_delay: Option<CarbonDelay>,
    /// Grams of CO₂ under a carbon-intensity series, when one was given
    /// (`simulate --carbon`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emissions_g: Option<f64>,
    /// Grams of CO₂ of the jobs' work alone: each job's cores above its nodes' Epsilon
    /// (`(AllCores − Epsilon) · cores / N` watts) at the intensity while it ran. Unlike
    /// `emissions_g` it does not grow with the run's span (idle nodes while a job is held).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_emissions_g: Option<f64>,
    pub sites: Vec<SiteEnergy>,
}

/// What the idle-timeout power policy did in a run (docs/energy.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IdleOff {
    /// A node no job held this long was switched off.
    pub after_s: f64,
    /// Switch-offs, and those that ended in a boot for a job.
    pub switch_offs: usize,
    pub boots: usize,
    /// Jobs whose start waited for a node to boot, and their seconds of waiting for it in
    /// all (start − the instant their policy started them).
    pub jobs_delayed: usize,
    pub boot_wait_s: f64,
}

impl IdleOff {
    fn of(log: &PowerLog, outcomes: &[Outcome]) -> IdleOff {
        let waited: i64 = log
            .delayed
            .iter()
            .map(|&(j, at)| outcomes[j as usize].start.0 - at.0)
            .sum();
        IdleOff {
            after_s: log.idle_off_after.0 as f64 / 1000.0,
            switch_offs: log.cycles.len(),
            boots: log.boots(),
            jobs_delayed: log.delayed.len(),
            boot_wait_s: waited as f64 / 1000.0,
        }
    }
}

/// What the carbon-aware delay did in a run (docs/energy.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CarbonDelay {
    /// How long past its submission a job could be held.
    pub slack_s: f64,
    /// Jobs held past their submission, and their seconds held in all.
    pub jobs_held: usize,
    pub held_s: f64,
}

impl CarbonDelay {
    /// The summary of `holds` for `jobs` under a slack of `slack_s`.
    pub fn of(slack_s: f64, jobs: &[crate::model::Job], holds: &[SimTime]) -> CarbonDelay {
        let held: Vec<i64> = jobs
            .iter()
            .zip(holds)
            .map(|(j, h)| h.0 - j.submit.0)
            .filter(|&d| d > 0)
            .collect();
        CarbonDelay {
            slack_s,
            jobs_held: held.len(),
            held_s: held.iter().sum::<i64>() as f64 / 1000.0,
        }
    }
}

/// An algorithm's duration `field` of `s` seconds is one the engine's clock holds: 0 to
/// ten years (the idle timeout, the carbon slack).
pub(super) fn check_seconds(
    alg: &super::AlgorithmSpec,
    field: &str,
    s: f64,
) -> Result<(), ScenarioError> {
    let most = crate::model::power::MAX_IDLE_OFF_S as f64;
    if s.is_finite() && (0.0..=most).contains(&s) {
        return Ok(());
    }
    Err(ScenarioError::Invalid(format!(
        "{}: {field} must be 0 to {most} seconds, not {s}",
        alg.label()
    )))
}

/// An algorithm's `power_off_after_s`, checked against the `platform` it runs on: a time
/// in range, a local policy, and node types that all say what they draw.
pub fn check_idle_off(
    alg: &super::AlgorithmSpec,
    platform: &Platform,
) -> Result<(), ScenarioError> {
    let Some(s) = alg.power_off_after_s else {
        return Ok(());
    };
    let invalid =
        |reason: String| Err(ScenarioError::Invalid(format!("{}: {reason}", alg.label())));
    check_seconds(alg, "power_off_after_s", s)?;
    if alg.grid != crate::policy::grid::GridScheme::Local {
        return invalid("switching idle nodes off (power_off_after_s) runs under a local policy only, not a grid scheme".into());
    }
    let unpowered = platform
        .sites
        .iter()
        .find(|s| s.has_nodes() && s.node_types.iter().any(|t| t.power.is_none()));
    match unpowered {
        Some(site) => invalid(format!(
            "switching idle nodes off needs every node type of site '{}' to say what it draws (\"power\", or simulate --power MODEL; docs/energy.md)",
            site.name
        )),
        None => Ok(()),
    }
}

/// `sim` under `alg`'s power policies: idle nodes switched off, the power cap, and jobs
/// held to their `holds` (the carbon-aware delay).
pub(super) fn with_power_policies<'a>(
    sim: crate::engine::Simulation<'a>,
    alg: &super::AlgorithmSpec,
    holds: Option<Vec<SimTime>>,
) -> Result<crate::engine::Simulation<'a>, crate::engine::SimError> {
    let sim = match alg.power_off_after_s {
        Some(s) => sim.with_idle_off(SimTime::from_secs_f64(s))?,
        None => sim,
    };
    let sim = match alg.power_cap_w {
        Some(w) => sim.with_power_cap(w)?,
        None => sim,
    };
    match holds {
        Some(holds) => sim.with_holds(holds),
        None => Ok(sim),
    }
}

/// Checks a run under a power cap never drew more than it on any site (the engine kept
/// the busy cores within the cap's bound, `engine::sim::cap`; this reads the power back
/// from the node timelines).
pub(super) fn check_power_cap(
    alg: &super::AlgorithmSpec,
    energy: Option<&RunEnergy>,
) -> Result<(), ScenarioError> {
    let (Some(cap), Some(e)) = (alg.power_cap_w, energy) else {
        return Ok(());
    };
    match e.sites.iter().find(|s| s.peak_w > cap * (1.0 + 1e-12)) {
        Some(s) => Err(ScenarioError::Sim(crate::engine::SimError::Invariant(
            crate::engine::InvariantViolation(format!(
                "{}: site '{}' drew {} W at its peak, over its power cap of {cap} W",
                alg.label(),
                s.site,
                s.peak_w
            )),
        ))),
        None => Ok(()),
    }
}

/// What each field of a run's `energy` means, with its formula and source (`gridscope help
/// metrics` prints them after the scheduling metrics).
pub const ENERGY_HELP: &[crate::metrics::MetricHelp] = &[
    crate::metrics::MetricHelp { key: "energy.total_j", formula: "Σ over powered nodes of ∫ power dt (total_kwh = total_j / 3.6e6), power Epsilon + (AllCores − Epsilon)·k/N with k of N cores busy, Idle with none, Off asleep, a transition's watts while switching", source: "SimGrid host energy plugin; Batsim pstates (docs/energy.md)" },
    crate::metrics::MetricHelp { key: "energy.computing_j / idle_j", formula: "the part of total_j drawn with some core busy, and with none", source: "docs/energy.md" },
    crate::metrics::MetricHelp { key: "energy.average_w, peak_w", formula: "total_j / the run's span (first submission to last end); the largest sum over nodes at any instant", source: "docs/energy.md" },
    crate::metrics::MetricHelp { key: "energy.energy_delay_js", formula: "total_j × the run's span in seconds (lower is better on both)", source: "Gonzalez & Horowitz 1996" },
    crate::metrics::MetricHelp { key: "energy.switching_j / off_j", formula: "joules switching nodes off and on, and asleep (--power-off-after)", source: "Batsim's switch-off/boot transitions (docs/energy.md)" },
    crate::metrics::MetricHelp { key: "energy.idle_off", formula: "after_s (the timeout), switch_offs, boots (switch-offs ended by a job), jobs_delayed (jobs whose start waited for a boot), boot_wait_s (Σ start − the instant their policy started them)", source: "docs/energy.md" },
    crate::metrics::MetricHelp { key: "energy.emissions_g", formula: "Σ joules × g/kWh / 3.6e6 over the platform's power and the grid's carbon intensity (the scenario's carbon: a CSV or the synthetic daily curve; simulate --carbon), over the run's span", source: "docs/energy.md" },
    crate::metrics::MetricHelp { key: "energy.work_emissions_g", formula: "Σ over jobs and their node shares of (AllCores − Epsilon)·cores/N watts × ∫ intensity over the job's run: the jobs' work alone, not growing with the span", source: "docs/energy.md" },
    crate::metrics::MetricHelp { key: "energy.carbon_delay", formula: "slack_s, jobs_held (jobs held past their submission to their greenest start: least mean intensity over the estimated run), held_s (Σ hold)", source: "Wiesner et al., Middleware 2021 (docs/energy.md)" },
];

/// The cores of each node of `site` (its node types in order).
fn node_cores(platform: &Platform, site: usize) -> Vec<u32> {
    platform.sites[site]
        .node_types
        .iter()
        .flat_map(|t| std::iter::repeat_n(t.cores, t.count as usize))
        .collect()
}

/// The power model of each node of `site` (its node types in order), when every type has
/// one; `None` when none has; an error when only some have.
fn site_models(platform: &Platform, site: usize) -> Result<Option<Vec<PowerModel>>, ScenarioError> {
    let s = &platform.sites[site];
    let powered = s.node_types.iter().filter(|t| t.power.is_some()).count();
    if powered == 0 {
        return Ok(None);
    }
    if powered < s.node_types.len() {
        return Err(ScenarioError::Invalid(format!(
            "site '{}': {powered} of its {} node types say what they draw (power); give every type a power model, or none",
            s.name,
            s.node_types.len()
        )));
    }
    let mut models = Vec::new();
    for t in &s.node_types {
        if let Some(m) = t.power {
            let what = format!("site '{}' node type '{}'", s.name, t.name);
            m.validate(&what)
                .map_err(|e| ScenarioError::Invalid(e.to_string()))?;
            models.extend(std::iter::repeat_n(m, t.count as usize));
        }
    }
    Ok(Some(models))
}

/// A powered site's node timelines over a run, with each node's power model.
pub struct PoweredSite {
    /// The site's index in the platform.
    pub site: usize,
    pub timelines: Vec<NodeTimeline>,
    pub models: Vec<PowerModel>,
}

/// The node timelines of every powered site of a run — what [`run_energy`] accounts —
/// for a replay elsewhere (`energy::simgrid`: SimGrid's joules for the same schedule).
pub fn site_timelines(
    platform: &Platform,
    outcomes: &[Outcome],
    placements: &Placements,
    power: Option<&PowerLog>,
) -> Result<Vec<PoweredSite>, ScenarioError> {
    Ok(powered_sites(platform, outcomes, placements, power)?.0)
}

/// A powered site's run, before it becomes node timelines: its jobs' runs (their shares
/// are the placements') and the power policy's switch-offs.
struct SiteRun {
    site: usize,
    cores: Vec<u32>,
    models: Vec<PowerModel>,
    runs: Vec<JobRun>,
    offs: Vec<OffSpan>,
}

impl SiteRun {
    /// Each share of the site's jobs as a busy span, in start order.
    fn spans(&self, placements: &Placements) -> Vec<BusySpan> {
        let mut spans = Vec::with_capacity(placements.shares_recorded());
        for r in &self.runs {
            spans.extend(
                placements
                    .busy_of(r.job as usize)
                    .iter()
                    .map(|sh| BusySpan {
                        node: sh.node,
                        cores: sh.cores,
                        start: r.start,
                        end: r.end,
                    }),
            );
        }
        spans
    }
}

/// The run of every powered site of a run of `outcomes` with its `placements` (each node on
/// from the first submission to the run's last end), with that span.
fn site_runs(
    platform: &Platform,
    outcomes: &[Outcome],
    placements: &Placements,
    power: Option<&PowerLog>,
) -> Result<(Vec<SiteRun>, SimTime, SimTime), ScenarioError> {
    let end = outcomes
        .iter()
        .filter(|o| o.ran())
        .map(|o| o.end)
        .max()
        .unwrap_or(SimTime::ZERO);
    let from = SimTime::ZERO.min(end);
    let mut out = Vec::new();
    for site in 0..platform.sites.len() {
        let Some(models) = site_models(platform, site)? else {
            continue;
        };
        let cores = node_cores(platform, site);
        // In start order, so each node's starts come in time order ([`busy_timelines`]).
        let mut runs = Vec::new();
        for idx in placements.in_start_order() {
            let Some(o) = outcomes.get(idx) else {
                continue;
            };
            if o.site as usize != site || !o.ran() || placements.of(idx).is_empty() {
                continue;
            }
            runs.push(JobRun {
                start: o.start,
                end: o.end,
                job: idx as u32,
            });
        }
        let offs: Vec<OffSpan> = power.map_or_else(Vec::new, |log| {
            log.cycles
                .iter()
                .filter(|c| c.site as usize == site && c.off_at < end)
                .map(|c| OffSpan {
                    node: c.node,
                    off_at: c.off_at,
                    asleep_at: c.asleep_at,
                    boot_at: c.boot_at,
                    on_at: c.on_at,
                })
                .collect()
        });
        out.push(SiteRun {
            site,
            cores,
            models,
            runs,
            offs,
        });
    }
    Ok((out, from, end))
}

/// `e` about site `site` of `platform`, as a scenario error.
fn in_site(platform: &Platform, site: usize, e: crate::energy::TimelineError) -> ScenarioError {
    ScenarioError::Invalid(format!("site '{}': {e}", platform.sites[site].name))
}

/// The node timelines of every powered site of a run of `outcomes` with its `placements`
/// (each node on from the first submission to the run's last end), with that span.
fn powered_sites(
    platform: &Platform,
    outcomes: &[Outcome],
    placements: &Placements,
    power: Option<&PowerLog>,
) -> Result<(Vec<PoweredSite>, SimTime, SimTime), ScenarioError> {
    let (runs, from, end) = site_runs(platform, outcomes, placements, power)?;
    let mut out = Vec::with_capacity(runs.len());
    for r in runs {
        let site = r.site;
        let spans = r.spans(placements);
        let mut timelines = busy_timelines(&|n| r.cores[n], r.cores.len(), &spans, from, end)
            .map_err(|e| in_site(platform, site, e))?;
        if power.is_some() {
            with_off_spans(&mut timelines, &r.offs).map_err(|e| in_site(platform, site, e))?;
        }
        out.push(PoweredSite {
            site,
            timelines,
            models: r.models,
        });
    }
    Ok((out, from, end))
}

/// The energy of a run of `outcomes` on `platform` with its `placements`; `None` when no
/// site has power models.
pub fn run_energy(
    platform: &Platform,
    outcomes: &[Outcome],
    placements: &Placements,
    power: Option<&PowerLog>,
) -> Result<Option<RunEnergy>, ScenarioError> {
    let (runs, from, end) = site_runs(platform, outcomes, placements, power)?;
    // One powered site (the usual case) is accounted straight from its spans, without its
    // node timelines (`energy::account_spans`: the same bits); several need the timelines,
    // for the run's peak over all their nodes.
    let (site, r) = match runs.as_slice() {
        [] => return Ok(None),
        [r] if end > from => {
            let r = account_runs(
                &|n| r.cores[n],
                r.cores.len(),
                (&r.runs, &|job| placements.busy_of(job as usize)),
                &r.offs,
                (from, end),
                &|n| r.models[n],
            )
            .map_err(|e| in_site(platform, r.site, e))?;
            (runs[0].site, r)
        }
        _ => return run_energy_of_timelines(platform, outcomes, placements, power),
    };
    let s = SiteEnergy {
        site: platform.sites[site].name.clone(),
        nodes: r.nodes.len(),
        total_j: r.total_j,
        computing_j: r.computing_j,
        idle_j: r.idle_j,
        average_w: r.average_w,
        peak_w: r.peak_w,
    };
    Ok(Some(run_energy_of(
        r,
        vec![s],
        (from, end),
        outcomes,
        power,
    )))
}

/// [`run_energy`] from the powered sites' node timelines.
fn run_energy_of_timelines(
    platform: &Platform,
    outcomes: &[Outcome],
    placements: &Placements,
    power: Option<&PowerLog>,
) -> Result<Option<RunEnergy>, ScenarioError> {
    let (powered, from, end) = powered_sites(platform, outcomes, placements, power)?;
    if powered.is_empty() {
        return Ok(None);
    }
    let (mut timelines, mut models): (Vec<NodeTimeline>, Vec<PowerModel>) =
        (Vec::new(), Vec::new());
    let mut sites = Vec::new();
    let (mut switching_j, mut off_j) = (0.0, 0.0);
    for p in powered {
        let r = account(&p.timelines, &|n| p.models[n]).map_err(|e| ScenarioError::Invalid(e.0))?;
        sites.push(SiteEnergy {
            site: platform.sites[p.site].name.clone(),
            nodes: p.timelines.len(),
            total_j: r.total_j,
            computing_j: r.computing_j,
            idle_j: r.idle_j,
            average_w: r.average_w,
            peak_w: r.peak_w,
        });
        switching_j += r.switching_j;
        off_j += r.off_j;
        timelines.extend(p.timelines);
        models.extend(p.models);
    }
    // One powered site (the usual case) is the run: its sums and peak are the run's.
    let all = match (sites.len(), sites.first()) {
        (1, Some(s)) => crate::energy::EnergyReport {
            switching_j,
            off_j,
            total_j: s.total_j,
            computing_j: s.computing_j,
            idle_j: s.idle_j,
            average_w: s.average_w,
            peak_w: s.peak_w,
            ..Default::default()
        },
        _ => account(&timelines, &|n| models[n]).map_err(|e| ScenarioError::Invalid(e.0))?,
    };
    Ok(Some(run_energy_of(
        all,
        sites,
        (from, end),
        outcomes,
        power,
    )))
}

/// A run's energy from its report over every powered node (`all`) and per site.
fn run_energy_of(
    all: crate::energy::EnergyReport,
    sites: Vec<SiteEnergy>,
    (from, end): (SimTime, SimTime),
    outcomes: &[Outcome],
    power: Option<&PowerLog>,
) -> RunEnergy {
    let span_s = (end.0 - from.0) as f64 / 1000.0;
    RunEnergy {
        total_j: all.total_j,
        total_kwh: all.total_j / 3.6e6,
        computing_j: all.computing_j,
        idle_j: all.idle_j,
        average_w: all.average_w,
        peak_w: all.peak_w,
        energy_delay_js: all.total_j * span_s,
        switching_j: power.map(|_| all.switching_j),
        off_j: power.map(|_| all.off_j),
        idle_off: power.map(|log| IdleOff::of(log, outcomes)),
        carbon_delay: None,
        emissions_g: None,
        work_emissions_g: None,
        sites,
    }
}

/// An entry of a list of idle timeouts or slacks that is neither a number of seconds in
/// range nor never.
#[derive(Debug)]
pub struct BadSeconds(String);

impl std::fmt::Display for BadSeconds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let most = crate::model::power::MAX_IDLE_OFF_S;
        write!(
            f,
            "'{}' is not a number of seconds from 0 to {most}, nor never",
            self.0
        )
    }
}

impl std::error::Error for BadSeconds {}

/// A comma list of seconds or `never` (`None`): `simulate --power-off-after never,60,600`
/// and `--carbon-slack`, and the page's idle timeouts.
pub fn parse_seconds_list(s: &str) -> Result<Vec<Option<f64>>, BadSeconds> {
    let most = crate::model::power::MAX_IDLE_OFF_S as f64;
    let mut list = Vec::new();
    for part in s.split(',').map(str::trim) {
        list.push(match part.parse::<f64>() {
            _ if part == "never" => None,
            Ok(x) if x.is_finite() && (0.0..=most).contains(&x) => Some(x),
            _ => return Err(BadSeconds(part.to_string())),
        });
    }
    Ok(list)
}

/// An entry of a list of power caps that is neither a number of watts in range nor never.
#[derive(Debug)]
pub struct BadWatts(String);

impl std::fmt::Display for BadWatts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "'{}' is not a number of watts above 0 (at most 1e15), nor never",
            self.0
        )
    }
}

impl std::error::Error for BadWatts {}

/// A comma list of watts or `never` (`None`): `simulate --power-cap never,20000` and the
/// page's caps. A cap is a number of watts above 0 and at most 10¹⁵.
pub fn parse_watts_list(s: &str) -> Result<Vec<Option<f64>>, BadWatts> {
    let mut list = Vec::new();
    for part in s.split(',').map(str::trim) {
        list.push(match part.parse::<f64>() {
            _ if part == "never" => None,
            Ok(x) if x.is_finite() && x > 0.0 && x <= 1e15 => Some(x),
            _ => return Err(BadWatts(part.to_string())),
        });
    }
    Ok(list)
}

/// Each algorithm with each power cap of `list`, side by side: easy, easy, cap 20000 W, …
/// (`None`: no cap).
pub fn with_power_caps(
    algorithms: Vec<super::AlgorithmSpec>,
    list: &[Option<f64>],
) -> Vec<super::AlgorithmSpec> {
    side_by_side(algorithms, list, |a, cap| a.power_cap_w = cap)
}

/// Each algorithm once per entry of `list`, side by side, `set` giving it the entry (the
/// power policies', the carbon slack's and the placements' lists of `simulate` and the
/// page).
pub fn side_by_side<T: Copy>(
    algorithms: Vec<super::AlgorithmSpec>,
    list: &[T],
    set: fn(&mut super::AlgorithmSpec, T),
) -> Vec<super::AlgorithmSpec> {
    algorithms
        .iter()
        .flat_map(|alg| {
            list.iter().map(move |&x| {
                let mut a = alg.clone();
                set(&mut a, x);
                a
            })
        })
        .collect()
}

/// Each algorithm with each idle timeout of `list`, side by side: easy, easy off after
/// 60 s, … (`None`: never switched off).
pub fn with_idle_timeouts(
    algorithms: Vec<super::AlgorithmSpec>,
    list: &[Option<f64>],
) -> Vec<super::AlgorithmSpec> {
    side_by_side(algorithms, list, |a, after| a.power_off_after_s = after)
}

/// A powered site's power and node states over a run (the page's charts).
pub struct SiteOverTime {
    pub site: usize,
    /// (instant, watts from then on), 0 W at the run's end.
    pub power: Vec<(SimTime, f64)>,
    /// (instant, nodes computing, idle, switching, off from then on).
    pub states: Vec<(SimTime, crate::energy::StateCounts)>,
}

/// The power and node states of every powered site of a run (see [`run_energy`]).
pub fn sites_over_time(
    platform: &Platform,
    outcomes: &[Outcome],
    placements: &Placements,
    power: Option<&PowerLog>,
) -> Result<Vec<SiteOverTime>, ScenarioError> {
    let (powered, _, _) = powered_sites(platform, outcomes, placements, power)?;
    let invalid = |e: crate::energy::TimelineError| ScenarioError::Invalid(e.0);
    powered
        .into_iter()
        .map(|p| {
            Ok(SiteOverTime {
                site: p.site,
                power: crate::energy::power_series(&p.timelines, &|n| p.models[n])
                    .map_err(invalid)?,
                states: crate::energy::state_series(&p.timelines).map_err(invalid)?,
            })
        })
        .collect()
}
