//! The page's views and where a shared link lands. Each paper family has its own view
//! (Scheduling & SOB, then the rows of `families::FAMILY_TABS`), shown one at a time under a row of tabs; the
//! address picks the view: a route (`#/sf`, `#/kkor`, …) or a share link, which opens the
//! view it runs in (`#s1=` the scheduling view, `#w1=` SF, `#f2=` and the older `#f1=` its
//! family) with a banner saying what was shared and what file it still needs, or an alert
//! saying what is wrong with a family link that cannot open. Also the Copy button every share
//! link gets.

use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::families::FAMILY_TABS;
use crate::web::share;

/// One view of the page: the scheduling view, a family's (a row of [`FAMILY_TABS`]) or the
/// cluster view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Scheduling,
    /// The family view of row `.0` of [`FAMILY_TABS`].
    Family(usize),
    /// Cluster sweeps: a shared manifest (`#m1=`) and merged tables dropped on the page.
    Cluster,
}

/// What the page says of a view that is not a family's: its name (route `#/NAME`,
/// container `view-NAME`), tab label, tooltip and docs page.
struct Fixed {
    name: &'static str,
    title: &'static str,
    about: &'static str,
    doc: &'static str,
}

const SCHEDULING: Fixed = Fixed {
    name: "scheduling",
    title: "Scheduling & SOB",
    about: "Local batch scheduling (FCFS, EASY, conservative, …) on one site or a grid, and the SOB grid schemes",
    doc: "local-policies",
};

const CLUSTER: Fixed = Fixed {
    name: "cluster",
    title: "Cluster sweeps",
    about: "Sweeps run on a cluster with gridscope sweep: a shared manifest, and merged tables plotted with their bands",
    doc: "cluster",
};

impl View {
    /// Every view, in the order of the tabs.
    pub fn all() -> Vec<View> {
        std::iter::once(View::Scheduling)
            .chain((0..FAMILY_TABS.len()).map(View::Family))
            .chain(std::iter::once(View::Cluster))
            .collect()
    }

    /// (name, tab label, tooltip, docs page).
    fn says(self) -> (&'static str, &'static str, &'static str, &'static str) {
        let fixed = |f: &Fixed| (f.name, f.title, f.about, f.doc);
        match self {
            View::Scheduling => fixed(&SCHEDULING),
            View::Cluster => fixed(&CLUSTER),
            View::Family(i) => FAMILY_TABS
                .get(i)
                .map_or(("", "", "", ""), |t| (t.id, t.title(), t.about(), t.doc())),
        }
    }

    /// The view's route, the address fragment that opens it.
    pub fn route(self) -> String {
        format!("#/{}", self.says().0)
    }

    /// The tab's label.
    pub fn title(self) -> &'static str {
        self.says().1
    }

    /// What the tab's tooltip says: the paper family and what it compares.
    pub fn about(self) -> &'static str {
        self.says().2
    }

    /// The doc that explains the view's algorithms (docs/NAME.md).
    pub fn doc(self) -> &'static str {
        self.says().3
    }

    /// The element id of the view's container.
    pub fn id(self) -> String {
        format!("view-{}", self.says().0)
    }

    /// The view an address fragment opens: a route, or the view a share link runs in;
    /// `None` for anything else (an empty fragment keeps the view shown).
    pub fn of_fragment(fragment: &str) -> Option<View> {
        let f = fragment.strip_prefix('#').unwrap_or(fragment);
        if let Some(route) = f.strip_prefix('/') {
            let name = route.split(['/', '?']).next().unwrap_or("");
            return View::all().into_iter().find(|v| v.says().0 == name);
        }
        if f.starts_with(share::PREFIX) {
            return Some(View::Scheduling);
        }
        if f.starts_with(share::MANIFEST_PREFIX) {
            return Some(View::Cluster);
        }
        linked_view(f).map(|l| l.view)
    }
}

/// The tabs over the views: links to their routes, the shown one marked current; the shown
/// view's docs at the bar's right end and its one-line description under it (a tab's name,
/// "SCJG", means nothing to a newcomer until it is said).
pub fn view_tabs(shown: View) -> Html {
    html! {
        <>
        <nav class="views" aria-label="Paper families">
            <ul role="list" class="tab-list" data-testid="tab-list">
                { for View::all().into_iter().map(|v| html! {
                    <li>
                        <a href={v.route()} title={v.about()} data-testid={format!("tab-{}", v.route().trim_start_matches("#/"))}
                           aria-current={(v == shown).then_some("page")}>{ v.title() }</a>
                    </li>
                }) }
            </ul>
            <p class="doc-links">
                <a href={super::doc_href(shown.doc())} target="_blank" rel="noopener" data-testid="view-doc">{format!("docs/{}.md", shown.doc())}</a>
                if shown == View::Scheduling {
                    {" · "}<a href={super::doc_href("sob")} target="_blank" rel="noopener">{"docs/sob.md"}</a>
                }
                {" · "}<a href={super::doc_href("README")} target="_blank" rel="noopener" data-testid="all-docs">{"all docs"}</a>
                {" · "}<a href="#limits" data-testid="limits-link" onclick={Callback::from(super::open_limits)}>{"limits"}</a>
            </p>
        </nav>
        <p class="view-about" data-testid="view-about">{ shown.about() }</p>
        </>
    }
}

/// The view a shared link runs in and what the banner says.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkedView {
    pub view: View,
    pub what: String,
    /// A file the visitor must pick before it runs (SCJG's trace).
    pub needs: Option<String>,
}

