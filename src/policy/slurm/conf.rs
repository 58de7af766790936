//! The `slurm.conf` lines the `slurm` policy reads (slurm.conf(5)): `PriorityWeight*`
//! (`PriorityWeightTRES` for `CPU`, `Mem` and `GRES/gpu`),
//! `PriorityMaxAge`, `PriorityDecayHalfLife`, `PriorityCalcPeriod`, `PriorityFavorSmall`,
//! `SchedulerParameters=bf_window=…,bf_max_job_test=…,bf_resolution=…,bf_max_job_user=…,
//! bf_min_age_reserve=…,bf_interval=…` and
//! `PartitionName=… PriorityJobFactor=… PriorityTier=… MaxTime=… Nodes=…`. Bytes in,
//! `Result` out; a bad value names its line, and every key this reader does not use is
//! listed in the report, never dropped silently. Keys are case-insensitive (as Slurm's);
//! partition names are not.

use std::fmt;

use super::{PartitionFactor, SlurmConfig};

/// A `slurm.conf` read: the configuration (Slurm's defaults where the file says nothing)
/// and the keys it holds that the `slurm` policy does not read, with their lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlurmConfReport {
    pub config: SlurmConfig,
    /// `(line, key)` for each key not read, in file order; a `SchedulerParameters` entry
    /// reads `SchedulerParameters:bf_continue`, a partition's `PartitionName:Default`.
    pub unknown: Vec<(usize, String)>,
    /// What the user should know of how the file is read, one line each (which fair share
    /// the policy computes when fair share has a weight).
    pub notes: Vec<String>,
}

impl SlurmConfReport {
    /// What a front end tells the user of the read, one line each: the keys not read
    /// ([`SlurmConfReport::unknown_summary`]), then the notes.
    pub fn messages(&self) -> Vec<String> {
        let mut out: Vec<String> = self.unknown_summary().into_iter().collect();
        out.extend(self.notes.iter().cloned());
        out
    }

    /// One line for outputs: what was not read.
    pub fn unknown_summary(&self) -> Option<String> {
        if self.unknown.is_empty() {
            return None;
        }
        let keys: Vec<String> = self
            .unknown
            .iter()
            .map(|(line, key)| format!("{key} (line {line})"))
            .collect();
        Some(format!(
            "{} key(s) not modelled, not read: {}",
            keys.len(),
            keys.join(", ")
        ))
    }
}

/// A value the reader cannot use, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlurmConfError {
    /// 1-based line number.
    pub line: usize,
    pub key: String,
    pub value: String,
    pub reason: String,
}

impl fmt::Display for SlurmConfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "slurm.conf line {}: {}={}: {}",
            self.line, self.key, self.value, self.reason
        )
    }
}

impl std::error::Error for SlurmConfError {}

impl SlurmConfError {
    /// `key=value` on line `line` cannot be used, for `reason`.
    fn at(line: usize, key: &str, value: &str, reason: &str) -> SlurmConfError {
        SlurmConfError {
            line,
            key: key.to_string(),
            value: value.to_string(),
            reason: reason.to_string(),
        }
    }
}

/// Which of the `SchedulerParameters` whose absence the reader notes a line gave.
#[derive(Default)]
struct SchedulerSeen {
    bf_interval: bool,
    sched_interval: bool,
}

/// One `SchedulerParameters=` line's entries into `config`; those not modelled go to
/// `unknown`, a bad value fails naming the line.
fn scheduler_parameters(
    value: &str,
    line: usize,
    config: &mut SlurmConfig,
    unknown: &mut Vec<(usize, String)>,
) -> Result<SchedulerSeen, SlurmConfError> {
    let mut seen = SchedulerSeen::default();
    for entry in value.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (k, v) = entry.split_once('=').unwrap_or((entry, ""));
        let bad = |reason: &str| SlurmConfError::at(line, k, v, reason);
        match k.to_ascii_lowercase().as_str() {
            "bf_window" => config.bf_window_min = whole(v).map_err(bad)?,
            "bf_resolution" => config.bf_resolution_s = whole(v).map_err(bad)?,
            "bf_max_job_test" => config.bf_max_job_test = whole_u32(v).map_err(bad)?,
            "bf_max_job_user" => config.bf_max_job_user = whole_u32(v).map_err(bad)?,
            "bf_min_age_reserve" => config.bf_min_age_reserve_s = whole(v).map_err(bad)?,
            "bf_interval" => {
                config.bf_interval_s = whole(v).map_err(bad)?;
                seen.bf_interval = true;
            }
            // Read, and nothing to store: the main scheduler runs at every event and tick,
            // and between them nothing changes that a periodic pass would see
            // (docs/slurm.md, "Simplifications").
            "sched_interval" => {
                whole(v).map_err(bad)?;
                seen.sched_interval = true;
            }
            _ => unknown.push((line, format!("SchedulerParameters:{k}"))),
        }
    }
    Ok(seen)
}

