//! A platform file as users bring it (issue #37), for `simulate --platform FILE`:
//! Gridscope's own platform JSON (`{"name", "sites": [...]}`, or one site), or an AccaSim
//! system configuration read unchanged (`{"groups": {"g0": {"core": 8, "mem": 12582912}},
//! "resources": {"g0": 1024}}`, AccaSim 1.1.3's `ResourceManager`: each group a node type,
//! its nodes in the order `resources` lists the groups, memory in the trace's unit, KB).

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

use crate::model::{NodeType, Platform, Site};

/// A JSON object's entries in file order (AccaSim numbers its nodes in that order).
struct Ordered(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Ordered, A::Error> {
                let mut v = Vec::new();
                while let Some(entry) = m.next_entry::<String, Value>()? {
                    v.push(entry);
                }
                Ok(Ordered(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// Reads a platform file; `name` (the file's) names the site of an AccaSim configuration
/// and every error.
pub fn read_platform_file(name: &str, text: &str) -> Result<Platform, String> {
    let top: Ordered = serde_json::from_str(text)
        .map_err(|e| format!("{name}: not a platform (a JSON object): {e}"))?;
    let has = |k: &str| top.0.iter().any(|(key, _)| key == k);
    let platform = if has("groups") && has("resources") {
        accasim(name, text)?
    } else if has("sites") {
        serde_json::from_str::<Platform>(text).map_err(|e| format!("{name}: {e}"))?
    } else {
        let site = serde_json::from_str::<Site>(text).map_err(|e| {
            format!("{name}: neither a Gridscope platform ({{\"name\", \"sites\"}}), a site, nor an AccaSim configuration ({{\"groups\", \"resources\"}}): {e}")
        })?;
        Platform::single(site)
    };
    platform.validate().map_err(|e| format!("{name}: {e}"))?;
    Ok(platform)
}

/// An AccaSim configuration: one site whose node types are its groups.
/// AccaSim's configuration file: its two objects, in file order.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct AccaSimConfig {
    groups: Ordered,
    resources: Ordered,
}

/// The groups in the order `resources` lists them, read from the text (a parsed JSON value
/// would sort them).
fn accasim(name: &str, text: &str) -> Result<Platform, String> {
    let AccaSimConfig { groups, resources } = serde_json::from_str(text).map_err(|e| {
        format!("{name}: an AccaSim configuration (groups and resources only): {e}")
    })?;
    let mut types = Vec::new();
    for (group, count) in &resources.0 {
        let count = as_u32(count).ok_or_else(|| {
            format!("{name}: resources.{group} must be a whole number of nodes, found {count}")
        })?;
        let attrs = groups.0.iter().find(|(g, _)| g == group).ok_or_else(|| {
            format!("{name}: resources names group '{group}', which groups does not define")
        })?;
        let attrs =
            Ordered::deserialize(&attrs.1).map_err(|e| format!("{name}: groups.{group}: {e}"))?;
        let mut t = NodeType {
            name: group.clone(),
            count,
            cores: 0,
            mem_kb: 0,
            gpus: 0,
            power: None,
            exclusive: false,
        };
        for (attr, v) in &attrs.0 {
            let bad =
                || format!("{name}: groups.{group}.{attr} must be a whole number ≥ 0, found {v}");
            match attr.as_str() {
                "core" => t.cores = as_u32(v).ok_or_else(bad)?,
                "mem" => t.mem_kb = v.as_u64().ok_or_else(bad)?,
                "gpu" => t.gpus = as_u32(v).ok_or_else(bad)?,
                other => {
                    return Err(format!(
                        "{name}: groups.{group}.{other}: Gridscope reads core, mem (KB) and gpu"
                    ))
                }
            }
        }
        types.push(t);
    }
    let nodes: u64 = types.iter().map(|t| u64::from(t.count)).sum();
    let site_name = name
        .rsplit('/')
        .next()
        .unwrap_or(name)
        .trim_end_matches(".json")
        .to_string();
    let site = Site {
        name: site_name.clone(),
        nodes: u32::try_from(nodes).map_err(|_| format!("{name}: {nodes} nodes is too many"))?,
        cpus_per_node: types.iter().map(|t| t.cores).max().unwrap_or(0),
        speed: 1.0,
        allocation: Default::default(),
        groups: Vec::new(),
        node_types: types,
    };
    Ok(Platform {
        name: site_name,
        sites: vec![site],
    })
}

fn as_u32(v: &Value) -> Option<u32> {
    v.as_u64().and_then(|n| u32::try_from(n).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_accasim_configuration_reads_unchanged_in_its_order() {
        let text = r#"{"groups": {"big": {"core": 8, "mem": 100, "gpu": 2}, "g0": {"core": 4, "mem": 50}},
                       "resources": {"g0": 2, "big": 1}}"#;
        let p = read_platform_file("dir/sys.json", text).unwrap();
        let s = &p.sites[0];
        assert_eq!((s.name.as_str(), s.nodes, s.cpus()), ("sys", 3, 16));
        let names: Vec<_> = s
            .node_types
            .iter()
            .map(|t| (t.name.as_str(), t.count, t.gpus))
            .collect();
        assert_eq!(names, [("g0", 2, 0), ("big", 1, 2)]);
        let e = read_platform_file(
            "s.json",
            r#"{"groups": {"g": {"core": 1, "disk": 3}}, "resources": {"g": 1}}"#,
        )
        .unwrap_err();
        assert!(e.contains("groups.g.disk"), "{e}");
        let site = r#"{"name": "M", "nodes": 4, "cpus_per_node": 2}"#;
        assert_eq!(
            read_platform_file("m.json", site).unwrap().sites[0].cpus(),
            8
        );
    }
}
