#!/usr/bin/env python3
"""Compares Gridscope's `slurm` local policy with FastSim (HPE's Python re-implementation of
Slurm's scheduler, github.com/HewlettPackard/FastSim), job for job.

From one workload (the first N jobs of an SWF trace, after skipping K) the script writes both
simulators' inputs into OUT/CONFIG/:

  jobs.sacct     one `sacct -P` file read by BOTH: FastSim's data_reader columns (the order of
                 scripts/slurm_dump.sh plus ReqCPUS, Group and ReqMem, which data_reader's
                 usecols demands but the dump script does not print) and Gridscope's
                 (JobID, Submit, Start, End, Elapsed, Timelimit, NCPUS, NNodes, State,
                 Partition, User, Account, QOS). One warm-up row (JobID 0, the whole machine,
                 Start = End = the first submit) makes FastSim's "initial phase" empty: FastSim
                 drops it (runtime 0 after its init-phase cut) and Gridscope skips it
                 ("runtime <= 0"). See docs/slurm.md, "Against FastSim".
  slurm.conf     read by both (NodeName/PartitionName, Priority*, SchedulerParameters, KillWait)
  assoc.txt      `sacctmgr show assoc -P` with Cluster|Account|User|Fairshare|ParentName|
                 Partition|MaxJobs|MaxSubmit: one account `acct` under root, every user in it,
                 one share each (FastSim gives every association one share anyway)
  qos.txt        `sacctmgr show qos -P`: only `normal`, priority 0, no limits
  events.txt     `sacctmgr show events -P`: header only (no node down)
  resv.txt       `sinfo --reservation`: header only
  fastsim.yaml   FastSim's config (paths, its time-step knobs; see below)

Each processor of the trace is one FastSim node (FastSim allocates whole nodes), so NCPUS =
NNodes = AllocNodes = ReqNodes = the job's processors, on a machine of PROCS one-CPU nodes.
Run times are cut to the estimate (Gridscope kills there; FastSim never kills) and zero run
times raised to 1 s. With `--grid G` (default 60) submits are floored and run times and
estimates are rounded up to multiples of G seconds, so that every event falls on FastSim's
scheduler cadence (sched_interval = backfill period = G); `--grid 0` keeps the trace's seconds.

FastSim runs unmodified (imported from FASTSIM_DIR/scheduler with PYTHONHASHSEED=0, which
makes its tie-breaking hash deterministic). Jobs with the same submit time and priority are
taken by FastSim in descending `hash((JobID, Submit))`; the script computes that order with
FastSim's interpreter and writes the sacct rows in it, so that Gridscope's tie rule (trace
order) takes them alike (`--no-match-ties`: file order by submit then SWF id instead).

Configurations (`--config`, comma separated or `all`; every one with PriorityMaxAge 1 day,
PriorityDecayHalfLife 1 day, PriorityCalcPeriod 5 min, bf_window 30 days, bf_resolution = the
grid or 1 s, KillWait 0):
  fifo              every weight 0, bf_max_job_test=1 (neither simulator can backfill)
  backfill          every weight 0, Slurm's backfill (bf_max_job_test=10000)
  agesize           backfill; PriorityWeightAge 1000, PriorityWeightJobSize 10000
  multifactor       backfill; age 1000, Fair Tree fair share 100000, job size 10000
  agesize-nobf, multifactor-nobf   the same priorities without backfill (bf_max_job_test=1)

FastSim's clock (fastsim.yaml, not slurm.conf): a main pass every `--fastsim-step` seconds
(default: the grid, else 60) and at every job end (sched_min_interval 0, no queue-depth cap),
and one unthrottled backfill cycle every step from the first submit on (bf_interval 0,
bf_yield_interval = step, bf_yield_sleep 0, approx_bf_try_per_sec 100000). Gridscope passes
at every arrival, end and PriorityCalcPeriod tick, backfill included (no bf_interval).

`--fastsim-patch` applies diagnostic what-ifs to FastSim IN MEMORY (its files are never
changed; results are labelled `-patch-...`): `int` integer priorities, `resort` a queue re-sort
after each fair-share calculation, `nofinish` usage charged only at ticks (a job ending exactly
at a tick still counts), `nodes` reservations on the nodes that become free latest. They show
which FastSim behaviour each difference comes from; they are not FastSim as released.
`--gridscope-nodes` runs Gridscope on PROCS one-core nodes (`--platform`, first fit) instead of
a pool of processors.

Usage:
    python3 scripts/fastsim_compare.py FASTSIM_DIR TRACE.swf[.gz] N
        [--skip K] [--procs P] [--config NAME,...|all] [--grid 60|0] [--fastsim-step S]
        [--fastsim-patch int,resort,nofinish,nodes] [--gridscope-nodes] [--no-match-ties]
        [--python FASTSIM_PYTHON] [--gridscope BINARY] [--out DIR] [--show K]

    defaults: --python target/fastsim/venv/bin/python, --gridscope target/release/gridscope,
    --out target/fastsim/runs (in the repository); scripts/fastsim_setup.sh makes FastSim
    (target/fastsim/FastSim, the FASTSIM_DIR to give) and the venv.

prints per configuration: jobs compared, identical starts, starts within 60 s, mean and max
|dstart|, both mean waits, consecutive pairs (in Gridscope's start order) that FastSim starts
in the opposite order, both run times (FastSim: Controller construction + run_sim, in its own
process; Gridscope: the whole `simulate` process), and the first jobs that differ. Per-job
rows go to OUT/TAG/CONFIG/compare.csv beside both simulators' inputs and outputs.
Exit status: 0 when both simulators ran on every configuration, 1 otherwise (2: bad usage).
"""
import argparse
import csv
import datetime as dt
import gzip
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
# Where scripts/fastsim_setup.sh puts FastSim and its venv, and the runs' files.
WORK = os.path.join(REPO, "target", "fastsim")
BASE = dt.datetime(2020, 1, 6, 0, 0, 0)  # a Monday at 00:00, UTC; only relative times matter

