//! Placeholder until the browser app lands (issue 3).

pub fn start_app() {}

pub fn start_worker() {}
