//! The runs of the scenario: a check box per local policy (no grid scheme) and a row per
//! run with its label, local policy, SOB grid scheme and the scheme's parameters.

use std::rc::Rc;

use yew::prelude::*;

use super::form::{input_value, on_value, parse, select_value, Apply, DraftInput};
use crate::model::PlacementRule;
use crate::policy::grid::{GridParams, GridScheme, IdealDiscipline};
use crate::policy::local::LocalPolicyKind;
use crate::scenario::AlgorithmSpec;
use crate::web::state::{edit, use_app, AppContext};

/// The local policies the page offers: every one listed ([`LocalPolicyKind::EVERY`]),
/// then Slurm's own.
fn page_policies() -> impl Iterator<Item = LocalPolicyKind> {
    LocalPolicyKind::EVERY
        .into_iter()
        .chain([LocalPolicyKind::Slurm])
}

/// What a run's placement means (the column's title and the help under the table).
const PLACEMENT_HELP: &str = "Placement, on sites with node types: which nodes a start takes among those that hold it. first-fit walks the nodes in node order (AccaSim's FirstFit); best-fit takes the nodes with the least free first, ranked by free cores + free KB of memory + free GPUs (AccaSim's BestFit rank, so memory outweighs cores when it is modelled), ties in node order, to keep whole nodes free for wide and memory-hungry jobs. Sites without node types have no nodes to pick: best-fit is refused there (docs/nodes.md).";

#[function_component]
pub fn AlgorithmsPanel() -> Html {
    let app = use_app();
    html! {
        <>
            <h2>{"Algorithms"}</h2>
            <div class="fields algos">
                <p class="help">{"Local policies (one run each, no grid scheme):"}</p>
                { for page_policies().map(|k| policy_check(&app, k)) }
                { rows(&app) }
            </div>
        </>
    }
}

fn policy_check(app: &AppContext, k: LocalPolicyKind) -> Html {
    let is = move |a: &AlgorithmSpec| a.local == k && a.grid == GridScheme::Local;
    let on = app.scenario.algorithms.iter().any(is);
    let cb = app.callback(move |_: Event| {
        edit(move |s| {
            if s.algorithms.iter().any(is) {
                s.algorithms.retain(|a| !is(a));
            } else {
                let sort = s.algorithms.iter().all(|a| a.grid == GridScheme::Local);
                s.algorithms.push(AlgorithmSpec::local(k));
                if sort {
                    s.algorithms
                        .sort_by_key(|a| page_policies().position(|x| x == a.local));
                }
            }
            Ok(())
        })
    });
    html! {
        <label class="check"><input type="checkbox" checked={on} onchange={cb} data-testid={format!("alg-{}", k.name())} />
            <strong>{format!(" {}", k.name())}</strong><span class="help">{format!(" — {}", k.describe())}</span></label>
    }
}

/// Applies `f` to run `i`, keeping its grid parameters valid.
fn row_edit(i: usize, f: fn(&mut AlgorithmSpec, &str) -> Result<(), String>) -> Apply {
    Rc::new(move |s, v| {
        let a = s
            .algorithms
            .get_mut(i)
            .ok_or("that algorithm row is gone")?;
        let mut b = a.clone();
        f(&mut b, v)?;
        b.grid_params.validate()?;
        *a = b;
        Ok(())
    })
}

/// A label that only named the scheme or the algorithm follows a change of either.
fn relabel(a: &mut AlgorithmSpec, old_grid: GridScheme, old_alg: String) {
    if let Some(l) = &a.label {
        if *l == old_grid.name() {
            a.label = Some(a.grid.name().to_string());
        } else if *l == old_alg {
            a.label = None;
        }
    }
}

