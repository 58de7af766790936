//! One view for every paper family: [`FamilyView`] owns what each family's view had
//! written again — Run and Cancel over a [`Runner`], the progress bar and status line,
//! errors and notices, the Share link (hidden once the fields ask for something else), a
//! link in the address filling the fields, and Export for a cluster — while a
//! [`FamilyPanel`] gives only its fields, the request they describe and its results.

use yew::prelude::*;

use super::family::{Delivery, Runner, Task};
use super::{Alert, CopyButton};
use crate::web::share;

/// What a link in the page's address shares, for the banner over the page.
pub struct Linked {
    pub what: String,
    /// A file the visitor must pick before it runs (SCJG's trace).
    pub needs: Option<String>,
}

/// What a link in the page's address does to a view when it opens.
pub enum Opening {
    /// No link of this view's.
    Nothing,
    /// The fields are filled: run at once.
    Run,
    /// The fields are filled; the notice says why it waits for Run (or a file).
    Wait(String),
    /// The link is damaged or refused.
    Error(String),
}

/// What the view does after a field changed.
pub enum Then {
    /// Shows the fields as they are now.
    Show,
    /// Also drops the error on screen (the fields were put back to a preset's).
    ClearError,
    /// Starts the run (a linked run's file was chosen).
    Run,
}

/// A paper family's part of its view.
pub trait FamilyPanel: Sized + 'static {
    /// The section's id and the prefix of its test ids (`{ID}-run`, `{ID}-cancel`,
    /// `{ID}-share`, `{ID}-progress`, `{ID}-status`, `{ID}-error`, `{ID}-notice`,
    /// `{ID}-share-url`, `{ID}-share-copy`).
    const ID: &'static str;
    /// The section's classes, its accessible name and its heading.
    const CLASS: &'static str;
    const LABEL: &'static str;
    const HEADING: &'static str;
    /// The Run and Share buttons' words, Share's tooltip, the progress bar's name and the
    /// words before the link.
    const RUN: &'static str = "Run";
    const SHARE: &'static str = "Share";
    const SHARE_TITLE: &'static str =
        "A link that re-runs this preset with these parameters to the same numbers";
    const PROGRESS_LABEL: &'static str = "progress";
    const LINK_TEXT: &'static str =
        "Link to this run (preset, seeds and parameters; opening it runs it): ";
    /// A change of one of the fields (or a choice among the results).
    type Field: 'static;
    /// What Run starts.
    type Task: Task;
    /// What a share link holds: the run the fields describe.
    type Link: Clone + PartialEq + 'static;

    /// The fields at their defaults.
    fn new() -> Self;
    /// The paragraph under the heading.
    fn intro(&self) -> Html;
    /// What the link `fragment` shares, if it runs in this view.
    fn linked(fragment: &str) -> Option<Linked>;
    /// Fills the fields from a link of this view's in the address.
    fn open_link(&mut self) -> Opening;
    /// The run the fields describe; the error names the field.
    fn link(&self) -> Result<Self::Link, String>;
    /// The share link's fragment.
    fn encode(link: &Self::Link) -> Result<String, String>;
    /// What Run needs besides the fields (a trace file), checked first.
    fn ready(&self) -> Result<(), String> {
        Ok(())
    }
    /// The trace files loaded elsewhere on the page (dropped on the Scheduling view), offered
    /// before [`FamilyPanel::ready`]: a view that reads a trace may take one it lacks, and
    /// returns a notice saying which.
    fn offer_files(&mut self, _files: &[web_sys::File]) -> Option<String> {
        None
    }
    /// The task that runs `link`.
    fn task(&self, link: Self::Link) -> Result<Self::Task, String>;
    /// Applies a field's change (the error names the field).
    fn set(&mut self, field: Self::Field) -> Result<Then, String>;
    /// Takes a finished run's result.
    fn show(&mut self, result: <Self::Task as Task>::Output) -> Result<(), String>;
    /// What the progress counts (`seeds`, `loads`, `runs`, `simulations`).
    fn unit(&self) -> &'static str;
    /// The status line beside the progress bar.
    fn status(&self, runner: &Runner<Self::Task>) -> String {
        match (runner.running, runner.elapsed_ms) {
            (true, _) => format!(
                "running… {} of {} {}",
                runner.done,
                runner.total,
                self.unit()
            ),
            (false, Some(ms)) => format!("done in {:.2} s", ms / 1000.0),
            _ => String::new(),
        }
    }
    /// The notice after Cancel.
    fn cancelled(&self, done: u64, total: u64) -> String {
        format!("Cancelled after {done} of {total} {}.", self.unit())
    }
    /// The fields (inside the view's `<div class="fields">`).
    fn form(&self, on: &Callback<Self::Field>) -> Html;
    /// The finished run's charts and tables.
    fn results(&self, on: &Callback<Self::Field>) -> Html;
    /// Export for a cluster of what ran (`ran`), or why not.
    fn export(&self, running: bool, ran: Option<&Self::Link>) -> Html;
}

pub enum FamilyMsg<P: FamilyPanel> {
    Worker(Delivery),
    Field(P::Field),
    Run,
    Cancel,
    Share,
}

/// A family's view: its panel's fields and results around the generic run controls.
pub struct FamilyView<P: FamilyPanel> {
    panel: P,
    runner: Runner<P::Task>,
    error: Option<String>,
    notice: Option<String>,
    share_url: Option<String>,
    /// What `share_url` holds: the link is hidden once the fields ask for something else.
    shared: Option<P::Link>,
    /// The run sent to the workers, and the one whose result is on screen (its cluster
    /// export reproduces it).
    sent: Option<P::Link>,
    ran: Option<P::Link>,
}

