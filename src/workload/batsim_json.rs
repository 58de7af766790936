//! Batsim JSON workloads (Dutot et al., 2016; batsim.readthedocs.io "Workload"): a document
//! `{"nb_res": N, "jobs": [{"id", "subtime", "walltime", "res", "profile"}, …],
//! "profiles": {name: {"type": "delay", "delay": seconds}, …}}`, read and written.
//!
//! Reading: runtime = the `delay` of the job's profile (other profile types have no fixed
//! duration: such jobs are skipped under that reason), processors = `res`, estimate =
//! `walltime` (missing or ≤ 0 → the runtime), submit = `subtime` (seconds). `nb_res` is the
//! platform's size: it becomes the SWF header's MaxProcs, which sizes a run's machine. Job
//! ids `"w0!17"` or `17` are read as 17; others are numbered in file order. Each job's line
//! in the file is found from its place in the bytes, so every message names file and line.
//!
//! Writing ([`write_batsim_json`]): one `delay` profile per distinct runtime, ids as
//! numbers, `nb_res` from the header's MaxProcs (or the widest job).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::rows::Rows;
use super::swf::{SwfError, SwfOptions};
use super::Workload;
use crate::model::Job;
use crate::time::{SimTime, TICKS_PER_SEC};

#[derive(Deserialize)]
struct Doc<'a> {
    #[serde(default)]
    nb_res: Option<Value>,
    #[serde(borrow, default)]
    jobs: Option<Vec<&'a RawValue>>,
    #[serde(default)]
    profiles: BTreeMap<String, Value>,
}

/// Reads a Batsim JSON workload (already inflated). `file` names it in messages.
pub fn read_batsim_json(file: &str, bytes: &[u8], opts: &SwfOptions) -> Result<Workload, SwfError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let doc: Doc = serde_json::from_slice(bytes).map_err(|e| SwfError::Malformed {
        file: file.to_string(),
        line: e.line() as u64,
        message: format!("not a Batsim JSON workload: {e}"),
    })?;
    let mut rows = Rows::new(file, "batsim-json", opts);
    rows.report.bytes = bytes.len() as u64;
    rows.report.lines = bytes.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let Some(jobs) = doc.jobs else {
        return Err(SwfError::Malformed {
            file: file.to_string(),
            line: 1,
            message: "not a Batsim JSON workload: no \"jobs\" array".into(),
        });
    };
    rows.jobs.reserve(jobs.len().min(opts.limits.jobs as usize));
    let mut line = Liner::new(bytes);
    let mut numbered = 0u64;
    let delays = delays(&doc.profiles);
    for (k, raw) in jobs.iter().enumerate() {
        let offset = raw.get().as_ptr() as usize - bytes.as_ptr() as usize;
        rows.line_no = line.at(offset);
        job(&mut rows, &delays, k, raw, &mut numbered)?;
    }
    let mut w = rows.finish();
    if numbered > 0 {
        w.report.warnings.push(format!(
            "{numbered} job ids are not numbers (nor 'workload!number'): numbered by their place in the file"
        ));
    }
    let h = &mut w.report.header;
    h.fields.push(("Version".into(), "2.2".into()));
    h.fields.push((
        "Note".into(),
        format!("converted by gridscope from Batsim JSON {file}"),
    ));
    match doc.nb_res.as_ref().map(|v| v.as_u64()) {
        Some(Some(n)) if n > 0 => {
            h.max_procs = Some(n);
            h.fields.push(("MaxProcs".into(), n.to_string()));
            w.report.wider_than_max_procs =
                w.jobs.iter().filter(|j| j.procs as u64 > n).count() as u64;
        }
        Some(_) => w
            .report
            .warnings
            .push("nb_res is not a positive whole number; ignored".into()),
        None => w
            .report
            .warnings
            .push("no nb_res: the platform size is not given".into()),
    }
    Ok(w)
}

/// Line numbers of byte offsets visited in increasing order, in one pass over the bytes.
struct Liner<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: u64,
}

