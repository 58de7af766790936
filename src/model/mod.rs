//! What is simulated: jobs and the platform they run on (with what its nodes draw). Plain data, no behaviour beyond
//! unit conversions.

mod job;
pub mod maintenance;
pub mod nodes;
pub mod packing;
mod platform;
pub mod power;

pub use job::{Job, JobIdx};
pub use maintenance::Maintenance;
pub use nodes::{Demand, NodeFree, NodePool, NodeType, Placements, Resource, Share};
pub use platform::{Allocation, NodeGroup, Platform, Site, MAX_SITE_UNITS};
