//! The options a family preset run takes, as the edges give them: the CLI's flags of
//! `run --preset` and Python's keyword arguments of `family_preset`. Each family says which
//! it takes ([`super::Family::takes`]) and turns them into a [`super::RunSpec`].

use crate::allocation::sweep::Vary;
use crate::allocation::{AllocationPolicy, Dispatch};

/// One option, named as its CLI flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opt {
    Seeds,
    Batches,
    Vary,
    X,
    Rates,
    Lambda,
    Load,
    BatchSize,
    Cv,
    Policies,
    Dispatch,
    DllReport,
    SiteQueue,
    Coefficients,
    BatchJobs,
    BatchLength,
    /// `--traces`: where the presets that read traces find them.
    Traces,
}

impl Opt {
    /// The CLI flag.
    pub fn flag(self) -> &'static str {
        match self {
            Opt::Seeds => "--seeds",
            Opt::Batches => "--batches",
            Opt::Vary => "--vary",
            Opt::X => "--x",
            Opt::Rates => "--rates",
            Opt::Lambda => "--lambda",
            Opt::Load => "--load",
            Opt::BatchSize => "--batch-size",
            Opt::Cv => "--cv",
            Opt::Policies => "--policies",
            Opt::Dispatch => "--dispatch",
            Opt::DllReport => "--dll-report",
            Opt::SiteQueue => "--site-queue",
            Opt::Coefficients => "--coefficients",
            Opt::BatchJobs => "--batch-jobs",
            Opt::BatchLength => "--batch-length",
            Opt::Traces => "--traces",
        }
    }
}

/// The options given (None / false: the preset's own).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PresetArgs {
    pub seeds: Option<u64>,
    pub batches: Option<u64>,
    pub vary: Option<Vary>,
    pub x: Option<Vec<f64>>,
    pub rates: Option<Vec<f64>>,
    pub lambda: Option<f64>,
    pub load: Option<f64>,
    pub batch_size: Option<u32>,
    pub cv: Option<f64>,
    pub policies: Option<Vec<AllocationPolicy>>,
    pub dispatch: Option<Dispatch>,
    pub dll_report: Option<f64>,
    pub site_queue: bool,
    pub coefficients: Option<Vec<f64>>,
    pub batch_jobs: Option<u32>,
    pub batch_length: Option<f64>,
    /// Whether a trace folder was named (the run reads traces through its loader).
    pub traces: bool,
}

impl PresetArgs {
    /// The options given, in the CLI's order of flags (the first one a preset does not take
    /// is the one its message names).
    pub fn given(&self) -> Vec<Opt> {
        [
            (self.seeds.is_some(), Opt::Seeds),
            (self.batches.is_some(), Opt::Batches),
            (self.vary.is_some(), Opt::Vary),
            (self.x.is_some(), Opt::X),
            (self.rates.is_some(), Opt::Rates),
            (self.lambda.is_some(), Opt::Lambda),
            (self.load.is_some(), Opt::Load),
            (self.batch_size.is_some(), Opt::BatchSize),
            (self.cv.is_some(), Opt::Cv),
            (self.policies.is_some(), Opt::Policies),
            (self.dispatch.is_some(), Opt::Dispatch),
            (self.dll_report.is_some(), Opt::DllReport),
            (self.site_queue, Opt::SiteQueue),
            (self.coefficients.is_some(), Opt::Coefficients),
            (self.batch_jobs.is_some(), Opt::BatchJobs),
            (self.batch_length.is_some(), Opt::BatchLength),
            (self.traces, Opt::Traces),
        ]
        .into_iter()
        .filter_map(|(given, o)| given.then_some(o))
        .collect()
    }
}
