//! The SES and KKOR panels' charts (docs/ses.md, docs/kkor.md): SES's node groups per
//! variant, its per-group bars with bands and its crossover sweep; KKOR's load sweep, one
//! metric per chart, and each organization's mean flow time per run.

use std::rc::Rc;

use web_sys::HtmlCanvasElement;

use super::draw::{bar_x0, Banded, GroupValues};
use super::family_plots::{group_layout, node_groups, GroupBox};
use super::table::lines_table;
use super::{draw, slot, DataTable, Geom, Plot};
use crate::allocation::sweep::PolicySeries;
use crate::kkor::presets::{KkorRunsResult, KkorSweepResult};
use crate::scenario::ses::{SesCrossover, SesSelection};
use crate::web::format::{fmt_num, secs_unit};

/// The KKOR load sweep's charted metrics: (key in the result, axis title).
pub const KKOR_CHART_METRICS: [(&str, &str); 4] = [
    ("mean_flow_time", "mean flow time F̄ (time units)"),
    ("mean_tardiness", "mean tardiness L̄ (time units)"),
    ("late_jobs", "late jobs U (jobs)"),
    ("utilization", "utilization R̄"),
];

/// A per-group SES figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SesFigure {
    Utilization,
    QueueDelay,
}

/// SES's node groups per variant, filled to their median utilization.
#[derive(Clone, Debug)]
pub struct SesGroups(pub Rc<SesSelection>);
/// One SES figure per group, one bar per variant with its band.
#[derive(Clone, Debug)]
pub struct SesBars(pub Rc<SesSelection>, pub SesFigure);
/// SES's crossover sweep: the mean response per share.
#[derive(Clone, Debug)]
pub struct SesCrossoverLines(pub Rc<SesCrossover>);
/// Queue length per group over the first seed's run of one variant.
#[derive(Clone, Debug)]
pub struct SesQueue(pub Rc<SesSelection>, pub usize);
/// The KKOR load sweep's lines of one metric (an index into [`KKOR_CHART_METRICS`]).
#[derive(Clone, Debug)]
pub struct KkorLines(pub Rc<KkorSweepResult>, pub usize);
/// Each organization's mean flow time per run.
#[derive(Clone, Debug)]
pub struct KkorOrgs(pub Rc<KkorRunsResult>);
/// One cluster's schedule under one run (first seed): (result, run, cluster).
#[derive(Clone, Debug)]
pub struct KkorGantt(pub Rc<KkorRunsResult>, pub usize, pub usize);

super::same_result!(SesGroups);
super::same_result!(SesBars, 1);
super::same_result!(SesCrossoverLines);
super::same_result!(SesQueue, 1);
super::same_result!(KkorLines, 1);
super::same_result!(KkorOrgs);
super::same_result!(KkorGantt, 1, 2);

/// The Lattice's node groups named in `r` (sizes from the `ses-lattice` platform preset).
pub fn ses_groups(r: &SesSelection) -> Vec<GroupBox> {
    let lattice = crate::scenario::platform_preset("ses-lattice");
    let known = lattice
        .iter()
        .flat_map(|p| &p.sites)
        .flat_map(|s| &s.groups);
    let names = r.runs.first().map(|run| &run.metrics.groups);
    names
        .into_iter()
        .flatten()
        .map(|g| {
            let size = known.clone().find(|k| k.name == g.name);
            GroupBox {
                name: g.name.clone(),
                nodes: size.map_or(1, |k| k.nodes),
                cpus_per_node: size.map_or(1, |k| k.cpus_per_node),
            }
        })
        .collect()
}

fn ses_value(r: &SesSelection, f: SesFigure, run: usize, group: usize) -> Option<Banded> {
    let g = r.runs.get(run)?.metrics.groups.get(group)?;
    let pick = |x: &crate::scenario::ses::GroupFigures| match f {
        SesFigure::Utilization => x.utilization,
        SesFigure::QueueDelay => x.avg_queue_delay_s / 60.0,
    };
    let band = |b: &Option<Box<_>>| b.as_deref().map_or(f64::NAN, pick);
    Some((pick(g), band(&g.lo), band(&g.hi)))
}

fn labels<T>(v: &[T], f: impl Fn(&T) -> &String) -> Vec<String> {
    v.iter().map(|x| f(x).clone()).collect()
}

