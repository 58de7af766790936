"""Gridscope in Python: the Gridscope batch-scheduling engine, in process.

The engine is the Rust crate the ``gridscope`` CLI and the web page run; this package is a
thin layer over it, so the same scenario gives the same bytes here, in the CLI and in the
page. Quick tour (docs/python.md has the walkthrough)::

    import gridscope
    w = gridscope.read_swf("KTH-SP2-1996-2.1-cln.swf.gz")
    res = gridscope.simulate(w, policies=["easy", "fcfs"])
    res["easy"].metrics["avg_wait_s"]       # the CLI's JSON names
    res["easy"].jobs                        # pandas DataFrame (via Arrow)
    res["easy"].jobs_polars                 # polars DataFrame
    res["easy"].jobs_csv("jobs.csv")        # Batsim's jobs.csv, read by evalys
    gridscope.run("demo")                   # a preset, a dict, a JSON file or a #s1= link

Schedulers written in Python are objects with ``schedule(self, view) -> list of job
indices`` (see :class:`View`); pass them in ``policies`` beside the built-in names.

Every engine failure is a :class:`GridscopeError` carrying the engine's message; its
subclasses say what to change: :class:`ScenarioError` (the scenario, an option or an
argument), :class:`WorkloadError` (the trace or workload input), :class:`LimitExceeded` (a
limit that guards against runaway inputs) or nothing — :class:`EngineBug` is a bug to report.

The engine needs no other package; the tables, evalys and the Gymnasium environment import
theirs when used, and say which extra installs them when missing
(``pip install 'gridscope[frames]'``, ``[evalys]``, ``[gym]``).
"""

from __future__ import annotations

import importlib
import json
import os
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from . import _gridscope as _g
from ._gridscope import (
    EngineBug,
    GridscopeError,
    LimitExceeded,
    QueuedJob,
    RunningJob,
    ScenarioError,
    View,
    WorkloadError,
    __version__,
)

__all__ = [
    "GridscopeError",
    "ScenarioError",
    "WorkloadError",
    "LimitExceeded",
    "EngineBug",
    "Workload",
    "Result",
    "Run",
    "View",
    "QueuedJob",
    "RunningJob",
    "read_swf",
    "read_trace",
    "TRACE_FORMATS",
    "lublin",
    "fit",
    "synthesize",
    "simulate",
    "slurm_config",
    "run",
    "preset",
    "presets",
    "family_preset",
    "family_presets",
    "BUILTIN_POLICIES",
    "DEFAULT_TRACES",
    "__version__",
]

#: The engine's local policies by name (as the CLI's ``--policy`` takes them), from the
#: engine's own list.
BUILTIN_POLICIES = tuple(_g.BUILTIN_POLICIES)

#: Where presets that name the shared traces look for them, unless ``traces=`` or
#: ``$GRIDSCOPE_TRACES`` says otherwise (the CLI's ``--traces`` default, relative to the
#: working directory).
DEFAULT_TRACES: str = _g.DEFAULT_TRACES

#: Which extra of the package installs each optional library (pyproject.toml's
#: ``[project.optional-dependencies]``).
_EXTRAS = {"pyarrow": "frames", "pandas": "frames", "polars": "frames", "evalys": "evalys",
           "gymnasium": "gym", "numpy": "gym"}


def _need(what: str, module: str):
    """Imports optional library ``module`` (or a submodule of it) for ``what``, or raises a
    ``ModuleNotFoundError`` naming the extra that brings it; the original error is its
    ``__cause__``. An installed library that fails to import (it misses a module of its
    own) raises its own error."""
    top = module.partition(".")[0]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if (e.name or "").partition(".")[0] != top:
            raise
        raise ModuleNotFoundError(
            f"gridscope: {what} needs {top}; install it with "
            f"pip install 'gridscope[{_EXTRAS[top]}]'", name=top) from e


PathLike = Union[str, "os.PathLike[str]"]


# --------------------------------------------------------------------------- workloads


