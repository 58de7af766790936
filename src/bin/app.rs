//! The browser app's entry point (built by Trunk for wasm32).

#[cfg(target_arch = "wasm32")]
fn main() {
    gridscope::web::start_app();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the Gridscope app runs in the browser: use `bash scripts/serve.sh` (see README)");
    std::process::exit(2);
}
