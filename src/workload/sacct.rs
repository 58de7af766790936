//! Slurm accounting as `sacct --parsable2 --allocations
//! --format=JobID,Submit,Start,End,Elapsed,Timelimit,NCPUS,NNodes,State,Partition,User,Account`
//! prints it: `|`-separated, a header line naming the columns (read by name, so any order and
//! extra columns do; without a header the order above is assumed).
//!
//! - runtime = End − Start (Elapsed when either is missing); processors = NCPUS;
//!   estimate = Timelimit (`[D-]HH:MM:SS`, `MM:SS`, `MM`; UNLIMITED / Partition_Limit → the
//!   runtime, counted as a missing estimate);
//! - **never dropped silently**: a pending job, a job cancelled before it started, one still
//!   running (no End) and a job step (`123.batch`: the output lacked `--allocations`) are
//!   records skipped under their reason; so is a runtime of 0;
//! - **time zone**: sacct prints local time without a zone. A timestamp with `Z` or `±HH:MM`
//!   is read in that zone; one without in the zone given (`--utc-offset`, default UTC), and
//!   the report says which. Users and partitions are numbered in order of first appearance
//!   (the partitions' names go to the SWF header's notes);
//! - **resources** (issue #37), from the optional columns `ReqTRES`, `AllocTRES` and
//!   `ReqMem`: memory, GPUs (`gres/gpu=`) and the node count (`node=`) from `ReqTRES`, else
//!   `AllocTRES` (counted as "from used"); memory else from `ReqMem` (`Mc` per CPU, `Mn` or
//!   no suffix per node, older Slurm). TRES memory is the job's total (`K`, `M` (the
//!   default), `G`, `T`): per node with a node count, else per processor (rounded up). A
//!   file without these columns reads as before (the `NNodes` column is not a request);
//! - **QOS** and **accounts** (issue #42), from the `QOS` and `Account` columns: numbered in
//!   order of first appearance, their names kept for the `slurm` policy's QOS definitions
//!   and association tree (the SWF writer puts them in the queue and group fields).

use super::demand::Source;
use super::rows::{quote, Names, Rows};
use super::swf::{SwfError, SwfOptions};
use super::Workload;
use crate::model::{Demand, Job};
use crate::time::{SimTime, TICKS_PER_SEC};

/// The columns this reader uses, in the order the documented `--format` prints them.
const COLUMNS: [&str; 16] = [
    "JobID",
    "Submit",
    "Start",
    "End",
    "Elapsed",
    "Timelimit",
    "NCPUS",
    "NNodes",
    "State",
    "Partition",
    "User",
    "Account",
    "ReqTRES",
    "AllocTRES",
    "ReqMem",
    "QOS",
];
/// The columns a file without a header has (the documented `--format`).
const HEADERLESS: usize = 12;
const JOBID: usize = 0;
const SUBMIT: usize = 1;
const START: usize = 2;
const END: usize = 3;
const ELAPSED: usize = 4;
const TIMELIMIT: usize = 5;
const NCPUS: usize = 6;
const STATE: usize = 8;
const PARTITION: usize = 9;
const USER: usize = 10;
const ACCOUNT: usize = 11;
const REQ_TRES: usize = 12;
const ALLOC_TRES: usize = 13;
const REQ_MEM: usize = 14;
const QOS: usize = 15;

