//! The SCJG panel's charts (docs/scjg.md): a sweep metric as lines with bands, the
//! livelock run's retry timeline, one site's Gantt chart with the metajobs' reservations
//! outlined, and SCJG Fig. 2's answers of every site to one query.

use std::rc::Rc;

use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use super::draw::{self, area, color, e, finish, fit_y_desc, font, titled, x_ticks, y_ticks};
use super::table::lines_table;
use super::{DataTable, Geom, Plot};
use crate::allocation::sweep::PolicySeries;
use crate::scjg::inspect::Inspection;
use crate::scjg::presets::{ScjgRunsResult, ScjgSweepResult};
use crate::web::format::fmt_num;

/// The sweep metrics the panel charts: (key in the result, axis title); what each measures
/// is the family registry's (`family_metric::help`).
pub const SCJG_CHART_METRICS: [(&str, &str); 8] = [
    ("utilization", "utilization"),
    ("avg_expansion_factor", "expansion factor (Maui)"),
    ("local_expansion_factor", "local jobs' expansion factor"),
    ("metajob_expansion_factor", "metajobs' expansion factor"),
    ("metajob_queue_s", "metajob queue time (s)"),
    ("local_wait_s", "local wait (s)"),
    ("retries", "retries per metajob"),
    ("lockdown_utilization", "lock-down block utilization"),
];

/// A sweep's metric (index into [`SCJG_CHART_METRICS`]).
#[derive(Clone, Debug)]
pub struct ScjgLines(pub Rc<ScjgSweepResult>, pub usize);
/// The retry timeline of one run of `scjg-livelock`.
#[derive(Clone, Debug)]
pub struct ScjgTimeline(pub Rc<ScjgRunsResult>, pub usize);
/// One site of the inspected run.
#[derive(Clone, Debug)]
pub struct ScjgGantt(pub Rc<Inspection>, pub usize);
/// Fig. 2: every site's range list for the probed metajob.
#[derive(Clone, Debug)]
pub struct ScjgQuery(pub Rc<Inspection>);

super::same_result!(ScjgLines, 1);
super::same_result!(ScjgTimeline, 1);
super::same_result!(ScjgGantt, 1);
super::same_result!(ScjgQuery);

fn lines(r: &ScjgSweepResult, metric: usize) -> Vec<PolicySeries> {
    let key = SCJG_CHART_METRICS.get(metric).map_or("", |m| m.0);
    super::families::metric_lines(&r.series, key)
}

const H: f64 = 3600.0;

/// Metajobs that had to retry, else the first ones: the timeline's rows.
fn timeline_rows(r: &ScjgRunsResult, run: usize) -> Vec<&crate::scjg::presets::TimelineEntry> {
    let Some(run) = r.runs.get(run) else {
        return Vec::new();
    };
    let mut rows: Vec<_> = run.timeline.iter().filter(|t| t.retries > 0).collect();
    if rows.is_empty() {
        rows = run.timeline.iter().take(20).collect();
    }
    rows.truncate(60);
    rows
}