class Workload:
    """Jobs ready to simulate (sorted by submit time) with the report of their import."""

    __slots__ = ("_w", "_report")

    def __init__(self, inner: "_g.Workload"):
        self._w = inner
        self._report: Optional[dict] = None

    @property
    def name(self) -> str:
        return self._w.name

    def __len__(self) -> int:
        return len(self._w)

    def __repr__(self) -> str:
        return f"<gridscope.Workload {self.name!r}: {len(self)} jobs>"

    @property
    def report(self) -> dict:
        """The import report (records, jobs, skipped jobs with reasons, header, warnings):
        what ``gridscope lint --json`` prints."""
        if self._report is None:
            self._report = json.loads(self._w.report_json())
        return self._report

    @property
    def jobs(self):
        """The jobs as a pandas DataFrame (times in seconds)."""
        # Checked before the table is built: that work would be lost.
        _need("Workload.jobs", "pandas")
        return _arrow_table(self._w.columns(), "Workload.jobs").to_pandas()

    def jobs_arrow(self):
        """The jobs as a ``pyarrow.Table``."""
        return _arrow_table(self._w.columns(), "Workload.jobs_arrow()")

    def window(self, start: int, count: int) -> "Workload":
        """``count`` jobs from position ``start``, the first submitted at 0."""
        return Workload(self._w.window(int(start), int(count)))


#: The trace formats :func:`read_trace` takes (the CLI's ``--format`` values), from the
#: engine's own list.
TRACE_FORMATS = tuple(_g.TRACE_FORMATS)


def _source_bytes(source: Union[PathLike, bytes, bytearray, memoryview],
                  name: Optional[str]) -> "tuple[bytes, str]":
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), name or "<bytes>"
    path = os.fspath(source)
    with open(path, "rb") as f:
        return f.read(), name or path


def read_trace(source: Union[PathLike, bytes, bytearray, memoryview], *, format: str = "auto",
               utc_offset_min: int = 0, strict: bool = False,
               name: Optional[str] = None) -> Workload:
    """Reads a trace of any format Gridscope imports, plain or gzip, from a path or bytes:
    SWF, GWF (Grid Workloads Archive), Batsim JSON, or Slurm ``sacct --parsable2``
    (docs/formats.md). ``format="auto"`` tells the format from the content; otherwise one of
    :data:`TRACE_FORMATS`. ``utc_offset_min`` is the zone (minutes east of UTC) that sacct's
    zone-less timestamps are read in. The same reader and report as ``gridscope simulate
    TRACE --format F --utc-offset M``."""
    data, label = _source_bytes(source, name)
    return Workload(_g.read_trace(label, data, str(format), int(utc_offset_min), strict))


def read_swf(source: Union[PathLike, bytes, bytearray, memoryview], *, strict: bool = False,
             name: Optional[str] = None) -> Workload:
    """Reads a Standard Workload Format trace (plain or gzip) from a path or from bytes.

    Lenient by default: bad lines are skipped and counted in ``.report`` (``strict=True``
    makes the first one an error naming its line)."""
    data, label = _source_bytes(source, name)
    return Workload(_g.read_swf(label, data, strict))


def lublin(jobs: int = 10_000, *, seed: int = 0, **params: Any) -> Workload:
    """The Lublin–Feitelson (2003) workload model, seeded: ``jobs``, ``nodes`` (128),
    ``job_types``, ``load_factor``, ``estimate_factor``, ``start_hour``, and GPU and memory
    jobs (``gpu_share``, ``gpus_per_job``, ``mem_share``, ``mem_kb_per_proc``) as in a
    scenario's ``{"kind": "lublin"}`` workload (docs/workload-models.md, docs/nodes.md)."""
    params = dict(params, jobs=int(jobs))
    return Workload(_g.lublin(json.dumps(params), int(seed)))


def fit(workload: Workload, *, cpus_per_node: int = 1, method: str = "moments") -> dict:
    """SOB's hyper-Erlang fit of a workload per job class (``gridscope fit --json``)."""
    text, _ = _g.fit_and_synthesize(_inner(workload), cpus_per_node, 1, method)
    return json.loads(text)


