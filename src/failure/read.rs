//! Outages from files, as sites and peers write them: Gridscope's CSV
//! (`node,start,end,kind`) and Alea's `.failures` lines (Batsim's events: `batsim.rs`). Bytes in, outages out with an
//! [`OutageReport`]: a bad line is an error naming the file and the line; a line that is
//! read but not used (Alea's short failures, its per-cluster info lines) is counted.

use super::{FailureError, Outage, OutageKind};
use crate::time::SimTime;

/// What reading an outage file decided.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutageReport {
    /// Outages read (one per node: an Alea line over three nodes counts three).
    pub outages: usize,
    pub failures: usize,
    pub maintenance: usize,
    /// Alea failures shorter than 60 s, skipped as Alea skips them.
    pub skipped_short: usize,
    /// Alea's lines of three fields (a cluster's failure information, not a node's).
    pub skipped_info: usize,
    /// Blank and comment lines.
    pub blank: usize,
    /// Batsim's generic events that are not machine availability changes.
    pub skipped_events: usize,
}

impl OutageReport {
    /// One line for a person: what was read and what was skipped, with why.
    pub fn summary(&self) -> String {
        let plural = |n: usize, one: &str, many: &str| match n {
            1 => format!("1 {one}"),
            _ => format!("{n} {many}"),
        };
        let mut s = format!(
            "{} ({}, {} maintenance)",
            plural(self.outages, "outage", "outages"),
            plural(self.failures, "failure", "failures"),
            self.maintenance
        );
        if self.skipped_short > 0 {
            s.push_str(&format!(
                "; {} under 60 s skipped (Alea's rule)",
                plural(self.skipped_short, "failure", "failures")
            ));
        }
        if self.skipped_info > 0 {
            s.push_str(&format!(
                "; {} skipped",
                plural(
                    self.skipped_info,
                    "cluster information line",
                    "cluster information lines"
                )
            ));
        }
        if self.skipped_events > 0 {
            s.push_str(&format!(
                "; {} skipped (not machine availability)",
                plural(self.skipped_events, "other event", "other events")
            ));
        }
        s
    }
}

/// The platform an outage file is read against: each site's name and node count.
pub struct NodeCounts<'a> {
    pub sites: &'a [(&'a str, u32)],
}

impl NodeCounts<'_> {
    /// Site index of `name`: a site of that name, or the only site.
    fn site(&self, name: &str) -> Option<u32> {
        match self.sites.iter().position(|(n, _)| *n == name) {
            Some(i) => Some(i as u32),
            None if self.sites.len() == 1 => Some(0),
            None => None,
        }
    }

    fn check_node(&self, site: u32, node: u32) -> Result<(), String> {
        match self.sites.get(site as usize) {
            None => Err(format!("site {site} does not exist")),
            Some(&(_, 0)) => Err(format!(
                "site {site} has no node types, so no node can be down"
            )),
            Some(&(name, n)) if node >= n => Err(format!(
                "node {node} does not exist (site '{name}' has nodes 0 to {})",
                n - 1
            )),
            Some(_) => Ok(()),
        }
    }
}

/// Reads an outage file of any of the three kinds, told apart as the CLI and the page tell
/// them: a name ending in `.failures` is Alea's ([`read_alea_failures`], its times from
/// `origin_s`), a first non-blank byte `{` makes Batsim's events ([`read_batsim_events`]),
/// anything else is the CSV ([`read_outages_csv`]).
pub fn read_outage_file(
    file: &str,
    bytes: &[u8],
    nodes: &NodeCounts,
    origin_s: i64,
) -> Result<(Vec<Outage>, OutageReport), FailureError> {
    let json_lines = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    match (file.ends_with(".failures"), json_lines) {
        (true, _) => read_alea_failures(file, bytes, nodes, origin_s),
        (false, true) => super::read_batsim_events(file, bytes, nodes),
        (false, false) => read_outages_csv(file, bytes, nodes),
    }
}

/// Reads Gridscope's outage CSV: a header `node,start,end,kind`, then one outage a line.
/// `node` is a node number of the first site, or `site:node` (site and node numbers from 0);
/// `start` and `end` are seconds from the trace's time origin (decimals allowed); `kind` is
/// `failure` or `maintenance`. Blank lines and lines starting with `#` are skipped.
pub fn read_outages_csv(
    file: &str,
    bytes: &[u8],
    nodes: &NodeCounts,
) -> Result<(Vec<Outage>, OutageReport), FailureError> {
    let text = text_of(file, bytes)?;
    let mut report = OutageReport::default();
    let mut out = Vec::new();
    let mut header = false;
    for (i, raw) in text.lines().enumerate() {
        let bad = at_line(file, i + 1);
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            report.blank += 1;
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if !header {
            if fields != ["node", "start", "end", "kind"] {
                return Err(bad(format!(
                    "the first line must be the header 'node,start,end,kind', not '{line}'"
                )));
            }
            header = true;
            continue;
        }
        if fields.len() != 4 {
            return Err(bad(format!(
                "expected 4 fields (node,start,end,kind), found {}",
                fields.len()
            )));
        }
        let (site, node) = match fields[0].split_once(':') {
            Some((s, n)) => (
                number(s, "site").map_err(bad)?,
                number(n, "node").map_err(bad)?,
            ),
            None => (0, number(fields[0], "node").map_err(bad)?),
        };
        nodes.check_node(site, node).map_err(bad)?;
        let start = seconds(fields[1], "start").map_err(bad)?;
        let end = seconds(fields[2], "end").map_err(bad)?;
        if end <= start {
            return Err(bad(format!(
                "the outage ends at {} s, not after it starts at {} s",
                fields[2], fields[1]
            )));
        }
        let kind = OutageKind::parse(fields[3]).map_err(bad)?;
        out.push(Outage {
            site,
            node,
            start,
            end,
            kind,
        });
    }
    if !header {
        return Err(FailureError::Line {
            file: file.to_string(),
            line: 1,
            msg: "the file is empty: expected the header 'node,start,end,kind'".into(),
        });
    }
    finish(out, report)
}

