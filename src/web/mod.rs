//! The browser app (wasm32 only): a Yew page (`app`, the layout of `panels` over a shared
//! `state`) and an engine that runs in a Web Worker (`worker`); they talk in typed
//! `protocol` messages through `hub`. `charts` draws with plotters-canvas, `share` puts
//! scenarios in URLs (`family_link` the family views' runs).

mod app;
mod charts;
mod engine_worker;
mod family_link;
mod family_metric;
mod format;
mod hub;
mod metric;
mod panels;
pub mod protocol;
pub mod share;
mod state;
pub mod worker;

#[cfg(test)]
mod tests;

/// Entry point of the page (`src/bin/app.rs`).
pub fn start_app() {
    console_error_panic_hook::set_once();
    let root = gloo::utils::document().get_element_by_id("app");
    match root {
        Some(root) => {
            yew::Renderer::<app::App>::with_root(root).render();
        }
        None => {
            yew::Renderer::<app::App>::new().render();
        }
    }
}

/// Entry point of the engine worker (`src/bin/worker.rs`).
pub fn start_worker() {
    console_error_panic_hook::set_once();
    worker::start();
}
