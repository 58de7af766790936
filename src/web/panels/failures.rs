//! Failures (issue #41, docs/failures.md): nodes drawn down and up by a failure model, what
//! becomes of the jobs a failure kills, and checkpointing. The scenario's `failures` object
//! (version 4); known outages read from a file (CSV, Alea's, Batsim's) or come with a
//! scenario file or a link.

use yew::prelude::*;

use super::form::{num_field, parse, picked_file, select_value};
use crate::failure::{Checkpointing, FailureModel, Interval, OnFailure, RequeueAt, MAX_REQUEUE};
use crate::model::{NodeType, Site};
use crate::policy::grid::GridScheme;
use crate::scenario::failures::{FailureSpec, ModelSpec, OutageSpec};
use crate::scenario::{platform_preset, PlatformSpec, Scenario};
use crate::web::state::{edit, use_app, AppAction, AppContext};

/// The checkpoint cost C and restart cost R a new checkpoint plan starts with (seconds).
const DEFAULT_COST_S: f64 = 60.0;

#[function_component]
pub fn FailuresPanel() -> Html {
    let app = use_app();
    let spec = app.scenario.failures.clone();
    let model_name = match spec.as_ref().and_then(|f| f.model.as_ref()) {
        None => String::new(),
        Some(ModelSpec::Preset(name)) => name.clone(),
        Some(ModelSpec::Model(m)) => m.name.clone(),
    };
    let known = trace_sites(&app);
    let choose = {
        let known = known.clone();
        app.callback(move |e: Event| {
            let (name, known) = (select_value(&e), known.clone());
            edit(move |s| set_model(s, &name, known.as_deref()))
        })
    };
    let outages = spec.as_ref().map_or(0, |f| f.outages.len());
    let read = use_state(|| None::<String>);
    let reader = use_mut_ref(|| None::<gloo::file::callbacks::FileReader>);
    let pick = {
        let (app, known, read) = (app.clone(), known.clone(), read.clone());
        Callback::from(move |e: Event| {
            let Some((name, file)) = picked_file(&app, &e, MAX_OUTAGE_BYTES, "an outage file")
            else {
                return;
            };
            let (app, known, read) = (app.clone(), known.clone(), read.clone());
            *reader.borrow_mut() = Some(gloo::file::callbacks::read_as_bytes(&file, move |r| {
                let Ok(bytes) = r else {
                    app.send(AppAction::Error(format!("{name}: cannot read the file")));
                    return;
                };
                let (name, known, read) = (name.clone(), known.clone(), read.clone());
                read.set(None);
                app.send(edit(move |s| {
                    let summary = set_outage_file(s, &name, &bytes, known.as_deref())?;
                    read.set(Some(summary));
                    Ok(())
                }));
            }));
        })
    };
    let clear = {
        let read = read.clone();
        app.callback(move |_: MouseEvent| {
            read.set(None);
            edit(|s| {
                match s.failures.as_mut() {
                    Some(f) if f.model.is_some() => f.outages.clear(),
                    _ => s.failures = None,
                }
                Ok(())
            })
        })
    };
    html! {
        <>
            <h2>{"Failures"}</h2>
            <div class="fields" data-testid="failures">
                if !on_nodes(&app.scenario) {
                    { needs_nodes(&app, known) }
                }
                <p class="help">{"On nodes, fcfs, easy, conservative, sjf, firstfit and slurm run (conservative's and Slurm's backfill reservations hold particular nodes and keep clear of maintenance windows), alone or under SOB's sender, receiver, symmetric and central schemes (a site whose nodes can never hold a job is not asked); the idealized machine and SES's node groups do not place jobs on nodes (docs/nodes.md), so placing the sites on nodes leaves them out of the algorithms."}</p>
                <label>{"Failure model "}
                    <select onchange={choose} data-testid="failure-model">
                        <option value="" selected={model_name.is_empty()}>{"none: nodes never fail"}</option>
                        { for FailureModel::presets().map(|(name, about)| html! {
                            <option value={name} selected={model_name == name}>{format!("{name} — {about}")}</option>
                        }) }
                        if spec.as_ref().is_some_and(|f| matches!(f.model, Some(ModelSpec::Model(_)))) {
                            <option value={model_name.clone()} selected=true>{format!("{model_name} (from the scenario)")}</option>
                        }
                    </select>
                </label>
                <p class="help">{ super::with_doc_links(&model_help(spec.as_ref())) }</p>
                <div class="field">
                    <label for="f-outage-file">{"Known outages from a file"}</label>
                    <input id="f-outage-file" type="file" accept=".csv,.txt,.failures,.json,.jsonl" data-testid="outage-file" onchange={pick} />
                    <span class="help">{"Gridscope's CSV (node,start,end,kind: node a number of the first site or site:node, seconds from the workload's start, kind failure or maintenance), Alea's .failures (start, cluster, duration, machine ids; failures under 60 s skipped as Alea skips them) or Batsim's machine_unavailable/machine_available events (JSON lines). Maintenance is known in advance and planned around; failures are not. A bad line is named and nothing is read from the file. Times are rounded out to whole seconds and go into the scenario, so a share link carries them; the sites are placed on nodes first if they are not (docs/failures.md)."}</span>
                </div>
                if let Some(r) = &*read {
                    <p class="help" data-testid="outage-file-report">{r.clone()}</p>
                }
                if app.scenario.failures.is_some() {
                    <super::outages::OutageTable />
                }
                if outages > 0 {
                    <p class="help" data-testid="failures-outages">{format!("The scenario lists {outages} known outage{} (node, start, end, failure or maintenance). ", if outages == 1 { "" } else { "s" })}
                        <button class="small" onclick={clear} data-testid="clear-outages">{"drop them"}</button></p>
                }
                if let Some(f) = spec {
                    { details(&app, &f) }
                }
            </div>
        </>
    }
}

