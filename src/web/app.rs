//! The page: the layout that assembles the panels, and the app context they share (the
//! state, its actions, the engine worker). The engine never runs here; it runs in the
//! worker (`worker.rs`). A new panel is listed in [`App::view`]'s layout and nowhere else.

use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::hub::{Hub, Subscription};
use super::panels::*;
use super::state::{AppAction, AppContext, AppState, CANCEL_GRACE_MS};

pub enum Msg {
    Action(AppAction),
    /// Files are dragged over the page (the drop zone shows).
    Dragging(bool),
}

pub struct App {
    state: Rc<AppState>,
    hub: Hub,
    dispatch: Callback<AppAction>,
    dragging: bool,
    /// The view shown (one paper family's panels); the address's route or share link picks it.
    view: View,
    /// The view a shared sweep or family link runs in (a banner says so at the top).
    linked: Option<LinkedView>,
    /// What is wrong with a family link in the address that cannot open.
    link_error: Option<String>,
    /// Armed while a cancel waits for the worker's answer.
    cancel_timer: Option<gloo::timers::callback::Timeout>,
    _worker_events: Subscription,
    _listeners: Vec<Listener>,
}

/// A window event listener, removed when the app goes.
struct Listener {
    event: &'static str,
    closure: Closure<dyn FnMut(web_sys::Event)>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Some(w) = web_sys::window() {
            let _ = w.remove_event_listener_with_callback(
                self.event,
                self.closure.as_ref().unchecked_ref(),
            );
        }
    }
}

fn listen(event: &'static str, f: impl FnMut(web_sys::Event) + 'static) -> Listener {
    let closure = Closure::<dyn FnMut(web_sys::Event)>::new(f);
    if let Some(w) = web_sys::window() {
        let _ = w.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
    }
    Listener { event, closure }
}

/// The files of a drop event.
fn dropped_files(e: &web_sys::Event) -> Vec<web_sys::File> {
    e.dyn_ref::<web_sys::DragEvent>()
        .and_then(|d| d.data_transfer())
        .and_then(|dt| dt.files())
        .map(|list| (0..list.length()).filter_map(|i| list.get(i)).collect())
        .unwrap_or_default()
}

/// Drop files anywhere on the page; follow the fragment (share links opened in place).
fn window_listeners(link: &yew::html::Scope<App>) -> Vec<Listener> {
    let (over, leave, drop, hash) = (link.clone(), link.clone(), link.clone(), link.clone());
    vec![
        listen("dragover", move |e| {
            e.prevent_default();
            over.send_message(Msg::Dragging(true));
        }),
        listen("dragleave", move |_| {
            leave.send_message(Msg::Dragging(false))
        }),
        listen("drop", move |e| {
            e.prevent_default();
            drop.send_message(Msg::Dragging(false));
            let mut files = dropped_files(&e);
            // Merged tables of cluster sweeps go to their own view (panels/cluster.rs).
            files.retain(|f| !is_merged_table_name(&f.name()));
            if !files.is_empty() {
                drop.send_message(Msg::Action(AppAction::Files(files)));
            }
        }),
        listen("hashchange", move |_| {
            hash.send_message(Msg::Action(AppAction::HashChanged))
        }),
    ]
}

impl Component for App {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let hub = Hub::default();
        let mut state = AppState::default();
        if let Err(e) = hub.restart(vec![]) {
            state.errors.push(e);
        }
        let link = ctx.link();
        let worker_events = hub.subscribe(link.callback(|ev| Msg::Action(AppAction::Worker(ev))));
        state.open(&hub);
        let hash = super::format::location_hash();
        App {
            state: Rc::new(state),
            dispatch: link.callback(Msg::Action),
            hub,
            dragging: false,
            view: View::of_fragment(&hash).unwrap_or(View::Scheduling),
            linked: linked_view(&hash),
            link_error: link_error(&hash),
            cancel_timer: None,
            _worker_events: worker_events,
            _listeners: window_listeners(link),
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Action(action) => {
                if matches!(action, AppAction::HashChanged) {
                    self.follow_address();
                }
                let mut next = (*self.state).clone();
                let changed = next.apply(action, &self.hub);
                if changed {
                    self.state = Rc::new(next);
                }
                self.watch_cancel(ctx);
                changed
            }
            Msg::Dragging(d) => std::mem::replace(&mut self.dragging, d) != d,
        }
    }

    fn view(&self, _ctx: &Context<Self>) -> Html {
        let context = AppContext {
            state: self.state.clone(),
            dispatch: self.dispatch.clone(),
            hub: self.hub.clone(),
        };
        html! {
            <ContextProvider<AppContext> context={context.clone()}>
                <div class={classes!("page", self.dragging.then_some("dragging"))}>
                    <a class="skip" href="#main" data-testid="skip-to-run" onclick={Callback::from(skip_to_run)}>{"Skip to Run"}</a>
                    { header(&context) }
                    { view_tabs(self.view) }
                    if let Some(linked) = &self.linked {
                        <LinkBanner linked={linked.clone()} shown={self.view} />
                    }
                    if let Some(e) = &self.link_error {
                        <Alert testid="link-error" text={e.clone()} />
                    }
                    { messages(&context) }
                    <main id="main">
                      <div id={View::Scheduling.id()} class="view scheduling" hidden={self.view != View::Scheduling}>
                        <section class="editor" aria-label="Scenario">
                            <ScenarioPanel />
                            <FilesPanel />
                            <WorkloadPanel />
                            <FitPanel />
                            <PlatformPanel />
                            <FailuresPanel />
                            <EnergyPanel />
                            <AlgorithmsPanel />
                            <OptionsPanel />
                            <RunPanel />
                        </section>
                        <section class="results" aria-label="Results">
                            <ResultsPanel />
                            <ResourceResultsPanel />
                            <FailureResultsPanel />
                            <EnergyResultsPanel />
                            <VsLogResultsPanel />
                            <div class="charts">
                                <BarsPanel />
                                <SobFigurePanel />
                                <SitesPanel />
                                <WidthsPanel />
                                <WaitCdfPanel />
                                <TimelinePanel />
                            </div>
                            <AbPanel />
                            <MetricHelp />
                            <StepPanel />
                        </section>
                      </div>
                      { for FAMILY_TABS.iter().enumerate().map(|(i, tab)| html! {
                          <div id={View::Family(i).id()} class="view" hidden={self.view != View::Family(i)}>{ (tab.mount)() }</div>
                      }) }
                      <div id={View::Cluster.id()} class="view" hidden={self.view != View::Cluster}><ClusterPanel /></div>
                    </main>
                    <LimitsHelp />
                    <div class="dropzone" aria-hidden="true">{"Drop traces to load them (SWF, GWF, Batsim JSON, sacct; plain or .gz) or a merged sweep table"}</div>
                </div>
            </ContextProvider<AppContext>>
        }
    }
}

