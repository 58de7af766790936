//! What is simulated: jobs and the platform they run on (with what its nodes draw). Plain data, no behaviour beyond
//! unit conversions.

pub mod fit;
mod job;
pub mod maintenance;
pub mod nodes;
pub mod packing;
mod platform;
mod pool;
pub mod power;

pub use fit::{NodeFree, PlacementRule};
pub use job::{Job, JobIdx};
pub use maintenance::Maintenance;
pub use nodes::{fewest_nodes, Demand, NodeType, Placements, Resource, Share};
pub use platform::{Allocation, NodeGroup, Platform, Site, MAX_SITE_UNITS};
pub use pool::NodePool;
