"""What the offline planner plans for an instruction, for the tests of its reader."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from claw.envs import TabletopEnv
from claw.planner import OfflinePlanner


def goal_of(env: TabletopEnv, instruction: str) -> list[str]:
    """The goal the offline planner plans for ``instruction`` on ``env`` as it stands, each
    predicate written out."""
    return [str(p) for p in OfflinePlanner().plan(instruction, env).goal]


def scene_env(scene: dict[str, Any]) -> Iterator[TabletopEnv]:
    """An env reset (seed 0) on ``scene``, closed afterwards: the body of a module fixture."""
    env = TabletopEnv()
    env.reset(seed=0, options={"scene": scene})
    yield env
    env.close()
