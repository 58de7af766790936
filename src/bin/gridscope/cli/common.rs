//! The arguments several commands share: how results are reported (`ReportArgs`), how a
//! trace is read (`FormatArgs`), the resource limits (`LimitArgs`), the engine options
//! `simulate`, `explain` and `run` spell alike, and the value parsers they use.

use std::path::PathBuf;

use clap::{Args, ValueEnum, ValueHint};
use gridscope::workload::{TraceFormat, TraceOptions};

/// How the results are reported: shared by `simulate` and `run`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Print the report as JSON instead of tables
    #[arg(long)]
    pub json: bool,
    /// Add utilization and queue length in N time buckets to the JSON
    ///
    /// Per site and run, N from 1 to 100000.
    #[arg(long, value_name = "N", value_parser = parse_buckets, verbatim_doc_comment)]
    pub series: Option<usize>,
    /// Set each run's waits against the log's (a trace that records them)
    ///
    /// SWF/GWF field 3 or sacct's Start − Submit: per job the wait error (simulated −
    /// logged), its mean, mean absolute value and share within an hour, and FastSim's mean
    /// absolute percentage error of the 14-day moving-average wait; the JSON gains vs_log
    /// per run, the --jobs CSV a logged_wait column. docs/slurm.md, "Against the log".
    #[arg(long, verbatim_doc_comment)]
    pub vs_log: bool,
    /// Write the jobs' schedule as CSV (several runs: OUT.<label>.csv)
    ///
    /// Columns job_id,home,site,submit,start,end,procs: one row per job that ran, times in
    /// seconds from the first submit; then nodes (a run placed on nodes), energy_j (a run
    /// with energy: the job's share of its nodes' power, docs/energy.md) and emissions_g
    /// (under a carbon series: that share times the grid's intensity). With several runs,
    /// one file per run, the run's label before the extension.
    #[arg(long, value_name = "OUT.csv", value_hint = ValueHint::FilePath, verbatim_doc_comment)]
    pub jobs: Option<PathBuf>,
    /// The schema of the --jobs files: gridscope or batsim [default: gridscope]
    ///
    /// gridscope: the columns above. batsim: Batsim's jobs.csv (job_id, workload_name,
    /// profile, submission_time, requested_number_of_resources, requested_time, success,
    /// final_state, starting_time, execution_time, finish_time, waiting_time,
    /// turnaround_time, stretch, allocated_resources), which evalys and Batsim tooling read.
    #[arg(long, value_name = "SCHEMA", value_enum, default_value_t = JobsFormat::Gridscope, verbatim_doc_comment)]
    pub jobs_format: JobsFormat,
    /// Runs at once, one per thread [default: the available cores]
    ///
    /// The runs of a comparison (several policies or schemes) are independent; the report is
    /// the same bytes whatever N is. 1 runs them one after another.
    #[arg(long, value_name = "N", value_parser = parse_threads, verbatim_doc_comment)]
    pub threads: Option<usize>,
}

/// The schema of the per-job CSV files (`--jobs-format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum JobsFormat {
    Gridscope,
    Batsim,
}

/// How a TRACE is read: its format (told by the content unless given) and the time zone
/// of timestamps that carry none (issue #29).
#[derive(Args, Debug, Default, Clone)]
pub struct FormatArgs {
    /// The trace's format: auto, swf, gwf, batsim-json or sacct [default: auto]
    ///
    /// auto tells them apart by the content: `{` first is Batsim JSON, `|`-separated lines
    /// are sacct --parsable2, 29 fields or a `#` header naming OrigSiteID is GWF, anything
    /// else SWF. docs/formats.md has what each field becomes.
    #[arg(long, value_name = "FORMAT", value_parser = parse_trace_format, verbatim_doc_comment)]
    pub format: Option<TraceFormat>,
    /// The zone of sacct timestamps without one, as ±HH:MM east of UTC [default: UTC]
    ///
    /// sacct prints the cluster's local time with no zone; the import report says which
    /// zone they were read in.
    #[arg(long, value_name = "±HH:MM", allow_hyphen_values = true, value_parser = parse_utc_offset, verbatim_doc_comment)]
    pub utc_offset: Option<i32>,
}

impl ReportArgs {
    /// `--threads`, or the available cores.
    pub fn thread_count(&self) -> usize {
        self.threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        })
    }
}

impl FormatArgs {
    pub fn trace_options(&self) -> TraceOptions {
        TraceOptions {
            format: self.format.unwrap_or_default(),
            utc_offset_min: self.utc_offset.unwrap_or(0),
        }
    }
}

