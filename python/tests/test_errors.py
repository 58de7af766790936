"""Bad input gives a Python exception carrying the engine's message, never a crash: a
subclass of GridscopeError saying what to change (the scenario, the workload, a limit) or
that it is an engine bug; a missing optional library is named with the extra that brings it."""

import importlib
import pickle
import re
import sys

import pytest

import gridscope
from gridscope import EngineBug, GridscopeError, LimitExceeded, ScenarioError, WorkloadError

SUBCLASSES = (ScenarioError, WorkloadError, LimitExceeded, EngineBug)


def test_missing_trace_file():
    with pytest.raises(FileNotFoundError):
        gridscope.read_swf("/nonexistent/trace.swf")


def test_scenario_naming_a_missing_file(tmp_path):
    scenario = {"platform": {"kind": "from_trace"}, "workload": {"kind": "swf", "file": "nope.swf"},
                "algorithms": [{"local": "easy"}]}
    with pytest.raises(WorkloadError, match="cannot read .*nope.swf"):
        gridscope.run(scenario, base=tmp_path)


def test_malformed_scenario_dict():
    with pytest.raises(ScenarioError, match=r"unknown field `algoritms`.*did you mean `algorithms`"):
        gridscope.run({"platform": {"kind": "from_trace"}, "workload": {"kind": "lublin"},
                       "algoritms": []})
    with pytest.raises(ScenarioError, match="unknown local policy 'eazy'"):
        gridscope.run({"platform": {"kind": "preset", "name": "demo"},
                       "workload": {"kind": "lublin", "jobs": 10}, "algorithms": [{"local": "eazy"}]})
    with pytest.raises(ScenarioError, match="no algorithm to run"):
        gridscope.run({"platform": {"kind": "preset", "name": "demo"},
                       "workload": {"kind": "lublin", "jobs": 10}, "algorithms": []})


def test_unknown_preset_and_bad_link():
    with pytest.raises(ScenarioError, match="unknown scenario preset 'nope'; known: demo"):
        gridscope.run("nope")
    with pytest.raises(ScenarioError, match="damaged"):
        gridscope.run("https://x/#s1=!!!!")


def test_garbage_swf_is_reported_not_crashed():
    w = gridscope.read_swf(b"this is not\nan swf file\n")
    assert len(w) == 0 and w.report["malformed"] == 2
    assert "does not look like SWF" in w.report["warnings"][0]
    with pytest.raises(WorkloadError, match="no runnable job"):
        gridscope.simulate(w)
    with pytest.raises(WorkloadError, match="no runnable job to fit"):
        gridscope.fit(w)
    # The file and the line stay in the message.
    with pytest.raises(WorkloadError, match="^<bytes>:1: expected 18 fields"):
        gridscope.read_swf(b"this is not\nan swf file\n", strict=True)


def test_bad_generator_parameters():
    with pytest.raises(ScenarioError, match="nodes must be between 4"):
        gridscope.lublin(100, nodes=0)
    with pytest.raises(ScenarioError, match="invalid Lublin parameters"):
        gridscope.lublin(100, nodez=3)


def test_unknown_policy_name(kth):
    with pytest.raises(ScenarioError, match="unknown local policy"):
        gridscope.simulate(kth, policies=["best"])
    with pytest.raises(TypeError):
        gridscope.simulate(kth, policies=[42])


def test_bad_arguments_are_scenario_errors(kth):
    with pytest.raises(ScenarioError, match="unknown trace format 'xls'"):
        gridscope.read_trace(b"", format="xls")
    with pytest.raises(ScenarioError, match="is empty: the workload has"):
        kth.window(10**9, 5)
    with pytest.raises(ScenarioError, match="unknown family preset 'nope'"):
        gridscope.family_preset("nope")


def test_limits_are_limit_exceeded():
    with pytest.raises(LimitExceeded, match="^the Lublin workload: more than 10,000,000 job records"):
        gridscope.lublin(10_000_001)
    scenario = {"platform": {"kind": "preset", "name": "demo"},
                "workload": {"kind": "lublin", "jobs": 10_000_001}, "algorithms": [{"local": "easy"}]}
    with pytest.raises(LimitExceeded, match="more than 10,000,000"):
        gridscope.run(scenario)


