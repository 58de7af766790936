//! One run over time: per-site utilization and queue length, and the Gantt chart of one
//! site, which the worker lays out for a time window the user zooms and pans.

use std::rc::Rc;

use yew::prelude::*;

use super::bars::index_select;
use crate::web::charts::{plot, CarbonCurve, ChartView, Gantt, NodeStates, Quantity, SeriesChart};
use crate::web::hub::WorkerEvent;
use crate::web::protocol::{FromWorker, GanttData, RunResult, ToWorker};
use crate::web::state::{use_app, use_worker_events, AppAction, AppContext};

/// Large runs open the Gantt chart on their first 5 % (about the first few hundred jobs).
fn default_window(app: &AppContext) -> (f64, f64) {
    let makespan = app
        .results
        .runs
        .get(app.selected_run)
        .map_or(0.0, |r| r.report.metrics.makespan_s);
    let frac = if app.results.jobs > 5000 { 0.05 } else { 1.0 };
    (0.0, (makespan * frac).max(1.0))
}

#[function_component]
pub fn TimelinePanel() -> Html {
    let app = use_app();
    let site = use_state(|| 0usize);
    // The Gantt chart's window (seconds) and the layout the worker sent for it.
    let window = use_state(|| None::<(f64, f64)>);
    let gantt = use_state(|| None::<Rc<GanttData>>);
    {
        let set = gantt.setter();
        use_worker_events(&app, move |ev| {
            if let WorkerEvent::Message(m) = ev {
                if let FromWorker::Gantt(g) = m.as_ref() {
                    set.set(Some(Rc::new((**g).clone())));
                }
            }
        });
    }
    {
        // A new run starts on its default window and without the last run's layout.
        let (window, gantt) = (window.setter(), gantt.setter());
        use_effect_with(app.results.id, move |_| {
            window.set(None);
            gantt.set(None);
        });
    }
    let sites = app.results.site_names();
    let site_now = (*site).min(sites.len().saturating_sub(1));
    {
        let (app, set) = (app.clone(), window.setter());
        let deps = (
            app.results.id,
            app.results.done(),
            app.selected_run,
            site_now,
            *window,
        );
        use_effect_with(deps, move |&(_, done, run, site, w)| {
            let has_site = app
                .results
                .platform
                .as_ref()
                .is_some_and(|p| site < p.sites.len());
            if done && has_site && run < app.results.runs.len() {
                match w {
                    None => set.set(Some(default_window(&app))),
                    Some((from_s, to_s)) => app.to_worker(ToWorker::Gantt {
                        run,
                        site,
                        from_s,
                        to_s,
                    }),
                }
            }
        });
    }
    let runs = &app.results.runs;
    if runs.is_empty() {
        return html! {};
    }
    let run = runs.get(app.selected_run);
    let select_run = app.callback(AppAction::SelectRun);
    let set_site = site.setter();
    let gantt_chart = (*gantt).clone().map(|data| {
        let site = sites.get(data.site).cloned().unwrap_or_default();
        let run = runs
            .get(data.run)
            .map(|r| r.label().to_string())
            .unwrap_or_default();
        plot(Gantt { data, site, run })
    });
    let series = |quantity| {
        run.map(|run| {
            plot(SeriesChart {
                run: run.clone(),
                quantity,
            })
        })
    };
    // Nodes up over time, when nodes went down in this run (issue #41).
    let failed = run.is_some_and(|r| r.series.sites.iter().any(|s| !s.nodes_up.is_empty()));
    html! {
        <>
            <div class="controls">
                { index_select("algorithm", &app.results.labels(), app.selected_run, select_run) }
                { index_select("site", &sites, site_now, Callback::from(move |i| set_site.set(i))) }
            </div>
            <ChartView chart={series(Quantity::Utilization)} testid="chart-util" width={640} height={260} />
            <ChartView chart={series(Quantity::Queue)} testid="chart-queue" width={640} height={260} />
            if failed {
                <ChartView chart={series(Quantity::NodesUp)} testid="chart-nodes-up" width={640} height={260} />
                <p class="help">{"Nodes up: 1 − nodes down / nodes of the site, time-averaged per bucket; the failures' down times (docs/failures.md)."}</p>
            }
            { resource_charts(run) }
            { power_charts(run, site_now) }
            { zoom_controls(&app, &window) }
            if app.results.is_ideal(app.selected_run) {
                <p class="help" data-testid="gantt-ideal">{"The idealized scheme has no processors to draw: its jobs share one virtual machine of Σ CPUs × MHz, each from its submit time (processor sharing), so this chart shows nothing for it."}</p>
            }
            <ChartView chart={gantt_chart} testid="chart-gantt" width={960} height={360} wide=true onpick={app.callback(AppAction::ExplainJob)} />
            if gantt.as_ref().is_some_and(|g| g.unit.starts_with("cores")) {
                <p class="help">{"On nodes, each job is drawn on the nodes the engine placed it on (a node's cores are its rows; within a node, where its cores sit is drawn for legibility). A red frame is a run a failure killed; grey is a node down. Click a job to see why it waited (under Step through, below)."}</p>
            } else {
                <p class="help">{"The engine counts processors; the Gantt chart places each job on the lowest free ones for drawing. Click a job to see why it waited (under Step through, below)."}</p>
            }
        </>
    }
}