/// Reads Alea's `.failures` lines (`FailureLoaderNew.java`): tab-separated start (epoch
/// seconds), cluster name, duration (seconds) and the node numbers separated by spaces (in
/// quotes or not). `origin_s` is the epoch second the trace's times count from (an SWF
/// header's `UnixStartTime`). As in Alea, a failure under 60 s is skipped and a line of
/// three fields (a cluster's information line) is not a node failure; both are counted.
/// The cluster is the site of that name, or the only site.
pub fn read_alea_failures(
    file: &str,
    bytes: &[u8],
    nodes: &NodeCounts,
    origin_s: i64,
) -> Result<(Vec<Outage>, OutageReport), FailureError> {
    let text = text_of(file, bytes)?;
    let mut report = OutageReport::default();
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let bad = at_line(file, i + 1);
        if raw.trim().is_empty() || raw.trim_start().starts_with('#') {
            report.blank += 1;
            continue;
        }
        let fields: Vec<&str> = raw.split('\t').collect();
        if fields.len() == 3 {
            report.skipped_info += 1;
            continue;
        }
        if fields.len() != 4 {
            return Err(bad(format!(
                "expected 4 tab-separated fields (start, cluster, duration, nodes), found {}",
                fields.len()
            )));
        }
        let start: i64 = fields[0].trim().parse().map_err(|_| {
            bad(format!(
                "start '{}' is not a whole number",
                fields[0].trim()
            ))
        })?;
        let duration: i64 = fields[2].trim().parse().map_err(|_| {
            bad(format!(
                "duration '{}' is not a whole number",
                fields[2].trim()
            ))
        })?;
        if duration < 60 {
            report.skipped_short += 1;
            continue;
        }
        let cluster = fields[1].trim();
        let site = nodes
            .site(cluster)
            .ok_or_else(|| bad(format!("cluster '{cluster}' is not a site of the platform")))?;
        let start = SimTime::from_secs(start.saturating_sub(origin_s));
        let ids = fields[3].trim().trim_matches('"');
        for id in ids.split_whitespace() {
            let node = number(id, "node").map_err(bad)?;
            nodes.check_node(site, node).map_err(bad)?;
            out.push(Outage {
                site,
                node,
                start,
                end: start + SimTime::from_secs(duration),
                kind: OutageKind::Failure,
            });
        }
    }
    finish(out, report)
}

/// The error of line `line` of `file`, from its message.
pub(super) fn at_line(file: &str, line: usize) -> impl Fn(String) -> FailureError + Copy + '_ {
    move |msg| FailureError::Line {
        file: file.to_string(),
        line,
        msg,
    }
}

pub(super) fn text_of<'a>(file: &str, bytes: &'a [u8]) -> Result<&'a str, FailureError> {
    std::str::from_utf8(bytes).map_err(|e| FailureError::Line {
        file: file.to_string(),
        line: 1 + bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count(),
        msg: "not UTF-8 text".into(),
    })
}

/// Sorts the outages (by start, then site and node) and counts them by kind.
pub(super) fn finish(
    mut out: Vec<Outage>,
    mut report: OutageReport,
) -> Result<(Vec<Outage>, OutageReport), FailureError> {
    out.sort_by_key(|o| (o.start, o.site, o.node, o.end));
    report.outages = out.len();
    report.failures = out.iter().filter(|o| o.kind == OutageKind::Failure).count();
    report.maintenance = out.len() - report.failures;
    Ok((out, report))
}

fn number(s: &str, what: &str) -> Result<u32, String> {
    s.trim()
        .parse()
        .map_err(|_| format!("{what} '{}' is not a node number (0, 1, …)", s.trim()))
}

fn seconds(s: &str, what: &str) -> Result<SimTime, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..1e15).contains(&v) => Ok(SimTime::from_secs_f64(v)),
        _ => Err(format!(
            "{what} '{s}' is not a number of seconds from the trace's start (0 or more)"
        )),
    }
}
