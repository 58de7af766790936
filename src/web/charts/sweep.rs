//! The SF panel's charts: a sweep's medians and bands, the hybrid scheduler's share over
//! one run, and the allocation calculator's fractions.

use std::rc::Rc;

use web_sys::HtmlCanvasElement;

use super::table::lines_table;
use super::{draw, slot, DataTable, Geom, Plot};
use crate::allocation::fractions::Allocation;
use crate::allocation::sweep::FractionHistory;
use crate::web::format::fmt_num;
use crate::web::protocol::SweepData;

/// A finished sweep: one line per policy over its band. Equal when it is the same result.
#[derive(Clone, Debug)]
pub struct Sweep(pub Rc<SweepData>);

impl PartialEq for Sweep {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Plot for Sweep {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let r = &self.0;
        let title = format!(
            "{}: median of {} seeds, band {:.0} %",
            r.preset,
            r.seeds,
            r.confidence * 100.0
        );
        draw::band_lines(
            canvas,
            &title,
            (&r.x_label, "mean response time (s)"),
            &r.x,
            &r.series,
        )
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let r = &self.0;
        let Some(i) = nearest(&r.x, x) else {
            return String::new();
        };
        let parts: Vec<String> = r
            .series
            .iter()
            .filter_map(|s| {
                Some(format!(
                    "{} {} s (band {} – {})",
                    s.policy,
                    fmt_num(*s.median.get(i)?, 4),
                    fmt_num(*s.lo.get(i)?, 4),
                    fmt_num(*s.hi.get(i)?, 4)
                ))
            })
            .collect();
        format!("{} = {}: {}", r.x_label, r.x[i], parts.join(", "))
    }

    fn table(&self) -> Option<DataTable> {
        let r = &self.0;
        Some(lines_table(&r.x_label, &r.x, &r.series, " s"))
    }

    fn name(&self) -> String {
        format!("gridscope-sweep-{}", self.0.preset)
    }
}

/// The index of the value of `xs` nearest to `x`.
fn nearest(xs: &[f64], x: f64) -> Option<usize> {
    xs.iter()
        .enumerate()
        .filter(|(_, v)| v.is_finite())
        .min_by(|a, b| (a.1 - x).abs().total_cmp(&(b.1 - x).abs()))
        .map(|(i, _)| i)
}

/// The hybrid scheduler's share of the degrading resource over one run of a sweep (a sweep
/// that has one). Equal when it is the same result.
#[derive(Clone, Debug)]
pub struct History(pub Rc<SweepData>);

impl PartialEq for History {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl History {
    fn history(&self) -> Option<&FractionHistory> {
        self.0.history.as_ref()
    }
}

impl Plot for History {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let h = self.history().ok_or("no fraction history")?;
        let title = format!(
            "Hybrid share of resource {} (x = {}, seed 1)",
            h.resource + 1,
            h.x
        );
        draw::fraction_history(canvas, &title, h)
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let Some(h) = self.history() else {
            return String::new();
        };
        let k = h.batch.partition_point(|&b| (b as f64) <= x);
        let Some((b, a)) = k
            .checked_sub(1)
            .and_then(|i| Some((h.batch.get(i)?, h.hybrid.get(i)?)))
        else {
            return String::new();
        };
        let optimal = match h.owa_after {
            Some(after) if *b >= h.change_batch => format!("OWA for the true rates {after:.4}"),
            _ => format!("OWA for the initial rates {:.4}", h.static_owa),
        };
        format!("batch {b}: hybrid α {a:.4}, {optimal}")
    }

    fn name(&self) -> String {
        format!("gridscope-hybrid-share-{}", self.0.preset)
    }

    fn data_attrs(&self) -> Vec<(&'static str, String)> {
        let Some(h) = self.history() else {
            return vec![];
        };
        vec![
            ("data-static", h.static_owa.to_string()),
            (
                "data-after",
                h.owa_after.map(|a| a.to_string()).unwrap_or_default(),
            ),
            (
                "data-last",
                h.hybrid.last().map(|a| a.to_string()).unwrap_or_default(),
            ),
        ]
    }
}

/// The calculator's OWA and WW fractions per resource.
#[derive(Clone, Debug, PartialEq)]
pub struct AllocationBars(pub Allocation);

impl Plot for AllocationBars {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let a = &self.0;
        let groups: Vec<String> = a
            .rates
            .iter()
            .enumerate()
            .map(|(i, r)| format!("{}: μ={r}", i + 1))
            .collect();
        let series = ["OWA (eq. 11)".to_string(), "WW (μ/Σμ)".to_string()];
        draw::grouped_bars(
            canvas,
            "Share of the jobs per resource",
            "fraction α",
            &groups,
            &series,
            draw::GroupValues::Plain(&[a.owa.clone(), a.ww.clone()]),
        )
    }

    fn describe(&self, x: f64, _y: f64) -> String {
        let a = &self.0;
        let Some(i) = slot(x, a.rates.len()) else {
            return String::new();
        };
        let (Some(owa), Some(ww)) = (a.owa.get(i), a.ww.get(i)) else {
            return String::new();
        };
        format!(
            "resource {} (μ = {}): OWA α {owa:.4}, WW α {ww:.4}",
            i + 1,
            a.rates[i]
        )
    }

    fn name(&self) -> String {
        "gridscope-allocation".into()
    }
}