/// The most bytes the page reads from an outage file.
const MAX_OUTAGE_BYTES: f64 = 64e6;

/// Reads an outage file (`failure::read_outage_file`: CSV, Alea's or Batsim's, the times
/// of Alea's from 0) against the scenario's sites, placed on nodes first if they are not,
/// and makes its outages the scenario's known outages: what the reading decided, or the
/// error naming the line (then nothing changes).
fn set_outage_file(
    s: &mut Scenario,
    name: &str,
    bytes: &[u8],
    known: Option<&[Site]>,
) -> Result<String, String> {
    let mut placed = s.clone();
    if !placed.has_node_types() {
        place_on_nodes(&mut placed, known)?;
    }
    let sites = match &placed.platform {
        PlatformSpec::Sites { sites, .. } => sites.clone(),
        PlatformSpec::Preset { name } => platform_preset(name)
            .map(|p| p.sites)
            .ok_or_else(|| format!("no platform preset '{name}'"))?,
        PlatformSpec::FromTrace { .. } => {
            return Err(
                "give the site's processors first: outages need a known number of nodes".into(),
            )
        }
    };
    let counts: Vec<(&str, u32)> = sites
        .iter()
        .map(|s| (s.name.as_str(), if s.has_nodes() { s.nodes } else { 0 }))
        .collect();
    let nodes = crate::failure::NodeCounts { sites: &counts };
    let (windows, report) =
        crate::failure::read_outage_file(name, bytes, &nodes, 0).map_err(|e| e.to_string())?;
    let one_site = sites.len() == 1;
    let outages = windows
        .iter()
        .map(|o| OutageSpec {
            site: (!one_site).then(|| sites[o.site as usize].name.clone()),
            node: o.node,
            start_s: o.start.as_secs_f64().floor() as i64,
            end_s: o.end.as_secs_f64().ceil() as i64,
            kind: o.kind,
        })
        .collect();
    *s = placed;
    let f = s.failures.get_or_insert_with(no_failures);
    f.outages = outages;
    Ok(format!("{name}: {}", report.summary()))
}

/// A scenario's failures with nothing in them yet.
fn no_failures() -> FailureSpec {
    FailureSpec {
        model: None,
        seed: 1,
        outages: Vec::new(),
        on_failure: OnFailure::Requeue,
        max_requeue: MAX_REQUEUE,
        requeue_at: RequeueAt::Back,
        checkpoint: None,
    }
}

/// True when a site of the scenario's platform is placed on nodes (failures need nodes).
fn on_nodes(s: &Scenario) -> bool {
    s.has_node_types()
}

