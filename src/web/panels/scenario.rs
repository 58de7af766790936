//! The scenario presets: choosing one replaces the whole scenario.

use yew::prelude::*;

use super::form::{hold_preset_keys, select_value, PRESET_KEYS_HELP};
use crate::scenario::{Scenario, SCENARIO_PRESETS};
use crate::web::state::{use_app, AppAction};

#[function_component]
pub fn ScenarioPanel() -> Html {
    let app = use_app();
    let choose = app.callback(|e: Event| AppAction::Preset(select_value(&e)));
    let preset = &app.preset;
    // The selector names a preset only while the scenario is that preset's: a dropped
    // trace, a changed field or a failure model makes it the visitor's own.
    let same = Scenario::preset(preset).is_some_and(|p| p == app.scenario);
    let known = SCENARIO_PRESETS
        .iter()
        .find(|p| p.0 == preset.as_str())
        .filter(|_| same);
    let edited_from = SCENARIO_PRESETS
        .iter()
        .find(|p| p.0 == preset.as_str())
        .filter(|_| !same)
        .map(|p| p.0);
    html! {
        <div class="fields">
            <h2>{"Scenario"}</h2>
            <label>{"Scenario preset "}
                <select data-testid="scenario-preset" onchange={choose} onkeydown={hold_preset_keys} title={PRESET_KEYS_HELP}>
                    if known.is_none() {
                        <option value="" selected=true disabled=true>{ match edited_from {
                            Some(p) => format!("(your scenario, from {p})"),
                            None => "(shared or custom scenario)".to_string(),
                        } }</option>
                    }
                    { for SCENARIO_PRESETS.iter().map(|(n, _)| html!{
                        <option value={n.to_string()} selected={known.is_some() && *n == preset.as_str()}>{*n}</option>
                    }) }
                </select>
            </label>
            <p class="help" data-testid="preset-description">{ match (known, edited_from) {
                (Some(p), _) => p.1.to_string(),
                (None, Some(p)) => format!("Changed from the preset {p}; choose a preset to start again from it."),
                (None, None) => String::new(),
            } }</p>
        </div>
    }
}
