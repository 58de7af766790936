//! A scenario's report as the CLI gives it: the optional series, the per-job CSV files, then
//! JSON or the tables on stdout.

use std::fmt::Write;
use std::path::PathBuf;

use gridscope::engine::RunConfig;
use gridscope::limits::{Limit, Limits};
use gridscope::metrics::batsim::batsim_jobs_csv;
use gridscope::metrics::VsLog;
use gridscope::scenario::{jobs_csv, Report};

use crate::cli::{JobsFormat, ReportArgs};
use crate::{output, CliError};

/// Adds the series, writes each run's jobs to `jobs_files` (one per run, or none) and prints
/// the report.
pub fn finish(
    args: &ReportArgs,
    report: &mut Report,
    jobs_files: &[PathBuf],
    cfg: &RunConfig,
    limits: &Limits,
) -> Result<(), CliError> {
    if let Some(buckets) = args.series {
        check_series(
            limits,
            buckets,
            report.platform.sites.len(),
            report.runs.len(),
        )?;
        for run in &mut report.runs {
            let downtimes = run.failure_log.as_ref().map_or(&[][..], |l| &l.downtimes);
            let mut series = gridscope::metrics::series_with_downtimes(
                &report.platform,
                &report.workload.jobs,
                &run.outcomes,
                &run.placements,
                buckets,
                downtimes,
            );
            gridscope::metrics::resources::add_resource_series(
                &report.platform,
                &run.outcomes,
                &run.placements,
                &mut series,
            );
            run.series = Some(series);
        }
    }
    if args.vs_log {
        add_vs_log(report)?;
    }
    for (run, path) in report.runs.iter().zip(jobs_files) {
        let text = match args.jobs_format {
            JobsFormat::Gridscope => jobs_csv(report, run),
            JobsFormat::Batsim => batsim_jobs_csv(
                &report.platform,
                &report.workload.jobs,
                &run.outcomes,
                &run.placements,
                cfg,
                &report.workload.name,
            )
            .map_err(CliError::Failed)?,
        };
        output::write_file(path, text.as_bytes())?;
    }
    if args.json {
        output::stdout(&format!("{}\n", json(report)))
    } else {
        output::stdout(&table(report))
    }
}

/// `--vs-log`: each run's waits against the log's (issue #42, docs/slurm.md); a log that
/// records no wait is an error, not an empty comparison.
fn add_vs_log(report: &mut Report) -> Result<(), CliError> {
    let w = &report.workload;
    if w.logged_waits.is_empty() {
        return Err(CliError::Failed(format!(
            "--vs-log: {} records no job's wait (SWF/GWF field 3 is -1 throughout, or no sacct Start), so there is nothing to set the runs against",
            w.name
        )));
    }
    for run in &mut report.runs {
        run.vs_log = gridscope::metrics::vs_log(&w.jobs, &w.logged_waits, &run.outcomes);
    }
    Ok(())
}

/// `--series N` holds N points per site and run, two numbers each: 100,000 buckets on a
/// 1,000-site platform were 4 GiB and an aborted process. Checked before the run where the
/// scenario names its sites, and again before the series are made.
pub fn check_series(
    limits: &Limits,
    buckets: usize,
    sites: usize,
    runs: usize,
) -> Result<(), CliError> {
    let points = (buckets as u64)
        .saturating_mul(sites as u64)
        .saturating_mul(runs as u64);
    limits
        .check(
            Limit::SeriesPoints,
            points,
            &format!("--series {buckets} on {sites} sites × {runs} runs"),
        )
        .map_err(CliError::Limit)
}

/// Pretty JSON (serialization of these types cannot fail; say so if it ever does).
pub fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}

