//! The paper families: one home for each paper's experiments and the one registry every edge
//! goes through (the CLI's `run --preset`, Python, the report card, cluster manifests and
//! the page's family views, whose requests and `#f2=` links are a [`RunSpec`]). A family
//! is a [`Family`] value in [`FAMILIES`]: its presets, the options it takes, its run (the
//! whole seed sweep) and, for sweeps a cluster can split, one seed of one point; its
//! [`FamilyInfo`] names it, says what it compares and what its options mean, and lists its
//! metrics (the page's tabs, fields and tables print them). Nothing outside chooses a family
//! by its name.
//!
//! | family | paper | module | the experiments live in |
//! |---|---|---|---|
//! | SF | allocation fractions for batches of jobs on heterogeneous resources | [`sf`] | `allocation` |
//! | SES | node-group selection on one cluster | [`ses`] | `scenario::ses`, `policy::grid::groups` |
//! | KKOR | centralized vs decentralized grid with migration | [`kkor`] | `kkor` |
//! | SCJG | co-allocation by advance reservation | [`scjg`] | `scjg` |
//! | SOB | grid schemes over local schedulers (scenario presets) | [`sob`] | `engine`, `policy::grid`, `scenario` |
//!
//! A family's run is described by one serializable [`RunSpec`] (what claim files, manifests
//! and share links store), answered by a [`FamilyReport`] (the CLI's JSON and table), and
//! fails with a typed [`FamilyError`].

mod args;
mod error;
pub mod kkor;
pub mod scjg;
pub mod ses;
pub mod sf;
pub mod sob;
mod spec;
pub mod text;

pub use args::{Opt, PresetArgs};
pub use error::FamilyError;
pub use spec::{merged, Load, RunSpec};

use serde_json::{Map, Value};

use crate::limits::Limits;

/// Where the CLI and Python look for the traces a preset reads (by file name) unless told
/// otherwise: the shared trace folder beside the checkout.
pub const DEFAULT_TRACES: &str = "../shared/traces";

/// What a run may use from its caller: threads, the limits its inputs are held to, the
/// trace files it reads (by name: the CLI from `--traces`, the page a dropped file, Python a
/// folder) and a progress callback that returns false to cancel.
pub struct Ctx<'a> {
    pub threads: usize,
    pub limits: Limits,
    pub load: &'a mut dyn FnMut(&str) -> Result<Vec<u8>, String>,
    pub progress: &'a mut dyn FnMut(u64, u64) -> bool,
}

/// A finished family run: the same value as JSON (the CLI's `--json`, Python's `raw=True`,
/// the report card's readings) or as the CLI's text table.
pub trait FamilyReport: Send {
    /// Pretty JSON, exactly what `gridscope run --preset NAME --json` prints (without the
    /// final newline).
    fn json(&self) -> String;
    /// The same as a JSON value (key order as in [`FamilyReport::json`] is not kept).
    fn value(&self) -> Result<Value, FamilyError>;
    /// The CLI's text output, ending in one newline.
    fn text(&self) -> String;
}

/// What one seed of one point of a sweep gives, per line of the family's chart (a policy, a
/// scheme, a variant; with its x when the case holds more than one): metrics by name.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseRun {
    pub label: String,
    pub algorithm: String,
    pub metrics: Map<String, Value>,
}

/// What the registry and the edges say of a family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FamilyInfo {
    pub id: &'static str,
    pub title: &'static str,
    pub doc: &'static str,
    pub default_seeds: u64,
    /// The metrics its runs report by name (the keys of its JSON), with their units.
    pub metrics: &'static [MetricInfo],
    /// Its name in a list of views or commands (the page's tab: `KKOR grids`).
    pub label: &'static str,
    /// What it compares, in one line (the tab's tooltip).
    pub about: &'static str,
    /// The paper's setting in a paragraph, with its source and docs page (the page's
    /// introduction to the family's view).
    pub intro: &'static str,
    /// What its options mean: a name in words and a help text per option it takes (the
    /// page's fields; CLI and Python help can print the same).
    pub options: &'static [OptInfo],
}