impl<P: FamilyPanel> FamilyView<P> {
    fn run(&mut self, ctx: &Context<Self>) {
        // A trace dropped anywhere on the page serves this view too.
        let offered = ctx
            .link()
            .context::<crate::web::state::AppContext>(Callback::noop())
            .map(|(app, _)| loaded_files(&app))
            .unwrap_or_default();
        let took = self.panel.offer_files(&offered);
        let task = self
            .panel
            .ready()
            .and_then(|()| self.panel.link())
            .and_then(|link| Ok((link.clone(), self.panel.task(link)?)));
        match task {
            Ok((link, task)) => {
                self.error = None;
                self.notice = took;
                let deliver = ctx.link().callback(FamilyMsg::Worker);
                match self.runner.start(task, deliver) {
                    Ok(()) => self.sent = Some(link),
                    Err(e) => self.error = Some(e),
                }
            }
            Err(e) => self.error = Some(e),
        }
    }

    fn share(&mut self) {
        match self
            .panel
            .link()
            .and_then(|l| P::encode(&l).map(|f| (l, f)))
        {
            Ok((l, frag)) => {
                self.share_url = Some(share::link(&frag));
                self.shared = Some(l);
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// Run, Cancel, Share, the progress and status line, errors, notices, the link and the
    /// export.
    fn controls(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let tid = |s: &str| format!("{}-{s}", P::ID);
        html! {
            <>
                <div class="run">
                    <button class="primary" data-testid={tid("run")} onclick={link.callback(|_| FamilyMsg::Run)}>{P::RUN}</button>
                    <button data-testid={tid("cancel")} disabled={!self.runner.running} onclick={link.callback(|_| FamilyMsg::Cancel)}>{"Cancel"}</button>
                    <button data-testid={tid("share")} title={P::SHARE_TITLE} onclick={link.callback(|_| FamilyMsg::Share)}>{P::SHARE}</button>
                    <progress data-testid={tid("progress")} max="1" value={self.runner.fraction().to_string()} aria-label={P::PROGRESS_LABEL}></progress>
                    <span class="status" data-testid={tid("status")}>{self.panel.status(&self.runner)}</span>
                </div>
                if let Some(e) = &self.error {
                    <Alert testid={tid("error")} text={e.clone()} />
                }
                if let Some(n) = &self.notice {
                    <div class="notice" role="status" data-testid={tid("notice")}>{n}</div>
                }
                if let Some(url) = &self.share_url {
                    <p class="help">{P::LINK_TEXT}
                        <output data-testid={tid("share-url")} class="share-url">{url}</output>
                        {" "}<CopyButton text={url.clone()} testid={tid("share-copy")} /></p>
                }
                { self.panel.export(self.runner.running, self.ran.as_ref()) }
            </>
        }
    }
}

impl<P: FamilyPanel> Component for FamilyView<P> {
    type Message = FamilyMsg<P>;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let mut view = FamilyView {
            panel: P::new(),
            runner: Runner::default(),
            error: None,
            notice: None,
            share_url: None,
            shared: None,
            sent: None,
            ran: None,
        };
        match view.panel.open_link() {
            Opening::Nothing => {}
            Opening::Run => ctx.link().send_message(FamilyMsg::Run),
            Opening::Wait(notice) => view.notice = Some(notice),
            Opening::Error(e) => view.error = Some(e),
        }
        view
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Self::Message) -> bool {
        match msg {
            FamilyMsg::Worker(d) if !self.runner.is_current(&d) => return false,
            FamilyMsg::Worker(d) => match self.runner.on_message(d) {
                Ok(Some(result)) => {
                    self.ran = self.sent.take();
                    if let Err(e) = self.panel.show(result) {
                        self.error = Some(e);
                    }
                }
                Ok(None) => {}
                Err(e) => self.error = Some(e),
            },
            FamilyMsg::Field(f) => match self.panel.set(f) {
                Ok(Then::Run) => self.run(ctx),
                Ok(Then::ClearError) => self.error = None,
                Ok(Then::Show) => {}
                Err(e) => self.error = Some(e),
            },
            FamilyMsg::Run => self.run(ctx),
            FamilyMsg::Cancel => {
                let (done, total) = (self.runner.done, self.runner.total);
                if self.runner.cancel() {
                    self.notice = Some(self.panel.cancelled(done, total));
                }
            }
            FamilyMsg::Share => self.share(),
        }
        // A link on screen always re-runs what the fields say.
        if self.share_url.is_some() && self.panel.link().ok() != self.shared {
            self.share_url = None;
            self.shared = None;
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let on = ctx.link().callback(FamilyMsg::Field);
        html! {
            <section class={P::CLASS} id={P::ID} aria-label={P::LABEL}>
                <h2>{P::HEADING}</h2>
                { self.panel.intro() }
                <div class="fields">
                    { self.panel.form(&on) }
                </div>
                { self.controls(ctx) }
                { self.panel.results(&on) }
            </section>
        }
    }
}

/// The files the page has loaded (dropped or picked on the Scheduling view), in the order
/// they came.
fn loaded_files(app: &crate::web::state::AppContext) -> Vec<web_sys::File> {
    app.files
        .iter()
        .filter(|f| matches!(f.status, crate::web::state::FileStatus::Loaded { .. }))
        .map(|f| f.file.clone())
        .collect()
}
