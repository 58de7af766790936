"""Ctrl-C cancels a run: the engine looks at Python's signals between slices of a few
thousand events (GIL released meanwhile) and the run stops with KeyboardInterrupt."""

import signal
import subprocess
import sys
import time

# Four million Lublin–Feitelson jobs under FCFS, EASY and SJF: about 3 s a policy here, in
# events of even cost, so a slice of 16,384 events is a few milliseconds.
SCRIPT = """
import signal, sys, time, gridscope
# What a terminal gives Python; a shell's background job (`cmd &`) starts with SIGINT
# ignored, and Python then installs no handler of its own.
signal.signal(signal.SIGINT, signal.default_int_handler)
w = gridscope.lublin(4_000_000, seed=1, nodes=128)
print('ready', flush=True)
t = time.perf_counter()
try:
    gridscope.simulate(w, policies=['fcfs', 'easy', 'sjf'])
except KeyboardInterrupt:
    print('interrupted after', round(time.perf_counter() - t, 2), flush=True)
    sys.exit(3)
print('finished', flush=True)
"""


def test_ctrl_c_cancels_a_long_run():
    p = subprocess.Popen([sys.executable, "-c", SCRIPT], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(0.5)
    t = time.perf_counter()
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=30)
    assert p.returncode == 3, out
    assert "interrupted" in out
    assert time.perf_counter() - t < 5
