//! Every trace format Gridscope reads, behind one entry point (issue #29): [`read_trace`]
//! detects the format from the bytes (or takes the one it is told) and hands them to its
//! reader — SWF ([`super::swf`]), GWF of the Grid Workloads Archive ([`super::gwf`]), Batsim
//! JSON workloads ([`super::batsim_json`]) and Slurm `sacct --parsable2` ([`super::sacct`]).
//! Each returns the same [`Workload`] with an [`ImportReport`] whose counts add up
//! (`records = jobs + skipped_total`), within the same [`Limits`], naming file and line
//! for every malformed row.
//!
//! The line-based readers share [`super::rows::Rows`]: counting by reason, strict mode, the
//! job limit, sorting and shifting to the first submit exactly as the SWF reader does.

use std::borrow::Cow;
use std::io::Read;

use super::swf::{read_swf, SwfError, SwfOptions};
use super::Workload;
use crate::limits::{Limit, LimitExceeded, Limits};

/// A trace format. `Auto` looks at the content (see [`detect`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceFormat {
    #[default]
    Auto,
    Swf,
    Gwf,
    BatsimJson,
    Sacct,
}

impl TraceFormat {
    pub const ALL: [TraceFormat; 5] = [
        TraceFormat::Auto,
        TraceFormat::Swf,
        TraceFormat::Gwf,
        TraceFormat::BatsimJson,
        TraceFormat::Sacct,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Auto => "auto",
            TraceFormat::Swf => "swf",
            TraceFormat::Gwf => "gwf",
            TraceFormat::BatsimJson => "batsim-json",
            TraceFormat::Sacct => "sacct",
        }
    }

    pub fn is_auto(&self) -> bool {
        *self == TraceFormat::Auto
    }
}

impl std::str::FromStr for TraceFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<TraceFormat, String> {
        TraceFormat::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                format!("unknown trace format '{s}' (one of: auto, swf, gwf, batsim-json, sacct)")
            })
    }
}

/// What a trace is read with besides the SWF options (strictness, limits).
#[derive(Clone, Debug, Default)]
pub struct TraceOptions {
    pub format: TraceFormat,
    /// Minutes east of UTC that zone-less timestamps (sacct) are read in; 0 = UTC.
    pub utc_offset_min: i32,
}

/// Reads a trace of any supported format (plain or gzip). SWF goes through [`read_swf`]
/// unchanged, so an SWF file gives the same workload, report and errors as before.
pub fn read_trace(
    file: &str,
    bytes: &[u8],
    opts: &SwfOptions,
    trace: &TraceOptions,
) -> Result<Workload, SwfError> {
    let gzip = bytes.starts_with(&[0x1f, 0x8b]);
    let format = match trace.format {
        TraceFormat::Auto => {
            let head = if gzip {
                Cow::Owned(inflate_head(bytes))
            } else {
                Cow::Borrowed(bytes)
            };
            detect(&head)
        }
        f => f,
    };
    if format == TraceFormat::Swf {
        return read_swf(file, bytes, opts);
    }
    let text = if gzip {
        Cow::Owned(inflate(file, bytes, &opts.limits)?)
    } else {
        Cow::Borrowed(bytes)
    };
    let mut w = match format {
        TraceFormat::Gwf => super::gwf::read_gwf(file, &text, opts)?,
        TraceFormat::BatsimJson => super::batsim_json::read_batsim_json(file, &text, opts)?,
        _ => super::sacct::read_sacct(file, &text, opts, trace.utc_offset_min)?,
    };
    w.report.gzip = gzip;
    Ok(w)
}

/// The format of a trace from its first lines: `{` first → Batsim JSON; a first data line
/// with `|` separators (sacct's header `JobID|Submit|…`) → sacct; a `#` header naming
/// OrigSiteID, or a first data line of 29 fields → GWF; anything else → SWF (whose reader
/// says what is wrong with a file that is none of them).
pub fn detect(bytes: &[u8]) -> TraceFormat {
    let head = &bytes[..bytes.len().min(1 << 16)];
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    if head.trim_ascii_start().first() == Some(&b'{') {
        return TraceFormat::BatsimJson;
    }
    for line in head.split(|&b| b == b'\n').take(200) {
        let line = line.trim_ascii();
        match line.first() {
            None => continue,
            Some(b';') => return TraceFormat::Swf,
            Some(b'#') => {
                if memchr::memmem::find(line, b"OrigSiteID").is_some() {
                    return TraceFormat::Gwf;
                }
                continue;
            }
            _ => {}
        }
        // A binary file (an image, an archive) may hold a `|` byte too: it is not sacct's
        // text, and the SWF reader says what is wrong with it (issue #38: it was "read as
        // sacct").
        if line
            .iter()
            .any(|&b| b == 0 || (b < b' ' && b != b'\t' && b != b'\r'))
        {
            return TraceFormat::Swf;
        }
        if line.contains(&b'|') {
            return TraceFormat::Sacct;
        }
        let fields = line.split(|&b| b <= b' ').filter(|t| !t.is_empty()).count();
        return if fields == super::gwf::GWF_FIELDS {
            TraceFormat::Gwf
        } else {
            TraceFormat::Swf
        };
    }
    TraceFormat::Swf
}

