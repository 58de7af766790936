//! Serde forms of the engine's option types (the engine has no serde, by the layer rule):
//! how a scenario file's `options` object reads and writes the engine's [`RunConfig`].

use serde::{Deserialize, Serialize};

use crate::engine::{EstimateSource, EventOrder, RunConfig};

/// The serde form of the engine's [`RunConfig`] (the engine has no serde): the scenario
/// file's `options`, `{"estimates": "trace"|"exact", "kill_at_estimate": bool,
/// "event_order": "gridscope"|"pyss"|"cqsim"}` (the last added later: absent reads as
/// `gridscope`, and `gridscope` is left out, so older files and links are the same bytes).
/// Any field left out takes its default (`trace`, `true`, `gridscope`).
#[derive(Serialize, Deserialize)]
#[serde(remote = "RunConfig")]
#[serde(deny_unknown_fields)]
pub(super) struct RunConfigDef {
    // A field left out reads as its default, like a missing `options` object.
    #[serde(with = "EstimateSourceDef", default = "default_estimates")]
    estimates: EstimateSource,
    #[serde(default = "default_kill")]
    kill_at_estimate: bool,
    #[serde(
        default,
        with = "EventOrderDef",
        skip_serializing_if = "is_gridscope_order"
    )]
    event_order: EventOrder,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "EventOrder", rename_all = "snake_case")]
enum EventOrderDef {
    Gridscope,
    Pyss,
    Cqsim,
}

fn default_estimates() -> EstimateSource {
    RunConfig::default().estimates
}

fn default_kill() -> bool {
    RunConfig::default().kill_at_estimate
}

fn is_gridscope_order(o: &EventOrder) -> bool {
    *o == EventOrder::Gridscope
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "EstimateSource", rename_all = "snake_case")]
enum EstimateSourceDef {
    Trace,
    Exact,
}
