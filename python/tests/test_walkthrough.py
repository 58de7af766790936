"""The walkthrough of docs/python.md runs as it is."""

import os
import pathlib
import subprocess
import sys

from conftest import TRACES

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "walkthrough.py"


def test_walkthrough_runs():
    env = dict(os.environ, GRIDSCOPE_TRACES=str(TRACES))
    out = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert "evalys:" in out.stdout and "FCFS agent" in out.stdout
