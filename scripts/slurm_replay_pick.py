#!/usr/bin/env python3
"""Draws the real-Slurm replay's submit gaps and sleeps (tests/slurm/replay_workload.txt).

usage: slurm_replay_pick.py [--draws N] [--seed S] [--before S] [--after S] [--min-fair-share N]
       slurm_replay_pick.py --check FILE
       (run from the repository; needs target/release/gridscope)

Keeps every job's CPUs, time limit, user, partition, name and submit order from the current
workload file and draws new gaps between submits (0-7 s) and sleeps (7-45 s; 10-20 s for
the 16-CPU jobs). Each draw is written as the sacct log Slurm would print for it and run
through `gridscope simulate --policy slurm` with the replay's priority settings. A draw is
kept only when no simulated start and no simulated end lies from --after seconds before to
--before seconds after a PriorityCalcPeriod tick (every 60 s from the first submit), but a
start at the tick itself (the tick made the job the head).

Why: Slurm's priorities change only at those ticks, and Slurm runs behind the simulation
along chains of jobs (a second or so per link, 4 s at the replay's deepest chains on a busy
machine). A start the simulation makes 3 s before a tick can happen after it in Slurm, with
the next tick's priorities, and then another job goes first (stop 59's CI: c6 and WIDE3).
The same holds for ends: Slurm charges only jobs still running at a tick. A draw must also
start its jobs in the same order when a random half of them run 1 s longer, four times
over (Slurm's lag along chains, which also moves ends across submits). `--check FILE`
runs 40 such lagged runs (30, 50 or 70 % of the jobs longer) of a workload file and counts
those out of bounds.

Of the kept draws where fair share changes at least --min-fair-share starts (starts that
differ with PriorityWeightFairshare=0), it prints the one with the fewest submits within 3 s
of an end (where Slurm may see the end and the submit in the other order), then the most
starts fair share changes, as a workload file body. It never writes the workload file itself.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

WORKLOAD = "tests/slurm/replay_workload.txt"
GRIDSCOPE = "target/release/gridscope"
TICK = 60

CONF = """PriorityType=priority/multifactor
PriorityFlags=NO_FAIR_TREE
PriorityDecayHalfLife=10
PriorityCalcPeriod=1
PriorityMaxAge=10
PriorityWeightAge=1000
PriorityWeightFairshare={fairshare}
PriorityWeightPartition={partition}
SchedulerType=sched/backfill
NodeName=n CPUs=16 RealMemory=16384
PartitionName=main Nodes=n Default=YES PriorityJobFactor=10
PartitionName=low Nodes=n PriorityJobFactor=1
"""
ASSOC = """Cluster|Account|User|Share
gsreplay|root||1
gsreplay|root|alice|2
gsreplay|root|bob|1
gsreplay|root|carol|1
gsreplay|root|root|1
"""


def read_jobs(path=WORKLOAD):
    jobs = []
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                off, cpus, sleep, limit, user, part, name = line.split()
                jobs.append(dict(cpus=int(cpus), limit=int(limit), user=user, part=part, name=name,
                                 off=int(off), sleep=int(sleep)))
    return jobs


def clock(s):
    return f"2026-01-01T{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}"


def hms(s):
    return f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}"


def sacct_log(jobs):
    rows = ["JobID|JobName|Submit|Start|End|Elapsed|Timelimit|NCPUS|NNodes|State|Partition|User|Account"]
    for i, j in enumerate(jobs, 1):
        # The policy reads submits, limits and elapsed times; starts are the log's own, unused.
        rows.append(f"{i}|{j['name']}|{clock(j['off'])}|{clock(j['off'])}|{clock(j['off'] + j['sleep'])}|"
                    f"{hms(j['sleep'])}|{hms(j['limit'] * 60)}|{j['cpus']}|1|COMPLETED|{j['part']}|"
                    f"{j['user']}|root")
    return "\n".join(rows) + "\n"


def simulate(dir_, jobs, fairshare=10000, partition=1000):
    log, conf, assoc, out = (os.path.join(dir_, n) for n in ("log.sacct", "slurm.conf", "assoc.txt", "sim.csv"))
    with open(log, "w") as f:
        f.write(sacct_log(jobs))
    with open(conf, "w") as f:
        f.write(CONF.format(fairshare=fairshare, partition=partition))
    with open(assoc, "w") as f:
        f.write(ASSOC)
    subprocess.run([GRIDSCOPE, "simulate", log, "--policy", "slurm", "--slurm-conf", conf,
                    "--slurm-assoc", assoc, "--jobs", out], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        head = f.readline().strip().split(",")
        rows = [dict(zip(head, line.strip().split(","))) for line in f]
    return {int(r["job_id"]): (int(float(r["start"])), int(float(r["end"]))) for r in rows}


def near_tick(t, before, after, start=False):
    """A tick from `after` s before t to `before` s after it (Slurm acts late, rarely early).
    A start at a tick itself is the tick's doing (the job became the head there, and Slurm
    starts it there too), not a near miss."""
    return any(-after <= k * TICK - t <= before and not (start and k * TICK == t)
               for k in range(1, t // TICK + 3))


def keeps_its_order(dir_, jobs, sim, rng):
    """Slurm as the simulation with a random half of the jobs 1 s longer, four times over.
    The simulation reads sacct's whole-second elapsed times, so each job it runs is up to
    1 s shorter than Slurm's was and Slurm's starts fall behind along chains of jobs. True
    when no start moves earlier or more than 6 s later and no two jobs start in the other
    order more than 3 s apart in both (as scripts/slurm_replay_compare.py judges Slurm's
    run)."""
    lags = ([rng.randint(0, 1) for _ in jobs] for _ in range(4))
    return lagged_runs_out_of_bounds(dir_, jobs, sim, lags, stop_at=1) == 0


def lagged_runs_out_of_bounds(dir_, jobs, sim, lags, stop_at):
    """How many of the runs with the `lags` (per run, a 0 or 1 s lag per job) leave the
    bounds of keeps_its_order, counting up to `stop_at`."""
    bad = 0
    for lag in lags:
        late = simulate(dir_, [dict(j, sleep=j["sleep"] + x) for j, x in zip(jobs, lag)])
        if any(not 0 <= late[k][0] - sim[k][0] <= 6 for k in sim) or any(
            sim[b][0] - sim[a][0] > 3 and late[a][0] - late[b][0] > 3 for a in sim for b in sim
        ):
            bad += 1
            if bad == stop_at:
                break
    return bad


def check(path):
    """--check: the lagged runs of a workload file, 40 of them with 30, 50 or 70 % of the
    jobs 1 s longer, and how many leave the bounds."""
    jobs = read_jobs(path)
    rng = random.Random(42)
    with tempfile.TemporaryDirectory() as d:
        sim = simulate(d, jobs)
        near = sum(near_tick(s, 6, 2, start=True) or near_tick(e, 6, 2) for s, e in sim.values())
        shares = (rng.choice((0.3, 0.5, 0.7)) for _ in range(40))
        lags = ([int(rng.random() < p) for _ in jobs] for p in shares)
        bad = lagged_runs_out_of_bounds(d, jobs, sim, lags, stop_at=41)
    print(f"{path}: {near} jobs start or end within -2..+6 s of a tick; "
          f"{bad} of 40 lagged runs out of bounds")
    return 0


def draw(jobs, rng):
    out, t = [], 0
    for i, j in enumerate(jobs):
        t += 0 if i == 0 else rng.randint(0, 7)
        sleep = rng.randint(10, 20) if j["cpus"] == 16 else rng.randint(7, 45)
        out.append(dict(j, off=t, sleep=sleep))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--draws", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--before", type=int, default=6, help="s a tick may not follow a start or end by")
    ap.add_argument("--after", type=int, default=2, help="s a tick may not precede a start or end by")
    ap.add_argument("--min-fair-share", type=int, default=10)
    ap.add_argument("--check", metavar="FILE", help="only judge FILE's lagged runs")
    a = ap.parse_args()
    if a.check:
        return check(a.check)
    base = read_jobs()
    rng = random.Random(a.seed)
    best = None
    kept = 0
    with tempfile.TemporaryDirectory() as d:
        for _ in range(a.draws):
            jobs = draw(base, rng)
            sim = simulate(d, jobs)
            if any(near_tick(s, a.before, a.after, start=True) or near_tick(e, a.before, a.after)
                   for s, e in sim.values()):
                continue
            if not keeps_its_order(d, jobs, sim, rng):
                continue
            kept += 1
            no_fs = simulate(d, jobs, fairshare=0)
            no_part = simulate(d, jobs, partition=0)
            fs = sum(sim[k][0] != no_fs[k][0] for k in sim)
            part = sum(sim[k][0] != no_part[k][0] for k in sim)
            if fs < a.min_fair_share:
                continue
            ends = [e for _, e in sim.values()]
            close = sum(any(abs(j["off"] - e) <= 3 for e in ends) for j in jobs)
            key = (-close, fs)
            if best is None or key > best[0]:
                best = (key, jobs, fs, part, close, max(e for _, e in sim.values()))
    print(f"# {a.draws} draws, {kept} clear of ticks by -{a.after}..+{a.before} s and in the same order "
          "with half the jobs 1 s longer", file=sys.stderr)
    if best is None:
        print("no draw kept: more --draws or smaller margins", file=sys.stderr)
        return 1
    _, jobs, fs, part, close, span = best
    print(f"# fair share changes {fs} of {len(jobs)} starts, the partition factor {part}; "
          f"{close} submits within 3 s of an end; last end {span} s", file=sys.stderr)
    for j in jobs:
        print(f"{j['off']:<4} {j['cpus']:<4} {j['sleep']:<4} {j['limit']:<4} {j['user']:<6} {j['part']:<5} {j['name']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