/// Reads a `slurm.conf`. Comments (`#` to the end of the line) and blank lines are skipped.
pub fn read_slurm_conf(bytes: &[u8]) -> Result<SlurmConfReport, SlurmConfError> {
    let mut config = SlurmConfig::default();
    let mut unknown = Vec::new();
    let mut bf_interval_given = false;
    let mut sched_interval = false;
    // PriorityFlags=NO_FAIR_TREE seen: Slurm computes classic fair share, else Fair Tree.
    let mut classic = false;
    // Each NodeName line's CPUs= (None: the line gives none).
    let mut node_cpus: Vec<Option<u32>> = Vec::new();
    let text = String::from_utf8_lossy(bytes);
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let body = raw.split('#').next().unwrap_or("").trim();
        if body.is_empty() {
            continue;
        }
        let bad =
            |key: &str, value: &str, reason: &str| SlurmConfError::at(line, key, value, reason);
        let Some((key, value)) = body.split_once('=') else {
            return Err(bad(body, "", "not a Key=Value line"));
        };
        let (key, value) = (key.trim(), value.trim());
        match key.to_ascii_lowercase().as_str() {
            "partitionname" => {
                partition_line(body, line, &mut config, &mut unknown)?;
                continue;
            }
            "nodename" => {
                node_line(body, line, &mut node_cpus, &mut unknown)?;
                continue;
            }
            "schedulerparameters" => {
                let seen = scheduler_parameters(value, line, &mut config, &mut unknown)?;
                bf_interval_given |= seen.bf_interval;
                sched_interval |= seen.sched_interval;
                continue;
            }
            _ => {}
        }
        let bad = |reason: &str| bad(key, value, reason);
        let c = &mut config;
        match key.to_ascii_lowercase().as_str() {
            "priorityweightage" => c.weight_age = whole_u32(value).map_err(bad)?,
            "priorityweightfairshare" => c.weight_fairshare = whole_u32(value).map_err(bad)?,
            "priorityweightjobsize" => c.weight_job_size = whole_u32(value).map_err(bad)?,
            "priorityweightpartition" => c.weight_partition = whole_u32(value).map_err(bad)?,
            "priorityweightqos" => c.weight_qos = whole_u32(value).map_err(bad)?,
            "priorityweighttres" => tres_weights(value, line, c, &mut unknown)?,
            "prioritymaxage" => c.max_age_s = slurm_time(value).map_err(bad)?,
            "prioritydecayhalflife" => c.decay_half_life_s = slurm_time(value).map_err(bad)?,
            "prioritycalcperiod" => c.calc_period_s = slurm_time(value).map_err(bad)?,
            "priorityfavorsmall" => c.favor_small = yes_no(value).map_err(bad)?,
            "priorityflags" => {
                for flag in value.split(',').map(str::trim).filter(|f| !f.is_empty()) {
                    if flag.eq_ignore_ascii_case("no_fair_tree") {
                        classic = true;
                    } else {
                        unknown.push((line, format!("PriorityFlags:{flag}")));
                    }
                }
            }
            _ => unknown.push((line, key.to_string())),
        }
    }
    config.check().map_err(|reason| SlurmConfError {
        line: 0,
        key: "(whole file)".into(),
        value: String::new(),
        reason,
    })?;
    // Without NO_FAIR_TREE Slurm (since 19.05) ranks users by Fair Tree.
    config.fair_tree = !classic;
    let mut notes = Vec::new();
    notes.extend(node_size(&node_cpus, &mut config));
    if sched_interval {
        notes.push(
            "sched_interval read: the main scheduler runs at every submission, end and priority tick, between which a periodic pass finds nothing new".into(),
        );
    }
    if !bf_interval_given {
        notes.push(
            "no bf_interval: the backfill runs at every scheduling pass (Slurm's default is 30 s; write SchedulerParameters=bf_interval=30 to model it)"
                .to_string(),
        );
    }
    if config.partitions.iter().any(|p| p.nodes.is_some()) {
        notes.push(
            "partitions' Nodes= name node types: a partition runs its jobs on the nodes of those types where its site's node types carry every name, and spans the site elsewhere (docs/slurm.md)"
                .to_string(),
        );
    }
    if config.fair_tree && config.weight_fairshare > 0 {
        notes.push(
            "fair share by Fair Tree (PriorityFlags has no NO_FAIR_TREE), as Slurm since 19.05"
                .to_string(),
        );
    }
    Ok(SlurmConfReport {
        config,
        unknown,
        notes,
    })
}