/// The index of the value of `xs` nearest to `x`.
fn nearest(xs: &[f64], x: f64) -> Option<usize> {
    xs.iter()
        .enumerate()
        .filter(|(_, v)| v.is_finite())
        .min_by(|a, b| (a.1 - x).abs().total_cmp(&(b.1 - x).abs()))
        .map(|(i, _)| i)
}

/// "label median (band lo – hi)" of each line at point `i`.
fn describe_lines(x_label: &str, xs: &[f64], lines: &[PolicySeries], x: f64, unit: &str) -> String {
    let Some(i) = nearest(xs, x) else {
        return String::new();
    };
    let parts: Vec<String> = lines
        .iter()
        .filter_map(|s| {
            Some(format!(
                "{} {}{unit} (band {} – {})",
                s.policy,
                fmt_num(*s.median.get(i)?, 4),
                fmt_num(*s.lo.get(i)?, 4),
                fmt_num(*s.hi.get(i)?, 4)
            ))
        })
        .collect();
    format!("{x_label} = {}: {}", xs[i], parts.join(", "))
}

/// A variant's queue series in the shape the page's time-series chart draws.
fn ses_queue(r: &SesSelection, run: usize) -> Option<(String, crate::web::protocol::SeriesData)> {
    let run = r.runs.get(run)?;
    let q = run.queue_series.as_ref()?;
    let data = crate::web::protocol::SeriesData {
        bucket_s: q.bucket_s,
        sites: q
            .groups
            .iter()
            .map(|g| crate::web::protocol::SiteSeriesData {
                name: g.name.clone(),
                utilization: vec![0.0; g.queue_length.len()],
                queue_length: g.queue_length.clone(),
                nodes_up: Vec::new(),
                memory: Vec::new(),
                gpus: Vec::new(),
                cores_stranded: Vec::new(),
                memory_stranded: Vec::new(),
                gpus_stranded: Vec::new(),
                power_w: Vec::new(),
                node_states: Vec::new(),
            })
            .collect(),
        carbon_g_per_kwh: Vec::new(),
    };
    Some((run.label.clone(), data))
}

/// The KKOR sweep's lines of one metric, as the SF sweeps' series.
fn kkor_lines(r: &KkorSweepResult, metric: usize) -> Vec<PolicySeries> {
    metric_lines(
        &r.series,
        KKOR_CHART_METRICS.get(metric).map_or("", |m| m.0),
    )
}

/// The lines of one metric of a family sweep (KKOR's and SCJG's share the line type), as
/// the SF sweeps' series.
pub(super) fn metric_lines(
    series: &[crate::kkor::presets::KkorSeries],
    key: &str,
) -> Vec<PolicySeries> {
    series
        .iter()
        .filter(|s| s.metric == key)
        .map(|s| PolicySeries {
            policy: s.policy.clone(),
            median: s.median.clone(),
            lo: s.lo.clone(),
            hi: s.hi.clone(),
        })
        .collect()
}

impl Plot for SesGroups {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let r = &self.0;
        let rows = labels(&r.runs, |x| &x.label);
        let util: Vec<Vec<f64>> = r
            .runs
            .iter()
            .map(|run| run.metrics.groups.iter().map(|g| g.utilization).collect())
            .collect();
        let title = format!(
            "Node groups filled to their median utilization ({} seeds)",
            r.seeds
        );
        node_groups(canvas, &title, &rows, &ses_groups(r), &util)
    }

    fn describe(&self, x: f64, y: f64) -> String {
        describe_groups(&self.0, x, y)
    }

    fn name(&self) -> String {
        "gridscope-ses-groups".into()
    }
}

