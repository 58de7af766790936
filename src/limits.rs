//! The resource limits every input path checks: how many bytes a file may hold and inflate
//! to, how long a line may be, how many jobs a workload and how many sites a platform may
//! have, how many jobs a sweep may simulate. They exist so that a small hostile input (a
//! gzip bomb, a share link naming 30,000 sites) gets a clear error instead of running the
//! process or the visitor's tab out of memory or time.
//!
//! The defaults are far above every real trace (the largest shared trace, RICC-2010-2, is
//! 3.7 MB of gzip, 42 MB of text, 448k jobs, 97-byte lines); the table in `gridscope help
//! limits` gives each with its CLI flag. The page uses the defaults.

use std::fmt;

/// One named limit: its CLI flag, its value and what it bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    FileBytes,
    InflatedBytes,
    LineBytes,
    Jobs,
    Sites,
    SweepJobs,
    SeriesPoints,
    GeneratorDraws,
    PlanWork,
}

impl Limit {
    pub const ALL: [Limit; 9] = [
        Limit::FileBytes,
        Limit::InflatedBytes,
        Limit::LineBytes,
        Limit::Jobs,
        Limit::Sites,
        Limit::SweepJobs,
        Limit::SeriesPoints,
        Limit::GeneratorDraws,
        Limit::PlanWork,
    ];

    /// The CLI flag that raises it.
    pub fn flag(self) -> &'static str {
        match self {
            Limit::FileBytes => "--max-file-bytes",
            Limit::InflatedBytes => "--max-inflated-bytes",
            Limit::LineBytes => "--max-line-bytes",
            Limit::Jobs => "--max-jobs",
            Limit::Sites => "--max-sites",
            Limit::SweepJobs => "--max-sweep-jobs",
            Limit::SeriesPoints => "--max-series-points",
            Limit::GeneratorDraws => "--max-generator-draws",
            Limit::PlanWork => "--max-plan-work",
        }
    }

    /// What it bounds, for help and errors.
    pub fn what(self) -> &'static str {
        match self {
            Limit::FileBytes => "bytes read from one input file (as stored, before gzip inflation)",
            Limit::InflatedBytes => "bytes of SWF text one gzip file inflates to",
            Limit::LineBytes => {
                "bytes in one SWF line (a longer line is counted as malformed and skipped)"
            }
            Limit::Jobs => "job records in one workload (read or generated)",
            Limit::Sites => "sites of a platform (memory and each grid decision grow with them)",
            Limit::SweepJobs => {
                "jobs an SF sweep simulates in all (points × policies × seeds × batches × k)"
            }
            Limit::SeriesPoints => {
                "time-series points a report holds (--series buckets × sites × runs; two numbers each)"
            }
            Limit::GeneratorDraws => {
                "exponential draws a hyper-Erlang workload takes (expected jobs × the two Erlang orders; the time it takes grows with them)"
            }
            Limit::PlanWork => {
                "steps of work conservative backfilling may spend on its plans in one run (a job looked at, each step a compression search goes over, and a plan's length for each placement or move; a backlog of N jobs costs about N³)"
            }
        }
    }

    /// How far the largest real input is from the default, for the help table.
    pub fn largest_real(self) -> &'static str {
        match self {
            Limit::FileBytes => "3.7 MB (RICC-2010-2.swf.gz)",
            Limit::InflatedBytes => "42 MB (RICC-2010-2)",
            Limit::LineBytes => "1,375 (a header line of alea-wagap-2013)",
            Limit::Jobs => "447,794 (RICC-2010-2)",
            Limit::Sites => "6 (the sob-6 platform)",
            Limit::SweepJobs => "1.67·10⁸ (sf-batch at its defaults)",
            Limit::SeriesPoints => {
                "3.6·10⁶ (--series 100000 on sob-synthetic-heavy: 6 sites × 6 runs)"
            }
            Limit::GeneratorDraws => "4.3·10⁴ (sob-table6-light)",
            Limit::PlanWork => "1.15·10¹¹ (RICC-2010-2, conservative)",
        }
    }
}

/// Plan work conservative backfilling may spend in one run by default (see
/// [`Limit::PlanWork`]). Measured (issue #30), counting the steps compression's searches go
/// over too (three quarters of a backlog's time, `perf`; uncounted before): RICC-2010-2, the
/// costliest shared trace, spends 1.15·10¹¹ (31 s of a core), METACENTRUM-2009-2 4.1·10⁹
/// (1.7 s); a same-instant backlog of 2,500 jobs 7.0·10⁹ (3.2 s), of 5,000 6.1·10¹⁰ (27 s),
/// so at this bound a backlog of 10,000 stops after about 100 s of a core (174 s when
/// searches were not counted) instead of running for hours, and every shared trace runs.
pub const PLAN_WORK_DEFAULT: u64 = 200_000_000_000;

/// Every limit's value. `Limits::default()` is what the page and the CLI use unless a flag
/// raises one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub file_bytes: u64,
    pub inflated_bytes: u64,
    pub line_bytes: u64,
    pub jobs: u64,
    pub sites: u64,
    pub sweep_jobs: u64,
    pub series_points: u64,
    pub generator_draws: u64,
    pub plan_work: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            file_bytes: 1 << 30,
            inflated_bytes: 4 << 30,
            line_bytes: 1 << 20,
            jobs: 10_000_000,
            sites: 4096,
            sweep_jobs: 1_000_000_000,
            series_points: 4_000_000,
            generator_draws: 1_000_000_000,
            plan_work: PLAN_WORK_DEFAULT,
        }
    }
}

