"""Schedulers written in Python: EASY in ~40 lines reproduces the built-in job for job, a
Python policy runs beside built-ins in one call, and a policy that breaks the rules (raises,
returns an unknown job, over-commits) is a GridscopeError naming the job and the instant."""

import importlib.util
import pathlib
import time

import pytest

import gridscope

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"
spec = importlib.util.spec_from_file_location("easy_example", EXAMPLES / "easy.py")
easy_example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(easy_example)


def test_python_easy_equals_builtin_easy_on_kth(kth):
    t0 = time.perf_counter()
    builtin = gridscope.simulate(kth, policies=["easy"])["easy"]
    t1 = time.perf_counter()
    python = gridscope.simulate(kth, policies=[easy_example.Easy()])["py-easy"]
    t2 = time.perf_counter()
    print(f"\nKTH-SP2 EASY: built-in {t1 - t0:.3f} s, Python {t2 - t1:.3f} s ({(t2 - t1) / (t1 - t0):.0f}x)")
    assert python.algorithm == "python:py-easy"
    # Job for job: the same starts, so the same per-job CSV and the same metrics.
    assert python.cli_jobs_csv() == builtin.cli_jobs_csv()
    assert python.metrics == builtin.metrics


def test_python_policy_runs_beside_builtins_in_order(kth):
    w = kth.window(0, 3000)

    class Fcfs:
        def schedule(self, view):
            out, free = [], view.free
            for job in view.queue:
                if job.units > free:
                    break
                out.append(job)  # the QueuedJob itself is accepted too
                free -= job.units
            return out

    res = gridscope.simulate(w, policies=["easy", Fcfs, "fcfs"])
    assert res.labels == ["easy", "Fcfs", "fcfs"]
    assert res["Fcfs"].cli_jobs_csv() == res["fcfs"].cli_jobs_csv()
    assert res["Fcfs"].metrics == res["fcfs"].metrics


def test_a_policy_that_raises_names_the_instant(kth):
    class Broken:
        def schedule(self, view):
            if view.now > 5000:
                raise ValueError("boom")
            return []

    with pytest.raises(gridscope.GridscopeError) as e:
        gridscope.simulate(kth.window(0, 200), policies=[Broken()])
    msg = str(e.value)
    assert "Python policy Broken at t=" in msg and "raised" in msg and "boom" in msg
    assert isinstance(e.value.__cause__, ValueError)


def test_an_unknown_job_is_refused(kth):
    class Liar:
        def schedule(self, view):
            return [10**9]

    with pytest.raises(gridscope.GridscopeError, match=r"returned job 1000000000, but the workload has no such job"):
        gridscope.simulate(kth.window(0, 50), policies=[Liar()])

    class Eager:
        def schedule(self, view):
            return [view.queue[0].idx + 1]  # a job that has not arrived

    with pytest.raises(gridscope.GridscopeError, match=r"not waiting in this site's queue"):
        gridscope.simulate(kth.window(0, 50), policies=[Eager()])


def test_over_commit_is_refused_naming_the_job(kth):
    class Greedy:
        def schedule(self, view):
            return [j.idx for j in view.queue]

    with pytest.raises(gridscope.GridscopeError) as e:
        gridscope.simulate(kth, policies=[Greedy()])
    msg = str(e.value)
    assert "started job" in msg and "units with only" in msg and "at t=" in msg


def test_bad_return_types(kth):
    class Nothing:
        def schedule(self, view):
            return None

    with pytest.raises(gridscope.GridscopeError, match="must return a list"):
        gridscope.simulate(kth.window(0, 10), policies=[Nothing()])

    class Text:
        def schedule(self, view):
            return ["x"]

    with pytest.raises(gridscope.GridscopeError, match="not a job index"):
        gridscope.simulate(kth.window(0, 10), policies=[Text()])


def test_a_policy_that_never_starts_anything_is_an_engine_error(kth):
    class Idle:
        def schedule(self, view):
            return []

    with pytest.raises(gridscope.GridscopeError, match="still queued"):
        gridscope.simulate(kth.window(0, 10), policies=[Idle()])


def test_view_contents(kth):
    seen = []

    class Spy:
        def schedule(self, view):
            seen.append((view.now, view.free, view.capacity, len(view.queue), len(view.running)))
            out, free = [], view.free
            for job in view.queue:
                assert job.units <= view.capacity and job.estimate > 0 and job.submit <= view.now
                if job.units <= free:
                    out.append(job.idx)
                    free -= job.units
            for r in view.running:
                assert r.predicted_end >= view.now
            return out

    gridscope.simulate(kth.window(0, 100), policies=[Spy()])
    assert seen and seen[0][2] == 100


def test_a_scenario_run_under_a_python_policy():
    # The demo's generated workload has times in milliseconds: the Python EASY compares
    # them as floats and must still decide as the built-in does.
    scenario = gridscope.preset("demo", seed=4)
    scenario["algorithms"] = [{"local": "easy"}]
    builtin = gridscope.run(scenario)["easy"]
    python = gridscope.run(scenario, policy=easy_example.Easy)["py-easy"]
    assert python.cli_jobs_csv() == builtin.cli_jobs_csv()