impl App {
    /// The address changed (a tab, Back, a pasted link): show the view it names; a new
    /// share link also brings its banner.
    fn follow_address(&mut self) {
        let hash = super::format::location_hash();
        if let Some(view) = View::of_fragment(&hash) {
            self.view = view;
        }
        if let Some(linked) = linked_view(&hash) {
            self.linked = Some(linked);
        }
        self.link_error = link_error(&hash);
    }

    /// A worker that does not answer a cancel in time is restarted
    /// ([`AppAction::CancelTimedOut`]).
    fn watch_cancel(&mut self, ctx: &Context<Self>) {
        if self.state.cancelling == 0 {
            self.cancel_timer = None;
        } else if self.cancel_timer.is_none() {
            let link = ctx.link().clone();
            self.cancel_timer = Some(gloo::timers::callback::Timeout::new(
                CANCEL_GRACE_MS,
                move || link.send_message(Msg::Action(AppAction::CancelTimedOut)),
            ));
        }
    }
}

/// The skip link: straight to the shown view's Run button (keyboard users need not Tab
/// through the whole form), without touching the address (it may hold a share link).
fn skip_to_run(e: MouseEvent) {
    e.prevent_default();
    let run = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| {
            d.query_selector(".view:not([hidden]) button.primary[data-testid$=run]")
                .ok()
                .flatten()
        })
        .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(run) = run {
        let _ = run.focus();
    }
}

fn header(app: &AppContext) -> Html {
    html! {
        <header>
            <h1>{"Gridscope"}</h1>
            <p class="tagline">{"Batch-job scheduling simulator. Everything runs in this page: no file leaves your computer."}</p>
            <div class="share">
                <button onclick={app.callback(|_: MouseEvent| AppAction::Share)} title="Put the whole scenario in the page address">{"Share"}</button>
                if let Some(url) = &app.share_url {
                    <output data-testid="share-url" class="share-url">{url}</output>
                    <CopyButton text={url.clone()} testid="share-copy" />
                }
            </div>
        </header>
    }
}

fn messages(app: &AppContext) -> Html {
    html! {
        <>
            if !app.errors.is_empty() {
                <Alert testid="error" text={app.errors.join("\n")}>
                    <button onclick={app.callback(|_: MouseEvent| AppAction::DismissError)}>{"Dismiss"}</button>
                </Alert>
            }
            if let Some(why) = &app.died {
                <div class="notice died" role="alert" data-testid="worker-died">
                    <p>{why}</p>
                    if let Some(good) = &app.last_good {
                        <button class="primary" data-testid="reload-last-good" onclick={app.callback(|_: MouseEvent| AppAction::ReloadLastGood)}>{format!("Reload the last good scenario ({})", good.name)}</button>
                    }
                    <button onclick={app.callback(|_: MouseEvent| AppAction::DismissError)}>{"Dismiss"}</button>
                </div>
            }
            if let Some(n) = &app.notice {
                <div class="notice" role="status" data-testid="notice">{n}</div>
            }
            if let Some(c) = &app.confirm {
                <div class="notice confirm" role="alert" data-testid="confirm">
                    <p>{c}</p>
                    <button class="primary" data-testid="confirm-run" onclick={app.callback(|_: MouseEvent| AppAction::Run)}>{"Run it"}</button>
                </div>
            }
        </>
    }
}