/// Reads sacct text (already inflated). Zone-less timestamps are `utc_offset_min` minutes
/// east of UTC.
pub fn read_sacct(
    file: &str,
    bytes: &[u8],
    opts: &SwfOptions,
    utc_offset_min: i32,
) -> Result<Workload, SwfError> {
    let mut s = Sacct {
        cols: [None; 16],
        header_seen: false,
        decided: false,
        users: Names::default(),
        partitions: Names::default(),
        qos: Names::default(),
        accounts: Names::default(),
        zoneless: 0,
        offset_ms: utc_offset_min as i64 * 60_000,
    };
    let mut rows = Rows::new(file, "sacct", opts);
    rows.jobs
        .reserve((bytes.len() / 120).min(opts.limits.jobs as usize));
    rows.lines(bytes, |rows, line| s.line(rows, line))?;
    if !s.header_seen {
        rows.report.warnings.push(format!(
            "no header line: columns read in the order {}",
            COLUMNS.join("|")
        ));
    }
    let mut w = rows.finish();
    let zone = match utc_offset_min {
        0 => "UTC".to_string(),
        m => format!(
            "UTC{}{:02}:{:02}",
            if m < 0 { '-' } else { '+' },
            m.abs() / 60,
            m.abs() % 60
        ),
    };
    if s.zoneless > 0 {
        w.report.warnings.push(format!(
            "{} timestamps have no time zone (sacct prints the cluster's local time): read as {zone}{}",
            s.zoneless,
            if utc_offset_min == 0 { "; --utc-offset sets the cluster's zone" } else { "" }
        ));
    }
    let start_s = w.origin.0.div_euclid(TICKS_PER_SEC);
    w.origin = SimTime(w.origin.0 - start_s * TICKS_PER_SEC);
    let h = &mut w.report.header;
    h.unix_start_time = Some(start_s);
    h.time_zone_string = Some("UTC".into());
    h.fields.push(("Version".into(), "2.2".into()));
    h.fields.push((
        "Note".into(),
        format!(
            "converted by gridscope from sacct {file}; timestamps without a zone read as {zone}"
        ),
    ));
    h.fields.push(("UnixStartTime".into(), start_s.to_string()));
    h.fields.push(("TimeZoneString".into(), "UTC".into()));
    w.report.user_names = s.users.names.clone();
    w.report.partition_names = s.partitions.names.clone();
    w.report.qos_names = s.qos.names.clone();
    w.report.account_names = s.accounts.names.clone();
    for (i, p) in s.partitions.names.iter().enumerate() {
        let note = format!("partition {i} = {p}");
        h.fields.push(("Note".into(), note.clone()));
        h.notes.push(note);
    }
    // The SWF writer puts a job's QOS in the queue field (15).
    for (i, q) in s.qos.names.iter().enumerate() {
        let note = format!("queue {i} = QOS {q}");
        h.fields.push(("Note".into(), note.clone()));
        h.notes.push(note);
    }
    // The SWF writer puts a job's account in the group field (13).
    for (i, a) in s.accounts.names.iter().enumerate() {
        let note = format!("group {i} = account {a}");
        h.fields.push(("Note".into(), note.clone()));
        h.notes.push(note);
    }
    Ok(w)
}

struct Sacct {
    /// Where each of [`COLUMNS`] is in a row (from the header).
    cols: [Option<usize>; 16],
    header_seen: bool,
    /// The first line was looked at (a header or not).
    decided: bool,
    users: Names,
    partitions: Names,
    qos: Names,
    accounts: Names,
    zoneless: u64,
    offset_ms: i64,
}

impl Sacct {
    fn line(&mut self, rows: &mut Rows, line: &[u8]) -> Result<(), SwfError> {
        let fields: Vec<&[u8]> = line.split(|&b| b == b'|').map(|f| f.trim_ascii()).collect();
        if !self.decided {
            self.decided = true;
            // A header names columns, in any order (FastSim's dumps start with `User`): two
            // fields that are column names make one (a data row has at most a user or
            // account that happens to be named like one).
            let named = fields
                .iter()
                .filter(|f| COLUMNS.iter().any(|c| f.eq_ignore_ascii_case(c.as_bytes())))
                .count();
            if named >= 2 {
                return self.header(rows, &fields);
            }
            // No header (`sacct --noheader`): the documented column order.
            for (c, slot) in self.cols.iter_mut().enumerate().take(HEADERLESS) {
                *slot = Some(c);
            }
        }
        self.row(rows, &fields)
    }