/// The sites the last run sized from the trace, when the platform is still "one site
/// sized from the trace": placing it on nodes needs its size.
pub fn trace_sites(app: &AppContext) -> Option<Vec<Site>> {
    match (&app.scenario.platform, &app.results.platform) {
        (PlatformSpec::FromTrace { procs: None }, Some(p)) => Some(p.sites.clone()),
        _ => None,
    }
}

/// The note and the button that places every site on nodes of its size.
fn needs_nodes(app: &AppContext, known: Option<Vec<Site>>) -> Html {
    let place = app.callback(move |_: MouseEvent| {
        let known = known.clone();
        edit(move |s| place_on_nodes(s, known.as_deref()))
    });
    html! {
        <p class="help" data-testid="failures-need-nodes">
            {"A failure takes a node down, so failures need sites placed on nodes (cores, memory and GPUs per node; docs/nodes.md). "}
            <button class="small" onclick={place} data-testid="place-on-nodes">{"place the sites on nodes"}</button>
        </p>
    }
}

/// Makes the platform custom sites whose nodes exist: each site's `nodes × cpus_per_node`
/// becomes one node type of that many nodes and cores (no memory, no GPUs), shared
/// between jobs. The jobs run as before on a processor site; on a node site (one job per
/// node) jobs may now share nodes. `known`: the sites a trace-sized platform ran on.
/// Algorithms that do not place jobs on nodes are left out (an error when none is left).
pub fn place_on_nodes(s: &mut Scenario, known: Option<&[Site]>) -> Result<(), String> {
    let algorithms: Vec<_> = s
        .algorithms
        .iter()
        .filter(|a| {
            a.grid != GridScheme::Ideal
                && !a.grid.is_group_selection()
                && a.local.build().places_on_nodes()
        })
        .cloned()
        .collect();
    if algorithms.is_empty() {
        return Err("none of the algorithms places jobs on nodes yet: add fcfs, easy, sjf or firstfit first (docs/nodes.md)".into());
    }
    let mut sites = match &s.platform {
        PlatformSpec::Preset { name } => platform_preset(name)
            .map(|p| p.sites)
            .ok_or_else(|| format!("no platform preset '{name}'"))?,
        PlatformSpec::Sites { sites, .. } => sites.clone(),
        PlatformSpec::FromTrace { procs } => match (procs, known) {
            (Some(p), _) => vec![Site::flat("site", *p)],
            (None, Some(sites)) => sites.to_vec(),
            (None, None) => {
                return Err("give the site's processors first (Platform, 'Processors'): failures need a known number of nodes".into())
            }
        },
    };
    for site in &mut sites {
        if !site.has_nodes() {
            site.node_types = vec![NodeType {
                name: String::new(),
                count: site.nodes,
                cores: site.cpus_per_node,
                mem_kb: 0,
                gpus: 0,
                power: None,
                exclusive: false,
            }];
            // A node-exclusive site stays one (its nodes typed, each still runs one job);
            // SES node groups become one type of shared nodes, as before.
            if !site.groups.is_empty() {
                site.allocation = crate::model::Allocation::Processor;
            }
            site.groups.clear();
        }
    }
    s.platform = PlatformSpec::Sites {
        name: "custom".into(),
        sites,
    };
    s.algorithms = algorithms;
    Ok(())
}

/// Sets the failure model by a preset's name (empty: no failures).
fn set_model(s: &mut Scenario, name: &str, known: Option<&[Site]>) -> Result<(), String> {
    if name.is_empty() {
        // Known outages from a file stay; only the model goes.
        match s.failures.as_mut() {
            Some(f) if !f.outages.is_empty() => f.model = None,
            _ => s.failures = None,
        }
        return Ok(());
    }
    if FailureModel::preset(name).is_none() {
        // The scenario's own model, chosen again: nothing changes.
        return Ok(());
    }
    // Nodes first: an error there leaves the scenario as it was.
    if !s.has_node_types() {
        place_on_nodes(s, known)?;
    }
    let f = s.failures.get_or_insert_with(no_failures);
    f.model = Some(ModelSpec::Preset(name.to_string()));
    Ok(())
}