impl Plot for SesBars {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let (r, f) = (&self.0, &self.1);
        let groups: Vec<String> = ses_groups(r).into_iter().map(|g| g.name).collect();
        let values: Vec<Vec<Banded>> = (0..r.runs.len())
            .map(|run| {
                (0..groups.len())
                    .filter_map(|g| ses_value(r, *f, run, g))
                    .collect()
            })
            .collect();
        let (title, y) = match f {
            SesFigure::Utilization => ("Utilization per group (SES Fig. 1)", "utilization"),
            SesFigure::QueueDelay => (
                "Queueing delay per group (SES Fig. 2)",
                "mean queueing delay (min)",
            ),
        };
        let title = format!(
            "{title}: median of {} seeds, band {:.0} %",
            r.seeds,
            r.confidence * 100.0
        );
        draw::grouped_bars(
            canvas,
            &title,
            y,
            &groups,
            &labels(&r.runs, |x| &x.label),
            GroupValues::Banded(&values),
        )
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let (r, f) = (&self.0, &self.1);
        let groups = ses_groups(r);
        let (Some(g), m) = (slot(x, groups.len()), r.runs.len()) else {
            return String::new();
        };
        let unit = match f {
            SesFigure::Utilization => "",
            SesFigure::QueueDelay => " min",
        };
        let parts: Vec<String> = (0..m)
            .filter_map(|run| {
                let (v, lo, hi) = ses_value(r, *f, run, g)?;
                let mark = if x >= bar_x0(g, run, m) && x < bar_x0(g, run + 1, m) {
                    "▸ "
                } else {
                    ""
                };
                Some(format!(
                    "{mark}{} {}{unit} (band {} – {})",
                    r.runs[run].label,
                    fmt_num(v, 3),
                    fmt_num(lo, 3),
                    fmt_num(hi, 3)
                ))
            })
            .collect();
        format!("group {}: {}", groups[g].name, parts.join(", "))
    }

    fn name(&self) -> String {
        match self.1 {
            SesFigure::Utilization => "gridscope-ses-utilization".into(),
            SesFigure::QueueDelay => "gridscope-ses-queue-delay".into(),
        }
    }
}

impl Plot for SesCrossoverLines {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        ses_crossover(canvas, &self.0)
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let r = &self.0;
        describe_lines(&r.x_label, &r.x, &r.series, x, " s")
    }

    fn table(&self) -> Option<DataTable> {
        let r = &self.0;
        Some(lines_table(&r.x_label, &r.x, &r.series, " s"))
    }

    fn name(&self) -> String {
        "gridscope-ses-crossover".into()
    }
}

impl Plot for SesQueue {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let (label, data) = ses_queue(&self.0, self.1).ok_or("no queue series")?;
        let title = format!("Queue length per group: {label} (seed 1)");
        draw::series(canvas, &title, &data, super::Quantity::Queue)
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let Some((_, d)) = ses_queue(&self.0, self.1) else {
            return String::new();
        };
        let k = (x * 86_400.0 / d.bucket_s.max(1e-9)).floor().max(0.0) as usize;
        let parts: Vec<String> = d
            .sites
            .iter()
            .filter_map(|g| {
                Some(format!(
                    "{} {}",
                    g.name,
                    fmt_num(*g.queue_length.get(k)?, 2)
                ))
            })
            .collect();
        format!("day {}: waiting {}", fmt_num(x, 2), parts.join(", "))
    }

    fn name(&self) -> String {
        format!(
            "gridscope-ses-queue-{}",
            self.0.runs.get(self.1).map_or("", |x| x.label.as_str())
        )
    }
}

impl Plot for KkorLines {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let (r, m) = (&self.0, self.1);
        let (_, y) = KKOR_CHART_METRICS.get(m).ok_or("no such metric")?;
        let title = format!(
            "{y}: median of {} seeds, band {:.0} %",
            r.seeds,
            r.confidence * 100.0
        );
        draw::band_lines(
            canvas,
            &title,
            ("offered load ρ", y),
            &r.x,
            &kkor_lines(r, m),
        )
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        describe_lines("ρ", &self.0.x, &kkor_lines(&self.0, self.1), x, "")
    }

    fn table(&self) -> Option<DataTable> {
        Some(lines_table(
            "ρ",
            &self.0.x,
            &kkor_lines(&self.0, self.1),
            "",
        ))
    }

    fn name(&self) -> String {
        format!(
            "gridscope-kkor-load-{}",
            KKOR_CHART_METRICS.get(self.1).map_or("", |k| k.0)
        )
    }
}