fn draw_timeline(
    canvas: &HtmlCanvasElement,
    r: &ScjgRunsResult,
    run: usize,
) -> Result<Geom, String> {
    let rows = timeline_rows(r, run);
    let root = area(canvas)?;
    let label = r.runs.get(run).map_or("", |x| x.label.as_str());
    let end = |t: &crate::scjg::presets::TimelineEntry| t.start_s.unwrap_or(t.submit_s);
    let x0 = rows
        .iter()
        .map(|t| t.submit_s)
        .fold(f64::INFINITY, f64::min)
        / H;
    let x1 = rows
        .iter()
        .map(|t| end(t))
        .fold(f64::NEG_INFINITY, f64::max)
        / H;
    let (x0, x1) = if x0.is_finite() && x1 > x0 {
        (x0, x1)
    } else {
        (0.0, 1.0)
    };
    // Row i is drawn at y = i, so whole ticks fall on rows (numbered from 1) and no tick
    // reads "1.5 rows".
    let n = rows.len().max(1);
    let (y0, y1) = (-0.5, n as f64 - 0.5);
    let body = titled(
        &root,
        format!("Retry timeline: {label} (metajobs that collided)"),
    )?;
    let mut chart = ChartBuilder::on(&body)
        .margin(8)
        .x_label_area_size(40)
        .y_label_area_size(52)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_labels(x_ticks(&root))
        .disable_mesh()
        .x_desc("hours from the window's start")
        .y_desc(fit_y_desc(&root, "metajob"))
        .y_labels(n.min(10))
        .y_label_formatter(&|v| whole_row(*v, n))
        .draw()
        .map_err(e)?;
    let area = chart.plotting_area();
    for (i, t) in rows.iter().enumerate() {
        let y = i as f64;
        let c = color(t.scheduler as usize);
        area.draw(&PathElement::new(
            vec![(t.submit_s / H, y), (end(t) / H, y)],
            c.stroke_width(2),
        ))
        .map_err(e)?;
        for &(at, _, backoff) in &t.failures {
            area.draw(&Cross::new((at / H, y), 4, RED.stroke_width(2)))
                .map_err(e)?;
            let back = ((at + backoff) / H, y);
            area.draw(&PathElement::new(
                vec![(at / H, y - 0.3), back],
                RED.mix(0.5).stroke_width(1),
            ))
            .map_err(e)?;
        }
        if t.start_s.is_some() {
            area.draw(&Circle::new((end(t) / H, y), 3, c.filled()))
                .map_err(e)?;
        }
    }
    finish(&root, &mut chart, None, (x0, x1), (y0, y1), false)
}

/// A row tick's label: the row's number from 1 on a whole tick inside the rows, else none.
fn whole_row(v: f64, rows: usize) -> String {
    let k = v.round();
    if (v - k).abs() < 1e-9 && k >= 0.0 && (k as usize) < rows {
        format!("{}", k as usize + 1)
    } else {
        String::new()
    }
}

fn draw_gantt(canvas: &HtmlCanvasElement, i: &Inspection, site: usize) -> Result<Geom, String> {
    let g = i.sites.get(site).ok_or("no such site")?;
    let root = area(canvas)?;
    let (x0, x1) = (i.from_s / H, i.to_s / H);
    let cap = g.capacity.max(1) as f64;
    let body = titled(
        &root,
        format!(
            "{}: jobs, metajob components (dark) and their reservations (outlined)",
            g.name
        ),
    )?;
    let mut chart = ChartBuilder::on(&body)
        .margin(8)
        .x_label_area_size(38)
        .y_label_area_size(48)
        .build_cartesian_2d(x0..x1, 0f64..cap)
        .map_err(e)?;
    chart
        .configure_mesh()
        .y_labels(y_ticks(&root))
        .x_labels(x_ticks(&root))
        .disable_mesh()
        .x_desc("hours from the window's origin")
        .y_desc(fit_y_desc(&root, "nodes"))
        .draw()
        .map_err(e)?;
    let area = chart.plotting_area();
    let clip = |t: f64| (t / H).clamp(x0, x1);
    for &(a, b) in &g.windows {
        let y = (cap - g.block_units as f64, cap);
        area.draw(&Rectangle::new(
            [(clip(a), y.0), (clip(b), y.1)],
            RGBColor(240, 228, 66).mix(0.35).filled(),
        ))
        .map_err(e)?;
    }
    for &(id, st, en, lo, n, meta) in &g.rects {
        let fill = if meta {
            RGBColor(60, 60, 60).mix(0.9).filled()
        } else {
            color((id as usize).wrapping_mul(2654435761) >> 7)
                .mix(0.55)
                .filled()
        };
        let rect = [(clip(st), lo as f64), (clip(en), (lo + n) as f64)];
        area.draw(&Rectangle::new(rect, fill)).map_err(e)?;
    }
    // A reservation spans its component's units from its start to start + wallclock limit.
    for &(id, st, res_end, _) in &g.reservations {
        for r in g.rects.iter().filter(|r| r.5 && r.0 == id && r.1 == st) {
            let rect = [(clip(st), r.3 as f64), (clip(res_end), (r.3 + r.4) as f64)];
            area.draw(&Rectangle::new(rect, RGBColor(213, 94, 0).stroke_width(3)))
                .map_err(e)?;
        }
    }
    finish(&root, &mut chart, None, (x0, x1), (0.0, cap), false)
}

