"""``claw bench two-arm``: handover, joint lift, and two pick-and-places in parallel vs in turn.

Every episode draws its scene from its seed: a block of a random size and yaw on one arm's side
handed to the other (the direction alternates), a bar of a random length and yaw across the
front lifted by both, and a block on each side put in the box on its side by the offline plan,
run once with the two arms' lanes at the same time and once one call after another. Success is
the goal measured on the physics after the steps (``holding(block, receiver)``; ``holding``
by each arm and ``level``; both blocks ``in`` their boxes).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
from pydantic import BaseModel

from claw.envs.objects import BAR_LENGTH_RANGE
from claw.envs.tabletop import TabletopEnv
from claw.planner.offline import OfflinePlanner
from claw.skills.executor import ExecutionResult, execute_calls
from claw.skills.plans import SkillCall

BLOCK_Y = (0.26, 0.44)  # |y| (m) of a drawn block: on its arm's side, 4 cm or more clear of the box
BOXES = [
    {"type": "box", "color": "brown", "pose": [0.40, 0.12]},
    {"type": "box", "color": "gray", "pose": [0.40, -0.12]},
]


class TwoArmRow(BaseModel):
    """One task's figures over its episodes."""

    task: str
    episodes: int
    successes: int
    sim_seconds: float
    """Mean simulated seconds per episode."""
    wall_seconds: float
    """Mean wall seconds per episode."""

    @property
    def rate(self) -> float:
        return self.successes / self.episodes


class TwoArmBench(BaseModel):
    """``claw bench two-arm --json``: a row per task, and the parallel run's saving."""

    episodes: int
    seed: int
    rows: list[TwoArmRow]
    parallel_sim_saving: float
    """1 - (parallel sim time / sequential sim time), over the pick-and-place episodes."""
    parallel_wall_saving: float


def _block(rng: np.random.Generator, side: float, color: str) -> dict[str, Any]:
    x, y = rng.uniform(0.35, 0.55), side * rng.uniform(*BLOCK_Y)
    size = float(rng.uniform(0.03, 0.05))
    return {"type": "block", "color": color, "size": round(size, 4),
            "pose": [round(x, 4), round(y, 4), round(float(rng.uniform(-40, 40)), 2)]}  # fmt: skip


def handover_episode(env: TabletopEnv, seed: int) -> tuple[bool, ExecutionResult]:
    """A block on one arm's side picked by it and handed to the other (odd seeds: right to left)."""
    rng = np.random.default_rng(seed)
    giver, receiver = ("left", "right") if seed % 2 == 0 else ("right", "left")
    block = _block(rng, 1.0 if giver == "left" else -1.0, "red")
    env.reset(seed=seed, options={"scene": {"name": "handover", "arms": 2, "objects": [block]}})
    calls = [
        SkillCall(skill="pick", args={"object": "red_block", "arm": giver}),
        SkillCall(skill="handover", args={"object": "red_block", "to": receiver}),
    ]
    ran = execute_calls(env, calls)
    return env.check([f"holding(red_block, {receiver})"]).success and ran.success, ran


def lift_episode(env: TabletopEnv, seed: int) -> tuple[bool, ExecutionResult]:
    """A bar of a random length and yaw across the front, lifted by both arms."""
    rng = np.random.default_rng(seed)
    length = float(rng.uniform(*BAR_LENGTH_RANGE))
    x, y = rng.uniform(0.50, 0.62), rng.uniform(-0.04, 0.04)
    yaw = 90.0 + float(rng.uniform(-25, 25))
    bar = {"type": "bar", "color": "yellow", "size": round(length, 4),
           "pose": [round(x, 4), round(y, 4), round(yaw, 2)]}  # fmt: skip
    env.reset(seed=seed, options={"scene": {"name": "lift", "arms": 2, "objects": [bar]}})
    ran = execute_calls(env, [SkillCall(skill="lift_together", args={"object": "yellow_bar"})])
    goal = ["holding(yellow_bar, left)", "holding(yellow_bar, right)", "level(yellow_bar)"]
    return env.check(goal).success and ran.success, ran


def pick_and_place_episode(
    env: TabletopEnv, seed: int, parallel: bool
) -> tuple[bool, ExecutionResult]:
    """A block on each side into the box on its side: the offline plan's calls, run as lanes
    (``parallel``) or one call after another."""
    rng = np.random.default_rng(seed)
    blocks = [_block(rng, 1.0, "red"), _block(rng, -1.0, "blue")]
    scene = {"name": "two_picks", "arms": 2, "objects": [*blocks, *BOXES]}
    env.reset(seed=seed, options={"scene": scene})
    plan = OfflinePlanner().plan(
        "put the red block in the brown box and the blue block in the gray box", env
    )
    if parallel:
        ran = execute_calls(env, plan.steps)
    else:
        steps = []
        for call in plan.steps:
            ran = execute_calls(env, [call])
            steps += ran.steps
            if not ran.success:
                break
        ran = ExecutionResult(steps=steps, success=all(s.success for s in steps))
    return env.check(plan.goal).success and ran.success, ran


def _row(
    task: str, env: TabletopEnv, episode: Callable[[TabletopEnv, int], tuple[bool, Any]],
    episodes: int, seed: int,
) -> TwoArmRow:  # fmt: skip
    successes, sim, wall = 0, 0.0, 0.0
    for k in range(episodes):
        tic = time.perf_counter()
        ok, _ = episode(env, seed + k)
        wall += time.perf_counter() - tic
        sim += float(env.data.time)
        successes += ok
    return TwoArmRow(
        task=task,
        episodes=episodes,
        successes=successes,
        sim_seconds=round(sim / episodes, 3),
        wall_seconds=round(wall / episodes, 3),
    )


def bench_two_arms(episodes: int = 40, seed: int = 0) -> TwoArmBench:
    """Every row over ``episodes`` seeded episodes (seeds ``seed``, ``seed + 1``, ...)."""
    env = TabletopEnv(scene="two_arms")
    try:
        rows = [
            _row("handover", env, handover_episode, episodes, seed),
            _row("joint lift", env, lift_episode, episodes, seed),
            _row("2 pick-and-places, parallel", env,
                 lambda e, s: pick_and_place_episode(e, s, True), episodes, seed),
            _row("2 pick-and-places, in turn", env,
                 lambda e, s: pick_and_place_episode(e, s, False), episodes, seed),
        ]  # fmt: skip
    finally:
        env.close()
    parallel, in_turn = rows[2], rows[3]
    return TwoArmBench(
        episodes=episodes,
        seed=seed,
        rows=rows,
        parallel_sim_saving=round(1.0 - parallel.sim_seconds / in_turn.sim_seconds, 4),
        parallel_wall_saving=round(1.0 - parallel.wall_seconds / in_turn.wall_seconds, 4),
    )


def describe(result: TwoArmBench) -> list[tuple[str, str]]:
    """The bench as table rows."""
    lines = [
        (row.task, f"{row.successes}/{row.episodes} ({row.rate:.0%}); "
                   f"{row.sim_seconds:.1f} s simulated, {row.wall_seconds:.2f} s wall per episode")
        for row in result.rows
    ]  # fmt: skip
    lines.append(
        (
            "parallel vs in turn",
            f"simulated time {-result.parallel_sim_saving:+.0%}, "
            f"wall time {-result.parallel_wall_saving:+.0%}",
        )
    )
    return lines
