//! The head of the charts: one metric of every run relative to a baseline run.

use yew::prelude::*;

use super::form::select_index;
use crate::web::charts::{plot, Bars, ChartView};
use crate::web::metric::Metric;
use crate::web::state::use_app;

/// A labelled `<select>` of `items` whose values are their indices.
pub fn index_select(
    label: &str,
    items: &[String],
    selected: usize,
    onchange: Callback<usize>,
) -> Html {
    let onchange = Callback::from(move |e: Event| onchange.emit(select_index(&e)));
    html! {
        <label>{format!("{label} ")}
            <select {onchange}>
                { for items.iter().enumerate().map(|(i, t)| html!{ <option value={i.to_string()} selected={i == selected}>{t}</option> }) }
            </select>
        </label>
    }
}

#[function_component]
pub fn BarsPanel() -> Html {
    let app = use_app();
    let metric = use_state(|| 0usize);
    let baseline = use_state(|| 0usize);
    let runs = &app.results.runs;
    if runs.is_empty() {
        return html! {};
    }
    let m = Metric::BARS[(*metric).min(Metric::BARS.len() - 1)];
    let base = (*baseline).min(runs.len() - 1);
    let names: Vec<String> = Metric::BARS.iter().map(|m| m.title().to_string()).collect();
    let (set_metric, set_baseline) = (metric.setter(), baseline.setter());
    html! {
        <>
            <h2>{"Charts"}</h2>
            <div class="controls">
                { index_select("metric", &names, *metric, Callback::from(move |i| set_metric.set(i))) }
                { index_select("baseline", &app.results.labels(), base, Callback::from(move |i| set_baseline.set(i))) }
            </div>
            <ChartView chart={Some(plot(Bars::of(runs, m, base)))} testid="chart-bars" width={640} height={300} />
        </>
    }
}
