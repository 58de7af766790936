//! One run of a preset, looked at closely (the page's SCJG panel): every site's jobs over
//! two days as a Gantt chart with the metajobs' reservations outlined and their components
//! marked (the same metajob id on every site it spans), and SCJG Fig. 2's three answers —
//! yes/no, one range, the range list — of every site to one metajob's query.

use serde::{Deserialize, Serialize};

use super::meta::intersect;
use super::presets::{case_sites, inspection_case, PresetOptions};
use super::{simulate, MetaStatus, ScjgInput, ScjgOutput, ScjgParams};
use crate::model::packing::{pack_units, Interval};
use crate::model::Job;
use crate::time::SimTime;

/// Rectangles drawn per site at most.
const MAX_RECTS: usize = 20_000;
/// The window shown: from 6 h before the probed metajob's submission, 48 h long.
const BEFORE_S: i64 = 6 * 3600;
const WINDOW_S: i64 = 48 * 3600;

/// One site's Gantt chart.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SiteGantt {
    pub name: String,
    pub capacity: u32,
    /// `(job id, start s, end s, first unit, units, is a metajob component)`.
    pub rects: Vec<(i64, f64, f64, u32, u32, bool)>,
    /// Metajob reservations: `(metajob id, start s, end s = start + wallclock, units)`.
    pub reservations: Vec<(i64, f64, f64, u32)>,
    /// Lock-down windows `(start s, end s)` and the block's units.
    pub windows: Vec<(f64, f64)>,
    pub block_units: u32,
    pub truncated: bool,
}

/// One site's answers to the probed query.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct QuerySite {
    pub name: String,
    pub units: u32,
    /// Could it start at the first instant asked for?
    pub yes: bool,
    /// The first range of start times.
    pub first: Option<(f64, f64)>,
    pub ranges: Vec<(f64, f64)>,
}

/// SCJG Fig. 2 for one metajob.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct QueryView {
    pub metajob: i64,
    pub at_s: f64,
    pub from_s: f64,
    pub wallclock_s: f64,
    pub sites: Vec<QuerySite>,
    /// The intersection of the sites' range lists (for a metajob spanning them).
    pub common: Vec<(f64, f64)>,
    /// The start it finally got, if it ran.
    pub start_s: Option<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Inspection {
    pub title: String,
    pub from_s: f64,
    pub to_s: f64,
    pub sites: Vec<SiteGantt>,
    pub query: Option<QueryView>,
}

fn secs(t: SimTime) -> f64 {
    t.as_secs_f64()
}

/// The inspection of preset `name` (see `presets::inspection_case`): the metajob probed is
/// the first that had to retry, else the one that waited longest.
pub fn inspect(name: &str, trace: &[Job], o: &PresetOptions) -> Result<Inspection, String> {
    let case = inspection_case(name, trace, o)?;
    let sites = case_sites(o, case.local.len());
    let slices: Vec<&[Job]> = case.local.iter().map(|v| v.as_slice()).collect();
    let run = |params: &ScjgParams| {
        simulate(
            ScjgInput {
                sites: &sites,
                local: &slices,
                metajobs: &case.metajobs,
            },
            params,
        )
    };
    let first = run(&case.params)?;
    let waited = |m: usize| match first.meta[m].status {
        MetaStatus::Ran { start, .. } => start - case.metajobs[m].submit,
        _ => SimTime::ZERO,
    };
    let pick = (0..case.metajobs.len())
        .find(|&m| first.meta[m].retries > 0)
        .or_else(|| (0..case.metajobs.len()).max_by_key(|&m| (waited(m), std::cmp::Reverse(m))));
    let out = match pick {
        Some(m) => run(&ScjgParams {
            probe: Some(m as u32),
            ..case.params
        })?,
        None => first,
    };
    let center = pick.map_or(SimTime::ZERO, |m| case.metajobs[m].submit);
    let from = center - SimTime::from_secs(BEFORE_S);
    let to = from + SimTime::from_secs(WINDOW_S);
    let gantts = (0..sites.len())
        .map(|s| {
            site_gantt(
                &case.local[s],
                &case.metajobs,
                &case.params,
                &out,
                s,
                from,
                to,
                o,
            )
        })
        .collect();
    let query = out
        .probe
        .as_ref()
        .map(|p| query_view(p, &case.metajobs, &out, &sites));
    Ok(Inspection {
        title: format!("{name}: one run (seed 1), {} site(s)", sites.len()),
        from_s: secs(from),
        to_s: secs(to),
        sites: gantts,
        query,
    })
}

