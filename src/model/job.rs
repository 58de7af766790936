use crate::time::SimTime;

/// Index of a job in the workload's job vector (not the SWF job number).
pub type JobIdx = u32;

/// One batch job as the simulator sees it. 48 bytes, so a 450k-job trace costs ~21 MB.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The job number from the workload (SWF field 1), negative or not (some logs number
    /// jobs below zero); printed as read in every output, so ids round-trip.
    pub id: i64,
    /// Submit time, relative to the workload's origin (its first submit).
    pub submit: SimTime,
    /// Actual run time on the job's home site.
    pub runtime: SimTime,
    /// The user's estimate (wallclock limit) on the home site; always ≥ 1 tick.
    pub estimate: SimTime,
    /// Processors requested.
    pub procs: u32,
    /// Index of the site the job was submitted to.
    pub home: u32,
    /// User id (SWF field 12), -1 when unknown.
    pub user: i32,
    /// Partition (SWF field 16), -1 when unknown.
    pub partition: i32,
}
