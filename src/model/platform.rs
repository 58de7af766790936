use serde::{Deserialize, Serialize};

use super::nodes::NodeType;
use super::pool::NodePool;

/// How a site hands out its processors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Allocation {
    /// Any processor to any job: a job of p CPUs takes p of them (the usual reading of
    /// Parallel Workloads Archive traces).
    #[default]
    Processor,
    /// A node runs at most one job: a job of p CPUs takes ceil(p / cpus_per_node) whole
    /// nodes (SOB §3: the machines of the paper's Table 1).
    Node,
}

/// A group of identical nodes inside a site (SES: the Lattice cluster's groups A–D).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeGroup {
    pub name: String,
    pub nodes: u32,
    pub cpus_per_node: u32,
}

/// The most processors a site can have: one less than 2³² − 1, which is what a job asking
/// for more than 2³² − 1 processors is clamped to on import, so such a job fits no site and
/// is rejected as too wide instead of running.
pub const MAX_SITE_UNITS: u32 = u32::MAX - 1;

/// A machine, cluster or organization.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Site {
    pub name: String,
    pub nodes: u32,
    pub cpus_per_node: u32,
    /// Relative speed (MHz in SOB Table 1). Runtime on m = runtime at home × speed(home) / speed(m).
    #[serde(default = "one")]
    pub speed: f64,
    #[serde(default)]
    pub allocation: Allocation,
    /// Optional node groups (SES). Empty means one homogeneous pool.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<NodeGroup>,
    /// Nodes that exist (issue #37, scenario version 3): node types × counts with cores,
    /// memory and GPUs, in node order. Empty (every site before it) means `nodes ×
    /// cpus_per_node` interchangeable units, as always. With types, `nodes` is their count
    /// and the site's processors are their cores; jobs are placed on nodes
    /// (`model::nodes`, docs/nodes.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node_types: Vec<NodeType>,
}

fn one() -> f64 {
    1.0
}

impl Site {
    /// A processor-granular site of `procs` single-CPU nodes at speed 1.
    pub fn flat(name: impl Into<String>, procs: u32) -> Site {
        Site {
            name: name.into(),
            nodes: procs,
            cpus_per_node: 1,
            speed: 1.0,
            allocation: Allocation::Processor,
            groups: Vec::new(),
            node_types: Vec::new(),
        }
    }

    /// Total processors (with node types: their cores).
    pub fn cpus(&self) -> u64 {
        if self.node_types.is_empty() {
            return self.nodes as u64 * self.cpus_per_node as u64;
        }
        self.node_types
            .iter()
            .map(|t| u64::from(t.count) * u64::from(t.cores))
            .sum()
    }

    /// True when jobs are placed on the site's nodes (it lists node types).
    pub fn has_nodes(&self) -> bool {
        !self.node_types.is_empty()
    }

    /// True when the site lists node types and some of its nodes run at most one job each:
    /// all of them (`allocation: node`), or those of the types marked `exclusive`
    /// (docs/nodes.md, "Node-exclusive node types").
    pub fn has_exclusive_nodes(&self) -> bool {
        self.has_nodes() && self.node_types.iter().any(|t| self.is_exclusive_type(t))
    }

    /// True when each node of type `t` (one of this site's) runs at most one job.
    pub fn is_exclusive_type(&self, t: &NodeType) -> bool {
        self.allocation == Allocation::Node || t.exclusive
    }

    /// The site's nodes, free, when it lists node types.
    pub fn node_pool(&self) -> Option<NodePool> {
        if !self.has_nodes() {
            return None;
        }
        let pool = NodePool::new(&self.node_types);
        if !self.has_exclusive_nodes() {
            return Some(pool);
        }
        Some(pool.with_exclusive_nodes(self.nodes_of_types(|t| self.is_exclusive_type(t))))
    }

    /// The nodes of the types `of` picks, as a bit mask in node order (bit n: node n; the
    /// types' nodes are numbered in the order listed).
    pub fn nodes_of_types(&self, of: impl Fn(&NodeType) -> bool) -> Vec<u64> {
        let total: usize = self.node_types.iter().map(|t| t.count as usize).sum();
        let mut mask = vec![0u64; total.div_ceil(64)];
        let mut first = 0usize;
        for t in &self.node_types {
            let count = t.count as usize;
            if of(t) {
                (first..first + count).for_each(|n| mask[n / 64] |= 1 << (n % 64));
            }
            first += count;
        }
        mask
    }