fn rows(app: &AppContext) -> Html {
    let add = app.callback(|_: MouseEvent| {
        edit(|s| {
            s.algorithms.push(AlgorithmSpec::grid(
                GridScheme::Sender,
                LocalPolicyKind::Easy,
            ));
            Ok(())
        })
    });
    let d = GridParams::default();
    html! {
        <>
            if !app.scenario.algorithms.is_empty() {
                <p class="help">{"Runs, in order (a grid scheme decides which site runs each job; the local policy orders each site's queue):"}</p>
            }
            <table class="algorows" data-testid="algorithm-rows">
                <thead><tr>
                    <th title="Shown in the results; empty = scheme+policy">{"label"}</th>
                    <th title="The local scheduler of every site">{"local policy"}</th>
                    <th title="SOB grid scheme above the local schedulers">{"grid scheme"}</th>
                    <th title={PLACEMENT_HELP}>{"placement"}</th>
                    <th></th>
                </tr></thead>
                <tbody>
                    { for app.scenario.algorithms.iter().enumerate().map(|(i, a)| row(app, i, a)) }
                </tbody>
            </table>
            <button class="small" data-testid="add-algorithm" onclick={add}>{"add a grid run"}</button>
            <details class="scheme-help">
                <summary>{"Grid schemes and their parameters (SOB)"}</summary>
                <dl>
                    { for GridScheme::ALL.iter().map(|g| html!{ <><dt><code>{g.name()}</code></dt><dd>{g.describe()}</dd></> }) }
                </dl>
                <p class="help">{ super::with_doc_links(PLACEMENT_HELP) }</p>
                <p class="help">{format!(
                    "AWT: a site's approximate wait time for the job; ERT: its estimated run time there (speed-scaled); ATT = AWT + ERT; RUS: resource utilization status. Parameters: φ = {} s, δ = {}, σ = {} s are the paper's defaults; ε = {} s and latency {} s are ours. Central ignores φ; the idealized machine ignores all of them.",
                    d.phi_s, d.delta, d.sigma_s, d.epsilon_s, d.latency_s
                )}</p>
            </details>
        </>
    }
}

fn row(app: &AppContext, i: usize, a: &AlgorithmSpec) -> Html {
    let label_cb = on_value(
        app,
        row_edit(i, |a, v| {
            let v = v.trim();
            a.label = (!v.is_empty()).then(|| v.to_string());
            Ok(())
        }),
        input_value,
    );
    let local_cb = on_value(
        app,
        row_edit(i, |a, v| {
            let (g, alg) = (a.grid, a.algorithm());
            a.local = page_policies()
                .find(|k| k.name() == v)
                .ok_or_else(|| format!("unknown local policy '{v}'"))?;
            relabel(a, g, alg);
            Ok(())
        }),
        select_value,
    );
    let grid_cb = on_value(
        app,
        row_edit(i, |a, v| {
            let (g, alg) = (a.grid, a.algorithm());
            a.grid = GridScheme::parse(v)?;
            relabel(a, g, alg);
            Ok(())
        }),
        select_value,
    );
    let placement_cb = on_value(
        app,
        row_edit(i, |a, v| {
            a.placement =
                PlacementRule::parse(v).ok_or_else(|| format!("unknown placement '{v}'"))?;
            Ok(())
        }),
        select_value,
    );
    let remove = app.callback(move |_: MouseEvent| {
        edit(move |s| {
            if i < s.algorithms.len() {
                s.algorithms.remove(i);
            }
            Ok(())
        })
    });
    let uses_params = !matches!(a.grid, GridScheme::Local | GridScheme::Ideal);
    html! { <>
        <tr data-row={i.to_string()}>
            <td><DraftInput label={format!("label of run {}", i + 1)} placeholder={a.algorithm()} value={a.label.clone().unwrap_or_default()} onchange={label_cb} /></td>
            <td><select aria-label={format!("local policy of run {}", i + 1)} onchange={local_cb}>
                { for page_policies().map(|k| html!{ <option value={k.name()} selected={k == a.local}>{k.name()}</option> }) }
            </select></td>
            <td><select aria-label={format!("grid scheme of run {}", i + 1)} data-testid={format!("grid-{i}")} title={a.grid.describe()} onchange={grid_cb}>
                { for GridScheme::ALL.iter().map(|g| html!{ <option value={g.name()} selected={*g == a.grid} title={g.describe()}>{g.name()}</option> }) }
            </select></td>
            <td><select aria-label={format!("placement of run {}", i + 1)} data-testid={format!("placement-{i}")} title={PLACEMENT_HELP} onchange={placement_cb}>
                { for PlacementRule::ALL.iter().map(|r| html!{ <option value={r.name()} selected={*r == a.placement}>{r.name()}</option> }) }
            </select></td>
            <td><button class="small" onclick={remove}>{"remove"}</button></td>
        </tr>
        if uses_params {
            <tr class="params"><td colspan="5"><div class="knobs">{ params(app, i, &a.grid_params) }</div></td></tr>
        }
        if a.grid == GridScheme::Ideal {
            <tr class="params"><td colspan="5"><div class="knobs">{ discipline(app, i, a.grid_params.ideal_discipline) }</div></td></tr>
        }
        if a.local == LocalPolicyKind::Slurm {
            <tr class="slurm-params"><td colspan="5">{ super::slurm_knobs::slurm_params(app, i, a) }</td></tr>
        }
        if matches!(a.grid, GridScheme::Receiver | GridScheme::Symmetric) {
            <tr class="params"><td colspan="5"><div class="knobs">{ hold_at_home(app, i, a.grid_params.hold_at_home) }</div></td></tr>
        }
    </> }
}

