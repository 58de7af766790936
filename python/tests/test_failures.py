"""A scenario with failures (version 4, docs/failures.md) runs from Python as from the CLI:
the same bytes, and each run's ``failures`` with its checkpointing."""

import json
import shutil

import pytest

import gridscope
from gridscope import ScenarioError
from conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"


def scenario(tmp_path):
    shutil.copy(FIXTURES / "memory_decides.swf", tmp_path / "memory_decides.swf")
    platform = json.loads((FIXTURES / "memory_decides.json").read_text())
    # AccaSim's system file, as Gridscope's node types: 2 nodes x 4 cores x 240 KB.
    assert platform["resources"] == {"g0": 2}
    return {
        "version": 4,
        "name": "failures",
        "platform": {
            "kind": "sites",
            "name": "memory_decides",
            "sites": [{"name": "memory_decides", "nodes": 2, "cpus_per_node": 4, "node_types": [
                {"name": "g0", "count": 2, "cores": 4, "mem_kb": 240}]}],
        },
        "workload": {"kind": "swf", "file": "memory_decides.swf"},
        "algorithms": [{"local": "fcfs"}, {"local": "firstfit"}],
        "failures": {
            "outages": [{"node": 0, "start_s": 50, "end_s": 70}],
            "checkpoint": {"interval": {"fixed": 30}, "cost_s": 5, "restart_s": 10},
        },
    }


def test_a_scenario_with_failures_runs_as_the_cli_runs_it(cli, tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario(tmp_path)))
    stdout = cli("run", path, "--json")
    res = gridscope.run(str(path))
    assert res.to_json() + "\n" == stdout
    f = res["fcfs"].failures
    assert f["runs_killed"] == 1 and f["requeues"] == 1
    assert f["checkpoint"]["restarts"] == 1
    assert f["checkpoint"]["interval_s"] == 30.0
    assert 0 < f["goodput"] < 1


def test_a_run_without_failures_has_none(kth):
    assert gridscope.simulate(kth, policies=["easy"])["easy"].failures is None


def test_simulate_takes_failures_as_the_scenario_does(tmp_path):
    s = scenario(tmp_path)
    by_scenario = gridscope.run(s, base=str(tmp_path))
    res = gridscope.simulate(str(tmp_path / "memory_decides.swf"), policies=["fcfs", "firstfit"],
                             platform=s["platform"], failures=s["failures"])
    assert res.metrics == by_scenario.metrics
    assert res["fcfs"].failures == by_scenario["fcfs"].failures


def test_checkpoints_per_job_and_within_the_limit_run_as_the_cli_runs_them(cli, tmp_path):
    """Scenario version 9: Young's interval per job (M/k) and checkpoints counted against the
    wallclock limit; the report says how many runs the limit cut and the work they left."""
    s = scenario(tmp_path)
    s["version"] = 9
    s["failures"]["model"] = "lanl05-exp"
    s["failures"]["checkpoint"] = {
        "interval": "young", "cost_s": 5, "restart_s": 10, "per_job": True, "within_limit": True,
    }
    path = tmp_path / "s.json"
    path.write_text(json.dumps(s))
    stdout = cli("run", path, "--json")
    res = gridscope.run(str(path))
    assert res.to_json() + "\n" == stdout
    c = res["fcfs"].failures["checkpoint"]
    assert c["cut_at_limit"] >= 0 and c["work_unfinished_core_h"] >= 0
    lo, hi = c["interval_range_s"]
    assert 0 < lo <= hi <= c["interval_s"]
    # simulate() takes the same failures object.
    res = gridscope.simulate(str(tmp_path / "memory_decides.swf"), policies=["fcfs", "firstfit"],
                             platform=s["platform"], failures=s["failures"])
    assert res["fcfs"].failures == gridscope.run(str(path))["fcfs"].failures
    s["version"] = 8
    path.write_text(json.dumps(s))
    with pytest.raises(ScenarioError, match="version 9"):
        gridscope.run(str(path))


def test_killed_jobs_offered_to_the_grid_again_run_as_the_cli_runs_them(cli, tmp_path):
    """Scenario version 12: a killed job goes back to the grid scheme (here central, over a
    second site twice as fast), its checkpointed work rescaled to where it runs next."""
    s = scenario(tmp_path)
    s["version"] = 12
    site = s["platform"]["sites"][0]
    s["platform"]["sites"].append(dict(site, name="fast", speed=2.0))
    s["algorithms"] = [{"local": "fcfs", "grid": "central"}, {"local": "easy", "grid": "central"}]
    s["failures"]["requeue_at"] = "grid"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(s))
    stdout = cli("run", path, "--json")
    res = gridscope.run(str(path))
    assert res.to_json() + "\n" == stdout
    for label in res.labels:
        assert res[label].failures["requeue_at"] == "grid"
    s["version"] = 11
    path.write_text(json.dumps(s))
    with pytest.raises(ScenarioError, match="version 12"):
        gridscope.run(str(path))
