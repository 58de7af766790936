//! Starting the engine's Web Worker from the page: one place for the loader path, the
//! message decoding and the error hook, shared by the main run and the SF sweeps.

use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::MessageEvent;

use super::protocol::FromWorker;

/// A running engine worker; dropping it terminates the worker.
pub struct EngineWorker {
    pub worker: web_sys::Worker,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

impl Drop for EngineWorker {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

/// Starts a worker whose messages go to `deliver`: `Ok` for each decoded message, `Err`
/// with a readable text for an undecodable message or a failure of the worker itself.
pub fn spawn(
    deliver: impl Fn(Result<FromWorker, String>) + 'static,
) -> Result<EngineWorker, String> {
    let worker = web_sys::Worker::new("./worker_loader.js")
        .map_err(|e| format!("cannot start the engine worker: {e:?}"))?;
    let deliver = Rc::new(deliver);
    let to_page = deliver.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let Some(text) = e.data().as_string() else {
            return;
        };
        to_page(
            serde_json::from_str::<FromWorker>(&text)
                .map_err(|err| format!("bad message from the worker: {err}")),
        );
    });
    let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |e: web_sys::ErrorEvent| {
        e.prevent_default();
        deliver(Err(format!("the engine worker failed: {}", e.message())));
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    Ok(EngineWorker {
        worker,
        _on_message: on_message,
        _on_error: on_error,
    })
}
