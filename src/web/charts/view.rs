//! A chart on the page: its canvas, sized to its box and the screen's pixel ratio
//! ([`backend::fit_of`]) and drawn again whenever its [`Plot`] or its box's width changes (a
//! `ResizeObserver`: a window resized, a hidden view shown); a tooltip that follows the
//! pointer with the values under it; a button that saves it as PNG.
//!
//! A chart draws in a task of its own ([`Painter`]), never in the render that changed it: a
//! run's result changes many charts at once, and drawing them all in that one task blocked
//! the page for 50–180 ms on a long trace.
//!
//! The page's CSP forbids inline styles, so the tooltip is placed through the CSSOM
//! (`style.setProperty`), which the CSP allows, and its text is set on the element itself:
//! hovering never re-renders the component nor redraws the canvas.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use web_sys::{HtmlCanvasElement, HtmlElement};
use yew::prelude::*;
use yew::virtual_dom::VTag;

use super::backend::{self, css_size};
use super::{Geom, Plot};
use crate::web::format;

#[derive(Properties, PartialEq)]
pub struct ChartProps {
    /// `None` leaves the canvas as it is (its data is on the way).
    pub chart: Option<Rc<dyn Plot>>,
    pub testid: AttrValue,
    pub width: u32,
    pub height: u32,
    /// Wider than the other charts (Gantt, SOB figure).
    #[prop_or_default]
    pub wide: bool,
    /// The canvas's height on a box narrower than [`backend::NARROW`], for a chart that
    /// rearranges itself there (the SOB figure's panels stack).
    #[prop_or_default]
    pub narrow_height: Option<u32>,
    /// Called with the job under a click, on charts whose marks are jobs.
    #[prop_or_default]
    pub onpick: Option<Callback<i64>>,
}

#[function_component]
pub fn ChartView(p: &ChartProps) -> Html {
    let canvas = use_node_ref();
    let tip = use_node_ref();
    let painter = use_mut_ref(|| Painter::new(canvas.clone()))
        .borrow()
        .clone();
    painter.size.set(((p.width, p.height), p.narrow_height));
    let geom = painter.geom.clone();
    {
        let painter = painter.clone();
        use_effect_with(p.chart.clone(), move |chart| {
            if chart.is_some() {
                *painter.shown.borrow_mut() = chart.clone();
            }
            painter.schedule();
        });
    }
    {
        let painter = painter.clone();
        use_effect_with((p.width, p.height), move |_| {
            let observer = painter.canvas.cast::<HtmlCanvasElement>().and_then(|c| {
                let on_resize = Closure::<dyn FnMut()>::new(move || painter.resized());
                let observer =
                    web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok()?;
                observer.observe(&c);
                Some((observer, on_resize))
            });
            move || {
                if let Some((observer, _closure)) = observer {
                    observer.disconnect();
                }
            }
        });
    }
    let onmousemove = {
        let (canvas, tip, geom, chart) =
            (canvas.clone(), tip.clone(), geom.clone(), p.chart.clone());
        Callback::from(move |e: MouseEvent| {
            let (Some(c), Some(t)) = (
                canvas.cast::<HtmlCanvasElement>(),
                tip.cast::<HtmlElement>(),
            ) else {
                return;
            };
            let g = *geom.borrow();
            hover(&e, &c, &t, g, chart.as_ref());
        })
    };
    let onmouseleave = {
        let tip = tip.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(t) = tip.cast::<HtmlElement>() {
                t.set_text_content(None);
            }
        })
    };
    let onclick = pick_handler(
        canvas.clone(),
        geom.clone(),
        p.chart.clone(),
        p.onpick.clone(),
    );
    let onpng = {
        let (canvas, chart) = (canvas.clone(), p.chart.clone());
        Callback::from(move |_: MouseEvent| {
            let name = chart.as_ref().map_or("chart".into(), |c| c.name());
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                save_png(&c, &name);
            }
        })
    };
    let mut tag = VTag::new("canvas");
    tag.node_ref = canvas;
    tag.add_attribute("width", p.width.to_string());
    tag.add_attribute("height", p.height.to_string());
    // A picture to assistive technology, named by its chart; the numbers are in the
    // tables beside it and in the tooltip.
    tag.add_attribute("role", "img");
    tag.add_attribute(
        "aria-label",
        p.chart
            .as_ref()
            .map_or(String::from("chart"), |c| c.name().replace('-', " ")),
    );
    tag.add_attribute("data-testid", p.testid.clone());
    if p.onpick.is_some() {
        tag.add_attribute("title", "Click a job: why did it wait?");
    }
    for (k, v) in p.chart.iter().flat_map(|c| c.data_attrs()) {
        tag.add_attribute(k, v);
    }
    html! {
        <figure class={classes!("chart", p.wide.then_some("wide"))} {onmousemove} {onmouseleave} {onclick}>
            { Html::from(tag) }
            <div class="chart-tip" role="tooltip" ref={tip} data-testid={format!("{}-hover", p.testid)}></div>
            <button class="small chart-png" data-testid={format!("{}-png", p.testid)} title="Save this chart as a PNG image" onclick={onpng}>{"PNG"}</button>
            if let Some(t) = p.chart.as_ref().and_then(|c| c.table()) {
                { data_table(&t, &p.testid) }
            }
        </figure>
    }
}