CONFIGS = {
    "fifo": dict(weights=dict(age=0, fs=0, size=0), bf_max_job_test=1),
    "backfill": dict(weights=dict(age=0, fs=0, size=0), bf_max_job_test=10000),
    "agesize": dict(weights=dict(age=1000, fs=0, size=10000), bf_max_job_test=10000),
    "multifactor": dict(weights=dict(age=1000, fs=100000, size=10000), bf_max_job_test=10000),
    # the same priorities with no backfill (bf_max_job_test=1): the main scheduler alone
    "agesize-nobf": dict(weights=dict(age=1000, fs=0, size=10000), bf_max_job_test=1),
    "multifactor-nobf": dict(weights=dict(age=1000, fs=100000, size=10000), bf_max_job_test=1),
}


def read_swf(path, skip, n, procs_cap):
    op = gzip.open if path.endswith(".gz") else open
    jobs, maxprocs = [], None
    with op(path, "rt", errors="replace") as f:
        for line in f:
            if line.startswith(";"):
                if "MaxProcs:" in line:
                    maxprocs = int(line.split(":")[1])
                continue
            p = line.split()
            if len(p) < 18:
                continue
            jid, sub, wait, run, alloc = int(p[0]), int(p[1]), int(p[2]), int(p[3]), int(p[4])
            req, est, user, part = int(p[7]), int(p[8]), int(p[11]), int(p[15])
            procs = alloc if alloc > 0 else req
            if procs <= 0 or sub < 0:
                continue
            jobs.append(dict(swf_id=jid, submit=sub, wait=wait, run=run, procs=procs,
                             est=est, user=user))
    procs = procs_cap or maxprocs
    if procs is None:
        raise SystemExit("no MaxProcs in the trace header: give --procs")
    jobs.sort(key=lambda j: (j["submit"], j["swf_id"]))
    jobs = [j for j in jobs if j["procs"] <= procs][skip:skip + n]
    return jobs, procs


