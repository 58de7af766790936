//! The workload's source (the SES generator, a loaded file, a preset's multi-site
//! workload) and its parameters.

use yew::prelude::*;

use super::form::{num_field, parse, select_value};
use crate::scenario::{PlatformSpec, Scenario, WorkloadSpec};
use crate::web::state::{edit, use_app, AppContext};
use crate::workload::{Lublin, SesPoisson};

#[function_component]
pub fn WorkloadPanel() -> Html {
    let app = use_app();
    let current = match &app.scenario.workload {
        WorkloadSpec::Swf { file, .. } => format!("file:{file}"),
        WorkloadSpec::SesPoisson(_) => "ses".into(),
        WorkloadSpec::Lublin(_) => "lublin".into(),
        // Multi-site and hyper-Erlang workloads come from presets and share URLs.
        _ => "preset".into(),
    };
    let choose = app.callback(|e: Event| {
        let v = select_value(&e);
        edit(move |s| {
            choose_source(s, &v);
            Ok(())
        })
    });
    html! {
        <div class="fields">
            <label>{"Source "}
                <select onchange={choose} data-testid="workload-source">
                    if current == "preset" {
                        <option value="preset" selected=true>{"multi-site workload of the scenario preset"}</option>
                    }
                    <option value="ses" selected={current == "ses"}>{"SES Poisson generator (Sessini)"}</option>
                    <option value="lublin" selected={current == "lublin"}>{"Lublin–Feitelson model (2003)"}</option>
                    { for app.loaded_files().iter().map(|n| { let v = format!("file:{n}"); html!{ <option selected={current == v} value={v.clone()}>{format!("file {n}")}</option> } }) }
                </select>
            </label>
            if current == "preset" {
            } else if current == "ses" {
                <p class="help">{"The generator draws Poisson arrivals, exponential runtimes and processor counts from SES Table A3."}</p>
            } else if current == "lublin" {
                <p class="help">{"Lublin & Feitelson, JPDC 63(11), 2003: sizes from a two-stage log-uniform (serial and power-of-two jobs favoured), runtimes exp(hyper-gamma) growing with size, arrivals gamma-distributed gaps through a daily cycle. The paper's parameters; millions of jobs run in the page."}</p>
            } else {
                <p class="help">{"An SWF trace, plain or gzip, read with the import rules of the CLI (see its report)."}</p>
            }
            { body(&app) }
        </div>
    }
}

/// The source select's value (`ses`, `file:NAME`) applied to the scenario.
fn choose_source(s: &mut Scenario, v: &str) {
    if v == "ses" {
        s.workload = WorkloadSpec::SesPoisson(SesPoisson {
            estimate_factor: 2.0,
            ..SesPoisson::default()
        });
        if matches!(s.platform, PlatformSpec::FromTrace { .. }) {
            s.platform = PlatformSpec::Preset {
                name: "demo".into(),
            };
        }
    } else if v == "lublin" {
        let g = Lublin::default();
        // The machine the model is sized for, unless the platform is an explicit one.
        if matches!(
            s.platform,
            PlatformSpec::FromTrace { .. } | PlatformSpec::Preset { .. }
        ) {
            s.platform = PlatformSpec::FromTrace {
                procs: Some(g.nodes),
            };
        }
        s.workload = WorkloadSpec::Lublin(g);
    } else if let Some(f) = v.strip_prefix("file:") {
        s.workload = WorkloadSpec::Swf {
            file: f.to_string(),
            strict: false,
            format: Default::default(),
            utc_offset_min: 0,
        };
    }
}

