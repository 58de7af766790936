"""A Gymnasium environment for learning batch schedulers on the Gridscope engine.

``gridscope.gym.SchedulingEnv`` (registered as ``gridscope/Scheduling-v0`` when this module
is imported) schedules one machine. An episode is a window of ``window`` consecutive jobs
of a trace (its start drawn from the env's seeded generator) or a Lublin–Feitelson
workload drawn with a seed from it. At every *decision point* — an instant at which some
queued job fits the free processors — the agent picks one of the first ``queue_slots``
queued jobs to start now, or waits (the engine moves on to its next event: a completion
or an arrival). Starts go through the engine's own checks; the episode ends when every
job has run.

Observation (``Box(0, 1, (4·queue_slots + 4,), float32)``): per slot, in arrival order,
``units / capacity``, ``log1p(estimate s) / log1p(30 days)``, ``log1p(wait so far s) /
log1p(30 days)``, ``fits now`` (0/1), zeros past the queue; then the machine: ``free /
capacity``, ``min(queue length / queue_slots, 1)``, the units of running jobs predicted to
end within the hour / capacity, ``min(running jobs / capacity, 1)``.

Action (``Discrete(queue_slots + 1)``): ``k < queue_slots`` starts slot ``k``;
``queue_slots`` waits. ``info["action_mask"]`` (and ``env.action_masks()``, the
sb3-contrib convention) marks the valid ones: a slot whose job fits now, and waiting only
while some job runs. An invalid action is not an error: it is taken as waiting when that is
valid, else as the first valid slot, and ``info["invalid_action"]`` is True.

Reward: 0 at every step and, at the end, minus the episode's mean bounded slowdown
(10-second threshold, the engine's ``avg_bounded_slowdown``), as in the RL-scheduling
literature (RLScheduler, SchedGym). ``reward="wait"`` uses the mean wait in hours,
``reward="utilization"`` the utilization (positive), and a callable gets the metrics dict
(the CLI's names) and returns the final reward.
"""

from __future__ import annotations

from typing import Callable, Optional, Union

from . import Workload, _g, _need, lublin, read_trace

# Optional libraries: missing, the import names the extra that brings them.
gym = _need("gridscope.gym", "gymnasium")
np = _need("gridscope.gym", "numpy")
spaces = _need("gridscope.gym", "gymnasium.spaces")

__all__ = ["SchedulingEnv", "PolicyAgent", "ENV_ID"]

ENV_ID = "gridscope/Scheduling-v0"

_REWARDS = {
    "bsld": lambda m: -m["avg_bounded_slowdown"],
    "wait": lambda m: -m["avg_wait_s"] / 3600.0,
    "utilization": lambda m: m["utilization"],
}


