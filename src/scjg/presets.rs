//! SCJG's experiments as data and a runner (pure functions over a trace's jobs, serde
//! results; the CLI reads the trace and prints, the app runs them in its worker).
//!
//! All run on 10-day windows of one SP-like trace (default SDSC-SP2, 128 nodes, from day 270
//! on — a window offered ≈ 92 % of capacity, near the saturated site of SCJG §4 — the
//! archive's SP2 whose jobs span 1–128 nodes like SCJG's MHPCC trace of 1–128 nodes on a
//! 192-node SP, which is not in the archive), local policy EASY (Maui's backfill keeps a
//! reservation for its top job, as EASY does). Medians over seeds (which jobs become
//! metajobs, and the back-off streams) with the order-statistic band of the SF sweeps.

use serde::{Deserialize, Serialize};

use super::metrics::{compute, ScjgMetrics};
use super::workload::{split_metajobs, Shape};
use super::{
    simulate, Lockdown, MetaStatus, Metajob, Mode, ScjgInput, ScjgParams, SiteOrder, SiteSpec,
};
use crate::allocation::sweep::{median_and_band, median_band};
use crate::model::Job;
use crate::par::map_in_order;
use crate::policy::local::LocalPolicyKind;
use crate::time::SimTime;

/// (name, what the paper shows and how we run it).
pub const SCJG_PRESETS: &[(&str, &str)] = &[
    (
        "scjg-fraction",
        "SCJG Figs. 5–6: a share of the jobs (0–10 %) become metajobs that must run in an advance reservation (guaranteed start, never earlier: rule 5) on one 128-node SP2 site; the rest is the local workload under EASY. The paper: utilization falls and the expansion factor rises as the share grows, because reservations fragment the node-time map and early-ending jobs leave holes a reserved job may not use.",
    ),
    (
        "scjg-ar-vs-lockdown",
        "SCJG Fig. 7: the same metajobs placed by advance reservations (ar) or run only in a lock-down block of 25 % of the nodes for 8 h a day (lockdown; the paper: 48 of 192 nodes). Metajobs are drawn among jobs that fit the block (≤ 32 nodes, ≤ 8 h) so both see the same ones. The paper: AR far ahead at low shares, the curves approach as the share grows (it assigned the block's utilization; we simulate the metajobs in it).",
    ),
    (
        "scjg-sites",
        "SCJG Fig. 8: 5 % of site 1's jobs are single-site ASAP metajobs; 1–4 sites of 128 nodes are available, each running its own 10 days of SDSC-SP2 (consecutive windows, so different local workloads). The paper: the metajobs' queue time falls as sites are added, while every site stays highly utilized.",
    ),
    (
        "scjg-livelock",
        "SCJG Fig. 3 and §4: two metaschedulers share two sites; each metajob (2 % of the jobs, split over both sites) arrives at both at once (a twin to the other metascheduler), with a 30 s query-to-reserve delay. Runs: opposed site order with back-off (the livelock, broken by random exponential back-off), opposed order with courtesy locks, and the same order. Shows the collisions (retries per metajob) and that back-off and courtesy locks both resolve them.",
    ),
];

/// The shared trace the presets read by default, its nodes, and the window taken.
pub const DEFAULT_TRACE: &str = "SDSC-SP2-1998-4.2-cln.swf.gz";
pub const DEFAULT_UNITS: u32 = 128;

/// What a preset can be asked to change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PresetOptions {
    /// Seeds (0: 5).
    pub seeds: u64,
    /// Length of each site's window of the trace, days.
    pub days: f64,
    /// First day of site 1's window (later sites take the following windows).
    pub start_day: f64,
    /// Nodes per site.
    pub units: u32,
    pub policy: LocalPolicyKind,
    /// Metajob shares (percent) of the share sweeps.
    pub percents: Vec<f64>,
    /// The lock-down block, as a share of the nodes, and its daily window.
    pub lockdown_share: f64,
    pub lockdown_hours: f64,
    pub lockdown_start_hour: f64,
    /// Query-to-reserve delay of the livelock preset, seconds.
    pub delay_s: f64,
}

