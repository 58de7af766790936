//! The Gantt chart of one site of one run: jobs over (hours, allocation units).

use std::rc::Rc;

use web_sys::HtmlCanvasElement;

use super::{draw, Geom, Plot};
use crate::web::protocol::GanttData;

#[derive(Clone, Debug, PartialEq)]
pub struct Gantt {
    pub data: Rc<GanttData>,
    /// The site's and the run's names.
    pub site: String,
    pub run: String,
}

impl Plot for Gantt {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let more = if self.data.truncated {
            " (first jobs only: zoom in)"
        } else {
            ""
        };
        let title = format!("Gantt chart: {}, {}{more}", self.site, self.run);
        draw::gantt(canvas, &title, &self.data)
    }

    fn describe(&self, x: f64, y: f64) -> String {
        let g = &self.data;
        let t = x * 3600.0;
        let u = y.floor().max(0.0) as u32;
        if let Some(d) = g
            .down
            .iter()
            .find(|d| d.0 <= t && t < d.1 && d.2 <= u && u < d.2 + d.3)
        {
            return format!(
                "node down from {:.2} h to {:.2} h ({}), {} {}–{}",
                d.0 / 3600.0,
                d.1 / 3600.0,
                draw::format_secs(d.1 - d.0),
                g.unit,
                d.2,
                d.2 + d.3 - 1
            );
        }
        if let Some(r) = hit(&g.killed, t, u) {
            return format!(
                "job {}: a run killed by a failure, start {:.2} h, killed {:.2} h (ran {})",
                r.0,
                r.1 / 3600.0,
                r.2 / 3600.0,
                draw::format_secs(r.2 - r.1)
            );
        }
        match hit(&g.rects, t, u) {
            Some(r) => format!(
                "job {}: start {:.2} h, end {:.2} h (ran {}), {} {}–{}",
                r.0,
                r.1 / 3600.0,
                r.2 / 3600.0,
                draw::format_secs(r.2 - r.1),
                g.unit,
                r.3,
                r.3 + r.4 - 1
            ),
            None => format!("{x:.2} h, {} {u}: idle", g.unit.trim_end_matches('s')),
        }
    }

    fn pick(&self, x: f64, y: f64) -> Option<i64> {
        let (t, u) = (x * 3600.0, y.floor().max(0.0) as u32);
        hit(&self.data.rects, t, u)
            .or_else(|| hit(&self.data.killed, t, u))
            .map(|r| r.0)
    }

    fn name(&self) -> String {
        format!("gridscope-gantt-{}-{}", self.site, self.run)
    }

    fn data_attrs(&self) -> Vec<(&'static str, String)> {
        let g = &self.data;
        vec![
            ("data-rects", g.rects.len().to_string()),
            ("data-killed", g.killed.len().to_string()),
            ("data-down", g.down.len().to_string()),
        ]
    }
}

/// The rectangle `(job, start s, end s, first unit, units)` of `rects` over time `t` and
/// unit `u`, if any.
fn hit(rects: &[(i64, f64, f64, u32, u32)], t: f64, u: u32) -> Option<&(i64, f64, f64, u32, u32)> {
    rects
        .iter()
        .find(|r| r.1 <= t && t < r.2 && r.3 <= u && u < r.3 + r.4)
}
