//! SOB §3.1's hyper-Erlang fit of the loaded SWF file: per size class, the sample and
//! fitted raw moments of inter-arrival and service times; beside the trace, a synthetic
//! workload drawn from the fit as CDFs, with its SWF to download.

use std::rc::Rc;

use yew::prelude::*;

use super::form::{input_value, select_value, DraftInput};
use crate::scenario::WorkloadSpec;
use crate::web::charts::draw::format_secs;
use crate::web::charts::{plot, ChartView, FitCdf, FitKind};
use crate::web::format::fmt_num;
use crate::web::hub::WorkerEvent;
use crate::web::protocol::{ExportKind, FitCompare, FromWorker, ToWorker};
use crate::web::state::{use_app, use_worker_events, AppContext, FileStatus};
use crate::workload::fit_quality::FitQuality;
use crate::workload::hyper_erlang::{FitMethod, FittedClass, FittedMoments};

/// The last fit as the worker sent it.
#[derive(PartialEq)]
struct Fitted {
    name: String,
    cpus_per_node: u32,
    method: FitMethod,
    classes: Vec<FittedClass>,
    compare: Option<Rc<FitCompare>>,
    quality: Option<FitQuality>,
}

#[derive(Clone, PartialEq)]
struct FitState {
    /// CPUs per node for the size classes.
    cpn: u32,
    method: FitMethod,
    fitting: bool,
    fit: Option<Rc<Fitted>>,
    error: Option<String>,
}

enum FitMsg {
    Cpn(String),
    Method(String),
    Started,
    Worker(WorkerEvent),
}

impl Reducible for FitState {
    type Action = FitMsg;

    fn reduce(self: Rc<Self>, msg: FitMsg) -> Rc<Self> {
        let mut s = (*self).clone();
        match msg {
            FitMsg::Cpn(v) => match v.trim().parse::<u32>() {
                Ok(n) if n >= 1 => {
                    s.cpn = n;
                    s.error = None;
                }
                _ => {
                    s.error = Some(format!(
                        "CPUs per node must be a whole number ≥ 1, not {v:?}"
                    ))
                }
            },
            FitMsg::Method(v) => match FitMethod::parse(&v) {
                Ok(m) => s.method = m,
                Err(e) => s.error = Some(e),
            },
            FitMsg::Started => {
                s.fitting = true;
                s.error = None;
            }
            // The new worker never got the request.
            FitMsg::Worker(WorkerEvent::Restarted) => s.fitting = false,
            FitMsg::Worker(WorkerEvent::Message(m)) => match m.as_ref() {
                FromWorker::Fitted {
                    name,
                    cpus_per_node,
                    classes,
                    compare,
                    quality,
                    method,
                } => {
                    s.fitting = false;
                    s.fit = Some(Rc::new(Fitted {
                        name: name.clone(),
                        cpus_per_node: *cpus_per_node,
                        method: *method,
                        classes: classes.clone(),
                        compare: compare.as_ref().map(|c| Rc::new((**c).clone())),
                        quality: quality.clone(),
                    }));
                }
                FromWorker::FitFailed { name, error } => {
                    s.fitting = false;
                    s.error = Some(format!("cannot fit {name}: {error}"));
                }
                _ => return self,
            },
            FitMsg::Worker(_) => return self,
        }
        Rc::new(s)
    }
}

