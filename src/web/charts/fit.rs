//! A trace beside the synthetic workload drawn from its hyper-Erlang fit: CDFs of
//! inter-arrival time, run time and processors.

use std::rc::Rc;

use web_sys::HtmlCanvasElement;

use super::draw::XUnit;
use super::{cdf_at, draw, Geom, Plot};
use crate::metrics::WorkloadCdfs;
use crate::web::format::fmt_num;
use crate::web::protocol::FitCompare;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FitKind {
    Interarrival,
    Runtime,
    Procs,
}

impl FitKind {
    pub const ALL: [FitKind; 3] = [FitKind::Interarrival, FitKind::Runtime, FitKind::Procs];

    fn title(self) -> &'static str {
        match self {
            FitKind::Interarrival => "Inter-arrival time CDF",
            FitKind::Runtime => "Run time CDF",
            FitKind::Procs => "Processors CDF",
        }
    }

    fn x_axis(self) -> (&'static str, XUnit) {
        match self {
            FitKind::Interarrival => (
                "gap between submits (s, log; 0 s drawn at 1 s)",
                XUnit::Seconds,
            ),
            FitKind::Runtime => ("run time (s, log)", XUnit::Seconds),
            FitKind::Procs => ("processors (log)", XUnit::Count),
        }
    }

    pub fn testid(self) -> &'static str {
        match self {
            FitKind::Interarrival => "chart-fit-interarrival",
            FitKind::Runtime => "chart-fit-runtime",
            FitKind::Procs => "chart-fit-procs",
        }
    }

    fn pick(self, c: &WorkloadCdfs) -> &[(f64, f64)] {
        match self {
            FitKind::Interarrival => &c.interarrival_s,
            FitKind::Runtime => &c.runtime_s,
            FitKind::Procs => &c.procs,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct FitCdf {
    pub kind: FitKind,
    pub cmp: Rc<FitCompare>,
}

impl Plot for FitCdf {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let (k, c) = (self.kind, &self.cmp);
        let mut lines: Vec<(String, &[(f64, f64)])> = vec![(
            format!("trace ({} jobs)", fmt_num(c.original.jobs as f64, 0)),
            k.pick(&c.original),
        )];
        if c.error.is_none() {
            lines.push((
                format!(
                    "fitted model ({} jobs)",
                    fmt_num(c.synthetic.jobs as f64, 0)
                ),
                k.pick(&c.synthetic),
            ));
        }
        draw::step_cdfs(canvas, k.title(), k.x_axis(), &lines, true)
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let (k, c) = (self.kind, &self.cmp);
        let at = if k == FitKind::Procs {
            format!("{x:.0} processors")
        } else {
            draw::format_secs(x)
        };
        let share = |w: &WorkloadCdfs| cdf_at(k.pick(w), x) * 100.0;
        let mut text = format!("at most {at}: trace {:.1} %", share(&c.original));
        if c.error.is_none() {
            text.push_str(&format!(", fitted model {:.1} %", share(&c.synthetic)));
        }
        text
    }

    fn name(&self) -> String {
        format!("gridscope-{}", self.kind.testid())
    }
}
