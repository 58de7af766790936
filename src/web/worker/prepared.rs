//! The page's side of the scenario runner ([`ScenarioRun`], `scenario::runner`): a
//! prepared scenario as the coordinating worker sends it to its pool workers
//! ([`PreparedRun`], all but the jobs, which go as bytes) and back. The only web-specific
//! part of the runner, so it lives here, beside the protocol it speaks.

use crate::model::{Job, Platform};
use crate::scenario::ScenarioRun;
use crate::web::protocol::PreparedRun;
use crate::workload::Workload;

impl ScenarioRun {
    /// The prepared scenario as a pool worker gets it ([`ScenarioRun::from_prepared`] with
    /// [`ScenarioRun::jobs`] gives the same runs).
    pub fn prepared(&self) -> PreparedRun {
        let w = self.workload();
        PreparedRun {
            scenario: self.scenario().clone(),
            platform: Platform::clone(self.platform()),
            platform_note: self.platform_note().to_string(),
            workload: w.name.clone(),
            origin: w.origin.0,
            report: w.report.clone(),
        }
    }

    /// A pool worker's copy of the coordinator's prepared scenario: nothing is checked or
    /// resolved again.
    pub fn from_prepared(p: PreparedRun, jobs: Vec<Job>) -> ScenarioRun {
        let workload = Workload {
            name: p.workload,
            jobs: Vec::new(),
            demands: Vec::new(),
            logged_waits: Vec::new(),
            qos: Vec::new(),
            accounts: Vec::new(),
            origin: crate::time::SimTime(p.origin),
            report: p.report,
        };
        ScenarioRun::from_parts(p.scenario, p.platform, p.platform_note, jobs, workload)
    }
}