#[function_component]
pub fn FitPanel() -> Html {
    let app = use_app();
    let state = use_reducer(|| FitState {
        cpn: 1,
        method: FitMethod::Moments,
        fitting: false,
        fit: None,
        error: None,
    });
    {
        let dispatch = state.dispatcher();
        use_worker_events(&app, move |ev| dispatch.dispatch(FitMsg::Worker(ev)));
    }
    let WorkloadSpec::Swf { file, .. } = &app.scenario.workload else {
        return html! {};
    };
    let loaded = app
        .files
        .iter()
        .any(|f| &f.name == file && matches!(f.status, FileStatus::Loaded { .. }));
    let cpn = {
        let d = state.dispatcher();
        Callback::from(move |e: Event| d.dispatch(FitMsg::Cpn(input_value(&e))))
    };
    let method = {
        let d = state.dispatcher();
        Callback::from(move |e: Event| d.dispatch(FitMsg::Method(select_value(&e))))
    };
    let run = {
        let (app, d, name, cpus_per_node, method) = (
            app.clone(),
            state.dispatcher(),
            file.clone(),
            state.cpn,
            state.method,
        );
        Callback::from(move |_: MouseEvent| {
            d.dispatch(FitMsg::Started);
            app.to_worker(ToWorker::Fit {
                name: name.clone(),
                cpus_per_node,
                method,
            });
        })
    };
    html! {
        <div class="fit">
            <div class="controls">
                <label for="fit-cpn">{"CPUs per node "}</label>
                <DraftInput id="fit-cpn" testid="fit-cpn" kind="number" min="1" step="1" value={state.cpn.to_string()} onchange={cpn} />
                <label for="fit-method">{" fitted by "}</label>
                <select id="fit-method" data-testid="fit-method" onchange={method} title="Three moments: SOB §3.1, the paper's method (matches μ1–μ3 exactly, often far from the bulk of the samples). Maximum likelihood: EM over the same hyper-Erlang family, the order of best likelihood among 1–8 (follows the bulk; compare the Kolmogorov–Smirnov table).">
                    <option value="moments" selected={state.method == FitMethod::Moments}>{"three moments (SOB §3.1)"}</option>
                    <option value="max_likelihood" selected={state.method == FitMethod::MaxLikelihood}>{"maximum likelihood (EM)"}</option>
                </select>
                <button class="small" data-testid="fit-run" disabled={!loaded || state.fitting} onclick={run}>{"Fit hyper-Erlang model"}</button>
                if state.fitting { <span class="help">{" fitting…"}</span> }
            </div>
            <p class="help">{"SOB §3.1: jobs are split into size classes by nodes (processors ÷ CPUs per node); each class's inter-arrival and service times get a hyper-Erlang matching their first three moments (* = not matched exactly). Maximum likelihood fits the same family to the bulk of the samples instead (on KTH-SP2 the pooled run-time distance falls from 0.33 to 0.08)."}</p>
            if let Some(e) = &state.error { <p class="error" data-testid="fit-error">{e}</p> }
            if let Some(fit) = &state.fit {
                { classes_table(fit) }
                if let Some(q) = &fit.quality { { quality_table(q) } }
                if let Some(cmp) = &fit.compare { { compare(&app, cmp) } }
            }
        </div>
    }
}

fn classes_table(fit: &Fitted) -> Html {
    let (name, c) = (&fit.name, fit.cpus_per_node);
    html! {
        <div class="table-wrap">
        <table class="metrics" data-testid="fit" data-file={name.clone()} data-cpn={c.to_string()} data-method={fit.method.name()}>
            <caption>{format!("{name}, {c} CPU(s) per node, fitted by {}: moments μ1 (s), μ2 (s²), μ3 (s³)", fit.method.label())}</caption>
            <thead>
                <tr><th rowspan="2">{"nodes"}</th><th rowspan="2">{"jobs"}</th><th colspan="3">{"inter-arrival, sample"}</th><th colspan="3">{"inter-arrival, fitted"}</th><th colspan="3">{"service, sample"}</th><th colspan="3">{"service, fitted"}</th></tr>
                <tr>{ for (0..4).map(|_| html!{ <><th>{"μ1"}</th><th>{"μ2"}</th><th>{"μ3"}</th></> }) }</tr>
            </thead>
            <tbody>
                { for fit.classes.iter().map(|f| html!{
                    <tr data-nmin={f.class.nmin.to_string()} data-nmax={f.class.nmax.to_string()} data-jobs={f.jobs.to_string()}>
                        <th scope="row">{ if f.class.nmin == f.class.nmax { f.class.nmin.to_string() } else { format!("{}–{}", f.class.nmin, f.class.nmax) } }</th>
                        <td>{fmt_num(f.jobs as f64, 0)}</td>
                        { moments(&f.interarrival, "ia") }
                        { moments(&f.service, "svc") }
                    </tr>
                }) }
            </tbody>
        </table>
        </div>
    }
}

