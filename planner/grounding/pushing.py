"""Pushes from geometry: the ``push`` call that brings an object towards another, away from it,
or into a relation with it, computed on a :class:`~claw.envs.state.WorldState`
(docs/concepts/skills.md, "Push geometry").

Each function returns a :class:`PushMove` (the push skill's direction and distance, and why) or
refuses with :class:`~claw.planner.exceptions.UnsupportedError` naming what is wrong. The
directions, the longest push, its tolerance and what stops it are the push skill's
(:mod:`claw.skills.push`); the relation a push is to reach is measured with its own check from
the relation registry, at the pushed position and wherever within the push's tolerance it may
end.

API::

    push_towards(world, "red_block", "blue_box")           # footprints end ~2 cm apart
    push_away(world, "red_block", "blue_box", distance=0.1)
    push_until(world, "red_block", "left_of", "blue_block")
    push_until(world, "red_block", "between", ("blue_block", "green_block"))
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import cast

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field

from claw.envs import geometry
from claw.envs.predicates import Predicate, check_objects
from claw.envs.regions import region_anchor
from claw.envs.relations import relation
from claw.envs.spatial import NEAR_GAP, cm
from claw.envs.state import ObjectState, WorldState
from claw.planner.exceptions import UnsupportedError
from claw.skills import Direction, NoPlacement, Place, Push, SkillCall

__all__ = [
    "AWAY_DISTANCE",
    "STEP",
    "TOWARDS_GAP",
    "PushMove",
    "push_away",
    "push_towards",
    "push_until",
]

Array = NDArray[np.float64]

TOWARDS_GAP = 0.02  # m: the footprint gap a push towards an object leaves
AWAY_DISTANCE = 0.10  # m: how far a push away goes unless told
STEP = 0.005  # m: push distances are searched on this grid
_MM = 0.001  # m: push_towards finds its distance to this
_ANGLES = np.linspace(0.0, 2 * np.pi, 8, endpoint=False)
_RING = np.stack(
    [np.cos(_ANGLES), np.sin(_ANGLES)], axis=1
)  # where within the tolerance it may end


class PushMove(BaseModel):
    """One push of the ``push`` skill, and why it does what was asked.

    Attributes:
        object: The object pushed.
        direction: The push skill's direction: left (+y), right (-y), far (+x) or near (-x).
        distance: How far (m, a multiple of :data:`STEP`); 0 when what was asked holds already.
        reason: The geometry behind it ("left_of(red_block, blue_block) holds once ...").
    """

    model_config = ConfigDict(frozen=True)

    object: str
    direction: Direction
    distance: float = Field(ge=0.0, le=Push.max_distance)
    reason: str

    @property
    def needed(self) -> bool:
        """Whether there is anything to push (a distance above 0)."""
        return self.distance > 0.0

    def call(self) -> SkillCall:
        """The push skill's call.

        Raises:
            ValueError: Nothing is to be pushed (``distance`` is 0).
        """
        if not self.needed:
            raise ValueError(f"nothing to push: {self.reason}")
        args = {"object": self.object, "direction": self.direction, "distance": self.distance}
        return SkillCall(skill="push", args=args)


def _dominant(vector: Array) -> Direction:
    """The push direction along the dominant axis of a table-plane vector."""
    dx, dy = float(vector[0]), float(vector[1])
    if abs(dx) >= abs(dy):
        return "far" if dx >= 0 else "near"
    return "left" if dy >= 0 else "right"


def _unit(direction: str) -> Array:
    return np.array(Push.directions[direction], dtype=np.float64)


def _distances() -> Array:
    """Every push distance searched: STEP, 2 STEP, ..., Push.max_distance."""
    return np.arange(1, round(Push.max_distance / STEP) + 1, dtype=np.float64) * STEP


def _pair(world: WorldState, obj: str, ref: str) -> tuple[ObjectState, ObjectState]:
    """The object and the reference; UnsupportedError where they are one."""
    if obj == ref:
        raise UnsupportedError(f"{obj} cannot be pushed relative to itself")
    return world.get(obj), world.get(ref)


def _moved(world: WorldState, obj: ObjectState, xy: Array) -> tuple[WorldState, ObjectState]:
    """``world`` with ``obj`` slid to ``xy`` on the table (turned as it is)."""
    moved = replace(obj, position=np.array([xy[0], xy[1], obj.position[2]]))
    return WorldState({**world.objects, obj.name: moved}, None, world.table_z), moved


def _refuse(problem: str | None) -> None:
    if problem is not None:
        raise UnsupportedError(problem)


def push_towards(world: WorldState, obj: str, ref: str, distance: float | None = None) -> PushMove:
    """The push that brings ``obj`` towards ``ref`` along the dominant axis between their
    centres, until their footprints are :data:`TOWARDS_GAP` apart (to the millimetre); with a
    ``distance`` ("push it 10 cm towards the box"), that far along it.

    Where no axis push comes that near (``ref`` stands off to the side), the nearest one is
    taken if it ends within next_to's gap (:data:`~claw.envs.spatial.NEAR_GAP`).

    Raises:
        UnsupportedError: ``obj`` is ``ref``; no push of at most the push skill's distance
            brings them within next_to's gap; or the push cannot be made (out of reach,
            something in the way).
        UnknownObjectError: ``obj`` or ``ref`` names no object.
    """
    a, b = _pair(world, obj, ref)
    delta = b.xy - a.xy
    direction = _dominant(delta)
    u, start, target = _unit(direction), a.footprint(), b.footprint()

    def gap(distance: float) -> float:
        return geometry.polygon_gap(start + distance * u, target)

    if distance is not None:
        _check_distance(distance)
        if gap(distance) <= TOWARDS_GAP:
            raise UnsupportedError(f"pushing {obj} {cm(distance)} {direction} runs into {ref}: "
                                   f"it is {cm(gap(0.0))} away")  # fmt: skip
        _refuse(Push.problem(world, a, direction, distance))
        reason = f"{obj} pushed {cm(distance)} {direction} ends {cm(gap(distance))} from {ref}"
        return PushMove(object=obj, direction=direction, distance=distance, reason=reason)
    if gap(0.0) <= TOWARDS_GAP:
        return PushMove(object=obj, direction=direction, distance=0.0,
                        reason=f"{obj} is {cm(gap(0.0))} from {ref} already")  # fmt: skip
    # The gap between two convex footprints, one slid along a line, is convex in the distance:
    # its least by golden-section search, then the first distance that reaches TOWARDS_GAP.
    nearest = _convex_minimum(gap, 0.0, Push.max_distance)
    if gap(nearest) > NEAR_GAP:
        across = abs(float(delta @ np.array([-u[1], u[0]])))
        why = (
            f"{ref} is {cm(float(delta @ u))} away along it, more than one push's "
            f"{cm(Push.max_distance)}"
            if nearest >= Push.max_distance - _MM
            else f"{ref} is {cm(across)} off to the side"
        )
        raise UnsupportedError(
            f"pushing {obj} {direction} brings it no nearer than {cm(gap(nearest))} to {ref} "
            f"(next to is {cm(NEAR_GAP)}): {why}"
        )
    distance = nearest if gap(nearest) > TOWARDS_GAP else _first_below(gap, nearest, TOWARDS_GAP)
    distance = min(round(distance, 3), Push.max_distance)
    _refuse(Push.problem(world, a, direction, distance))
    reason = f"{obj} pushed {cm(distance)} {direction} ends {cm(gap(distance))} from {ref}"
    return PushMove(object=obj, direction=direction, distance=distance, reason=reason)


def _check_distance(distance: float) -> None:
    if not 0.0 < distance <= Push.max_distance:
        raise UnsupportedError(f"a push goes above 0 and at most {cm(Push.max_distance)}, not "
                               f"{cm(distance)}")  # fmt: skip


def _convex_minimum(f: Callable[[float], float], lo: float, hi: float) -> float:
    """Where a convex ``f`` is least on [lo, hi], to within :data:`_MM`."""
    ratio = (np.sqrt(5.0) - 1) / 2
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fa, fb = f(a), f(b)
    while hi - lo > _MM:
        if fa <= fb:
            hi, b, fb = b, a, fa
            a = hi - ratio * (hi - lo)
            fa = f(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = f(b)
    return (lo + hi) / 2


def _first_below(f: Callable[[float], float], hi: float, level: float) -> float:
    """The least x in [0, hi] with ``f(x) <= level``, to within :data:`_MM`, for ``f``
    decreasing on it with ``f(0) > level >= f(hi)``."""
    lo = 0.0
    while hi - lo > _MM:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if f(mid) <= level else (mid, hi)
    return hi


def push_away(world: WorldState, obj: str, ref: str, distance: float = AWAY_DISTANCE) -> PushMove:
    """The push of ``distance`` that takes ``obj`` away from ``ref``: along the dominant axis of
    ``obj - ref``, else (out of reach, something in the way) along the other axis, away.

    Raises:
        UnsupportedError: ``obj`` is ``ref``; ``distance`` is not in (0, the push skill's
            longest]; or neither push can be made (the message says why).
        UnknownObjectError: ``obj`` or ``ref`` names no object.
    """
    _check_distance(distance)
    a, b = _pair(world, obj, ref)
    delta = a.xy - b.xy
    minor = delta * (np.array([0.0, 1.0]) if abs(delta[0]) >= abs(delta[1]) else [1.0, 0.0])
    directions = [_dominant(delta)] + ([_dominant(minor)] if np.any(minor) else [])
    problems = []
    for direction in directions:
        problem = Push.problem(world, a, direction, distance)
        if problem is None:
            apart = geometry.polygon_gap(a.footprint() + distance * _unit(direction), b.footprint())
            reason = f"{obj} pushed {cm(distance)} {direction} ends {cm(apart)} from {ref}"
            return PushMove(object=obj, direction=direction, distance=distance, reason=reason)
        problems.append(problem)
    raise UnsupportedError(f"cannot push {obj} away from {ref}: {'; '.join(problems)}")


def push_until(
    world: WorldState, obj: str, relation_name: str, ref: str | Sequence[str]
) -> PushMove:
    """The shortest push after which ``relation_name(obj, *ref)`` holds wherever within the push
    skill's tolerance the object ends: searched along left, right, far and near on a
    :data:`STEP` grid, measured with the relation's own check.

    ``ref`` is the relation's target: an object, a region (``at``), or a pair of objects
    (``between``). A distance of 0: it holds already.

    Raises:
        UnsupportedError: The relation lifts the object (``on``, ``in``); no push of at most the
            push skill's distance makes it hold with that margin; or the pushes that would
            cannot be made (the message says why).
        PredicateError: Unknown relation or region, or the wrong number of targets.
        UnknownObjectError: ``obj`` or a target names no object.
    """
    related = relation(relation_name)
    pred = Predicate.of(related.name, obj, *((ref,) if isinstance(ref, str) else ref))
    check_objects(pred, world.objects)
    if related.placing.supported:
        raise UnsupportedError(f"a push slides {obj} along the table and cannot make {pred} hold; "
                               "pick and place it")  # fmt: skip
    a = world.get(obj)
    targets = [t if related.target == "region" else world.get(t) for t in pred.args[1:]]
    now = related.measure(world, a, *targets)
    if now.holds:
        toward = _anchor(targets) - a.xy
        return PushMove(object=obj, direction=_dominant(toward), distance=0.0,
                        reason=f"{pred} holds already: {now.reason}")  # fmt: skip
    found: list[tuple[float, Direction]] = []
    problems: list[str] = []
    for direction in Push.directions:
        distance = next(_holding_distances(world, a, pred, targets, direction), None)
        if distance is None:
            continue
        problem = Push.problem(world, a, direction, distance)  # farther on is no better
        if problem is None:
            found.append((distance, cast(Direction, direction)))
        else:
            problems.append(problem)
    if not found:
        why = "; ".join(problems) or (
            f"no push of at most {cm(Push.max_distance)} left, right, far or near makes it hold "
            f"wherever within {cm(Push.success_tolerance)} of its goal the object ends"
        )
        raise UnsupportedError(f"cannot push {obj} until {pred}: {why}")
    distance, direction = min(found, key=lambda pair: pair[0])
    reason = (
        f"{pred} holds once {obj} is pushed {cm(distance)} {direction}, wherever within "
        f"{cm(Push.success_tolerance)} of there it ends"
    )
    return PushMove(object=obj, direction=direction, distance=distance, reason=reason)


def _anchor(targets: list[ObjectState | str]) -> Array:
    """The middle of the targets: objects' centres, a region's anchor."""
    points = [np.array(region_anchor(t)) if isinstance(t, str) else t.xy for t in targets]
    return np.mean(points, axis=0)


def _holding_distances(
    world: WorldState,
    obj: ObjectState,
    pred: Predicate,
    targets: list[ObjectState | str],
    direction: str,
) -> Iterator[float]:
    """The distances along ``direction`` after which ``pred`` holds at the pushed centre and
    ``Push.success_tolerance`` from it in every direction, nearest first: those the
    placement search's mirror of the predicate finds, each confirmed by the relation's check."""
    u = _unit(direction)
    distances = _distances()
    points = obj.xy + distances[:, None] * u
    args = dict(zip(("target", "target2"), pred.args[1:], strict=False))
    try:
        margin = Push.success_tolerance
        robust = Place.holds_with_margin(
            world, obj.name, pred.name, points=points, margin=margin, **args
        )
    except NoPlacement:
        return
    check = relation(pred.name).measure
    for distance, centre in zip(distances[robust], points[robust], strict=True):
        landings = [centre, *(centre + Push.success_tolerance * _RING)]
        if all(check(*_moved(world, obj, xy), *targets).holds for xy in landings):
            yield round(float(distance), 3)
