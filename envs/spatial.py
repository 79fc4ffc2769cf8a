"""The measurements of the built-in relations (README, "Predicates") on a :class:`WorldState`.

Each check takes the world, the object ``a`` and the relation's target (an object, or a region's
name for ``at``) and returns a :class:`Check`: whether it holds, what was measured, and why.
:mod:`claw.envs.relations` declares the relations that use them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from claw.envs import geometry
from claw.envs.regions import region_anchor
from claw.envs.state import ObjectState, WorldState

ON_TOLERANCE = 0.01  # |a.bottom - b.top| for on(a, b)
NEAR_GAP = 0.05  # footprint gap for next_to
DIRECTION_MIN = 0.05  # least offset along the direction for left_of & co.
AT_RADIUS = 0.06  # xy distance to a region's anchor for at
TABLE_TOLERANCE = 0.01  # |a.bottom - table_z| for an object on the table


@dataclass(frozen=True)
class Check:
    """One measurement of a predicate: whether it holds, the quantities measured, and why."""

    holds: bool
    measured: dict[str, float]
    reason: str


def cm(metres: float) -> str:
    """A length for a reason: ``"1.5 cm"``."""
    return f"{round(metres * 100, 1) + 0.0:.1f} cm"  # + 0.0: no "-0.0"


def _xy_distance(a: ObjectState, b: ObjectState) -> float:
    return float(np.linalg.norm(a.xy - b.xy))


def inside(a: ObjectState, c: ObjectState) -> Check:
    """``in(a, c)``: a's centre over c's inner footprint and its bottom below c's rim."""
    measured = {"centre_offset": _xy_distance(a, c), "depth": c.rim - a.bottom}
    if a.name == c.name:
        return Check(False, measured, f"{a.name} cannot be in itself")
    if c.inner_half_width is None:
        return Check(False, measured, f"{c.name} is not a box")
    if not geometry.point_in_polygon(a.xy, c.inner_footprint()):
        return Check(False, measured, f"{a.name}'s centre is not inside {c.name}'s inner footprint")
    if a.bottom >= c.rim:
        return Check(False, measured, f"{a.name}'s bottom is not below {c.name}'s rim")
    return Check(
        True, measured, f"{a.name} is inside {c.name}, {cm(measured['depth'])} below its rim"
    )


def rests_on(a: ObjectState, b: ObjectState) -> Check:
    """``on(a, b)``: a's bottom at b's top and its centre over b (in b, for a box)."""
    if b.type == "box":
        return inside(a, b)
    offset = a.bottom - b.top
    measured = {"height_offset": offset, "centre_offset": _xy_distance(a, b)}
    if a.name == b.name:
        return Check(False, measured, f"{a.name} cannot be on itself")
    if abs(offset) > ON_TOLERANCE:
        return Check(
            False,
            measured,
            f"{a.name}'s bottom is {cm(abs(offset))} {'above' if offset > 0 else 'below'} "
            f"{b.name}'s top (> {cm(ON_TOLERANCE)})",
        )
    if not geometry.point_in_polygon(a.xy, b.footprint()):
        return Check(False, measured, f"{a.name}'s centre is not over {b.name}'s footprint")
    return Check(True, measured, f"{a.name} rests on {b.name} (height offset {cm(offset)})")


def _supporter(a: ObjectState, world: WorldState) -> ObjectState | None:
    """The first other object that ``a`` is on or in, if any."""
    for other in world.objects.values():
        if other.name != a.name and rests_on(a, other).holds:
            return other
    return None


def off_table(obj: ObjectState, world: WorldState) -> str | None:
    """Why ``obj`` is not on the table, or ``None`` when it is."""
    support = _supporter(obj, world)
    if support is not None:
        return f"{obj.name} is not on the table (it is on/in {support.name})"
    height = obj.bottom - world.table_z
    if abs(height) > TABLE_TOLERANCE:
        return f"{obj.name} is not on the table (its bottom is {cm(height)} above it)"
    return None


def next_to(world: WorldState, a: ObjectState, b: ObjectState) -> Check:
    """``next_to(a, b)``: footprints within NEAR_GAP, a on the table, neither on the other."""
    gap = geometry.polygon_gap(a.footprint(), b.footprint())
    measured = {"gap": gap, "bottom_height": a.bottom - world.table_z}
    if a.name == b.name:
        return Check(False, measured, f"{a.name} cannot be next to itself")
    for x, y in ((a, b), (b, a)):
        if rests_on(x, y).holds:
            return Check(False, measured, f"{x.name} is on/in {y.name}")
    why_not = off_table(a, world)
    if why_not is not None:
        return Check(False, measured, why_not)
    holds = gap <= NEAR_GAP
    sign = "≤" if holds else ">"
    return Check(holds, measured, f"gap {cm(gap)} {sign} {cm(NEAR_GAP)}")


def direction(
    axis: int, sign: int, words: str
) -> Callable[[WorldState, ObjectState, ObjectState], Check]:
    """The check of a direction: a at least DIRECTION_MIN beyond b along ``sign`` x ``axis``
    (0: x, 1: y), and more along it than sideways; ``words`` says it ("left of")."""
    along, across = ("dx", "dy") if axis == 0 else ("dy", "dx")

    def check(world: WorldState, a: ObjectState, b: ObjectState) -> Check:
        offset = sign * float(a.position[axis] - b.position[axis])
        lateral = abs(float(a.position[1 - axis] - b.position[1 - axis]))
        measured = {along: offset, across: lateral}
        if a.name == b.name:
            return Check(False, measured, f"{a.name} cannot be {words} itself")
        if rests_on(a, b).holds:
            return Check(False, measured, f"{a.name} is on/in {b.name}")
        said = f"{a.name} is {cm(offset)} {words} {b.name}"
        if offset < DIRECTION_MIN:
            return Check(False, measured, f"{said} (< {cm(DIRECTION_MIN)})")
        if offset < lateral:
            return Check(False, measured, f"{said}, less than its {cm(lateral)} sideways offset")
        return Check(True, measured, f"{said} (≥ {cm(DIRECTION_MIN)}, ≥ {cm(lateral)} sideways)")

    return check


def at(world: WorldState, a: ObjectState, region: str) -> Check:
    """``at(a, region)``: a's centre within AT_RADIUS of the region's anchor."""
    anchor = np.asarray(region_anchor(region))
    distance = float(np.linalg.norm(a.xy - anchor))
    holds = distance <= AT_RADIUS
    sign = "≤" if holds else ">"
    reason = f"{a.name} is {cm(distance)} from the {region} anchor ({sign} {cm(AT_RADIUS)})"
    return Check(holds, {"distance": distance}, reason)