fn body(app: &AppContext) -> Html {
    match &app.scenario.workload {
        WorkloadSpec::SesPoisson(g) => generator(app, g, app.scenario.seed),
        WorkloadSpec::Lublin(g) => lublin_fields(app, g, app.scenario.seed),
        WorkloadSpec::Swf { strict, .. } => {
            let toggle = app.callback(|_: Event| {
                edit(|s| {
                    if let WorkloadSpec::Swf { strict, .. } = &mut s.workload {
                        *strict = !*strict;
                    }
                    Ok(())
                })
            });
            html! {
                <label class="check"><input type="checkbox" checked={*strict} onchange={toggle} />
                    {" strict import"}<span class="help">{" — stop at the first malformed line instead of counting and skipping it."}</span></label>
            }
        }
        WorkloadSpec::SwfSites {
            files,
            window,
            align,
            ..
        } => html! {
            <p class="help" data-testid="workload-detail">{format!(
                "One SWF log per site, in platform order: {}; {}{}. Choose another source to edit a single workload.",
                files.join(", "),
                match align {
                    crate::workload::Align::Unix => "aligned by their UnixStartTime",
                    crate::workload::Align::Zero => "each shifted to start at t = 0",
                },
                if window.is_some() { ", cut to a time window" } else { "" }
            )}</p>
        },
        WorkloadSpec::SwfPartitions { file, .. } => html! {
            <p class="help" data-testid="workload-detail">{format!("{file}, split into one site per partition (SWF field 16), partitions in increasing order.")}</p>
        },
        WorkloadSpec::OriginSites { file, .. } => html! {
            <p class="help" data-testid="workload-detail">{format!("{file}, one site per origin (GWF OrigSiteID, in increasing order), in platform order.")}</p>
        },
        WorkloadSpec::HyperErlang { sites } => html! {
            <p class="help" data-testid="workload-detail">{format!(
                "One hyper-Erlang generator of common order per site ({} sites, SOB §4.2, Tables 2–4): arrivals, run times and processor counts from the paper's fitted models, each site with its own stream seeded from the scenario seed.",
                sites.len()
            )}</p>
        },
    }
}

/// Applies `f` to the SES generator's parameters (when the workload is the generator).
fn ses(s: &mut Scenario, f: impl FnOnce(&mut SesPoisson)) {
    if let WorkloadSpec::SesPoisson(g) = &mut s.workload {
        f(g);
    }
}

fn generator(app: &AppContext, g: &SesPoisson, seed: u64) -> Html {
    html! {
        <>
            { num_field(app, "jobs", "Jobs", "Number of jobs to generate.", g.jobs.to_string(), "1",
                |s, v| { let n = parse::<u32>("jobs", v)?; ses(s, |g| g.jobs = n); Ok(()) }) }
            { num_field(app, "arrivals", "Arrivals per 30 min", "Mean Poisson arrivals per 30 minutes (SES §3.2: 3.125).", g.arrivals_per_30min.to_string(), "any",
                |s, v| { let n = parse::<f64>("arrivals", v)?; ses(s, |g| g.arrivals_per_30min = n); Ok(()) }) }
            { num_field(app, "runtime", "Mean runtime (min)", "Mean of the exponential runtimes (SES: 496.3 min).", g.mean_runtime_min.to_string(), "any",
                |s, v| { let n = parse::<f64>("mean runtime", v)?; ses(s, |g| g.mean_runtime_min = n); Ok(()) }) }
            { num_field(app, "load", "Load factor", "Multiplies the arrival rate: above 1 is a heavier load on the same platform.", g.load_factor.to_string(), "any",
                |s, v| { let n = parse::<f64>("load factor", v)?; ses(s, |g| g.load_factor = n); Ok(()) }) }
            { num_field(app, "estf", "Estimate factor", "User estimates are the runtime times this factor (≥ 1; 1 = exact). SES gives no estimates.", g.estimate_factor.to_string(), "any",
                |s, v| { let n = parse::<f64>("estimate factor", v)?; ses(s, |g| g.estimate_factor = n); Ok(()) }) }
            { num_field(app, "seed", "Seed", "The generator's seed: the same seed gives the same jobs everywhere.", seed.to_string(), "1",
                |s, v| { s.seed = parse::<u64>("seed", v)?; Ok(()) }) }
        </>
    }
}

/// Applies `f` to the Lublin–Feitelson parameters (when the workload is that model).
fn lublin(s: &mut Scenario, f: impl FnOnce(&mut Lublin)) {
    if let WorkloadSpec::Lublin(g) = &mut s.workload {
        f(g);
    }
}

