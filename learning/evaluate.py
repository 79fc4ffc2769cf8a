"""Measure an exported policy where it was trained: its env, fresh seeds, success from the state."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import claw.envs  # noqa: F401  (registers the training envs)
from claw.envs.goal import TaskEnv
from claw.skills.policy import PolicyNetwork

EVALUATION_SEED = 1_000_000  # evaluation episodes draw seeds from here on, apart from training's
MEASURED_WITHIN = (0.02, 0.05)  # m: the shares of episodes ending this close are reported


def evaluate_policy(
    policy: PolicyNetwork | str | Path,
    episodes: int = 200,
    seed: int = EVALUATION_SEED,
    thresholds: tuple[float, ...] = MEASURED_WITHIN,
    controller_only: bool = False,
) -> dict[str, Any]:
    """Run ``episodes`` deterministic episodes of an exported policy in its training env.

    The policy acts through :class:`~claw.envs.tasks.ToolDriver` exactly as it does as a skill.
    Success is the env's ``is_success`` at the last step (its task threshold), and also the share
    of episodes ending within each of ``thresholds``.

    With ``controller_only``, a residual policy's correction is left out (the controller alone
    acts): the baseline its training improved on.

    Returns:
        ``success_rate``, ``episodes``, ``threshold``, ``success_within`` (by threshold),
        ``mean_final_distance``, ``median_final_distance``, ``mean_reward``, ``seed``,
        ``controller_only``, ``env_id``, ``algo``, ``env_kwargs``, ``wall_seconds``.
    """
    network = policy if isinstance(policy, PolicyNetwork) else PolicyNetwork.load(policy)
    config = network.config
    if controller_only and config.residual_scale is None:
        raise ValueError("controller_only needs a residual policy; this one acts alone")
    act = (lambda obs: np.zeros(3)) if controller_only else network.act
    env = gym.make(config.env_id, **config.env_kwargs)
    distances, successes, rewards = [], [], []
    tic = time.perf_counter()
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed + episode)
        total, done = 0.0, False
        info: dict[str, Any] = {}
        while not done:
            obs, reward, terminated, truncated, info = env.step(act(obs))
            total += float(reward)
            done = terminated or truncated
        distances.append(info["distance"])
        successes.append(bool(info["is_success"]))
        rewards.append(total)
    env.close()
    goal_env = env.unwrapped
    if not isinstance(goal_env, TaskEnv):
        raise TypeError(f"{config.env_id} is not a goal env: it has no success threshold")
    d = np.array(distances)
    return {
        "success_rate": float(np.mean(successes)),
        "episodes": episodes,
        "threshold": float(goal_env.distance_threshold),
        "success_within": {f"{t:g}": float(np.mean(d <= t)) for t in thresholds},
        "mean_final_distance": round(float(d.mean()), 5),
        "median_final_distance": round(float(np.median(d)), 5),
        "mean_reward": round(float(np.mean(rewards)), 3),
        "seed": seed,
        "controller_only": controller_only,
        "env_id": config.env_id,
        "algo": config.algo,
        "env_kwargs": config.env_kwargs,
        "wall_seconds": round(time.perf_counter() - tic, 1),
    }


def record_policy_video(
    policy: PolicyNetwork, path: str | Path, seed: int = EVALUATION_SEED
) -> Path:
    """One deterministic episode of ``policy`` in its training env, written as a video (``.mp4``
    or ``.gif``) from the env's camera at the control rate."""
    from claw.envs.video import write_video

    env = gym.make(policy.config.env_id, render_mode="rgb_array", **policy.config.env_kwargs)
    try:
        obs, _ = env.reset(seed=seed)
        frames, done = [np.asarray(env.render())], False
        while not done:
            obs, _, terminated, truncated, _ = env.step(policy.act(obs))
            frames.append(np.asarray(env.render()))
            done = terminated or truncated
    finally:
        env.close()
    fps = float(env.metadata.get("render_fps", 10))
    return write_video(frames, path, fps)


def bench_policy(policy: str, episodes: int = 200, seed: int = EVALUATION_SEED) -> dict[str, Any]:
    """``claw bench policy``'s figures: ``policy`` (``reach``, ``push``, ``pick_place``: the
    skill library's latest, else a policy folder) on ``episodes`` episodes from ``seed``, and a
    residual policy's controller alone on the same ones.

    Returns:
        ``policy`` (and ``controller_only`` for a residual one): :func:`evaluate_policy`'s
        figures.
    """
    from claw.skills.learned import LEARNED_SKILLS

    if policy in LEARNED_SKILLS:
        from claw.library.storage import SkillLibrary

        network = SkillLibrary().policy(LEARNED_SKILLS[policy][0])
    else:
        network = PolicyNetwork.load(Path(policy))
    results = {"policy": evaluate_policy(network, episodes, seed)}
    if network.config.residual_scale is not None:
        results["controller_only"] = evaluate_policy(network, episodes, seed, controller_only=True)
    return results
