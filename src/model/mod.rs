//! What is simulated: jobs and the platform they run on. Plain data, no behaviour beyond
//! unit conversions.

mod job;
pub mod nodes;
pub mod packing;
mod platform;

pub use job::{Job, JobIdx};
pub use nodes::{Demand, NodeFree, NodePool, NodeType, Placements, Resource, Share};
pub use platform::{Allocation, NodeGroup, Platform, Site, MAX_SITE_UNITS};
