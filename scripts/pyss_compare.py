#!/usr/bin/env python3
"""Compares Gridscope's EASY with pyss's, job for job, under each `--event-order`.

pyss (https://github.com/dinesh121991/pyss, the Tsafrir-Feitelson group's simulator) is
Python 2; this script copies its `src/` to a temporary folder and ports it mechanically to
Python 3 (lib2to3, leading tabs expanded to 8 columns, `JobEvent.__cmp__` as `__lt__`,
`sys.maxint` as `sys.maxsize`): nothing of its scheduling is changed. The trace is first
cleaned so both simulators read the same jobs (pyss raises a short estimate to the run time
and cuts the run time to the estimate; Gridscope kills at the estimate): run time > 0,
estimate >= run time, allocated = requested processors <= the machine, submit >= 0.

    python3 scripts/pyss_compare.py PYSS_CHECKOUT TRACE.swf.gz PROCS [GRIDSCOPE_BINARY]

prints, per event order, the share of jobs whose start time equals pyss's and the first
job that differs. docs/local-policies.md has the numbers for KTH-SP2, SDSC-SP2 and CTC-SP2.
"""
import csv
import glob
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile


def port(pyss_src, dst):
    shutil.copytree(pyss_src, dst)
    subprocess.run([sys.executable, '-W', 'ignore', '-m', 'lib2to3', '-w', '-n', '.'],
                   cwd=dst, check=True, capture_output=True)
    for p in glob.glob(os.path.join(dst, '**', '*.py'), recursive=True):
        lines = []
        with open(p, encoding='latin-1') as f:
            for line in f:
                m = re.match(r'[ \t]*', line)
                lines.append(m.group(0).expandtabs(8) + line[m.end():])
        text = ''.join(lines).replace('sys.maxint', 'sys.maxsize')
        text = text.replace(
            '    def __cmp__(self, other):\n        return cmp(self._cmp_tuple, other._cmp_tuple)',
            '    def __lt__(self, other):\n        return self._cmp_tuple < other._cmp_tuple\n'
            '    def __hash__(self):\n        return id(self)')
        with open(p, 'w', encoding='latin-1') as f:
            f.write(text)


def clean(trace, dst, total):
    jobs = []
    opener = gzip.open if trace.endswith('.gz') else open
    with opener(trace, 'rt') as f:
        for line in f:
            if line.startswith(';') or not line.strip():
                continue
            x = line.split()
            sub, run, alloc = int(x[1]), int(float(x[3])), int(x[4])
            req_p, req_t = int(x[7]), int(float(x[8]))
            p = max(alloc, req_p)
            if run <= 0 or p <= 0 or p > total or sub < 0:
                continue
            jobs.append((sub, len(jobs), x[0], run, p, max(req_t, run)))
    jobs.sort()
    with open(dst, 'w') as out:
        out.write(f'; MaxProcs: {total}\n')
        for sub, _, jid, run, p, est in jobs:
            out.write(f'{jid} {sub} -1 {run} {p} -1 -1 {p} {est} -1 1 -1 -1 -1 -1 -1 -1 -1\n')


def pyss_starts(src, swf, total):
    sys.path.insert(0, src)
    sys.setrecursionlimit(10000)
    from base.prototype import Job
    from schedulers.simulator import Simulator
    from schedulers.easy_scheduler import EasyBackfillScheduler
    jobs = []
    with open(swf) as f:
        for line in f:
            if line.startswith(';'):
                continue
            x = line.split()
            jobs.append(Job(id=int(x[0]), user_estimated_run_time=int(x[8]),
                            actual_run_time=int(x[3]), num_required_processors=int(x[4]),
                            submit_time=int(x[1])))
    first = min(j.submit_time for j in jobs)
    Simulator(jobs, total, EasyBackfillScheduler(total)).run()
    return {str(j.id): j.start_to_run_at_time - first for j in jobs}


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    checkout, trace, total = sys.argv[1], sys.argv[2], int(sys.argv[3])
    binary = sys.argv[4] if len(sys.argv) > 4 else os.path.join(
        os.path.dirname(__file__), '..', 'target', 'release', 'gridscope')
    tmp = tempfile.mkdtemp(prefix='gridscope-pyss-')
    try:
        src = os.path.join(tmp, 'src')
        port(os.path.join(checkout, 'src'), src)
        swf = os.path.join(tmp, 'clean.swf')
        clean(trace, swf, total)
        ref = pyss_starts(src, swf, total)
        for order in ['gridscope', 'pyss', 'cqsim']:
            out = os.path.join(tmp, f'{order}.csv')
            subprocess.run([binary, 'simulate', swf, '--policy', 'easy', '--event-order', order,
                            '--jobs', out], check=True, capture_output=True)
            with open(out) as f:
                got = {r['job_id']: float(r['start']) for r in csv.DictReader(f)}
            differ = [k for k, v in ref.items() if k not in got or abs(got[k] - v) > 1e-6]
            same = len(ref) - len(differ)
            print(f'{os.path.basename(trace)} --event-order {order}: {same}/{len(ref)} jobs '
                  f'start as in pyss ({100 * same / len(ref):.2f} %)'
                  + (f'; first differing job {differ[0]}' if differ else ''))
    finally:
        shutil.rmtree(tmp)


if __name__ == '__main__':
    main()
