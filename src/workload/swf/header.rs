//! The SWF header: `; Key: value` lines, typed where the simulator uses them, with a
//! warning for a known key whose value does not parse (split from the reader, issue #30).

use serde::Serialize;

use super::MAX_FIELD;
use crate::model::MAX_SITE_UNITS;

/// The `; Key: value` lines of an SWF header, in file order, with typed views of the ones
/// the simulator uses.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, PartialEq)]
pub struct SwfHeader {
    pub fields: Vec<(String, String)>,
    pub max_nodes: Option<u64>,
    pub max_procs: Option<u64>,
    pub max_jobs: Option<u64>,
    pub max_records: Option<u64>,
    pub unix_start_time: Option<i64>,
    pub time_zone_string: Option<String>,
    pub notes: Vec<String>,
    /// Jobs the archive's cleaning removed, summed from "(N jobs removed)" header lines:
    /// a cleaned log holds MaxRecords minus these.
    pub removed_by_cleaning: u64,
}

/// The N of "(N jobs removed)" in a header line of a cleaned archive log.
pub(super) fn jobs_removed(text: &str) -> u64 {
    let Some(end) = text.find(" jobs removed)") else {
        return 0;
    };
    let head = &text[..end];
    let start = head.rfind('(').map(|i| i + 1).unwrap_or(0);
    head[start..].trim().parse().unwrap_or(0)
}

impl SwfHeader {
    /// Records a `Key: value` header line; a known key whose value does not parse is
    /// ignored, and the returned warning says so (the import report shows it).
    pub(super) fn add(&mut self, key: &str, value: &str) -> Option<String> {
        let first = value.split_whitespace().next().unwrap_or("");
        let number = first.parse::<i64>().ok();
        let positive = number.filter(|&v| v > 0).map(|v| v as u64);
        let lower = key.to_ascii_lowercase();
        let bad = |what: &str| {
            Some(format!(
                "header {key}: '{}' is not {what}; ignored",
                value.chars().take(40).collect::<String>()
            ))
        };
        let warning = match lower.as_str() {
            "maxnodes" | "maxprocs" | "maxjobs" | "maxrecords" => {
                match lower.as_str() {
                    "maxnodes" => self.max_nodes = positive,
                    "maxprocs" => self.max_procs = positive,
                    "maxjobs" => self.max_jobs = positive,
                    _ => self.max_records = positive,
                }
                if positive.is_none() {
                    bad("a positive whole number")
                } else if matches!(lower.as_str(), "maxnodes" | "maxprocs")
                    && positive > Some(u64::from(MAX_SITE_UNITS))
                {
                    // A platform sized from the header cannot hold this many units: say so
                    // here rather than let the platform shrink it without a word.
                    Some(format!(
                        "header {key}: {} is above {MAX_SITE_UNITS}, the most units a site can have; a platform sized from the header is clamped to that",
                        positive.unwrap_or(0)
                    ))
                } else {
                    None
                }
            }
            "unixstarttime" => {
                // The same bound as every job field: beyond it the clock would wrap.
                self.unix_start_time = number.filter(|v| v.abs() <= MAX_FIELD);
                self.unix_start_time
                    .is_none()
                    .then(|| bad("a whole number of seconds within ±10¹²"))
                    .flatten()
            }
            "timezonestring" => {
                self.time_zone_string = Some(value.to_string());
                None
            }
            "note" => {
                self.notes.push(value.to_string());
                None
            }
            _ => None,
        };
        self.fields.push((key.to_string(), value.to_string()));
        warning
    }
}
