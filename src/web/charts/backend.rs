//! The charts' drawing surface: plotters' canvas backend, drawing in CSS pixels on a canvas
//! whose backing store holds `devicePixelRatio` times as many, so charts are sharp on HiDPI
//! screens and their text keeps its size in CSS pixels whatever the screen.
//!
//! [`ChartView`](super::ChartView) sizes the canvas ([`fit_of`]): its CSS width is the width
//! its box gives it (up to the chart's own width), its backing store that × the ratio. Every
//! chart draws through [`Sharp`], which tells plotters the CSS size and scales the context,
//! so no chart knows about device pixels.

use std::cell::{Cell, RefCell};

use plotters_backend::{
    text_anchor::{HPos, VPos},
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontStyle, FontTransform,
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

/// The canvas's size in CSS pixels, as [`fit_of`] set it: its backing size ÷ the ratio.
pub fn css_size(canvas: &HtmlCanvasElement) -> (u32, u32) {
    let r = device_pixel_ratio();
    let css = |px: u32| ((px as f64 / r).round() as u32).max(1);
    (css(canvas.width()), css(canvas.height()))
}

/// Charts shorter than this (CSS pixels) on a narrow screen are drawn this tall instead, so
/// a phone's chart stays readable (its text keeps its size; it gets less wide, not smaller).
const MIN_HEIGHT: u32 = 220;

/// Under this width (CSS pixels) a chart is narrow: legends go under the plot, the SOB
/// figure's panels two to a row.
pub const NARROW: u32 = 480;

/// The size [`fit_of`] gives a canvas: its CSS height and its backing store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fit {
    height: u32,
    backing: (u32, u32),
}

/// Sizes `canvas` for a chart designed at `want` (CSS pixels): as wide as its box allows up
/// to `want.0` (the design width where it is hidden and has no box), as tall as the design's
/// aspect gives (at least [`MIN_HEIGHT`] or the design height if smaller), with a backing
/// store of that × the device pixel ratio; `narrow` is the height instead on a box under
/// [`NARROW`] px (a chart that rearranges itself there, as the SOB figure stacks its panels).
///
/// It reads the box's width before it writes anything but the canvas's and figure's
/// `max-width`, which it writes only the first time (or when `want` changes): a write
/// before the read would make the read lay the page out again, once per chart drawn.
pub fn fit_of(canvas: &HtmlCanvasElement, want: (u32, u32), narrow: Option<u32>) -> Fit {
    let max = format!("{}px", want.0);
    let style = canvas.style();
    if style.get_property_value("max-width").ok().as_deref() != Some(max.as_str()) {
        let _ = style.set_property("max-width", &max);
        // The figure no wider than its canvas, so its PNG button sits on the chart's corner.
        if let Some(figure) = canvas
            .parent_element()
            .and_then(|p| p.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = figure.style().set_property("max-width", &max);
        }
    }
    let boxed = canvas.client_width().max(0) as u32;
    let w = if boxed == 0 {
        want.0
    } else {
        boxed.min(want.0)
    };
    let h = match narrow {
        Some(h) if w < NARROW => h,
        _ => ((w as f64 * want.1 as f64 / want.0.max(1) as f64).round() as u32)
            .max(MIN_HEIGHT.min(want.1))
            .max(1),
    };
    let r = device_pixel_ratio();
    Fit {
        height: h,
        backing: ((w as f64 * r).round() as u32, (h as f64 * r).round() as u32),
    }
}

impl Fit {
    /// Whether the canvas's height or backing store differs from this (it must be drawn
    /// again).
    pub fn changes(&self, canvas: &HtmlCanvasElement) -> bool {
        (canvas.width(), canvas.height()) != self.backing
            || canvas.style().get_property_value("height").ok() != Some(self.css_height())
    }

    /// Gives the canvas this size, writing only what differs (an unchanged write would still
    /// make the next chart's read lay the page out).
    pub fn apply(&self, canvas: &HtmlCanvasElement) {
        let style = canvas.style();
        let height = self.css_height();
        if style.get_property_value("height").ok().as_ref() != Some(&height) {
            let _ = style.set_property("height", &height);
        }
        let (bw, bh) = self.backing;
        // Setting a canvas's size clears it, even to the size it has.
        if canvas.width() != bw || canvas.height() != bh {
            canvas.set_width(bw);
            canvas.set_height(bh);
        }
    }