def synthesize(workload: Workload, *, cpus_per_node: int = 1, seed: int = 1,
               method: str = "moments") -> Workload:
    """A synthetic workload drawn from the hyper-Erlang fit of ``workload`` over its span."""
    _, w = _g.fit_and_synthesize(_inner(workload), cpus_per_node, int(seed), method)
    return Workload(w)


def _inner(workload) -> "_g.Workload":
    if isinstance(workload, Workload):
        return workload._w
    if isinstance(workload, _g.Workload):
        return workload
    raise TypeError(f"expected a gridscope.Workload, not {type(workload).__name__}")


# --------------------------------------------------------------------------- results


class Run:
    """One algorithm's run: ``.metrics`` (the CLI's JSON names), ``.jobs`` (pandas),
    ``.jobs_polars``, ``.jobs_arrow()``, ``.jobs_csv()`` (Batsim's schema), ``.to_evalys()``."""

    def __init__(self, report: "_g.Report", index: int, data: dict):
        self._report = report
        self._index = index
        self._data = data

    @property
    def label(self) -> str:
        return self._data["label"]

    @property
    def algorithm(self) -> str:
        return self._data["algorithm"]

    @property
    def metrics(self) -> dict:
        return self._data["metrics"]

    @property
    def rejected(self) -> list:
        return self._data["rejected"]

    @property
    def events(self) -> int:
        return self._data["events"]

    @property
    def max_queue(self) -> int:
        return self._data["max_queue"]

    @property
    def failures(self) -> Optional[dict]:
        """What failures did (node availability, runs killed, work lost, goodput and, with
        checkpointing, its overhead): the CLI JSON's ``failures``; None in a run without
        any (a scenario's ``failures`` object, docs/failures.md)."""
        return self._data.get("failures")

    @property
    def energy(self) -> Optional[dict]:
        """What the run drew (joules in all, computing, idle, switching, off; average and
        peak watts; switch-offs and boots): the CLI JSON's ``energy``; None on a platform
        whose node types have no power model (docs/energy.md). ``.jobs`` then has each
        job's ``energy_j``."""
        return self._data.get("energy")

    def __repr__(self) -> str:
        m = self.metrics
        return (f"<gridscope.Run {self.label}: {m['jobs_finished']} jobs finished, "
                f"avg wait {m['avg_wait_s']:.1f} s, bsld {m['avg_bounded_slowdown']:.2f}>")

    def jobs_arrow(self):
        """The per-job table as a ``pyarrow.Table``: one row per job of the workload, in
        input order; jobs that never ran (rejected) have null start, end, wait, response."""
        return self._arrow("Run.jobs_arrow()")

    def _arrow(self, what: str):
        return _arrow_table(self._report.job_columns(self._index), what)

    @property
    def jobs(self):
        """The per-job table as a pandas DataFrame (categoricals for sites and status)."""
        # Checked before the table is built: that work would be lost.
        _need("Run.jobs", "pandas")
        return self._arrow("Run.jobs").to_pandas()

    @property
    def jobs_polars(self):
        """The per-job table as a polars DataFrame."""
        table = self._arrow("Run.jobs_polars")
        return _need("Run.jobs_polars", "polars").from_arrow(table)

    def series(self, buckets: int = 100) -> dict:
        """Utilization and queue length over time (the CLI's ``--series N``)."""
        return json.loads(self._report.series_json(self._index, int(buckets)))

    def vs_log(self) -> Optional[dict]:
        """The run's waits against the log's (the CLI's ``--vs-log``; docs/slurm.md,
        "Against the log"): per-job wait error summed up and FastSim's 14-day
        moving-average MAPE. ``None`` when the log records no wait."""
        text = self._report.vs_log_json(self._index)
        return None if text is None else json.loads(text)

    def cli_jobs_csv(self) -> str:
        """The per-job CSV exactly as ``gridscope ... --jobs FILE`` writes it."""
        return self._report.cli_jobs_csv(self._index)

    def jobs_csv(self, path: Optional[PathLike] = None) -> Optional[str]:
        """The jobs that ran in Batsim's ``jobs.csv`` schema (what
        ``evalys.jobset.JobSet.from_csv`` reads). Written to ``path``, or returned."""
        text = self._report.batsim_jobs_csv(self._index)
        if path is None:
            return text
        with open(os.fspath(path), "w", newline="") as f:
            f.write(text)
        return None

    def to_evalys(self):
        """An ``evalys.jobset.JobSet`` of this run (through Batsim's jobs.csv schema)."""
        import io

        _need("Run.to_evalys()", "evalys")
        from evalys.jobset import JobSet

        return JobSet.from_csv(io.StringIO(self.jobs_csv()))


