//! Wait-time CDFs of every run.

use yew::prelude::*;

use crate::web::charts::{plot, ChartView, WaitCdf};
use crate::web::state::use_app;

#[function_component]
pub fn WaitCdfPanel() -> Html {
    let app = use_app();
    let runs = &app.results.runs;
    if runs.is_empty() {
        return html! {};
    }
    let chart = plot(WaitCdf { runs: runs.clone() });
    html! { <ChartView chart={Some(chart)} testid="chart-cdf" width={640} height={300} /> }
}
