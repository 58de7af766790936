"""The same scenario from Python and from the CLI gives the same bytes: the report JSON
and every run's per-job CSV, on three shared traces and on presets; the DataFrames hold
the same schedule."""

import json

import pytest

import gridscope
from conftest import KTH, SDSC_BLUE, SDSC_SP2, TRACES

CASES = [
    (KTH, ["fcfs", "easy", "conservative", "sjf", "firstfit"], []),
    (SDSC_SP2, ["easy", "conservative"], ["--event-order", "pyss"]),
    (SDSC_BLUE, ["easy", "sjf"], []),
]


@pytest.mark.parametrize("trace,policies,flags", CASES, ids=lambda c: getattr(c, "name", None))
def test_simulate_matches_cli_byte_for_byte(cli, tmp_path, trace, policies, flags):
    out = tmp_path / "jobs.csv"
    stdout = cli("simulate", trace, "--policy", ",".join(policies), "--json", "--jobs", out, *flags)
    order = flags[1] if flags else "gridscope"
    res = gridscope.simulate(str(trace), policies=policies, event_order=order)
    assert res.to_json() + "\n" == stdout
    for i, p in enumerate(policies):
        assert res[i].cli_jobs_csv() == (tmp_path / f"jobs.{p}.csv").read_text()
    # The metrics are the CLI's names and numbers.
    doc = json.loads(stdout)
    assert res.metrics == {r["label"]: r["metrics"] for r in doc["runs"]}


def test_dataframes_hold_the_cli_schedule(cli, tmp_path, kth):
    out = tmp_path / "jobs.csv"
    cli("simulate", KTH, "--policy", "easy", "--jobs", out)
    import pandas as pd

    expect = pd.read_csv(out)
    run = gridscope.simulate(kth, policies=["easy"])["easy"]
    df = run.jobs
    ran = df[df["ran"]].reset_index(drop=True)
    assert len(ran) == len(expect)
    assert (ran["job_id"].astype("int64") == expect["job_id"]).all()
    for col in ["submit", "start", "end"]:
        assert (ran[col] == expect[col]).all(), col
    pl = run.jobs_polars
    assert pl.height == len(df) and pl["start"].null_count() == df["start"].isna().sum()


def test_presets_match_cli(cli):
    for name in ["demo", "sob-synthetic-light"]:
        stdout = cli("run", "--preset", name, "--json")
        assert gridscope.run(name).to_json() + "\n" == stdout, name


def test_real_trace_preset_matches_cli(cli):
    stdout = cli("run", "--preset", "sob-local-policies", "--json", "--traces", TRACES)
    assert gridscope.run("sob-local-policies", traces=TRACES).to_json() + "\n" == stdout


def test_scenario_dict_json_file_and_share_link_run_the_same(cli, tmp_path):
    scenario = gridscope.preset("demo", seed=7)
    scenario["algorithms"] = [{"local": "easy"}, {"local": "conservative"}]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario))
    stdout = cli("run", path, "--json")
    assert gridscope.run(scenario).to_json() + "\n" == stdout
    assert gridscope.run(str(path)).to_json() + "\n" == stdout
    # A page's share link: base64url(raw deflate({"scenario": …, "files": []})).
    import base64
    import zlib

    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    raw = c.compress(json.dumps({"scenario": scenario, "files": []}).encode()) + c.flush()
    link = "https://example.org/gridscope/#s1=" + base64.urlsafe_b64encode(raw).decode().rstrip("=")
    assert gridscope.run(link).to_json() + "\n" == stdout


def test_seed_override_and_seeds(cli):
    stdout = cli("run", "--preset", "demo", "--seed", "3", "--json")
    assert gridscope.run("demo", seed=3).to_json() + "\n" == stdout
    runs = gridscope.run("demo", seeds=[3, 4])
    assert runs[0].to_json() + "\n" == stdout
    assert runs[1].metrics != runs[0].metrics


def test_same_call_same_bytes(kth):
    a = gridscope.simulate(kth, policies=["easy", "conservative"], threads=2)
    b = gridscope.simulate(kth, policies=["easy", "conservative"], threads=1)
    assert a.to_json() == b.to_json()
    assert a["easy"].jobs_csv() == b["easy"].jobs_csv()