/// The resource limits (`gridscope help limits`): each flag raises or lowers one.
#[derive(Args, Debug, Default)]
#[command(
    next_help_heading = "Limits (guards against runaway inputs; see `gridscope help limits`)"
)]
pub struct LimitArgs {
    /// Bytes read from one input file, as stored [default: 1 GiB]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_file_bytes: Option<u64>,
    /// Bytes of text one gzip file may inflate to [default: 4 GiB]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_inflated_bytes: Option<u64>,
    /// Bytes in one SWF line; longer lines are malformed [default: 1 MiB]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_line_bytes: Option<u64>,
    /// Job records in one workload [default: 10,000,000]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_jobs: Option<u64>,
    /// Sites of a platform [default: 4096]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_sites: Option<u64>,
    /// Jobs an SF sweep simulates in all [default: 1,000,000,000]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_sweep_jobs: Option<u64>,
    /// Time-series points a report holds (--series N × sites × runs) [default: 4,000,000]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_series_points: Option<u64>,
    /// Exponential draws a hyper-Erlang workload takes (jobs × orders) [default: 1,000,000,000]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_generator_draws: Option<u64>,
    /// Steps of plan work conservative backfilling may spend in one run [default: 2·10¹¹]
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_plan_work: Option<u64>,
    /// Read scenario workload files outside the scenario's folder
    ///
    /// By default a scenario may name files only in its own folder or below it (a shared
    /// scenario cannot read ../../etc/passwd).
    #[arg(long, verbatim_doc_comment)]
    pub allow_any_path: bool,
}

impl LimitArgs {
    /// The defaults with every given flag applied.
    pub fn limits(&self) -> gridscope::limits::Limits {
        use gridscope::limits::Limit;
        let mut l = gridscope::limits::Limits::default();
        for (limit, v) in [
            (Limit::FileBytes, self.max_file_bytes),
            (Limit::InflatedBytes, self.max_inflated_bytes),
            (Limit::LineBytes, self.max_line_bytes),
            (Limit::Jobs, self.max_jobs),
            (Limit::Sites, self.max_sites),
            (Limit::SweepJobs, self.max_sweep_jobs),
            (Limit::SeriesPoints, self.max_series_points),
            (Limit::GeneratorDraws, self.max_generator_draws),
            (Limit::PlanWork, self.max_plan_work),
        ] {
            if let Some(v) = v {
                l.set(limit, v);
            }
        }
        l
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventOrderArg {
    Gridscope,
    Pyss,
    Cqsim,
    /// AccaSim's order, which is Gridscope's (docs/nodes.md).
    Accasim,
}

impl From<EventOrderArg> for gridscope::engine::EventOrder {
    fn from(a: EventOrderArg) -> Self {
        match a {
            EventOrderArg::Gridscope | EventOrderArg::Accasim => Self::Gridscope,
            EventOrderArg::Pyss => Self::Pyss,
            EventOrderArg::Cqsim => Self::Cqsim,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Estimates {
    Trace,
    Exact,
}

pub(super) fn parse_threads(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=1024).contains(&n) => Ok(n),
        _ => Err("must be a whole number from 1 to 1024".into()),
    }
}

pub(super) fn parse_positive_u32(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("must be a positive integer".into()),
    }
}

fn parse_buckets(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(b) if (1..=100_000).contains(&b) => Ok(b),
        _ => Err("must be a number of buckets from 1 to 100000".into()),
    }
}

fn parse_trace_format(s: &str) -> Result<TraceFormat, String> {
    s.parse()
}

/// `+01:00`, `-0530`, `2` (hours) → minutes east of UTC, within ±18 hours.
pub fn parse_utc_offset(s: &str) -> Result<i32, String> {
    let t = s.trim();
    let (sign, rest) = match t.as_bytes().first() {
        Some(b'-') => (-1, &t[1..]),
        Some(b'+') => (1, &t[1..]),
        _ => (1, t),
    };
    let digits: String = rest.chars().filter(|&c| c != ':').collect();
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err("must be ±HH:MM east of UTC, e.g. +01:00 or -05:00".to_string());
    }
    let ok = |h: i32, m: i32| {
        (h <= 18 && m < 60 && h * 60 + m <= 18 * 60).then_some(sign * (h * 60 + m))
    };
    let parsed = match digits.len() {
        1 | 2 => digits.parse().ok().and_then(|h| ok(h, 0)),
        4 => match (digits[..2].parse(), digits[2..].parse()) {
            (Ok(h), Ok(m)) => ok(h, m),
            _ => None,
        },
        _ => None,
    };
    parsed.ok_or_else(|| "must be ±HH:MM east of UTC, e.g. +01:00 or -05:00".to_string())
}

/// A limit: a positive whole number, with an optional K, M, G (powers of 1024 for bytes
/// read the same: 1K = 1024) suffix.
fn parse_limit(s: &str) -> Result<u64, String> {
    let t = s.trim().replace(['_', ','], "");
    let (digits, scale) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1u64 << 10),
        Some('m' | 'M') => (&t[..t.len() - 1], 1 << 20),
        Some('g' | 'G') => (&t[..t.len() - 1], 1 << 30),
        _ => (&t[..], 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .filter(|&n| n > 0)
        .ok_or_else(|| "must be a positive whole number, optionally with K, M or G (×1024)".into())
}
