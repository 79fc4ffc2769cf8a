"""The ``truth`` perceiver: the simulator's own state, as claw has always read it."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from claw.perception.base import ObjectBelief, Perception

if TYPE_CHECKING:
    from claw.envs.tabletop import TabletopEnv


class TruthPerceiver:
    """Believes exactly what is: every object seen, with full confidence."""

    name = "truth"

    def reset(self, env: TabletopEnv, seed: int | None = None) -> None:
        """Nothing to start: the truth has no memory."""

    def perceive(self, env: TabletopEnv) -> Perception:
        tic = time.perf_counter()
        world = env.true_world_state()
        beliefs = {name: ObjectBelief(name, seen=True) for name in world.objects}
        return Perception(world, beliefs, (), time.perf_counter() - tic)

    def close(self) -> None:
        """Nothing held."""