def clean(jobs, grid):
    t0 = jobs[0]["submit"]
    for j in jobs:
        run = max(j["run"], 1)
        est = j["est"] if j["est"] > 0 else run
        run = min(run, est)
        sub = j["submit"] - t0
        if grid:
            sub = sub // grid * grid
            run = -(-run // grid) * grid
            est = -(-est // grid) * grid
        j.update(submit=sub, run=run, est=est)
    return jobs


def ts(sec):
    return (BASE + dt.timedelta(seconds=sec)).strftime("%Y-%m-%dT%H:%M:%S")


def tl(sec):
    d, r = divmod(int(sec), 86400)
    h, r = divmod(r, 3600)
    m, s = divmod(r, 60)
    return "%d-%02d:%02d:%02d" % (d, h, m, s)


def fastsim_tie_keys(python, jobs):
    """FastSim's Job.uniq_id = hash((JobID str, Submit Timestamp)) under PYTHONHASHSEED=0."""
    code = ("import sys,json,pandas as pd\n"
            "d=json.load(sys.stdin)\n"
            "print(json.dumps([hash((j, pd.Timestamp(s))) for j, s in d]))\n")
    data = json.dumps([[str(j["jobid"]), ts(j["submit"])] for j in jobs])
    env = dict(os.environ, PYTHONHASHSEED="0")
    out = subprocess.run([python, "-c", code], input=data, capture_output=True, text=True,
                         env=env, check=True).stdout
    return json.loads(out)


# JobID first: Gridscope takes the first line as a header only when it starts with JobID
SACCT_COLS = ["JobID", "User", "Account", "AllocNodes", "ConsumedEnergyRaw", "ExitCode", "Flags",
              "JobName", "Partition", "QOS", "Reason", "ReqNodes", "Start", "State", "End",
              "Elapsed", "Submit", "SubmitLine", "Timelimit",
              # data_reader.get_cleaned_job_df also demands these (slurm_dump.sh omits them)
              "ReqCPUS", "Group", "ReqMem",
              # Gridscope's processors and nodes
              "NCPUS", "NNodes"]


def sacct_row(jobid, user, procs, submit, start, end, est):
    return {"User": user, "Account": "acct", "AllocNodes": procs, "ConsumedEnergyRaw": "",
            "ExitCode": "0:0", "Flags": "SchedMain", "JobID": jobid, "JobName": "job%s" % jobid,
            "Partition": "main", "QOS": "normal", "Reason": "None", "ReqNodes": procs,
            "Start": ts(start), "State": "COMPLETED", "End": ts(end), "Elapsed": tl(end - start),
            "Submit": ts(submit), "SubmitLine": "sbatch job.sh", "Timelimit": tl(est),
            "ReqCPUS": procs, "Group": "grp", "ReqMem": "0", "NCPUS": procs, "NNodes": procs}


def write_inputs(d, jobs, procs, cfg, grid, tie_keys, step):
    os.makedirs(d, exist_ok=True)
    w = cfg["weights"]
    # --- jobs: one file for both
    order = list(range(len(jobs)))
    if tie_keys is not None:
        # FastSim pops the largest (priority, age, uniq_id) first
        order.sort(key=lambda i: (jobs[i]["submit"], -tie_keys[i]))
    with open(os.path.join(d, "jobs.sacct"), "w", newline="") as f:
        wr = csv.DictWriter(f, SACCT_COLS, delimiter="|", lineterminator="\n")
        wr.writeheader()
        # warm-up row: FastSim's init phase (Controller.__init__) ends with it and drops it
        wr.writerow(sacct_row(0, jobs[0]["user_name"], procs, 0, 0, 0, 60))
        for i in order:
            j = jobs[i]
            start = j["submit"] + max(j["wait"], 0) + 1  # the log's start ("truth"), unused
            wr.writerow(sacct_row(j["jobid"], j["user_name"], j["procs"], j["submit"], start,
                                  start + j["run"], j["est"]))
    users = sorted({j["user_name"] for j in jobs}, key=lambda u: int(u[1:]))
    with open(os.path.join(d, "assoc.txt"), "w") as f:
        f.write("Cluster|Account|User|Fairshare|ParentName|Partition|MaxJobs|MaxSubmit\n")
        f.write("sim|root||1||||\n")
        f.write("sim|acct||1|root|||\n")
        for u in users:
            f.write("sim|acct|%s|1||||\n" % u)
    with open(os.path.join(d, "qos.txt"), "w") as f:
        f.write("Name|Priority|GrpTRES|GrpJobs|GrpSubmit|MaxTRESPU|MaxJobsPU|MaxJobs|"
                "MaxSubmitPU|MaxSubmit|\nnormal|0|||||||||\n")
    with open(os.path.join(d, "events.txt"), "w") as f:
        f.write("Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User|\n")
    with open(os.path.join(d, "resv.txt"), "w") as f:
        f.write("RESV_NAME|STATE|START_TIME|END_TIME|DURATION|NODELIST|\n")
    bf_res = grid if grid else 1
    with open(os.path.join(d, "slurm.conf"), "w") as f:
        f.write(
            "# written by fastsim_compare.py; read by FastSim and by Gridscope\n"
            "ClusterName=sim\n"
            "NodeName=n[0001-%04d] CPUs=1 State=UNKNOWN\n" % procs +
            "PartitionName=main Nodes=n[0001-%04d] Default=YES MaxTime=INFINITE State=UP\n"
            % procs +
            "PriorityType=priority/multifactor\n"
            "PriorityWeightAge=%d\n" % w["age"] +
            "PriorityWeightFairshare=%d\n" % w["fs"] +
            "PriorityWeightJobSize=%d\n" % w["size"] +
            "PriorityWeightPartition=0\nPriorityWeightQOS=0\n"
            "PriorityMaxAge=1-0\nPriorityDecayHalfLife=1-0\nPriorityCalcPeriod=5\n"
            "KillWait=0\nOverTimeLimit=0\n"
            # first key must not start with a letter of "SchedulerParameters=": FastSim's
            # config.py strips the key with str.lstrip (a character set)
            "SchedulerParameters=bf_window=43200,bf_max_job_test=%d,bf_resolution=%d,"
            "bf_continue\n" % (cfg["bf_max_job_test"], bf_res))
    with open(os.path.join(d, "fastsim.yaml"), "w") as f:
        f.write(
            'assocs_dump: "%s"\n' % os.path.join(d, "assoc.txt") +
            'qos_dump: "%s"\n' % os.path.join(d, "qos.txt") +
            'node_events_dump: "%s"\n' % os.path.join(d, "events.txt") +
            'resv_dump: "%s"\n' % os.path.join(d, "resv.txt") +
            'job_dump: "%s"\n' % os.path.join(d, "jobs.sacct") +
            'slurm_conf: "%s"\n' % os.path.join(d, "slurm.conf") +
            'considered_partitions: ["main"]\n'
            'hpe_restrictlong_sliding_reservations: ""\n'
            "# FastSim's time-stepping (not in slurm.conf: Gridscope has no such cadence).\n"
            "# main scheduler: a full pass every sched_interval s, and a pass at every job end\n"
            "sched_interval: %d\n" % step +
            "sched_min_interval: 0\n"
            "default_queue_depth: 1000000\n"
            "# backfill: first cycle at sched start (bf_interval 0), one lock hold of\n"
            "# bf_yield_interval per cycle, so a cycle every bf_yield_interval + bf_yield_sleep\n"
            "bf_interval: 0\n"
            "bf_yield_interval: %d\n" % (step * 1000000) +
            "bf_yield_sleep: 0\n"
            "bf_max_time: %d\n" % step +
            "# tries per lock hold = bf_yield_interval[s] * approx_bf_try_per_sec: never throttled\n"
            "approx_bf_try_per_sec: 100000\n")


PATCH_CODE = r"""
import os
# Diagnostic what-ifs (--fastsim-patch), applied in memory; FastSim's files are not changed.
patches = [p for p in os.environ.get("FASTSIM_PATCHES", "").split(",") if p]
if "int" in patches:
    # Slurm's priority is an integer (uint32): truncate the weighted sum, as Gridscope does
    import priority_sorters
    def _sort(self, queue, time):
        self.time = time
        queue.sort(key=lambda job: (int(sum(f(job) for f in self.priority_factors)),
                                    self.time - job.submit, job.uniq_id))
    priority_sorters.MFPrioritySorter.sort = _sort
if "resort" in patches:
    # re-sort the queue after each fair-share calculation, before the scheduler runs
    import fairshare
    _calc = fairshare.FairTree.fairshare_calc
    state = {"c": None}
    def _fsc(self, running, time):
        _calc(self, running, time)
        c = state["c"]
        if c is not None:
            c.queue.priority_sorter.sort(c.queue.queue, time)
    fairshare.FairTree.fairshare_calc = _fsc
if "nofinish" in patches:
    # Slurm charges usage only at PriorityCalcPeriod ticks: nothing for the part of a job's run
    # after the last tick before its end (FastSim charges it at the end, as n*dt**(decay**dt))
    import fairshare
    # A job ending exactly at a tick is still charged at that tick (Gridscope charges every
    # job running up to the tick; FastSim ends jobs before its calculation at the same instant)
    def _finish(self, job, time):
        if time == self.last_calc_time + self.calc_period:
            dt = (time - max(self.last_calc_time, job.start)).total_seconds()
            decay = self.decay_constant ** dt if job.start > self.last_calc_time else (
                self.decay_constant ** self.calc_period.total_seconds())
            self._update_usages(self.assocs[job.assoc], job.nodes * dt * decay)
    fairshare.FairTree.job_finish_usage_update = _finish
if "nodes" in patches:
    # Reservation node choice: FastSim reserves the lowest-numbered nodes among all that are
    # free by the job's planned start, often nodes free now, which fragments the plan. Here a
    # reservation takes the nodes that become free latest (then the tightest), and a job that
    # starts now the free nodes whose free time ends first (best fit in time). The function's
    # source is rewritten in memory in these two sort keys only.
    import inspect, textwrap, controller as _ctl
    src = textwrap.dedent(inspect.getsource(_ctl.Controller._get_backfill_jobs))
    a = "selected_nodes.sort(key=lambda node: (node.weight, node.nid), reverse=True)"
    b = ("_iv = {n: iv for iv, ns in selected_intervals.items() for n in ns}; "
         "selected_nodes.sort(key=lambda node: (-_iv[node][0], _iv[node][1], node.weight, "
         "node.nid), reverse=True)")
    c = "node.running_job is not None, node.weight, node.nid"
    d = "node.running_job is not None, _iv[node][1], node.weight, node.nid"
    assert src.count(a) == 1 and src.count(c) == 1, "FastSim's backfill source changed"
    src = src.replace(a, b).replace(c, d).replace(
        "# Prioritise nodes that are available if job might be able to start now",
        "_iv = {n: iv for iv, ns in selected_intervals.items() for n in ns}")
    ns = {}
    exec(compile(src, "<fastsim backfill, patched>", "exec"), _ctl.__dict__, ns)
    _ctl.Controller._get_backfill_jobs = ns["_get_backfill_jobs"]
"""

RUNNER = r"""
import sys, os, time, csv, io, contextlib
fs_dir, yaml_path, out_csv, base = sys.argv[1:5]
sys.path.insert(0, os.path.join(fs_dir, "scheduler"))
from controller import Controller
import datetime
base = datetime.datetime.fromisoformat(base)
#PATCHES#
t = time.time()
log = io.StringIO()
with contextlib.redirect_stdout(log):
    c = Controller(yaml_path)
    if "resort" in patches:
        state["c"] = c
    t_init = time.time() - t
    c.run_sim()
el = time.time() - t
with open(out_csv, "w") as f:
    f.write("jid,submit,start,end,nodes,ignore_in_eval\n")
    for j in c.job_history:
        f.write("%s,%d,%d,%d,%d,%d\n" % (j.jid, (j.submit - base).total_seconds(),
                (j.start - base).total_seconds(), (j.end - base).total_seconds(), j.nodes,
                bool(j.ignore_in_eval)))
with open(out_csv + ".log", "w") as f:
    f.write("\n".join(l for l in log.getvalue().replace("\r", "\n").split("\n")
                       if l and not l.startswith("Step:")) + "\n")
print("%.3f %.3f %d" % (el, t_init, c.step_cnt))
""".replace("#PATCHES#", PATCH_CODE)


def run_fastsim(python, fs_dir, d, patches=""):
    out = os.path.join(d, "fastsim_jobs.csv")
    env = dict(os.environ, PYTHONHASHSEED="0", FASTSIM_PATCHES=patches)
    p = subprocess.run([python, "-c", RUNNER, os.path.abspath(fs_dir),
                        os.path.join(d, "fastsim.yaml"), out, BASE.isoformat()],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError("FastSim failed:\n" + p.stderr[-3000:])
    el, t_init, steps = p.stdout.split()[-3:]
    res = {}
    with open(out) as f:
        for r in csv.DictReader(f):
            res[int(r["jid"])] = (int(r["submit"]), int(r["start"]), int(r["end"]))
    return res, float(el), float(t_init), int(steps)


def run_gridscope(binary, d, procs, nodes):
    out = os.path.join(d, "gridscope_jobs.csv")
    cmd = [binary, "simulate", os.path.join(d, "jobs.sacct"), "--policy", "slurm",
           "--slurm-conf", os.path.join(d, "slurm.conf"),
           "--slurm-assoc", os.path.join(d, "assoc.txt"),
           "--slurm-qos", os.path.join(d, "qos.txt"), "--jobs", out, "--json"]
    if nodes:
        # PROCS one-core nodes: Gridscope's backfill then plans on particular nodes, as FastSim
        plat = os.path.join(d, "platform.json")
        with open(plat, "w") as f:
            json.dump({"name": "sim", "nodes": procs, "cpus_per_node": 1,
                       "node_types": [{"name": "n", "count": procs, "cores": 1}]}, f)
        cmd += ["--platform", plat, "--placement", "first-fit"]
    else:
        cmd += ["--procs", str(procs)]
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    el = time.time() - t
    with open(os.path.join(d, "gridscope.stderr"), "w") as f:
        f.write(" ".join(cmd) + "\n" + p.stderr)
    if p.returncode != 0:
        raise RuntimeError("Gridscope failed:\n" + p.stderr[-3000:])
    rows = list(csv.DictReader(open(out)))
    return rows, el, json.loads(p.stdout)


def compare(name, d, jobs, fs, gs_rows, t_fs, t_gs, steps, show):
    # Gridscope's --jobs keeps sacct's JobID (the leading number); it orders jobs by submit,
    # stable (file order among equals), and gives priority ties to that order
    by_id = {j["jobid"]: j for j in jobs}
    gs = {}
    for r in gs_rows:
        jid = int(r["job_id"])
        if jid not in by_id or int(float(r["submit"])) != by_id[jid]["submit"]:
            raise RuntimeError("Gridscope's job %s does not match the input (submit %s)"
                               % (r["job_id"], r["submit"]))
        gs[jid] = (int(float(r["submit"])), int(float(r["start"])), int(float(r["end"])))
    ids = [j["jobid"] for j in jobs if j["jobid"] in fs and j["jobid"] in gs]
    missing = len(jobs) - len(ids)
    if not ids:
        raise RuntimeError("no job ran in both simulators")
    d_abs = [abs(fs[i][1] - gs[i][1]) for i in ids]
    same = sum(1 for x in d_abs if x == 0)
    within = sum(1 for x in d_abs if x <= 60)
    wf = sum(fs[i][1] - fs[i][0] for i in ids) / len(ids)
    wg = sum(gs[i][1] - gs[i][0] for i in ids) / len(ids)
    # start order agreement: pairs of consecutive jobs (in Gridscope's start order)
    og = sorted(ids, key=lambda i: (gs[i][1], i))
    inv = sum(1 for a, b in zip(og, og[1:]) if fs[a][1] > fs[b][1])
    with open(os.path.join(d, "compare.csv"), "w") as f:
        f.write("jobid,submit,procs,run,est,fastsim_start,gridscope_start,delta\n")
        for i in ids:
            j = by_id[i]
            f.write("%d,%d,%d,%d,%d,%d,%d,%d\n" % (i, j["submit"], j["procs"], j["run"], j["est"],
                                                   fs[i][1], gs[i][1], fs[i][1] - gs[i][1]))
    first = [i for i in sorted(ids, key=lambda i: (min(fs[i][1], gs[i][1]), i))
             if fs[i][1] != gs[i][1]][:show]
    return dict(config=name, jobs=len(ids), missing=missing, same=same, within60=within,
                mean_abs=sum(d_abs) / len(ids), max_abs=max(d_abs), wait_fs=wf, wait_gs=wg,
                inversions=inv, t_fs=t_fs, t_gs=t_gs, steps=steps,
                first=[(i, by_id[i]["submit"], by_id[i]["procs"], by_id[i]["est"],
                        fs[i][1], gs[i][1]) for i in first])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("fastsim_dir")
    ap.add_argument("trace")
    ap.add_argument("n", type=int)
    ap.add_argument("--skip", type=int, default=0)
    ap.add_argument("--procs", type=int, default=0)
    ap.add_argument("--config", default="all")
    ap.add_argument("--grid", type=int, default=60)
    ap.add_argument("--python", default=os.path.join(WORK, "venv", "bin", "python"))
    ap.add_argument("--gridscope", default=os.path.join(REPO, "target", "release", "gridscope"))
    ap.add_argument("--out", default=os.path.join(WORK, "runs"))
    ap.add_argument("--no-match-ties", action="store_true")
    ap.add_argument("--fastsim-patch", default="",
                    help="diagnostic what-ifs applied to FastSim in memory: int (integer "
                         "priorities), resort (re-sort after each fair-share calculation), "
                         "nofinish (no usage charged at a job's end but at a tick), nodes "
                         "(reservations on the latest-free nodes); not FastSim as released")
    ap.add_argument("--fastsim-step", type=int, default=0,
                    help="FastSim's sched_interval and backfill period in s (default: the grid, "
                         "else 60)")
    ap.add_argument("--gridscope-nodes", action="store_true",
                    help="run Gridscope on PROCS one-core nodes (--platform) instead of a pool")
    ap.add_argument("--show", type=int, default=5, help="differing jobs listed per config")
    a = ap.parse_args()
    names = list(CONFIGS) if a.config == "all" else a.config.split(",")
    for n in names:
        if n not in CONFIGS:
            print("unknown config %s (known: %s)" % (n, ", ".join(CONFIGS)), file=sys.stderr)
            return 2
    for p in (a.python, a.gridscope, os.path.join(a.fastsim_dir, "scheduler", "controller.py")):
        if not os.path.exists(p):
            print("missing: %s (see fastsim_setup.sh)" % p, file=sys.stderr)
            return 1
    jobs, procs = read_swf(a.trace, a.skip, a.n, a.procs)
    jobs = clean(jobs, a.grid)
    for j in jobs:
        j["jobid"] = j["swf_id"]
        j["user_name"] = "u%d" % max(j["user"], 0)
    tie = None if a.no_match_ties else fastsim_tie_keys(a.python, jobs)
    tag = "%s-n%d-s%d-g%d%s%s%s" % (os.path.basename(a.trace).split(".")[0], a.n, a.skip, a.grid,
                                  ("-step%d" % a.fastsim_step if a.fastsim_step else "") +
                                  ("-patch-" + a.fastsim_patch.replace(",", "+")
                                   if a.fastsim_patch else ""),
                                  "-nomatch" if a.no_match_ties else "",
                                  "-nodes" if a.gridscope_nodes else "")
    results, ok = [], True
    for n in names:
        d = os.path.abspath(os.path.join(a.out, tag, n))
        write_inputs(d, jobs, procs, CONFIGS[n], a.grid, tie, a.fastsim_step or a.grid or 60)
        try:
            fs, t_fs, t_init, steps = run_fastsim(a.python, a.fastsim_dir, d, a.fastsim_patch)
            gs_rows, t_gs, _ = run_gridscope(a.gridscope, d, procs, a.gridscope_nodes)
            results.append(compare(n, d, jobs, fs, gs_rows, t_fs, t_gs, steps, a.show))
        except (RuntimeError, subprocess.CalledProcessError, OSError, ValueError) as e:
            print("%s: %s" % (n, e), file=sys.stderr)
            ok = False
            continue
        print("wrote %s" % d, file=sys.stderr)
    print("\n%s: %d jobs, %d processors = %d one-CPU FastSim nodes, grid %s s, ties %s, "
          "Gridscope on %s" % (
              tag, len(jobs), procs, procs, a.grid or "none",
              "unmatched" if a.no_match_ties else "matched to FastSim's hash order",
              "%d one-core nodes (first fit)" % procs if a.gridscope_nodes else
              "a pool of %d processors" % procs))
    hdr = ("config", "jobs", "same start", "<=60 s", "mean|d| s", "max|d| s",
           "wait FS s", "wait GS s", "order inv", "FastSim s", "Gridscope s")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    for r in results:
        print("| %s | %d | %.1f %% | %.1f %% | %.1f | %d | %.0f | %.0f | %d | %.2f | %.3f |" % (
            r["config"], r["jobs"], 100.0 * r["same"] / r["jobs"],
            100.0 * r["within60"] / r["jobs"], r["mean_abs"], r["max_abs"], r["wait_fs"],
            r["wait_gs"], r["inversions"], r["t_fs"], r["t_gs"]))
    for r in results:
        if r["missing"]:
            print("%s: %d jobs missing from one of the outputs" % (r["config"], r["missing"]))
        for (i, s, p, e, f, g) in r["first"]:
            print("  %s: job %d (submit %d, %d procs, est %d): FastSim %d, Gridscope %d (%+d)" % (
                r["config"], i, s, p, e, f, g, f - g))
    return 0 if ok and len(results) == len(names) else 1


if __name__ == "__main__":
    sys.exit(main())