/// The Kolmogorov–Smirnov distance of each class's two distributions and of the pooled run
/// times: how far the model's CDFs are from the trace's beyond the matched moments.
fn quality_table(q: &FitQuality) -> Html {
    let d = |v: f64| html! { <td data-value={v.to_string()}>{format!("{v:.3}")}</td> };
    html! {
        <div class="table-wrap">
        <table class="metrics" data-testid="fit-quality" data-pooled={q.pooled_service_ks.to_string()}>
            <caption title="D = sup over x of |trace CDF(x) − model CDF(x)|: 0 is a perfect fit, 1 the worst. Matching three moments does not bound it.">
                {format!("Goodness of fit: Kolmogorov–Smirnov distance D (0 perfect, 1 worst); pooled run times against the classes' mixture: D = {:.3}", q.pooled_service_ks)}
            </caption>
            <thead><tr><th>{"nodes"}</th><th>{"jobs"}</th><th>{"D inter-arrival"}</th><th>{"D service"}</th></tr></thead>
            <tbody>
                { for q.classes.iter().map(|c| html!{
                    <tr data-nmin={c.nmin.to_string()}>
                        <th scope="row">{ if c.nmin == c.nmax { c.nmin.to_string() } else { format!("{}–{}", c.nmin, c.nmax) } }</th>
                        <td>{fmt_num(c.jobs as f64, 0)}</td>
                        { d(c.interarrival_ks) }
                        { d(c.service_ks) }
                    </tr>
                }) }
            </tbody>
        </table>
        </div>
    }
}

fn moments(fm: &FittedMoments, what: &'static str) -> Html {
    let m = |v: f64| format!("{v:.4e}");
    html! {
        <>
            { for (0..3).map(|k| html!{ <td data-key={format!("{what}-sample-{}", k + 1)} data-value={fm.sample[k].to_string()}>{m(fm.sample[k])}</td> }) }
            { for (0..3).map(|k| html!{ <td data-key={format!("{what}-fitted-{}", k + 1)} data-value={fm.fitted[k].to_string()} title={fm.note.clone()}>{m(fm.fitted[k])}{ if fm.exact { "" } else { " *" } }</td> }) }
        </>
    }
}

/// The trace beside a synthetic workload drawn from its fit: job counts, three CDFs and
/// the synthetic SWF.
fn compare(app: &AppContext, cmp: &Rc<FitCompare>) -> Html {
    let (o, n) = (cmp.original.jobs, cmp.synthetic.jobs);
    let diff = if o > 0 {
        format!(" ({:+.1} %)", (n as f64 / o as f64 - 1.0) * 100.0)
    } else {
        String::new()
    };
    let counts = if cmp.error.is_none() {
        format!("Trace: {} jobs. Synthetic workload drawn from the fitted classes (seed {}, arrivals over the trace's first {}, as gridscope fit draws it): {} jobs{diff}.",
            fmt_num(o as f64, 0), cmp.seed, format_secs(cmp.horizon_s), fmt_num(n as f64, 0))
    } else {
        format!("Trace: {} jobs.", fmt_num(o as f64, 0))
    };
    let download = {
        let app = app.clone();
        // Needs a fit, not a run; the worker keeps the last draw.
        Callback::from(move |_: MouseEvent| {
            app.to_worker(ToWorker::Export {
                what: ExportKind::SyntheticSwf,
                run: 0,
            })
        })
    };
    html! {
        <div class="charts fit-charts">
            <p class="help" data-testid="fit-counts" data-original={o.to_string()} data-synthetic={n.to_string()} data-seed={cmp.seed.to_string()} data-horizon={cmp.horizon_s.to_string()}>{counts}</p>
            if let Some(e) = &cmp.error { <p class="error" data-testid="fit-synthetic-error">{e}</p> }
            { for FitKind::ALL.iter().map(|&kind| html!{
                <ChartView chart={Some(plot(FitCdf { kind, cmp: cmp.clone() }))} testid={kind.testid()} width={420} height={250} />
            }) }
            <p class="help">{"What was fitted (SOB §3.1): jobs grouped into classes by nodes (processors ÷ CPUs per node), a class under 2 % of the jobs merged into its smaller neighbour; per class, the first three moments μ1, μ2, μ3 of its inter-arrival times (between its own submits) and of its run times matched by a hyper-Erlang of common order. The synthetic workload draws each class as its own stream with processors uniform inside the class; these CDFs pool all classes, so they check the model as a whole, beyond the matched moments."}</p>
            <button class="small" data-testid="fit-download" disabled={cmp.error.is_some()} onclick={download}>{"Download synthetic SWF"}</button>
        </div>
    }
}
