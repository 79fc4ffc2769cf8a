"""The perceiver's contract: sensor data in, the ``WorldState`` the planner, the skills and the
feedback consume out, with what was and was not seen and how surely."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from claw.envs.state import WorldState

if TYPE_CHECKING:
    from claw.envs.tabletop import TabletopEnv


@dataclass(frozen=True)
class ObjectBelief:
    """How one object of the scene was perceived.

    Attributes:
        name: Its scene name.
        seen: Seen in this estimate (not only remembered or tracked).
        held: Tracked in a claw from the claw's state and its last sighting.
        confidence: 0..1 per estimate: ``type``, ``color``, ``position``, ``yaw``, ``size``.
        support: What it rests on or in (an object's name, ``table``), from the geometry;
            ``None`` when held or unknown.
        points: The 3-D points it was seen with (0 when not seen).
    """

    name: str
    seen: bool
    held: bool = False
    confidence: dict[str, float] = field(default_factory=dict)
    support: str | None = None
    points: int = 0


@dataclass(frozen=True)
class Perception:
    """One estimate: the believed world (without the objects no view shows), each object's
    belief, and the names of the scene's objects no view shows (``unseen``)."""

    world: WorldState
    beliefs: dict[str, ObjectBelief]
    unseen: tuple[str, ...] = ()
    seconds: float = 0.0
    """Wall time the estimate took (capture excluded), s."""


@runtime_checkable
class Perceiver(Protocol):
    """Turns what the sensors give into a :class:`Perception`.

    ``reset`` starts an episode on an env (already reset); ``perceive`` estimates the world
    now; ``close`` frees what the perceiver holds (renderers).
    """

    name: str

    def reset(self, env: TabletopEnv, seed: int | None = None) -> None: ...

    def perceive(self, env: TabletopEnv) -> Perception: ...

    def close(self) -> None: ...
