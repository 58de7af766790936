"""The CLI's `--jobs-format batsim` file is read by the real evalys (from PyPI), unchanged
(issue #29): a CLI-written jobs.csv, for a real trace and for a trace of each imported
format (GWF, Batsim JSON, sacct)."""

import pandas as pd
import pytest
from evalys.jobset import JobSet

from conftest import KTH, ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "formats"


def simulate_to_csv(cli, trace, tmp_path, policy="easy"):
    out = tmp_path / "jobs.csv"
    cli("simulate", trace, "--policy", policy, "--jobs", out, "--jobs-format", "batsim")
    return out


def test_evalys_reads_the_cli_export_of_a_real_trace(cli, tmp_path):
    path = simulate_to_csv(cli, KTH, tmp_path)
    js = JobSet.from_csv(str(path))
    df = pd.read_csv(path)
    assert len(js.df) == len(df) > 28000
    assert js.MaxProcs <= 100  # KTH-SP2: 100 processors, numbered 0-99
    assert (js.df["waiting_time"] == js.df["starting_time"] - js.df["submission_time"]).all()
    assert js.utilisation is not None


@pytest.mark.parametrize("name,jobs", [("small.gwf", 6), ("small_batsim.json", 5), ("small.sacct", 4)])
def test_evalys_reads_runs_of_every_imported_format(cli, tmp_path, name, jobs):
    path = simulate_to_csv(cli, FIXTURES / name, tmp_path, policy="fcfs")
    js = JobSet.from_csv(str(path))
    assert len(js.df) == jobs
    raw = pd.read_csv(path)
    for col in JobSet.columns:
        assert col in raw.columns, col
    assert js.utilisation is not None
