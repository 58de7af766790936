"""The Gymnasium environment: passes check_env, works under gymnasium.vector, episodes are
seeded, and baseline agents written against it reach the built-in policies' results."""

import time

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import gridscope
from gridscope.gym import ENV_ID, SchedulingEnv


@pytest.fixture(scope="module")
def env(kth):
    return SchedulingEnv(kth, window=128)


def test_check_env(env):
    check_env(env, skip_render_check=True)


def test_registered_and_synthetic():
    env = gymnasium.make(ENV_ID, window=64)
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=3)
    assert obs.shape == env.observation_space.shape and info["action_mask"].any()


def fcfs_agent(obs, info, slots):
    return 0 if info["action_mask"][0] else slots


def play(env, agent, seed):
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        obs, reward, terminated, truncated, info = env.step(agent(obs, info, env.queue_slots))
        total += reward
        steps += 1
        assert env.observation_space.contains(obs)
        if terminated or truncated:
            return total, steps, info


def test_fcfs_agent_reaches_builtin_fcfs(kth):
    env = SchedulingEnv(kth, window=500)
    for seed in [1, 2]:
        total, _, info = play(env, fcfs_agent, seed)
        builtin = gridscope.simulate(env.episode, policies=["fcfs"])["fcfs"].metrics
        assert info["metrics"] == builtin
        assert total == -builtin["avg_bounded_slowdown"]


def test_episodes_are_seeded(env):
    rng = np.random.default_rng(0)

    def random_valid(obs, info, slots):
        return int(rng.choice(np.flatnonzero(info["action_mask"])))

    a = play(env, random_valid, 11)
    rng = np.random.default_rng(0)
    b = play(env, random_valid, 11)
    assert a[0] == b[0] and a[1] == b[1]


def test_invalid_actions_are_flagged_not_fatal(env):
    obs, info = env.reset(seed=5)
    bad = int(np.flatnonzero(~info["action_mask"])[0]) if (~info["action_mask"]).any() else None
    if bad is not None:
        _, _, _, _, info = env.step(bad)
        assert info["invalid_action"]


def test_vector_env(kth):
    envs = gymnasium.vector.SyncVectorEnv([lambda: SchedulingEnv(kth, window=64) for _ in range(2)])
    obs, info = envs.reset(seed=1)
    assert obs.shape == (2, 4 * 32 + 4)
    for _ in range(50):
        masks = info["action_mask"]
        actions = np.array([int(np.flatnonzero(m)[0]) for m in masks])
        obs, rewards, term, trunc, info = envs.step(actions)
    envs.close()


def test_steps_per_second(kth):
    env = SchedulingEnv(kth, window=1000)
    t0 = time.perf_counter()
    steps = 0
    for seed in range(3):
        _, n, _ = play(env, fcfs_agent, seed)
        steps += n
    dt = time.perf_counter() - t0
    print(f"\ngym: {steps} steps in {dt:.3f} s = {steps / dt:,.0f} steps/s (FCFS agent, KTH-SP2 windows of 1000)")


class Sjf:
    """The built-in `sjf`: the queue by estimate (ties by arrival), its head blocking."""

    def schedule(self, view):
        out, free = [], view.free
        for job in sorted(view.queue, key=lambda j: (j.estimate, j.idx)):
            if job.units > free:
                break
            out.append(job.idx)
            free -= job.units
        return out


@pytest.mark.parametrize("name,policy", [("easy", "examples/easy.py"), ("sjf", Sjf)])
def test_policy_agents_reach_the_builtin_policies(kth, name, policy):
    if isinstance(policy, str):
        import importlib.util
        import pathlib

        path = pathlib.Path(__file__).resolve().parents[1] / policy
        spec = importlib.util.spec_from_file_location("easy_for_gym", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        policy = mod.Easy
    agent = gridscope.gym.PolicyAgent(policy)
    env = SchedulingEnv(kth, window=400, queue_slots=400)
    for seed in [1, 2]:
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, reward, done, _, info = env.step(agent(env))
            assert not info["invalid_action"]
        builtin = gridscope.simulate(env.episode, policies=[name])[name].metrics
        assert info["metrics"] == builtin, (name, seed)
