//! A manifest's base scenario: from a file, a preset, a page's link or inline, its workload
//! file names made relative to the manifest.

use serde::Deserialize;

use super::{err, Base, Manifest, ManifestError};
use crate::scenario::{Scenario, WorkloadSpec};

/// The base scenario, its workload file names made relative to the manifest: a file's names
/// are relative to that file's folder, a preset's and a link's to `traces`. `read(path)`
/// returns the text of a file named relative to the manifest.
pub fn base_scenario(
    m: &Manifest,
    read: &mut dyn FnMut(&str) -> Result<String, String>,
) -> Result<Scenario, ManifestError> {
    let (mut s, dir) = match &m.base {
        Base::File(f) => {
            let text = read(f).map_err(|e| err("base.file", e).near(f))?;
            let s = Scenario::from_json(&text)
                .map_err(|e| err("base.file", format!("{f}: {e}")).near(f))?;
            let dir = match f.rfind('/') {
                Some(i) => f[..i].to_string(),
                None => String::new(),
            };
            (s, Some(dir))
        }
        Base::Preset(p) => {
            let s = Scenario::preset(p).ok_or_else(|| {
                err(
                    "base.preset",
                    format!("'{p}' is not a scenario preset (`gridscope help presets`; the sf-, ses-, kkor- and scjg- presets are not scenarios)"),
                )
                .near(p)
            })?;
            (s, m.traces.clone())
        }
        Base::Link(l) => (from_link(l)?, m.traces.clone()),
        Base::Scenario(s) => ((**s).clone().upgrade(), m.traces.clone()),
        Base::Run(_) => {
            return Err(err(
                "base.run",
                "a family run is not a scenario: its cases are expanded by the family runner (`gridscope sweep plan`)",
            ))
        }
    };
    let files = workload_files(&s);
    match dir {
        Some(dir) => rebase_files(&mut s, &dir),
        None if !files.is_empty() && !matches!(m.base, Base::Scenario(_)) => {
            return Err(err(
                "traces",
                format!(
                    "the base scenario reads {}: set \"traces\" to the folder holding it (relative to the manifest)",
                    files.join(", ")
                ),
            ))
        }
        None => {}
    }
    Ok(s)
}

fn from_link(link: &str) -> Result<Scenario, ManifestError> {
    #[derive(Deserialize)]
    struct Payload {
        scenario: Scenario,
    }
    let fragment = link.rsplit_once('#').map_or(link, |(_, f)| f);
    match crate::scenario::link::unpack::<Payload>("s1=", fragment, "scenario") {
        Ok(Some(p)) => Ok(p.scenario.upgrade()),
        Ok(None) => Err(err("base.link", "not a scenario link (#s1=…)")),
        Err(e) => Err(err("base.link", e)),
    }
}

/// The workload files a scenario reads, in its order.
pub fn workload_files(s: &Scenario) -> Vec<String> {
    match &s.workload {
        WorkloadSpec::Swf { file, .. }
        | WorkloadSpec::SwfPartitions { file, .. }
        | WorkloadSpec::OriginSites { file, .. } => {
            vec![file.clone()]
        }
        WorkloadSpec::SwfSites { files, .. } => files.clone(),
        _ => Vec::new(),
    }
}

/// Puts `dir/` before every relative workload file name.
fn rebase_files(s: &mut Scenario, dir: &str) {
    if dir.is_empty() {
        return;
    }
    let rebase = |f: &mut String| {
        if !f.starts_with('/') {
            *f = format!("{}/{f}", dir.trim_end_matches('/'));
        }
    };
    match &mut s.workload {
        WorkloadSpec::Swf { file, .. }
        | WorkloadSpec::SwfPartitions { file, .. }
        | WorkloadSpec::OriginSites { file, .. } => rebase(file),
        WorkloadSpec::SwfSites { files, .. } => files.iter_mut().for_each(rebase),
        _ => {}
    }
}