    fn header(&mut self, rows: &mut Rows, fields: &[&[u8]]) -> Result<(), SwfError> {
        for (c, name) in COLUMNS.iter().enumerate() {
            self.cols[c] = fields
                .iter()
                .position(|f| f.eq_ignore_ascii_case(name.as_bytes()));
        }
        self.header_seen = true;
        rows.report.header_lines += 1;
        let mut missing: Vec<&str> = [JOBID, SUBMIT, START, NCPUS, STATE]
            .iter()
            .filter(|&&c| self.cols[c].is_none())
            .map(|&c| COLUMNS[c])
            .collect();
        if self.cols[END].is_none() && self.cols[ELAPSED].is_none() {
            missing.push("End or Elapsed");
        }
        if missing.is_empty() {
            return Ok(());
        }
        Err(SwfError::Malformed {
            file: rows.file.to_string(),
            line: rows.line_no,
            message: format!(
                "the sacct header lacks {} (needed: JobID, Submit, Start, End or Elapsed, NCPUS, State)",
                missing.join(", ")
            ),
        })
    }

    fn row(&mut self, rows: &mut Rows, f: &[&[u8]]) -> Result<(), SwfError> {
        let cols = self.cols;
        let get = |c: usize| cols[c].and_then(|i| f.get(i).copied());
        let needed = self.cols.iter().flatten().max().map_or(0, |m| m + 1);
        if f.len() < needed {
            return rows.malformed(
                "too few fields",
                format!("expected {needed} '|'-separated fields, found {}", f.len()),
            );
        }
        let id = get(JOBID).unwrap_or_default();
        if id.contains(&b'.') {
            rows.record()?;
            rows.skip("job step (sacct without --allocations)");
            return Ok(());
        }
        let state = get(STATE).unwrap_or_default();
        let state_word = state.split(|&b| b == b' ').next().unwrap_or_default();
        let submit = match self.time(get(SUBMIT)) {
            Ok(Some(t)) => t,
            Ok(None) => return rows.malformed("bad time", "Submit is missing".into()),
            Err(m) => return rows.malformed("bad time", m),
        };
        let start = match self.time(get(START)) {
            Ok(t) => t,
            Err(m) => return rows.malformed("bad time", m),
        };
        let end = match self.time(get(END)) {
            Ok(t) => t,
            Err(m) => return rows.malformed("bad time", m),
        };
        let procs = match get(NCPUS).map(parse_u64) {
            Some(Some(n)) => n,
            _ => {
                let v = quote(get(NCPUS).unwrap_or_default());
                return rows.malformed("bad NCPUS", format!("NCPUS is '{v}', not a whole number"));
            }
        };
        let elapsed = get(ELAPSED).and_then(parse_duration_ms);
        let estimate = get(TIMELIMIT).and_then(parse_duration_ms).unwrap_or(0);
        rows.record()?;
        let Some(start) = start else {
            rows.skip(match state_word {
                b"PENDING" | b"REQUEUED" | b"SUSPENDED" => "pending, never started",
                s if s.starts_with(b"CANCELLED") => "cancelled before start",
                _ => "never started (no Start)",
            });
            return Ok(());
        };
        let runtime = match (end, elapsed) {
            (Some(e), _) => e - start,
            (None, Some(el)) if state_word != b"RUNNING" => el,
            _ => {
                rows.skip("still running (no End)");
                return Ok(());
            }
        };
        if runtime <= 0 {
            rows.skip(if state_word.starts_with(b"CANCELLED") {
                "cancelled at start (runtime 0)"
            } else {
                "runtime <= 0"
            });
            return Ok(());
        }
        if procs == 0 {
            rows.skip("processors 0");
            return Ok(());
        }
        let numeric_id: i64 = id
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .fold(0i64, |a, &d| {
                a.saturating_mul(10).saturating_add((d - b'0') as i64)
            });
        let user = get(USER).map_or(-1, |u| self.users.id(u) as i32);
        let partition = get(PARTITION)
            .filter(|p| !p.is_empty())
            .map_or(-1, |p| self.partitions.id(p) as i32);
        let ticks = |ms: i64| SimTime(ms / (1000 / TICKS_PER_SEC));
        let (demand, sources) = resources(
            get(REQ_TRES),
            get(ALLOC_TRES),
            get(REQ_MEM),
            procs.min(u32::MAX as u64) as u32,
        );
        rows.push_with(
            Job {
                id: numeric_id,
                submit: ticks(submit),
                runtime: ticks(runtime),
                estimate: ticks(estimate),
                procs: procs.min(u32::MAX as u64) as u32,
                home: 0,
                user,
                partition,
            },
            demand,
            sources,
        );
        rows.set_logged_wait(ticks(start - submit));
        if let Some(q) = get(QOS).filter(|q| !q.is_empty()) {
            rows.set_qos(self.qos.id(q) as i32);
        }
        if let Some(a) = get(ACCOUNT).filter(|a| !a.is_empty()) {
            rows.set_account(self.accounts.id(a) as i32);
        }
        Ok(())
    }

