"""Multi-step tasks for ``claw bench skills``: several blocks at one region, a box filled to
capacity, a pick from a box, a five-block tower, an unstack.

Each task is a scene (sampled from the episode's seed), a fixed sequence of pick-and-place calls
written here — no planner — and a goal. A task succeeds when every call succeeded and the goal
holds on the settled state at the end.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from pydantic import BaseModel

from claw.envs.regions import REGIONS, region_anchor
from claw.envs.tabletop import TabletopEnv
from claw.perception.sensing import TRUTH, Sensing
from claw.skills.base import Skill
from claw.skills.registry import get_skill

COLORS = ("red", "green", "blue", "yellow", "orange")
CORNERS = ("far left corner", "far right corner", "near left corner", "near right corner")


class Task(BaseModel):
    """A scene, the moves that do the task (object, relation, target), and its goal."""

    scene: dict[str, Any]
    moves: list[tuple[str, str, str]]
    goal: list[str]


def _blocks(n: int) -> list[dict[str, Any]]:
    return [{"type": "block", "color": color} for color in COLORS[:n]]


def _names(n: int) -> list[str]:
    return [f"{color}_block" for color in COLORS[:n]]


def at_region(n: int) -> Callable[[np.random.Generator], Task]:
    """``n`` blocks, one after another, at one region drawn from the seed."""

    def task(rng: np.random.Generator) -> Task:
        region = str(rng.choice(list(REGIONS)))
        names = [str(name) for name in rng.permutation(_names(n))]
        scene = {"name": f"{n}-at-a-region", "objects": _blocks(n)}
        return Task(
            scene=scene,
            moves=[(name, "at", region) for name in names],
            goal=[f"at({name}, {region})" for name in names],
        )

    return task


def fill_box(rng: np.random.Generator) -> Task:
    """Four 4 cm blocks into a 12 cm box: its capacity."""
    names = [str(name) for name in rng.permutation(_names(4))]
    scene = {"name": "fill-a-box", "objects": [{"type": "box", "color": "gray"}, *_blocks(4)]}
    return Task(
        scene=scene,
        moves=[(name, "in", "gray_box") for name in names],
        goal=[f"in({name}, gray_box)" for name in names],
    )


def pick_from_box(rng: np.random.Generator) -> Task:
    """A block that starts in a box, taken out and put next to it."""
    objects = [
        {"type": "box", "color": "gray"},
        {"type": "block", "color": "red", "in": "gray_box"},
        *_blocks(4)[1:],
    ]
    return Task(
        scene={"name": "pick-from-a-box", "objects": objects},
        moves=[("red_block", "next_to", "gray_box")],
        goal=["next_to(red_block, gray_box)"],
    )


def tower(rng: np.random.Generator) -> Task:
    """Five free blocks stacked into one tower, in an order drawn from the seed."""
    order = [str(name) for name in rng.permutation(_names(5))]
    return Task(
        scene={"name": "five-block-tower", "objects": _blocks(5)},
        moves=[(above, "on", below) for below, above in itertools.pairwise(order)],
        goal=[f"stacked({', '.join(order)})"],
    )


def unstack(rng: np.random.Generator) -> Task:
    """A tower of five taken down, each block from the top to its own corner."""
    names = _names(5)
    objects = [{"type": "block", "color": COLORS[0]}] + [
        {"type": "block", "color": color, "on": below}
        for below, color in zip(names[:-1], COLORS[1:5], strict=True)
    ]
    corners = [str(corner) for corner in rng.permutation(CORNERS)]
    moves = [
        (name, "at", corner) for name, corner in zip(reversed(names[1:]), corners, strict=True)
    ]
    return Task(
        scene={"name": "unstack", "objects": objects},
        moves=moves,
        goal=[f"at({name}, {corner})" for name, _, corner in moves],
    )


TASKS: dict[str, Callable[[np.random.Generator], Task]] = {
    "2 at a region": at_region(2),
    "3 at a region": at_region(3),
    "4 at a region": at_region(4),
    "fill a 12 cm box": fill_box,
    "pick from a box": pick_from_box,
    "five-block tower": tower,
    "unstack five": unstack,
}


class TaskOutcome(BaseModel):
    success: bool
    reason: str
    sim_seconds: float
    wall_seconds: float


def _in_order(moves: list[tuple[str, str, str]], env: TabletopEnv) -> list[tuple[str, str, str]]:
    """The moves; when all go to one region, the blocks nearest it first: a block waiting beside
    the region is in the way of those packed there before it (the offline planner orders them
    so too)."""
    world = env.world_state()

    def distance(move: tuple[str, str, str]) -> float:
        obj, relation, target = move
        if relation != "at":
            return 0.0
        return float(np.linalg.norm(world.get(obj).xy - np.array(region_anchor(target))))

    one_region = len({(relation, target) for _, relation, target in moves}) == 1
    return sorted(moves, key=distance) if one_region else moves


def run_task(
    task: Task,
    seed: int,
    skills: tuple[Skill[Any], Skill[Any]] | None = None,
    sensing: Sensing = TRUTH,
) -> TaskOutcome:
    """Do ``task`` on a fresh env reset to ``seed``: every move, then the goal on the true
    state; with the ``(pick, place)`` given, else the controllers; seen as ``sensing`` says."""
    env = TabletopEnv(scene=task.scene)
    pick, place = skills or (get_skill("pick"), get_skill("place"))
    tic, reason = time.perf_counter(), ""
    try:
        sensing.attach(env)
        env.reset(seed=seed, options=sensing.reset_options())
        start = float(env.data.time)
        for obj, relation, target in _in_order(task.moves, env):
            picked = pick(env, object=obj)
            placed = place(env, target=target, relation=relation) if picked.success else picked
            if not placed.success:
                reason = f"{placed.skill} {obj} {relation} {target}: {placed.reason}"
                break
        check = env.check(task.goal)
        if not reason and not check.success:
            reason = check.reason
        return TaskOutcome(
            success=not reason,
            reason=reason,
            sim_seconds=float(env.data.time) - start,
            wall_seconds=time.perf_counter() - tic,
        )
    finally:
        env.close()
