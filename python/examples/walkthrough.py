"""Gridscope in Python, notebook style: run it cell by cell (each `# %%` is a cell) or as a
script. docs/python.md explains each step. The tests run this file (python/tests/
test_walkthrough.py) against the shared traces.

    GRIDSCOPE_TRACES=../shared/traces python python/examples/walkthrough.py
"""

# %% A trace, and what its import decided
import os
import pathlib
import sys
import tempfile

import gridscope

TRACES = pathlib.Path(os.environ.get("GRIDSCOPE_TRACES", "../shared/traces"))
kth = gridscope.read_swf(TRACES / "KTH-SP2-1996-2.1-cln.swf.gz")
print(kth, "-", kth.report["records"], "records,", kth.report["skipped_total"], "skipped")

# %% Every built-in policy in one call (on all cores, the GIL released)
res = gridscope.simulate(kth, policies=["fcfs", "easy", "conservative", "sjf", "firstfit"])
for run in res:
    m = run.metrics  # the names of `gridscope simulate --json`
    print(f"{run.label:14} wait {m['avg_wait_s']:9.1f} s   bsld {m['avg_bounded_slowdown']:7.2f}   "
          f"util {m['utilization']:.3f}")

# %% Per-job tables: pandas and polars, made from Arrow buffers
jobs = res["easy"].jobs  # pandas
print(jobs[["job_id", "submit", "start", "end", "wait", "procs", "status"]].head())
waits = res.jobs_polars  # every run stacked, with a `run` column
import polars as pl

print(waits.group_by("run").agg(pl.col("wait").quantile(0.95).alias("p95 wait s")).sort("run"))

# %% A scheduler written in Python: EASY in ~40 lines, job for job the built-in's
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from easy import Easy  # noqa: E402


class SmallFirstBackfill(Easy):
    """EASY whose backfill looks at narrow jobs first: a variation in three lines."""

    name = "easy-narrow-first"

    def schedule(self, view):
        return super().schedule(_Sorted(view))


class _Sorted:
    """The view with the queue behind the head sorted by width (the head keeps its place)."""

    def __init__(self, view):
        self.now_ms, self.free, self.running = view.now_ms, view.free, view.running
        q = list(view.queue)
        self.queue = q[:1] + sorted(q[1:], key=lambda j: (j.units, j.idx))


mixed = gridscope.simulate(kth, policies=["easy", Easy(), SmallFirstBackfill()])
for run in mixed:
    print(f"{run.label:18} {run.algorithm:26} bsld {run.metrics['avg_bounded_slowdown']:.2f}")
assert mixed["py-easy"].metrics == mixed["easy"].metrics

# %% Batsim's jobs.csv, straight into evalys
from evalys.jobset import JobSet  # noqa: E402

out = pathlib.Path(tempfile.mkdtemp()) / "jobs.csv"
res["easy"].jobs_csv(out)
js = JobSet.from_csv(str(out))
print("evalys:", len(js.df), "jobs on", js.MaxProcs, "processors")

# %% Scenarios: a preset, its dict, a seed sweep, a share link from the page
print({k: v[:50] + "…" for k, v in list(gridscope.presets().items())[:3]})
demo = gridscope.preset("demo")
demo["algorithms"] = [{"local": "easy"}, {"local": "conservative"}]
for seed, r in zip([1, 2, 3], gridscope.run(demo, seeds=[1, 2, 3])):
    print("seed", seed, {k: round(v["avg_wait_s"], 1) for k, v in r.metrics.items()})

# %% A Gymnasium environment for learned schedulers
import gymnasium  # noqa: E402

import gridscope.gym  # noqa: E402,F401  (registers gridscope/Scheduling-v0)

env = gymnasium.make("gridscope/Scheduling-v0", workload=kth, window=256)
obs, info = env.reset(seed=0)
done, total = False, 0.0
while not done:
    mask = info["action_mask"]
    action = 0 if mask[0] else env.unwrapped.queue_slots  # FCFS: the head or wait
    obs, reward, done, _, info = env.step(action)
    total += reward
print("FCFS agent: episode reward", round(total, 3), "= - mean bounded slowdown")
