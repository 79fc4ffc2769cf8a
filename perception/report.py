"""What perception believed against what held, per object: the report a run and a case carry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from claw.envs.tabletop import TabletopEnv
    from claw.perception.link import Belief

MISPLACED = 0.015
"""An object believed farther than this (m) from where it is was misperceived."""

Cause = Literal["reading", "perception", "acting"]
"""Why a run failed: the instruction was misread (or refused), an object was not where it was
believed to be, or the skills did not do what was planned on a right belief."""


class ObjectReport(BaseModel):
    """One object: where it was believed to be and where it was, at the last estimate."""

    name: str
    seen: bool
    believed: list[float] | None = None
    """Believed centre (x, y, z, m); ``None`` when no view showed it."""
    true: list[float]
    """True centre (x, y, z, m)."""
    error_mm: float | None = None
    """Distance between the two (mm); ``None`` when not seen."""


class PerceptionReport(BaseModel):
    """Belief against truth for every object, at the end of a run."""

    perceiver: str
    estimates: int = 0
    estimate_ms_p50: float = 0.0
    objects: list[ObjectReport] = Field(default_factory=list)

    def misperceived(self, names: set[str] | None = None) -> list[str]:
        """Objects (of ``names``, or all) believed more than :data:`MISPLACED` off, or unseen."""
        return [
            o.name
            for o in self.objects
            if (names is None or o.name in names)
            and (o.error_mm is None or o.error_mm > MISPLACED * 1000)
        ]


def report(belief: Belief, env: TabletopEnv) -> PerceptionReport:
    """The last estimate of ``belief`` against the truth of ``env`` now."""
    perception = belief.perceive()
    truth = env.true_world_state()
    believed_as = {t: b for b, t in belief.truth_names.items()}
    objects = []
    for name, true in truth.objects.items():
        believed = perception.world.objects.get(believed_as.get(name, name))
        error = None
        if believed is not None:
            error = round(float(np.linalg.norm(believed.position - true.position)) * 1000, 1)
        objects.append(
            ObjectReport(
                name=name,
                seen=believed is not None,
                believed=None if believed is None else _rounded(believed.position),
                true=_rounded(true.position),
                error_mm=error,
            )
        )
    seconds = belief.seconds
    return PerceptionReport(
        perceiver=belief.perceiver.name,
        estimates=len(seconds),
        estimate_ms_p50=round(float(np.median(seconds)) * 1000, 1) if seconds else 0.0,
        objects=objects,
    )


def _rounded(xyz: np.ndarray) -> list[float]:
    return [round(float(v), 4) for v in xyz]
