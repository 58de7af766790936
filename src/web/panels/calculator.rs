//! The SF allocation calculator: OWA (SF eq. 11) and WW fractions for given rates, arrival
//! rate and batch size, with the predicted mean response time (eq. 7), computed on the page.

use yew::prelude::*;

use super::form::{input_value, DraftInput};
use crate::allocation::fractions::{allocate, Allocation};
use crate::allocation::sweep::parse_numbers;
use crate::web::charts::{plot, AllocationBars, ChartView};
use crate::web::format::json_num;

fn fmt4(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.4}")
    } else {
        "–".into()
    }
}

/// Parses the calculator's fields and computes both allocations; errors are the engine's
/// `validate()` messages (or which field is not a number).
pub fn allocate_fields(rates: &str, lambda: &str, batch: &str) -> Result<Allocation, String> {
    let rates = parse_numbers("rates", rates)?;
    let lambda: f64 = lambda
        .trim()
        .parse()
        .map_err(|_| format!("λ: '{}' is not a number", lambda.trim()))?;
    let batch: u32 = batch
        .trim()
        .parse()
        .map_err(|_| format!("k: '{}' is not a whole number", batch.trim()))?;
    allocate(rates, lambda, batch)
}

#[function_component]
pub fn AllocationCalculator() -> Html {
    // SF Table III's ten resources.
    let rates = use_state(|| "1,1,1,1,2,2,2,5,5,10".to_string());
    let lambda = use_state(|| "0.1".to_string());
    let batch = use_state(|| "10".to_string());
    let input = |h: &UseStateHandle<String>| {
        let set = h.setter();
        Callback::from(move |e: Event| set.set(input_value(&e)))
    };
    html! {
        <div class="calculator">
            <h3>{"Allocation calculator"}</h3>
            <p class="help">{"Each resource i is an M/M/1 queue serving jobs at rate μ_i; batches of k jobs arrive at rate λ (Poisson) and each job of a batch goes to resource i with probability α_i. OWA minimizes the mean response time for batch arrivals (SF eq. 11): resources are taken slowest first and one whose fraction comes out negative gets 0 and leaves the sums (the elimination loop of SF Fig. 2). WW (weighted workload, SF eq. 2) sends α_i = μ_i / Σμ. The predicted mean response time is SF eq. 7, T = Σ α_i (α_i k + 1) / (2μ_i − 2α_i k λ). The system must not be saturated: λk < Σμ."}</p>
            <div class="fields">
                <div class="field">
                    <label for="alloc-rates">{"Rates μ (jobs/s, comma-separated)"}</label>
                    <DraftInput id="alloc-rates" value={(*rates).clone()} onchange={input(&rates)} />
                </div>
                <div class="field">
                    <label for="alloc-lambda">{"λ (batches/s)"}</label>
                    <DraftInput id="alloc-lambda" kind="number" step="any" value={(*lambda).clone()} onchange={input(&lambda)} />
                </div>
                <div class="field">
                    <label for="alloc-k">{"k (jobs per batch)"}</label>
                    <DraftInput id="alloc-k" kind="number" step="1" value={(*batch).clone()} onchange={input(&batch)} />
                </div>
            </div>
            { match allocate_fields(&rates, &lambda, &batch) {
                Err(e) => html!{ <div class="error" role="alert" data-testid="alloc-error"><p>{e}</p></div> },
                Ok(a) => answer(a),
            } }
        </div>
    }
}

fn answer(a: Allocation) -> Html {
    let fastest = a
        .rates
        .iter()
        .enumerate()
        .fold(0, |b, (i, r)| if *r > a.rates[b] { i } else { b });
    let t = |t: Option<f64>| t.map_or_else(|| "saturated".into(), fmt4);
    let (owa, ww) = (
        a.owa.get(fastest).copied().unwrap_or(f64::NAN),
        a.ww.get(fastest).copied().unwrap_or(f64::NAN),
    );
    html! {
        <>
            <p data-testid="alloc-fastest">{format!("Fastest resource ({}: μ = {}) gets OWA {owa:.3}, WW {ww:.3} of the jobs.", fastest + 1, a.rates.get(fastest).copied().unwrap_or(f64::NAN))}</p>
            <p data-testid="alloc-response">{format!("Predicted mean response time (eq. 7): OWA {} s, WW {} s.", t(a.t_owa), t(a.t_ww))}</p>
            <ChartView chart={Some(plot(AllocationBars(a.clone())))} testid="chart-alloc" width={640} height={260} />
            <table class="metrics" data-testid="alloc-table">
                <thead><tr><th>{"resource"}</th><th>{"μ"}</th><th>{"OWA α"}</th><th>{"WW α"}</th></tr></thead>
                <tbody>
                    { for a.rates.iter().zip(a.owa.iter().zip(&a.ww)).enumerate().map(|(i, (r, (o, w)))| html!{
                        <tr>
                            <th scope="row">{(i + 1).to_string()}</th>
                            <td>{r.to_string()}</td>
                            <td data-key="owa" data-value={json_num(*o)}>{format!("{o:.4}")}</td>
                            <td data-key="ww" data-value={json_num(*w)}>{format!("{w:.4}")}</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </>
    }
}
