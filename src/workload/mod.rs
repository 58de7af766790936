//! Workloads: the SWF reader and writer, and the synthetic generators. Everything here takes
//! bytes or parameters and returns `Result`; nothing reads files (the edges do).

mod ses;
pub mod hyper_erlang;
pub mod swf;

pub use ses::{SesPoisson, SES_PROCESSOR_TABLE};
pub use swf::{read_swf, write_swf, ImportReport, SwfError, SwfHeader, SwfOptions};

use crate::engine::SimTime;
use crate::model::Job;

/// Jobs ready to simulate, sorted by submit time, with what importing them decided.
#[derive(Clone, Debug)]
pub struct Workload {
    /// File name or generator description.
    pub name: String,
    pub jobs: Vec<Job>,
    /// Submit time 0 of `jobs` is this many ticks after the source's own time zero
    /// (SWF: after UnixStartTime). The writer adds it back.
    pub origin: SimTime,
    pub report: ImportReport,
}
