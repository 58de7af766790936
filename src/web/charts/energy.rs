//! Energy (issue #40, docs/energy.md): each run's energy against its mean wait, one point
//! per run (an idle timeout is a run of its own; an algorithm's runs are joined, each point
//! tagged with its timeout), and one site's nodes by power state over one run.

use std::rc::Rc;

use plotters::prelude::*;
use web_sys::HtmlCanvasElement;

use super::draw::{self, area, color, e, finish, fit_y_desc, titled, x_ticks, y_ticks};
use super::legend::{Key, Legend};
use super::{DataTable, Geom, Plot};
use crate::web::format::fmt_num;
use crate::web::protocol::RunResult;

const H: f64 = 3600.0;

/// One run's point: its idle timeout as a tag ("on", "600 s"), its mean wait in seconds
/// and its energy in kWh.
pub type EnergyPoint = (String, f64, f64);

/// Energy against mean wait, one point per run with an energy report; the runs of one
/// algorithm under different idle timeouts share a colour and are joined by a line.
#[derive(Clone, Debug, PartialEq)]
pub struct EnergyWait {
    /// Per algorithm (its label without the idle timeout), its runs in the order they ran.
    pub groups: Vec<(String, Vec<EnergyPoint>)>,
}

impl EnergyWait {
    /// The runs with energy; `None` when no run has any.
    pub fn of(runs: &[Rc<RunResult>]) -> Option<EnergyWait> {
        let mut groups: Vec<(String, Vec<EnergyPoint>)> = Vec::new();
        for r in runs {
            let Some(e) = r.report.energy.as_ref() else {
                continue;
            };
            // The label without its timeout and slack (`AlgorithmSpec::label`'s suffixes):
            // an algorithm's runs are one group, tagged "on", "600 s", "on, slack 3600 s".
            let mut base = r.label();
            let slack = e.carbon_delay.as_ref().filter(|c| c.slack_s > 0.0);
            if let Some(c) = slack {
                let suffix = format!(", carbon slack {} s", c.slack_s);
                base = base.strip_suffix(&suffix).unwrap_or(base);
            }
            let cap = base
                .rfind(", cap ")
                .filter(|_| base.ends_with(" W"))
                .map(|i| (&base[..i], &base[i + 2..]));
            if let Some((rest, _)) = cap {
                base = rest;
            }
            let mut tag = match &e.idle_off {
                Some(off) => {
                    let suffix = format!(", off after {} s", off.after_s);
                    base = base.strip_suffix(&suffix).unwrap_or(base);
                    format!("{} s", off.after_s)
                }
                None => "on".to_string(),
            };
            if let Some((_, cap)) = cap {
                tag.push_str(&format!(", {cap}"));
            }
            if let Some(c) = slack {
                tag.push_str(&format!(", slack {} s", c.slack_s));
            }
            let base = base.to_string();
            let point = (tag, r.report.metrics.avg_wait_s, e.total_kwh);
            match groups.iter_mut().find(|g| g.0 == base) {
                Some(g) => g.1.push(point),
                None => groups.push((base, vec![point])),
            }
        }
        (!groups.is_empty()).then_some(EnergyWait { groups })
    }

    fn points(&self) -> impl Iterator<Item = (&str, &EnergyPoint)> {
        self.groups
            .iter()
            .flat_map(|g| g.1.iter().map(move |p| (g.0.as_str(), p)))
    }

    /// MWh when the largest energy reaches 10,000 kWh (axis labels stay short).
    fn unit(&self) -> (&'static str, f64) {
        let top = self.points().map(|p| p.1 .2).fold(0.0, f64::max);
        if top >= 1e4 {
            ("MWh", 1e-3)
        } else {
            ("kWh", 1.0)
        }
    }

