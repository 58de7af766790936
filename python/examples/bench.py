"""Timings of the Python package (issue #27), printed as a table; medians of several runs.

    GRIDSCOPE_TRACES=../shared/traces target/pyenv/bin/python python/examples/bench.py
"""

import os
import pathlib
import statistics
import subprocess
import sys
import time

import gridscope
import gridscope.gym

ROOT = pathlib.Path(__file__).resolve().parents[2]
TRACES = pathlib.Path(os.environ.get("GRIDSCOPE_TRACES", ROOT.parent / "shared" / "traces"))
CLI = os.environ.get("GRIDSCOPE_CLI", str(ROOT / "target" / "release" / "gridscope"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from easy import Easy  # noqa: E402


def median_time(f, n):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


blue = str(TRACES / "SDSC-BLUE-2000-4.2-cln.swf.gz")
kth = gridscope.read_swf(TRACES / "KTH-SP2-1996-2.1-cln.swf.gz")

cli = median_time(lambda: subprocess.run([CLI, "simulate", blue, "--policy", "easy", "--json"],
                                         check=True, capture_output=True), 11)
py = median_time(lambda: gridscope.simulate(blue, policies=["easy"]).to_json(), 11)
w = gridscope.read_swf(blue)
sim_only = median_time(lambda: gridscope.simulate(w, policies=["easy"]), 11)
print(f"SDSC-BLUE EASY, CLI process (parse + simulate + JSON): {cli * 1000:.0f} ms")
print(f"SDSC-BLUE EASY, Python read_swf + simulate + to_json:  {py * 1000:.0f} ms ({(py / cli - 1) * 100:+.0f} %)")
print(f"SDSC-BLUE EASY, Python simulate of a read workload:    {sim_only * 1000:.0f} ms")

run = gridscope.simulate(w, policies=["easy"])["easy"]
n = len(w)
arrow = median_time(run.jobs_arrow, 21)
pandas_t = median_time(lambda: run.jobs, 21)
polars_t = median_time(lambda: run.jobs_polars, 21)
print(f"{n} jobs: Arrow table {arrow * 1000:.1f} ms, pandas {pandas_t * 1000:.1f} ms, polars {polars_t * 1000:.1f} ms")

builtin = median_time(lambda: gridscope.simulate(kth, policies=["easy"]), 11)
python = median_time(lambda: gridscope.simulate(kth, policies=[Easy()]), 5)
print(f"KTH-SP2 EASY: built-in {builtin * 1000:.0f} ms, Python-written {python * 1000:.0f} ms ({python / builtin:.0f}x)")

env = gridscope.gym.SchedulingEnv(kth, window=1000)
steps, t = 0, time.perf_counter()
for seed in range(5):
    obs, info = env.reset(seed=seed)
    done = False
    while not done:
        a = 0 if info["action_mask"][0] else env.queue_slots
        obs, r, done, _, info = env.step(a)
        steps += 1
dt = time.perf_counter() - t
print(f"gym: {steps} steps in {dt:.2f} s = {steps / dt:,.0f} steps/s on one core (FCFS agent)")
