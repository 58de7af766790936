//! Platform presets from the papers (ALGORITHMS.md §1).

use crate::model::{Allocation, NodeGroup, Platform, Site};

/// (name, description) of every platform preset.
pub const PLATFORM_PRESETS: &[(&str, &str)] = &[
    ("demo", "one processor-granular site of 128 CPUs (the built-in demo)"),
    ("sob-3", "SOB Table 1 machines M1–M3, node-exclusive, speeds in MHz"),
    ("sob-6", "SOB Table 1 machines M1–M6, node-exclusive, speeds in MHz"),
    ("ses-lattice", "SES's Lattice cluster: groups A 36×4, B 20×4, C 1×4, D 50×1 CPUs (node groups are used by the SES node-group policy; local schedulers see one pool of 278 CPUs)"),
    ("kkor", "KKOR: three clusters of 32, 64 and 128 processors, equal speed"),
    ("scjg-sp", "SCJG: one 192-node IBM SP, one CPU per node"),
];

fn sob(name: &str, nodes: u32, cpus: u32, mhz: f64) -> Site {
    Site {
        name: name.into(),
        nodes,
        cpus_per_node: cpus,
        speed: mhz,
        allocation: Allocation::Node,
        groups: vec![],
    }
}

pub fn platform_preset(name: &str) -> Option<Platform> {
    let sob6 = || {
        vec![
            sob("M1", 192, 16, 375.0),
            sob("M2", 305, 4, 332.0),
            sob("M3", 144, 8, 375.0),
            sob("M4", 8, 16, 1300.0),
            sob("M5", 74, 4, 375.0),
            sob("M6", 180, 4, 375.0),
        ]
    };
    let sites = match name {
        "demo" => vec![Site::flat("cluster", 128)],
        "sob-3" => sob6().into_iter().take(3).collect(),
        "sob-6" => sob6(),
        "ses-lattice" => {
            let g = |n: &str, nodes, cpus| NodeGroup {
                name: n.into(),
                nodes,
                cpus_per_node: cpus,
            };
            vec![Site {
                name: "Lattice".into(),
                nodes: 278,
                cpus_per_node: 1,
                speed: 1.0,
                allocation: Allocation::Processor,
                groups: vec![g("A", 36, 4), g("B", 20, 4), g("C", 1, 4), g("D", 50, 1)],
            }]
        }
        "kkor" => vec![
            Site::flat("O1", 32),
            Site::flat("O2", 64),
            Site::flat("O3", 128),
        ],
        "scjg-sp" => vec![Site::flat("SP", 192)],
        _ => return None,
    };
    Some(Platform {
        name: name.to_string(),
        sites,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_builds_and_validates() {
        for (name, _) in PLATFORM_PRESETS {
            let p = platform_preset(name).unwrap();
            p.validate().unwrap();
        }
        let lattice = platform_preset("ses-lattice").unwrap();
        let cpus: u32 = lattice.sites[0]
            .groups
            .iter()
            .map(|g| g.nodes * g.cpus_per_node)
            .sum();
        assert_eq!(cpus as u64, lattice.sites[0].cpus());
    }
}
