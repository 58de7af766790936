//! The arguments of `gridscope sweep plan|run|status|merge|slurm` (docs/cluster.md), and
//! `--shard`'s value: the command line's side of `cluster/`.

use std::path::PathBuf;
use std::str::FromStr;

use clap::{Args, Subcommand, ValueHint};

use super::common::{parse_threads, LimitArgs};

/// `gridscope sweep`: its actions.
#[derive(Args, Debug)]
pub struct SweepArgsCmd {
    #[command(subcommand)]
    pub action: SweepAction,
}

#[derive(Subcommand, Debug)]
pub enum SweepAction {
    /// Expand MANIFEST into cases (stable ids) in DIR, lock the traces, count the work
    Plan(PlanArgs),
    /// Run a shard's cases on the local cores; skips cases done, reruns corrupt results
    Run(ShardRunArgs),
    /// Cases done, running, failed and missing per shard
    Status(StatusArgs),
    /// Every case's metrics (DIR/merged/cases.csv) and medians with CIs (points.csv, merged.json)
    Merge(MergeArgs),
    /// Write (and with --submit, submit) a Slurm array job and a merge job chained after it
    Slurm(SlurmArgs),
}

#[derive(Args, Debug)]
pub struct PlanArgs {
    /// The sweep manifest (JSON; docs/cluster.md)
    #[arg(value_name = "MANIFEST.json", value_hint = ValueHint::FilePath)]
    pub manifest: String,
    /// The sweep folder to write (on a cluster: on the shared file system)
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub out: PathBuf,
    /// Refuse manifests of more cases than this
    #[arg(long, value_name = "N", default_value_t = 100_000, value_parser = parse_max_cases)]
    pub max_cases: usize,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct ShardRunArgs {
    /// The sweep folder (written by `gridscope sweep plan`)
    #[arg(value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub dir: PathBuf,
    /// This process's share: I/N (0-based), or slurm (I = SLURM_ARRAY_TASK_ID)
    #[arg(long, value_name = "I/N|slurm")]
    pub shard: ShardSpec,
    /// With --shard slurm: N, the array's size [default: SLURM_ARRAY_TASK_COUNT]
    #[arg(long, value_name = "N", value_parser = parse_max_cases)]
    pub of: Option<usize>,
    /// Cases at once [default: SLURM_CPUS_PER_TASK, else the available cores]
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct StatusArgs {
    /// The sweep folder
    #[arg(value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub dir: PathBuf,
    /// Count shards of N [default: the --tasks of `sweep slurm`, else 1]
    #[arg(long, value_name = "N", value_parser = parse_max_cases)]
    pub of: Option<usize>,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The sweep folder
    #[arg(value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub dir: PathBuf,
}

#[derive(Args, Debug)]
pub struct SlurmArgs {
    /// The sweep folder (on a file system the compute nodes share)
    #[arg(value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub dir: PathBuf,
    /// Array tasks: task i runs shard i of N
    #[arg(long, value_name = "N", value_parser = parse_max_cases)]
    pub tasks: usize,
    /// Slurm partition
    #[arg(long, value_name = "P")]
    pub partition: Option<String>,
    /// Time limit per task (Slurm's format, e.g. 1:00:00)
    #[arg(long, value_name = "T")]
    pub time: Option<String>,
    /// CPUs per task (its cases run on as many threads)
    #[arg(long, value_name = "C", default_value_t = 1, value_parser = parse_threads)]
    pub cpus_per_task: usize,
    /// At most M tasks at once (--array=0-(N-1)%M)
    #[arg(long, value_name = "M", value_parser = parse_max_cases)]
    pub max_parallel: Option<usize>,
    /// Slurm account
    #[arg(long, value_name = "A")]
    pub account: Option<String>,
    /// Submit both jobs (sbatch --parsable) and print their ids
    #[arg(long)]
    pub submit: bool,
}

/// Shard `index` of `count` (0-based): a share of the cases fixed by the plan alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

/// `--shard`: `I/N`, or `slurm` (the index from `SLURM_ARRAY_TASK_ID`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShardSpec {
    Fixed(Shard),
    Slurm,
}

impl FromStr for ShardSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<ShardSpec, String> {
        if s == "slurm" {
            return Ok(ShardSpec::Slurm);
        }
        let bad = || format!("'{s}' is not I/N (0 ≤ I < N, e.g. 0/4) or slurm");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse::<usize>().map_err(|_| bad())?,
            n.trim().parse::<usize>().map_err(|_| bad())?,
        );
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(ShardSpec::Fixed(Shard { index, count }))
    }
}

fn parse_max_cases(s: &str) -> Result<usize, String> {
    match s.trim().replace('_', "").parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("must be a positive whole number".into()),
    }
}
