"""Bad input gives a Python exception carrying the engine's message, never a crash."""

import pytest

import gridscope


def test_missing_trace_file():
    with pytest.raises(FileNotFoundError):
        gridscope.read_swf("/nonexistent/trace.swf")


def test_scenario_naming_a_missing_file(tmp_path):
    scenario = {"platform": {"kind": "from_trace"}, "workload": {"kind": "swf", "file": "nope.swf"},
                "algorithms": [{"local": "easy"}]}
    with pytest.raises(gridscope.GridscopeError, match="cannot read .*nope.swf"):
        gridscope.run(scenario, base=tmp_path)


def test_malformed_scenario_dict():
    with pytest.raises(gridscope.GridscopeError, match=r"unknown field `algoritms`.*did you mean `algorithms`"):
        gridscope.run({"platform": {"kind": "from_trace"}, "workload": {"kind": "lublin"},
                       "algoritms": []})
    with pytest.raises(gridscope.GridscopeError, match="unknown local policy 'eazy'"):
        gridscope.run({"platform": {"kind": "preset", "name": "demo"},
                       "workload": {"kind": "lublin", "jobs": 10}, "algorithms": [{"local": "eazy"}]})
    with pytest.raises(gridscope.GridscopeError, match="no algorithm to run"):
        gridscope.run({"platform": {"kind": "preset", "name": "demo"},
                       "workload": {"kind": "lublin", "jobs": 10}, "algorithms": []})


def test_unknown_preset_and_bad_link():
    with pytest.raises(gridscope.GridscopeError, match="unknown scenario preset 'nope'; known: demo"):
        gridscope.run("nope")
    with pytest.raises(gridscope.GridscopeError, match="damaged"):
        gridscope.run("https://x/#s1=!!!!")


def test_garbage_swf_is_reported_not_crashed():
    w = gridscope.read_swf(b"this is not\nan swf file\n")
    assert len(w) == 0 and w.report["malformed"] == 2
    assert "does not look like SWF" in w.report["warnings"][0]
    with pytest.raises(gridscope.GridscopeError, match="no runnable job"):
        gridscope.simulate(w)
    with pytest.raises(gridscope.GridscopeError, match="<bytes>:1: expected 18 fields"):
        gridscope.read_swf(b"this is not\nan swf file\n", strict=True)


def test_bad_generator_parameters():
    with pytest.raises(gridscope.GridscopeError, match="nodes must be between 4"):
        gridscope.lublin(100, nodes=0)
    with pytest.raises(gridscope.GridscopeError, match="invalid Lublin parameters"):
        gridscope.lublin(100, nodez=3)


def test_unknown_policy_name(kth):
    with pytest.raises(gridscope.GridscopeError, match="unknown local policy"):
        gridscope.simulate(kth, policies=["best"])
    with pytest.raises(TypeError):
        gridscope.simulate(kth, policies=[42])
