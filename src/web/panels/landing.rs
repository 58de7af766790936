//! Where a shared link lands: a `#w1=` sweep link or a `#f1=` family link runs in its own
//! panel far below the scenario editor, so the page says at the top what was shared (and
//! what file it still needs) and scrolls that panel into view. Also the Copy button every
//! share link gets.

use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::web::families::FamilyRequest;
use crate::web::share;

/// The panel a shared link runs in: its element id and what the banner says.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkedView {
    pub id: &'static str,
    pub what: String,
    /// A file the visitor must pick before it runs (SCJG's trace).
    pub needs: Option<String>,
}

/// The view the page's address links to, if it is a sweep or family link (a scenario link
/// `#s1=` opens in the editor at the top: no banner).
pub fn linked_view(fragment: &str) -> Option<LinkedView> {
    if let Ok(Some(sweep)) = share::decode_sweep(fragment) {
        return Some(LinkedView {
            id: "sf",
            what: format!(
                "an SF allocation sweep ({} seeds × {} batches)",
                sweep.seeds, sweep.batches
            ),
            needs: None,
        });
    }
    let request = share::decode_family(fragment).ok()??;
    Some(match request {
        FamilyRequest::Ses { preset, seeds, .. } => LinkedView {
            id: "ses",
            what: format!("the SES preset {preset} ({seeds} seeds)"),
            needs: None,
        },
        FamilyRequest::Kkor { preset, seeds, .. } => LinkedView {
            id: "kkor",
            what: format!("the KKOR preset {preset} ({seeds} seeds)"),
            needs: None,
        },
        FamilyRequest::Scjg {
            preset,
            seeds,
            trace,
            ..
        } => LinkedView {
            id: "scjg",
            what: format!("the SCJG preset {preset} ({seeds} seeds)"),
            needs: Some(trace),
        },
    })
}

/// Scrolls the element `id` to the top of the window.
pub fn scroll_to(id: &str) {
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
    {
        el.scroll_into_view();
    }
}

#[derive(Properties, PartialEq)]
pub struct LinkBannerProps {
    pub view: LinkedView,
}

/// The banner over the page for a link that runs in a panel below.
#[function_component]
pub fn LinkBanner(props: &LinkBannerProps) -> Html {
    let v = &props.view;
    let id = v.id;
    let go = Callback::from(move |_: MouseEvent| scroll_to(id));
    html! {
        <div class="notice link-banner" role="status" data-testid="link-banner">
            <p>
                { format!("This link shares {}. It runs in its panel below", v.what) }
                { v.needs.as_ref().map_or(String::from("."), |f| format!(" once you pick the trace file {f} there (files never leave your computer)."))}
                {" "}<button data-testid="link-banner-go" onclick={go}>{"Go to it"}</button>
            </p>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct CopyProps {
    pub text: String,
    pub testid: String,
}

/// Copies a share link to the clipboard (the Clipboard API; where the page may not use it,
/// the link's text is selected so Ctrl+C copies it) and says so.
#[function_component]
pub fn CopyButton(props: &CopyProps) -> Html {
    let said = use_state(|| None::<&'static str>);
    let onclick = {
        let text = props.text.clone();
        let said = said.clone();
        Callback::from(move |_: MouseEvent| {
            let done = copy_text(&text);
            said.set(Some(if done { "copied" } else { "select and copy it" }));
        })
    };
    html! {
        <>
            <button data-testid={props.testid.clone()} title="Copy the link" {onclick}>{"Copy"}</button>
            if let Some(s) = *said { <span class="help" role="status">{format!(" {s}")}</span> }
        </>
    }
}

/// `navigator.clipboard.writeText(text)`, read through `Reflect` (no web-sys feature for it);
/// false when the page has no clipboard (an insecure origin, an old browser).
fn copy_text(text: &str) -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    let Ok(navigator) = js_sys::Reflect::get(&window, &"navigator".into()) else {
        return false;
    };
    let Ok(clipboard) = js_sys::Reflect::get(&navigator, &"clipboard".into()) else {
        return false;
    };
    if clipboard.is_undefined() {
        return false;
    }
    let Ok(write) = js_sys::Reflect::get(&clipboard, &"writeText".into()) else {
        return false;
    };
    let Some(write) = write.dyn_ref::<js_sys::Function>() else {
        return false;
    };
    write.call1(&clipboard, &text.into()).is_ok()
}
