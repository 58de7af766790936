//! The runs a report card reads its numbers from: a family preset with the few options a
//! claim file may set ([`RunSpec`], the family layer's request), run through the family
//! registry as the CLI's `run --preset` runs it, and returned as the JSON report the CLI
//! prints (so a claim's path can be tried on `gridscope run --preset NAME --json` by hand).

use serde_json::Value;

use crate::family::Ctx;
pub use crate::family::{merged, Load, RunSpec};
use crate::limits::Limits;

/// Runs `spec` and returns its JSON report. `progress(done, total)` may return false to cancel.
pub fn run(
    spec: &RunSpec,
    threads: usize,
    load: &mut Load,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<Value, String> {
    let mut ctx = Ctx {
        threads,
        limits: Limits::default(),
        load,
        progress,
    };
    let report = crate::family::run(spec, &mut ctx).map_err(|e| e.to_string())?;
    report.value().map_err(|e| format!("{}: {e}", spec.preset))
}
