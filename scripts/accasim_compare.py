#!/usr/bin/env python3
"""Compares Gridscope's FCFS on nodes with AccaSim's FIFO + FirstFit (or BestFit), job for job
(issue #37).

AccaSim 1.1.3 (PyPI `accasim`, pure Python) is installed by this script into a venv under
target/accasim-venv and run unmodified; the only change is in this driver: Python >= 3.10
removed `collections.Mapping`, which AccaSim 1.1.3 imports, so the driver sets
`collections.Mapping = collections.abc.Mapping` before importing it.

The trace is first cleaned so both simulators read the same jobs (AccaSim takes field 8
before field 5 and Gridscope field 5 before 8; AccaSim keeps memory -1 as "none"): the first
N jobs with run time > 0, processors > 0, submit >= 0, written back with processors in
fields 5 and 8 and the memory per processor (field 10, else field 7) in field 10: 0 for a
job that states none (AccaSim 1.1.3 decides from the *first* job whether memory is a
resource at all, and -1 there would turn memory off for every job), -1 for every job with
--ignore-memory. Jobs no node can hold are left out and counted.

    python3 scripts/accasim_compare.py TRACE.swf[.gz] SYSTEM.json [GRIDSCOPE_BINARY]
            [--jobs N] [--ignore-memory] [--best-fit]

SYSTEM.json is an AccaSim system configuration (`{"groups": ..., "resources": ...}`); the
same file is Gridscope's `--platform`. With --best-fit, AccaSim runs its BestFit allocator
and Gridscope `--placement best-fit`; the share of equal starts is printed a second time
against BestFit with Gridscope's ties (docs/nodes.md, "Best fit"), set in this driver. Prints the share of jobs whose start time equals
AccaSim's, and the first job that differs; with ACCASIM_STARTS=FILE set, writes
"id accasim_start gridscope_start" per job there.
"""
import csv
import gzip
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, 'target', 'accasim-venv')


def venv_python():
    py = os.path.join(VENV, 'bin', 'python')
    if not os.path.exists(py):
        subprocess.run([sys.executable, '-m', 'venv', VENV], check=True)
        subprocess.run([py, '-m', 'pip', 'install', '-q', 'accasim==1.1.3'], check=True)
    return py


