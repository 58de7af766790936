"""An algorithm's placement (best fit, scenario version 8; docs/nodes.md) runs from Python as
from the CLI: the same bytes, a run per rule labelled after it."""

import json
import shutil

import gridscope
from conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"


def scenario(tmp_path):
    shutil.copy(FIXTURES / "memory_decides.swf", tmp_path / "memory_decides.swf")
    return {
        "version": 8,
        "name": "placement",
        "platform": {
            "kind": "sites",
            "name": "memory_decides",
            "sites": [{"name": "memory_decides", "nodes": 2, "cpus_per_node": 4, "node_types": [
                {"name": "g0", "count": 2, "cores": 4, "mem_kb": 240}]}],
        },
        "workload": {"kind": "swf", "file": "memory_decides.swf"},
        "algorithms": [{"local": "easy"}, {"local": "easy", "placement": "best_fit"}],
    }


def test_best_fit_runs_as_the_cli_runs_it(cli, tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario(tmp_path)))
    stdout = cli("run", path, "--json")
    res = gridscope.run(str(path))
    assert res.to_json() + "\n" == stdout
    first, best = res["easy"], res["easy, best-fit"]
    assert len(first.jobs) == len(best.jobs) == 7
