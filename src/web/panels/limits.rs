//! The page's limits section: every bound of [`crate::limits`] — the same table
//! `gridscope help limits` prints, from the same `Limit::ALL` — with its default (what the
//! page keeps to: it has no flags) and the largest real input it was measured against.
//! Opened from the docs links under the view tabs (`open_limits`).

use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::limits::{group_thousands, Limit, Limits};

/// The section's element id.
const ID: &str = "limits";

#[function_component]
pub fn LimitsHelp() -> Html {
    let d = Limits::default();
    html! {
        <details class="limits-help" id={ID} data-testid="limits">
            <summary>{"Limits: the bounds every input is checked against"}</summary>
            <p class="help">{"A small hostile input (a gzip bomb, a link naming thousands of sites, a backlog conservative backfilling would re-plan for hours) gets a clear error naming its limit instead of exhausting this tab. The page keeps to the defaults below; the command-line gridscope raises each with its flag (`gridscope help limits` prints this table). A shared link above the page's cost estimate (job-runs, or conservative plan work) waits for Run."}</p>
            <table class="limits">
                <thead><tr><th scope="col">{"what it bounds"}</th><th scope="col">{"default"}</th><th scope="col">{"largest real input measured"}</th><th scope="col">{"CLI flag"}</th></tr></thead>
                <tbody>
                    { for Limit::ALL.iter().map(|&l| html! {
                        <tr data-flag={l.flag()}>
                            <td>{l.what()}</td>
                            <td class="num" data-value={d.get(l).to_string()}>{group_thousands(d.get(l))}</td>
                            <td>{l.largest_real()}</td>
                            <td><code>{l.flag()}</code></td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </details>
    }
}

/// Opens the limits section and brings it into view, leaving the address alone (it may
/// hold a share link).
pub fn open_limits(e: MouseEvent) {
    e.prevent_default();
    let el = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(ID));
    if let Some(el) = el {
        let _ = el.set_attribute("open", "");
        if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
            el.scroll_into_view();
            let _ = el.focus();
        }
    }
}
