//! The arguments of the one-shot commands: `simulate`, `lint`, `explain`, `convert` and `fit`
//! (each reads one TRACE), `compare` (two runs' per-job CSVs) and `reproduce` (the papers'
//! claims).

use std::path::PathBuf;

use clap::{Args, ValueEnum, ValueHint};
use gridscope::model::PlacementRule;
use gridscope::policy::local::LocalPolicyKind;
use gridscope::workload::hyper_erlang::FitMethod;

use super::common::{
    parse_positive_u32, Estimates, EventOrderArg, FormatArgs, LimitArgs, ReportArgs,
};

/// `--power-off-after`'s and `--carbon-slack`'s list: per entry, `None` for never.
#[derive(Clone, Debug)]
pub struct OffAfter(pub Vec<Option<f64>>);

fn parse_off_after(s: &str) -> Result<OffAfter, gridscope::scenario::energy::BadSeconds> {
    gridscope::scenario::energy::parse_seconds_list(s).map(OffAfter)
}

fn parse_power_cap(s: &str) -> Result<OffAfter, gridscope::scenario::energy::BadWatts> {
    gridscope::scenario::energy::parse_watts_list(s).map(OffAfter)
}

/// `--placement`'s list of rules.
#[derive(Clone, Debug)]
pub struct Placements(pub Vec<PlacementRule>);

fn parse_placements(s: &str) -> Result<Placements, gridscope::model::fit::UnknownPlacement> {
    PlacementRule::parse_list(s).map(Placements)
}

/// `explain --placement`'s one rule.
fn parse_placement(s: &str) -> Result<PlacementRule, gridscope::model::fit::UnknownPlacement> {
    PlacementRule::parse(s).ok_or_else(|| gridscope::model::fit::UnknownPlacement(s.trim().into()))
}

