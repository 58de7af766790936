//! The family views' share links: `#f2=` + base64url(deflate(JSON of a [`FamilyRequest`])) —
//! a registry family's preset as its `RunSpec` (with the name of the trace file it ran on),
//! or the report card — so the link re-runs it to the same numbers. Links made before the
//! registry, `#f1=` with one request shape per family, are read and turned into the same
//! request; that older shape is frozen here and never grows.

use serde::Deserialize;

use super::protocol::FamilyRequest;
use crate::family::RunSpec;
use crate::scenario::link::{pack, unpack};

/// The fragment prefix of the links this version writes; the digit is the format's version.
pub const PREFIX: &str = "f2=";
/// The prefix of the links written before the family registry.
pub const V1_PREFIX: &str = "f1=";

/// The fragment (without `#`) of a family view's run.
pub fn encode(r: &FamilyRequest) -> Result<String, String> {
    pack(PREFIX, r)
}

/// Reads a fragment (with or without its `#`). `Ok(None)` when it is not a family link;
/// `Err` says what is wrong with one that cannot be read (damaged, of a later version, or
/// naming a preset this version does not know).
pub fn decode(fragment: &str) -> Result<Option<FamilyRequest>, String> {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    let request = if f.starts_with(PREFIX) {
        unpack::<FamilyRequest>(PREFIX, f, "family run")?
    } else if f.starts_with(V1_PREFIX) {
        unpack::<V1>(V1_PREFIX, f, "preset run")?.map(V1::into_request)
    } else if let Some(version) = other_version(f) {
        return Err(format!(
            "this link uses family link format '{version}', which this version cannot read"
        ));
    } else {
        return Ok(None);
    };
    match request {
        Some(FamilyRequest::Run { spec, .. }) if crate::family::find(&spec.preset).is_none() => {
            Err(format!(
                "this link runs the preset '{}', which this version does not know (`gridscope help presets`)",
                spec.preset
            ))
        }
        r => Ok(r),
    }
}

/// `fN` for a fragment `fN=…` of another version than these.
fn other_version(f: &str) -> Option<&str> {
    let (head, _) = f.split_once('=')?;
    let digits = head.strip_prefix('f')?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(head)
}

/// A `#f1=` link's request: the page's request per family before the registry (frozen).
#[derive(Deserialize)]
#[serde(tag = "family", rename_all = "snake_case")]
enum V1 {
    Ses {
        preset: String,
        seeds: u64,
        load_factor: f64,
        #[serde(default)]
        shares: Vec<f64>,
        #[serde(default)]
        site_queue: bool,
    },
    Kkor {
        preset: String,
        seeds: u64,
        #[serde(default)]
        options: V1Options,
    },
    Scjg {
        preset: String,
        seeds: u64,
        #[serde(default)]
        percents: Vec<f64>,
        trace: String,
    },
    Reproduce {
        #[serde(default)]
        papers: Vec<String>,
        #[serde(default)]
        sensitivity: bool,
        #[serde(default)]
        trace: Option<String>,
    },
}

/// A `#f1=` KKOR link's changes to its preset.
#[derive(Default, Deserialize)]
struct V1Options {
    #[serde(default)]
    loads: Vec<f64>,
    #[serde(default)]
    coefficients: Vec<f64>,
    #[serde(default)]
    batch_jobs: Option<u32>,
    #[serde(default)]
    batch_length: Option<f64>,
}

/// An empty list as "the preset's own".
fn given(v: Vec<f64>) -> Option<Vec<f64>> {
    (!v.is_empty()).then_some(v)
}

impl V1 {
    /// The same run as a registry request: each field becomes the `RunSpec` field of the
    /// CLI flag it stood for (`--seeds`, `--load`, `--x`, `--site-queue`, `--coefficients`,
    /// `--batch-jobs`, `--batch-length`).
    fn into_request(self) -> FamilyRequest {
        let run = |spec: RunSpec, trace: Option<String>| FamilyRequest::Run { spec, trace };
        match self {
            V1::Ses {
                preset,
                seeds,
                load_factor,
                shares,
                site_queue,
            } => run(
                RunSpec {
                    preset,
                    seeds: Some(seeds),
                    load_factor: Some(load_factor),
                    x: given(shares),
                    site_queue,
                    ..RunSpec::default()
                },
                None,
            ),
            V1::Kkor {
                preset,
                seeds,
                options,
            } => run(
                RunSpec {
                    preset,
                    seeds: Some(seeds),
                    x: given(options.loads),
                    coefficients: given(options.coefficients),
                    batch_jobs: options.batch_jobs,
                    batch_length: options.batch_length,
                    ..RunSpec::default()
                },
                None,
            ),
            V1::Scjg {
                preset,
                seeds,
                percents,
                trace,
            } => run(
                RunSpec {
                    preset,
                    seeds: Some(seeds),
                    x: given(percents),
                    ..RunSpec::default()
                },
                Some(trace),
            ),
            V1::Reproduce {
                papers,
                sensitivity,
                trace,
            } => FamilyRequest::Card {
                papers,
                sensitivity,
                trace,
            },
        }
    }
}
