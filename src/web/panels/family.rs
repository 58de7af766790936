//! What the SES and KKOR panels share: a preset run in a worker of its own (as the SF panel:
//! started on Run, dropped on Cancel or when done), its progress, errors and share link.

use yew::prelude::*;

use super::form::DraftInput;
use crate::web::engine_worker::{self, EngineWorker};
use crate::web::protocol::{FamilyRequest, FamilyResult, FromWorker, ToWorker};
use crate::web::share;

/// A worker's message (or failure), tagged with the run it belongs to.
pub type Delivery = (u32, Result<FromWorker, String>);

#[derive(Default)]
pub struct Runner {
    worker: Option<EngineWorker>,
    generation: u32,
    pending: Option<FamilyRequest>,
    /// A file the request reads (SCJG's trace), sent with it.
    pending_file: Option<web_sys::File>,
    pub running: bool,
    pub done: u64,
    pub total: u64,
    pub error: Option<String>,
    pub notice: Option<String>,
    pub share_url: Option<String>,
    /// What `share_url` holds: the link is hidden once the fields ask for something else.
    pub shared: Option<FamilyRequest>,
    /// Worker time of the last finished run.
    pub elapsed_ms: Option<f64>,
    /// The request sent to the worker, and the one whose result is on screen (its cluster
    /// export reproduces it).
    sent: Option<FamilyRequest>,
    pub ran: Option<FamilyRequest>,
}

/// Seeds as typed: a whole number in 1..1000.
pub fn parse_seeds(v: &str) -> Result<u64, String> {
    match v.trim().parse::<u64>() {
        Ok(n) if (1..=1000).contains(&n) => Ok(n),
        _ => Err(format!(
            "seeds: '{}' is not a whole number in 1..1000",
            v.trim()
        )),
    }
}

/// The request of a `#f1=` link in the page's address, if there is one; `Err` for a
/// damaged link.
pub fn linked_request() -> Result<Option<FamilyRequest>, String> {
    share::decode_family(&crate::web::format::location_hash())
}

impl Runner {
    /// Starts `request` with `file` attached (read in the worker) in a new worker.
    pub fn start_with_file(
        &mut self,
        request: FamilyRequest,
        file: web_sys::File,
        deliver: Callback<Delivery>,
    ) {
        self.start(request, deliver);
        self.pending_file = Some(file);
    }

    /// Starts `request` in a new worker (the old one, if any, is dropped).
    pub fn start(&mut self, request: FamilyRequest, deliver: Callback<Delivery>) {
        self.pending_file = None;
        self.error = None;
        self.notice = None;
        self.done = 0;
        self.total = 0;
        self.generation += 1;
        let gen = self.generation;
        self.worker = None;
        self.pending = Some(request);
        match engine_worker::spawn(move |m| deliver.emit((gen, m))) {
            Ok(w) => {
                self.worker = Some(w);
                self.running = true;
            }
            Err(e) => self.error = Some(e),
        }
    }

    fn stop(&mut self) {
        self.running = false;
        self.worker = None;
    }

    /// Handles a worker message; returns the result when it brings one.
    pub fn on_message(&mut self, (gen, m): Delivery) -> Option<FamilyResult> {
        if gen != self.generation {
            return None;
        }
        match m {
            Err(e) => {
                self.stop();
                self.error = Some(e);
            }
            Ok(FromWorker::Ready) => {
                let request = self.pending.take()?;
                self.sent = Some(request.clone());
                let msg = ToWorker::Family { request };
                let file = self.pending_file.take();
                if let Some(Err(e)) = self.worker.as_ref().map(|w| w.send(&msg, file.as_deref())) {
                    self.stop();
                    self.error = Some(e);
                }
            }
            Ok(FromWorker::FamilyProgress { done, total }) => {
                self.done = done;
                self.total = total;
            }
            Ok(FromWorker::FamilyDone { result, elapsed_ms }) => {
                self.stop();
                self.ran = self.sent.take();
                self.elapsed_ms = Some(elapsed_ms);
                self.done = self.total.max(1);
                self.total = self.done;
                return Some(*result);
            }
            Ok(FromWorker::FamilyFailed { message }) => {
                self.stop();
                self.error = Some(message);
            }
            Ok(_) => {}
        }
        None
    }