/// Slurm's backfill reserves whole nodes: their size, where every node has the same
/// (`node_cpus`, one per `NodeName` line); the note that says what was taken.
fn node_size(node_cpus: &[Option<u32>], config: &mut SlurmConfig) -> Option<String> {
    match node_cpus.split_first()? {
        (&Some(n), rest) if rest.iter().all(|c| *c == Some(n)) => {
            config.bf_node_cpus = n;
            Some(format!(
                "backfill reservations hold whole nodes of {n} CPUs (NodeName … CPUs={n}), as Slurm's do"
            ))
        }
        _ => Some(
            "NodeName lines without CPUs= or of several sizes: backfill reservations hold only their jobs' CPUs (Slurm's hold whole nodes)"
                .to_string(),
        ),
    }
}

/// `NodeName=NAMES Key=Value …`: its `CPUs=` (what the backfill's whole-node reservations
/// need); every other key is listed as not read. `NodeName=DEFAULT` is not modelled.
fn node_line(
    body: &str,
    line: usize,
    node_cpus: &mut Vec<Option<u32>>,
    unknown: &mut Vec<(usize, String)>,
) -> Result<(), SlurmConfError> {
    let mut cpus = None;
    let mut default = false;
    for (at, field) in body.split_whitespace().enumerate() {
        let (k, v) = field.split_once('=').unwrap_or((field, ""));
        if at == 0 {
            default = v.eq_ignore_ascii_case("default");
            continue;
        }
        if k.eq_ignore_ascii_case("cpus") {
            let n = whole_u32(v).ok().filter(|&n| n > 0).ok_or_else(|| {
                SlurmConfError::at(
                    line,
                    "NodeName:CPUs",
                    v,
                    "not a whole number of CPUs above 0",
                )
            })?;
            cpus = Some(n);
        } else {
            unknown.push((line, format!("NodeName:{k}")));
        }
    }
    if default {
        unknown.push((line, "NodeName=DEFAULT".into()));
    } else {
        node_cpus.push(cpus);
    }
    Ok(())
}

