//! Charts of the runs' results: a metric relative to a baseline, wait-time CDFs, the
//! per-site utilization and the utilization / queue series of one run.

use std::rc::Rc;

use web_sys::HtmlCanvasElement;

use super::{cdf_at, draw, slot, DataTable, Geom, Plot};
use crate::web::format::fmt_num;
use crate::web::metric::Metric;
use crate::web::protocol::{RunResult, SiteSeriesData};

/// `metric` of every run as bars relative to run `baseline`.
#[derive(Clone, Debug, PartialEq)]
pub struct Bars {
    pub metric: Metric,
    pub labels: Vec<String>,
    pub values: Vec<f64>,
    pub baseline: usize,
}

impl Bars {
    pub fn of(runs: &[Rc<RunResult>], metric: Metric, baseline: usize) -> Bars {
        Bars {
            metric,
            labels: runs.iter().map(|r| r.label().to_string()).collect(),
            values: runs.iter().map(|r| metric.get(&r.report.metrics)).collect(),
            baseline: baseline.min(runs.len().saturating_sub(1)),
        }
    }
}

impl Plot for Bars {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let base = self.labels.get(self.baseline).cloned().unwrap_or_default();
        let title = format!("{} relative to {base}", self.metric.title());
        draw::bars(canvas, &title, &self.labels, &self.values, self.baseline)
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let n = self.labels.len();
        let k = (x.floor().max(0.0) as usize).min(n.saturating_sub(1));
        let (Some(label), Some(&v), Some(base), Some(&bv)) = (
            self.labels.get(k),
            self.values.get(k),
            self.labels.get(self.baseline),
            self.values.get(self.baseline),
        ) else {
            return String::new();
        };
        format!(
            "{label}: {} {} = {:.3} × {base}",
            self.metric.title(),
            fmt_num(v, self.metric.decimals()),
            if bv != 0.0 { v / bv } else { 0.0 },
        )
    }

    fn name(&self) -> String {
        format!("gridscope-{}", self.metric.key())
    }

    fn table(&self) -> Option<DataTable> {
        let base = self.values.get(self.baseline).copied().unwrap_or(0.0);
        let label = self.labels.get(self.baseline).cloned().unwrap_or_default();
        Some(DataTable {
            head: vec![
                "run".into(),
                self.metric.title().into(),
                format!("÷ {label}"),
            ],
            rows: self
                .labels
                .iter()
                .zip(&self.values)
                .map(|(l, v)| {
                    let rel = if base != 0.0 {
                        fmt_num(v / base, 3)
                    } else {
                        "–".into()
                    };
                    vec![l.clone(), fmt_num(*v, self.metric.decimals()), rel]
                })
                .collect(),
        })
    }
}

/// The wait-time CDF of every run.
#[derive(Clone, Debug, PartialEq)]
pub struct WaitCdf {
    pub runs: Vec<Rc<RunResult>>,
}

impl Plot for WaitCdf {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let lines: Vec<(String, &[(f64, f64)])> = self
            .runs
            .iter()
            .map(|r| (r.label().to_string(), r.wait_cdf.as_slice()))
            .collect();
        draw::cdf(canvas, &lines)
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let parts: Vec<String> = self
            .runs
            .iter()
            .map(|r| format!("{} {:.1} %", r.label(), cdf_at(&r.wait_cdf, x) * 100.0))
            .collect();
        format!(
            "waiting at most {}: {}",
            draw::format_secs(x),
            parts.join(", ")
        )
    }

    fn name(&self) -> String {
        "gridscope-wait-cdf".into()
    }

    /// The waits the shares of jobs stay within: the curves' readings at 50, 90 and 99 %.
    fn table(&self) -> Option<DataTable> {
        let within = |pts: &[(f64, f64)], share: f64| {
            pts.iter()
                .find(|p| p.1 >= share)
                .map_or("–".into(), |p| draw::format_secs(p.0))
        };
        Some(DataTable {
            head: [
                "run",
                "half of the jobs wait at most",
                "90 %",
                "99 %",
                "all",
            ]
            .map(String::from)
            .to_vec(),
            rows: self
                .runs
                .iter()
                .map(|r| {
                    let pts = r.wait_cdf.as_slice();
                    vec![
                        r.label().to_string(),
                        within(pts, 0.5),
                        within(pts, 0.9),
                        within(pts, 0.99),
                        within(pts, 1.0),
                    ]
                })
                .collect(),
        })
    }
}

/// What a series chart shows per site over one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// Busy CPUs / CPUs.
    Utilization,
    /// Jobs waiting.
    Queue,
    /// Nodes up / nodes (runs with failures, issue #41).
    NodesUp,
    /// Memory held / the nodes' memory (node-typed sites with memory, issue #37).
    Memory,
    /// GPUs held / the nodes' GPUs (node-typed sites with GPUs, issue #37).
    Gpus,
    /// Idle cores stranded / cores (node-typed sites with memory or GPUs, issue #37).
    Stranded,
    /// Free memory stranded on full nodes / memory (node-typed sites with memory).
    MemoryStranded,
    /// Free GPUs stranded on full nodes / GPUs (node-typed sites with GPUs).
    GpusStranded,
    /// Watts drawn (sites with power models, issue #40), drawn in kW.
    Power,
}

