use serde::{Deserialize, Serialize};

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
        }
    }

    /// Total processors.
    pub fn cpus(&self) -> u64 {
        self.nodes as u64 * self.cpus_per_node as u64
    }

    /// Allocation units the local scheduler counts: processors or whole nodes.
    pub fn capacity_units(&self) -> u32 {
        match self.allocation {
            Allocation::Processor => self.cpus().min(u32::MAX as u64) as u32,
            Allocation::Node => self.nodes,
        }
    }

    /// Units a job of `procs` processors holds here.
    pub fn units_for(&self, procs: u32) -> u32 {
        match self.allocation {
            Allocation::Processor => procs,
            Allocation::Node => procs.div_ceil(self.cpus_per_node.max(1)),
        }
    }

    /// Processors one allocation unit stands for (for utilization: a node-exclusive job
    /// holds whole nodes even when it uses fewer CPUs).
    pub fn cpus_per_unit(&self) -> u32 {
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
        if !(self.speed.is_finite() && self.speed > 0.0) {
            return Err(format!(
                "site '{}' has speed {}; a speed must be a positive number",
                self.name, self.speed
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
        };
        assert_eq!(s.capacity_units(), 10);
        assert_eq!(s.units_for(1), 1);
        assert_eq!(s.units_for(8), 1);
        assert_eq!(s.units_for(9), 2);
        assert_eq!(s.cpus(), 80);
    }
}