    /// The axes: waits (hours) from 0 to a tenth above the longest; energies (in `unit`)
    /// from a tenth of their spread below the least to a tenth above the most (the runs
    /// differ by percents, which an axis from 0 would flatten), or ±5 % of a single value.
    fn ranges(&self) -> ((f64, f64), (f64, f64)) {
        let (_, k) = self.unit();
        let x = self.points().map(|p| p.1 .1 / H).fold(0.0, f64::max);
        let lo = self
            .points()
            .map(|p| p.1 .2 * k)
            .fold(f64::INFINITY, f64::min);
        let hi = self.points().map(|p| p.1 .2 * k).fold(0.0, f64::max);
        let pad = match hi - lo {
            d if d > 0.0 => d * 0.1,
            _ => draw::non_zero_top(hi) * 0.05,
        };
        let lo = if lo.is_finite() {
            (lo - pad).max(0.0)
        } else {
            0.0
        };
        ((0.0, draw::non_zero_top(x) * 1.1), (lo, hi + pad))
    }
}

impl Plot for EnergyWait {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let root = area(canvas)?;
        let (unit, k) = self.unit();
        let (x, y) = self.ranges();
        let keys = self.groups.iter().enumerate();
        let keys = keys.map(|(i, g)| (g.0.clone(), Key::Line(color(i))));
        let legend = Legend::plan(&root, keys.collect());
        let body = titled(&root, "Energy against mean wait, one point per run")?;
        let mut chart = legend
            .builder(&body)
            .x_label_area_size(38)
            .y_label_area_size(66)
            .build_cartesian_2d(x.0..x.1, y.0..y.1)
            .map_err(e)?;
        chart
            .configure_mesh()
            .y_labels(y_ticks(&root))
            .x_labels(x_ticks(&root))
            .x_desc("mean wait (hours)")
            .y_desc(fit_y_desc(&root, format!("energy ({unit})")))
            .draw()
            .map_err(e)?;
        let at = |p: &EnergyPoint| (p.1 / H, p.2 * k);
        for (i, (_, points)) in self.groups.iter().enumerate() {
            let c = color(i);
            chart
                .draw_series(LineSeries::new(points.iter().map(at), c.stroke_width(1)))
                .map_err(e)?;
            let dots = points.iter().flat_map(|p| {
                [
                    Circle::new(at(p), 5, c.filled()),
                    Circle::new(at(p), 6, BLACK.stroke_width(1)),
                ]
            });
            chart.draw_series(dots).map_err(e)?;
        }
        // Each point's idle timeout, where an algorithm ran with several, and only where
        // the tag meets no other tag (runs that land together would print over each other;
        // the hover text and the Data table name every point).
        let mut taken: Vec<(i32, i32, i32, i32)> = Vec::new();
        let mut tags = Vec::new();
        for (_, points) in self.groups.iter().filter(|g| g.1.len() > 1) {
            for p in points {
                let (px, py) = chart.backend_coord(&at(p));
                let w = 7 * p.0.chars().count() as i32;
                let (l, t) = (px + 7, py - 16);
                let (r, b) = (l + w, t + 13);
                if taken
                    .iter()
                    .any(|o| l < o.2 && o.0 < r && t < o.3 && o.1 < b)
                {
                    continue;
                }
                taken.push((l, t, r, b));
                tags.push(
                    EmptyElement::at(at(p))
                        + Text::new(p.0.clone(), (7, -16), ("sans-serif", 11).into_font()),
                );
            }
        }
        chart.draw_series(tags).map_err(e)?;
        finish(&root, &mut chart, Some(&legend), x, y, false)
    }

    fn describe(&self, x: f64, y: f64) -> String {
        let (unit, k) = self.unit();
        let ((_, xmax), (ylo, yhi)) = self.ranges();
        let d = |p: &(&str, &EnergyPoint)| {
            let dy = (p.1 .2 * k - y) / (yhi - ylo).max(1e-12);
            ((p.1 .1 / H - x) / xmax).hypot(dy)
        };
        match self
            .points()
            .min_by(|a, b| d(a).total_cmp(&d(b)))
            .filter(|p| d(p) <= 0.05)
        {
            Some((alg, p)) => format!(
                "{alg} ({}): {} {unit}, mean wait {} h",
                p.0,
                fmt_num(p.2 * k, 2),
                fmt_num(p.1 / H, 2)
            ),
            None => String::new(),
        }
    }

    fn name(&self) -> String {
        "gridscope-energy-wait".into()
    }

    fn table(&self) -> Option<DataTable> {
        Some(DataTable {
            head: vec![
                "algorithm".into(),
                "nodes".into(),
                "mean wait (h)".into(),
                "energy (kWh)".into(),
            ],
            rows: self
                .points()
                .map(|(alg, p)| {
                    vec![
                        alg.to_string(),
                        p.0.clone(),
                        fmt_num(p.1 / H, 2),
                        fmt_num(p.2, 1),
                    ]
                })
                .collect(),
        })
    }

    fn data_attrs(&self) -> Vec<(&'static str, String)> {
        vec![("data-points", self.points().count().to_string())]
    }
}

