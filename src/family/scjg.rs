//! SCJG: co-allocating jobs across sites by advance reservation — metajobs placed in
//! reservations against a lock-down block, several sites, and the livelock of two
//! metaschedulers (docs/scjg.md). The model is `crate::scjg`; this is the family's face to
//! the edges. Every preset reads one trace (SDSC-SP2 by default) through the caller.

use std::fmt::Write;

use super::text::{band_table, case_label, numbers, one_newline, sweep_header};
use super::OptInfo;
use super::{
    merged, CaseRun, Ctx, Family, FamilyError, FamilyInfo, FamilyReport, MetricInfo, Opt,
    PresetArgs, Quantity, RunSpec,
};
use serde_json::Value;

use crate::model::Job;
use crate::scjg::inspect::inspect;
use crate::scjg::presets::{
    run_preset, sweep_point_seed, PresetOptions, ScjgPresetResult, ScjgRunsResult, ScjgSweepResult,
    DEFAULT_SEEDS, DEFAULT_TRACE, SCJG_PRESETS,
};
use crate::workload::{read_swf, SwfOptions};

/// The SCJG family.
pub struct Scjg;

/// The presets whose x is the share of metajobs (`--x`).
const SHARE_SWEEPS: [&str; 2] = ["scjg-fraction", "scjg-ar-vs-lockdown"];
/// The presets a cluster manifest can split into (x, seed) cases.
const SPLITTABLE: [&str; 3] = ["scjg-fraction", "scjg-ar-vs-lockdown", "scjg-sites"];
const SITES: &str = "scjg-sites";

/// What the registry and the edges say of the family.
const INFO: FamilyInfo = FamilyInfo {
    id: "scjg",
    title: "SCJG: co-allocation by advance reservation",
    doc: "docs/scjg.md",
    default_seeds: DEFAULT_SEEDS,
    metrics: &METRICS,
    label: "SCJG reservations",
    about: "SCJG: metajobs co-allocated with advance reservations against lock-down",
    intro: "A metascheduler places metajobs through advance reservations on the sites' local schedulers — query every site's range list, pick the earliest common start, reserve on each site, and on any failure release all and back off — instead of locking a block of nodes for them every day. Local jobs are backfilled around the reservations. Source: Snell, Clement, Jackson, Gregory (docs/scjg.md).",
    options: &[
        OptInfo {
            opt: Opt::Traces,
            name: "Trace file",
            help: "An SWF trace (plain or .gz) of an SP-like machine; the presets take 10-day windows of it from day 270 on, on 128-node sites (the CLI uses SDSC-SP2-1998-4.2-cln.swf.gz from the Parallel Workloads Archive, 128 nodes, jobs of 1–128 nodes like SCJG's MHPCC trace). The file is read in this tab's worker and never leaves the machine.",
        },
        OptInfo {
            opt: Opt::Seeds,
            name: "Seeds",
            help: "Each seed draws which jobs become metajobs (a seeded permutation, so a larger share keeps a smaller one's metajobs) and the metaschedulers' back-off streams. Figures are medians over the seeds with an order-statistic band. The CLI's --seeds, default 5.",
        },
        OptInfo {
            opt: Opt::X,
            name: "Metajob %",
            help: "Metajob shares in percent of the window's jobs, comma-separated (scjg-fraction and scjg-ar-vs-lockdown; SCJG Figs. 5–7 sweep 0 to about 10 %). The CLI's --x.",
        },
    ],
};