impl Plot for KkorOrgs {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let r = &self.0;
        let orgs: Vec<String> = r
            .clusters
            .iter()
            .enumerate()
            .map(|(k, c)| format!("O{} ({} CPUs)", k + 1, c.procs))
            .collect();
        // Medians only (the runs shape has no band): bars without whiskers.
        let values: Vec<Vec<Banded>> = r
            .runs
            .iter()
            .map(|run| {
                run.metrics
                    .organizations
                    .iter()
                    .map(|o| (o.mean_flow_time, f64::NAN, f64::NAN))
                    .collect()
            })
            .collect();
        let title = format!(
            "Mean flow time per organization (KKOR Fig. 4), median of {} seeds",
            r.seeds
        );
        draw::grouped_bars(
            canvas,
            &title,
            "mean flow time F̄ (time units)",
            &orgs,
            &labels(&r.runs, |x| &x.label),
            GroupValues::Banded(&values),
        )
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let r = &self.0;
        let Some(k) = slot(x, r.clusters.len()) else {
            return String::new();
        };
        let parts: Vec<String> = r
            .runs
            .iter()
            .filter_map(|run| {
                let o = run.metrics.organizations.get(k)?;
                let rel = o.relative_to_local.as_ref().and_then(|v| v.mean_flow_time);
                Some(format!(
                    "{} {}{}",
                    run.label,
                    fmt_num(o.mean_flow_time, 2),
                    rel.map_or(String::new(), |v| format!(" (×{} of local)", fmt_num(v, 3)))
                ))
            })
            .collect();
        format!("O{}: {}", k + 1, parts.join(", "))
    }

    fn name(&self) -> String {
        "gridscope-kkor-fairness".into()
    }
}

impl Plot for KkorGantt {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        super::kkor_gantt::draw(canvas, &self.0, self.1, self.2)
    }

    fn describe(&self, x: f64, y: f64) -> String {
        super::kkor_gantt::describe(&self.0, self.1, self.2, x, y)
    }

    fn name(&self) -> String {
        format!("gridscope-kkor-gantt-{}-o{}", self.1, self.2 + 1)
    }
}

/// The group under the pointer in the node-group picture.
fn describe_groups(r: &SesSelection, x: f64, y: f64) -> String {
    let groups = ses_groups(r);
    let n = r.runs.len();
    let row = n as f64 - 1.0 - y.floor();
    let (Some(run), Some(k)) = (
        (row >= 0.0).then(|| r.runs.get(row as usize)).flatten(),
        group_layout(&groups)
            .iter()
            .position(|&(x0, x1)| x >= x0 && x <= x1),
    ) else {
        return String::new();
    };
    let (Some(g), Some(fig)) = (groups.get(k), run.metrics.groups.get(k)) else {
        return String::new();
    };
    let band = |b: &Option<Box<crate::scenario::ses::GroupFigures>>| {
        b.as_ref().map_or(f64::NAN, |f| f.utilization)
    };
    format!(
        "{}, group {} ({} nodes × {} CPUs): median utilization {} (band {} – {}), {} jobs, queueing delay {} min",
        run.label,
        g.name,
        g.nodes,
        g.cpus_per_node,
        fmt_num(fig.utilization, 3),
        fmt_num(band(&fig.lo), 3),
        fmt_num(band(&fig.hi), 3),
        fmt_num(fig.jobs, 1),
        fmt_num(fig.avg_queue_delay_s / 60.0, 1)
    )
}

/// SES's crossover: the mean response per share, in the time unit that suits the values
/// (as the table's durations read).
fn ses_crossover(canvas: &HtmlCanvasElement, r: &SesCrossover) -> Result<Geom, String> {
    let title = format!(
        "Mean response: median of {} seeds, band {:.0} %",
        r.seeds,
        r.confidence * 100.0
    );
    let max = r
        .series
        .iter()
        .flat_map(|s| s.hi.iter())
        .cloned()
        .fold(0.0, f64::max);
    let (unit, scale) = secs_unit(max);
    let series: Vec<_> = r.series.iter().map(|s| scaled(s, scale)).collect();
    draw::band_lines(
        canvas,
        &title,
        (&r.x_label, &format!("mean response time ({unit})")),
        &r.x,
        &series,
    )
}

/// A series with every value divided by `per` (seconds → the axis's unit).
fn scaled(s: &PolicySeries, per: f64) -> PolicySeries {
    let div = |v: &Vec<f64>| v.iter().map(|x| x / per).collect();
    PolicySeries {
        policy: s.policy.clone(),
        median: div(&s.median),
        lo: div(&s.lo),
        hi: div(&s.hi),
    }
}