/// What the chosen model draws: its MTBF and MTTR, and the source of its fits.
fn model_help(spec: Option<&FailureSpec>) -> String {
    let model = spec.and_then(|f| match &f.model {
        Some(ModelSpec::Preset(n)) => FailureModel::preset(n),
        Some(ModelSpec::Model(m)) => Some(m.clone()),
        None => None,
    });
    let base = "Each node's up and down times are drawn from its own seeded stream (the same draws for every algorithm of the run). The presets are the Failure Trace Archive's fits of LANL's 2005 system logs (Javadi et al., JPDC 2013; OpenDC's prefab models), in hours; docs/failures.md.";
    match model {
        None => base.to_string(),
        Some(m) => format!(
            "{base} This model: mean time between failures per node M = {:.0} h, mean time to repair {:.1} h.",
            m.mtbf_s() / 3600.0,
            m.mttr_s() / 3600.0
        ),
    }
}

/// Applies `f` to the scenario's failures (when it has some).
fn with_failures(
    f: impl Fn(&mut FailureSpec, &str) -> Result<(), String> + 'static,
) -> impl Fn(&mut Scenario, &str) -> Result<(), String> + 'static {
    move |s, v| match s.failures.as_mut() {
        Some(spec) => f(spec, v),
        None => Ok(()),
    }
}

/// The seed, what a failure does to a job, and checkpointing.
fn details(app: &AppContext, f: &FailureSpec) -> Html {
    let on_failure = app.callback(|e: Event| {
        let v = select_value(&e);
        edit(move |s| {
            with_failures(|f, v| {
                f.on_failure = if v == "lost" {
                    OnFailure::Lost
                } else {
                    OnFailure::Requeue
                };
                Ok(())
            })(s, &v)
        })
    });
    let requeue_at = app.callback(|e: Event| {
        let v = select_value(&e);
        edit(move |s| {
            with_failures(|f, v| {
                f.requeue_at = match v {
                    "front" => RequeueAt::Front,
                    "grid" => RequeueAt::Grid,
                    _ => RequeueAt::Back,
                };
                Ok(())
            })(s, &v)
        })
    });
    let requeue = f.on_failure == OnFailure::Requeue;
    html! {
        <>
            { num_field(app, "failure-seed", "Failure seed", "The seed of every node's failure draws: another seed, other failures at the same rates.",
                f.seed.to_string(), "1", with_failures(|f, v| { f.seed = parse("failure seed", v)?; Ok(()) })) }
            <label>{"A killed job "}
                <select onchange={on_failure} data-testid="on-failure">
                    <option value="requeue" selected={requeue}>{"is requeued (runs again, from its last checkpoint if any)"}</option>
                    <option value="lost" selected={!requeue}>{"is lost (ends unfinished)"}</option>
                </select>
            </label>
            <p class="help">{"Requeue is Slurm's --requeue: the job goes back to its queue and its wait counts from its submission, restarts included; after the requeue limit it is lost. Lost jobs are reported with their reason, never dropped."}</p>
            if requeue {
                <label>{"Requeued at "}
                    <select onchange={requeue_at} data-testid="requeue-at">
                        <option value="back" selected={f.requeue_at == RequeueAt::Back}>{"the back of its queue"}</option>
                        <option value="front" selected={f.requeue_at == RequeueAt::Front}>{"the front of its queue"}</option>
                        <option value="grid" selected={f.requeue_at == RequeueAt::Grid}>{"the grid again (its scheme picks the site)"}</option>
                    </select>
                </label>
                <p class="help">{"Back: behind every waiting job, as a new submission (Slurm's --requeue). Front: ahead of them all, as Alea restarts jobs. The grid again: the grid scheme decides anew, as for a job submitted now, and may send it to another site (the back of that site's queue); its checkpointed work goes with it, rescaled to that site's speed (work at speed s₁ for t s takes t·s₁/s₂ s at speed s₂). On one site, or under the local scheme, it is the back of its home's queue."}</p>
                { num_field(app, "max-requeue", "Requeue limit", "Times a job is requeued before it is lost (Slurm's MaxBatchRequeue, 5).",
                    f.max_requeue.to_string(), "1", with_failures(|f, v| { f.max_requeue = parse("requeue limit", v)?; Ok(()) })) }
            }
            { checkpointing(app, f) }
        </>
    }
}