/// The metrics of SCJG's runs (docs/scjg.md).
const METRICS: [MetricInfo; 12] = [
    MetricInfo {
        key: "utilization",
        name: "utilization",
        quantity: Quantity::Ratio,
        help: "Work of local jobs and metajob components inside the arrival window [first, last submission] / (nodes × its length). SCJG Figs. 5 and 7: reservations fragment the node-time map, so less work fits in the period.",
    },
    MetricInfo {
        key: "avg_expansion_factor",
        name: "expansion factor (Maui)",
        quantity: Quantity::Ratio,
        help: "Mean of (QueueTime + RunTime) / WallClockLimit over every job that ran — Maui's expansion factor (SCJG §4, Fig. 6); the canonical 1 + QueueTime / WallClockLimit is in the CLI's JSON.",
    },
    MetricInfo {
        key: "local_expansion_factor",
        name: "local jobs' expansion factor",
        quantity: Quantity::Ratio,
        help: "Maui's expansion factor over local jobs only: what metajobs cost the local workload (SCJG §4).",
    },
    MetricInfo {
        key: "metajob_expansion_factor",
        name: "metajobs' expansion factor",
        quantity: Quantity::Ratio,
        help: "Maui's expansion factor over metajobs only (queue time = submission → common start).",
    },
    MetricInfo {
        key: "metajob_queue_s",
        name: "metajob queue time",
        quantity: Quantity::Seconds,
        help: "Mean of common start − submission over metajobs that ran (SCJG Fig. 8).",
    },
    MetricInfo {
        key: "local_wait_s",
        name: "local wait",
        quantity: Quantity::Seconds,
        help: "Mean of start − submission over local jobs.",
    },
    MetricInfo {
        key: "retries",
        name: "retries per metajob",
        quantity: Quantity::Ratio,
        help: "Failed reservation rounds per metajob (each followed by a release of all its reservations and a back-off; SCJG §3.3 step 5).",
    },
    MetricInfo {
        key: "lockdown_utilization",
        name: "lock-down block utilization",
        quantity: Quantity::Ratio,
        help: "Block metajobs' work / (block nodes × open window time), inside the arrival window (lock-down only; SCJG Fig. 7's block, whose utilization the paper assigned).",
    },
    MetricInfo {
        key: "max_retries_seen",
        name: "most retries of one metajob",
        quantity: Quantity::Count,
        help: "",
    },
    MetricInfo {
        key: "metajobs_failed",
        name: "metajobs failed",
        quantity: Quantity::Count,
        help: "",
    },
    MetricInfo {
        key: "metajobs_rejected",
        name: "metajobs rejected",
        quantity: Quantity::Count,
        help: "",
    },
    MetricInfo {
        key: "lock_wait_s",
        name: "lock-down wait",
        quantity: Quantity::Seconds,
        help: "",
    },
];

impl Family for Scjg {
    fn info(&self) -> &'static FamilyInfo {
        &INFO
    }
    fn presets(&self) -> Vec<(&'static str, &'static str)> {
        SCJG_PRESETS.to_vec()
    }
    fn takes(&self, preset: &str) -> Vec<Opt> {
        let mut takes = vec![Opt::Seeds, Opt::Traces];
        if SHARE_SWEEPS.contains(&preset) {
            takes.push(Opt::X);
        }
        takes
    }
    fn not_taken(&self, flag: &str, preset: &str) -> String {
        format!(
            "{flag} does not apply to {preset} (SCJG presets take --seeds, --traces and, for the share sweeps, --x = metajob percentages)"
        )
    }
    fn spec(&self, preset: &str, a: &PresetArgs) -> Result<RunSpec, FamilyError> {
        Ok(RunSpec {
            preset: preset.to_string(),
            seeds: a.seeds,
            x: a.x.clone(),
            ..RunSpec::default()
        })
    }

    fn run(&self, spec: &RunSpec, ctx: &mut Ctx) -> Result<Box<dyn FamilyReport>, FamilyError> {
        let jobs = trace(ctx.load)?;
        let options = run_options(spec)?;
        let r = run_preset(&spec.preset, &jobs, &options, ctx.threads, ctx.progress)?;
        Ok(Box::new(r))
    }
    /// One run of the preset inspected (the first metajob that had to retry, else the one
    /// that waited longest): each site's schedule and its answers to one query (SCJG Fig. 2).
    fn detail(&self, spec: &RunSpec, ctx: &mut Ctx) -> Result<Option<Value>, FamilyError> {
        let jobs = trace(ctx.load)?;
        let inspection = inspect(&spec.preset, &jobs, &run_options(spec)?)?;
        Ok(Some(super::to_value(&inspection)?))
    }
    fn sweep_x(&self, spec: &RunSpec) -> Option<Vec<f64>> {
        Some(match (&spec.x, spec.preset.as_str()) {
            (Some(x), _) => x.clone(),
            (None, SITES) => vec![1.0, 2.0, 3.0, 4.0],
            (None, _) => PresetOptions::default().percents,
        })
    }

    fn traces(&self, _spec: &RunSpec) -> Vec<String> {
        vec![DEFAULT_TRACE.to_string()]
    }
    fn splits(&self, preset: &str) -> bool {
        SPLITTABLE.contains(&preset)
    }
    fn check_case(&self, spec: &RunSpec) -> Result<(), FamilyError> {
        merged(&PresetOptions::default(), &spec.scjg, "the SCJG options")?;
        Ok(())
    }
    /// About 2,000 jobs a window × two schemes × the points.
    fn case_work(&self, spec: &RunSpec) -> f64 {
        2_000.0 * 2.0 * spec.x.as_ref().map_or(1, Vec::len) as f64
    }
    fn run_case(
        &self,
        spec: &RunSpec,
        seed: u64,
        load: &mut super::Load,
    ) -> Result<Vec<CaseRun>, FamilyError> {
        let jobs = trace(load)?;
        let mut options = merged(&PresetOptions::default(), &spec.scjg, "the SCJG options")?;
        if let Some(x) = &spec.x {
            options.percents = x.clone();
        }
        let xs = match (&spec.x, spec.preset.as_str()) {
            (Some(x), _) => x.clone(),
            (None, SITES) => vec![1.0, 2.0, 3.0, 4.0],
            (None, _) => options.percents.clone(),
        };
        let mut out = Vec::new();
        for &x in &xs {
            for (scheme, values) in sweep_point_seed(&spec.preset, &jobs, &options, x, seed)? {
                out.push(CaseRun {
                    label: case_label(&scheme, x, xs.len()),
                    algorithm: scheme.clone(),
                    metrics: numbers(values.iter().map(|(n, v)| (n.as_str(), *v))),
                });
            }
        }
        Ok(out)
    }
}

