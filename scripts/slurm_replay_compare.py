#!/usr/bin/env python3
"""Sets the `slurm` policy's starts against a real slurmctld's (scripts/slurm_replay.sh).

usage: slurm_replay_compare.py LOG.sacct SIM.csv [--late S] [--early S] [--tolerance S]

LOG.sacct is the real run's `sacct -X -P` output, SIM.csv the per-job CSV of
`gridscope simulate LOG.sacct --policy slurm ... --jobs SIM.csv` (its times count from the
log's first submit, in whole seconds, as the sacct reader reads them). Prints each job's
real and simulated start, the difference and the start order in both; exits 1 when Slurm
starts a job more than --late seconds after the simulation (default 6) or more than --early
seconds before it (default 2), or when two jobs start in the opposite order with more than
--tolerance seconds (default 3) between them in both runs.

Why the bounds are not symmetric: Slurm starts a job up to ~1 s after the instant that lets
it start (its scheduler loops each second, bf_interval=1), and a job that waited for one
that waited for another inherits their delays, so Slurm runs later and later along a chain
of jobs (the replay's deepest chains end 3-4 s late); it cannot start a job before its
resources are free, so it is never early by more than the whole-second rounding of
sacct's timestamps.
"""
import argparse
import csv
import sys
from datetime import datetime


def read_log(path):
    rows = {}
    with open(path) as f:
        head = f.readline().strip().split("|")
        for line in f:
            r = dict(zip(head, line.rstrip("\n").split("|")))
            if r.get("JobID", "").isdigit():
                rows[int(r["JobID"])] = r
    t = lambda s: int(datetime.fromisoformat(s).timestamp())
    t0 = min(t(r["Submit"]) for r in rows.values())
    return {
        j: dict(name=r["JobName"], user=r["User"], part=r["Partition"], cpus=int(r["NCPUS"]),
                submit=t(r["Submit"]) - t0, start=t(r["Start"]) - t0)
        for j, r in rows.items()
    }


def read_sim(path):
    with open(path) as f:
        return {int(r["job_id"]): dict(submit=round(float(r["submit"])), start=round(float(r["start"])))
                for r in csv.DictReader(f)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("sim")
    ap.add_argument("--late", type=float, default=6.0)
    ap.add_argument("--early", type=float, default=2.0)
    ap.add_argument("--tolerance", type=float, default=3.0)
    a = ap.parse_args()
    real, sim = read_log(a.log), read_sim(a.sim)
    missing = sorted(set(real) - set(sim))
    if missing:
        print(f"jobs of the log missing from the simulation: {missing}")
        return 1
    order_real = sorted(real, key=lambda j: (real[j]["start"], j))
    order_sim = sorted(real, key=lambda j: (sim[j]["start"], j))
    rank_sim = {j: i for i, j in enumerate(order_sim)}
    print(f"{'job':>4} {'name':6} {'user':6} {'part':5} {'cpus':>4} {'submit':>6} "
          f"{'slurm':>6} {'sim':>6} {'diff':>5}  rank slurm/sim")
    diffs = []
    outside = 0
    for i, j in enumerate(order_real):
        r, s = real[j], sim[j]
        if s["submit"] != r["submit"]:
            print(f"job {j}: submitted at {s['submit']} in the simulation, {r['submit']} in the log")
            return 1
        d = s["start"] - r["start"]
        diffs.append(abs(d))
        out = d < -a.late or d > a.early
        outside += out
        flag = "  <-- outside the bounds" if out else ""
        print(f"{j:4d} {r['name']:6} {r['user']:6} {r['part']:5} {r['cpus']:4d} {r['submit']:6d} "
              f"{r['start']:6d} {s['start']:6d} {d:+5d}  {i + 1:2d}/{rank_sim[j] + 1:<2d}{flag}")
    inversions = [
        (x, y) for x in real for y in real
        if real[x]["start"] + a.tolerance < real[y]["start"]
        and sim[x]["start"] > sim[y]["start"] + a.tolerance
    ]
    print(f"\n{len(real)} jobs: |start difference| max {max(diffs)} s, mean {sum(diffs) / len(diffs):.2f} s; "
          f"{sum(d == 0 for d in diffs)} equal, {sum(d <= 1 for d in diffs)} within 1 s; "
          f"{outside} outside [{a.late:g} s late, {a.early:g} s early]; "
          f"start order identical: {order_real == order_sim}; "
          f"pairs in opposite order by more than {a.tolerance:g} s: {len(inversions)}")
    for x, y in inversions[:10]:
        print(f"  {real[x]['name']} before {real[y]['name']} in Slurm "
              f"({real[x]['start']} < {real[y]['start']}), after it in the simulation "
              f"({sim[x]['start']} > {sim[y]['start']})")
    return 1 if outside or inversions else 0


if __name__ == "__main__":
    sys.exit(main())