def test_every_subclass_is_a_gridscope_error():
    for cls in SUBCLASSES:
        assert issubclass(cls, GridscopeError) and cls is not GridscopeError
        assert cls.__doc__ and cls.__module__ == "gridscope"
        assert getattr(gridscope, cls.__name__) is cls and cls.__name__ in gridscope.__all__
    assert issubclass(GridscopeError, Exception) and GridscopeError.__doc__
    # `except GridscopeError` keeps catching everything the engine raises.
    for call in (lambda: gridscope.run("nope"), lambda: gridscope.lublin(10_000_001),
                 lambda: gridscope.read_swf(b"x\n", strict=True)):
        try:
            call()
        except GridscopeError as e:
            assert type(e) in SUBCLASSES
        else:
            pytest.fail("no error")
    # The classes live where users import them, so errors cross processes (multiprocessing).
    e = pickle.loads(pickle.dumps(WorkloadError("trace.swf:3: expected 18 fields")))
    assert type(e) is WorkloadError and str(e) == "trace.swf:3: expected 18 fields"


def test_a_python_scheduler_breaking_the_rules_is_no_engine_bug(kth):
    class Idle:
        def schedule(self, view):
            return []

    with pytest.raises(GridscopeError, match="still queued") as e:
        gridscope.simulate(kth.window(0, 10), policies=[Idle()])
    assert not isinstance(e.value, EngineBug)


def test_names_exported_from_the_engine():
    assert gridscope.BUILTIN_POLICIES == (
        "fcfs", "easy", "conservative", "sjf", "firstfit", "conservative-rebuild", "slurm")
    assert gridscope.TRACE_FORMATS == ("auto", "swf", "gwf", "batsim-json", "sacct")
    assert gridscope.DEFAULT_TRACES == "../shared/traces"


EXTRA = r"; install it with pip install 'gridscope\[{}\]'$"


def test_a_missing_library_names_its_extra(monkeypatch, kth):
    res = gridscope.simulate(kth.window(0, 20), policies=["fcfs", "easy"])
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "pyarrow", None)
        for what, get in [("Workload.jobs", lambda: kth.jobs),
                          ("Workload.jobs_arrow()", kth.jobs_arrow),
                          ("Run.jobs", lambda: res["easy"].jobs),
                          ("Run.jobs_polars", lambda: res["easy"].jobs_polars),
                          ("Result.jobs_arrow()", res.jobs_arrow)]:
            pattern = rf"^gridscope: {re.escape(what)} needs pyarrow" + EXTRA.format("frames")
            with pytest.raises(ModuleNotFoundError, match=pattern) as e:
                get()
            assert e.value.name == "pyarrow" and isinstance(e.value.__cause__, ImportError)
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "pandas", None)
        for what, get in [("Workload.jobs", lambda: kth.jobs), ("Run.jobs", lambda: res["easy"].jobs),
                          ("Result.jobs", lambda: res.jobs)]:
            with pytest.raises(ImportError, match=rf"^gridscope: {what} needs pandas" + EXTRA.format("frames")):
                get()
    monkeypatch.setitem(sys.modules, "polars", None)
    with pytest.raises(ImportError, match=r"^gridscope: Run.jobs_polars needs polars" + EXTRA.format("frames")):
        res["fcfs"].jobs_polars
    monkeypatch.setitem(sys.modules, "evalys", None)
    with pytest.raises(ImportError, match=r"^gridscope: Run.to_evalys\(\) needs evalys" + EXTRA.format("evalys")):
        res["fcfs"].to_evalys()
    # The results themselves need nothing.
    assert "avg_wait_s" in res["easy"].metrics and res["easy"].jobs_csv().startswith("job_id")


def test_the_gym_without_gymnasium_names_its_extra(monkeypatch):
    monkeypatch.delitem(sys.modules, "gridscope.gym", raising=False)
    monkeypatch.setitem(sys.modules, "gymnasium", None)
    with pytest.raises(ModuleNotFoundError, match=r"^gridscope: gridscope.gym needs gymnasium" + EXTRA.format("gym")):
        importlib.import_module("gridscope.gym")


def test_family_options_are_the_clis_and_a_wrong_one_is_named():
    """A family preset takes the CLI's flags by name; one the preset does not take says so."""
    with pytest.raises(gridscope.ScenarioError, match=r"--batches does not apply to ses-selection"):
        gridscope.family_preset("ses-selection", seeds=1, batches=5)
    with pytest.raises(gridscope.ScenarioError, match=r"--x does not apply to a KKOR preset|kkor-real takes only"):
        gridscope.family_preset("kkor-real", x=[0.5])
    with pytest.raises(gridscope.ScenarioError, match=r"unknown family preset 'nope'"):
        gridscope.family_preset("nope")