    pub fn cancel(&mut self, unit: &str) {
        if self.running {
            self.stop();
            self.generation += 1;
            self.notice = Some(format!(
                "Cancelled after {} of {} {unit}.",
                self.done, self.total
            ));
        }
    }

    pub fn share(&mut self, request: Result<FamilyRequest, String>) {
        match request.and_then(|r| share::encode_family(&r).map(|f| (r, f))) {
            Ok((r, frag)) => {
                self.share_url = Some(share::link(&frag));
                self.shared = Some(r);
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// Hides the link once the panel's fields (`now`) no longer ask for what it shares, so
    /// a link on screen always re-runs what the fields say.
    pub fn forget_stale_link(&mut self, now: Result<FamilyRequest, String>) {
        if self.share_url.is_some() && now.ok() != self.shared {
            self.share_url = None;
            self.shared = None;
        }
    }

    /// Run, Cancel, Share, the progress and status line, errors, notices and the link.
    /// Test ids are `{id}-run`, `{id}-cancel`, `{id}-share`, `{id}-progress`,
    /// `{id}-status`, `{id}-error`, `{id}-notice`, `{id}-share-url`.
    pub fn view(
        &self,
        id: &str,
        unit: &str,
        run: Callback<MouseEvent>,
        cancel: Callback<MouseEvent>,
        share: Callback<MouseEvent>,
    ) -> Html {
        let frac = if self.total > 0 {
            (self.done as f64 / self.total as f64).min(1.0)
        } else {
            0.0
        };
        let status = match (self.running, self.elapsed_ms) {
            (true, _) => format!("running… {} of {} {unit}", self.done, self.total),
            (false, Some(ms)) => format!("done in {:.2} s", ms / 1000.0),
            _ => String::new(),
        };
        let tid = |s: &str| format!("{id}-{s}");
        html! {
            <>
                <div class="run">
                    <button class="primary" data-testid={tid("run")} onclick={run}>{"Run"}</button>
                    <button data-testid={tid("cancel")} disabled={!self.running} onclick={cancel}>{"Cancel"}</button>
                    <button data-testid={tid("share")} title="A link that re-runs this preset with these parameters to the same numbers" onclick={share}>{"Share"}</button>
                    <progress data-testid={tid("progress")} max="1" value={frac.to_string()} aria-label="progress"></progress>
                    <span class="status" data-testid={tid("status")}>{status}</span>
                </div>
                if let Some(e) = &self.error {
                    <crate::web::panels::Alert testid={tid("error")} text={e.clone()} />
                }
                if let Some(n) = &self.notice {
                    <div class="notice" role="status" data-testid={tid("notice")}>{n}</div>
                }
                if let Some(url) = &self.share_url {
                    <p class="help">{"Link to this run (preset, seeds and parameters; opening it runs it): "}
                        <output data-testid={tid("share-url")} class="share-url">{url}</output>
                        {" "}<crate::web::panels::CopyButton text={url.clone()} testid={tid("share-copy")} /></p>
                }
                if !self.running {
                    { crate::web::panels::family_export(id, self.ran.as_ref()) }
                }
            </>
        }
    }
}

/// A labelled text field with its help.
pub fn field(
    id: &'static str,
    label: &str,
    value: &str,
    help: &str,
    onchange: Callback<Event>,
) -> Html {
    html! {
        <div class="field">
            <label for={id}>{label.to_string()}</label>
            <DraftInput {id} value={value.to_string()} {onchange} />
            <span class="help">{help.to_string()}</span>
        </div>
    }
}
