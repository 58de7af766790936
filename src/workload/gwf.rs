//! The Grid Workloads Format (GWF) of the Grid Workloads Archive (Iosup et al., 2008):
//! one job per line, 29 tab- or space-separated fields, `-1` for unknown, `#` comment lines.
//!
//! The fields read (1-based, as the archive numbers them): 1 JobID, 2 SubmitTime (Unix
//! seconds), 4 RunTime, 5 NProcs (8 ReqNProcs when 5 is -1), 9 ReqTime (the estimate; the
//! runtime when missing), 12 UserID, 16 PartitionID, 17 OrigSiteID. The same conventions as
//! SWF: a job with runtime ≤ 0, processors ≤ 0 or submit -1 is skipped and counted.
//!
//! **Sites.** Each distinct OrigSiteID is a site, numbered in increasing order (numerically
//! when every ID is a number); a job's `home` is its origin's number and the report lists
//! the IDs in site order (`sites`). A single-machine run puts every job on one site; the
//! scenario workload `origin_sites` keeps one site per origin for the multi-site platforms.
//! Every ID field (12 UserID, 13 GroupID, 14 ExecutableID, 15 QueueID, 16 PartitionID,
//! 17 OrigSiteID, 18 LastRunSiteID, 28 VOID, 29 ProjectID) may be a name (`G1`, as the
//! anonymised archive traces write them): users and partitions named so are numbered in
//! order of first appearance; the others are not read.
//!
//! **Memory** (issue #37): field 10 ReqMemory (KB per processor), else field 7 Used Memory,
//! as SWF's fields 10 and 7; counted per source in the import report.

use super::demand::{memory_kb, Source};
use super::rows::{quote, Names, Rows};
use super::swf::{parse_milli, SwfError, SwfOptions};
use super::Workload;
use crate::model::{Demand, Job};
use crate::time::{SimTime, TICKS_PER_SEC};

/// Fields of a GWF job line.
pub const GWF_FIELDS: usize = 29;

/// Reads GWF text (already inflated). `file` names it in messages.
pub fn read_gwf(file: &str, bytes: &[u8], opts: &SwfOptions) -> Result<Workload, SwfError> {
    let mut rows = Rows::new(file, "gwf", opts);
    rows.jobs
        .reserve((bytes.len() / 100).min(opts.limits.jobs as usize));
    let mut names = IdNames::default();
    rows.lines(bytes, |rows, line| {
        let t = line.trim_ascii_start();
        if t[0] == b'#' || t[0] == b';' {
            rows.report.header_lines += 1;
            return Ok(());
        }
        row(rows, t, &mut names)
    })?;
    let sites = names.sites;
    let mut w = rows.finish();
    // Sites in increasing ID order (numeric when all are numbers), whatever order they
    // first appeared in.
    let mut order: Vec<(Option<i64>, String, u32)> = sites
        .names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.parse::<i64>().ok(), n.clone(), i as u32))
        .collect();
    if order.iter().all(|(n, ..)| n.is_some()) {
        order.sort();
    } else {
        order.sort_by(|a, b| a.1.cmp(&b.1));
    }
    let mut rank = vec![0u32; order.len()];
    for (r, (_, _, i)) in order.iter().enumerate() {
        rank[*i as usize] = r as u32;
    }
    for j in &mut w.jobs {
        j.home = rank[j.home as usize];
    }
    w.report.sites = order.into_iter().map(|(_, n, _)| n).collect();
    // The archive's times are Unix seconds: the header SWF writes says so.
    let start_s = w.origin.0 / TICKS_PER_SEC;
    w.report.header.unix_start_time = Some(start_s);
    w.report.header.time_zone_string = Some("UTC".to_string());
    let h = &mut w.report.header.fields;
    h.push(("Version".into(), "2.2".into()));
    h.push((
        "Note".into(),
        format!("converted by gridscope from GWF {file}"),
    ));
    h.push(("UnixStartTime".into(), start_s.to_string()));
    h.push(("TimeZoneString".into(), "UTC".into()));
    w.origin = SimTime(w.origin.0 - start_s * TICKS_PER_SEC);
    Ok(w)
}

/// The ID fields a row may give as names, numbered in order of first appearance.
#[derive(Default)]
struct IdNames {
    users: Names,
    partitions: Names,
    sites: Names,
}

/// The fields (0-based) that are IDs: numbers or names. Of these, the user (11) and the
/// partition (15) are read; the origin site (16) is read as a name.
const ID_FIELDS: [usize; 5] = [11, 12, 13, 14, 15];

/// An ID field: its number, or a name's number from `names` (-1 stays unknown).
fn id_field(tok: &[u8], names: &mut Names) -> i32 {
    match tok {
        b"-1" => -1,
        t => match std::str::from_utf8(t)
            .ok()
            .and_then(|s| s.parse::<i32>().ok())
        {
            Some(v) => v,
            None => names.id(t) as i32,
        },
    }
}