/// The chart's numbers, folded under it (for screen readers and copying).
fn data_table(t: &super::DataTable, testid: &str) -> Html {
    html! {
        <details class="chart-data">
            <summary>{"Data"}</summary>
            <div class="table-wrap">
            <table class="metrics" data-testid={format!("{testid}-data")}>
                <thead><tr>{ for t.head.iter().map(|h| html!{ <th scope="col">{h}</th> }) }</tr></thead>
                <tbody>{ for t.rows.iter().map(|r| html!{
                    <tr>{ for r.iter().enumerate().map(|(i, c)| if i == 0 {
                        html!{ <th scope="row">{c}</th> }
                    } else {
                        html!{ <td>{c}</td> }
                    }) }</tr>
                }) }</tbody>
            </table>
            </div>
        </details>
    }
}

/// A click on the chart: the job under it, to `pick` (charts whose marks are jobs).
fn pick_handler(
    canvas: NodeRef,
    geom: Rc<RefCell<Option<Geom>>>,
    chart: Option<Rc<dyn Plot>>,
    pick: Option<Callback<i64>>,
) -> Callback<MouseEvent> {
    Callback::from(move |e: MouseEvent| {
        let (Some(c), Some(g), Some(chart), Some(pick)) = (
            canvas.cast::<HtmlCanvasElement>(),
            *geom.borrow(),
            chart.as_ref(),
            pick.as_ref(),
        ) else {
            return;
        };
        if let Some(job) = data_at(&e, &c, g).and_then(|(x, y)| chart.pick(x, y)) {
            pick.emit(job);
        }
    })
}

/// A chart's design size (CSS pixels) and its height on a narrow box.
type Size = ((u32, u32), Option<u32>);

/// A chart's drawing: what it shows, where, and whether a redraw is already asked for.
#[derive(Clone)]
struct Painter {
    canvas: NodeRef,
    /// The chart drawn last (or about to be), for the redraws the resize observer asks for.
    shown: Rc<RefCell<Option<Rc<dyn Plot>>>>,
    /// Its geometry as drawn, for the tooltip and clicks.
    geom: Rc<RefCell<Option<Geom>>>,
    /// The design size and narrow height ([`backend::fit_of`]), as the latest render gave them.
    size: Rc<Cell<Size>>,
    pending: Rc<Cell<bool>>,
}

impl Painter {
    fn new(canvas: NodeRef) -> Painter {
        Painter {
            canvas,
            shown: Rc::default(),
            geom: Rc::default(),
            size: Rc::new(Cell::new(((0, 0), None))),
            pending: Rc::default(),
        }
    }

    /// Draws the chart in a task of its own (a 0 ms timeout), so each chart a change touches
    /// is a short task of its own and the page answers between them; asked again before it
    /// ran, it still draws once, the newest chart (the ones in between are never drawn).
    fn schedule(&self) {
        if self.pending.replace(true) {
            return;
        }
        let me = self.clone();
        let task = Closure::once_into_js(move || {
            me.pending.set(false);
            me.paint();
        });
        let queued = web_sys::window().is_some_and(|w| {
            w.set_timeout_with_callback_and_timeout_and_arguments_0(task.unchecked_ref(), 0)
                .is_ok()
        });
        if !queued {
            self.pending.set(false);
            self.paint();
        }
    }