/// The first 64 KiB a gzip file inflates to (for [`detect`]); what inflates before damage.
fn inflate_head(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = flate2::read::MultiGzDecoder::new(bytes)
        .take(1 << 16)
        .read_to_end(&mut out);
    out
}

/// A whole gzip file inflated, at most the inflated-bytes limit of it.
fn inflate(file: &str, bytes: &[u8], limits: &Limits) -> Result<Vec<u8>, SwfError> {
    let max = limits.inflated_bytes;
    // A format read whole must fit in memory at once: the page's wasm memory (4 GiB in all,
    // never given back) holds at most this much of one file's text, and anywhere an
    // allocation that fails is an error instead of an abort (a gzip bomb of GWF).
    let hold = if cfg!(target_arch = "wasm32") {
        max.min(WASM_HOLD_BYTES)
    } else {
        max
    };
    let gzip_error = |e: std::io::Error| SwfError::Gzip {
        file: file.to_string(),
        after_line: 0,
        message: e.to_string(),
    };
    let mut out: Vec<u8> = Vec::new();
    let mut decoder = flate2::read::MultiGzDecoder::new(bytes).take(max.saturating_add(1));
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = match decoder.read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(gzip_error(e)),
        };
        if n == 0 {
            break;
        }
        let would_hold = out.len() as u64 + n as u64;
        if would_hold > max {
            return Err(SwfError::Limit(LimitExceeded {
                limit: Limit::InflatedBytes,
                max,
                context: file.to_string(),
            }));
        }
        if would_hold > hold || out.try_reserve(n).is_err() {
            return Err(SwfError::TooBigToHold {
                file: file.to_string(),
                bytes: out.len() as u64,
            });
        }
        out.extend_from_slice(&chunk[..n]);
    }
    Ok(out)
}

/// The most text of one GWF, Batsim JSON or sacct file the page holds (1 GiB): a quarter of
/// wasm32's whole address space, so the worker lives on to say why.
const WASM_HOLD_BYTES: u64 = 1 << 30;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_apart_by_content() {
        assert_eq!(
            detect(b"; Version: 2.2\n1 0 0 5 1 -1 -1 1 5 -1 1 1 1 1 1 1 -1 -1\n"),
            TraceFormat::Swf
        );
        assert_eq!(
            detect(b"1 0 0 5 1 -1 -1 1 5 -1 1 1 1 1 1 1 -1 -1\n"),
            TraceFormat::Swf
        );
        assert_eq!(
            detect(b"  {\"nb_res\": 4, \"jobs\": []}"),
            TraceFormat::BatsimJson
        );
        assert_eq!(
            detect(b"JobID|Submit|Start|End|Elapsed|Timelimit|NCPUS|NNodes|State\n"),
            TraceFormat::Sacct
        );
        assert_eq!(
            detect(b"# JobID SubmitTime WaitTime RunTime NProcs OrigSiteID\n"),
            TraceFormat::Gwf
        );
        let gwf_line = vec!["1"; 29].join("\t");
        assert_eq!(detect(gwf_line.as_bytes()), TraceFormat::Gwf);
        assert_eq!(detect(b""), TraceFormat::Swf);
        // Binary bytes with a `|` among them are not sacct.
        assert_eq!(
            detect(b"\x89PNG\x1a\x00\x00|IHDR|\x01\x02"),
            TraceFormat::Swf
        );
        assert_eq!(
            "Batsim-JSON".parse::<TraceFormat>(),
            Ok(TraceFormat::BatsimJson)
        );
        assert!("csv".parse::<TraceFormat>().is_err());
    }
}