    /// A timestamp in Unix milliseconds; `None` for Unknown / None / empty (not started,
    /// not ended).
    fn time(&mut self, v: Option<&[u8]>) -> Result<Option<i64>, String> {
        let v = v.unwrap_or_default();
        if v.is_empty() || v == b"Unknown" || v == b"None" {
            return Ok(None);
        }
        match parse_timestamp(v) {
            Some((ms, Some(zone_ms))) => Ok(Some(ms - zone_ms)),
            Some((ms, None)) => {
                self.zoneless += 1;
                Ok(Some(ms - self.offset_ms))
            }
            None => Err(format!(
                "'{}' is not a time (YYYY-MM-DDTHH:MM:SS, optionally with Z or ±HH:MM)",
                quote(v)
            )),
        }
    }
}

/// What a TRES list states: memory in KB, GPUs, nodes.
type Tres = (Option<u64>, Option<u32>, Option<u32>);

/// A TRES list (`cpu=4,mem=16G,node=1,gres/gpu=2`): (memory in KB, GPUs, nodes).
fn tres(v: &[u8]) -> Tres {
    let (mut mem, mut gpus, mut nodes) = (None, None, None);
    for item in v.split(|&b| b == b',') {
        let Some(eq) = item.iter().position(|&b| b == b'=') else {
            continue;
        };
        let (key, val) = (&item[..eq], &item[eq + 1..]);
        let small = |v: &[u8]| parse_u64(v).and_then(|n| u32::try_from(n).ok());
        match key {
            b"mem" => mem = memory_kb(val, b'M').map(|(kb, _)| kb),
            b"gres/gpu" => gpus = small(val),
            b"node" => nodes = small(val),
            _ => {}
        }
    }
    (mem, gpus, nodes)
}

/// A memory amount with an optional unit (K, M, G, T; `default` without one) and Slurm's
/// older per-CPU (`c`) or per-node (`n`) suffix: (KB, per CPU).
fn memory_kb(v: &[u8], default: u8) -> Option<(u64, bool)> {
    let (v, per_cpu) = match v.last() {
        Some(b'c') => (&v[..v.len() - 1], true),
        Some(b'n') => (&v[..v.len() - 1], false),
        _ => (v, false),
    };
    let (digits, unit) = match v.last() {
        Some(u) if u.is_ascii_alphabetic() => (&v[..v.len() - 1], u.to_ascii_uppercase()),
        _ => (v, default),
    };
    let shift = match unit {
        b'K' => 0,
        b'M' => 10,
        b'G' => 20,
        b'T' => 30,
        _ => return None,
    };
    let n = parse_u64(digits)?;
    n.checked_mul(1 << shift).map(|kb| (kb, per_cpu))
}

