//! The scenario presets: choosing one replaces the whole scenario.

use yew::prelude::*;

use super::form::{hold_preset_keys, select_value, PRESET_KEYS_HELP};
use crate::scenario::SCENARIO_PRESETS;
use crate::web::state::{use_app, AppAction};

#[function_component]
pub fn ScenarioPanel() -> Html {
    let app = use_app();
    let choose = app.callback(|e: Event| AppAction::Preset(select_value(&e)));
    let preset = &app.preset;
    let known = SCENARIO_PRESETS.iter().find(|p| p.0 == preset.as_str());
    html! {
        <div class="fields">
            <h2>{"Scenario"}</h2>
            <label>{"Scenario preset "}
                <select data-testid="scenario-preset" onchange={choose} onkeydown={hold_preset_keys} title={PRESET_KEYS_HELP}>
                    if known.is_none() {
                        <option value="" selected=true disabled=true>{"(shared or custom scenario)"}</option>
                    }
                    { for SCENARIO_PRESETS.iter().map(|(n, _)| html!{
                        <option value={n.to_string()} selected={*n == preset.as_str()}>{*n}</option>
                    }) }
                </select>
            </label>
            <p class="help" data-testid="preset-description">{known.map_or("", |p| p.1)}</p>
        </div>
    }
}