impl Default for PresetOptions {
    fn default() -> Self {
        PresetOptions {
            seeds: 0,
            days: 10.0,
            start_day: 270.0,
            units: DEFAULT_UNITS,
            policy: LocalPolicyKind::Easy,
            percents: (0..=10).map(f64::from).collect(),
            lockdown_share: 0.25,
            lockdown_hours: 8.0,
            lockdown_start_hour: 8.0,
            delay_s: 30.0,
        }
    }
}

pub const DEFAULT_SEEDS: u64 = 5;

/// One line of a sweep: a scheme's metric per x — the same `{policy, metric, median, lo,
/// hi}` line as KKOR's sweeps, so the CLI table and the page's charts serve both.
pub use crate::kkor::presets::KkorSeries as ScjgSeries;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScjgSweepResult {
    pub preset: String,
    pub description: String,
    pub x_label: String,
    pub x: Vec<f64>,
    pub seeds: u64,
    pub confidence: f64,
    pub options: PresetOptions,
    pub series: Vec<ScjgSeries>,
}

/// A metajob's path through the metascheduler, for the retry timeline.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimelineEntry {
    pub id: i64,
    pub scheduler: u32,
    pub submit_s: f64,
    /// The common start, `None` when it failed or was rejected.
    pub start_s: Option<f64>,
    pub retries: u32,
    /// Each failed round: (when, the site that refused, the back-off drawn), seconds.
    pub failures: Vec<(f64, u32, f64)>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScjgRunSummary {
    pub label: String,
    /// Medians over the seeds.
    pub metrics: ScjgMetrics,
    /// The first seed's metajobs.
    pub timeline: Vec<TimelineEntry>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScjgRunsResult {
    pub preset: String,
    pub description: String,
    pub seeds: u64,
    pub options: PresetOptions,
    pub runs: Vec<ScjgRunSummary>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ScjgPresetResult {
    Sweep(ScjgSweepResult),
    Runs(ScjgRunsResult),
}

/// The metrics a sweep reports, by their JSON names.
const SWEEP_METRICS: [&str; 9] = [
    "utilization",
    "avg_expansion_factor",
    "local_expansion_factor",
    "metajob_expansion_factor",
    "metajob_queue_s",
    "local_wait_s",
    "retries",
    "metajobs_failed",
    "metajobs_rejected",
];

fn metric(m: &ScjgMetrics, name: &str) -> f64 {
    match name {
        "utilization" => m.utilization,
        "avg_expansion_factor" => m.avg_expansion_factor,
        "local_expansion_factor" => m.local_expansion_factor,
        "metajob_expansion_factor" => m.metajob_expansion_factor,
        "metajob_queue_s" => m.metajob_queue_s,
        "local_wait_s" => m.local_wait_s,
        "retries" => m.retries,
        "metajobs_failed" => m.metajobs_failed as f64,
        "metajobs_rejected" => m.metajobs_rejected as f64,
        "lockdown_utilization" => m.lockdown_utilization.unwrap_or(0.0),
        _ => f64::NAN,
    }
}

/// The jobs submitted in `[start_day, start_day + days)` of `jobs`, moved to start at 0,
/// all at site 0. Jobs are kept as they are otherwise (wider ones are rejected by the run).
pub fn window(jobs: &[Job], start_day: f64, days: f64) -> Vec<Job> {
    let origin = jobs.first().map_or(SimTime::ZERO, |j| j.submit);
    let a = origin + SimTime::from_secs_f64(start_day * 86_400.0);
    let b = a + SimTime::from_secs_f64(days * 86_400.0);
    jobs.iter()
        .filter(|j| j.submit >= a && j.submit < b)
        .map(|j| Job {
            submit: j.submit - a,
            home: 0,
            ..j.clone()
        })
        .collect()
}

fn check_options(o: &PresetOptions, trace_jobs: usize) -> Result<(), String> {
    let finite = [
        o.days,
        o.start_day,
        o.lockdown_share,
        o.lockdown_hours,
        o.delay_s,
    ];
    if finite.iter().any(|x| !x.is_finite()) || o.percents.iter().any(|x| !x.is_finite()) {
        return Err("preset options must be finite numbers".into());
    }
    if !(o.days > 0.0 && o.start_day >= 0.0 && o.units > 0 && o.delay_s >= 0.0) {
        return Err("days must be > 0, start_day ≥ 0, units > 0, delay_s ≥ 0".into());
    }
    if !(o.lockdown_share > 0.0 && o.lockdown_share <= 1.0) {
        return Err("lockdown_share must be in (0, 1]".into());
    }
    if o.percents.is_empty() || o.percents.len() > 101 {
        return Err("give between 1 and 101 metajob percentages".into());
    }
    if trace_jobs == 0 {
        return Err("the trace has no jobs".into());
    }
    Ok(())
}

/// One simulation: `local[s]` per site, metajobs, parameters → metrics (and the output for
/// timelines).
fn one(
    o: &PresetOptions,
    local: &[Vec<Job>],
    metajobs: &[Metajob],
    params: &ScjgParams,
) -> Result<(ScjgMetrics, Vec<TimelineEntry>), String> {
    let sites = case_sites(o, local.len());
    let slices: Vec<&[Job]> = local.iter().map(|v| v.as_slice()).collect();
    let input = ScjgInput {
        sites: &sites,
        local: &slices,
        metajobs,
    };
    let out = simulate(
        ScjgInput {
            sites: &sites,
            local: &slices,
            metajobs,
        },
        params,
    )?;
    let timeline = metajobs
        .iter()
        .zip(&out.meta)
        .map(|(mj, m)| TimelineEntry {
            id: mj.id,
            scheduler: mj.scheduler,
            submit_s: mj.submit.as_secs_f64(),
            start_s: match m.status {
                MetaStatus::Ran { start, .. } => Some(start.as_secs_f64()),
                _ => None,
            },
            retries: m.retries,
            failures: m
                .history
                .iter()
                .map(|f| (f.at.as_secs_f64(), f.site, f.backoff.as_secs_f64()))
                .collect(),
        })
        .collect();
    Ok((compute(&input, params, &out), timeline))
}

fn lockdown(o: &PresetOptions) -> Lockdown {
    Lockdown {
        units: ((o.units as f64 * o.lockdown_share).round() as u32).clamp(1, o.units),
        start_hour: o.lockdown_start_hour,
        hours: o.lockdown_hours,
    }
}

/// The schemes a sweep preset compares (`None`: not a sweep preset).
fn sweep_schemes(name: &str) -> Option<&'static [&'static str]> {
    match name {
        "scjg-fraction" | "scjg-sites" => Some(&["ar"]),
        "scjg-ar-vs-lockdown" => Some(&["ar", "lockdown"]),
        _ => None,
    }
}

/// A scheme and its metrics by name.
pub type SchemeMetrics = (String, Vec<(String, f64)>);

/// One seed of one point `x` of a sweep preset: per scheme its metrics by name — the
/// samples [`run_preset`] takes medians of, so a cluster sweep of single seeds
/// (docs/cluster.md) gives the preset's own medians.
pub fn sweep_point_seed(
    name: &str,
    trace: &[Job],
    options: &PresetOptions,
    x: f64,
    seed: u64,
) -> Result<Vec<SchemeMetrics>, String> {
    check_options(options, trace.len())?;
    let schemes = sweep_schemes(name).ok_or_else(|| {
        format!("'{name}' is not an SCJG sweep (scjg-fraction, scjg-ar-vs-lockdown, scjg-sites)")
    })?;
    let def = SweepDef {
        name,
        description: "",
        x_label: String::new(),
        x: vec![x],
        schemes: schemes.iter().map(|s| s.to_string()).collect(),
    };
    let mut out = Vec::new();
    for scheme in schemes {
        let m = sweep_task(&def, trace, options, x, scheme, seed)?;
        let mut names: Vec<&str> = SWEEP_METRICS.to_vec();
        if *scheme == "lockdown" {
            names.push("lockdown_utilization");
        }
        let values = names
            .into_iter()
            .map(|n| (n.to_string(), metric(&m, n)))
            .collect();
        out.push((scheme.to_string(), values));
    }
    Ok(out)
}

/// Runs preset `name` on `trace` (a whole trace; the preset takes its windows) on up to
/// `threads` threads. `progress(done, total)` may return false to cancel.
pub fn run_preset(
    name: &str,
    trace: &[Job],
    options: &PresetOptions,
    threads: usize,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<ScjgPresetResult, String> {
    check_options(options, trace.len())?;
    let Some(&(_, description)) = SCJG_PRESETS.iter().find(|p| p.0 == name) else {
        let names: Vec<&str> = SCJG_PRESETS.iter().map(|p| p.0).collect();
        return Err(format!(
            "unknown SCJG preset '{name}'; expected one of {}",
            names.join(", ")
        ));
    };
    let mut o = options.clone();
    if o.seeds == 0 {
        o.seeds = DEFAULT_SEEDS;
    }
    let sweep = |x_label: &str, x: Vec<f64>, schemes: &[&str]| SweepDef {
        name,
        description,
        x_label: x_label.to_string(),
        x,
        schemes: schemes.iter().map(|s| s.to_string()).collect(),
    };
    match name {
        "scjg-fraction" => run_sweep(
            &sweep("metajob %", o.percents.clone(), &["ar"]),
            trace,
            &o,
            threads,
            progress,
        ),
        "scjg-ar-vs-lockdown" => run_sweep(
            &sweep("metajob %", o.percents.clone(), &["ar", "lockdown"]),
            trace,
            &o,
            threads,
            progress,
        ),
        "scjg-sites" => run_sweep(
            &sweep("sites", vec![1.0, 2.0, 3.0, 4.0], &["ar"]),
            trace,
            &o,
            threads,
            progress,
        ),
        _ => run_livelock(description, trace, &o, threads, progress),
    }
}

struct SweepDef<'a> {
    name: &'a str,
    description: &'a str,
    x_label: String,
    x: Vec<f64>,
    schemes: Vec<String>,
}

/// What one simulation of a preset runs: each site's local jobs, the metajobs, parameters.
pub(crate) struct Case {
    pub local: Vec<Vec<Job>>,
    pub metajobs: Vec<Metajob>,
    pub params: ScjgParams,
}

/// The case of a sweep point `x` of one scheme and seed.
fn sweep_case(
    name: &str,
    trace: &[Job],
    o: &PresetOptions,
    x: f64,
    scheme: &str,
    seed: u64,
) -> Case {
    let block = lockdown(o);
    let (sites, percent) = if name == "scjg-sites" {
        (x.max(1.0) as usize, 5.0)
    } else {
        (1, x)
    };
    let site0 = window(trace, o.start_day, o.days);
    // Metajobs come from site 1's window; for the lock-down comparison only jobs that fit
    // the block are eligible (drawn among them with the same share of all jobs).
    let (local0, metajobs) = if name == "scjg-ar-vs-lockdown" {
        let fits = |j: &Job| j.procs <= block.units && j.estimate <= block.length();
        let (eligible, other): (Vec<Job>, Vec<Job>) = site0.iter().cloned().partition(fits);
        let share = percent * site0.len() as f64 / eligible.len().max(1) as f64;
        let (mut local, meta) = split_metajobs(&eligible, share.min(100.0), seed, Shape::Single, 1);
        local.extend(other);
        local.sort_by_key(|j| (j.submit, j.id));
        (local, meta)
    } else {
        split_metajobs(&site0, percent, seed, Shape::Single, 1)
    };
    let mut local = vec![local0];
    for i in 1..sites {
        local.push(window(trace, o.start_day + o.days * i as f64, o.days));
    }
    let params = ScjgParams {
        mode: if scheme == "lockdown" {
            Mode::Lockdown(block)
        } else {
            Mode::Reservations
        },
        seed,
        ..ScjgParams::default()
    };
    Case {
        local,
        metajobs,
        params,
    }
}

/// One sweep point of one scheme and seed.
fn sweep_task(
    def: &SweepDef,
    trace: &[Job],
    o: &PresetOptions,
    x: f64,
    scheme: &str,
    seed: u64,
) -> Result<ScjgMetrics, String> {
    let c = sweep_case(def.name, trace, o, x, scheme, seed);
    Ok(one(o, &c.local, &c.metajobs, &c.params)?.0)
}

fn run_sweep(
    def: &SweepDef,
    trace: &[Job],
    o: &PresetOptions,
    threads: usize,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<ScjgPresetResult, String> {
    let seeds = o.seeds as usize;
    let per_x = def.schemes.len() * seeds;
    let n = def.x.len() * per_x;
    let work = |i: usize| {
        let (xi, rest) = (i / per_x, i % per_x);
        let scheme = &def.schemes[rest / seeds];
        sweep_task(def, trace, o, def.x[xi], scheme, (rest % seeds) as u64 + 1)
    };
    let results = map_in_order(n, threads, &work, &mut |d, t| progress(d as u64, t as u64))
        .ok_or("cancelled")?;
    let results: Vec<ScjgMetrics> = results.into_iter().collect::<Result<_, _>>()?;
    let (band_lo, confidence) = median_band(seeds);
    let mut series = Vec::new();
    for (si, scheme) in def.schemes.iter().enumerate() {
        let mut names: Vec<&str> = SWEEP_METRICS.to_vec();
        if scheme == "lockdown" {
            names.push("lockdown_utilization");
        }
        for name in names {
            let mut line = ScjgSeries {
                policy: scheme.clone(),
                metric: name.to_string(),
                ..ScjgSeries::default()
            };
            for xi in 0..def.x.len() {
                let base = xi * per_x + si * seeds;
                let mut v: Vec<f64> = results[base..base + seeds]
                    .iter()
                    .map(|m| metric(m, name))
                    .collect();
                let (median, lo, hi) = median_and_band(&mut v, band_lo);
                line.median.push(median);
                line.lo.push(lo);
                line.hi.push(hi);
            }
            series.push(line);
        }
    }
    Ok(ScjgPresetResult::Sweep(ScjgSweepResult {
        preset: def.name.to_string(),
        description: def.description.to_string(),
        x_label: def.x_label.clone(),
        x: def.x.clone(),
        seeds: o.seeds,
        confidence,
        options: o.clone(),
        series,
    }))
}

/// The livelock preset's runs: (label, site order, courtesy lock).
const LIVELOCK_RUNS: [(&str, SiteOrder, bool); 3] = [
    ("opposed-backoff", SiteOrder::Opposed, false),
    ("opposed-courtesy", SiteOrder::Opposed, true),
    ("same-order", SiteOrder::Same, false),
];

/// The case of the livelock preset's run `run` (index into [`LIVELOCK_RUNS`]) and seed.
fn livelock_case(trace: &[Job], o: &PresetOptions, run: usize, seed: u64) -> Case {
    let (_, order, courtesy) = LIVELOCK_RUNS[run];
    let site0 = window(trace, o.start_day, o.days);
    let (local0, singles) = split_metajobs(&site0, 2.0, seed, Shape::Split(2), 1);
    // Each metajob arrives at both metaschedulers at once: a twin to the other one.
    let mut metajobs = Vec::with_capacity(2 * singles.len());
    for m in singles {
        let twin = Metajob {
            id: m.id + 1_000_000_000,
            scheduler: 1,
            ..m.clone()
        };
        metajobs.push(m);
        metajobs.push(twin);
    }
    let local = vec![local0, window(trace, o.start_day + o.days, o.days)];
    let delay = SimTime::from_secs_f64(o.delay_s);
    let params = ScjgParams {
        metaschedulers: 2,
        delay,
        order,
        courtesy: courtesy.then_some(SimTime(delay.0 * 3).max(SimTime(1))),
        seed,
        ..ScjgParams::default()
    };
    Case {
        local,
        metajobs,
        params,
    }
}

fn livelock_task(
    trace: &[Job],
    o: &PresetOptions,
    run: usize,
    seed: u64,
) -> Result<(ScjgMetrics, Vec<TimelineEntry>), String> {
    let c = livelock_case(trace, o, run, seed);
    one(o, &c.local, &c.metajobs, &c.params)
}

/// The case the page inspects for preset `name`: the middle point of a sweep (scheme `ar`)
/// or the livelock's first run, seed 1.
pub(crate) fn inspection_case(
    name: &str,
    trace: &[Job],
    o: &PresetOptions,
) -> Result<Case, String> {
    check_options(o, trace.len())?;
    Ok(match name {
        "scjg-fraction" | "scjg-ar-vs-lockdown" => {
            let x = o.percents[o.percents.len() / 2];
            sweep_case(name, trace, o, x, "ar", 1)
        }
        "scjg-sites" => sweep_case(name, trace, o, 3.0, "ar", 1),
        "scjg-livelock" => livelock_case(trace, o, 0, 1),
        other => return Err(format!("unknown SCJG preset '{other}'")),
    })
}

/// The sites of a case.
pub(crate) fn case_sites(o: &PresetOptions, n: usize) -> Vec<SiteSpec> {
    (0..n)
        .map(|i| SiteSpec {
            name: format!("site{}", i + 1),
            units: o.units,
            policy: o.policy,
        })
        .collect()
}

fn run_livelock(
    description: &str,
    trace: &[Job],
    o: &PresetOptions,
    threads: usize,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<ScjgPresetResult, String> {
    let seeds = o.seeds as usize;
    let n = LIVELOCK_RUNS.len() * seeds;
    let work = |i: usize| livelock_task(trace, o, i / seeds, (i % seeds) as u64 + 1);
    let results = map_in_order(n, threads, &work, &mut |d, t| progress(d as u64, t as u64))
        .ok_or("cancelled")?;
    let mut results: Vec<(ScjgMetrics, Vec<TimelineEntry>)> =
        results.into_iter().collect::<Result<_, _>>()?;
    let mut runs = Vec::new();
    for (r, &(label, _, _)) in LIVELOCK_RUNS.iter().enumerate() {
        let chunk = &mut results[r * seeds..(r + 1) * seeds];
        let metrics = median_metrics(chunk.iter().map(|x| &x.0).collect())?;
        runs.push(ScjgRunSummary {
            label: label.to_string(),
            metrics,
            timeline: std::mem::take(&mut chunk[0].1),
        });
    }
    Ok(ScjgPresetResult::Runs(ScjgRunsResult {
        preset: "scjg-livelock".into(),
        description: description.to_string(),
        seeds: o.seeds,
        options: o.clone(),
        runs,
    }))
}

/// The median of every number over the seeds (field by field, through the serde shape).
/// A step that fails is an error: a run of all-zero metrics would look like a result.
fn median_metrics(v: Vec<&ScjgMetrics>) -> Result<ScjgMetrics, String> {
    let failed = |e: serde_json::Error| format!("the median of the SCJG metrics failed: {e}");
    let values: Vec<serde_json::Value> = v
        .iter()
        .map(|m| serde_json::to_value(m).map_err(failed))
        .collect::<Result<_, _>>()?;
    let Some(serde_json::Value::Object(first)) = values.first() else {
        return Err("the median of the SCJG metrics failed: no seed ran".into());
    };
    let mut out = serde_json::Map::new();
    for key in first.keys() {
        let mut xs: Vec<f64> = values.iter().filter_map(|x| x.get(key)?.as_f64()).collect();
        let value = if xs.is_empty() {
            serde_json::Value::Null
        } else {
            let (median, _, _) = median_and_band(&mut xs, 0);
            if first[key].is_u64() {
                serde_json::json!(median.round() as u64)
            } else {
                serde_json::json!(median)
            }
        };
        out.insert(key.clone(), value);
    }
    serde_json::from_value(serde_json::Value::Object(out)).map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_metrics_is_taken_field_by_field() {
        let m = |u: f64, n: u64| ScjgMetrics {
            utilization: u,
            metajobs: n,
            ..ScjgMetrics::default()
        };
        let (a, b, c) = (m(0.5, 7), m(0.25, 9), m(0.75, 8));
        let got = median_metrics(vec![&a, &b, &c]).unwrap();
        assert_eq!((got.utilization, got.metajobs), (0.5, 8));
        // A NaN has no median: an error, not a run of zeros.
        let nan = m(f64::NAN, 1);
        assert!(median_metrics(vec![&nan]).is_err());
        assert!(median_metrics(vec![]).is_err());
    }
}