class Result:
    """Every run of a call, in the order asked: ``result["easy"]`` or ``result[0]``."""

    def __init__(self, parts: Sequence["_g.Report"]):
        self._reports = list(parts)
        self._docs = [json.loads(r.to_json()) for r in self._reports]
        self.runs: list = [
            Run(r, i, run) for r, doc in zip(self._reports, self._docs)
            for i, run in enumerate(doc["runs"])
        ]

    @property
    def labels(self) -> list:
        return [r.label for r in self.runs]

    def __len__(self) -> int:
        return len(self.runs)

    def __iter__(self):
        return iter(self.runs)

    def __getitem__(self, key: Union[int, str]) -> Run:
        if isinstance(key, int):
            return self.runs[key]
        for r in self.runs:
            if r.label == key:
                return r
        raise KeyError(f"no run labelled {key!r}; runs: {', '.join(self.labels)}")

    def __repr__(self) -> str:
        return f"<gridscope.Result: {', '.join(self.labels)}>"

    @property
    def metrics(self) -> dict:
        """``{label: metrics}`` for every run (the CLI's JSON names)."""
        return {r.label: r.metrics for r in self.runs}

    @property
    def report(self) -> dict:
        """The whole report (platform, conventions, import, runs) as the CLI's JSON has it;
        for a call that mixed built-in and Python policies, the first part's."""
        return self._docs[0]

    @property
    def platform(self) -> dict:
        return self._docs[0]["platform"]

    def to_json(self) -> str:
        """The report exactly as ``gridscope simulate/run --json`` prints it (less the final
        newline). Only for calls run as one scenario (built-in policies)."""
        if len(self._reports) != 1:
            raise ScenarioError(
                "this result joins several runs (built-in and Python policies): "
                "take each run's .metrics, or call to_json on a call of built-ins only")
        return self._reports[0].to_json()

    def jobs_arrow(self):
        """Every run's jobs in one Arrow table with a leading ``run`` column (the label)."""
        return self._arrow("Result.jobs_arrow()")

    def _arrow(self, what: str):
        pa = _need(what, "pyarrow")
        tables = []
        for r in self.runs:
            t = r._arrow(what)
            run = pa.DictionaryArray.from_arrays(
                pa.repeat(pa.scalar(0, pa.int32()), t.num_rows), pa.array([r.label], pa.string()))
            tables.append(t.add_column(0, "run", run))
        return pa.concat_tables(tables, promote_options="permissive") if len(tables) > 1 else tables[0]

    @property
    def jobs(self):
        """Every run's jobs as one pandas DataFrame with a ``run`` column."""
        # Checked before the table is built: that work would be lost.
        _need("Result.jobs", "pandas")
        return self._arrow("Result.jobs").to_pandas()

    @property
    def jobs_polars(self):
        """Every run's jobs as one polars DataFrame with a ``run`` column."""
        table = self._arrow("Result.jobs_polars")
        return _need("Result.jobs_polars", "polars").from_arrow(table)


# --------------------------------------------------------------------------- running


def _threads(threads: Optional[int]) -> int:
    return int(threads) if threads else (os.cpu_count() or 1)


def _policy_name(p) -> str:
    return str(getattr(p, "name", None) or type(p).__name__)