/// `PartitionName=NAME Key=Value …`: the name, its `PriorityJobFactor` and `PriorityTier`
/// (default 1 each), `MaxTime` (default `UNLIMITED`) and `Nodes` (node types' names;
/// default `ALL`, the whole site).
fn partition_line(
    body: &str,
    line: usize,
    config: &mut SlurmConfig,
    unknown: &mut Vec<(usize, String)>,
) -> Result<(), SlurmConfError> {
    let mut name = None;
    let mut factor = 1;
    let mut tier = 1;
    let mut max_time = None;
    let mut node_types = None;
    for token in body.split_whitespace() {
        let (k, v) = token.split_once('=').unwrap_or((token, ""));
        let bad = |reason: &str| SlurmConfError::at(line, k, v, reason);
        match k.to_ascii_lowercase().as_str() {
            "partitionname" if v.is_empty() => return Err(bad("a partition needs a name")),
            "partitionname" => name = Some(v.to_string()),
            "priorityjobfactor" => factor = whole_u32(v).map_err(bad)?,
            "prioritytier" => tier = whole_u32(v).map_err(bad)?,
            "maxtime" => max_time = max_time_s(v).map_err(bad)?,
            "nodes" if v.is_empty() => return Err(bad("a partition needs nodes (or ALL)")),
            "nodes" if v.eq_ignore_ascii_case("all") => node_types = None,
            "nodes" => node_types = Some(v.split(',').map(str::to_string).collect()),
            _ => unknown.push((line, format!("PartitionName:{k}"))),
        }
    }
    let Some(name) = name else {
        return Ok(());
    };
    // `PartitionName=DEFAULT` sets defaults for the lines after it in Slurm; not modelled.
    if name.eq_ignore_ascii_case("default") {
        unknown.push((line, "PartitionName=DEFAULT".into()));
        return Ok(());
    }
    let partition = PartitionFactor {
        name,
        priority_job_factor: factor,
        priority_tier: tier,
        max_time_s: max_time,
        nodes: node_types,
    };
    match config
        .partitions
        .iter_mut()
        .find(|p| p.name == partition.name)
    {
        Some(p) => *p = partition,
        None => config.partitions.push(partition),
    }
    Ok(())
}

/// `PriorityWeightTRES=CPU=…,Mem=…,GRES/gpu=…`; other TRES (`billing`, `node`, licenses)
/// are listed as not read.
fn tres_weights(
    value: &str,
    line: usize,
    config: &mut SlurmConfig,
    unknown: &mut Vec<(usize, String)>,
) -> Result<(), SlurmConfError> {
    for entry in value.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (k, v) = entry.split_once('=').unwrap_or((entry, ""));
        let weight = || whole_u32(v).map_err(|reason| SlurmConfError::at(line, k, v, reason));
        let w = &mut config.weight_tres;
        match k.to_ascii_lowercase().as_str() {
            "cpu" => w.cpu = weight()?,
            "mem" => w.mem = weight()?,
            "gres/gpu" => w.gpu = weight()?,
            _ => unknown.push((line, format!("PriorityWeightTRES:{k}"))),
        }
    }
    Ok(())
}

/// A partition's `MaxTime`: a Slurm time, or `UNLIMITED`/`INFINITE` (no limit).
fn max_time_s(v: &str) -> Result<Option<u64>, &'static str> {
    match v.trim().to_ascii_lowercase().as_str() {
        "unlimited" | "infinite" => Ok(None),
        _ => slurm_time(v).map(Some),
    }
}

fn whole(v: &str) -> Result<u64, &'static str> {
    v.trim()
        .parse::<u64>()
        .map_err(|_| "not a whole number ≥ 0")
}

fn whole_u32(v: &str) -> Result<u32, &'static str> {
    let n = whole(v)?;
    u32::try_from(n).map_err(|_| "larger than 4294967295")
}

fn yes_no(v: &str) -> Result<bool, &'static str> {
    match v.trim().to_ascii_lowercase().as_str() {
        "yes" | "y" | "1" => Ok(true),
        "no" | "n" | "0" => Ok(false),
        _ => Err("expected YES or NO"),
    }
}

