//! Energy (issue #40, docs/energy.md): what each node draws (a power model on every node
//! type), idle timeouts after which a node no job holds is switched off, each timeout a
//! run of its own beside the same algorithm always on, and the grid's carbon intensity
//! (a synthetic daily curve or a CSV) with slacks that hold jobs to its cleaner hours. All
//! live in the scenario (the node types' `power`, the algorithms' `power_off_after_s` and
//! `carbon_slack_s`, the scenario's `carbon`), so a share link carries them.

use yew::prelude::*;

use super::form::{select_value, DraftInput};
use crate::energy::{CarbonSeries, PowerModel};
use crate::scenario::carbon::{with_carbon_slacks, CarbonSpec, DailyCurve};
use crate::scenario::energy::{
    parse_seconds_list, parse_watts_list, with_idle_timeouts, with_power_caps,
};
use crate::scenario::{AlgorithmSpec, PlatformSpec, Scenario};
use crate::web::state::{edit, use_app, AppAction};

/// The most bytes of a carbon CSV the page reads (a year by the minute is about 14 MB).
const MAX_CARBON_BYTES: f64 = 32e6;

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
    let timeouts = listed_text(&app.scenario, |a| a.power_off_after_s);
    let set_timeouts = app.callback(|e: Event| {
        let v = super::form::input_value(&e);
        edit(move |s| set_timeouts(s, &v))
    });
    let caps = listed_text(&app.scenario, |a| a.power_cap_w);
    let set_caps = app.callback(|e: Event| {
        let v = super::form::input_value(&e);
        edit(move |s| set_caps(s, &v))
    });
    let slacks = listed_text(&app.scenario, |a| a.carbon_slack_s);
    let set_slacks = app.callback(|e: Event| {
        let v = super::form::input_value(&e);
        edit(move |s| set_slacks(s, &v))
    });
    let carbon = app.scenario.carbon.clone();
    let choose_carbon = app.callback(|e: Event| {
        let v = select_value(&e);
        edit(move |s| set_carbon(s, &v))
    });
    let reader = use_mut_ref(|| None::<gloo::file::callbacks::FileReader>);
    let read_csv = {
        let app = app.clone();
        Callback::from(move |e: Event| {
            let Some((name, file)) =
                super::form::picked_file(&app, &e, MAX_CARBON_BYTES, "a carbon series")
            else {
                return;
            };
            let app = app.clone();
            *reader.borrow_mut() = Some(gloo::file::callbacks::read_as_text(&file, move |r| {
                app.send(match r {
                    Ok(text) => {
                        let name = name.clone();
                        edit(move |s| set_carbon_csv(s, &name, &text))
                    }
                    Err(e) => AppAction::Error(format!("{name}: cannot read the file: {e}")),
                })
            }));
        })
    };
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
                <div class="field">
                    <label for="f-power-cap">{"Power cap per site (W)"}</label>
                    <DraftInput id="f-power-cap" testid="power-cap" value={caps} onchange={set_caps} placeholder="never, 20000" />
                    <span class="help">{"A comma list of watts or never: each algorithm runs once per entry. A start that could take a site over its cap waits: at most K = ⌊(cap − Σ idle W) / the most a busy core adds⌋ cores compute at once, and every policy plans within K (exact for Batsim's host; a bound when Epsilon ≠ Idle). A cap below the idle power is refused; a job wider than K is rejected with the cap as its reason. With idle timeouts too, each node counts at the most it draws holding no core (idle, off or switching off), and a held core also covers a boot, so switching nodes off and on never takes a site over its cap (docs/energy.md)."}</span>
                </div>
                <label>{"Grid carbon intensity "}
                    <select onchange={choose_carbon} data-testid="carbon-source">
                        <option value="" selected={carbon.is_none()}>{"none: no emissions are counted"}</option>
                        <option value="daily" selected={matches!(carbon, Some(CarbonSpec::Daily(_)))}>{CarbonSpec::Daily(DailyCurve::DEFAULT).describe()}</option>
                        if let Some(c @ CarbonSpec::Csv { .. }) = &carbon {
                            <option value="csv" selected=true>{format!("the series of {}", c.describe())}</option>
                        }
                    </select>
                </label>
                <div class="field">
                    <label for="f-carbon-file">{"… or a CSV of start_s,end_s,g_per_kwh"}</label>
                    <input id="f-carbon-file" type="file" accept=".csv,.txt" data-testid="carbon-file" onchange={read_csv} />
                    <span class="help">{"Grams of CO₂ per kWh, each row holding from its start to its end in seconds from the workload's first submission, back to back, covering the run. The series goes into the scenario, so a share link carries it. Each run on powered nodes then reports its emissions: the platform's over the run, and its jobs' work alone (docs/energy.md)."}</span>
                </div>
                <div class="field">
                    <label for="f-carbon-slack">{"Hold jobs for cleaner hours, slack (s)"}</label>
                    <DraftInput id="f-carbon-slack" testid="carbon-slack" value={slacks} onchange={set_slacks} placeholder="never, 21600" />
                    <span class="help">{"A comma list of seconds or never: each algorithm runs once per entry. A job is held until the start within the slack of its submission where the grid's mean intensity over its estimated run is lowest (Wiesner et al., \"Let's Wait Awhile\", Middleware 2021), then handed to its scheduler; its wait counts from its submission. Needs a carbon intensity."}</span>
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
        set_caps(s, "never")?;
    }
    Ok(())
}

