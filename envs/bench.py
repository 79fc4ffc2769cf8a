"""``claw bench env``: how fast the physics runs, raw and inside ``env.step``, in one process."""

from __future__ import annotations

import time
from typing import Any

import mujoco
import numpy as np
from pydantic import BaseModel

from claw.envs.tabletop import TabletopEnv


class EnvBench(BaseModel):
    """Speed figures of the tabletop env, all measured on the same model and trajectory."""

    scene: str
    env_steps: int
    substeps_per_env_step: int
    timestep: float
    raw_steps_per_second: float
    """``mj_step`` rate replaying the env's own controls on a copy of its model and data."""
    env_physics_steps_per_second: float
    """Physics steps per wall second achieved through ``env.step`` (IK, observations, info)."""
    ratio: float
    """``env_physics_steps_per_second / raw_steps_per_second``."""
    raw_real_time_factor: float
    env_real_time_factor: float
    env_step_ms: float


def bench_env(
    steps: int = 2000, scene: str = "default", seed: int = 0, repeats: int = 3
) -> EnvBench:
    """Time ``env.step`` under random actions, then the raw physics of the same rollout.

    Both run in this process, alternating ``repeats`` times; the best of each is kept, so a
    noisy machine affects both alike.
    """
    env = TabletopEnv(scene=scene)
    rng = np.random.default_rng(seed)
    actions = rng.uniform(-1.0, 1.0, size=(steps, 5)).astype(np.float32)
    env_best, raw_best = np.inf, np.inf
    for _ in range(repeats):
        env.reset(seed=seed)
        start_data = _copy_data(env.model, env.data)
        controls = np.empty((steps, env.model.nu))
        tic = time.perf_counter()
        for i in range(steps):
            env.step(actions[i])
            controls[i] = env.data.ctrl
        env_best = min(env_best, time.perf_counter() - tic)

        data, model, n = start_data, env.model, env.n_substeps
        elapsed = 0.0
        for i in range(steps):
            data.ctrl[:] = controls[i]
            tic = time.perf_counter()
            mujoco.mj_step(model, data, nstep=n)
            elapsed += time.perf_counter() - tic
        raw_best = min(raw_best, elapsed)
    env.close()

    physics_steps = steps * env.n_substeps
    sim_seconds = physics_steps * env.model.opt.timestep
    raw_rate, env_rate = physics_steps / raw_best, physics_steps / env_best
    return EnvBench(
        scene=scene,
        env_steps=steps,
        substeps_per_env_step=env.n_substeps,
        timestep=float(env.model.opt.timestep),
        raw_steps_per_second=raw_rate,
        env_physics_steps_per_second=env_rate,
        ratio=env_rate / raw_rate,
        raw_real_time_factor=sim_seconds / raw_best,
        env_real_time_factor=sim_seconds / env_best,
        env_step_ms=1e3 * env_best / steps,
    )


def _copy_data(model: mujoco.MjModel, data: mujoco.MjData) -> mujoco.MjData:
    copy = mujoco.MjData(model)
    copy.qpos[:], copy.qvel[:], copy.ctrl[:], copy.time = data.qpos, data.qvel, data.ctrl, data.time
    if model.na:
        copy.act[:] = data.act
    mujoco.mj_forward(model, copy)
    return copy


def describe(result: EnvBench) -> list[tuple[str, Any]]:
    """Rows for a human-readable table."""
    return [
        ("scene", result.scene),
        ("env steps x substeps", f"{result.env_steps} x {result.substeps_per_env_step}"),
        ("raw mj_step rate", f"{result.raw_steps_per_second:,.0f} steps/s"),
        ("physics rate inside env.step", f"{result.env_physics_steps_per_second:,.0f} steps/s"),
        ("ratio (env / raw)", f"{result.ratio:.3f}"),
        ("raw real-time factor", f"{result.raw_real_time_factor:.1f}x"),
        ("env real-time factor", f"{result.env_real_time_factor:.1f}x"),
        ("env.step", f"{result.env_step_ms:.3f} ms"),
    ]