/// Where run `i`'s receiver-initiated half keeps a job waiting for a volunteer.
fn hold_at_home(app: &AppContext, i: usize, on: bool) -> Html {
    let onchange = on_value(
        app,
        row_edit(i, |a, _| {
            a.grid_params.hold_at_home = !a.grid_params.hold_at_home;
            Ok(())
        }),
        |_: &Event| String::new(),
    );
    html! {
        <label class="check" title="SOB §2.1.2 can be read two ways: the job waits in the grid queue (the default; released home by the σ re-check) or in its home local queue, where it may start, until a volunteer is better.">
            <input type="checkbox" checked={on} aria-label={format!("hold at home, run {}", i + 1)} data-testid={format!("hold-at-home-{i}")} {onchange} />
            {" waiting jobs wait in their home local queue"}
            <span class="help">{ super::with_doc_links(" — instead of the grid queue (SOB §2.1.2's other reading; docs/sob.md)") }</span>
        </label>
    }
}

/// The idealized machine's discipline of run `i` (SOB gives the machine, not the order).
fn discipline(app: &AppContext, i: usize, current: IdealDiscipline) -> Html {
    let onchange = on_value(
        app,
        row_edit(i, |a, v| {
            a.grid_params.ideal_discipline = IdealDiscipline::ALL
                .iter()
                .copied()
                .find(|d| d.name() == v)
                .ok_or_else(|| format!("unknown discipline '{v}'"))?;
            Ok(())
        }),
        select_value,
    );
    html! {
        <label class="param" title={current.describe()}>{"discipline"}
            <select aria-label={format!("ideal discipline of run {}", i + 1)} data-testid={format!("discipline-{i}")} {onchange}>
                { for IdealDiscipline::ALL.iter().map(|d| html!{ <option value={d.name()} selected={*d == current} title={d.describe()}>{d.name()}</option> }) }
            </select>
            <span class="help">{current.describe()}</span>
        </label>
    }
}

/// The grid scheme's parameters of run `i`.
fn params(app: &AppContext, i: usize, p: &GridParams) -> Html {
    let param = |name: &'static str,
                 title: &'static str,
                 value: f64,
                 f: fn(&mut AlgorithmSpec, &str) -> Result<(), String>| {
        let onchange = on_value(app, row_edit(i, f), input_value);
        html! { <label class="param" title={title}>{name}
        <DraftInput kind="number" step="any" label={format!("{name} of run {}", i + 1)} testid={format!("param-{i}-{name}")} value={value.to_string()} {onchange} /></label> }
    };
    html! { <>
        { param("φ", "φ (s): a job whose home AWT is below φ stays home without asking (SOB: 60 s)", p.phi_s, |a, v| { a.grid_params.phi_s = parse("φ", v)?; Ok(()) }) }
        { param("δ", "δ: a site volunteers (receiver-initiated) when its utilization RUS is below δ (SOB: 0.7)", p.delta, |a, v| { a.grid_params.delta = parse("δ", v)?; Ok(()) }) }
        { param("σ", "σ (s): period of the RUS checks and of waiting jobs' AWT re-checks (SOB: 300 s)", p.sigma_s, |a, v| { a.grid_params.sigma_s = parse("σ", v)?; Ok(()) }) }
        { param("ε", "ε (s): sites whose ATT is within ε of the minimum tie; the lowest RUS wins (ours: 10 s)", p.epsilon_s, |a, v| { a.grid_params.epsilon_s = parse("ε", v)?; Ok(()) }) }
        { param("latency", "one-way message latency (s): a query's answers arrive two latencies later (ours: 0)", p.latency_s, |a, v| { a.grid_params.latency_s = parse("latency", v)?; Ok(()) }) }
    </> }
}