def simulate(workload: Union[Workload, PathLike, bytes], policies: Iterable = ("easy",), *,
             platform: Union[None, int, str, Mapping] = None,
             event_order: str = "gridscope", estimates: str = "trace",
             kill_at_estimate: bool = True, threads: Optional[int] = None,
             name: Optional[str] = None, failures: Optional[Mapping] = None,
             slurm: Union[None, str, Mapping] = None) -> Result:
    """Runs a workload under each policy: built-in names (``"easy"``, ``"fcfs"``, …) and
    Python schedulers (objects, or classes made with no argument, with ``schedule(view)``).

    ``platform``: ``None`` sizes one site from the trace (header MaxProcs), an ``int`` is a
    site of that many processors, a ``str`` a platform preset, a ``dict`` a scenario's
    ``platform`` object. The same call as ``gridscope simulate TRACE --policy …`` gives the
    CLI's JSON byte for byte (``result.to_json()``).

    ``failures``: a scenario's ``failures`` object (docs/failures.md: a failure model, known
    outages, ``on_failure``, ``checkpoint`` with its ``per_job`` and ``within_limit``);
    failures need a platform with node types.

    ``slurm``: the ``"slurm"`` policy's configuration (docs/slurm.md), a preset's name
    (``"default"``, ``"medium_cluster"``) or a dict such as :func:`slurm_config` returns;
    without it the policy runs with Slurm's defaults."""
    if not isinstance(workload, Workload):
        workload = read_trace(workload)
    if isinstance(policies, (str, bytes)) or not isinstance(policies, Iterable):
        policies = [policies]
    policies = [p() if isinstance(p, type) else p for p in policies]
    if not policies:
        raise ScenarioError("invalid scenario: no algorithm to run")
    if platform is None or isinstance(platform, int):
        plat: dict = {"kind": "from_trace", "procs": platform}
    elif isinstance(platform, str):
        plat = {"kind": "preset", "name": platform}
    else:
        plat = dict(platform)
    options = {"estimates": estimates, "kill_at_estimate": bool(kill_at_estimate),
               "event_order": event_order}
    base = {
        "version": 2,
        "name": name if name is not None else f"simulate {workload.name}",
        "seed": 0,
        "platform": plat,
        "workload": {"kind": "swf", "file": workload.name},
        "options": options,
    }
    if failures is not None:
        # The newest version that may hold failures (9: checkpointing per job or within the
        # limit); the engine writes the scenario back in the lowest that describes it.
        base["version"] = 9
        base["failures"] = dict(failures)
    builtin = [p for p in policies if isinstance(p, str)]
    reports = []
    # Built-ins run together (one report, on all cores: the CLI's bytes); each Python policy
    # is a run of its own (it holds the GIL); the result keeps the order asked.
    if slurm is not None and "slurm" not in builtin:
        # As the CLI refuses --slurm-conf without slurm among the policies: never ignored.
        raise ScenarioError("slurm= configures the 'slurm' policy, which is not among the policies")
    if builtin:
        if isinstance(slurm, str):
            slurm = slurm_config(preset=slurm)
        algorithms = [{"local": p} for p in builtin]
        for a in algorithms:
            if a["local"] == "slurm" and slurm is not None:
                a["slurm"] = dict(slurm)
        scenario = dict(base, algorithms=algorithms)
        reports.append(_g.run_scenario(json.dumps(scenario), None, workload._w, _threads(threads)))
    for p in policies:
        if isinstance(p, str):
            continue
        if not callable(getattr(p, "schedule", None)):
            raise TypeError(f"policy {p!r} is neither a built-in name nor an object with schedule(view)")
        label = _policy_name(p)
        scenario = dict(base, algorithms=[{"local": "fcfs", "label": label}])
        reports.append(_g.run_with_python_policy(json.dumps(scenario), p, label, None, workload._w))
    result = Result(reports)
    built, python = iter(result.runs[:len(builtin)]), iter(result.runs[len(builtin):])
    result.runs = [next(built) if isinstance(p, str) else next(python) for p in policies]
    return result


