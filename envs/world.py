"""Queries of a :class:`~claw.envs.state.WorldState` that skills and planners ask: what the claw
holds, and what rests on an object. Each is measured with the predicates
(docs/reference/predicates.md), so it agrees with the goal check."""

from __future__ import annotations

from claw.envs.predicates import Predicate, evaluate, held_objects
from claw.envs.state import WorldState


def held_object(world: WorldState) -> str | None:
    """The object the acting claw holds now (measured: ``holding`` holds), if any."""
    held = held_objects(world, world.arm)
    return held[0] if held else None


def holder(world: WorldState, name: str) -> str | None:
    """The arm whose claw holds ``name`` now (measured), if one does."""
    return next((arm for arm in world.grippers if name in held_objects(world, arm)), None)


def supported_by(world: WorldState, name: str) -> list[str]:
    """Objects resting on or in ``name``."""
    return [
        other
        for other in world.objects
        if other != name and evaluate(Predicate.of("on", other, name), world).holds
    ]