impl Quantity {
    pub fn of(self, s: &SiteSeriesData) -> &[f64] {
        match self {
            Quantity::Utilization => &s.utilization,
            Quantity::Queue => &s.queue_length,
            Quantity::NodesUp => &s.nodes_up,
            Quantity::Memory => &s.memory,
            Quantity::Gpus => &s.gpus,
            Quantity::Stranded => &s.cores_stranded,
            Quantity::MemoryStranded => &s.memory_stranded,
            Quantity::GpusStranded => &s.gpus_stranded,
            Quantity::Power => &s.power_w,
        }
    }

    /// What a value is multiplied by to be drawn in the axis' unit.
    pub fn scale(self) -> f64 {
        match self {
            Quantity::Power => 1e-3,
            _ => 1.0,
        }
    }

    pub fn axis(self) -> &'static str {
        match self {
            Quantity::Utilization => "busy CPUs / CPUs",
            Quantity::Queue => "jobs waiting",
            Quantity::NodesUp => "nodes up / nodes",
            Quantity::Memory => "memory held / memory",
            Quantity::Gpus => "GPUs held / GPUs",
            Quantity::Stranded => "stranded cores / cores",
            Quantity::MemoryStranded => "stranded memory / memory",
            Quantity::GpusStranded => "stranded GPUs / GPUs",
            Quantity::Power => "kW",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Quantity::Utilization => "Utilization",
            Quantity::Queue => "Queue length",
            Quantity::NodesUp => "Nodes up",
            Quantity::Memory => "Memory held",
            Quantity::Gpus => "GPUs held",
            Quantity::Stranded => "Cores stranded",
            Quantity::MemoryStranded => "Memory stranded",
            Quantity::GpusStranded => "GPUs stranded",
            Quantity::Power => "Power",
        }
    }

    fn file(self) -> &'static str {
        match self {
            Quantity::Utilization => "utilization",
            Quantity::Queue => "queue",
            Quantity::NodesUp => "nodes-up",
            Quantity::Memory => "memory",
            Quantity::Gpus => "gpus",
            Quantity::Stranded => "cores-stranded",
            Quantity::MemoryStranded => "memory-stranded",
            Quantity::GpusStranded => "gpus-stranded",
            Quantity::Power => "power",
        }
    }
}

/// One [`Quantity`] per site over one run.
#[derive(Clone, Debug, PartialEq)]
pub struct SeriesChart {
    pub run: Rc<RunResult>,
    pub quantity: Quantity,
}

impl Plot for SeriesChart {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let title = format!("{} per site ({})", self.quantity.title(), self.run.label());
        draw::series(canvas, &title, &self.run.series, self.quantity)
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let s = &self.run.series;
        let k = (x * 86400.0 / s.bucket_s.max(1e-9)).floor().max(0.0) as usize;
        let parts: Vec<String> = s
            .sites
            .iter()
            .filter_map(|site| {
                let v = *self.quantity.of(site).get(k)?;
                Some(match self.quantity {
                    Quantity::Queue => format!("{} {v:.1} jobs", site.name),
                    Quantity::Power => format!("{} {} kW", site.name, fmt_num(v / 1000.0, 2)),
                    Quantity::Utilization
                    | Quantity::NodesUp
                    | Quantity::Memory
                    | Quantity::Gpus
                    | Quantity::Stranded
                    | Quantity::MemoryStranded
                    | Quantity::GpusStranded => {
                        format!("{} {:.1} %", site.name, v * 100.0)
                    }
                })
            })
            .collect();
        format!("day {x:.2}: {}", parts.join(", "))
    }

    fn name(&self) -> String {
        format!("gridscope-{}-{}", self.quantity.file(), self.run.label())
    }
}

/// Each site's utilization over its own span, per run (`values[site][run]`).
#[derive(Clone, Debug, PartialEq)]
pub struct SiteUtil {
    pub runs: Vec<String>,
    pub sites: Vec<String>,
    pub values: Vec<Vec<f64>>,
}

impl SiteUtil {
    pub fn of(runs: &[Rc<RunResult>], sites: Vec<String>) -> SiteUtil {
        let values = (0..sites.len())
            .map(|k| {
                runs.iter()
                    .map(|r| {
                        r.report
                            .metrics
                            .sites
                            .get(k)
                            .map_or(f64::NAN, |s| s.span_utilization)
                    })
                    .collect()
            })
            .collect();
        SiteUtil {
            runs: runs.iter().map(|r| r.label().to_string()).collect(),
            sites,
            values,
        }
    }
}

impl Plot for SiteUtil {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        draw::grouped_bars(
            canvas,
            "Utilization per site and run (each site's own span)",
            "busy CPUs / CPUs",
            &self.runs,
            &self.sites,
            draw::GroupValues::Plain(&self.values),
        )
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let Some(k) = slot(x, self.runs.len()) else {
            return String::new();
        };
        let parts: Vec<String> = self
            .sites
            .iter()
            .zip(&self.values)
            .map(|(n, v)| format!("{n} {:.1} %", v.get(k).copied().unwrap_or(f64::NAN) * 100.0))
            .collect();
        format!("{}: {}", self.runs[k], parts.join(", "))
    }

    fn name(&self) -> String {
        "gridscope-site-utilization".into()
    }
}
