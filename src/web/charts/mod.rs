//! The page's charts. Each chart is a type implementing [`Plot`]: what it shows, how to
//! draw it (`draw`), what is under the pointer (its tooltip) and its file name;
//! [`ChartView`] is the canvas on the page with the hover tooltip and the PNG export. A
//! panel renders `<ChartView chart={Some(plot(…))} … />` and nothing else.
//!
//! A new chart is a type implementing [`Plot`] and `PartialEq`, in its own file here.

/// `PartialEq` for a chart of a shared result: the same result (`Rc::ptr_eq` on field 0,
/// never a walk through it) and equal other fields.
macro_rules! same_result {
    ($t:ident $(, $f:tt)*) => {
        impl PartialEq for $t {
            fn eq(&self, other: &Self) -> bool {
                std::rc::Rc::ptr_eq(&self.0, &other.0) $(&& self.$f == other.$f)*
            }
        }
    };
}
pub(crate) use same_result;

mod ab;
mod backend;
pub mod draw;
mod energy;
mod failures;
mod families;
mod family_plots;
mod fit;
mod gantt;
mod geom;
mod kkor_gantt;
mod legend;
mod merged;
mod resources;
mod run_bars;
mod runs;
mod scjg;
mod sob;
mod step;
mod sweep;
mod table;
mod view;
mod vs_log;
mod widths;

use std::any::Any;
use std::rc::Rc;

use web_sys::HtmlCanvasElement;

pub use ab::AbScatter;
pub use draw::Geom;
pub use energy::{CarbonCurve, EnergyWait, NodeStates};
pub use failures::lost_work;
pub use families::{
    KkorGantt, KkorLines, KkorOrgs, SesBars, SesCrossoverLines, SesFigure, SesGroups, SesQueue,
    KKOR_CHART_METRICS,
};
pub use fit::{FitCdf, FitKind};
pub use gantt::Gantt;
pub use merged::MergedChart;
pub use resources::resource_shares;
pub use runs::{Bars, Quantity, SeriesChart, SiteUtil, WaitCdf};
pub use scjg::{ScjgGantt, ScjgLines, ScjgQuery, ScjgTimeline, SCJG_CHART_METRICS};
pub use sob::{SobFigure, SOB_METRICS};
pub use step::StepPicture;
pub use sweep::{AllocationBars, History, Sweep};
pub use table::DataTable;
pub use view::ChartView;
pub use vs_log::MovingWaits;
pub use widths::WidthWaits;

/// One kind of chart: its drawing, its tooltip text and its name.
pub trait Plot: SamePlot {
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

/// Whether two charts are the same, for [`ChartView`]'s redraws: by the chart type's own
/// `PartialEq` (a chart of another type is never the same). Every `Plot + PartialEq` type
/// has it.
pub trait SamePlot {
    fn as_any(&self) -> &dyn Any;
    fn same(&self, other: &dyn Any) -> bool;
}

impl<T: Plot + PartialEq + 'static> SamePlot for T {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn same(&self, other: &dyn Any) -> bool {
        other.downcast_ref::<T>() == Some(self)
    }
}

/// Charts compare as their types do, so a panel that builds its chart again at every render
/// does not redraw the canvas unless the numbers changed.
impl PartialEq for dyn Plot {
    fn eq(&self, other: &Self) -> bool {
        SamePlot::same(self, SamePlot::as_any(other))
    }
}

/// A chart as [`ChartView`] takes it.
pub fn plot(p: impl Plot + 'static) -> Rc<dyn Plot> {
    Rc::new(p)
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