#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// The trace (plain or gzip): SWF, GWF, Batsim JSON or sacct --parsable2
    #[arg(value_name = "TRACE", value_hint = ValueHint::FilePath)]
    pub trace: String,
    #[command(flatten)]
    pub format: FormatArgs,
    /// fcfs, easy, conservative, sjf, firstfit, conservative-rebuild, slurm, a comma list,
    /// or all (the first five)
    ///
    /// `gridscope help policies` describes each.
    #[arg(long, value_name = "POLICY", value_parser = parse_local_policies, verbatim_doc_comment)]
    pub policy: LocalPolicies,
    /// `--slurm-conf`, `--slurm-preset` (boxed: they would make every command's
    /// arguments as large as `simulate`'s).
    #[command(flatten)]
    pub slurm: Box<SlurmPolicyArgs>,
    /// Processors of the machine [default: from the trace]
    ///
    /// By default the header's MaxProcs, else MaxNodes, else the widest job; the output says
    /// which. Jobs wider than the machine are rejected with a reason, never dropped.
    #[arg(long, value_name = "N", value_parser = parse_positive_u32, verbatim_doc_comment)]
    pub procs: Option<u32>,
    /// The platform, from a file: Gridscope's platform JSON ({"name", "sites"}) or one site,
    /// or an AccaSim system configuration unchanged
    /// ({"groups": {"g0": {"core": 8, "mem": 12582912}}, "resources": {"g0": 1024}})
    ///
    /// Sites with node types place jobs on nodes by cores, memory and GPUs (docs/nodes.md).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, conflicts_with = "procs", verbatim_doc_comment)]
    pub platform: Option<PathBuf>,
    /// Each node of the --platform runs at most one job: a start holds its nodes whole
    /// (all their cores, memory and GPUs), as `"allocation": "node"` on a site with node
    /// types says; for an AccaSim configuration, which cannot say it (docs/nodes.md)
    #[arg(long, requires = "platform", verbatim_doc_comment)]
    pub node_exclusive: bool,
    /// How a start picks its nodes on the --platform's node types: first-fit (node order,
    /// the default; AccaSim's FirstFit) or best-fit (least free first; AccaSim's BestFit
    /// rank: free cores + KB of memory + GPUs), or a comma list, each run beside the others
    /// for every --policy (e.g. first-fit,best-fit)
    #[arg(long, value_name = "RULE", value_parser = parse_placements, requires = "platform", verbatim_doc_comment)]
    pub placement: Option<Placements>,
    /// What each node draws, for every node type of the --platform: a power model JSON file
    /// or a preset (simgrid-example, batsim-cluster-energy-128)
    ///
    /// The report then gives each run's energy (J, kWh), average and peak power
    /// (docs/energy.md). Node types that name their own "power" in the platform keep it.
    #[arg(
        long,
        value_name = "MODEL",
        requires = "platform",
        verbatim_doc_comment
    )]
    pub power: Option<String>,
    /// A grid's carbon intensity (CSV of start_s,end_s,g_per_kwh, seconds from the first
    /// submission), or `daily`: a synthetic grid, 300 + 150·sin(2πh/24) + 50·sin(2πh/168)
    /// g/kWh by the hour (a scenario's "carbon", version 6). Each run's energy then says
    /// its grams of CO2 (docs/energy.md)
    #[arg(long, value_name = "CSV", value_hint = ValueHint::FilePath, requires = "power", verbatim_doc_comment)]
    pub carbon: Option<PathBuf>,
    /// Switch a node off once no job has held it this many seconds: a comma list, each
    /// run beside the others for every --policy; `never` keeps every node on (e.g.
    /// never,60,600)
    ///
    /// A job placed on a sleeping node waits for it to boot (the node types' switch_on
    /// time, after their switch_off if it is still switching off); first-fit takes the
    /// nodes that are on first. Needs node types that say what they draw (--power or
    /// "power" in the platform). The energy table adds switching and off joules, boots
    /// and the jobs' seconds waiting for boots (docs/energy.md).
    #[arg(long, value_name = "SECONDS", value_parser = parse_off_after, requires = "platform", verbatim_doc_comment)]
    pub power_off_after: Option<OffAfter>,
    /// Cap each powered site's draw at this many watts: a comma list, each run beside the
    /// others for every --policy; `never` runs without a cap (e.g. never,20000)
    ///
    /// A start that could take the site over its cap waits: at most K cores compute at
    /// once, K = ⌊(cap − Σ idle watts) / the most a busy core adds⌋, which every policy
    /// plans within (exact for Batsim's host, a bound with Epsilon ≠ Idle). A cap below
    /// the site's idle power is refused; a job wider than K is rejected with the cap as its
    /// reason. With --power-off-after too, each node counts at the most it draws holding
    /// no core (idle, off or switching off) and a held core also covers a boot (docs/energy.md,
    /// "Power cap").
    #[arg(long, value_name = "WATTS", value_parser = parse_power_cap, requires = "platform", verbatim_doc_comment)]
    pub power_cap: Option<OffAfter>,
    /// Carbon-aware delay: hold each job until the start within this many seconds of its
    /// submission where the --carbon series' mean intensity over its estimated run is
    /// lowest (earliest of equals): a comma list, each run beside the others for every
    /// --policy (and --power-off-after); `never` (or 0) holds no job (e.g. never,3600,86400)
    ///
    /// Its wait counts from its submission. The energy table adds the jobs held and their
    /// hours held; compare kg CO2 against the wait added (docs/energy.md).
    #[arg(long, value_name = "SECONDS", value_parser = parse_off_after, requires = "carbon", verbatim_doc_comment)]
    pub carbon_slack: Option<OffAfter>,
    /// Nodes down from a file: a CSV with the header node,start,end,kind (node: a node
    /// number of the first site, or SITE:NODE; start and end in seconds from the trace's
    /// start; kind failure or maintenance), Alea's .failures lines (a file ending in
    /// .failures; see --outage-origin), or Batsim's external events (JSON lines with
    /// machine_unavailable / machine_available, plain or as generic events)
    ///
    /// The jobs on a node that goes down are killed (--on-failure); the node is back at
    /// the outage's end. Maintenance is known in advance: no job starts on a node for a
    /// run its estimate says would overlap a window (docs/failures.md).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, requires = "platform", verbatim_doc_comment)]
    pub outages: Option<PathBuf>,
    /// The epoch second an Alea .failures file's times count from (the trace's
    /// UnixStartTime)
    #[arg(
        long,
        value_name = "EPOCH_S",
        default_value_t = 0,
        requires = "outages",
        verbatim_doc_comment
    )]
    pub outage_origin: i64,
    /// Failures drawn per node from a model: lanl05-exp, lanl05-wbl, lanl05-logn,
    /// lanl05-gam (the Failure Trace Archive's LANL fits, as OpenDC ships them), or a JSON
    /// file {"up": {"kind": "weibull", "shape": …, "scale": …}, "down": {…}, "unit_s": 3600}
    /// (add "share": 0.1 for correlated failures: events per site, each taking down that
    /// share of its nodes at once)
    #[arg(
        long,
        value_name = "MODEL",
        requires = "platform",
        verbatim_doc_comment
    )]
    pub failures: Option<String>,
    /// The seed of the failure model's per-node draws
    #[arg(long, value_name = "N", default_value_t = 0, requires = "failures")]
    pub failure_seed: u64,
    /// What becomes of a job a failure kills: requeue (back to the end of its queue, to
    /// run again from the start) or lost
    #[arg(long, value_name = "RULE", value_enum, default_value_t = OnFailureArg::Requeue, verbatim_doc_comment)]
    pub on_failure: OnFailureArg,
    /// How many times a job is requeued before it is lost (Slurm's MaxBatchRequeue)
    #[arg(long, value_name = "N", default_value_t = gridscope::failure::MAX_REQUEUE)]
    pub max_requeue: u32,
    /// Where a requeued job goes in its queue: back (behind every waiting job, as a new
    /// submission), front (ahead of them all, as Alea restarts jobs) or grid (offered to
    /// the grid scheme again, which may send it to another site; at that site's back)
    #[arg(long, value_name = "WHERE", value_enum, default_value_t = RequeueAtArg::Back, verbatim_doc_comment)]
    pub requeue_at: RequeueAtArg,
    /// Checkpointing for every job: young or daly (the interval from the failure model's
    /// mean time between failures M: Young's √(2·C·M), Daly's refinement) or a fixed
    /// interval in seconds of work. A requeued job resumes from its last checkpoint
    #[arg(
        long,
        value_name = "INTERVAL",
        requires = "platform",
        verbatim_doc_comment
    )]
    pub checkpoint: Option<String>,
    /// Seconds to write one checkpoint (C)
    #[arg(
        long,
        value_name = "S",
        default_value_t = 60.0,
        requires = "checkpoint"
    )]
    pub checkpoint_cost: f64,
    /// Seconds to restart from a checkpoint (R)
    #[arg(
        long,
        value_name = "S",
        default_value_t = 60.0,
        requires = "checkpoint"
    )]
    pub restart_cost: f64,
    /// Young's or Daly's interval per job, from the job's own mean time between failures
    /// M/k (k the fewest nodes that hold it) instead of the node's M
    #[arg(long, requires = "checkpoint", verbatim_doc_comment)]
    pub checkpoint_per_job: bool,
    /// The checkpoints count against the job's wallclock limit: each run is planned with
    /// the limit as given, and one its checkpoints push past the limit is killed there
    /// (default: the limit is taken to include the checkpoints)
    #[arg(long, requires = "checkpoint", verbatim_doc_comment)]
    pub checkpoint_within_limit: bool,
    /// Run-time estimates: the trace's or the exact runtime
    ///
    /// trace: SWF field 9 (the runtime when missing); exact: the real runtime.
    #[arg(long, value_name = "SOURCE", value_enum, default_value_t = Estimates::Trace, verbatim_doc_comment)]
    pub estimates: Estimates,
    /// Let jobs outlive their estimate (default: killed at it)
    #[arg(long)]
    pub no_kill: bool,
    /// The order of the events of one instant: gridscope, pyss, cqsim or accasim
    ///
    /// gridscope (default): every completion, then every arrival, then one scheduling pass.
    /// accasim: AccaSim's, which is the same order (it releases the jobs that end, queues
    /// the submissions in file order, then makes one dispatch decision).
    /// pyss: jobs ending exactly at their estimate are free first, then each arrival and
    /// each other completion with a pass after it. cqsim: each completion, then each
    /// arrival, with a pass after each. For comparing schedules with those simulators job
    /// for job (docs/local-policies.md).
    #[arg(long, value_name = "ORDER", value_enum, default_value_t = EventOrderArg::Gridscope, verbatim_doc_comment)]
    pub event_order: EventOrderArg,
    #[command(flatten)]
    pub report: ReportArgs,
    /// Fail on the first malformed line instead of counting it
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct LintArgs {
    /// The trace (plain or gzip): SWF, GWF, Batsim JSON or sacct --parsable2
    #[arg(value_name = "TRACE", value_hint = ValueHint::FilePath)]
    pub trace: String,
    #[command(flatten)]
    pub format: FormatArgs,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
    /// Fail on the first malformed line instead of counting it
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// The trace (plain or gzip): SWF, GWF, Batsim JSON or sacct --parsable2
    #[arg(value_name = "TRACE", value_hint = ValueHint::FilePath)]
    pub trace: String,
    #[command(flatten)]
    pub format: FormatArgs,
    /// The local policy the job ran under (one of `gridscope help policies`)
    #[arg(long, value_name = "POLICY")]
    pub policy: LocalPolicyKind,
    /// The job's id (SWF field 1)
    #[arg(
        long,
        value_name = "ID",
        allow_negative_numbers = true,
        required_unless_present = "at"
    )]
    pub job: Option<i64>,
    /// Instead of one job's wait: every queued job's priority and weighted factors at this
    /// instant (seconds from the first submit), as Slurm's sprio -l prints them; --policy
    /// slurm only (docs/slurm.md)
    #[arg(
        long,
        value_name = "SECONDS",
        conflicts_with = "job",
        verbatim_doc_comment
    )]
    pub at: Option<f64>,
    /// `--slurm-conf`, `--slurm-preset`, as `simulate` takes them.
    #[command(flatten)]
    pub slurm: Box<SlurmPolicyArgs>,
    /// Processors of the machine [default: from the trace]
    #[arg(long, value_name = "N", value_parser = parse_positive_u32)]
    pub procs: Option<u32>,
    /// The platform, from a file, as `simulate --platform` reads it: on sites with node
    /// types the explanation names the resource the free nodes lack (docs/nodes.md)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, conflicts_with = "procs")]
    pub platform: Option<PathBuf>,
    /// Each node of the --platform runs at most one job, as `simulate --node-exclusive`
    #[arg(long, requires = "platform")]
    pub node_exclusive: bool,
    /// How a start picks its nodes on the --platform's node types, as `simulate
    /// --placement` takes one rule: first-fit (the default) or best-fit
    #[arg(long, value_name = "RULE", value_parser = parse_placement, requires = "platform")]
    pub placement: Option<PlacementRule>,
    /// Run-time estimates: the trace's or the exact runtime
    #[arg(long, value_name = "SOURCE", value_enum, default_value_t = Estimates::Trace)]
    pub estimates: Estimates,
    /// Let jobs outlive their estimate (default: killed at it)
    #[arg(long)]
    pub no_kill: bool,
    /// The order of the events of one instant: gridscope, pyss or cqsim
    #[arg(long, value_name = "ORDER", value_enum, default_value_t = EventOrderArg::Gridscope)]
    pub event_order: EventOrderArg,
    /// Print the explanation as JSON
    #[arg(long)]
    pub json: bool,
    /// Fail on the first malformed line instead of counting it
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// The trace (plain or gzip): SWF, GWF, Batsim JSON or sacct --parsable2
    #[arg(value_name = "TRACE", value_hint = ValueHint::FilePath)]
    pub trace: String,
    #[command(flatten)]
    pub format: FormatArgs,
    /// What to write: swf or batsim-json
    ///
    /// swf: the 18 SWF fields of every accepted job (the header keeps what the import
    /// learnt: UnixStartTime, MaxProcs). batsim-json: {"nb_res", "jobs", "profiles"} with one
    /// delay profile per distinct runtime; nb_res from --nb-res, else MaxProcs, else the
    /// widest job.
    #[arg(long, value_name = "FORMAT", value_enum, verbatim_doc_comment)]
    pub to: ConvertTo,
    /// The output file (never one of the inputs)
    #[arg(long, value_name = "OUT", value_hint = ValueHint::FilePath)]
    pub out: PathBuf,
    /// Batsim JSON: the platform's size (nb_res)
    #[arg(long, value_name = "N")]
    pub nb_res: Option<u64>,
    /// Fail on the first malformed line instead of counting it
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// What `convert` writes (`--to`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ConvertTo {
    Swf,
    BatsimJson,
}

