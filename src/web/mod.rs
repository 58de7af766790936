//! The browser app (wasm32 only): a Yew page (`app`) over an engine that runs in a Web
//! Worker (`worker`); they talk in `protocol` messages. `share` puts scenarios in URLs and
//! `plots` draws the charts with plotters-canvas.

mod app;
mod engine_worker;
mod plots;
pub mod protocol;
pub(crate) mod sf;
pub mod share;
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
