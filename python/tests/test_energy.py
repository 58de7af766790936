"""A scenario with power models, an idle timeout (version 5) or a carbon intensity (version 6;
docs/energy.md) runs from Python as from the CLI: the same bytes, each run's ``energy``, and
each job's ``energy_j`` adding up to the run's computing joules."""

import json
import shutil

import gridscope
from conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"

# Batsim's cluster_energy_128 host (docs/energy.md).
POWER = {"idle_w": 95.0, "epsilon_w": 95.0, "all_cores_w": 190.738, "off_w": 9.75,
         "switch_off": {"seconds": 6.1, "watts": 100.9967},
         "switch_on": {"seconds": 151.52, "watts": 125.1744}}


def scenario(tmp_path):
    shutil.copy(FIXTURES / "memory_decides.swf", tmp_path / "memory_decides.swf")
    return {
        "version": 5,
        "name": "energy",
        "platform": {
            "kind": "sites",
            "name": "memory_decides",
            "sites": [{"name": "memory_decides", "nodes": 2, "cpus_per_node": 4, "node_types": [
                {"name": "g0", "count": 2, "cores": 4, "mem_kb": 240, "power": POWER}]}],
        },
        "workload": {"kind": "swf", "file": "memory_decides.swf"},
        "algorithms": [{"local": "fcfs"}, {"local": "fcfs", "power_off_after_s": 5}],
    }


def test_a_scenario_with_power_runs_as_the_cli_runs_it(cli, tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario(tmp_path)))
    stdout = cli("run", path, "--json")
    res = gridscope.run(str(path))
    assert res.to_json() + "\n" == stdout
    on, off = res["fcfs"].energy, res["fcfs, off after 5 s"].energy
    assert on["total_j"] > 0 and "idle_off" not in on
    assert off["idle_off"]["after_s"] == 5.0


def test_each_jobs_energy_adds_up_to_the_computing_joules(tmp_path):
    res = gridscope.run(scenario(tmp_path), base=str(tmp_path))
    for run in (res["fcfs"], res["fcfs, off after 5 s"]):
        jobs = run.jobs
        total = jobs["energy_j"].sum()
        assert abs(total - run.energy["computing_j"]) <= 1e-9 * run.energy["computing_j"]
        assert jobs.loc[jobs["ran"], "energy_j"].gt(0).all()


def test_a_run_without_power_has_no_energy(kth):
    run = gridscope.simulate(kth, policies=["easy"])["easy"]
    assert run.energy is None
    assert "energy_j" not in run.jobs.columns


def test_a_scenarios_carbon_gives_emissions_as_the_cli_does(cli, tmp_path):
    """The grid's carbon intensity in the scenario (version 6): the synthetic daily curve
    gives each run's emissions and a slack holds jobs, the bytes of ``gridscope run``."""
    s = scenario(tmp_path)
    s["version"] = 6
    s["carbon"] = {"kind": "daily", "mean_g_per_kwh": 300, "daily_g_per_kwh": 150,
                   "weekly_g_per_kwh": 50}
    s["algorithms"] = [{"local": "fcfs"}, {"local": "fcfs", "carbon_slack_s": 21600}]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(s))
    stdout = cli("run", path, "--json")
    res = gridscope.run(str(path))
    assert res.to_json() + "\n" == stdout
    now, held = res["fcfs"].energy, res["fcfs, carbon slack 21600 s"].energy
    assert now["emissions_g"] > 0 and now["work_emissions_g"] > 0
    assert held["carbon_delay"]["slack_s"] == 21600.0
    # Each job's grams beside its joules: its share of its nodes' power while it ran, so
    # the jobs' grams are part of the run's.
    jobs = res["fcfs"].jobs
    ran = jobs.loc[jobs["ran"]]
    assert ran["emissions_g"].gt(0).all()
    assert 0 < ran["emissions_g"].sum() < now["emissions_g"]
