//! The Web Worker that runs the engine off the main thread (built by Trunk for wasm32).

#[cfg(target_arch = "wasm32")]
fn main() {
    gridscope::web::start_worker();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the Gridscope worker runs in the browser: use `bash scripts/serve.sh` (see README)");
    std::process::exit(2);
}