    fn css_height(&self) -> String {
        format!("{}px", self.height)
    }
}

/// What a piece of text on a chart is, for the layout the page tests measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Titles, axis labels and ticks, notes.
    Text,
    /// A legend's entries: they must sit outside every plotting area.
    Legend,
}

/// A piece of text as drawn: its box in CSS pixels (rotation applied) and what it is.
#[derive(Clone, Debug, PartialEq)]
struct TextBox {
    x: i32,
    y: i32,
    w: i32,
    h: i32,
    role: Role,
    text: String,
}

thread_local! {
    /// The texts drawn since the canvas's drawing began, written on the canvas at `present`
    /// (`data-texts`) so a page test can find text over text or cut by the canvas's edge.
    static TEXTS: RefCell<Vec<TextBox>> = const { RefCell::new(Vec::new()) };
    /// The plotting areas of the drawing (`data-plots`): where data is drawn, which no
    /// legend may cover.
    static PLOTS: RefCell<Vec<[i32; 4]>> = const { RefCell::new(Vec::new()) };
    static ROLE: Cell<Role> = const { Cell::new(Role::Text) };
}

/// While it lives, the texts drawn are a legend's (they must sit outside every plotting
/// area).
pub struct LegendText(Role);

impl LegendText {
    pub fn begin() -> LegendText {
        LegendText(ROLE.with(|r| r.replace(Role::Legend)))
    }
}

impl Drop for LegendText {
    fn drop(&mut self) {
        ROLE.with(|r| r.set(self.0));
    }
}

/// Records a plotting area (x0, y0, x1, y1 in CSS pixels) of the drawing under way.
pub fn plot_area(px: (i32, i32), py: (i32, i32)) {
    PLOTS.with(|p| p.borrow_mut().push([px.0, py.0, px.1, py.1]));
}

/// The box of `text` drawn at `pos` with `style`'s anchor and rotation, `(w, h)` its size
/// unrotated: canvas's `textAlign`/`textBaseline` as plotters' canvas backend sets them,
/// then the rotation about `pos`.
fn text_box<T: BackendTextStyle>(style: &T, pos: BackendCoord, (w, h): (i32, i32)) -> [i32; 4] {
    let anchor = style.anchor();
    let x0 = match anchor.h_pos {
        HPos::Left => 0,
        HPos::Right => -w,
        HPos::Center => -w / 2,
    };
    let y0 = match anchor.v_pos {
        VPos::Top => 0,
        VPos::Bottom => -h,
        VPos::Center => -h / 2,
    };
    let (x1, y1) = (x0 + w, y0 + h);
    let (a, b, c, d) = match style.transform() {
        FontTransform::None => (x0, y0, x1, y1),
        // Rotation by θ maps (x, y) to (x cos θ − y sin θ, x sin θ + y cos θ).
        FontTransform::Rotate90 => (-y1, x0, -y0, x1),
        FontTransform::Rotate180 => (-x1, -y1, -x0, -y0),
        FontTransform::Rotate270 => (y0, -x1, y1, -x0),
    };
    [pos.0 + a, pos.1 + b, c - a, d - b]
}