/// The names of a node-state series' four counts, in [`crate::energy::StateCounts`] order.
pub const NODE_STATES: [&str; 4] = ["computing", "idle", "switching", "off"];

/// One site's nodes in each power state over one run.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeStates {
    pub run: Rc<RunResult>,
    pub site: usize,
}

impl NodeStates {
    fn lines(&self) -> Vec<(String, Vec<f64>)> {
        let Some(s) = self.run.series.sites.get(self.site) else {
            return Vec::new();
        };
        NODE_STATES
            .iter()
            .enumerate()
            .map(|(k, name)| {
                (
                    name.to_string(),
                    s.node_states.iter().map(|c| c[k]).collect(),
                )
            })
            .collect()
    }
}

impl Plot for NodeStates {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let site = self.run.series.sites.get(self.site);
        let title = format!(
            "Nodes by power state ({}, {})",
            site.map_or("", |s| s.name.as_str()),
            self.run.label()
        );
        draw::over_time(
            canvas,
            &title,
            "nodes",
            self.run.series.bucket_s,
            &self.lines(),
            None,
        )
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let s = &self.run.series;
        let k = (x * 86400.0 / s.bucket_s.max(1e-9)).floor().max(0.0) as usize;
        let Some(c) = s
            .sites
            .get(self.site)
            .and_then(|site| site.node_states.get(k))
        else {
            return String::new();
        };
        let parts: Vec<String> = NODE_STATES
            .iter()
            .zip(c)
            .map(|(n, v)| format!("{n} {}", fmt_num(*v, 1)))
            .collect();
        format!("day {x:.2}: {}", parts.join(", "))
    }

    fn name(&self) -> String {
        format!("gridscope-node-states-{}", self.run.label())
    }
}

/// The grid's carbon intensity over one run (its buckets' means), drawn under its power.
#[derive(Clone, Debug, PartialEq)]
pub struct CarbonCurve {
    pub run: Rc<RunResult>,
}

impl Plot for CarbonCurve {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let s = &self.run.series;
        let lines = vec![("g CO₂/kWh".to_string(), s.carbon_g_per_kwh.clone())];
        let title = format!("Grid carbon intensity ({})", self.run.label());
        draw::over_time(canvas, &title, "g CO₂/kWh", s.bucket_s, &lines, None)
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let s = &self.run.series;
        let k = (x * 86400.0 / s.bucket_s.max(1e-9)).floor().max(0.0) as usize;
        match s.carbon_g_per_kwh.get(k) {
            Some(g) => format!("day {x:.2}: {} g CO₂/kWh", fmt_num(*g, 1)),
            None => String::new(),
        }
    }

    fn name(&self) -> String {
        format!("gridscope-carbon-{}", self.run.label())
    }

    fn data_attrs(&self) -> Vec<(&'static str, String)> {
        let g = &self.run.series.carbon_g_per_kwh;
        let mean = g.iter().sum::<f64>() / g.len().max(1) as f64;
        vec![("data-mean-g-per-kwh", format!("{mean:.3}"))]
    }
}