def slurm_config(conf: Union[None, PathLike, bytes] = None, *, preset: Optional[str] = None,
                 assoc: Union[None, PathLike, bytes] = None,
                 workload: Optional[Workload] = None,
                 qos: Union[None, PathLike, bytes] = None) -> dict:
    """The ``"slurm"`` policy's configuration (docs/slurm.md) as a scenario takes it, what
    the CLI's ``--slurm-conf``, ``--slurm-preset``, ``--slurm-assoc`` and ``--slurm-qos``
    build: from a
    ``slurm.conf`` (a path or bytes; ``PriorityFlags`` without ``NO_FAIR_TREE`` gives Fair
    Tree, as in Slurm), else a preset, else Slurm's defaults. ``assoc``, an association dump
    (``sacctmgr show assoc format=Cluster,Account,User,Fairshare,ParentName -P``; a path or bytes),
    gives the users of ``workload`` their shares; ``workload`` also lets a sacct log's
    partition names meet the ``PartitionName`` lines. ``qos``, a QOS dump (``sacctmgr show
    qos format=Name,Priority,MaxJobsPU,MaxTRESPU,GrpJobs,GrpTRES -P``; a path or bytes), gives the QOS
    priorities and limits; a job runs under the QOS its record names, else ``normal``.
    What the CLI prints on stderr (keys not read, notes) comes as :class:`UserWarning`
    warnings. Pass the dict to ``simulate(..., slurm=...)``."""
    import warnings

    def data(x):
        if x is None or isinstance(x, (bytes, bytearray)):
            return None if x is None else bytes(x)
        with open(os.fspath(x), "rb") as f:
            return f.read()

    text, notes = _g.slurm_config_json(data(conf), preset, data(assoc),
                                       None if workload is None else workload._w, data(qos))
    for note in notes:
        warnings.warn(f"slurm: {note}", UserWarning, stacklevel=2)
    return json.loads(text)


def presets() -> dict:
    """``{name: description}`` of the scenario presets (``gridscope run --preset NAME``)."""
    return dict(_g.scenario_presets())


def preset(name: str, *, seed: Optional[int] = None) -> dict:
    """A scenario preset as a scenario dict (edit it, then ``run`` it)."""
    scenario = json.loads(_g.preset_json(name))
    if seed is not None:
        scenario["seed"] = int(seed)
    return scenario


def family_presets() -> list:
    """The paper families' presets (``sf-*``, ``ses-*``, ``kkor-*``, ``scjg-*``)."""
    return list(_g.family_names())


def family_preset(name: str, *, seeds: Optional[int] = None, batches: Optional[int] = None,
                  traces: Optional[PathLike] = None, threads: Optional[int] = None,
                  raw: bool = False, **options):
    """Runs a family preset as ``gridscope run --preset NAME [--seeds N] [--batches B] …
    --json`` does (the CLI's defaults otherwise) and returns its JSON as a dict (``raw=True``:
    the text, byte for byte the CLI's without the final newline). Seeds' runs go on all
    cores with the GIL released; the SCJG and ``kkor-real`` presets read their traces from
    ``traces``.

    ``options`` are the CLI's other flags by name, each taken by the presets the CLI takes it
    for (an option a preset does not take raises :class:`ScenarioError` naming it): ``x``,
    ``rates``, ``coefficients`` (lists of numbers); ``lambda_``, ``load``, ``cv``,
    ``dll_report``, ``batch_length`` (numbers); ``batch_size``, ``batch_jobs`` (ints);
    ``site_queue`` (bool); ``vary``, ``dispatch`` (names); ``policies`` (list of names)."""
    traces = os.fspath(traces) if traces is not None else os.environ.get("GRIDSCOPE_TRACES", DEFAULT_TRACES)
    text = _g.run_family_preset(name, None if seeds is None else int(seeds),
                                None if batches is None else int(batches), traces, _threads(threads),
                                json.dumps(options) if options else None)
    return text if raw else json.loads(text)