/// A job's memory, GPUs and node count from its TRES columns and ReqMem (module header),
/// with where each came from.
fn resources(
    req: Option<&[u8]>,
    alloc: Option<&[u8]>,
    req_mem: Option<&[u8]>,
    procs: u32,
) -> (Demand, [Source; 3]) {
    let (r, a) = (req.map(tres), alloc.map(tres));
    let pick = |f: fn(&Tres) -> Option<u64>| match (r.as_ref().and_then(f), a.as_ref().and_then(f))
    {
        (Some(v), _) => (Some(v), Source::Known),
        (None, Some(v)) => (Some(v), Source::FromUsed),
        _ => (None, Source::Missing),
    };
    let (mem, mut mem_src) = pick(|t| t.0);
    let (gpus, gpu_src) = pick(|t| t.1.map(u64::from));
    let (nodes, node_src) = pick(|t| t.2.map(u64::from));
    let nodes = nodes.unwrap_or(0).min(u64::from(u32::MAX)) as u32;
    let mut d = Demand {
        gpus: gpus.unwrap_or(0).min(u64::from(u32::MAX)) as u32,
        nodes,
        ..Demand::default()
    };
    match mem {
        // TRES memory is the job's total.
        Some(total) if nodes > 0 => {
            d.mem_kb = total.div_ceil(u64::from(nodes));
            d.mem_per_node = true;
        }
        Some(total) => d.mem_kb = total.div_ceil(u64::from(procs.max(1))),
        None => match req_mem
            .filter(|v| !v.is_empty())
            .and_then(|v| memory_kb(v, b'M'))
        {
            Some((kb, per_cpu)) if kb > 0 => {
                d.mem_kb = kb;
                d.mem_per_node = !per_cpu;
                // Per node without a node count: the job on one node.
                if !per_cpu && d.nodes == 0 {
                    d.nodes = 1;
                }
                mem_src = Source::Known;
            }
            _ => {}
        },
    }
    (d, [mem_src, gpu_src, node_src])
}