#[derive(Args, Debug)]
pub struct FitArgs {
    /// The trace (plain or gzip): SWF, GWF, Batsim JSON or sacct --parsable2
    #[arg(value_name = "TRACE", value_hint = ValueHint::FilePath)]
    pub trace: String,
    #[command(flatten)]
    pub format: FormatArgs,
    /// The machine's CPUs per node: size classes are multiples of it (SOB §3.1)
    #[arg(long, value_name = "C", value_parser = parse_positive_u32)]
    pub cpus_per_node: u32,
    /// The synthetic workload's seed [default: the app's, 1]
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// How each distribution is fitted: moments (SOB §3.1, the paper's: the first three
    /// moments matched exactly) or max_likelihood (EM over the same hyper-Erlang family:
    /// follows the bulk of the samples; see the goodness of fit) [default: moments]
    #[arg(long, value_name = "METHOD", value_parser = FitMethod::parse)]
    pub method: Option<FitMethod>,
    /// Write the synthetic workload drawn from the fit as SWF
    #[arg(long, value_name = "SYNTH.swf", value_hint = ValueHint::FilePath)]
    pub out: Option<PathBuf>,
    /// Print the fit as JSON
    #[arg(long)]
    pub json: bool,
    /// Fail on the first malformed line instead of counting it
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Run A's per-job CSV (`--jobs`), or several runs of A (one per seed) comma-separated
    #[arg(value_name = "A.csv")]
    pub a: String,
    /// Run B's per-job CSV, or as many runs as A (seed for seed) comma-separated
    #[arg(value_name = "B.csv")]
    pub b: String,
    /// Jobs listed among the top gainers and losers [default: 10]
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,
    /// Bootstrap resamples of the paired test [default: 10000]
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub resamples: u32,
    /// The bootstrap's seed (the test is deterministic for a given seed) [default: 1]
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Print the comparison as JSON
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Which paper: sob, sf, scjg, ses, kkor, or all
    #[arg(value_name = "PAPER", default_value = "all")]
    pub paper: String,
    /// Print the card as JSON (every claim: paper value, ours, verdict, tolerance)
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print the card as Markdown tables, one per paper (what docs/<paper>.md ends with)
    #[arg(long)]
    pub markdown: bool,
    /// Also run the sensitivity sweeps: each parameter a paper leaves open, at a few values,
    /// and how the claim it bears on moves (widest first)
    #[arg(long)]
    pub sensitivity: bool,
    /// Where the real-trace runs find their traces [default: ../shared/traces]
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub traces: Option<PathBuf>,
    /// Runs at once (default: every core); the card is the same whatever it is
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// The `slurm` policy's configuration on `simulate`.
#[derive(Args, Debug)]
pub struct SlurmPolicyArgs {
    /// The slurm policy's configuration from a slurm.conf: its Priority* lines,
    /// SchedulerParameters' bf_window, bf_max_job_test, bf_resolution, bf_max_job_user,
    /// bf_min_age_reserve and bf_interval, and PartitionName's PriorityJobFactor
    /// (docs/slurm.md); the keys it does not read are listed
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, conflicts_with = "slurm_preset", verbatim_doc_comment)]
    pub slurm_conf: Option<PathBuf>,
    /// The slurm policy's configuration by name: default (Slurm's documented defaults) or
    /// medium_cluster (slurm_sim_tools' tutorial: fair share 120000, age 70000, job size
    /// 200000, QOS 50000, partition 1000000; half-life 30 days; max age 7 days)
    #[arg(long, value_name = "NAME", verbatim_doc_comment)]
    pub slurm_preset: Option<String>,
    /// Fair-share shares from an association dump, as `sacctmgr show assoc
    /// format=Cluster,Account,User,Fairshare -P` prints it (ParentName optional): each
    /// user's normalised shares down the account tree (docs/slurm.md)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, verbatim_doc_comment)]
    pub slurm_assoc: Option<PathBuf>,
    /// The site's QOS, as `sacctmgr show qos
    /// format=Name,Priority,MaxJobsPU,MaxTRESPU,GrpJobs,GrpTRES,MaxWall -P` prints them:
    /// each QOS's priority (the QOS factor) and its limits MaxJobsPU, MaxTRESPU and
    /// GrpTRES (cpu, mem, gres/gpu), GrpJobs and MaxWall. A job runs under the QOS its record names (sacct's QOS column, SWF's
    /// queue), else normal if defined (docs/slurm.md)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, verbatim_doc_comment)]
    pub slurm_qos: Option<PathBuf>,
}

