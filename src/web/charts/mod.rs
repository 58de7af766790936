//! The page's charts. A [`Chart`] holds what one chart shows and knows how to draw it
//! (`draw`), what is under the pointer (its tooltip) and its file name; [`ChartView`]
//! is the canvas on the page with the hover tooltip and the PNG export. A panel renders
//! `<ChartView chart={Some(Chart::…)} … />` and nothing else.
//!
//! A new chart is a type implementing [`Plot`] (in its own file here) and a variant of
//! [`Chart`].

mod ab;
mod backend;
pub mod draw;
mod families;
mod family_plots;
mod fit;
mod gantt;
mod geom;
mod kkor_gantt;
mod merged;
mod runs;
mod scjg;
mod sob;
mod step;
mod sweep;
mod table;
mod view;
mod widths;

use std::rc::Rc;

use web_sys::HtmlCanvasElement;

pub use ab::AbScatter;
pub use draw::Geom;
pub use families::{FamilyChart, SesFigure, KKOR_CHART_METRICS};
pub use fit::{FitCdf, FitKind};
pub use gantt::Gantt;
pub use merged::MergedChart;
pub use runs::{Bars, SeriesChart, SiteUtil, WaitCdf};
pub use scjg::{ScjgChart, SCJG_CHART_METRICS};
pub use sob::{SobFigure, SOB_METRICS};
pub use step::StepPicture;
pub use sweep::{AllocationBars, History, Sweep};
pub use table::DataTable;
pub use view::ChartView;
pub use widths::WidthWaits;

/// One kind of chart: its drawing, its tooltip text and its name.
pub trait Plot {
    /// Draws the whole chart into `canvas`; the geometry maps canvas pixels to data.
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String>;
    /// What is at data coordinates (x, y), in words; empty for nothing.
    fn describe(&self, x: f64, y: f64) -> String;
    /// The PNG export's file name, without `.png`.
    fn name(&self) -> String;
    /// The job at data coordinates (x, y), for charts whose marks are jobs (a click asks
    /// why it waited).
    fn pick(&self, _x: f64, _y: f64) -> Option<i64> {
        None
    }
    /// The chart's numbers as a table (screen readers, copying); `None` where the page
    /// shows them beside it already.
    fn table(&self) -> Option<DataTable> {
        None
    }
    /// `data-*` attributes of the canvas: the numbers drawn, for tests and copying.
    fn data_attrs(&self) -> Vec<(&'static str, String)> {
        vec![]
    }
}

/// Every chart of the page.
#[derive(Clone, PartialEq)]
pub enum Chart {
    /// One metric of every run relative to a baseline run.
    Bars(Rc<Bars>),
    WaitCdf(Rc<WaitCdf>),
    /// Utilization or queue length per site over one run.
    Series(Rc<SeriesChart>),
    SiteUtil(Rc<SiteUtil>),
    /// Mean wait per job-width class and run.
    WidthWaits(Rc<WidthWaits>),
    /// SOB Figures 3/4.
    Sob(Rc<SobFigure>),
    Gantt(Rc<Gantt>),
    /// A trace against its fitted hyper-Erlang model.
    FitCdf(Rc<FitCdf>),
    /// SF sweeps: medians and bands, the hybrid's share, the calculator's fractions.
    Sweep(Sweep),
    History(History),
    Allocation(Rc<AllocationBars>),
    /// The SES and KKOR panels' charts.
    Family(FamilyChart),
    /// The SCJG panel's charts.
    Scjg(ScjgChart),
    /// The step-through view's picture of one instant.
    Step(Rc<StepPicture>),
    Ab(Rc<AbScatter>),
    /// A cluster sweep's merged table (`gridscope sweep merge`), dropped on the page.
    Merged(MergedChart),
}

impl Chart {
    pub fn plot(&self) -> &dyn Plot {
        match self {
            Chart::Bars(p) => p.as_ref(),
            Chart::WaitCdf(p) => p.as_ref(),
            Chart::Series(p) => p.as_ref(),
            Chart::SiteUtil(p) => p.as_ref(),
            Chart::WidthWaits(p) => p.as_ref(),
            Chart::Sob(p) => p.as_ref(),
            Chart::Gantt(p) => p.as_ref(),
            Chart::FitCdf(p) => p.as_ref(),
            Chart::Sweep(p) => p,
            Chart::History(p) => p,
            Chart::Allocation(p) => p.as_ref(),
            Chart::Family(p) => p,
            Chart::Scjg(p) => p,
            Chart::Step(p) => p.as_ref(),
            Chart::Ab(p) => p.as_ref(),
            Chart::Merged(p) => p,
        }
    }
}

/// Share of `pts` (an ascending empirical CDF) at or below `x`, drawn on a log axis where
/// values under 1 sit at 1.
pub(crate) fn cdf_at(pts: &[(f64, f64)], x: f64) -> f64 {
    let k = pts.partition_point(|p| p.0.max(1.0) <= x);
    if k == 0 {
        0.0
    } else {
        pts[k - 1].1
    }
}

/// The index nearest to `x` among `n` slots centred on 0, 1, …; `None` when there are none.
pub(crate) fn slot(x: f64, n: usize) -> Option<usize> {
    (n > 0).then(|| ((x + 0.5).floor().max(0.0) as usize).min(n - 1))
}
