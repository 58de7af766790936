//! The charts' drawing surface: plotters' canvas backend, drawing in CSS pixels on a canvas
//! whose backing store holds `devicePixelRatio` times as many, so charts are sharp on HiDPI
//! screens and their text keeps its size in CSS pixels whatever the screen.
//!
//! [`ChartView`](super::ChartView) sizes the canvas ([`fit`]): its CSS width is the width
//! its box gives it (up to the chart's own width), its backing store that × the ratio. Every
//! chart draws through [`Sharp`], which tells plotters the CSS size and scales the context,
//! so no chart knows about device pixels.

use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

type Error = DrawingErrorKind<<CanvasBackend as DrawingBackend>::ErrorType>;

/// The screen's device pixels per CSS pixel (1 where unknown).
pub fn device_pixel_ratio() -> f64 {
    web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .filter(|r| r.is_finite() && *r > 0.0)
        .unwrap_or(1.0)
}

/// The canvas's size in CSS pixels, as [`fit`] set it: its backing size ÷ the ratio.
pub fn css_size(canvas: &HtmlCanvasElement) -> (u32, u32) {
    let r = device_pixel_ratio();
    let css = |px: u32| ((px as f64 / r).round() as u32).max(1);
    (css(canvas.width()), css(canvas.height()))
}

/// Charts shorter than this (CSS pixels) on a narrow screen are drawn this tall instead, so
/// a phone's chart stays readable (its text keeps its size; it gets less wide, not smaller).
const MIN_HEIGHT: u32 = 220;

/// Sizes `canvas` for a chart designed at `want` (CSS pixels): as wide as its box allows up
/// to `want.0` (the design width where it is hidden and has no box), as tall as the design's
/// aspect gives (at least [`MIN_HEIGHT`] or the design height if smaller), with a backing
/// store of that × the device pixel ratio. `true` when the backing size changed (the chart
/// must be drawn again).
pub fn fit(canvas: &HtmlCanvasElement, want: (u32, u32)) -> bool {
    let style = canvas.style();
    let _ = style.set_property("max-width", &format!("{}px", want.0));
    // The figure no wider than its canvas, so its PNG button sits on the chart's corner.
    if let Some(figure) = canvas
        .parent_element()
        .and_then(|p| p.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = figure
            .style()
            .set_property("max-width", &format!("{}px", want.0));
    }
    let boxed = canvas.client_width().max(0) as u32;
    let w = if boxed == 0 {
        want.0
    } else {
        boxed.min(want.0)
    };
    let h = ((w as f64 * want.1 as f64 / want.0.max(1) as f64).round() as u32)
        .max(MIN_HEIGHT.min(want.1))
        .max(1);
    let _ = style.set_property("height", &format!("{h}px"));
    let r = device_pixel_ratio();
    let (bw, bh) = ((w as f64 * r).round() as u32, (h as f64 * r).round() as u32);
    let changed = canvas.width() != bw || canvas.height() != bh;
    if changed {
        canvas.set_width(bw);
        canvas.set_height(bh);
    }
    changed
}

/// Plotters' canvas backend in CSS pixels (see the module's comment).
pub struct Sharp {
    inner: CanvasBackend,
    size: (u32, u32),
}

impl Sharp {
    pub fn new(canvas: &HtmlCanvasElement) -> Option<Sharp> {
        let size = css_size(canvas);
        let context: CanvasRenderingContext2d = canvas.get_context("2d").ok()??.dyn_into().ok()?;
        // Absolute, not cumulative: a redraw of the same canvas starts from the same scale.
        context
            .set_transform(
                canvas.width() as f64 / size.0 as f64,
                0.0,
                0.0,
                canvas.height() as f64 / size.1 as f64,
                0.0,
                0.0,
            )
            .ok()?;
        Some(Sharp {
            inner: CanvasBackend::with_canvas_object(canvas.clone())?,
            size,
        })
    }
}

impl DrawingBackend for Sharp {
    type ErrorType = <CanvasBackend as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Result<(), Error> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), Error> {
        self.inner.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), Error> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), Error> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Error> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), Error> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), Error> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), Error> {
        self.inner.fill_polygon(vert, style)
    }

    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> Result<(), Error> {
        self.inner.draw_text(text, style, pos)
    }

    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        style: &T,
    ) -> Result<(u32, u32), Error> {
        self.inner.estimate_text_size(text, style)
    }
}
