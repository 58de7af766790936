//! "Export for a cluster" of the family views (issue #26 item 5): the sweep on screen as a
//! family manifest (`reproduce::case::manifest`: the run as the base, an axis over its x
//! values and one over its seeds), downloaded or carried by a `#m1=` link. `gridscope sweep
//! plan / run / merge` then gives, per x and line, the median and band the view shows.

use std::rc::Rc;

use serde_json::{Map, Value};
use yew::prelude::*;

use super::cluster::{manifest_file, manifest_text};
use super::{Alert, CopyButton};
use crate::allocation::sweep::{sweep_preset, SweepResult, SWEEP_PRESETS};
use crate::reproduce::case;
use crate::reproduce::runs::RunSpec;
use crate::scenario::manifest::{Base, Manifest};
use crate::web::format::download_text;
use crate::web::protocol::FamilyRequest;
use crate::web::share;

/// The manifest of an SF sweep's result: its preset (the panel's `preset` when the result
/// is custom) with the fields of the spec that differ from it, its batches, x and seeds.
pub fn sf_manifest(r: &SweepResult, preset: usize) -> Option<Manifest> {
    let name = if sweep_preset(&r.preset).is_some() {
        r.preset.clone()
    } else {
        SWEEP_PRESETS.get(preset)?.name.to_string()
    };
    let base = serde_json::to_value((sweep_preset(&name)?.spec)()).ok()?;
    let mut sweep = Map::new();
    if let (Some(Value::Object(now)), Value::Object(base)) = (
        r.spec.as_ref().and_then(|s| serde_json::to_value(s).ok()),
        base,
    ) {
        for (k, v) in now {
            if k != "x" && base.get(&k) != Some(&v) {
                sweep.insert(k, v);
            }
        }
    }
    let spec = RunSpec {
        preset: name.clone(),
        batches: Some(r.batches),
        sweep,
        ..RunSpec::default()
    };
    Some(case::manifest(
        &format!("{name} exported from the page"),
        spec,
        Some(r.x.clone()),
        r.seeds,
    ))
}

/// The manifest of a family view's finished run, or why it has none (what the text says):
/// the run's spec as the base, the x values its family sweeps (`Family::sweep_x`) and its
/// seeds (the family's default when it names none).
pub fn family_manifest(req: &FamilyRequest) -> Result<Manifest, String> {
    let FamilyRequest::Run { spec, trace } = req else {
        return Err("the report card is not a sweep".into());
    };
    let family = case::family(&spec.preset).map_err(|_| {
        format!(
            "{} is not a seed sweep over x (the manifest's family presets: {})",
            spec.preset,
            case::SPLITTABLE
        )
    })?;
    // The manifest's cases read the presets' traces by their names: another file would make
    // a table of another input than the one on screen.
    let reads = family.traces(spec);
    if let Some(t) = trace.as_ref().filter(|t| !reads.contains(t)) {
        return Err(format!(
            "its cases read {} (the presets' trace) and this run read {t}",
            reads.join(", ")
        ));
    }
    let seeds = spec
        .seeds
        .filter(|&s| s > 0)
        .unwrap_or(family.default_seeds());
    Ok(case::manifest(
        &format!("{} exported from the page", spec.preset),
        spec.clone(),
        family.sweep_x(spec),
        seeds,
    ))
}

#[derive(Properties, PartialEq)]
pub struct ManifestExportProps {
    /// Prefixed to the test ids: `{prefix}cluster-export`, `-link`, `-url`, `-help`.
    #[prop_or_default]
    pub prefix: AttrValue,
    pub manifest: Rc<Manifest>,
    /// The download button's hover text.
    pub title: AttrValue,
    /// What the manifest reproduces and what to do with it (doc names become links).
    pub help: AttrValue,
}