/// The checkpoint interval (none, Young, Daly or fixed) and its costs.
fn checkpointing(app: &AppContext, f: &FailureSpec) -> Html {
    let kind = match f.checkpoint.map(|c| c.interval) {
        None => "none",
        Some(Interval::Young) => "young",
        Some(Interval::Daly) => "daly",
        Some(Interval::Fixed(_)) => "fixed",
    };
    let choose = app.callback(|e: Event| {
        let v = select_value(&e);
        edit(move |s| {
            with_failures(|f, v| {
                let interval = match v {
                    "young" => Interval::Young,
                    "daly" => Interval::Daly,
                    "fixed" => Interval::Fixed(3600.0),
                    _ => {
                        f.checkpoint = None;
                        return Ok(());
                    }
                };
                let old = f.checkpoint.unwrap_or(Checkpointing::every(
                    interval,
                    DEFAULT_COST_S,
                    DEFAULT_COST_S,
                ));
                f.checkpoint = Some(Checkpointing {
                    interval,
                    // A fixed interval is the same for every job.
                    per_job: old.per_job && !matches!(interval, Interval::Fixed(_)),
                    ..old
                });
                Ok(())
            })(s, &v)
        })
    });
    let opt = |v: &'static str, text: &'static str| html! { <option value={v} selected={kind == v}>{text}</option> };
    html! {
        <>
            <label>{"Checkpointing "}
                <select onchange={choose} data-testid="checkpoint">
                    { opt("none", "none: a killed job starts again from scratch") }
                    { opt("young", "Young's interval √(2·C·M)") }
                    { opt("daly", "Daly's interval") }
                    { opt("fixed", "a fixed interval") }
                </select>
            </label>
            <p class="help">{"Every job writes a checkpoint after each τ seconds of work, costing C seconds; a requeued job restarts from its last one after R seconds, so a failure loses only the work since it. Young (CACM 17(9), 1974): τ = √(2·C·M), M the nodes' mean time between failures; Daly (FGCS 22(3), 2006): τ = √(2CM)·(1 + √(C/(2M))/3 + C/(18M)) − C. First-order waste: C/τ + τ/(2M)."}</p>
            if let Some(c) = f.checkpoint {
                if let Interval::Fixed(every) = c.interval {
                    { num_field(app, "checkpoint-every", "Interval τ (s of work)", "Seconds of work between checkpoints.", every.to_string(), "1",
                        with_failures(|f, v| { if let Some(c) = f.checkpoint.as_mut() { c.interval = Interval::Fixed(parse("checkpoint interval", v)?); } Ok(()) })) }
                }
                { num_field(app, "checkpoint-cost", "Checkpoint cost C (s)", "Seconds to write one checkpoint.", c.cost_s.to_string(), "1",
                    with_failures(|f, v| { if let Some(c) = f.checkpoint.as_mut() { c.cost_s = parse("checkpoint cost", v)?; } Ok(()) })) }
                { num_field(app, "restart-cost", "Restart cost R (s)", "Seconds to restart from a checkpoint.", c.restart_s.to_string(), "1",
                    with_failures(|f, v| { if let Some(c) = f.checkpoint.as_mut() { c.restart_s = parse("restart cost", v)?; } Ok(()) })) }
                if !matches!(c.interval, Interval::Fixed(_)) {
                    { checkpoint_switch(app, "checkpoint-per-job", c.per_job, " each job's own interval",
                        " — from its own mean time between failures M/k, k the fewest nodes that hold it (k nodes failing independently fail k times as often): τ = √(2·C·M/k). Off, every job uses the node's M.",
                        |c| c.per_job = !c.per_job) }
                }
                { checkpoint_switch(app, "checkpoint-within-limit", c.within_limit, " checkpoints count against the wallclock limit",
                    " — the scheduler plans each run with the job's limit as given, and a run its checkpoints push past the limit is killed there (with jobs killed at their estimate), as a batch system does. Off, the limit is taken to include the checkpoints.",
                    |c| c.within_limit = !c.within_limit) }
            }
        </>
    }
}

/// A check box that flips one switch of the run's checkpointing.
fn checkpoint_switch(
    app: &AppContext,
    testid: &'static str,
    on: bool,
    label: &'static str,
    help: &'static str,
    flip: fn(&mut Checkpointing),
) -> Html {
    let onchange = app.callback(move |_: Event| {
        edit(move |s| {
            if let Some(c) = s.failures.as_mut().and_then(|f| f.checkpoint.as_mut()) {
                flip(c);
            }
            Ok(())
        })
    });
    html! {
        <label class="check"><input type="checkbox" checked={on} {onchange} data-testid={testid} />
            {label}<span class="help">{help}</span></label>
    }
}
