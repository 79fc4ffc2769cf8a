"""``claw bench observations``: what each observation mode of a training env costs per step."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from pydantic import BaseModel

from claw.envs.goal import make_task_env
from claw.envs.observations import DEFAULT_IMAGE_SIZE, DEFAULT_VIEWS, OBS_MODES


class ModeCost(BaseModel):
    """One observation mode's cost, on the same seeded random actions as the others."""

    obs_mode: str
    step_ms: float
    """Wall milliseconds per ``env.step`` (physics, rendering and the observation)."""
    overhead_ms: float
    """``step_ms`` minus the ``state`` mode's: what the images add."""
    observation_bytes: int
    """Bytes of one observation (all keys)."""


class ObservationBench(BaseModel):
    """The cost of each observation mode of one task."""

    task: str
    views: list[str]
    image_size: tuple[int, int]
    frame_stack: int
    sensor_noise: bool
    steps: int
    modes: list[ModeCost]


def bench_observations(
    task: str = "pick_place",
    steps: int = 200,
    views: tuple[str, ...] = DEFAULT_VIEWS,
    image_size: tuple[int, int] = DEFAULT_IMAGE_SIZE,
    frame_stack: int = 1,
    sensor_noise: bool = False,
    seed: int = 0,
) -> ObservationBench:
    """Step the task's env in every mode under the same random actions; the best of two runs
    of each mode is kept (``state`` first, the baseline the others are measured against)."""
    actions = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(steps, 5)).astype(np.float32)
    costs: list[ModeCost] = []
    for mode in OBS_MODES:
        env = make_task_env(
            task,
            obs_mode=mode,  # type: ignore[arg-type]  # one of OBS_MODES
            views=views,
            image_size=image_size,
            frame_stack=frame_stack,
            sensor_noise=sensor_noise,
        )
        size = env.task.action_size
        best, obs = np.inf, None
        for _ in range(2):
            obs, _ = env.reset(seed=seed)
            tic = time.perf_counter()
            for action in actions:
                obs, *_ = env.step(action[:size])
            best = min(best, time.perf_counter() - tic)
        env.close()
        step_ms = 1e3 * best / steps
        baseline = costs[0].step_ms if costs else step_ms
        assert obs is not None
        costs.append(
            ModeCost(
                obs_mode=mode,
                step_ms=step_ms,
                overhead_ms=step_ms - baseline,
                observation_bytes=sum(np.asarray(v).nbytes for v in obs.values()),
            )
        )
    return ObservationBench(
        task=task,
        views=list(views),
        image_size=image_size,
        frame_stack=frame_stack,
        sensor_noise=sensor_noise,
        steps=steps,
        modes=costs,
    )


def describe(result: ObservationBench) -> list[tuple[str, Any]]:
    """Rows for a human-readable table."""
    height, width = result.image_size
    rows: list[tuple[str, Any]] = [
        ("task", result.task),
        (
            "views",
            f"{', '.join(result.views)} at {height} x {width}, {result.frame_stack} frame(s)",
        ),
        ("sensor model", "on" if result.sensor_noise else "off"),
    ]
    for cost in result.modes:
        rows.append(
            (
                cost.obs_mode,
                f"{cost.step_ms:.1f} ms/step (+{cost.overhead_ms:.1f}), "
                f"{cost.observation_bytes / 1024:.1f} KiB/obs",
            )
        )
    return rows