class SchedulingEnv(gym.Env):
    metadata = {"render_modes": []}

    def __init__(self, workload: Union[None, str, Workload] = None, *, window: int = 256,
                 procs: Optional[int] = None, queue_slots: int = 32,
                 reward: Union[str, Callable[[dict], float]] = "bsld",
                 lublin_params: Optional[dict] = None, kill_at_estimate: bool = True,
                 exact_estimates: bool = False):
        """``workload``: a trace path or a :class:`gridscope.Workload` (episodes are windows
        of it); ``None`` draws a Lublin–Feitelson workload of ``window`` jobs per episode
        (``lublin_params`` passed to :func:`gridscope.lublin`; 128 nodes by default).
        ``procs``: the machine (default: the trace header's MaxProcs, or the model's nodes)."""
        super().__init__()
        if isinstance(workload, str):
            workload = read_trace(workload)
        self.workload = workload
        self.window = int(window)
        if self.window < 1:
            raise ValueError("window must be at least one job")
        self.lublin_params = dict(lublin_params or {})
        if workload is None and procs is None:
            procs = int(self.lublin_params.get("nodes", 128))
        self.procs = procs
        self.queue_slots = int(queue_slots)
        self.kill_at_estimate = kill_at_estimate
        self.exact_estimates = exact_estimates
        if callable(reward):
            self._reward = reward
        elif reward in _REWARDS:
            self._reward = _REWARDS[reward]
        else:
            raise ValueError(f"unknown reward {reward!r}; use one of {sorted(_REWARDS)} or a callable")
        self.observation_space = spaces.Box(0.0, 1.0, (4 * self.queue_slots + 4,), np.float32)
        self.action_space = spaces.Discrete(self.queue_slots + 1)
        self._st = None
        self._episode: Optional[Workload] = None
        self._last_mask = np.zeros(self.queue_slots + 1, dtype=np.bool_)

    # -- episode

    def _draw_episode(self) -> Workload:
        if self.workload is None:
            seed = int(self.np_random.integers(0, 2**31 - 1))
            return lublin(self.window, seed=seed, **self.lublin_params)
        n = len(self.workload)
        if n <= self.window:
            return self.workload.window(0, n)
        start = int(self.np_random.integers(0, n - self.window + 1))
        return self.workload.window(start, self.window)

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        episode = (options or {}).get("workload") or self._draw_episode()
        self._episode = episode
        self._st = _g.Stepper(episode._w, self.procs, self.queue_slots,
                              self.kill_at_estimate, self.exact_estimates)
        return self._observe()

    def step(self, action):
        if self._st is None:
            raise RuntimeError("call reset() before step()")
        if self._st.finished():
            raise RuntimeError("the episode is over: call reset()")
        action = int(action)
        mask = self._last_mask
        invalid = not (0 <= action < len(mask) and mask[action])
        if invalid:
            action = self.queue_slots if mask[self.queue_slots] else int(np.flatnonzero(mask)[0])
        if action == self.queue_slots:
            done = self._st.wait()
        else:
            done = self._st.start(action)
        obs, info = self._observe()
        info["invalid_action"] = invalid
        reward = 0.0
        if done:
            metrics = info["metrics"]
            reward = float(self._reward(metrics))
        return obs, reward, done, False, info

    # -- views

    def _observe(self):
        obs, mask = self._st.observe()
        # The engine's bytes are 0/1: viewed as bool without a copy (read-only).
        self._last_mask = np.frombuffer(mask, dtype=np.bool_)
        info = {
            "action_mask": self._last_mask,
            "now": self._st.now(),
            "queue_length": self._st.queue_len(),
        }
        if self._st.finished():
            import json

            info["metrics"] = json.loads(self._st.metrics_json())
        return np.frombuffer(obs, dtype=np.float32).copy(), info

    def action_masks(self) -> np.ndarray:
        """The valid actions now (sb3-contrib's MaskablePPO reads this)."""
        return self._last_mask.copy()

    def view(self):
        """What a scheduler written for :func:`gridscope.simulate` would see now (a
        :class:`gridscope.View`): the queue in arrival order, the running jobs, the units."""
        if self._st is None or self._st.finished():
            raise RuntimeError("no decision to take: call reset()")
        return self._st.view()

    @property
    def episode(self) -> Optional[Workload]:
        """The current episode's jobs (run them under a built-in policy to compare)."""
        return self._episode


class PolicyAgent:
    """An agent that asks a scheduler written for :func:`gridscope.simulate` (an object with
    ``schedule(view)``) at every decision point and starts the first job it returns, or
    waits when it returns none. Baselines for learned agents: with the engine's rules
    written in Python (``python/examples/easy.py``) it reaches the built-in policy's
    metrics on the same episode (python/tests/test_gym.py).

    ``action = agent(env)``."""

    def __init__(self, policy):
        self.policy = policy() if isinstance(policy, type) else policy

    def __call__(self, env) -> int:
        env = env.unwrapped
        view = env.view()
        chosen = list(self.policy.schedule(view))
        if chosen:
            first = getattr(chosen[0], "idx", chosen[0])
            for k, job in enumerate(view.queue[:env.queue_slots]):
                if job.idx == first:
                    return k
        return env.queue_slots


def _register() -> None:
    if ENV_ID not in gym.registry:
        gym.register(id=ENV_ID, entry_point="gridscope.gym:SchedulingEnv")


_register()
