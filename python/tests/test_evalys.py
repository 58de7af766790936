"""The Batsim jobs.csv export is read by the real evalys (from PyPI)."""

import io

import pandas as pd
from evalys.jobset import JobSet

import gridscope


def test_evalys_reads_the_export(kth, tmp_path):
    run = gridscope.simulate(kth.window(0, 5000), policies=["easy"])["easy"]
    path = tmp_path / "jobs.csv"
    run.jobs_csv(path)
    js = JobSet.from_csv(str(path))
    assert len(js.df) == run.metrics["jobs_finished"]
    assert js.MaxProcs <= 100  # KTH-SP2 has 100 processors, numbered 0-99
    df = run.jobs
    ran = df[df["ran"]].reset_index(drop=True)
    assert (js.df["starting_time"].to_numpy() == ran["start"].to_numpy()).all()
    assert (js.df["waiting_time"].to_numpy() == ran["wait"].to_numpy()).all()
    # evalys's own analyses run on it.
    util = js.utilisation
    assert util is not None
    js2 = run.to_evalys()
    assert len(js2.df) == len(js.df)


def test_columns_are_batsims(kth):
    text = gridscope.simulate(kth.window(0, 100), policies=["fcfs"])[0].jobs_csv()
    df = pd.read_csv(io.StringIO(text))
    for col in JobSet.columns:
        assert col in df.columns, col
    assert (df["finish_time"] - df["starting_time"] == df["execution_time"]).all()