fn row(rows: &mut Rows, line: &[u8], names: &mut IdNames) -> Result<(), SwfError> {
    let mut f: [&[u8]; GWF_FIELDS] = [b""; GWF_FIELDS];
    let mut n = 0;
    for tok in line.split(|&b| b <= b' ').filter(|t| !t.is_empty()) {
        if n < GWF_FIELDS {
            f[n] = tok;
        }
        n += 1;
    }
    if n < 17 {
        return rows.malformed(
            "too few fields",
            format!("expected {GWF_FIELDS} fields (at least 17, up to OrigSiteID), found {n}"),
        );
    }
    let mut num = [0i64; 16];
    for (i, v) in num.iter_mut().enumerate() {
        // Fields 1–11 are numbers; the IDs from 12 on may be names.
        if ID_FIELDS.contains(&i) {
            continue;
        }
        match parse_milli(f[i]) {
            Some(m) => *v = m,
            None => {
                return rows.malformed(
                    "not a number",
                    format!("field {} is '{}', not a number", i + 1, quote(f[i])),
                )
            }
        }
    }
    rows.record()?;
    let (submit, runtime, estimate) = (num[1], num[3], num[8]);
    let (alloc, requested) = (num[4] / 1000, num[7] / 1000);
    if submit < 0 {
        rows.skip("submit -1");
        return Ok(());
    }
    if runtime <= 0 {
        rows.skip("runtime <= 0");
        return Ok(());
    }
    let procs = if alloc <= 0 { requested } else { alloc };
    if procs <= 0 {
        rows.skip("processors unknown or 0");
        return Ok(());
    }
    if alloc <= 0 {
        rows.report.procs_from_requested += 1;
    }
    let user = id_field(f[11], &mut names.users);
    let partition = id_field(f[15], &mut names.partitions);
    let to_ticks = |milli: i64| SimTime(milli / (1000 / TICKS_PER_SEC));
    // Memory in KB per processor: ReqMemory (field 10), else Used Memory (field 7).
    let (mem_kb, memory) = memory_kb(num[9] / 1000, num[6] / 1000);
    let demand = Demand {
        mem_kb,
        ..Demand::default()
    };
    rows.push_with(
        Job {
            id: num[0] / 1000,
            submit: to_ticks(submit),
            runtime: to_ticks(runtime),
            estimate: to_ticks(estimate),
            procs: procs.min(u32::MAX as i64) as u32,
            home: names.sites.id(f[16]),
            user,
            partition,
        },
        demand,
        [memory, Source::Missing, Source::Missing],
    );
    if num[2] >= 0 {
        rows.set_logged_wait(to_ticks(num[2]));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: u32, submit: i64, run: i64, procs: i64, req: i64, site: &str) -> String {
        let mut f = vec!["-1".to_string(); GWF_FIELDS];
        f[0] = id.to_string();
        f[1] = submit.to_string();
        f[3] = run.to_string();
        f[4] = procs.to_string();
        f[8] = req.to_string();
        f[11] = "U7".into();
        f[16] = site.into();
        f.join("\t")
    }

    /// The anonymised archive writes every ID as a name (`G1`, `Q2`, …): every row reads.
    #[test]
    fn every_id_field_may_be_a_name() {
        let mut f = vec!["-1".to_string(); GWF_FIELDS];
        f[0] = "1".into();
        f[1] = "1000".into();
        f[3] = "10".into();
        f[4] = "2".into();
        f[6] = "300".into();
        for (i, name) in [
            (11, "U1"),
            (12, "G1"),
            (13, "E1"),
            (14, "Q1"),
            (15, "P1"),
            (16, "S1"),
            (17, "S2"),
            (27, "VO1"),
            (28, "PR1"),
        ] {
            f[i] = name.into();
        }
        let mut g = f.clone();
        g[0] = "2".into();
        g[9] = "500".into();
        g[15] = "P2".into();
        let text = format!("{}\n{}\n", f.join("\t"), g.join("\t"));
        let w = read_gwf("g.gwf", text.as_bytes(), &SwfOptions::default()).unwrap();
        assert_eq!((w.report.jobs, w.report.malformed), (2, 0));
        assert_eq!(
            w.jobs
                .iter()
                .map(|j| (j.user, j.partition))
                .collect::<Vec<_>>(),
            [(0, 0), (0, 1)]
        );
        // Memory: used (field 7) for the first, requested (field 10) for the second.
        assert_eq!(
            w.demands.iter().map(|d| d.mem_kb).collect::<Vec<_>>(),
            [300, 500]
        );
        let r = w.report.resources.unwrap();
        assert_eq!(
            (r.memory.known, r.memory.from_used, r.memory.missing),
            (1, 1, 0)
        );
    }

    #[test]
    fn sites_are_numbered_in_id_order_and_bad_rows_counted() {
        let text = [
            "# JobID SubmitTime ... OrigSiteID".to_string(),
            line(1, 1_000_000, 10, 2, 20, "10"),
            line(2, 1_000_005, 0, 1, 20, "2"),
            line(3, 1_000_003, 5, 1, -1, "2"),
            "4 x 0".to_string(),
            line(5, 1_000_009, 5, -1, 5, "10"),
        ]
        .join("\n");
        let w = read_gwf("t.gwf", text.as_bytes(), &SwfOptions::default()).unwrap();
        let r = &w.report;
        assert_eq!(r.sites, vec!["2", "10"]);
        assert_eq!(
            (r.records, r.jobs, r.skipped_total, r.malformed),
            (4, 2, 2, 1)
        );
        assert_eq!(r.skipped_by_reason["runtime <= 0"], 1);
        assert_eq!(r.skipped_by_reason["processors unknown or 0"], 1);
        assert_eq!(r.malformed_by_reason["too few fields"], 1);
        let ids: Vec<(i64, u32, i64)> = w.jobs.iter().map(|j| (j.id, j.home, j.submit.0)).collect();
        assert_eq!(ids, vec![(1, 1, 0), (3, 0, 3000)]);
        assert_eq!(r.estimate_missing, 1);
        assert_eq!(r.header.unix_start_time, Some(1_000_000));
        let strict = SwfOptions {
            strict: true,
            ..Default::default()
        };
        let e = read_gwf("t.gwf", text.as_bytes(), &strict).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.gwf:5: expected 29 fields (at least 17, up to OrigSiteID), found 3"
        );
    }
}