#[allow(clippy::too_many_arguments)]
fn site_gantt(
    local: &[Job],
    metajobs: &[super::Metajob],
    params: &ScjgParams,
    out: &ScjgOutput,
    s: usize,
    from: SimTime,
    to: SimTime,
    o: &PresetOptions,
) -> SiteGantt {
    let mut items: Vec<Interval> = Vec::new();
    let mut is_meta: Vec<bool> = Vec::new();
    for (job, lo) in local.iter().zip(&out.local[s]) {
        if let Some(start) = lo.start {
            items.push((job.id, start, lo.end, job.procs));
            is_meta.push(false);
        }
    }
    let mut reservations = Vec::new();
    let lockdown = match params.mode {
        super::Mode::Lockdown(l) if s == 0 => Some(l),
        _ => None,
    };
    for (mj, mo) in metajobs.iter().zip(&out.meta) {
        let MetaStatus::Ran { start, end, parts } = &mo.status else {
            continue;
        };
        for &(site, units) in parts {
            if site as usize != s || lockdown.is_some() {
                continue;
            }
            items.push((mj.id, *start, *end, units));
            is_meta.push(true);
            if *start < to && *start + mj.wallclock > from {
                reservations.push((mj.id, secs(*start), secs(*start + mj.wallclock), units));
            }
        }
    }
    let (placed, truncated) = pack_units(&items, o.units, from, to, MAX_RECTS);
    let rects = placed
        .into_iter()
        .map(|(k, lo, n)| {
            let (id, st, en, _) = items[k];
            (id, secs(st), secs(en), lo, n, is_meta[k])
        })
        .collect();
    let windows = match lockdown {
        Some(_) => out
            .windows
            .iter()
            .filter(|w| w.0 < to && w.1 > from)
            .map(|w| (secs(w.0), secs(w.1)))
            .collect(),
        None => Vec::new(),
    };
    SiteGantt {
        name: format!("site{}", s + 1),
        capacity: o.units,
        rects,
        reservations,
        windows,
        block_units: lockdown.map_or(0, |l| l.units),
        truncated,
    }
}

fn query_view(
    p: &super::Probe,
    metajobs: &[super::Metajob],
    out: &ScjgOutput,
    sites: &[super::SiteSpec],
) -> QueryView {
    let mj = &metajobs[p.metajob as usize];
    let spans = matches!(&mj.request, super::Request::Specified(parts) if parts.len() > 1);
    let pair = |r: &(SimTime, SimTime)| (secs(r.0), secs(r.1));
    let mut common: Option<Vec<(SimTime, SimTime)>> = None;
    let view_sites = p
        .sites
        .iter()
        .map(|(s, units, ranges)| {
            common = Some(match common.take() {
                None => ranges.clone(),
                Some(c) => intersect(&c, ranges),
            });
            QuerySite {
                name: sites[*s as usize].name.clone(),
                units: *units,
                yes: ranges.iter().any(|r| r.0 <= p.from && p.from <= r.1),
                first: ranges.first().map(pair),
                ranges: ranges.iter().map(pair).collect(),
            }
        })
        .collect();
    QueryView {
        metajob: mj.id,
        at_s: secs(p.at),
        from_s: secs(p.from),
        wallclock_s: secs(mj.wallclock),
        sites: view_sites,
        common: match (spans, common) {
            (true, Some(c)) => c.iter().map(pair).collect(),
            _ => Vec::new(),
        },
        start_s: match out.meta[p.metajob as usize].status {
            MetaStatus::Ran { start, .. } => Some(secs(start)),
            _ => None,
        },
    }
}
