//! What each run held and stranded of cores, memory and GPUs on node-typed sites (issue
//! #37, docs/nodes.md): the CLI's resources table, a bar per run and resource, and each
//! number's formula.

use yew::prelude::*;

use crate::metrics::resources::{ResourceUse, RunResources, RESOURCE_HELP};
use crate::web::charts::{plot, resource_shares, ChartView};
use crate::web::format::fmt_num;
use crate::web::state::use_app;

/// The formula (hover text) of a column, from [`RESOURCE_HELP`].
fn formula(key: &str) -> String {
    RESOURCE_HELP
        .iter()
        .find(|m| m.key == key)
        .map_or(String::new(), |m| m.formula.to_string())
}

/// A share as a percentage with two decimals, or a dash for a resource the run lacks.
fn percent(u: Option<&ResourceUse>, f: fn(&ResourceUse) -> f64) -> String {
    u.map_or("–".into(), |u| format!("{} %", fmt_num(100.0 * f(u), 2)))
}

#[function_component]
pub fn ResourceResultsPanel() -> Html {
    let app = use_app();
    let runs = &app.results.runs;
    let Some(chart) = resource_shares(runs) else {
        return html! {};
    };
    let with = || {
        runs.iter()
            .filter_map(|r| Some((r.label(), r.report.resources.as_ref()?)))
    };
    let memory = with().any(|(_, x)| x.all.memory_kb.is_some());
    let gpus = with().any(|(_, x)| x.all.gpus.is_some());
    let th = |key: &'static str, text: &'static str| html! { <th title={formula(key)} data-key={key}>{text}</th> };
    let row = |label: &str, x: &RunResources| {
        let pair = |u: Option<&ResourceUse>| {
            html! { <>
                <td class="num">{percent(u, |u| u.utilization)}</td>
                <td class="num">{percent(u, |u| u.stranded)}</td>
            </> }
        };
        html! { <tr data-label={label.to_string()}>
            <th scope="row">{label.to_string()}</th>
            { pair(Some(&x.all.cores)) }
            if memory { { pair(x.all.memory_kb.as_ref()) } }
            if gpus { { pair(x.all.gpus.as_ref()) } }
        </tr> }
    };
    html! {
        <section class="resources" data-testid="resource-results">
            <h2>{"Resources on nodes"}</h2>
            <table class="metrics" data-testid="resource-table">
                <thead><tr>
                    <th>{"algorithm"}</th>
                    { th("resources.cores.utilization", "cores held") }
                    { th("resources.cores.stranded", "cores stranded") }
                    if memory {
                        { th("resources.memory_kb.utilization", "memory held") }
                        { th("resources.memory_kb.stranded", "memory stranded") }
                    }
                    if gpus {
                        { th("resources.gpus.utilization", "GPUs held") }
                        { th("resources.gpus.stranded", "GPUs stranded") }
                    }
                </tr></thead>
                <tbody>
                    { for with().map(|(l, x)| row(l, x)) }
                </tbody>
            </table>
            <ChartView chart={Some(plot(chart))} testid="chart-resources" width={640} height={260} />
            { super::results::help_list("What the resource numbers mean", RESOURCE_HELP) }
        </section>
    }
}