/// Plotters' canvas backend in CSS pixels (see the module's comment).
pub struct Sharp {
    inner: CanvasBackend,
    size: (u32, u32),
    canvas: HtmlCanvasElement,
    context: CanvasRenderingContext2d,
    /// The colour (rgb, alpha's bits) the last filled rectangle set as the fill style, while
    /// nothing else has drawn since: a run of rectangles of one colour sets it once (the
    /// Gantt chart's 30,000 each set it, formatted and parsed again, before).
    fill: Option<((u8, u8, u8), u64)>,
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
        TEXTS.with(|t| t.borrow_mut().clear());
        PLOTS.with(|p| p.borrow_mut().clear());
        Some(Sharp {
            inner: CanvasBackend::with_canvas_object(canvas.clone())?,
            size,
            canvas: canvas.clone(),
            context,
            fill: None,
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
        let texts = TEXTS.with(|t| {
            let boxes: Vec<String> = t
                .borrow()
                .iter()
                .map(|b| {
                    let role = match b.role {
                        Role::Text => "text",
                        Role::Legend => "legend",
                    };
                    let text = serde_json::to_string(&b.text).unwrap_or_default();
                    format!("[{},{},{},{},\"{role}\",{text}]", b.x, b.y, b.w, b.h)
                })
                .collect();
            format!("[{}]", boxes.join(","))
        });
        let plots = PLOTS.with(|p| serde_json::to_string(&*p.borrow()).unwrap_or_default());
        let _ = self.canvas.set_attribute("data-texts", &texts);
        let _ = self.canvas.set_attribute("data-plots", &plots);
        let size = format!("[{},{}]", self.size.0, self.size.1);
        let _ = self.canvas.set_attribute("data-size", &size);
        self.inner.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), Error> {
        self.fill = None;
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), Error> {
        self.fill = None;
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Error> {
        let c = style.color();
        if !fill || c.alpha == 0.0 {
            self.fill = None;
            return self.inner.draw_rect(upper_left, bottom_right, style, fill);
        }
        // What plotters' canvas backend does, the fill style set only when it changes.
        let key = (c.rgb, c.alpha.to_bits());
        if self.fill != Some(key) {
            let (r, g, b) = c.rgb;
            self.context
                .set_fill_style_str(&format!("rgba({r},{g},{b},{})", c.alpha));
            self.fill = Some(key);
        }
        self.context.fill_rect(
            f64::from(upper_left.0),
            f64::from(upper_left.1),
            f64::from(bottom_right.0 - upper_left.0),
            f64::from(bottom_right.1 - upper_left.1),
        );
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), Error> {
        self.fill = None;
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), Error> {
        self.fill = None;
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), Error> {
        self.fill = None;
        self.inner.fill_polygon(vert, style)
    }

    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> Result<(), Error> {
        if !text.trim().is_empty() && style.color().alpha > 0.0 {
            // The canvas's own measureText in the font the text is drawn in (plotters'
            // estimate measures a styled <span>, which the page's CSP allows only for the
            // sizes it hashed); the em square's height, which the canvas's `top`, `middle`
            // and `bottom` baselines align.
            let font = format!(
                "{} {}px {}",
                style.style().as_str(),
                style.size(),
                style.family().as_str()
            );
            self.context.set_font(&font);
            let w = self
                .context
                .measure_text(text)
                .map_or(0.0, |m| m.width())
                .ceil() as i32;
            let h = style.size().round() as i32;
            let [x, y, w, h] = text_box(style, pos, (w, h));
            let role = ROLE.with(Cell::get);
            let text = text.to_string();
            TEXTS.with(|t| {
                t.borrow_mut().push(TextBox {
                    x,
                    y,
                    w,
                    h,
                    role,
                    text,
                })
            });
        }
        self.fill = None;
        self.inner.draw_text(text, style, pos)
    }

    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        style: &T,
    ) -> Result<(u32, u32), Error> {
        // Plotters measures a styled <span> added to the page, which lays the page out once
        // per label; the canvas measures text without any layout. The same numbers as the
        // span's, so charts lay out as before: its width, in its font-style (plotters writes
        // `bold` there, which CSS ignores) and size; its height the line box the page's
        // body gives text (`line-height: 1.45`, style.css), rounded as offsetHeight rounds.
        let css_style = match style.style() {
            FontStyle::Italic => "italic",
            FontStyle::Oblique => "oblique",
            FontStyle::Normal | FontStyle::Bold => "normal",
        };
        let font = format!("{css_style} {}px {}", style.size(), style.family().as_str());
        self.context.set_font(&font);
        let w = self
            .context
            .measure_text(text)
            .map_or(0.0, |m| m.width())
            .round();
        let h = (style.size() * SPAN_LINE_HEIGHT).round();
        Ok((w as u32, h as u32))
    }
}

/// The body's line height (www/style.css), which plotters' span for measuring text had.
const SPAN_LINE_HEIGHT: f64 = 1.45;