/// The import summary, the platform and conventions, one row of metrics per run, per-site
/// utilization on a multi-site platform, and the rejected jobs.
fn table(report: &Report) -> String {
    let mut s = report.import.summary();
    let _ = writeln!(
        s,
        "platform: {} ({}); estimates: {}; kill at estimate: {}",
        report.platform.name,
        report.platform_note,
        report.conventions.estimates,
        report.conventions.kill_at_estimate
    );
    if let Some(load) = report.offered_load {
        let _ =
            writeln!(
            s,
            "offered load: {load:.3} (work brought ÷ what the platform can do while it arrives){}",
            if load > 1.0 { "; above 1 the queues grow all run" } else { "" }
        );
    }
    s.push('\n');
    let header = [
        "algorithm",
        "avg wait s",
        "avg resp s",
        "wait sd s",
        "bsld",
        "util",
        "grid eff",
        "xfer",
        "makespan s",
        "finished",
        "rejected",
    ];
    let mut rows = vec![header.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
    for r in &report.runs {
        let m = &r.metrics;
        rows.push(vec![
            r.label.clone(),
            format!("{:.1}", m.avg_wait_s),
            format!("{:.1}", m.avg_response_s),
            format!("{:.1}", m.wait_stddev_s),
            format!("{:.2}", m.avg_bounded_slowdown),
            format!("{:.3}", m.utilization),
            format!("{:.3}", m.grid_efficiency),
            format!("{:.3}", m.fraction_transferred),
            format!("{:.0}", m.makespan_s),
            m.jobs_finished.to_string(),
            m.jobs_rejected.to_string(),
        ]);
    }
    s.push_str(&aligned(&rows, &[18, 12, 14, 12, 10, 8, 9, 7, 14, 10, 9]));
    if report.platform.sites.len() > 1 {
        per_site(report, &mut s);
    }
    by_width(report, &mut s);
    resources(report, &mut s);
    energy(report, &mut s);
    failures(report, &mut s);
    vs_log(report, &mut s);
    for r in &report.runs {
        for line in &r.rejected {
            let _ = writeln!(s, "{}: rejected {line}", r.label);
        }
    }
    s
}

/// Each run's cores, memory and GPUs held and stranded, on node-typed sites (docs/nodes.md).
fn resources(report: &Report, s: &mut String) {
    let runs: Vec<_> = report
        .runs
        .iter()
        .filter_map(|r| Some((r, r.resources.as_ref()?)))
        .collect();
    if runs.is_empty() {
        return;
    }
    s.push_str("\nresources on nodes, share of capacity × makespan (docs/nodes.md):\n");
    let memory = runs.iter().any(|(_, x)| x.all.memory_kb.is_some());
    let gpus = runs.iter().any(|(_, x)| x.all.gpus.is_some());
    let mut header = vec!["algorithm", "cores used", "cores stranded"];
    if memory {
        header.extend(["memory used", "memory stranded"]);
    }
    if gpus {
        header.extend(["GPUs used", "GPUs stranded"]);
    }
    let mut rows = vec![header.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
    let pair = |u: Option<&gridscope::metrics::resources::ResourceUse>| match u {
        Some(u) => [
            format!("{:.3}", u.utilization),
            format!("{:.3}", u.stranded),
        ],
        None => ["-".into(), "-".into()],
    };
    for (r, x) in runs {
        let mut row = vec![r.label.clone()];
        row.extend(pair(Some(&x.all.cores)));
        if memory {
            row.extend(pair(x.all.memory_kb.as_ref()));
        }
        if gpus {
            row.extend(pair(x.all.gpus.as_ref()));
        }
        rows.push(row);
    }
    s.push_str(&aligned(&rows, &[18, 11, 15, 12, 16, 10, 14]));
}

/// Each run's energy, when its platform's nodes say what they draw (docs/energy.md).
fn energy(report: &Report, s: &mut String) {
    if report.runs.iter().all(|r| r.energy.is_none()) {
        return;
    }
    s.push_str("\nenergy (node power models; docs/energy.md):\n");
    let carbon = report
        .runs
        .iter()
        .any(|r| r.energy.as_ref().is_some_and(|e| e.emissions_g.is_some()));
    let mut header = vec![
        "algorithm",
        "kWh",
        "computing kWh",
        "idle kWh",
        "avg W",
        "peak W",
    ];
    if carbon {
        header.extend(["kg CO2", "work kg CO2"]);
    }
    // Runs that switch idle nodes off say what it cost and what it did.
    let switching = report
        .runs
        .iter()
        .any(|r| r.energy.as_ref().is_some_and(|e| e.idle_off.is_some()));
    if switching {
        header.extend([
            "switching kWh",
            "off kWh",
            "switch-offs",
            "boots",
            "jobs waited",
            "boot wait h",
        ]);
    }
    let delays = report
        .runs
        .iter()
        .any(|r| r.energy.as_ref().is_some_and(|e| e.carbon_delay.is_some()));
    if delays {
        header.extend(["jobs held", "held h"]);
    }
    let mut rows = vec![header.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
    for r in &report.runs {
        let Some(e) = &r.energy else { continue };
        rows.push(vec![
            r.label.clone(),
            format!("{:.3}", e.total_kwh),
            format!("{:.3}", e.computing_j / 3.6e6),
            format!("{:.3}", e.idle_j / 3.6e6),
            format!("{:.1}", e.average_w),
            format!("{:.1}", e.peak_w),
        ]);
        if let (true, Some(row)) = (carbon, rows.last_mut()) {
            let kg = |g: Option<f64>| g.map_or("-".into(), |g| format!("{:.3}", g / 1000.0));
            row.extend([kg(e.emissions_g), kg(e.work_emissions_g)]);
        }
        if let (true, Some(row)) = (switching, rows.last_mut()) {
            let kwh = |j: Option<f64>| format!("{:.3}", j.unwrap_or(0.0) / 3.6e6);
            row.extend([kwh(e.switching_j), kwh(e.off_j)]);
            row.extend(match &e.idle_off {
                Some(o) => [
                    o.switch_offs.to_string(),
                    o.boots.to_string(),
                    o.jobs_delayed.to_string(),
                    format!("{:.2}", o.boot_wait_s / 3600.0),
                ],
                None => ["-", "-", "-", "-"].map(String::from),
            });
        }
        if let (true, Some(row)) = (delays, rows.last_mut()) {
            row.extend(match &e.carbon_delay {
                Some(d) => [d.jobs_held.to_string(), format!("{:.2}", d.held_s / 3600.0)],
                None => ["-", "-"].map(String::from),
            });
        }
    }
    s.push_str(&aligned(&rows, &[18, 12, 14, 12, 10, 10]));
}

/// Each run's failures, when nodes went down (docs/failures.md).
fn failures(report: &Report, s: &mut String) {
    if report.runs.iter().all(|r| r.failures.is_none()) {
        return;
    }
    s.push_str("\nfailures (docs/failures.md):\n");
    let header = [
        "algorithm",
        "down periods",
        "availability",
        "runs killed",
        "requeues",
        "jobs lost",
        "lost core-h",
        "goodput",
    ];
    let mut rows = vec![header.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
    // Killed jobs offered to the grid again: how many ran next elsewhere, last.
    let elsewhere = report.runs.iter().any(|r| {
        r.failures
            .as_ref()
            .is_some_and(|f| f.requeued_elsewhere.is_some())
    });
    if elsewhere {
        rows[0].push("requeued elsewhere".into());
    }
    for r in &report.runs {
        let Some(f) = &r.failures else { continue };
        rows.push(vec![
            r.label.clone(),
            f.downtimes.to_string(),
            format!("{:.4}", f.availability),
            f.runs_killed.to_string(),
            f.requeues.to_string(),
            f.jobs_lost.to_string(),
            format!("{:.1}", f.work_lost_core_h),
            format!("{:.4}", f.goodput),
        ]);
        if elsewhere {
            let n = f.requeued_elsewhere.map_or("–".into(), |n| n.to_string());
            if let Some(row) = rows.last_mut() {
                row.push(n);
            }
        }
    }
    s.push_str(&aligned(&rows, &[18, 13, 13, 12, 9, 10, 12, 8, 19]));
    checkpoints(report, s);
}

/// Each run's waits against the log's (`--vs-log`, docs/slurm.md).
fn vs_log(report: &Report, s: &mut String) {
    let runs: Vec<_> = report
        .runs
        .iter()
        .filter_map(|r| Some((r, r.vs_log.as_ref()?)))
        .collect();
    let Some((_, first)) = runs.first() else {
        return;
    };
    let _ = writeln!(
        s,
        "\nagainst the log's waits ({} jobs compared; {} without a logged wait; docs/slurm.md):",
        first.jobs, first.jobs_without_logged_wait
    );
    let header = [
        "algorithm",
        "log wait s",
        "sim wait s",
        "mean error s",
        "mean |error| s",
        "within 1 h",
        "14-day MAPE %",
    ];
    let mut rows = vec![header.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
    for (r, v) in runs {
        rows.push(vec![
            r.label.clone(),
            format!("{:.1}", v.logged_mean_wait_s),
            format!("{:.1}", v.simulated_mean_wait_s),
            format!("{:.1}", v.mean_error_s),
            format!("{:.1}", v.mean_abs_error_s),
            format!("{:.3}", v.within_hour),
            v.moving_mape_percent
                .map_or("-".into(), |p| format!("{p:.1}")),
        ]);
    }
    s.push_str(&aligned(&rows, &[18, 12, 12, 14, 16, 11, 15]));
    vs_log_by_partition(report, s);
}

/// Users shown in the text report's per-user table (the JSON has every user).
const USERS_SHOWN: usize = 20;

/// Each run's waits against the log's per partition, when the jobs are in several, and per
/// user (the [`USERS_SHOWN`] with the most compared jobs in the first run), when of several.
fn vs_log_by_partition(report: &Report, s: &mut String) {
    type Group = (i32, u64, [f64; 4]);
    let partitions = |v: &VsLog| -> Vec<Group> {
        let m = |g: &gridscope::metrics::vs_log::GroupVsLog| {
            [
                g.logged_mean_wait_s,
                g.simulated_mean_wait_s,
                g.mean_error_s,
                g.mean_abs_error_s,
            ]
        };
        v.by_partition
            .iter()
            .map(|g| (g.partition, g.jobs, m(g)))
            .collect()
    };
    let users = |v: &VsLog| -> Vec<Group> {
        let m = |g: &gridscope::metrics::vs_log::UserVsLog| {
            [
                g.logged_mean_wait_s,
                g.simulated_mean_wait_s,
                g.mean_error_s,
                g.mean_abs_error_s,
            ]
        };
        v.by_user.iter().map(|g| (g.user, g.jobs, m(g))).collect()
    };
    let runs: Vec<(&str, &VsLog)> = report
        .runs
        .iter()
        .filter_map(|r| Some((r.label.as_str(), r.vs_log.as_ref()?)))
        .collect();
    // The users with the most compared jobs in the first run.
    let mut top: Vec<Group> = runs.first().map(|(_, v)| users(v)).unwrap_or_default();
    top.sort_by_key(|g| (std::cmp::Reverse(g.1), g.0));
    let shown: Vec<i32> = top.iter().take(USERS_SHOWN).map(|g| g.0).collect();
    let tables: [(&str, String, Vec<Vec<Group>>); 2] = [
        (
            "partition",
            "by partition (SWF field 16)".to_string(),
            runs.iter().map(|(_, v)| partitions(v)).collect(),
        ),
        (
            "user",
            format!(
                "by user (SWF field 12; the {} with the most jobs of {}, all in --json)",
                shown.len(),
                top.len()
            ),
            runs.iter()
                .map(|(_, v)| {
                    let mut g = users(v);
                    g.retain(|g| shown.contains(&g.0));
                    g.sort_by_key(|g| shown.iter().position(|&u| u == g.0));
                    g
                })
                .collect(),
        ),
    ];
    for (column, title, groups) in tables {
        let header = [
            "algorithm",
            column,
            "jobs",
            "log wait s",
            "sim wait s",
            "mean error s",
            "mean |error| s",
        ];
        let mut rows = vec![header.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
        for ((label, _), gs) in runs.iter().zip(&groups) {
            for (id, jobs, [log, sim, err, abs]) in gs {
                rows.push(vec![
                    label.to_string(),
                    id.to_string(),
                    jobs.to_string(),
                    format!("{log:.1}"),
                    format!("{sim:.1}"),
                    format!("{err:.1}"),
                    format!("{abs:.1}"),
                ]);
            }
        }
        if rows.len() > 1 {
            s.push_str(&format!("\nagainst the log's waits, {title}:\n"));
            s.push_str(&aligned(&rows, &[18, 10, 8, 12, 12, 14, 16]));
        }
    }
}

/// Each run's checkpointing, when jobs checkpointed (docs/failures.md).
fn checkpoints(report: &Report, s: &mut String) {
    let runs: Vec<_> = report
        .runs
        .iter()
        .filter_map(|r| Some((r, r.failures.as_ref()?.checkpoint.as_ref()?)))
        .collect();
    let Some((_, first)) = runs.first() else {
        return;
    };
    let every = match first.interval_range_s {
        Some([lo, hi]) => format!(
            "per job, every {lo}–{hi} s of work (M/k, k the job's nodes; one node: {} s)",
            first.interval_s
        ),
        None => format!("every {} s of work", first.interval_s),
    };
    let within = match first.cut_at_limit {
        Some(_) => ", within the wallclock limit",
        None => "",
    };
    s.push_str(&format!(
        "
checkpointing: {every}, C = {} s, R = {} s{within}
",
        first.cost_s, first.restart_s
    ));
    let mut header = vec![
        "algorithm",
        "checkpoints",
        "restarts",
        "overhead core-h",
        "saved core-h",
    ];
    if first.cut_at_limit.is_some() {
        header.extend(["cut at limit", "unfinished core-h"]);
    }
    let mut rows = vec![header.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
    for (r, c) in runs {
        let mut row = vec![
            r.label.clone(),
            c.checkpoints.to_string(),
            c.restarts.to_string(),
            format!("{:.1}", c.overhead_core_h),
            format!("{:.1}", c.work_saved_core_h),
        ];
        if let (Some(n), Some(w)) = (c.cut_at_limit, c.work_unfinished_core_h) {
            row.extend([n.to_string(), format!("{w:.1}")]);
        }
        rows.push(row);
    }
    s.push_str(&aligned(&rows, &[18, 12, 9, 16, 13, 13, 18]));
}

/// Rows as columns: the first left-aligned, the others right-aligned, each at least its
/// width in `widths` and always one space wider than its widest cell, so that numbers of
/// any length never run into each other.
fn aligned(rows: &[Vec<String>], widths: &[usize]) -> String {
    let mut widths = widths.to_vec();
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    widths.resize(columns.max(widths.len()), 0);
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            let w = cell.chars().count() + 1;
            widths[i] = widths[i].max(w);
        }
    }
    let mut out = String::new();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            let w = widths.get(i).copied().unwrap_or(0);
            let _ = if i == 0 {
                write!(out, "{cell:<w$}")
            } else {
                write!(out, "{cell:>w$}")
            };
        }
        out.push('\n');
    }
    out
}

/// Mean wait per job-width class and run, for the classes that have jobs (when more than
/// one has): starvation of wide jobs is visible here, not in the mean.
fn by_width(report: &Report, s: &mut String) {
    let Some(first) = report.runs.first() else {
        return;
    };
    let classes: Vec<usize> = (0..first.metrics.wait_by_width.len())
        .filter(|&k| {
            report
                .runs
                .iter()
                .any(|r| r.metrics.wait_by_width.get(k).is_some_and(|c| c.jobs > 0))
        })
        .collect();
    if classes.len() < 2 {
        return;
    }
    let mut rows = vec![std::iter::once("mean wait s, CPUs".to_string())
        .chain(
            classes
                .iter()
                .map(|&k| first.metrics.wait_by_width[k].label()),
        )
        .collect::<Vec<_>>()];
    for r in &report.runs {
        let mut row = vec![r.label.clone()];
        for &k in &classes {
            let c = &r.metrics.wait_by_width[k];
            row.push(if c.jobs > 0 {
                format!("{:.0}", c.avg_wait_s)
            } else {
                "-".into()
            });
        }
        rows.push(row);
    }
    let jobs = std::iter::once("jobs".to_string()).chain(
        classes
            .iter()
            .map(|&k| first.metrics.wait_by_width[k].jobs.to_string()),
    );
    rows.push(jobs.collect());
    s.push('\n');
    s.push_str(&aligned(&rows, &[18]));
}

fn per_site(report: &Report, s: &mut String) {
    s.push_str("\nper-site utilization:");
    for site in &report.platform.sites {
        let _ = write!(s, " {:>8}", site.name);
    }
    s.push('\n');
    for r in &report.runs {
        let _ = write!(s, "{:<21}", r.label);
        for site in &r.metrics.sites {
            let _ = write!(s, " {:>8.3}", site.utilization);
        }
        s.push('\n');
    }
}