impl FamilyInfo {
    /// What option `opt` means to this family, if it takes it.
    pub fn option(&self, opt: Opt) -> Option<&'static OptInfo> {
        self.options.iter().find(|o| o.opt == opt)
    }
}

/// An option as one family reads it: its name in words and its help.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptInfo {
    pub opt: Opt,
    pub name: &'static str,
    pub help: &'static str,
}

/// What kind of quantity a metric is, which decides how it prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// Seconds of simulated time (SCJG's traces): printed as a duration.
    Seconds,
    /// KKOR's abstract time units (job lengths drawn around 20 of them).
    TimeUnits,
    /// A number of jobs, retries, migrations: whole; a median of an even number of seeds
    /// may end in .5.
    Count,
    /// A ratio, share or mean of counts.
    Ratio,
}

/// A metric of a family's runs: its key (the JSON key of the CLI's `--json`, the page's
/// `data-metric`), its name in words, its quantity and what it measures (empty where the
/// family's doc says it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetricInfo {
    pub key: &'static str,
    pub name: &'static str,
    pub quantity: Quantity,
    pub help: &'static str,
}

/// The metric `key` as the first family that reports it describes it.
pub fn metric(key: &str) -> Option<&'static MetricInfo> {
    FAMILIES
        .iter()
        .flat_map(|f| f.info().metrics)
        .find(|m| m.key == key)
}

/// A paper family. Implementations are unit structs listed in [`FAMILIES`].
pub trait Family: Sync {
    /// Its name, title, docs page and default seeds.
    fn info(&self) -> &'static FamilyInfo;
    /// The family's short name (`sf`, `ses`, `kkor`, `scjg`, `sob`): the docs page's stem.
    fn id(&self) -> &'static str {
        self.info().id
    }
    /// The paper in a few words, for lists and help.
    fn title(&self) -> &'static str {
        self.info().title
    }
    /// The docs page (`docs/ID.md`).
    fn doc(&self) -> &'static str {
        self.info().doc
    }
    /// The seeds a run takes when the caller gives none (1 for the scenario presets: a
    /// scenario has its own seed).
    fn default_seeds(&self) -> u64 {
        self.info().default_seeds
    }
    /// Every preset: (name, what the paper shows and how we run it).
    fn presets(&self) -> Vec<(&'static str, &'static str)>;
    /// The options preset `preset` takes (the CLI's flags of the same names).
    fn takes(&self, preset: &str) -> Vec<Opt>;
    /// The message for `flag` given to `preset`, which does not take it.
    fn not_taken(&self, flag: &str, preset: &str) -> String;
    /// The run spec the caller's options ask for (already checked against [`Family::takes`]).
    fn spec(&self, preset: &str, args: &PresetArgs) -> Result<RunSpec, FamilyError>;
    /// Whether the presets are scenarios (one run each, the scenario runner's), not seed
    /// sweeps: the CLI runs them with its scenario flags.
    fn scenario_presets(&self) -> bool {
        false
    }
    /// Runs the whole sweep `spec` asks for.
    fn run(&self, spec: &RunSpec, ctx: &mut Ctx) -> Result<Box<dyn FamilyReport>, FamilyError>;
    /// The trace files `spec`'s run reads, by name (the page says which to drop).
    fn traces(&self, _spec: &RunSpec) -> Vec<String> {
        Vec::new()
    }
    /// What an edge shows beside `spec`'s report, as JSON (SCJG: one of its runs inspected,
    /// `scjg::inspect`, which the page draws); `None` for most families.
    fn detail(&self, _spec: &RunSpec, _ctx: &mut Ctx) -> Result<Option<Value>, FamilyError> {
        Ok(None)
    }
    /// The x values `spec`'s run sweeps: the spec's own, else the preset's (a family
    /// manifest's axis; `None` for a run without an x axis).
    fn sweep_x(&self, spec: &RunSpec) -> Option<Vec<f64>> {
        spec.x.clone()
    }
    /// Whether a cluster manifest can split `preset` into one case per (x, seed).
    fn splits(&self, _preset: &str) -> bool {
        false
    }
    /// A case's options are runnable (without running anything).
    fn check_case(&self, _spec: &RunSpec) -> Result<(), FamilyError> {
        Ok(())
    }
    /// About the jobs × runs one case simulates (how shards are balanced).
    fn case_work(&self, _spec: &RunSpec) -> f64 {
        1.0
    }
    /// Runs seed `seed` of each of `spec`'s points, through the per-seed function the
    /// family's own sweep takes its median from (so a merge gives the sweep's medians).
    fn run_case(
        &self,
        spec: &RunSpec,
        _seed: u64,
        _load: &mut Load,
    ) -> Result<Vec<CaseRun>, FamilyError> {
        Err(FamilyError::invalid(
            "base.run.preset",
            format!("'{}' has no seed sweep to split", spec.preset),
        ))
    }
}

