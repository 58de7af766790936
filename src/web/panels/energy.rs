//! Energy (issue #40, docs/energy.md): what each node draws (a power model on every node
//! type), and idle timeouts after which a node no job holds is switched off, each timeout a
//! run of its own beside the same algorithm always on. Both live in the scenario (the node
//! types' `power`, the algorithms' `power_off_after_s`), so a share link carries them.

use yew::prelude::*;

use super::form::{select_value, DraftInput};
use crate::energy::PowerModel;
use crate::scenario::energy::{parse_seconds_list, with_idle_timeouts};
use crate::scenario::{PlatformSpec, Scenario};
use crate::web::state::{edit, use_app};

/// The value of the power select for a model that is no preset (from a scenario file).
const CUSTOM: &str = "custom";

#[function_component]
pub fn EnergyPanel() -> Html {
    let app = use_app();
    let current = current_model(&app.scenario);
    let known = super::failures::trace_sites(&app);
    let choose = app.callback(move |e: Event| {
        let (name, known) = (select_value(&e), known.clone());
        edit(move |s| set_model(s, &name, known.as_deref()))
    });
    let timeouts = timeouts_text(&app.scenario);
    let set_timeouts = app.callback(|e: Event| {
        let v = super::form::input_value(&e);
        edit(move |s| set_timeouts(s, &v))
    });
    html! {
        <>
            <h2>{"Energy"}</h2>
            <div class="fields" data-testid="energy">
                <label>{"Power per node "}
                    <select onchange={choose} data-testid="power-model">
                        <option value="" selected={current.is_empty()}>{"none: no energy is counted"}</option>
                        { for PowerModel::PRESETS.iter().map(|(name, _, about)| html! {
                            <option value={*name} selected={current == *name}>{format!("{name} — {about}")}</option>
                        }) }
                        if current == CUSTOM {
                            <option value={CUSTOM} selected=true>{"the scenario's own models"}</option>
                        }
                    </select>
                </label>
                <p class="help">{ super::with_doc_links("A node with k of its N cores busy draws Epsilon + (AllCores − Epsilon)·k/N watts, Idle with none, Off when switched off; switching off and booting each take a time at a power (SimGrid's host energy model; Batsim's power states). Every node of every site gets the model; the sites are placed on nodes first if they are not (docs/energy.md).") }</p>
                <div class="field">
                    <label for="f-idle-off">{"Switch idle nodes off after (s)"}</label>
                    <DraftInput id="f-idle-off" testid="idle-off" value={timeouts} onchange={set_timeouts} placeholder="never, 600, 3600" />
                    <span class="help">{"A comma list of seconds or never: each algorithm runs once per entry, side by side. A node that no job has held that long switches off; a job placed on it waits for its boot (its wait includes the boot), and first-fit takes the nodes that are on first. Needs a power model with switching times."}</span>
                </div>
            </div>
        </>
    }
}

/// The preset every node type of the scenario draws by, `CUSTOM` for models of its own, ""
/// for none.
fn current_model(s: &Scenario) -> String {
    let PlatformSpec::Sites { sites, .. } = &s.platform else {
        return String::new();
    };
    let mut models = sites
        .iter()
        .flat_map(|s| s.node_types.iter().map(|t| t.power));
    let Some(first) = models.next() else {
        return String::new();
    };
    if models.any(|m| m != first) {
        return CUSTOM.into();
    }
    match first {
        None => String::new(),
        Some(m) => PowerModel::PRESETS
            .iter()
            .find(|p| p.1 == m)
            .map_or(CUSTOM.into(), |p| p.0.to_string()),
    }
}

/// Gives every node type the preset `name` ("": none), placing the sites on nodes first.
/// Without a model no node can be switched off, so the idle timeouts go too.
pub fn set_model(
    s: &mut Scenario,
    name: &str,
    known: Option<&[crate::model::Site]>,
) -> Result<(), String> {
    if name == CUSTOM {
        return Ok(());
    }
    let model = match name {
        "" => None,
        _ => Some(PowerModel::preset(name).ok_or_else(|| format!("no power model '{name}'"))?),
    };
    if model.is_some() && !s.has_node_types() {
        super::failures::place_on_nodes(s, known)?;
    }
    if let PlatformSpec::Sites { sites, .. } = &mut s.platform {
        for t in sites.iter_mut().flat_map(|s| s.node_types.iter_mut()) {
            t.power = model;
        }
    }
    if model.is_none() {
        set_timeouts(s, "never")?;
    }
    Ok(())
}

/// The scenario's idle timeouts in the order its algorithms first use them: "never, 600".
fn timeouts_text(s: &Scenario) -> String {
    let mut seen: Vec<Option<f64>> = Vec::new();
    for a in &s.algorithms {
        if !seen.contains(&a.power_off_after_s) {
            seen.push(a.power_off_after_s);
        }
    }
    if seen == [None] {
        return String::new();
    }
    let text = |t: &Option<f64>| t.map_or("never".to_string(), |x| x.to_string());
    seen.iter().map(text).collect::<Vec<_>>().join(", ")
}

/// Runs each algorithm once per timeout of `text` (empty: never).
pub fn set_timeouts(s: &mut Scenario, text: &str) -> Result<(), String> {
    let text = if text.trim().is_empty() {
        "never"
    } else {
        text
    };
    let list = parse_seconds_list(text).map_err(|e| format!("idle timeouts: {e}"))?;
    let switching = list.iter().any(Option::is_some);
    if switching && current_model(s).is_empty() {
        return Err("idle timeouts: choose a power model first (Power per node): a node without one cannot be switched off".into());
    }
    if switching && s.failures.is_some() {
        return Err(
            "idle timeouts: switching nodes off does not run with failures yet (docs/energy.md)"
                .into(),
        );
    }
    let mut bases: Vec<_> = Vec::new();
    for a in &s.algorithms {
        let base = crate::scenario::AlgorithmSpec {
            power_off_after_s: None,
            ..a.clone()
        };
        if !bases.contains(&base) {
            bases.push(base);
        }
    }
    s.algorithms = with_idle_timeouts(bases, &list);
    Ok(())
}