impl<'a> Liner<'a> {
    fn new(bytes: &'a [u8]) -> Liner<'a> {
        Liner {
            bytes,
            pos: 0,
            line: 1,
        }
    }
    fn at(&mut self, offset: usize) -> u64 {
        let offset = offset.min(self.bytes.len());
        if offset >= self.pos {
            self.line += memchr::memchr_iter(b'\n', &self.bytes[self.pos..offset]).count() as u64;
            self.pos = offset;
        }
        self.line
    }
}

fn seconds_ms(v: Option<&Value>) -> Option<i64> {
    let s = v?.as_f64()?;
    let ms = (s * 1000.0).round();
    (ms.is_finite() && ms.abs() <= 1e15).then_some(ms as i64)
}

/// A job's fields as the usual workload writes them (read without building a JSON value
/// tree: most of the import's time otherwise); anything else goes through [`slow_fields`],
/// which says what is wrong.
#[derive(Deserialize)]
struct FastJob<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    subtime: f64,
    #[serde(default)]
    walltime: Option<f64>,
    res: u64,
    #[serde(borrow)]
    profile: &'a RawValue,
}

/// A string or number's text: `"w0!3"` → `w0!3`, `17` → `17`; `None` for a string with
/// escapes or another JSON value (the slow path reads those).
fn plain(v: &RawValue) -> Option<&str> {
    let t = v.get();
    match t.as_bytes().first()? {
        b'"' => {
            let inner = t.strip_prefix('"')?.strip_suffix('"')?;
            (!inner.contains('\\')).then_some(inner)
        }
        b'0'..=b'9' => Some(t),
        _ => None,
    }
}

fn id_number(text: &str) -> Option<i64> {
    text.rsplit('!').next().and_then(|t| t.parse().ok())
}

/// (id, submit ms, walltime ms or -1, res, profile name), or why the job cannot be read.
type Fields = (Option<i64>, i64, i64, u64, String);

fn slow_fields(raw: &RawValue, k: usize) -> Result<Fields, (&'static str, String)> {
    let Ok(Value::Object(j)) = serde_json::from_str::<Value>(raw.get()) else {
        return Err((
            "job not an object",
            format!("job {} is not an object", k + 1),
        ));
    };
    let submit = seconds_ms(j.get("subtime")).ok_or((
        "bad subtime",
        format!("job {}: subtime missing or not a number", k + 1),
    ))?;
    let res = j.get("res").and_then(Value::as_u64).ok_or((
        "bad res",
        format!("job {}: res missing or not a whole number", k + 1),
    ))?;
    let profile = match j.get("profile") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => return Err(("bad profile", format!("job {}: profile missing", k + 1))),
    };
    let id = match j.get("id") {
        Some(Value::Number(n)) => n.as_i64(),
        Some(Value::String(s)) => s.rsplit('!').next().and_then(|t| t.parse().ok()),
        _ => None,
    };
    let walltime = seconds_ms(j.get("walltime")).unwrap_or(-1);
    Ok((id, submit, walltime, res, profile))
}

fn fields(raw: &RawValue, k: usize) -> Result<Fields, (&'static str, String)> {
    match serde_json::from_str::<FastJob>(raw.get()) {
        Ok(j) => {
            let ms = |s: f64| {
                let m = (s * 1000.0).round();
                (m.is_finite() && m.abs() <= 1e15).then_some(m as i64)
            };
            let id = match j.id {
                None => Some(None),
                Some(v) => plain(v).map(id_number),
            };
            match (ms(j.subtime), plain(j.profile), id) {
                (Some(submit), Some(profile), Some(id)) => Ok((
                    id,
                    submit,
                    j.walltime.and_then(ms).unwrap_or(-1),
                    j.res,
                    profile.to_string(),
                )),
                _ => slow_fields(raw, k),
            }
        }
        Err(_) => slow_fields(raw, k),
    }
}

/// Each profile's fixed duration in milliseconds (`delay` profiles), `None` for the others.
fn delays(profiles: &BTreeMap<String, Value>) -> BTreeMap<&str, Option<i64>> {
    profiles
        .iter()
        .map(|(name, p)| {
            let delay = match p.get("type").and_then(Value::as_str) {
                Some("delay") => seconds_ms(p.get("delay")),
                _ => None,
            };
            (name.as_str(), delay)
        })
        .collect()
}

