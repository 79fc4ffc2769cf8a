"""The measurements of the built-in relations (docs/reference/predicates.md) on a
:class:`WorldState`.

Each check takes the world, the object ``a`` and the relation's target (an object, or a region's
name for ``at``; two objects for ``between``) and returns a :class:`Check`: whether it holds,
what was measured, and why.
:mod:`claw.envs.relations` declares the relations that use them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from claw.envs import geometry
from claw.envs.regions import region_anchor
from claw.envs.state import ObjectState, WorldState

Array = NDArray[np.float64]

ON_TOLERANCE = 0.01  # |a.bottom - b.top| for on(a, b)
NEAR_GAP = 0.05  # footprint gap for next_to
DIRECTION_MIN = 0.05  # least offset along the direction for left_of & co.
AT_RADIUS = 0.06  # xy distance to a region's anchor for at
TABLE_TOLERANCE = 0.01  # |a.bottom - table_z| for an object on the table
# between(a, b, c): a's centre may stand this far outside the band b and c span across the line
# joining them (half the narrower one's width on each side of it): about a 4 cm block's half
# width, so that a block beside the band but overlapping it counts, plus the 1 cm a place lands.
BETWEEN_MARGIN = 0.03


@dataclass(frozen=True)
class Check:
    """One measurement of a predicate: whether it holds, the quantities measured, and why."""

    holds: bool
    measured: dict[str, float]
    reason: str


def cm(metres: float) -> str:
    """A length for a reason: ``"1.5 cm"``."""
    return f"{round(metres * 100, 1) + 0.0:.1f} cm"  # + 0.0: no "-0.0"


def extent_along(obj: ObjectState, direction: Array) -> float:
    """Half the object's footprint extent along a unit direction in the table plane."""
    return float(np.max((obj.footprint() - obj.xy) @ np.asarray(direction, dtype=np.float64)))


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


@dataclass(frozen=True)
class Band:
    """The stretch of table between two objects ``b`` and ``c``, on the line from b's centre to c's.

    A point is between them when its ``along`` coordinate lies past b's edge (``> start``) and
    short of c's (``< end``), and its ``lateral`` offset from the line is at most ``half_width``:
    half the narrower object's width across the line plus :data:`BETWEEN_MARGIN`.
    """

    origin: Array  # b's centre
    unit: Array  # from b's centre towards c's
    start: float  # along the line: b's edge facing c
    end: float  # along the line: c's edge facing b
    half_width: float

    def measure(self, points: Array) -> tuple[Array, Array]:
        """(along, lateral) of points in the table plane (any leading shape)."""
        rel = np.asarray(points, dtype=np.float64) - self.origin
        normal = np.array([-self.unit[1], self.unit[0]])
        return rel @ self.unit, np.abs(rel @ normal)

    def contains(self, points: Array) -> NDArray[np.bool_]:
        """Which points lie between the two objects (any leading shape)."""
        along, lateral = self.measure(points)
        return np.asarray((along > self.start) & (along < self.end) & (lateral <= self.half_width))


def band(b: ObjectState, c: ObjectState) -> Band:
    """The band between ``b`` and ``c`` (empty, ``start >= end``, when their centres coincide)."""
    line = c.xy - b.xy
    length = float(np.linalg.norm(line))
    unit = line / length if length > 1e-9 else np.array([1.0, 0.0])
    normal = np.array([-unit[1], unit[0]])
    start, end = extent_along(b, unit), length - extent_along(c, -unit)
    if length <= 1e-9:
        start, end = 0.0, 0.0
    half = min(extent_along(b, normal), extent_along(c, normal)) + BETWEEN_MARGIN
    return Band(b.xy.copy(), unit, start, end, half)


def between(world: WorldState, a: ObjectState, b: ObjectState, c: ObjectState) -> Check:
    """``between(a, b, c)``: a on the table, its centre past b's edge and short of c's along the
    line joining their centres, and at most the band's half width off that line."""
    span = band(b, c)
    along, lateral = (float(v) for v in span.measure(a.xy))
    measured = {
        "past_b": along - span.start,
        "short_of_c": span.end - along,
        "lateral": lateral,
        "lateral_limit": span.half_width,
    }
    if len({a.name, b.name, c.name}) < 3:
        return Check(False, measured, f"between takes three different objects, got {a.name}, "
                     f"{b.name} and {c.name}")  # fmt: skip
    for x, y in ((a, b), (b, a), (a, c), (c, a)):
        if rests_on(x, y).holds:
            return Check(False, measured, f"{x.name} is on/in {y.name}")
    why_not = off_table(a, world)
    if why_not is not None:
        return Check(False, measured, why_not)
    if span.start >= span.end:
        return Check(False, measured, f"{b.name} and {c.name} leave no room between them")
    if along <= span.start:
        return Check(False, measured, f"{a.name}'s centre is {cm(span.start - along)} short of "
                     f"{b.name}'s edge facing {c.name}")  # fmt: skip
    if along >= span.end:
        return Check(False, measured, f"{a.name}'s centre is {cm(along - span.end)} past "
                     f"{c.name}'s edge facing {b.name}")  # fmt: skip
    said = f"{a.name} is {cm(lateral)} off the line from {b.name} to {c.name}"
    if lateral > span.half_width:
        return Check(False, measured, f"{said} (> {cm(span.half_width)})")
    return Check(
        True,
        measured,
        f"{said} (≤ {cm(span.half_width)}), {cm(measured['past_b'])} past {b.name}'s edge and "
        f"{cm(measured['short_of_c'])} short of {c.name}'s",
    )


def at(world: WorldState, a: ObjectState, region: str, radius: float = AT_RADIUS) -> Check:
    """``at(a, region)``: a's centre within ``radius`` (AT_RADIUS) of the region's anchor."""
    anchor = np.asarray(region_anchor(region))
    distance = float(np.linalg.norm(a.xy - anchor))
    holds = distance <= radius
    sign = "≤" if holds else ">"
    reason = f"{a.name} is {cm(distance)} from the {region} anchor ({sign} {cm(radius)})"
    return Check(holds, {"distance": distance}, reason)
