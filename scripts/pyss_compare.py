#!/usr/bin/env python3
"""Compares Gridscope's EASY or conservative backfilling with pyss's, job for job, under each
`--event-order`.

pyss (https://github.com/dinesh121991/pyss, the Tsafrir-Feitelson group's simulator) is
Python 2. With a `python2.7` on the PATH it runs unmodified under `python2.7 -O` (the
asserts off, as its authors ran it); otherwise this script copies its `src/` to a temporary
folder and ports it mechanically to Python 3 (lib2to3, leading tabs expanded to 8 columns,
`JobEvent.__cmp__` as `__lt__`, `sys.maxint` as `sys.maxsize`): nothing of its scheduling
is changed either way. The trace is first cleaned so both simulators read the same jobs
(pyss raises a short estimate to the run time and cuts the run time to the estimate;
Gridscope kills at the estimate): run time > 0, estimate >= run time, allocated =
requested processors <= the machine, submit >= 0.

    python3 scripts/pyss_compare.py PYSS_CHECKOUT TRACE.swf.gz PROCS [GRIDSCOPE_BINARY]
            [--policy easy|conservative|conservative-rebuild]

prints, per event order, the share of jobs whose start time equals pyss's and the first
job that differs. `--policy conservative-rebuild` compares Gridscope's rebuild with pyss's
conservative (compression), the difference issue #24 measured. docs/local-policies.md has
the numbers.
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


# Runs inside pyss's interpreter (Python 2.7 or the Python 3 port): argv = pyss src, the
# cleaned SWF, processors, policy; prints "id start" per job, start from the first submit.
DRIVER = r"""
import sys
sys.path.insert(0, sys.argv[1])
sys.setrecursionlimit(10000)
from base.prototype import Job
from schedulers.simulator import Simulator
from schedulers.easy_scheduler import EasyBackfillScheduler
from schedulers.conservative_scheduler import ConservativeScheduler
swf, total, policy = sys.argv[2], int(sys.argv[3]), sys.argv[4]
jobs = []
for line in open(swf):
    if line.startswith(';'):
        continue
    x = line.split()
    jobs.append(Job(id=int(x[0]), user_estimated_run_time=int(x[8]),
                    actual_run_time=int(x[3]), num_required_processors=int(x[4]),
                    submit_time=int(x[1])))
first = min(j.submit_time for j in jobs)
scheduler = {'easy': EasyBackfillScheduler, 'conservative': ConservativeScheduler}[policy]
Simulator(jobs, total, scheduler(total)).run()
out = sys.stdout
for j in jobs:
    out.write('%d %d\n' % (j.id, j.start_to_run_at_time - first))
"""


def find_python2():
    """A command that runs Python 2.7 (a pyenv shim needs its version named), or None."""
    tries = [['python2.7']]
    try:
        bare = subprocess.run(['pyenv', 'versions', '--bare'], capture_output=True, text=True)
        tries += [['env', f'PYENV_VERSION={v}', 'python2.7']
                  for v in bare.stdout.split() if v.startswith('2.7')]
    except OSError:
        pass
    for cmd in tries:
        try:
            if subprocess.run(cmd + ['-c', 'import sys; assert sys.version_info[0] == 2'],
                              capture_output=True).returncode == 0:
                return cmd
        except OSError:
            pass
    return None


def pyss_starts(checkout, tmp, swf, total, policy):
    driver = os.path.join(tmp, 'driver.py')
    with open(driver, 'w') as f:
        f.write(DRIVER)
    python2 = find_python2()
    if python2:
        src, cmd = os.path.join(checkout, 'src'), python2 + ['-O']
    else:
        src = os.path.join(tmp, 'src')
        port(os.path.join(checkout, 'src'), src)
        cmd = [sys.executable]
    out = subprocess.run(cmd + [driver, src, swf, str(total), policy], check=True,
                         capture_output=True, text=True).stdout
    return {k: float(v) for k, v in (line.split() for line in out.splitlines())}


def main():
    args = sys.argv[1:]
    policy = 'easy'
    if '--policy' in args:
        i = args.index('--policy')
        policy = args[i + 1]
        del args[i:i + 2]
    if len(args) < 3 or policy not in ('easy', 'conservative', 'conservative-rebuild'):
        sys.exit(__doc__)
    checkout, trace, total = args[0], args[1], int(args[2])
    binary = args[3] if len(args) > 3 else os.path.join(
        os.path.dirname(__file__), '..', 'target', 'release', 'gridscope')
    tmp = tempfile.mkdtemp(prefix='gridscope-pyss-')
    try:
        swf = os.path.join(tmp, 'clean.swf')
        clean(trace, swf, total)
        ref = pyss_starts(checkout, tmp, swf, total, policy.replace('-rebuild', ''))
        for order in ['gridscope', 'pyss', 'cqsim']:
            out = os.path.join(tmp, f'{order}.csv')
            subprocess.run([binary, 'simulate', swf, '--policy', policy, '--event-order', order,
                            '--jobs', out], check=True, capture_output=True)
            with open(out) as f:
                got = {r['job_id']: float(r['start']) for r in csv.DictReader(f)}
            differ = [k for k, v in ref.items() if k not in got or abs(got[k] - v) > 1e-6]
            same = len(ref) - len(differ)
            print(f'{os.path.basename(trace)} {policy} --event-order {order}: {same}/{len(ref)} '
                  f'jobs start as in pyss ({100 * same / len(ref):.2f} %)'
                  + (f'; first differing job {differ[0]}' if differ else ''))
    finally:
        shutil.rmtree(tmp)


if __name__ == '__main__':
    main()