/// The demands Gridscope adds to the model (issue #37; the paper draws processors and
/// times only): GPU jobs and memory jobs, from their own random stream, so the jobs' sizes
/// and times stay the model's. They matter on node-typed sites (docs/nodes.md).
fn lublin_demands(app: &AppContext, g: &Lublin) -> Html {
    html! {
        <>
            { num_field(app, "lublin-gpu-share", "GPU jobs (share)", "Share of the jobs (0–1) that ask for GPUs; each draws it from its own stream, so sizes and times stay the model's. Not in Lublin & Feitelson (2003): no public log has GPUs (docs/nodes.md). GPUs are placed on node-typed sites only.", g.gpu_share.to_string(), "any",
                |s, v| { let n = parse::<f64>("GPU share", v)?; lublin(s, |g| g.gpu_share = n); Ok(()) }) }
            { num_field(app, "lublin-gpus", "GPUs per GPU job", "GPUs each GPU job asks for, for the whole job (≥ 1), spread over its nodes as they hold them.", g.gpus_per_job.to_string(), "1",
                |s, v| { let n = parse::<u32>("GPUs per job", v)?; lublin(s, |g| g.gpus_per_job = n); Ok(()) }) }
            { num_field(app, "lublin-mem-share", "Memory jobs (share)", "Share of the jobs (0–1) that state memory; the others state none. Not in Lublin & Feitelson (2003). Memory is honoured on sites whose node types have memory.", g.mem_share.to_string(), "any",
                |s, v| { let n = parse::<f64>("memory share", v)?; lublin(s, |g| g.mem_share = n); Ok(()) }) }
            { num_field(app, "lublin-mem", "Memory per processor (KB)", "A memory job's memory per processor, in KB as SWF's field 10 states it: a job of p processors asks p × this on the nodes it runs on.", g.mem_kb_per_proc.to_string(), "1",
                |s, v| { let n = parse::<u64>("memory per processor", v)?; lublin(s, |g| g.mem_kb_per_proc = n); Ok(()) }) }
        </>
    }
}

fn lublin_fields(app: &AppContext, g: &Lublin, seed: u64) -> Html {
    let types = app.callback(|_: Event| {
        edit(|s| {
            lublin(s, |g| g.job_types = !g.job_types);
            Ok(())
        })
    });
    html! {
        <>
            { num_field(app, "lublin-jobs", "Jobs", "Number of jobs to generate (up to the job limit, 10,000,000).", g.jobs.to_string(), "1",
                |s, v| { let n = parse::<u32>("jobs", v)?; lublin(s, |g| g.jobs = n); Ok(()) }) }
            { num_field(app, "lublin-nodes", "Nodes", "The machine's size and the widest job: UHi = log2(nodes), UMed = UHi − 2.5 (batch: UHi − 2), the paper's rule. The paper's fit is for 128 nodes. A one-site platform sized from the workload follows it.", g.nodes.to_string(), "1",
                |s, v| {
                    let n = parse::<u32>("nodes", v)?;
                    lublin(s, |g| g.nodes = n);
                    if let PlatformSpec::FromTrace { procs } = &mut s.platform { *procs = Some(n); }
                    Ok(())
                }) }
            { num_field(app, "lublin-load", "Load factor", "Divides every inter-arrival gap: above 1 is a heavier load on the same machine (1 = the model; at least 0.001).", g.load_factor.to_string(), "any",
                |s, v| { let n = parse::<f64>("load factor", v)?; lublin(s, |g| g.load_factor = n); Ok(()) }) }
            { num_field(app, "lublin-estf", "Estimate factor", "User estimates are the runtime times this factor (≥ 1; 1 = exact). The model has no estimates.", g.estimate_factor.to_string(), "any",
                |s, v| { let n = parse::<f64>("estimate factor", v)?; lublin(s, |g| g.estimate_factor = n); Ok(()) }) }
            { lublin_demands(app, g) }
            { num_field(app, "lublin-hour", "Start hour", "Hour of the day (0–23) at time zero: arrivals follow the model's daily cycle, quiet at night.", g.start_hour.to_string(), "1",
                |s, v| { let n = parse::<u32>("start hour", v)?; lublin(s, |g| g.start_hour = n); Ok(()) }) }
            <label class="check"><input type="checkbox" checked={g.job_types} onchange={types} data-testid="lublin-types" />
                {" batch and interactive jobs"}<span class="help">{" — two streams with the paper's per-type parameters (interactive jobs are narrow and short); unchecked, one stream with the all-jobs parameters."}</span></label>
            { num_field(app, "seed", "Seed", "The generator's seed: the same seed gives the same jobs everywhere.", seed.to_string(), "1",
                |s, v| { s.seed = parse::<u64>("seed", v)?; Ok(()) }) }
        </>
    }
}