impl Limits {
    pub fn get(&self, limit: Limit) -> u64 {
        match limit {
            Limit::FileBytes => self.file_bytes,
            Limit::InflatedBytes => self.inflated_bytes,
            Limit::LineBytes => self.line_bytes,
            Limit::Jobs => self.jobs,
            Limit::Sites => self.sites,
            Limit::SweepJobs => self.sweep_jobs,
            Limit::SeriesPoints => self.series_points,
            Limit::GeneratorDraws => self.generator_draws,
            Limit::PlanWork => self.plan_work,
        }
    }

    pub fn set(&mut self, limit: Limit, value: u64) {
        let slot = match limit {
            Limit::FileBytes => &mut self.file_bytes,
            Limit::InflatedBytes => &mut self.inflated_bytes,
            Limit::LineBytes => &mut self.line_bytes,
            Limit::Jobs => &mut self.jobs,
            Limit::Sites => &mut self.sites,
            Limit::SweepJobs => &mut self.sweep_jobs,
            Limit::SeriesPoints => &mut self.series_points,
            Limit::GeneratorDraws => &mut self.generator_draws,
            Limit::PlanWork => &mut self.plan_work,
        };
        *slot = value;
    }

    /// `Err` naming the limit when `value` passes it.
    pub fn check(&self, limit: Limit, value: u64, context: &str) -> Result<(), LimitExceeded> {
        let max = self.get(limit);
        if value > max {
            return Err(LimitExceeded {
                limit,
                max,
                context: context.to_string(),
            });
        }
        Ok(())
    }
}

/// Why an input file could not be read: the system refused (missing, a folder, no
/// permission: `name` is the file as the user gave it) or it is larger than a limit.
#[derive(Debug)]
#[non_exhaustive]
pub enum ReadError {
    /// Opening or reading failed: fix the path or the permissions.
    Io {
        name: String,
        source: std::io::Error,
    },
    /// The file passed [`Limits::file_bytes`]: raise the limit if it is genuine.
    Limit(LimitExceeded),
}

impl ReadError {
    /// `name` could not be opened or read.
    pub fn io(name: impl Into<String>, source: std::io::Error) -> ReadError {
        ReadError::Io {
            name: name.into(),
            source,
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io { name, source } => write!(f, "cannot read {name}: {source}"),
            ReadError::Limit(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Io { source, .. } => Some(source),
            ReadError::Limit(e) => Some(e),
        }
    }
}

impl From<LimitExceeded> for ReadError {
    fn from(e: LimitExceeded) -> Self {
        ReadError::Limit(e)
    }
}

/// Reads all of `input` (a file the caller opened: the library does no file I/O), at most
/// `limits.file_bytes` of it: `/dev/zero` or a huge file is an error naming the limit, not
/// an endless read. `name` says what it is in errors. Every native edge (the CLI, the
/// Python package) reads its input files through it.
pub fn read_bounded(
    input: impl std::io::Read,
    name: &str,
    limits: &Limits,
) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let mut bytes = Vec::new();
    input
        .take(limits.file_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::io(name, e))?;
    limits.check(Limit::FileBytes, bytes.len() as u64, name)?;
    Ok(bytes)
}

/// An input passed one of the [`Limits`]: what, where, and how to raise it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimitExceeded {
    pub limit: Limit,
    pub max: u64,
    /// What passed it ("trace.swf.gz", "platform 'big'").
    pub context: String,
}

impl fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: more than {} {} — a limit that guards against runaway inputs; ",
            self.context,
            group_thousands(self.max),
            self.limit.what(),
        )?;
        // The page (the only wasm build) has no flags: it says what its visitor can do.
        if cfg!(target_arch = "wasm32") {
            write!(
                f,
                "the page keeps to it: make the input smaller, or run it with the command-line \
                 gridscope, which can raise the limit"
            )
        } else {
            write!(
                f,
                "if the input is genuine, raise it with {} N on the command line (`gridscope \
                 help limits` lists them)",
                self.limit.flag()
            )
        }
    }
}

impl std::error::Error for LimitExceeded {}

/// `1234567` → `1,234,567`.
pub fn group_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exceeded_limit_names_itself_and_its_flag() {
        let l = Limits::default();
        assert!(l.check(Limit::Sites, 4096, "p").is_ok());
        let e = l.check(Limit::Sites, 4097, "platform 'big'").unwrap_err();
        let m = e.to_string();
        assert!(
            m.starts_with("platform 'big': more than 4,096 sites"),
            "{m}"
        );
        // The CLI names its flag; the page, which has none, says what its visitor can do.
        if cfg!(target_arch = "wasm32") {
            assert!(
                m.contains("command-line gridscope") && !m.contains("--"),
                "{m}"
            );
        } else {
            assert!(m.contains("--max-sites"), "{m}");
        }
        assert_eq!(group_thousands(20_000_000), "20,000,000");
        assert_eq!(group_thousands(999), "999");
    }
}