fn draw_query(canvas: &HtmlCanvasElement, i: &Inspection) -> Result<Geom, String> {
    let q = i.query.as_ref().ok_or("no query to show")?;
    let root = area(canvas)?;
    let x0 = q.at_s / H;
    let x1 = x0 + 48.0;
    let n = q.sites.len() + 1;
    let body = titled(
        &root,
        format!(
            "Metajob {}: range lists of each site (SCJG Fig. 2), {} h long",
            q.metajob,
            fmt_num(q.wallclock_s / H, 3)
        ),
    )?;
    let mut chart = ChartBuilder::on(&body)
        .margin(8)
        .x_label_area_size(38)
        .y_label_area_size(8)
        .build_cartesian_2d(x0..x1, 0f64..n as f64)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_labels(x_ticks(&root))
        .disable_mesh()
        .disable_y_axis()
        .x_desc("possible start (hours)")
        .draw()
        .map_err(e)?;
    // Row names inside the plot, above each row's bars.
    let names = (0..n).map(|k| {
        let name = q.sites.get(k).map_or_else(
            || "result (∩ of the lists)".to_string(),
            |s| {
                format!(
                    "{}, {} node(s): {}",
                    s.name,
                    s.units,
                    if s.yes { "yes" } else { "no" }
                )
            },
        );
        Text::new(name, (x0 + 0.3, k as f64 + 0.9), font(12))
    });
    chart.draw_series(names).map_err(e)?;
    let area = chart.plotting_area();
    let bar = |ranges: &[(f64, f64)], row: usize, c: RGBColor| -> Result<(), String> {
        for &(a, b) in ranges {
            let (a, b) = ((a / H).max(x0), (b / H).min(x1));
            if a <= b {
                let y = row as f64;
                area.draw(&Rectangle::new(
                    [(a, y + 0.1), (b.max(a + 0.05), y + 0.55)],
                    c.mix(0.8).filled(),
                ))
                .map_err(e)?;
            }
        }
        Ok(())
    };
    for (k, s) in q.sites.iter().enumerate() {
        bar(&s.ranges, k, color(k))?;
        let mark = if s.yes { GREEN } else { RED };
        area.draw(&Circle::new(
            (q.from_s / H, k as f64 + 0.32),
            5,
            mark.filled(),
        ))
        .map_err(e)?;
    }
    bar(&q.common, q.sites.len(), RGBColor(60, 60, 60))?;
    if let Some(start) = q.start_s {
        let x = start / H;
        area.draw(&PathElement::new(
            vec![(x, 0.0), (x, n as f64)],
            BLACK.stroke_width(1),
        ))
        .map_err(e)?;
    }
    finish(&root, &mut chart, None, (x0, x1), (0.0, n as f64), false)
}

