//! What a scenario run produced: the [`Report`] of its runs, and its per-job CSV.

use serde::{Deserialize, Serialize};

use crate::engine::{EstimateSource, EventOrder, RunConfig};
use crate::metrics::csv::field as csv_field;
use crate::metrics::Metrics;
use crate::model::Platform;
use crate::workload::{ImportReport, Workload};

/// Everything a scenario run produced.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub scenario: String,
    pub platform: Platform,
    /// How the platform was chosen (for `from_trace`).
    pub platform_note: String,
    /// The workload's offered load on the platform ([`crate::metrics::offered_load`]);
    /// `null` without an arrival span.
    pub offered_load: Option<f64>,
    pub conventions: Conventions,
    pub runs: Vec<RunReport>,
    pub import: ImportReport,
    #[serde(skip)]
    pub workload: Workload,
}

#[derive(Clone, Debug, Serialize)]
pub struct Conventions {
    pub estimates: &'static str,
    pub kill_at_estimate: bool,
    pub time_unit: &'static str,
    pub same_instant_order: &'static str,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    pub label: String,
    pub algorithm: String,
    pub metrics: Metrics,
    /// Rejected jobs with their reasons (the first 20; `metrics.jobs_rejected` counts all).
    pub rejected: Vec<String>,
    pub events: u64,
    pub max_queue: usize,
    /// Utilization and queue length over time, when asked for (`--series N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<crate::metrics::Series>,
    #[serde(skip)]
    pub outcomes: Vec<crate::engine::Outcome>,
    /// The nodes each job ran on, on node-typed sites (issue #37; empty without them).
    #[serde(skip)]
    pub placements: crate::model::Placements,
    /// Cores, memory and GPUs held and stranded, on node-typed sites (issue #37,
    /// [`crate::metrics::resources`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<crate::metrics::resources::RunResources>,
    /// Joules and watts, on sites whose node types say what they draw (issue #40).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy: Option<super::energy::RunEnergy>,
    /// What nodes going down did, in a run with outages (issue #41).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failures: Option<super::failures::RunFailures>,
    /// The run's failure log (its down times and killed runs), for the series and the
    /// page's Gantt chart; `failures` is its summary.
    #[serde(skip)]
    pub failure_log: Option<crate::engine::FailureLog>,
    /// What the idle-timeout power policy did (its switch-offs and the jobs that waited
    /// for boots), for the energy under a carbon series; `energy.idle_off` is its summary.
    #[serde(skip)]
    pub power_log: Option<crate::engine::PowerLog>,
    /// The run's waits against the log's, when asked for and the log has them (issue #42,
    /// `simulate --vs-log`: [`crate::metrics::vs_log`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_log: Option<crate::metrics::VsLog>,
    /// Each job's grams of CO₂, on a run with energy under a carbon series
    /// (`scenario::energy::job_emissions`; the per-job CSV's `emissions_g`).
    #[serde(skip)]
    pub job_emissions_g: Option<Vec<f64>>,
}

/// The per-job CSV: `job_id,home,site,submit,start,end,procs`, one row per job that ran,
/// times in seconds from the first submit (integers when exact); a run on node-typed sites
/// adds `nodes`, the node numbers each job held on its site (Batsim's interval notation);
/// a run with energy adds `energy_j`, and under a carbon series `emissions_g` (each job's
/// share of its nodes' power times the grid's intensity while it ran); a run set against
/// the log (`vs_log`) adds `logged_wait`, the job's wait in the log (empty where it has
/// none).
pub fn jobs_csv(report: &Report, run: &RunReport) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(run.outcomes.len() * 40 + 64);
    let placed = !run.placements.is_empty();
    // Each job's joules, on a run with energy (issue #40): its share of its nodes' power.
    let energy = run
        .energy
        .as_ref()
        .and_then(|_| {
            super::energy::job_energy(
                &report.platform,
                &run.outcomes,
                &run.placements,
                run.power_log.as_ref(),
            )
            .ok()
        })
        .flatten();
    out.push_str("job_id,home,site,submit,start,end,procs");
    out.push_str(if placed { ",nodes" } else { "" });
    out.push_str(if energy.is_some() { ",energy_j" } else { "" });
    let grams = run.job_emissions_g.as_ref().filter(|_| energy.is_some());
    out.push_str(if grams.is_some() { ",emissions_g" } else { "" });
    let waits = &report.workload.logged_waits;
    let logged = run.vs_log.is_some() && waits.len() == report.workload.jobs.len();
    out.push_str(if logged { ",logged_wait\n" } else { "\n" });
    let name = |i: u32| csv_field(&report.platform.sites[i as usize].name);
    let names: Vec<String> = (0..report.platform.sites.len() as u32).map(name).collect();
    for (i, (j, o)) in report.workload.jobs.iter().zip(&run.outcomes).enumerate() {
        if !o.ran() {
            continue;
        }
        let _ = write!(
            out,
            "{},{},{},{},{},{},{}",
            j.id,
            names
                .get(j.home as usize)
                .map(String::as_str)
                .unwrap_or("?"),
            names[o.site as usize],
            j.submit,
            o.start,
            o.end,
            j.procs
        );
        if placed {
            let _ = write!(out, ",{}", run.placements.nodes_text(i));
        }
        if let Some(j) = energy.as_ref().and_then(|e| e.get(i)) {
            let _ = write!(out, ",{j:.3}");
        }
        if let Some(g) = grams.and_then(|g| g.get(i)) {
            let _ = write!(out, ",{g:.6}");
        }
        if logged {
            out.push(',');
            if let Some(w) = waits[i] {
                let _ = write!(out, "{w}");
            }
        }
        out.push('\n');
    }
    out
}

/// The conventions every report states.
pub fn conventions(cfg: &RunConfig) -> Conventions {
    Conventions {
        estimates: match cfg.estimates {
            EstimateSource::Trace => "trace (SWF field 9; runtime when missing)",
            EstimateSource::Exact => "exact (the real runtime)",
        },
        kill_at_estimate: cfg.kill_at_estimate,
        time_unit: "seconds from the workload's first submit",
        same_instant_order: match cfg.event_order {
            EventOrder::Gridscope => {
                "completions, then arrivals in input order, then one scheduling pass per site"
            }
            EventOrder::Pyss => {
                "pyss: jobs ending at their estimate freed, then each arrival and each other event with a scheduling pass after it"
            }
            EventOrder::Cqsim => {
                "cqsim: each completion, then each arrival, with a scheduling pass after each"
            }
        },
    }
}
