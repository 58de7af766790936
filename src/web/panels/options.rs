//! Run options: where runtime estimates come from, kills at the estimate, the order of the
//! events of one instant, the seed.

use yew::prelude::*;

use super::form::{num_field, parse, select_value};
use crate::engine::{EstimateSource, EventOrder};
use crate::scenario::WorkloadSpec;
use crate::web::state::{edit, use_app};

#[function_component]
pub fn OptionsPanel() -> Html {
    let app = use_app();
    let o = app.scenario.options;
    let est = app.callback(|e: Event| {
        let exact = select_value(&e) == "exact";
        edit(move |s| {
            s.options.estimates = if exact {
                EstimateSource::Exact
            } else {
                EstimateSource::Trace
            };
            Ok(())
        })
    });
    let kill = app.callback(|_: Event| {
        edit(|s| {
            s.options.kill_at_estimate = !s.options.kill_at_estimate;
            Ok(())
        })
    });
    let order = app.callback(|e: Event| {
        let value = select_value(&e);
        edit(move |s| {
            s.options.event_order = EventOrder::parse(&value)?;
            Ok(())
        })
    });
    let orders = [EventOrder::Gridscope, EventOrder::Pyss, EventOrder::Cqsim];
    html! {
        <>
            <h2>{"Options"}</h2>
            <div class="fields">
                <label>{"Runtime estimates "}
                    <select onchange={est} data-testid="estimates">
                        <option value="trace" selected={o.estimates == EstimateSource::Trace}>{"the trace's (user estimates)"}</option>
                        <option value="exact" selected={o.estimates == EstimateSource::Exact}>{"exact (the real runtime)"}</option>
                    </select>
                </label>
                <p class="help">{"What backfilling and SJF plan with: the user's estimate (SWF field 9; the runtime when missing) or a perfectly informed scheduler."}</p>
                <label class="check"><input type="checkbox" checked={o.kill_at_estimate} onchange={kill} />
                    {" kill jobs at their estimate"}<span class="help">{" — as real batch systems do; off, a job runs to its end and plans are rebuilt when its estimate expires."}</span></label>
                <label>{"Events of one instant "}
                    <select onchange={order} data-testid="event-order">
                        { for orders.iter().map(|&x| html! {
                            <option value={x.name()} selected={o.event_order == x}>{x.name()}</option>
                        }) }
                    </select>
                </label>
                <p class="help">{ super::with_doc_links("gridscope: every completion, then every arrival, then one scheduling pass. pyss: jobs ending exactly at their estimate are free first, then each arrival and each early completion with a pass after it (matches pyss's EASY job for job). cqsim: each completion, then each arrival, with a pass after each. Simulators differ only here; see docs/local-policies.md.") }</p>
                if !matches!(app.scenario.workload, WorkloadSpec::SesPoisson(_) | WorkloadSpec::Lublin(_)) {
                    { num_field(&app, "seed2", "Seed", "Only generators use the seed.", app.scenario.seed.to_string(), "1",
                        |s, v| { s.seed = parse::<u64>("seed", v)?; Ok(()) }) }
                }
            </div>
        </>
    }
}