/// `--policy` of `simulate`: one or more local policies.
#[derive(Clone, Debug)]
pub struct LocalPolicies(pub Vec<LocalPolicyKind>);

fn parse_local_policies(s: &str) -> Result<LocalPolicies, String> {
    if s == "all" {
        return Ok(LocalPolicies(LocalPolicyKind::ALL.to_vec()));
    }
    s.split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map(LocalPolicies)
}

/// `--requeue-at`: where a requeued job goes in its queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RequeueAtArg {
    Back,
    Front,
    Grid,
}

impl From<RequeueAtArg> for gridscope::failure::RequeueAt {
    fn from(a: RequeueAtArg) -> Self {
        match a {
            RequeueAtArg::Back => gridscope::failure::RequeueAt::Back,
            RequeueAtArg::Front => gridscope::failure::RequeueAt::Front,
            RequeueAtArg::Grid => gridscope::failure::RequeueAt::Grid,
        }
    }
}

/// `--on-failure`: what becomes of a job a failure kills.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OnFailureArg {
    Requeue,
    Lost,
}

impl From<OnFailureArg> for gridscope::failure::OnFailure {
    fn from(a: OnFailureArg) -> Self {
        match a {
            OnFailureArg::Requeue => gridscope::failure::OnFailure::Requeue,
            OnFailureArg::Lost => gridscope::failure::OnFailure::Lost,
        }
    }
}