    /// Allocation units the local scheduler counts: processors or whole nodes. A site with
    /// node types counts its cores, node-exclusive or not: its nodes differ, so a job's
    /// cores held are known only once it is placed (the engine charges them then).
    pub fn capacity_units(&self) -> u32 {
        if self.has_nodes() {
            return self.cpus().min(u32::MAX as u64) as u32;
        }
        match self.allocation {
            Allocation::Processor => self.cpus().min(u32::MAX as u64) as u32,
            Allocation::Node => self.nodes,
        }
    }

    /// Units a job of `procs` processors holds here (on a site with node types, the cores
    /// it asks for: a node-exclusive site's engine charges the cores of the nodes placed).
    pub fn units_for(&self, procs: u32) -> u32 {
        if self.has_nodes() {
            return procs;
        }
        match self.allocation {
            Allocation::Processor => procs,
            Allocation::Node => procs.div_ceil(self.cpus_per_node.max(1)),
        }
    }

    /// Processors one allocation unit stands for (for utilization: a node-exclusive job
    /// holds whole nodes even when it uses fewer CPUs).
    pub fn cpus_per_unit(&self) -> u32 {
        if self.has_nodes() {
            return 1;
        }
        match self.allocation {
            Allocation::Processor => 1,
            Allocation::Node => self.cpus_per_node.max(1),
        }
    }

    /// Checks the description makes sense; the message says what to change.
    pub fn validate(&self) -> Result<(), String> {
        if self.cpus() > u64::from(MAX_SITE_UNITS) {
            return Err(format!(
                "site '{}' has {} processors (nodes × cpus_per_node); a site can have at most {MAX_SITE_UNITS}",
                self.name,
                self.cpus()
            ));
        }
        if self.nodes == 0 || self.cpus_per_node == 0 {
            return Err(format!(
                "site '{}' has no processors (nodes = {}, cpus_per_node = {})",
                self.name, self.nodes, self.cpus_per_node
            ));
        }
        if self.has_nodes() {
            self.validate_node_types()?;
        }
        if !(self.speed.is_finite() && self.speed > 0.0) {
            return Err(format!(
                "site '{}' has speed {}; a speed must be a positive number",
                self.name, self.speed
            ));
        }
        Ok(())
    }

    /// Node types: as many nodes as `nodes` says, each with a core, no SES groups beside
    /// them (shared between jobs, or node-exclusive with `allocation: node`).
    fn validate_node_types(&self) -> Result<(), String> {
        let count: u64 = self.node_types.iter().map(|t| u64::from(t.count)).sum();
        if count != u64::from(self.nodes) {
            return Err(format!(
                "site '{}' says nodes = {} but its node_types count {count} nodes; make them agree",
                self.name, self.nodes
            ));
        }
        if let Some(t) = self.node_types.iter().find(|t| t.cores == 0) {
            return Err(format!(
                "site '{}': node type '{}' has no cores; every node needs at least one",
                self.name, t.name
            ));
        }
        if !self.groups.is_empty() {
            return Err(format!(
                "site '{}' lists node_types and SES groups; a site with node types has no groups \
                 (its node types are its groups)",
                self.name
            ));
        }
        Ok(())
    }
}

/// The sites of a run, in a fixed order: site indices in jobs and outputs refer to it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Platform {
    pub name: String,
    pub sites: Vec<Site>,
}

impl Platform {
    pub fn single(site: Site) -> Platform {
        Platform {
            name: site.name.clone(),
            sites: vec![site],
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.sites.is_empty() {
            return Err(format!("platform '{}' has no sites", self.name));
        }
        self.sites.iter().try_for_each(Site::validate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_exclusive_rounds_up_to_whole_nodes() {
        let s = Site {
            name: "M".into(),
            nodes: 10,
            cpus_per_node: 8,
            speed: 375.0,
            allocation: Allocation::Node,
            groups: vec![],
            node_types: vec![],
        };
        assert_eq!(s.capacity_units(), 10);
        assert_eq!(s.units_for(1), 1);
        assert_eq!(s.units_for(8), 1);
        assert_eq!(s.units_for(9), 2);
        assert_eq!(s.cpus(), 80);
    }
}