fn job(
    rows: &mut Rows,
    delays: &BTreeMap<&str, Option<i64>>,
    k: usize,
    raw: &RawValue,
    numbered: &mut u64,
) -> Result<(), SwfError> {
    let (id, submit, walltime, res, profile) = match fields(raw, k) {
        Ok(f) => f,
        Err((reason, message)) => return rows.malformed(reason, message),
    };
    rows.record()?;
    let id = id.unwrap_or_else(|| {
        *numbered += 1;
        k as i64 + 1
    });
    let Some(delay) = delays.get(profile.as_str()) else {
        rows.skip("profile not in \"profiles\"");
        return Ok(());
    };
    let Some(runtime) = *delay else {
        rows.skip("profile without a fixed delay (not type delay)");
        return Ok(());
    };
    if submit < 0 {
        rows.skip("subtime < 0");
        return Ok(());
    }
    if runtime <= 0 {
        rows.skip("runtime <= 0");
        return Ok(());
    }
    if res == 0 {
        rows.skip("res 0");
        return Ok(());
    }
    let ticks = |ms: i64| SimTime(ms / (1000 / TICKS_PER_SEC));
    rows.push(Job {
        id,
        submit: ticks(submit),
        runtime: ticks(runtime),
        estimate: ticks(walltime),
        procs: res.min(u32::MAX as u64) as u32,
        home: 0,
        user: -1,
        partition: -1,
    });
    Ok(())
}

/// A workload as a Batsim JSON workload: `nb_res` = `nb_res` if given, else the widest job;
/// submit times in seconds from the workload's origin (Batsim starts at 0); one `delay`
/// profile per distinct runtime, named by it. What [`read_batsim_json`] reads back gives the
/// same jobs.
pub fn write_batsim_json(workload: &Workload, nb_res: Option<u64>) -> String {
    use std::fmt::Write;
    let nb_res = nb_res
        .or(workload.report.header.max_procs)
        .unwrap_or_else(|| {
            workload
                .jobs
                .iter()
                .map(|j| j.procs as u64)
                .max()
                .unwrap_or(1)
        });
    let mut runtimes: Vec<SimTime> = workload.jobs.iter().map(|j| j.runtime).collect();
    runtimes.sort_unstable();
    runtimes.dedup();
    let mut out = String::with_capacity(workload.jobs.len() * 96 + runtimes.len() * 48 + 256);
    let _ = write!(
        out,
        "{{\n  \"description\": {},\n  \"nb_res\": {nb_res},\n  \"jobs\": [",
        serde_json::to_string(&format!("{} (written by gridscope)", workload.name))
            .unwrap_or_default()
    );
    for (i, j) in workload.jobs.iter().enumerate() {
        let _ = write!(
            out,
            "{}\n    {{\"id\": {}, \"subtime\": {}, \"walltime\": {}, \"res\": {}, \"profile\": \"{}\"}}",
            if i == 0 { "" } else { "," },
            j.id,
            j.submit,
            j.estimate,
            j.procs,
            j.runtime
        );
    }
    out.push_str("\n  ],\n  \"profiles\": {");
    for (i, r) in runtimes.iter().enumerate() {
        let _ = write!(
            out,
            "{}\n    \"{r}\": {{\"type\": \"delay\", \"delay\": {r}}}",
            if i == 0 { "" } else { "," }
        );
    }
    out.push_str("\n  }\n}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_delay_profiles_and_counts_the_rest() {
        let text = br#"{"nb_res": 8,
 "jobs": [
  {"id": "w0!3", "subtime": 10, "walltime": 100, "res": 4, "profile": "d50"},
  {"id": 4, "subtime": 5, "res": 2, "profile": "ph"},
  {"id": "x", "subtime": 12.5, "walltime": -1, "res": 1, "profile": "d50"},
  {"id": 6, "subtime": "soon", "res": 1, "profile": "d50"}
 ],
 "profiles": {"d50": {"type": "delay", "delay": 50},
              "ph": {"type": "parallel_homogeneous", "cpu": 1e9, "com": 0}}}"#;
        let w = read_batsim_json("w.json", text, &SwfOptions::default()).unwrap();
        let r = &w.report;
        assert_eq!(
            (r.records, r.jobs, r.skipped_total, r.malformed),
            (3, 2, 1, 1)
        );
        assert_eq!(r.header.max_procs, Some(8));
        assert_eq!(
            r.malformed_examples,
            vec!["w.json:6: job 4: subtime missing or not a number"]
        );
        let got: Vec<(i64, i64, i64, i64, u32)> = w
            .jobs
            .iter()
            .map(|j| (j.id, j.submit.0, j.runtime.0, j.estimate.0, j.procs))
            .collect();
        assert_eq!(
            got,
            vec![(3, 0, 50_000, 100_000, 4), (3, 2_500, 50_000, 50_000, 1)]
        );
        let e =
            read_batsim_json("w.json", b"{\"jobs\": [\n{]}", &SwfOptions::default()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("w.json:2: not a Batsim JSON workload"),
            "{e}"
        );
    }
}