/// Every family, in the papers' order on the page.
pub const FAMILIES: &[&dyn Family] = &[&sob::Sob, &sf::Sf, &ses::Ses, &kkor::Kkor, &scjg::Scjg];

/// The family that owns preset `name`.
pub fn find(name: &str) -> Option<&'static dyn Family> {
    FAMILIES
        .iter()
        .copied()
        .find(|f| f.presets().iter().any(|(p, _)| *p == name))
}

/// The family whose short name is `id`.
pub fn by_id(id: &str) -> Option<&'static dyn Family> {
    FAMILIES.iter().copied().find(|f| f.id() == id)
}

/// Every preset's name, family by family.
pub fn preset_names() -> Vec<&'static str> {
    FAMILIES
        .iter()
        .flat_map(|f| f.presets())
        .map(|(name, _)| name)
        .collect()
}

/// The family of `preset`, or the error naming it as unknown.
pub fn family_of(preset: &str) -> Result<&'static dyn Family, FamilyError> {
    find(preset).ok_or_else(|| FamilyError::UnknownPreset {
        name: preset.to_string(),
    })
}

/// The first option in `given` that `preset` does not take, as the family's message.
pub fn check_takes(family: &dyn Family, preset: &str, given: &[Opt]) -> Result<(), FamilyError> {
    let takes = family.takes(preset);
    match given.iter().find(|o| !takes.contains(o)) {
        Some(o) => Err(FamilyError::Usage {
            message: family.not_taken(o.flag(), preset),
        }),
        None => Ok(()),
    }
}

/// Runs `preset` of `family` with the options an edge was given (the CLI's flags, Python's
/// keywords): an option the preset does not take is refused with the family's message, the
/// rest become its [`RunSpec`].
pub fn run_preset(
    family: &dyn Family,
    preset: &str,
    args: &PresetArgs,
    ctx: &mut Ctx,
) -> Result<Box<dyn FamilyReport>, FamilyError> {
    check_takes(family, preset, &args.given())?;
    family.run(&family.spec(preset, args)?, ctx)
}

/// Runs `spec` through its family: the report card's entry point.
pub fn run(spec: &RunSpec, ctx: &mut Ctx) -> Result<Box<dyn FamilyReport>, FamilyError> {
    if spec.seed.is_some() {
        return Err(FamilyError::invalid(
            "seed",
            format!(
                "{}: `seed` runs one seed of a sweep: a case of a cluster sweep (`gridscope sweep`), not a whole run",
                spec.preset
            ),
        ));
    }
    family_of(&spec.preset)?.run(spec, ctx)
}

/// The JSON value of a report (key order as serde_json's map keeps it).
fn to_value<T: serde::Serialize>(v: &T) -> Result<Value, FamilyError> {
    serde_json::to_value(v).map_err(|e| FamilyError::Run(format!("report not serializable: {e}")))
}

/// Pretty JSON, as the CLI prints it.
fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}

/// Implements [`FamilyReport`] for a result type with its text table.
macro_rules! report {
    ($t:ty, $text:expr) => {
        impl $crate::family::FamilyReport for $t {
            fn json(&self) -> String {
                $crate::family::to_json(self)
            }
            fn value(&self) -> Result<serde_json::Value, $crate::family::FamilyError> {
                $crate::family::to_value(self)
            }
            fn text(&self) -> String {
                $text(self)
            }
        }
    };
}
pub(crate) use report;

#[cfg(test)]
mod tests;