def run(scenario: Union[Mapping, PathLike], *, seed: Optional[int] = None,
        seeds: Optional[Iterable[int]] = None, traces: Optional[PathLike] = None,
        base: Optional[PathLike] = None, threads: Optional[int] = None,
        workload: Optional[Workload] = None, policy=None):
    """Runs a scenario — a dict, a JSON file, a preset name or a page's ``#s1=`` share
    link — as ``gridscope run`` does, with the GIL released and on all cores.

    Files named by a dict resolve in ``base`` (default: the working directory), by a JSON
    file in its folder, by a preset or a share link in ``traces`` (default
    ``$GRIDSCOPE_TRACES``, else :data:`DEFAULT_TRACES`, the CLI's). ``seed`` overrides the
    scenario's seed; ``seeds`` runs it once per seed and returns a list of results. A family preset's name (``sf-*``,
    ``ses-*``, ``kkor-*``, ``scjg-*``) runs :func:`family_preset` (``seeds`` = how many). ``workload`` replaces the
    scenario's own; ``policy`` (a Python scheduler) replaces its first algorithm's."""
    if isinstance(scenario, str) and scenario in _g.family_names():
        # A paper family's preset: its own runner; `seeds` is how many.
        return family_preset(scenario, seeds=seeds, traces=traces, threads=threads)
    text, folder = _scenario_text(scenario, traces, base)
    if seeds is not None:
        return [run(json.loads(text), seed=s, base=folder, threads=threads,
                    workload=workload, policy=policy) for s in seeds]
    if seed is not None:
        doc = json.loads(text)
        doc["seed"] = int(seed)
        text = json.dumps(doc)
    w = workload._w if workload is not None else None
    if policy is not None:
        if isinstance(policy, type):
            policy = policy()
        return Result([_g.run_with_python_policy(text, policy, _policy_name(policy), folder, w)])
    return Result([_g.run_scenario(text, folder, w, _threads(threads))])


def _scenario_text(scenario, traces, base) -> tuple:
    """The scenario as JSON text and the folder its files resolve in."""
    traces = os.fspath(traces) if traces is not None else os.environ.get("GRIDSCOPE_TRACES", DEFAULT_TRACES)
    if isinstance(scenario, Mapping):
        return _g.normalize_scenario(json.dumps(scenario)), os.fspath(base) if base else ""
    s = os.fspath(scenario)
    if "s1=" in s and ("#" in s or s.startswith("s1=")):
        text, _files = _g.decode_share_link(s)
        return text, traces
    if s.endswith(".json") or os.path.sep in s or os.path.exists(s):
        with open(s, encoding="utf-8") as f:
            text = f.read()
        return text, os.fspath(base) if base else os.path.dirname(s)
    return _g.preset_json(s), traces


# --------------------------------------------------------------------------- Arrow


_ARROW_TYPES = {"u64": ("uint64", 8), "i64": ("int64", 8), "u32": ("uint32", 4), "i32": ("int32", 4),
                "f64": ("float64", 8), "bool": ("uint8", 1)}


def _arrow_table(cols: dict, what: str):
    """Wraps the engine's column buffers as Arrow arrays (no Python object per row);
    ``what`` names the caller in the message when pyarrow is missing."""
    pa = _need(what, "pyarrow")

    arrays, names = [], []
    for name, (kind, data, validity, nulls, dictionary) in cols.items():
        buf = pa.py_buffer(data)
        if kind == "dict":
            n = len(data) // 4
            codes = pa.Array.from_buffers(pa.int32(), n, [None, buf])
            arr = pa.DictionaryArray.from_arrays(codes, pa.array(dictionary, pa.string()))
        else:
            typ, size = _ARROW_TYPES[kind]
            n = len(data) // size
            vbuf = pa.py_buffer(validity) if validity is not None else None
            arr = pa.Array.from_buffers(getattr(pa, typ)(), n, [vbuf, buf], null_count=nulls)
            if kind == "bool":
                arr = arr.cast(pa.bool_())
        arrays.append(arr)
        names.append(name)
    return pa.Table.from_arrays(arrays, names=names)
