//! The step-through view's picture: one site at one instant, ahead in time by estimates —
//! each running job a block from now to its predicted end (stacked, soonest end at the
//! bottom), the jobs started at this instant marked (green from the head of the queue,
//! orange backfilled), and the head's reservation (EASY) drawn at its shadow time on the
//! units it will take, so a backfill reads as "fits in the hole before the head's start".

use web_sys::HtmlCanvasElement;

use plotters::prelude::*;

use super::draw::{area, e, finish, fit_y_desc, titled, x_ticks, y_ticks};
use super::{Geom, Plot};
use crate::scenario::steps::StepFrame;
use crate::web::format::{fmt_duration, secs_unit};

/// The frame drawn and the site's name.
#[derive(Clone, Debug, PartialEq)]
pub struct StepPicture {
    pub frame: StepFrame,
    pub site: String,
}

const HEAD: RGBColor = RGBColor(0, 158, 115);
const BACKFILL: RGBColor = RGBColor(230, 159, 0);
const RUNNING: RGBColor = RGBColor(150, 170, 190);
const RESERVED: RGBColor = RGBColor(204, 121, 167);

impl StepPicture {
    /// (job, units, from s, to s, started now, backfilled) per running job, stacked.
    fn blocks(&self) -> Vec<(i64, u32, u32, f64, f64, bool, bool)> {
        let f = &self.frame;
        let mut lo = 0;
        f.running
            .iter()
            .map(|&(job, units, end)| {
                let started = f.started.iter().find(|s| s.job == job);
                let b = (
                    job,
                    lo,
                    units,
                    f.time_s,
                    end,
                    started.is_some(),
                    started.is_some_and(|s| s.backfilled),
                );
                lo += units;
                b
            })
            .collect()
    }

    /// The head's reservation: (job, from s, to s, units) — it starts at its shadow time
    /// and takes the units above those still running then.
    fn reservation(&self) -> Option<(i64, f64, f64, u32, u32)> {
        let f = &self.frame;
        let (job, shadow, _extra) = f.head?;
        let (_, units, estimate) = f.queue.iter().find(|q| q.0 == job)?;
        let busy_then: u32 = f.running.iter().filter(|r| r.2 > shadow).map(|r| r.1).sum();
        let lo = busy_then.min(f.capacity.saturating_sub(*units));
        Some((job, shadow, shadow + estimate, lo, *units))
    }

    /// Seconds per unit of the time axis.
    fn per(&self) -> f64 {
        secs_unit(self.span().1).1
    }

    fn span(&self) -> (f64, f64) {
        let f = &self.frame;
        let mut end = f.running.iter().map(|r| r.2).fold(f.time_s, f64::max);
        if let Some((_, _, to, _, _)) = self.reservation() {
            end = end.max(to);
        }
        (f.time_s, end.max(f.time_s + 1.0))
    }
}

impl Plot for StepPicture {
    fn draw(&self, canvas: &HtmlCanvasElement) -> Result<Geom, String> {
        let root = area(canvas)?;
        let f = &self.frame;
        // Time in the unit that suits the window (s, min or h after the first submission).
        let per = self.per();
        let (x0, x1) = self.span();
        let (x0, x1) = (x0 / per, x1 / per);
        let cap = f.capacity.max(1) as f64;
        let body = titled(
            &root,
            format!(
                "{} at t = {} (by estimates)",
                self.site,
                fmt_duration(f.time_s)
            ),
        )?;
        let mut chart = ChartBuilder::on(&body)
            .margin(8)
            .x_label_area_size(40)
            .y_label_area_size(52)
            .build_cartesian_2d(x0..x1, 0f64..cap)
            .map_err(e)?;
        chart
            .configure_mesh()
            .y_labels(y_ticks(&root))
            .x_labels(x_ticks(&root))
            .disable_mesh()
            .x_desc(format!(
                "{} after the first submission",
                secs_unit(self.span().1).0
            ))
            .y_desc(fit_y_desc(&root, "units"))
            .y_label_formatter(&|v| format!("{v:.0}"))
            .draw()
            .map_err(e)?;
        let plot = chart.plotting_area();
        let rect = |from: f64, to: f64, lo: u32, units: u32| {
            [(from / per, lo as f64), (to / per, (lo + units) as f64)]
        };
        for (_job, lo, units, from, to, now, backfilled) in self.blocks() {
            let c = match (now, backfilled) {
                (true, true) => BACKFILL,
                (true, false) => HEAD,
                _ => RUNNING,
            };
            plot.draw(&Rectangle::new(
                rect(from, to, lo, units),
                c.mix(0.85).filled(),
            ))
            .map_err(e)?;
            plot.draw(&Rectangle::new(
                rect(from, to, lo, units),
                WHITE.stroke_width(1),
            ))
            .map_err(e)?;
        }
        if let Some((_, from, to, lo, units)) = self.reservation() {
            plot.draw(&Rectangle::new(
                rect(from, to, lo, units),
                RESERVED.mix(0.25).filled(),
            ))
            .map_err(e)?;
            plot.draw(&Rectangle::new(
                rect(from, to, lo, units),
                RESERVED.stroke_width(2),
            ))
            .map_err(e)?;
            plot.draw(&PathElement::new(
                vec![(from / per, 0.0), (from / per, cap)],
                RESERVED.stroke_width(1),
            ))
            .map_err(e)?;
        }
        finish(&root, &mut chart, None, (x0, x1), (0.0, cap), false)
    }

    fn describe(&self, x: f64, y: f64) -> String {
        let (x, u) = (x * self.per(), y.floor().max(0.0) as u32);
        if let Some((job, from, to, lo, units)) = self.reservation() {
            if from <= x && x < to && lo <= u && u < lo + units {
                return format!(
                    "job {job}, the head: reserved from its shadow time {} for {} units",
                    fmt_duration(from),
                    units
                );
            }
        }
        self.blocks()
            .into_iter()
            .find(|b| b.3 <= x && x < b.4 && b.1 <= u && u < b.1 + b.2)
            .map_or_else(
                || format!("{}: {u} free by estimates", fmt_duration(x)),
                |(job, _, units, _, to, now, backfilled)| {
                    let how = match (now, backfilled) {
                        (true, true) => ", backfilled now",
                        (true, false) => ", started now from the head",
                        _ => "",
                    };
                    format!("job {job}: {units} units until {}{how}", fmt_duration(to))
                },
            )
    }

    fn pick(&self, x: f64, y: f64) -> Option<i64> {
        let (x, u) = (x * self.per(), y.floor().max(0.0) as u32);
        if let Some((job, from, to, lo, units)) = self.reservation() {
            if from <= x && x < to && lo <= u && u < lo + units {
                return Some(job);
            }
        }
        self.blocks()
            .into_iter()
            .find(|b| b.3 <= x && x < b.4 && b.1 <= u && u < b.1 + b.2)
            .map(|b| b.0)
    }

    fn name(&self) -> String {
        format!("gridscope-step-{}", self.frame.time_s)
    }
}