def clean(trace, dst, n, system, ignore_memory):
    """The first n runnable jobs that some node can hold; returns (kept, left out)."""
    groups, res = system['groups'], system['resources']
    nodes = [(groups[g].get('core', 0), groups[g].get('mem', 0)) for g in res for _ in range(res[g])]
    total = sum(c for c, _ in nodes)
    biggest = max((m for _, m in nodes), default=0)
    jobs, left_out = [], 0
    opener = gzip.open if trace.endswith('.gz') else open
    with opener(trace, 'rt') as f:
        for line in f:
            if len(jobs) >= n:
                break
            if line.startswith(';') or not line.strip():
                continue
            x = line.split()
            sub, run = int(float(x[1])), int(float(x[3]))
            alloc, req_p = int(x[4]), int(x[7])
            p = req_p if req_p > 0 else alloc
            used, req_m = int(float(x[6])), int(float(x[9]))
            # A job without memory is written with 0 KB, not -1: AccaSim decides from the
            # first job whether memory is a resource at all, and a 0 asks for none of it.
            mem = req_m if req_m > 0 else (used if used > 0 else 0)
            if ignore_memory:
                mem = -1
            if run <= 0 or p <= 0 or sub < 0:
                continue
            if p > total or (mem > 0 and biggest > 0 and mem > biggest):
                left_out += 1
                continue
            if mem > 0 and biggest > 0 and sum(min(c, m // mem) for c, m in nodes) < p:
                left_out += 1
                continue
            est = int(float(x[8]))
            jobs.append((sub, x[0], run, p, est if est > 0 else run, mem, x[11]))
    with open(dst, 'w') as out:
        out.write(f'; MaxProcs: {total}\n')
        for sub, jid, run, p, est, mem, user in jobs:
            out.write(f'{jid} {sub} -1 {run} {p} -1 -1 {p} {est} {mem} 1 {user} -1 -1 -1 -1 -1 -1\n')
    return jobs, left_out


# Runs in the venv: argv = cleaned SWF, system config, results folder. Prints "id start".
DRIVER = r"""
import collections, collections.abc, sys
collections.Mapping = collections.abc.Mapping
collections.MutableMapping = collections.abc.MutableMapping
collections.Sequence = collections.abc.Sequence
from accasim.base.simulator_class import Simulator
from accasim.base.scheduler_class import FirstInFirstOut
from accasim.base.allocator_class import FirstFit, BestFit
workload, system, results, allocator = sys.argv[1:5]


# BestFit with Gridscope's ties: AccaSim re-sorts its node list stably after each
# allocation of a dispatch call, so equal ranks keep the order earlier allocations left;
# this sorts from node order each time (what changes is the tie order only).
class BestFitInNodeOrder(BestFit):
    def _adjust_resources(self, nodes=None):
        BestFit._adjust_resources(self, None)



out = {
    "format": "{job_id};{queue_time};{start_time};{end_time}",
    "attributes": {
        "job_id": ("id", "str"),
        "queue_time": ("queued_time", "int"),
        "start_time": ("start_time", "int"),
        "end_time": ("end_time", "int"),
    },
}
sim = Simulator(workload, system, FirstInFirstOut({"ff": FirstFit, "bf": BestFit, "bf-node-order": BestFitInNodeOrder}[allocator]()), RESULTS_FOLDER_PATH=results,
                SCHEDULE_OUTPUT=out, statistics_output=False, show_statistics=False)
sim.start_simulation()
"""


def accasim_starts(py, swf, system_file, tmp, allocator):
    results = os.path.join(tmp, 'results-' + allocator)
    os.makedirs(results, exist_ok=True)
    driver = os.path.join(tmp, 'driver.py')
    with open(driver, 'w') as f:
        f.write(DRIVER)
    subprocess.run([py, driver, swf, system_file, results, allocator], check=True, cwd=tmp,
                   stdout=subprocess.DEVNULL)
    starts = {}
    for name in os.listdir(results):
        if name.startswith('sched-'):
            with open(os.path.join(results, name)) as f:
                for line in f:
                    parts = line.strip().split(';')
                    if len(parts) >= 3 and parts[0]:
                        starts[parts[0]] = int(parts[2])
    return starts


def gridscope_starts(binary, swf, system_file, tmp, first_submit, placement):
    out = os.path.join(tmp, 'gs.csv')
    subprocess.run([binary, 'simulate', swf, '--platform', system_file, '--policy', 'fcfs',
                    '--event-order', 'accasim', '--no-kill', '--placement', placement,
                    '--jobs', out],
                   check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return {r['job_id']: int(float(r['start'])) + first_submit for r in csv.DictReader(f)}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    n = 5000
    if '--jobs' in sys.argv:
        n = int(sys.argv[sys.argv.index('--jobs') + 1])
        args.remove(str(n))
    ignore = '--ignore-memory' in sys.argv
    best = '--best-fit' in sys.argv
    trace, system_file = args[0], os.path.abspath(args[1])
    binary = args[2] if len(args) > 2 else os.path.join(ROOT, 'target', 'release', 'gridscope')
    with open(system_file) as f:
        system = json.load(f)
    py = venv_python()
    with tempfile.TemporaryDirectory() as tmp:
        swf = os.path.join(tmp, 'clean.swf')
        jobs, left_out = clean(trace, swf, n, system, ignore)
        a = accasim_starts(py, swf, system_file, tmp, 'bf' if best else 'ff')
        g = gridscope_starts(binary, swf, system_file, tmp, min(j[0] for j in jobs),
                             'best-fit' if best else 'first-fit')
        tied = accasim_starts(py, swf, system_file, tmp, 'bf-node-order') if best else None
    same = [jid for jid in a if g.get(jid) == a[jid]]
    print(f'{os.path.basename(trace)}: {len(jobs)} jobs ({left_out} no node can hold left out), '
          f'memory {"ignored" if ignore else "honoured"}')
    print(f'  same start as AccaSim FIFO+{"BestFit" if best else "FirstFit"}: {len(same)}/{len(a)} '
          f'({100.0 * len(same) / max(len(a), 1):.2f} %)')
    if tied is not None:
        n = sum(1 for jid in tied if g.get(jid) == tied[jid])
        print(f'  same start as AccaSim FIFO+BestFit with ties in node order: {n}/{len(tied)} '
              f'({100.0 * n / max(len(tied), 1):.2f} %)')
    for sub, jid, *_ in jobs:
        if jid in a and g.get(jid) != a[jid]:
            print(f'  first difference: job {jid} submitted {sub}: AccaSim {a[jid]}, Gridscope {g.get(jid)}')
            break
    out = os.environ.get('ACCASIM_STARTS')
    if out:
        with open(out, 'w') as f:
            for jid in sorted(a, key=lambda k: (a[k], k)):
                f.write(f'{jid} {a[jid]} {g.get(jid)}\n')


if __name__ == '__main__':
    main()
