//! Share URLs: the whole scenario in the URL fragment, versioned and compact:
//! `#s1=` + base64url(deflate(JSON of [`Shared`])). Files travel as name, size and SHA-256
//! only; the page asks for the same file again and checks the hash.

use serde::{Deserialize, Serialize};

use super::protocol::FileInfo;
pub use crate::scenario::link::{b64url_decode, b64url_encode, MAX_FRAGMENT, MAX_JSON};
use crate::scenario::link::{pack, unpack};
use crate::scenario::{Scenario, NEWEST_SCENARIO_VERSION, OLDEST_SCENARIO_VERSION};

/// The fragment prefix; the digit is the share format's version.
pub const PREFIX: &str = "s1=";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shared {
    pub scenario: Scenario,
    #[serde(default)]
    pub files: Vec<FileInfo>,
}

/// This page's address (origin, path, query) with `fragment` after the `#`.
pub fn link(fragment: &str) -> String {
    let loc = web_sys::window().map(|w| w.location());
    let base = loc
        .map(|l| {
            format!(
                "{}{}{}",
                l.origin().unwrap_or_default(),
                l.pathname().unwrap_or_default(),
                l.search().unwrap_or_default()
            )
        })
        .unwrap_or_default();
    format!("{base}#{fragment}")
}

/// The fragment (without `#`) for a scenario.
pub fn encode(shared: &Shared) -> Result<String, String> {
    pack(PREFIX, shared)
}

/// Reads a fragment (with or without its `#`). `Ok(None)` for an empty fragment or one that
/// is not a scenario link; `Err` says what is wrong with a share link that cannot be read.
pub fn decode(fragment: &str) -> Result<Option<Shared>, String> {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    if !f.starts_with(PREFIX) && f.len() > 1 && f.as_bytes()[0] == b's' && f.contains('=') {
        return Err(format!(
            "this link uses share format '{}', which this version cannot read",
            f.split('=').next().unwrap_or("?")
        ));
    }
    let Some(shared) = unpack::<Shared>(PREFIX, f, "scenario")? else {
        return Ok(None);
    };
    let version = shared.scenario.version;
    if !(OLDEST_SCENARIO_VERSION..=NEWEST_SCENARIO_VERSION).contains(&version) {
        return Err(format!(
            "the shared scenario has version {version}; this build reads versions \
             {OLDEST_SCENARIO_VERSION} to {NEWEST_SCENARIO_VERSION}"
        ));
    }
    // An older link runs as it ran when it was made (`conservative` was the rebuild).
    Ok(Some(Shared {
        scenario: shared.scenario.upgrade(),
        ..shared
    }))
}

/// The SF panel's share links: `#w1=` + the same encoding, holding a sweep and its seeds
/// and batches, so the link re-runs the same sweep to the same numbers.
pub const SWEEP_PREFIX: &str = "w1=";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SharedSweep {
    pub spec: crate::allocation::sweep::SweepSpec,
    pub seeds: u64,
    pub batches: u64,
}

pub fn encode_sweep(s: &SharedSweep) -> Result<String, String> {
    pack(SWEEP_PREFIX, s)
}

/// `Ok(None)` when the fragment is not a sweep link.
pub fn decode_sweep(fragment: &str) -> Result<Option<SharedSweep>, String> {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    unpack(SWEEP_PREFIX, f, "sweep")
}

/// The family views' share links: `#f2=` (and the older `#f1=`, still read), holding the
/// request (a registry family's `RunSpec`, or the report card), so the link re-runs it
/// (`super::family_link`).
pub use super::family_link::{
    decode as decode_family, encode as encode_family, PREFIX as FAMILY_PREFIX,
};

/// Sweep manifests (`gridscope sweep`, docs/cluster.md): `#m1=` + the same encoding, holding
/// the manifest as its JSON file has it; they open the Cluster sweeps view.
pub use crate::scenario::manifest::LINK_PREFIX as MANIFEST_PREFIX;

pub fn encode_manifest(m: &crate::scenario::manifest::Manifest) -> Result<String, String> {
    crate::scenario::manifest::to_link(m)
}

/// `Ok(None)` when the fragment is not a manifest link.
pub fn decode_manifest(
    fragment: &str,
) -> Result<Option<crate::scenario::manifest::Manifest>, String> {
    crate::scenario::manifest::from_link_fragment(fragment)
}