/// Memory and GPUs held, and cores, memory and GPUs stranded, over `run`, on node-typed
/// sites that have memory or GPUs (issue #37); nothing otherwise.
fn resource_charts(run: Option<&Rc<RunResult>>) -> Html {
    let has = |q: Quantity| run.is_some_and(|r| r.series.sites.iter().any(|s| !q.of(s).is_empty()));
    let series = |quantity| {
        run.map(|run| {
            plot(SeriesChart {
                run: run.clone(),
                quantity,
            })
        })
    };
    html! {
        <>
            if has(Quantity::Memory) {
                <ChartView chart={series(Quantity::Memory)} testid="chart-memory" width={640} height={260} />
            }
            if has(Quantity::Gpus) {
                <ChartView chart={series(Quantity::Gpus)} testid="chart-gpus" width={640} height={260} />
            }
            if has(Quantity::Stranded) {
                <ChartView chart={series(Quantity::Stranded)} testid="chart-stranded" width={640} height={260} />
            }
            if has(Quantity::MemoryStranded) {
                <ChartView chart={series(Quantity::MemoryStranded)} testid="chart-memory-stranded" width={640} height={260} />
            }
            if has(Quantity::GpusStranded) {
                <ChartView chart={series(Quantity::GpusStranded)} testid="chart-gpus-stranded" width={640} height={260} />
            }
            if has(Quantity::Memory) || has(Quantity::Gpus) {
                <p class="help">{"Memory held / the site's memory and GPUs held / its GPUs, time-averaged per bucket: Σ held × time in the bucket / (capacity × bucket). Cores stranded: idle cores on nodes whose free memory is below one core's share or whose GPUs are all taken, / the site's cores, likewise. Memory and GPUs stranded: free memory and free GPUs on nodes with every core taken, / the site's memory and GPUs, likewise. Averaged over the run they are the resources table's memory held, GPUs held and cores, memory and GPUs stranded (docs/nodes.md, Utilization per resource)."}</p>
            }
        </>
    }
}

/// Power and nodes by power state over `run`, when the nodes of its site `site` have power
/// models (issue #40); nothing otherwise.
fn power_charts(run: Option<&Rc<RunResult>>, site: usize) -> Html {
    let Some(run) = run.filter(|r| {
        r.series
            .sites
            .get(site)
            .is_some_and(|s| !s.node_states.is_empty())
    }) else {
        return html! {};
    };
    let power = plot(SeriesChart {
        run: run.clone(),
        quantity: Quantity::Power,
    });
    let states = plot(NodeStates {
        run: run.clone(),
        site,
    });
    let carbon =
        (!run.series.carbon_g_per_kwh.is_empty()).then(|| plot(CarbonCurve { run: run.clone() }));
    html! {
        <>
            <ChartView chart={Some(power)} testid="chart-power" width={640} height={260} />
            if carbon.is_some() {
                <ChartView chart={carbon} testid="chart-carbon" width={640} height={200} />
                <p class="help">{"Grid carbon intensity: the scenario's series (g CO₂ per kWh) time-averaged per bucket, on the run's clock; the power above, times it, is the run's emissions (docs/energy.md)."}</p>
            }
            <ChartView chart={Some(states)} testid="chart-node-states" width={640} height={260} />
            <p class="help">{"Power: the site's watts (in kW) time-averaged per bucket, each node drawing by its power model. Nodes by power state: the mean number of nodes computing (a core busy), idle (on, no core busy), switching (switching off or booting) and off (asleep) per bucket (docs/energy.md)."}</p>
        </>
    }
}

/// Earlier, later, zoom in and out, the whole run; and the window shown.
fn zoom_controls(app: &AppContext, window: &UseStateHandle<Option<(f64, f64)>>) -> Html {
    let makespan = app
        .results
        .runs
        .get(app.selected_run)
        .map_or(1.0, |r| r.report.metrics.makespan_s)
        .max(1.0);
    let change = |f: fn((f64, f64), f64) -> (f64, f64)| {
        let window = window.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(w) = *window {
                window.set(Some(f(w, makespan)));
            }
        })
    };
    let whole = {
        let window = window.setter();
        Callback::from(move |_: MouseEvent| window.set(Some((0.0, makespan))))
    };
    let at_end = window.is_some_and(|(_, b)| b >= makespan);
    let at_start = window.is_some_and(|(a, _)| a <= 0.0);
    html! {
        <div class="controls">
            <button class="small" onclick={change(|w, end| pan(w, -0.5, end))} disabled={at_start} data-testid="gantt-earlier">{"◀ earlier"}</button>
            <button class="small" onclick={change(|w, _| zoom(w, 0.5))}>{"zoom in"}</button>
            <button class="small" onclick={change(|w, _| zoom(w, 2.0))}>{"zoom out"}</button>
            <button class="small" onclick={change(|w, end| pan(w, 0.5, end))} disabled={at_end} data-testid="gantt-later">{"later ▶"}</button>
            <button class="small" onclick={whole}>{"whole run"}</button>
            if let Some((a, b)) = **window { <span class="help">{format!(" {:.1} h – {:.1} h", a / 3600.0, b / 3600.0)}</span> }
        </div>
    }
}

/// The window `f` times as wide around its middle (at least a minute), never before 0.
fn zoom((a, b): (f64, f64), f: f64) -> (f64, f64) {
    let mid = (a + b) / 2.0;
    let half = ((b - a) / 2.0 * f).max(30.0);
    ((mid - half).max(0.0), mid + half)
}

/// The window moved by `f` of its width, never before 0 nor past the run's `end` (a window
/// already past it stays where it is).
fn pan((a, b): (f64, f64), f: f64, end: f64) -> (f64, f64) {
    let d = (b - a) * f;
    let d = if a + d < 0.0 { -a } else { d };
    let d = if d > 0.0 && b + d > end {
        (end - b).max(0.0)
    } else {
        d
    };
    (a + d, b + d)
}
