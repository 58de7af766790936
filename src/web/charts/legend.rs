//! Legends that never cover the data (issue #38): beside the plot when the chart is wide
//! enough, else in rows under it. A chart plans its legend before it builds its axes (the
//! room is a margin of the chart), then draws it after its series.
//!
//! Plotters' own legend sits in a corner of the plotting area, over whatever is drawn
//! there; the page test `tests/browser/layout.test.mjs` checks that no legend text meets a
//! plotting area.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::backend::{self, Sharp};

/// How an entry is keyed: a line, a faint line (a marker such as "rate changes"), or a
/// filled swatch (bars).
#[derive(Clone, Copy, Debug)]
pub(super) enum Key {
    Line(RGBColor),
    Faint,
    Swatch(RGBColor),
}

/// Pixels between rows of a legend, and from a key to its label.
const ROW: i32 = 18;
const KEY: i32 = 22;
/// Gap between entries side by side in a row under the plot.
const GAP: i32 = 14;
/// The chart's usual margin, which the legend's room is added to.
const MARGIN: u32 = 8;

/// Where entries of these widths go in rows from `left` to `right`, `gap` apart: each
/// entry's (x, row), a new row when the next would pass `right` (an entry alone in its
/// row stays however wide it is).
pub(super) fn flow(
    widths: impl Iterator<Item = i32>,
    (left, right): (i32, i32),
    gap: i32,
) -> Vec<(i32, i32)> {
    let (mut x, mut row) = (left, 0);
    widths
        .map(|w| {
            if x > left && x + w > right {
                (x, row) = (left, row + 1);
            }
            let at = (x, row);
            x += w + gap;
            at
        })
        .collect()
}

/// A legend planned for a canvas: its entries and where they go.
pub(super) struct Legend {
    entries: Vec<(String, Key, i32)>,
    /// Room at the right of the plot (0 when the legend goes under it).
    right: u32,
    /// Each entry's (x, row) under the plot, when it goes there.
    rows: Vec<(i32, i32)>,
    /// The canvas's size (CSS pixels).
    size: (u32, u32),
}

impl Legend {
    /// Beside the plot when the canvas is at least 480 px wide, the widest entry takes at
    /// most a third of it and the entries fit its height in one column; else as many rows under the plot as the entries need. No
    /// entries, no room.
    pub fn plan(root: &DrawingArea<Sharp, Shift>, entries: Vec<(String, Key)>) -> Legend {
        let (w, h) = root.dim_in_pixel();
        let style: TextStyle = ("sans-serif", 12).into_font().into();
        let entries: Vec<(String, Key, i32)> = entries
            .into_iter()
            .map(|(label, key)| {
                let tw = root
                    .estimate_text_size(&label, &style)
                    .map_or(label.chars().count() as u32 * 7, |s| s.0);
                (label, key, KEY + tw as i32)
            })
            .collect();
        let widest = entries.iter().map(|e| e.2).max().unwrap_or(0) as u32;
        let mut legend = Legend {
            entries,
            right: 0,
            rows: vec![],
            size: (w, h),
        };
        if legend.entries.is_empty() {
            return legend;
        }
        // Beside the plot its entries are one column: they must fit the canvas's height
        // (under the title), else they go in rows under the plot.
        let column = legend.entries.len() as u32 * ROW as u32 + 48;
        if w >= backend::NARROW && widest + 16 <= w / 3 && column <= h {
            legend.right = widest + 16;
            return legend;
        }
        let widths = legend.entries.iter().map(|e| e.2);
        let (left, right) = (MARGIN as i32, w as i32 - MARGIN as i32);
        legend.rows = flow(widths, (left, right), GAP);
        legend
    }

    /// A chart builder on `body` with the usual margin and the legend's room.
    pub fn builder<'a, 'b>(
        &self,
        body: &'a DrawingArea<Sharp, Shift>,
    ) -> ChartBuilder<'a, 'b, Sharp> {
        let mut builder = ChartBuilder::on(body);
        builder
            .margin(MARGIN)
            .margin_right(self.margin_right())
            .margin_bottom(self.margin_bottom());
        builder
    }

    /// The chart's right margin: its usual one plus the legend's room, and room for half
    /// of the last x label, which is centred on the plot's right edge.
    fn margin_right(&self) -> u32 {
        (MARGIN + self.right).max(18)
    }

    /// The chart's bottom margin: its usual one plus the legend's rows.
    fn margin_bottom(&self) -> u32 {
        let rows = self.rows.iter().map(|r| r.1 + 1).max().unwrap_or(0) as u32;
        MARGIN + rows * ROW as u32
    }

    /// Draws the entries where [`Legend::plan`] put them, on the whole canvas (plotters
    /// clips what a chart draws to its plotting area).
    pub fn draw<CT: CoordTranslate>(
        &self,
        root: &DrawingArea<Sharp, Shift>,
        chart: &ChartContext<'_, Sharp, CT>,
    ) -> Result<(), String> {
        let _texts = backend::LegendText::begin();
        let (rx, ry) = chart.plotting_area().get_pixel_range();
        let below_top = self.size.1 as i32 - self.margin_bottom() as i32 + 4;
        for (k, (label, key, _)) in self.entries.iter().enumerate() {
            let (x, y) = match self.rows.get(k) {
                Some(&(x, row)) => (x, below_top + 9 + ROW * row),
                None => (rx.end + 12, ry.start + 8 + ROW * k as i32),
            };
            let drawn = match *key {
                Key::Line(c) => root.draw(&PathElement::new(
                    vec![(x, y), (x + 16, y)],
                    c.stroke_width(2),
                )),
                Key::Faint => root.draw(&PathElement::new(
                    vec![(x, y), (x + 16, y)],
                    BLACK.mix(0.4).stroke_width(1),
                )),
                Key::Swatch(c) => root.draw(&Rectangle::new(
                    [(x + 2, y - 5), (x + 14, y + 5)],
                    c.filled(),
                )),
            };
            drawn.map_err(|e| e.to_string())?;
            root.draw(&Text::new(
                label.clone(),
                (x + KEY, y - 6),
                ("sans-serif", 12).into_font(),
            ))
            .map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}