/// The preset's options with the spec's changes, seeds and metajob shares.
fn run_options(spec: &RunSpec) -> Result<PresetOptions, FamilyError> {
    let mut options = merged(&PresetOptions::default(), &spec.scjg, "the SCJG options")?;
    options.seeds = spec.seeds.unwrap_or(0);
    if let Some(x) = &spec.x {
        options.percents = x.clone();
    }
    Ok(options)
}

/// The presets' trace, read through the caller.
fn trace(load: &mut super::Load) -> Result<Vec<Job>, FamilyError> {
    let bytes = load(DEFAULT_TRACE).map_err(|e| FamilyError::load(DEFAULT_TRACE, e))?;
    let w = read_swf(DEFAULT_TRACE, &bytes, &SwfOptions::default())
        .map_err(|e| FamilyError::load(DEFAULT_TRACE, e))?;
    Ok(w.jobs)
}

fn sweep_table(r: &ScjgSweepResult) -> String {
    let header = sweep_header(&r.preset, &r.description, r.seeds, r.confidence, &r.x_label);
    band_table(header, &r.x, &r.series, 3)
}

fn runs_table(r: &ScjgRunsResult) -> String {
    let mut s = format!(
        "{}: {}\n{} seeds (medians)\n\n{:<18} {:>8} {:>9} {:>9} {:>8} {:>12} {:>12} {:>10}\n",
        r.preset,
        r.description,
        r.seeds,
        "run",
        "util",
        "retries",
        "max",
        "failed",
        "meta queue s",
        "backoff s",
        "lock wait"
    );
    for run in &r.runs {
        let m = &run.metrics;
        let _ = writeln!(
            s,
            "{:<18} {:>8.3} {:>9.2} {:>9} {:>8} {:>12.0} {:>12.0} {:>10.0}",
            run.label,
            m.utilization,
            m.retries,
            m.max_retries_seen,
            m.metajobs_failed,
            m.metajob_queue_s,
            m.backoff_s,
            m.lock_wait_s
        );
    }
    s
}

fn table(r: &ScjgPresetResult) -> String {
    one_newline(match r {
        ScjgPresetResult::Sweep(s) => sweep_table(s),
        ScjgPresetResult::Runs(r) => runs_table(r),
    })
}

super::report!(ScjgPresetResult, table);
