//! Starting an engine Web Worker from the page and talking to it in typed messages: one
//! place for the loader path, the encoding of [`ToWorker`], the decoding of [`FromWorker`]
//! and the error hook. The page's main worker lives in a [`super::hub::Hub`]; the family views
//! start theirs for each run through `panels::family::Runner` (a pool of them for an SF
//! sweep), and the engine worker its pool (`worker::pool`).

use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::MessageEvent;

use super::protocol::{FromWorker, ToWorker};

/// Engine workers a sweep or a run's pool starts at most (each loads its own copy of the
/// engine).
pub const MAX_WORKERS: usize = 8;

/// The machine's logical cores as the browser reports them (1 when it does not say), at
/// most [`MAX_WORKERS`]: how many engine workers are worth running at once.
pub fn cores() -> usize {
    let get = |o: &JsValue, k: &str| js_sys::Reflect::get(o, &k.into()).ok();
    let n = get(&js_sys::global(), "navigator")
        .and_then(|nav| get(&nav, "hardwareConcurrency"))
        .and_then(|v| v.as_f64())
        .unwrap_or(1.0);
    (n as usize).clamp(1, MAX_WORKERS)
}

/// How a worker's death starts when it reaches the page (its own worker's, or a pool
/// worker's passed on in `FromWorker::Failed`): [`why_it_died`] puts it in words.
pub const DEATH: &str = "the engine worker failed: ";

/// A running engine worker; dropping it terminates the worker.
pub struct EngineWorker {
    worker: web_sys::Worker,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

impl Drop for EngineWorker {
    /// Terminates the worker and unhooks its handlers first: a message it posted before it
    /// was stopped may still be queued on the page, and must find no handler rather than
    /// the closures dropped with this value ("closure invoked after being dropped").
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

impl EngineWorker {
    /// Stops the worker now (dropping it does too; this is for a handler of its own, which
    /// must not drop it).
    pub fn terminate(&self) {
        self.worker.terminate();
    }
}

impl EngineWorker {
    /// Posts a message; `file` rides along (structured-cloned) for [`ToWorker::Load`].
    pub fn send(&self, msg: &ToWorker, file: Option<&web_sys::Blob>) -> Result<(), String> {
        let text = serde_json::to_string(msg)
            .map_err(|e| format!("cannot encode a message for the engine worker: {e}"))?;
        let text = JsValue::from_str(&text);
        let posted = match file {
            Some(f) => self
                .worker
                .post_message(&js_sys::Array::of2(&text, f).into()),
            None => self.worker.post_message(&text),
        };
        posted.map_err(|e| format!("cannot reach the engine worker: {e:?}"))
    }
}

/// Starts a worker whose messages go to `deliver`: `Ok` for each decoded message, `Err`
/// with a readable text for an undecodable message or a failure of the worker itself.
pub fn spawn(
    deliver: impl Fn(Result<FromWorker, String>) + 'static,
) -> Result<EngineWorker, String> {
    spawn_with_bytes(move |m, _| deliver(m))
}

/// [`spawn`], with the bytes a message may carry beside its JSON (a pool worker's outcomes,
/// posted as `[text, Uint8Array]`).
pub fn spawn_with_bytes(
    deliver: impl Fn(Result<FromWorker, String>, Option<Vec<u8>>) + 'static,
) -> Result<EngineWorker, String> {
    let worker = web_sys::Worker::new("./worker_loader.js")
        .map_err(|e| format!("cannot start the engine worker: {e:?}"))?;
    let deliver = Rc::new(deliver);
    let to_page = deliver.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let data = e.data();
        let (text, bytes) = match data.dyn_ref::<js_sys::Array>() {
            Some(arr) => (
                arr.get(0).as_string(),
                arr.get(1)
                    .dyn_into::<js_sys::Uint8Array>()
                    .ok()
                    .map(|a| a.to_vec()),
            ),
            None => (data.as_string(), None),
        };
        let Some(text) = text else {
            return;
        };
        to_page(
            serde_json::from_str::<FromWorker>(&text)
                .map_err(|err| format!("bad message from the worker: {err}")),
            bytes,
        );
    });
    let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |e: web_sys::ErrorEvent| {
        e.prevent_default();
        deliver(Err(format!("{DEATH}{}", e.message())), None);
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    Ok(EngineWorker {
        worker,
        _on_message: on_message,
        _on_error: on_error,
    })
}

/// A worker's death in words a page visitor can act on (issue #30): `raw` is what the
/// browser's `error` event said ("Uncaught RuntimeError: unreachable" for a Rust panic or
/// a failed allocation: both end in a WebAssembly trap; an empty message when the worker
/// could not even load).
pub fn why_it_died(raw: &str) -> String {
    let l = raw.to_ascii_lowercase();
    let why = if [
        "out of memory",
        "allocation failed",
        "could not allocate",
        "memory.grow",
    ]
    .iter()
    .any(|w| l.contains(w))
    {
        "it ran out of memory — the browser would not give it more (a WebAssembly engine has at most 4 GiB, and the tab may have less)"
    } else if l.contains("unreachable") {
        "it stopped on an internal error — a WebAssembly trap, which is how a Rust panic or a failed memory allocation ends (the browser console says which); a bug in Gridscope, or a tab out of memory"
    } else if l.contains("call stack") || l.contains("stack overflow") {
        "it ran out of stack (a bug in Gridscope)"
    } else if l.contains("out of bounds") {
        "it stopped on an invalid memory access (a bug in Gridscope)"
    } else if raw.trim().trim_end_matches(':').ends_with("failed") || raw.trim().is_empty() {
        "the browser stopped it without saying why (it could not load its script, or it was killed)"
    } else {
        "it stopped on an uncaught error"
    };
    format!(
        "The engine worker died: {why}. The browser said: “{}”. A fresh worker was started; the run that was going on is lost.",
        raw.trim()
    )
}