/// The values `of` the scenario's algorithms, in the order they first use them: "never,
/// 600" (empty when every one is never).
fn listed_text(s: &Scenario, of: fn(&AlgorithmSpec) -> Option<f64>) -> String {
    let seen = listed(s, of);
    if seen == [None] {
        return String::new();
    }
    let text = |t: &Option<f64>| t.map_or("never".to_string(), |x| x.to_string());
    seen.iter().map(text).collect::<Vec<_>>().join(", ")
}

/// The distinct values `of` the scenario's algorithms, in the order they first use them.
fn listed(s: &Scenario, of: fn(&AlgorithmSpec) -> Option<f64>) -> Vec<Option<f64>> {
    let mut seen: Vec<Option<f64>> = Vec::new();
    for a in &s.algorithms {
        if !seen.contains(&of(a)) {
            seen.push(of(a));
        }
    }
    seen
}

/// A comma list of seconds or never (empty: never).
fn seconds_list(what: &str, text: &str) -> Result<Vec<Option<f64>>, String> {
    parse_seconds_list(or_never(text)).map_err(|e| format!("{what}: {e}"))
}

/// A list field left empty means one run with none of it.
fn or_never(text: &str) -> &str {
    if text.trim().is_empty() {
        "never"
    } else {
        text
    }
}

/// The scenario's idle timeouts, power caps and carbon slacks, each list in the order the
/// algorithms first use its entries.
struct Lists {
    timeouts: Vec<Option<f64>>,
    caps: Vec<Option<f64>>,
    slacks: Vec<Option<f64>>,
}

impl Lists {
    fn of(s: &Scenario) -> Lists {
        Lists {
            timeouts: listed(s, |a| a.power_off_after_s),
            caps: listed(s, |a| a.power_cap_w),
            slacks: listed(s, |a| a.carbon_slack_s),
        }
    }
}

/// Runs each algorithm once per idle timeout, power cap and carbon slack of `lists`, as
/// `simulate --power-off-after … --power-cap … --carbon-slack …` does.
fn expand(s: &mut Scenario, lists: &Lists) {
    let mut bases: Vec<AlgorithmSpec> = Vec::new();
    for a in &s.algorithms {
        let base = AlgorithmSpec {
            power_off_after_s: None,
            carbon_slack_s: None,
            power_cap_w: None,
            ..a.clone()
        };
        if !bases.contains(&base) {
            bases.push(base);
        }
    }
    let timed = with_idle_timeouts(bases, &lists.timeouts);
    s.algorithms = with_carbon_slacks(with_power_caps(timed, &lists.caps), &lists.slacks);
}

/// Runs each algorithm once per power cap of `text` (empty: never).
pub fn set_caps(s: &mut Scenario, text: &str) -> Result<(), String> {
    let caps = parse_watts_list(or_never(text)).map_err(|e| format!("power caps: {e}"))?;
    let capping = caps.iter().any(Option::is_some);
    if capping && current_model(s).is_empty() {
        return Err("power caps: choose a power model first (Power per node): a cap counts the nodes' watts".into());
    }
    let lists = Lists {
        caps,
        ..Lists::of(s)
    };
    if capping && s.failures.is_some() {
        return Err("power caps: a cap does not run with failures yet (docs/energy.md)".into());
    }
    expand(s, &lists);
    Ok(())
}

/// Runs each algorithm once per timeout of `text` (empty: never).
pub fn set_timeouts(s: &mut Scenario, text: &str) -> Result<(), String> {
    let list = seconds_list("idle timeouts", text)?;
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
    let lists = Lists {
        timeouts: list,
        ..Lists::of(s)
    };
    expand(s, &lists);
    Ok(())
}

/// Runs each algorithm once per carbon slack of `text` (empty: never).
pub fn set_slacks(s: &mut Scenario, text: &str) -> Result<(), String> {
    let list = seconds_list("carbon slacks", text)?;
    if list.iter().any(|x| x.is_some_and(|x| x > 0.0)) && s.carbon.is_none() {
        return Err("carbon slacks: choose the grid's carbon intensity first: a job is held for the cleaner hours of it".into());
    }
    let lists = Lists {
        slacks: list,
        ..Lists::of(s)
    };
    expand(s, &lists);
    Ok(())
}

/// The grid's carbon intensity by the select's value: "" none (and no job held), "daily"
/// the synthetic curve, "csv" the series the scenario has.
pub fn set_carbon(s: &mut Scenario, choice: &str) -> Result<(), String> {
    match choice {
        "" => {
            s.carbon = None;
            set_slacks(s, "never")?;
        }
        "daily" => s.carbon = Some(CarbonSpec::Daily(DailyCurve::DEFAULT)),
        _ => {}
    }
    Ok(())
}

/// The grid's carbon intensity from the CSV `text` of file `name`, checked as the CLI
/// checks it (a bad line is named).
pub fn set_carbon_csv(s: &mut Scenario, name: &str, text: &str) -> Result<(), String> {
    CarbonSeries::parse(name, text.as_bytes()).map_err(|e| e.to_string())?;
    s.carbon = Some(CarbonSpec::Csv {
        file: name.to_string(),
        csv: text.to_string(),
    });
    Ok(())
}