/// "Export for a cluster": a manifest's download and `#m1=` link buttons, with its help —
/// the scheduling view's ([`super::ExportForCluster`]) and the family views'.
#[function_component]
pub fn ManifestExport(props: &ManifestExportProps) -> Html {
    let link = use_state(|| None::<String>);
    let error = use_state(|| None::<String>);
    let m = props.manifest.clone();
    let download = {
        let (m, error) = (m.clone(), error.clone());
        Callback::from(move |_: MouseEvent| {
            if let Err(e) =
                download_text(&manifest_file(&m), "application/json", &manifest_text(&m))
            {
                error.set(Some(e));
            }
        })
    };
    let share_link = {
        let (m, link, error) = (m.clone(), link.clone(), error.clone());
        Callback::from(move |_: MouseEvent| match share::encode_manifest(&m) {
            Ok(fragment) => link.set(Some(share::link(&fragment))),
            Err(e) => error.set(Some(e)),
        })
    };
    let tid = |s: &str| format!("{}{s}", props.prefix);
    html! {
        <div class="exports cluster-export">
            <button data-testid={tid("cluster-export")} onclick={download}
                title={props.title.clone()}>{"Export for a cluster"}</button>
            <button data-testid={tid("cluster-export-link")} onclick={share_link}>{"Manifest link"}</button>
            <p class="help" data-testid={tid("cluster-export-help")}>{super::with_doc_links(&props.help)}</p>
            if let Some(url) = &*link {
                <p class="help">{"Manifest link (opens its summary in the Cluster sweeps view): "}
                    <output data-testid={tid("cluster-export-url")} class="share-url">{url}</output>
                    {" "}<CopyButton text={url.clone()} testid={tid("cluster-export-copy")} /></p>
            }
            if let Some(e) = &*error {
                <Alert testid={tid("cluster-export-error")} text={e.clone()} />
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct ExportFamilyProps {
    /// The view's id (`sf`, `kkor`, …): test ids are `{id}-cluster-export`, `-link`, `-url`.
    pub id: AttrValue,
    pub manifest: Rc<Manifest>,
}

/// A family manifest's export, with what to do with it.
#[function_component]
pub fn ExportFamily(props: &ExportFamilyProps) -> Html {
    let m = &props.manifest;
    let axes: Vec<String> = m
        .axes
        .iter()
        .map(|a| {
            let n = a.values.as_ref().map_or_else(
                || a.range.as_ref().map_or(0.0, |r| r.to - r.from + 1.0),
                |v| v.len() as f64,
            );
            format!("{} ({n} values)", a.name.as_deref().unwrap_or(&a.path))
        })
        .collect();
    let traces = match &m.base {
        Base::Run(base) if m.traces.is_some() => {
            let reads = serde_json::from_value::<RunSpec>(base.clone())
                .map(|s| s.traces())
                .unwrap_or_default();
            format!(
                " It reads {} from a folder traces/ beside the manifest.",
                reads.join(", ")
            )
        }
        _ => String::new(),
    };
    let help = format!(
        "The manifest reproduces the sweep on screen as cluster cases, one per {}: `gridscope sweep plan M --out DIR`, `sweep run DIR --shard 0/1` (or `sweep slurm DIR --tasks N`), `sweep merge DIR` gives per x and line the median and band above, to the last digit; drop its merged/points.csv on the Cluster sweeps view to draw it.{traces} (docs/cluster.md)",
        axes.join(" × ")
    );
    html! {
        <ManifestExport prefix={format!("{}-", props.id)} manifest={m.clone()} help={help}
            title="The sweep manifest of the results on screen: each case one x and one seed (gridscope sweep plan takes it; docs/cluster.md)" />
    }
}

/// A family view's export after a run (`ran`: what ran), or the note saying why not.
pub fn family_export(id: &str, ran: Option<&FamilyRequest>) -> Html {
    match ran.map(family_manifest) {
        Some(Ok(m)) => html! { <ExportFamily id={id.to_string()} manifest={Rc::new(m)} /> },
        Some(Err(why)) => html! {
            <p class="help cluster-note" data-testid="cluster-not-exportable">{format!(
                "Export for a cluster: not for this run — {why}. The Share link carries it."
            )}</p>
        },
        None => html! {
            <p class="help cluster-note" data-testid="cluster-export-after-run">{
                "Export for a cluster: run the sweep first; its manifest then reproduces what is on screen (docs/cluster.md)."
            }</p>
        },
    }
}

/// [`family_export`] once the run is over (none while it runs).
pub fn family_export_after(id: &str, running: bool, ran: Option<&FamilyRequest>) -> Html {
    if running {
        html! {}
    } else {
        family_export(id, ran)
    }
}