/// A Slurm time string in seconds: `minutes`, `minutes:seconds`, `hours:minutes:seconds`,
/// `days-hours`, `days-hours:minutes` or `days-hours:minutes:seconds` (slurm.conf(5) and
/// sbatch(1) `--time`). `INFINITE`/`UNLIMITED` are refused: the policy needs a finite time.
pub(super) fn slurm_time(v: &str) -> Result<u64, &'static str> {
    const BAD: &str =
        "not a Slurm time (minutes, min:sec, hr:min:sec, days-hr, days-hr:min, days-hr:min:sec)";
    let v = v.trim();
    let lower = v.to_ascii_lowercase();
    if lower == "infinite" || lower == "unlimited" {
        return Err("INFINITE is not supported here: give a finite time");
    }
    let num = |s: &str| s.parse::<u64>().map_err(|_| BAD);
    let (days, rest) = match v.split_once('-') {
        Some((d, rest)) => (Some(num(d)?), rest),
        None => (None, v),
    };
    let parts: Vec<u64> = rest.split(':').map(num).collect::<Result<_, _>>()?;
    let secs = match (days, parts.as_slice()) {
        (None, [m]) => m.checked_mul(60),
        (None, [m, s]) => m.checked_mul(60).and_then(|x| x.checked_add(*s)),
        (None, [h, m, s]) | (Some(_), [h, m, s]) => h
            .checked_mul(3600)
            .and_then(|x| x.checked_add(m.checked_mul(60)?))
            .and_then(|x| x.checked_add(*s)),
        (Some(_), [h]) => h.checked_mul(3600),
        (Some(_), [h, m]) => h
            .checked_mul(3600)
            .and_then(|x| x.checked_add(m.checked_mul(60)?)),
        _ => return Err(BAD),
    };
    let day_secs = days.map_or(Some(0), |d| d.checked_mul(86_400));
    // Bounded so that any field fits a SimTime (i64 milliseconds) with room to spare.
    match (secs, day_secs) {
        (Some(s), Some(d)) if s.checked_add(d).is_some_and(|t| t <= 1 << 40) => Ok(s + d),
        _ => Err("too large"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slurm_times() {
        assert_eq!(slurm_time("7-0"), Ok(7 * 86_400));
        assert_eq!(slurm_time("30-0"), Ok(30 * 86_400));
        assert_eq!(slurm_time("10"), Ok(600));
        assert_eq!(slurm_time("1:30"), Ok(90));
        assert_eq!(slurm_time("2:00:05"), Ok(7205));
        assert_eq!(slurm_time("1-2:03"), Ok(86_400 + 7200 + 180));
        assert_eq!(slurm_time("1-2:03:04"), Ok(86_400 + 7200 + 184));
        assert!(slurm_time("").is_err());
        assert!(slurm_time("7d").is_err());
        assert!(slurm_time("1:2:3:4").is_err());
        assert!(slurm_time("-5").is_err());
        assert!(slurm_time("INFINITE").is_err());
        assert!(slurm_time("99999999999999999999").is_err());
    }

    #[test]
    fn sched_interval_is_read_and_said_to_change_nothing() {
        let r = read_slurm_conf(b"SchedulerParameters=sched_interval=60,defer\n").unwrap();
        assert!(
            r.notes.iter().any(|n| n.contains("sched_interval read")),
            "{:?}",
            r.notes
        );
        let expected = SlurmConfig {
            fair_tree: true,
            ..SlurmConfig::default()
        };
        assert_eq!(r.config, expected);
        assert!(r
            .messages()
            .iter()
            .any(|m| m.contains("SchedulerParameters:defer")));
        let e = read_slurm_conf(b"\nSchedulerParameters=sched_interval=soon\n").unwrap_err();
        assert_eq!(e.line, 2);
    }

    #[test]
    fn node_lines_give_the_backfill_its_node_size() {
        let read = |text: &str| read_slurm_conf(text.as_bytes());
        let r = read("NodeName=vm CPUs=16 RealMemory=16384 State=UNKNOWN\n").unwrap();
        assert_eq!(r.config.bf_node_cpus, 16);
        assert!(r.unknown.iter().any(|(_, k)| k == "NodeName:RealMemory"));
        assert!(r.notes.iter().any(|n| n.contains("whole nodes of 16")));
        let r = read("NodeName=a[1-4] CPUs=8\nNodeName=b CPUs=8\n").unwrap();
        assert_eq!(r.config.bf_node_cpus, 8);
        // Several sizes, or a node without CPUs=: reservations of CPUs, said so.
        for text in [
            "NodeName=a CPUs=8\nNodeName=b CPUs=16\n",
            "NodeName=a Sockets=2\n",
        ] {
            let r = read(text).unwrap();
            assert_eq!(r.config.bf_node_cpus, 0, "{text}");
            assert!(
                r.notes.iter().any(|n| n.contains("several sizes")),
                "{text}"
            );
        }
        assert_eq!(
            read("NodeName=DEFAULT CPUs=4\n")
                .unwrap()
                .config
                .bf_node_cpus,
            0
        );
        let e = read("\nNodeName=a CPUs=many\n").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (2, "NodeName:CPUs"));
        assert!(read("NodeName=a CPUs=0\n").is_err());
    }
}