/// The view the page's address links to, if it is a sweep or family link (a scenario link
/// `#s1=` opens in the scheduling view, the first: no banner).
pub fn linked_view(fragment: &str) -> Option<LinkedView> {
    FAMILY_TABS.iter().enumerate().find_map(|(i, tab)| {
        (tab.linked)(fragment).map(|l| LinkedView {
            view: View::Family(i),
            what: l.what,
            needs: l.needs,
        })
    })
}

/// What is wrong with a family link (`#f2=`, `#f1=`) in the address, for the alert over the
/// page: one that cannot be read (damaged, of a later version, naming a preset this version
/// does not know), or one that no family view runs.
pub fn link_error(fragment: &str) -> Option<String> {
    // Said after every refusal: what the visitor is looking at instead (issue #38).
    const INSTEAD: &str = " The page opened the scheduling view with its demo scenario instead.";
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    if let Err(e) = share::decode_sweep(f) {
        return Some(format!("This SF sweep link cannot open: {e}.{INSTEAD}"));
    }
    if let Some(kind) = unknown_link_kind(f) {
        return Some(format!(
            "This link ('{kind}=…') is of a kind this page does not read (it reads s1=, f1=, f2=, w1= and m1= links); it may come from a later version of Gridscope.{INSTEAD}"
        ));
    }
    match share::decode_family(fragment) {
        Err(e) => Some(format!("This family link cannot open: {e}.{INSTEAD}")),
        Ok(Some(r)) if linked_view(fragment).is_none() => Some(match r {
            crate::web::protocol::FamilyRequest::Run { spec, .. } => format!(
                "This link runs the preset {0}, which no family view of this page runs from a link: run it with `gridscope run --preset {0}`.",
                spec.preset
            ),
            _ => "This family link asks for a run no view of this page runs.".into(),
        }),
        _ => None,
    }
}

/// `xN` for a fragment `xN=…` that looks like a share link of a kind no reader here knows.
/// Scenario (`s`), family (`f`) and manifest (`m`) links of other versions are refused by
/// their own readers, which name the version; `#/route` and `#anchor` are not links.
fn unknown_link_kind(f: &str) -> Option<&str> {
    let (head, _) = f.split_once('=')?;
    let letters = head.trim_end_matches(|c: char| c.is_ascii_digit());
    let is_link = !letters.is_empty()
        && letters.len() < head.len()
        && letters.bytes().all(|b| b.is_ascii_lowercase());
    let read_elsewhere = matches!(letters, "s" | "f" | "m") || head == "w1";
    (is_link && !read_elsewhere).then_some(head)
}

#[derive(Properties, PartialEq)]
pub struct LinkBannerProps {
    pub linked: LinkedView,
    /// The view shown now (the visitor may have gone to another tab).
    pub shown: View,
}

/// The banner over the page for a link that runs in a family's view.
#[function_component]
pub fn LinkBanner(props: &LinkBannerProps) -> Html {
    let v = &props.linked;
    let needs = v.needs.as_ref().map_or(String::from("."), |f| {
        format!(" once you pick the trace file {f} there (files never leave your computer).")
    });
    html! {
        <div class="notice link-banner" role="status" data-testid="link-banner">
            <p>
                { format!("This link shares {}. It runs in the {} view", v.what, v.view.title()) }
                { needs }
                if props.shown != v.view {
                    {" "}<a href={v.view.route()} data-testid="link-banner-go">{"Go to it"}</a>
                }
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

#[derive(Properties, PartialEq)]
pub struct AlertProps {
    pub testid: AttrValue,
    /// What the alert says; a new text scrolls it into view again.
    pub text: String,
    #[prop_or_default]
    pub children: Html,
}

/// An error box that brings itself into view when it appears or changes (a refusal must not
/// sit below the fold or under the sticky Run bar); left alone in a hidden view.
#[function_component]
pub fn Alert(p: &AlertProps) -> Html {
    let node = use_node_ref();
    {
        let node = node.clone();
        use_effect_with(p.text.clone(), move |_| {
            if let Some(el) = node.cast::<web_sys::Element>() {
                reveal(&el);
            }
        });
    }
    html! {
        <div class="error" role="alert" data-testid={p.testid.clone()} ref={node}>
            { for p.text.lines().map(|l| html! { <p>{ l.to_string() }</p> }) }
            { p.children.clone() }
        </div>
    }
}

/// Brings the element `id` into view (see [`reveal`]).
pub fn reveal_id(id: &str) {
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
    {
        reveal(&el);
    }
}

/// Scrolls `el` into the middle of the window unless it is already wholly in view (clear
/// of the sticky bar at the bottom); nothing for an element of a hidden view.
fn reveal(el: &web_sys::Element) {
    let r = el.get_bounding_client_rect();
    let height = web_sys::window()
        .and_then(|w| w.inner_height().ok())
        .and_then(|h| h.as_f64())
        .unwrap_or(0.0);
    let hidden = r.width() == 0.0 && r.height() == 0.0;
    let seen = r.top() >= 0.0 && r.bottom() <= height - STICKY_BAR_PX;
    if !hidden && !seen {
        let options = web_sys::ScrollIntoViewOptions::new();
        options.set_block(web_sys::ScrollLogicalPosition::Center);
        el.scroll_into_view_with_scroll_into_view_options(&options);
    }
}

/// The height the sticky Run bar may cover at the bottom of the window (as the style
/// sheet's `scroll-padding-bottom`).
const STICKY_BAR_PX: f64 = 72.0;