def test_lublin_matches_the_scenario_generator(cli, tmp_path):
    w = gridscope.lublin(2000, seed=5, nodes=64)
    scenario = {"seed": 5, "platform": {"kind": "from_trace", "procs": 64},
                "workload": {"kind": "lublin", "jobs": 2000, "nodes": 64},
                "algorithms": [{"local": "easy"}]}
    via_scenario = gridscope.run(scenario)
    assert len(w) == 2000
    direct = gridscope.simulate(w, policies=["easy"], platform=64)
    assert direct["easy"].metrics == via_scenario["easy"].metrics


def test_import_report_and_fit(kth):
    assert kth.report["jobs"] == len(kth) == 28467
    assert kth.report["records"] >= kth.report["jobs"]
    fit = gridscope.fit(kth)
    assert fit["trace_jobs"] == len(kth) and fit["classes"]
    synth = gridscope.synthesize(kth, seed=2)
    assert len(synth) > 0
    assert gridscope.synthesize(kth, seed=2).jobs.equals(synth.jobs)


@pytest.mark.parametrize("name,flags", [
    ("sf-batch", ["--seeds", "2", "--batches", "500"]),
    ("ses-selection", ["--seeds", "1"]),
    ("kkor-load", ["--seeds", "1"]),
    ("scjg-fraction", ["--seeds", "1"]),
])
def test_family_presets_match_cli(cli, name, flags):
    stdout = cli("run", "--preset", name, *flags, "--json", *(["--traces", TRACES] if name.startswith("scjg") else []))
    seeds = int(flags[1])
    batches = int(flags[3]) if len(flags) > 2 else None
    text = gridscope.family_preset(name, seeds=seeds, batches=batches, traces=TRACES, raw=True)
    assert text + "\n" == stdout
    if batches is None:  # run() takes a family preset by name too (with the CLI's batches)
        assert gridscope.run(name, seeds=seeds, traces=TRACES) == json.loads(stdout)


FORMATS = __import__("pathlib").Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "formats"


@pytest.mark.parametrize("name,fmt", [("small.gwf", "gwf"), ("small.sacct", "sacct"),
                                      ("small_batsim.json", "batsim-json")])
def test_read_trace_matches_cli_for_every_format(cli, name, fmt):
    """Every imported format reads as the CLI reads it: the same import report, and the same
    run's JSON byte for byte, told from the content or named."""
    trace = FORMATS / name
    stdout = cli("simulate", trace, "--policy", "easy,fcfs", "--json", "--utc-offset=+01:00")
    lint = json.loads(cli("lint", trace, "--json", "--utc-offset=+01:00"))
    for given in ("auto", fmt):
        w = gridscope.read_trace(str(trace), format=given, utc_offset_min=60)
        assert w.report == lint
        res = gridscope.simulate(w, policies=["easy", "fcfs"])
        assert res.to_json() + "\n" == stdout
    # A path given to simulate is read as the CLI reads it: the format from the content.
    if fmt != "sacct":  # sacct's timestamps need the zone, which a path alone does not give
        plain = cli("simulate", trace, "--policy", "easy,fcfs", "--json")
        assert gridscope.simulate(str(trace), policies=["easy", "fcfs"]).to_json() + "\n" == plain


def test_read_trace_refuses_an_unknown_format():
    with pytest.raises(gridscope.GridscopeError, match="unknown trace format 'xls'"):
        gridscope.read_trace(b"1 0 0 1 1\n", format="xls")


def test_family_options_match_the_cli_flags(cli):
    """The CLI's other family flags are family_preset's keyword arguments, byte for byte."""
    stdout = cli("run", "--preset", "kkor-load", "--seeds", "1", "--x", "0.5,0.8",
                 "--batch-jobs", "10", "--json")
    text = gridscope.family_preset("kkor-load", seeds=1, x=[0.5, 0.8], batch_jobs=10, raw=True)
    assert text + "\n" == stdout
    stdout = cli("run", "--preset", "sf-batch", "--seeds", "2", "--batches", "300", "--cv", "2",
                 "--dll-report", "1", "--json")
    text = gridscope.family_preset("sf-batch", seeds=2, batches=300, cv=2, dll_report=1, raw=True)
    assert text + "\n" == stdout


def test_vs_log_is_the_clis(cli):
    """A run's waits against the log's (issue #42): the CLI's ``vs_log`` numbers."""
    doc = json.loads(cli("simulate", KTH, "--policy", "easy,fcfs", "--vs-log", "--json"))
    res = gridscope.simulate(str(KTH), policies=["easy", "fcfs"])
    for r in doc["runs"]:
        assert res[r["label"]].vs_log() == r["vs_log"]
    assert res["easy"].vs_log()["jobs"] == 28467