    /// The box changed size: a redraw when the canvas must change with it. Measured here,
    /// where the layout is fresh, but resized only where it is drawn, so the page never
    /// shows a cleared canvas.
    fn resized(&self) {
        let Some(c) = self.canvas.cast::<HtmlCanvasElement>() else {
            return;
        };
        let (want, narrow) = self.size.get();
        if backend::fit_of(&c, want, narrow).changes(&c) {
            self.schedule();
        }
    }

    /// Sizes the canvas and draws the chart shown last (if any) into it.
    fn paint(&self) {
        let Some(c) = self.canvas.cast::<HtmlCanvasElement>() else {
            return;
        };
        let (want, narrow) = self.size.get();
        backend::fit_of(&c, want, narrow).apply(&c);
        if let Some(chart) = self.shown.borrow().as_ref() {
            *self.geom.borrow_mut() = draw(chart.as_ref(), &c);
        }
    }
}

fn draw(chart: &dyn Plot, canvas: &HtmlCanvasElement) -> Option<Geom> {
    match chart.draw(canvas) {
        Ok(g) => Some(g),
        Err(e) => {
            web_sys::console::warn_1(&JsValue::from_str(&format!("chart: {e}")));
            None
        }
    }
}

/// Writes what is under the pointer into the tooltip and puts it beside the pointer: below
/// and to the right, or on the other side where the chart ends, never outside the canvas.
fn hover(
    e: &MouseEvent,
    canvas: &HtmlCanvasElement,
    tip: &HtmlElement,
    geom: Option<Geom>,
    chart: Option<&Rc<dyn Plot>>,
) {
    let r = canvas.get_bounding_client_rect();
    let (cx, cy) = (
        e.client_x() as f64 - r.left(),
        e.client_y() as f64 - r.top(),
    );
    let text = match (geom.and_then(|g| data_at(e, canvas, g)), chart) {
        (Some((x, y)), Some(chart)) => chart.describe(x, y),
        _ => String::new(),
    };
    tip.set_text_content((!text.is_empty()).then_some(text.as_str()));
    if text.is_empty() {
        return;
    }
    // Beside the pointer, inside the canvas's box (offsets are within the figure); measured
    // at the left edge, where nothing squeezes it.
    let style = tip.style();
    let _ = style.set_property("left", "0px");
    let place = |pointer: f64, size: i32, start: i32, extent: i32| {
        let (size, start, end) = (size as f64, start as f64, (start + extent) as f64);
        let after = start + pointer + TIP_GAP;
        let before = start + pointer - TIP_GAP - size;
        let at = if after + size <= end || before < start {
            after
        } else {
            before
        };
        at.min(end - size).max(start)
    };
    let left = place(
        cx,
        tip.offset_width(),
        canvas.offset_left(),
        canvas.offset_width(),
    );
    let top = place(
        cy,
        tip.offset_height(),
        canvas.offset_top(),
        canvas.offset_height(),
    );
    let _ = style.set_property("left", &format!("{left:.0}px"));
    let _ = style.set_property("top", &format!("{top:.0}px"));
}

/// The data coordinates under the pointer, if it is over the plotting area. The geometry
/// is in the CSS pixels the chart was drawn in (the box may have been resized since, until
/// the observer redraws it).
fn data_at(e: &MouseEvent, canvas: &HtmlCanvasElement, g: Geom) -> Option<(f64, f64)> {
    let r = canvas.get_bounding_client_rect();
    let (cx, cy) = (
        e.client_x() as f64 - r.left(),
        e.client_y() as f64 - r.top(),
    );
    let (w, h) = (r.width().max(1.0), r.height().max(1.0));
    let (cw, ch) = css_size(canvas);
    g.at(cx * cw as f64 / w, cy * ch as f64 / h)
}

/// Pixels between the pointer and its tooltip.
const TIP_GAP: f64 = 14.0;

fn save_png(canvas: &HtmlCanvasElement, name: &str) {
    let file = format!("{name}.png");
    let saved = canvas
        .to_data_url_with_type("image/png")
        .map_err(|e| format!("cannot save {file}: {e:?}"))
        .and_then(|url| format::click_link(&url, &file));
    if let Err(e) = saved {
        web_sys::console::warn_1(&JsValue::from_str(&e));
    }
}