fn parse_u64(v: &[u8]) -> Option<u64> {
    std::str::from_utf8(v).ok()?.parse().ok()
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM|±HHMM]` (a space may stand for `T`): Unix
/// milliseconds as written, and the zone's offset in milliseconds when one is given.
pub fn parse_timestamp(v: &[u8]) -> Option<(i64, Option<i64>)> {
    let s = std::str::from_utf8(v).ok()?;
    // Only ASCII is sliced below (a multi-byte character could not be cut at a fixed byte).
    if s.len() < 19 || !s.is_ascii() {
        return None;
    }
    let (dt, rest) = s.split_at(19);
    let b = dt.as_bytes();
    if b[4] != b'-'
        || b[7] != b'-'
        || !(b[10] == b'T' || b[10] == b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = &dt[r];
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    let mut rest = rest;
    let mut frac = 0i64;
    if let Some(r) = rest.strip_prefix('.') {
        let digits = r.bytes().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        let mut scale = 100;
        for c in r[..digits].bytes() {
            frac += (c - b'0') as i64 * scale;
            scale /= 10;
        }
        rest = &r[digits..];
    }
    let ms = ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60_000 + se * 1000 + frac;
    let zone = match rest {
        "" => None,
        "Z" | "z" => Some(0),
        z if z.starts_with('+') || z.starts_with('-') => {
            let sign = if z.starts_with('-') { -1 } else { 1 };
            let digits: String = z[1..].chars().filter(|&c| c != ':').collect();
            if digits.len() != 4 || !digits.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let (hh, mm): (i64, i64) = (digits[..2].parse().ok()?, digits[2..].parse().ok()?);
            Some(sign * (hh * 60 + mm) * 60_000)
        }
        _ => return None,
    };
    Some((ms, zone))
}

/// A Slurm duration in milliseconds: `[D-]HH:MM:SS`, `MM:SS`, `MM` (minutes, as Slurm's
/// time limits are written), with optional `.fff`; `None` for UNLIMITED, Partition_Limit,
/// INVALID and anything else.
pub fn parse_duration_ms(v: &[u8]) -> Option<i64> {
    let s = std::str::from_utf8(v).ok()?.trim();
    let (days, hms) = match s.split_once('-') {
        Some((d, r)) => (d.parse::<i64>().ok()?, r),
        None => (0, s),
    };
    let (hms, frac) = match hms.split_once('.') {
        Some((a, f)) => {
            let f3: String = f.chars().chain("000".chars()).take(3).collect();
            (a, f3.parse::<i64>().ok()?)
        }
        None => (hms, 0),
    };
    let parts: Vec<i64> = hms
        .split(':')
        .map(|p| {
            (!p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
                .then(|| p.parse::<i64>().ok())
                .flatten()
        })
        .collect::<Option<Vec<_>>>()?;
    let secs = match (parts.as_slice(), s.contains('-')) {
        ([h, m, sec], _) => h * 3600 + m * 60 + sec,
        ([m, sec], false) => m * 60 + sec,
        ([h, m], true) => h * 3600 + m * 60,
        ([m], false) => m * 60,
        ([h], true) => h * 3600,
        _ => return None,
    };
    if days > 1_000_000 || secs > 1_000_000_000 {
        return None;
    }
    Some((days * 86_400 + secs) * 1000 + frac)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tres_and_reqmem_give_memory_gpus_and_nodes() {
        let (d, src) = resources(
            Some(b"cpu=8,mem=16G,node=2,billing=8,gres/gpu=4"),
            None,
            None,
            8,
        );
        assert_eq!(
            d,
            Demand {
                mem_kb: 8 << 20,
                mem_per_node: true,
                gpus: 4,
                nodes: 2
            }
        );
        assert_eq!(src, [Source::Known; 3]);
        let (d, src) = resources(Some(b"cpu=4"), Some(b"cpu=4,mem=4000M"), None, 4);
        assert_eq!(
            (d.mem_kb, d.mem_per_node, src[0]),
            (1000 << 10, false, Source::FromUsed)
        );
        let (d, _) = resources(None, None, Some(b"2000Mc"), 4);
        assert_eq!((d.mem_kb, d.mem_per_node, d.nodes), (2000 << 10, false, 0));
        let (d, _) = resources(None, None, Some(b"3Gn"), 4);
        assert_eq!((d.mem_kb, d.mem_per_node, d.nodes), (3 << 20, true, 1));
        let (d, src) = resources(None, None, None, 4);
        assert!(d.is_processors_only() && src == [Source::Missing; 3]);
    }

    /// A header is found wherever JobID stands (FastSim's dumps put `User` first).
    #[test]
    fn a_header_in_any_order_is_read_by_name() {
        let text = "User|Account|JobID|Submit|Start|End|NCPUS|State|Timelimit\n\
                    alice|phys|7|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:01:10|4|COMPLETED|00:05:00\n";
        let w = read_sacct("f", text.as_bytes(), &SwfOptions::default(), 0).unwrap();
        assert_eq!(w.jobs.len(), 1);
        assert_eq!((w.jobs[0].id, w.jobs[0].procs), (7, 4));
        assert_eq!(w.jobs[0].runtime, SimTime::from_secs(60));
        assert_eq!(w.report.user_names, ["alice"]);
    }

    #[test]
    fn timestamps_and_durations() {
        assert_eq!(parse_timestamp(b"1970-01-01T00:00:00"), Some((0, None)));
        assert_eq!(
            parse_timestamp(b"2000-03-01T00:00:01Z"),
            Some((951_868_801_000, Some(0)))
        );
        assert_eq!(
            parse_timestamp(b"2000-03-01T01:00:01+01:00"),
            Some((951_868_801_000 + 3_600_000, Some(3_600_000)))
        );
        assert_eq!(parse_timestamp(b"2000-13-01T00:00:00"), None);
        assert_eq!(parse_timestamp(b"Unknown"), None);
        assert_eq!(parse_timestamp("20€4-01-01T00:00:00".as_bytes()), None);
        assert_eq!(
            parse_timestamp("2024-01-01T00:00:00+0é:00".as_bytes()),
            None
        );
        assert_eq!(
            parse_duration_ms(b"1-02:03:04"),
            Some((86_400 + 7384) * 1000)
        );
        assert_eq!(parse_duration_ms(b"02:03:04"), Some(7384 * 1000));
        assert_eq!(parse_duration_ms(b"30:00"), Some(1_800_000));
        assert_eq!(parse_duration_ms(b"5"), Some(300_000));
        assert_eq!(
            parse_duration_ms(b"2-12"),
            Some((2 * 86_400 + 12 * 3600) * 1000)
        );
        assert_eq!(parse_duration_ms(b"UNLIMITED"), None);
        assert_eq!(parse_duration_ms(b"Partition_Limit"), None);
    }
}