fn describe_gantt(i: &Inspection, site: usize, x: f64, y: f64) -> String {
    let Some(g) = i.sites.get(site) else {
        return String::new();
    };
    let t = x * H;
    let u = y.floor().max(0.0) as u32;
    let hit = g
        .rects
        .iter()
        .find(|r| r.1 <= t && t < r.2 && r.3 <= u && u < r.3 + r.4);
    match hit {
        Some(r) if r.5 => {
            let res = g.reservations.iter().find(|x| x.0 == r.0);
            format!(
                "metajob {} component: {} nodes, {:.2}–{:.2} h{}",
                r.0,
                r.4,
                r.1 / H,
                r.2 / H,
                res.map_or(String::new(), |x| format!(
                    ", reservation until {:.2} h",
                    x.2 / H
                ))
            )
        }
        Some(r) => format!(
            "job {}: {} nodes, {:.2}–{:.2} h",
            r.0,
            r.4,
            r.1 / H,
            r.2 / H
        ),
        None => format!("{x:.2} h, node {u}: idle"),
    }
}

impl Plot for ScjgLines {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let (r, m) = (&self.0, self.1);
        let (_, y) = SCJG_CHART_METRICS.get(m).ok_or("no such metric")?;
        let title = format!(
            "{y}: median of {} seeds, band {:.0} %",
            r.seeds,
            r.confidence * 100.0
        );
        draw::band_lines(canvas, &title, (&r.x_label, y), &r.x, &lines(r, m))
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let (r, m) = (&self.0, self.1);
        let Some(i) =
            r.x.iter()
                .enumerate()
                .min_by(|a, b| (a.1 - x).abs().total_cmp(&(b.1 - x).abs()))
                .map(|p| p.0)
        else {
            return String::new();
        };
        let parts: Vec<String> = lines(r, m)
            .iter()
            .map(|s| {
                format!(
                    "{} {} (band {} – {})",
                    s.policy,
                    fmt_num(s.median[i], 4),
                    fmt_num(s.lo[i], 4),
                    fmt_num(s.hi[i], 4)
                )
            })
            .collect();
        format!("{} = {}: {}", r.x_label, r.x[i], parts.join(", "))
    }

    fn table(&self) -> Option<DataTable> {
        let r = &self.0;
        Some(lines_table(&r.x_label, &r.x, &lines(r, self.1), ""))
    }

    fn name(&self) -> String {
        format!(
            "gridscope-scjg-{}",
            SCJG_CHART_METRICS.get(self.1).map_or("", |k| k.0)
        )
    }
}

impl Plot for ScjgTimeline {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        draw_timeline(canvas, &self.0, self.1)
    }

    fn describe(&self, _x: f64, y: f64) -> String {
        let rows = timeline_rows(&self.0, self.1);
        match rows.get((y + 0.5).floor().max(0.0) as usize) {
            Some(t) => format!(
                "metajob {} (metascheduler {}): submitted {:.2} h, {} failed round(s), {}",
                t.id,
                t.scheduler + 1,
                t.submit_s / H,
                t.retries,
                t.start_s
                    .map_or("never ran".into(), |s| format!("started {:.2} h", s / H))
            ),
            None => String::new(),
        }
    }

    fn name(&self) -> String {
        format!("gridscope-scjg-timeline-{}", self.1)
    }
}

impl Plot for ScjgGantt {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        draw_gantt(canvas, &self.0, self.1)
    }

    fn describe(&self, x: f64, y: f64) -> String {
        describe_gantt(&self.0, self.1, x, y)
    }

    fn name(&self) -> String {
        format!("gridscope-scjg-gantt-site{}", self.1 + 1)
    }
}

impl Plot for ScjgQuery {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        draw_query(canvas, &self.0)
    }

    fn describe(&self, _x: f64, y: f64) -> String {
        let Some(q) = &self.0.query else {
            return String::new();
        };
        let k = y.floor().max(0.0) as usize;
        match q.sites.get(k) {
            Some(s) => format!(
                "{}, {} node(s): {}; {} range(s)",
                s.name,
                s.units,
                if s.yes {
                    "yes at the proposed start"
                } else {
                    "no at the proposed start"
                },
                s.ranges.len()
            ),
            None => format!("result: {} common range(s)", q.common.len()),
        }
    }

    fn name(&self) -> String {
        "gridscope-scjg-query".into()
    }
}
