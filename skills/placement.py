"""Where ``place`` puts the held object: a free spot where the relation holds, with room to spare.

The search lays a grid of candidate centres (1 cm over the workspace, 5 mm over the supporting
object for ``on``/``in``; at a region, 1 cm on the objects' axes, then 5 mm where that finds
nothing) at two yaws, keeps those where the object's footprint and the claw's fingers (and its
hand, beside tall objects) stay clear of the other objects, evaluates the relation there and at
perturbed landing points with a vectorised mirror of :mod:`claw.envs.predicates`, ranks the
survivors by robustness, then by distance, and confirms the winner with the real
:func:`~claw.envs.predicates.evaluate` on a hypothetical world with the object resting there.

Inside a box, a spot where the open fingers do not fit between the object and the walls or the
objects already in it is still taken if the object keeps :data:`DROP_CLEARANCE` from them: it is
released above the rim (:attr:`Placement.over_rim`) and drops onto the floor, so a box is packed
from a corner to capacity (four 4 cm blocks in a 12 cm box, nine in a 20 cm one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from claw.envs import geometry, objects, spatial
from claw.envs.exceptions import PredicateError
from claw.envs.predicates import (
    AT_RADIUS,
    DIRECTION_MIN,
    NEAR_GAP,
    ON_TOLERANCE,
    TABLE_TOLERANCE,
    Predicate,
    evaluate,
)
from claw.envs.regions import (
    PLACE_X,
    PLACE_Y,
    REACH_MIN_X,
    REACH_RADIUS,
    region_anchor,
    resolve_region,
)
from claw.envs.relations import Placing, find_relation, relation, relation_names, relations
from claw.envs.robot import HAND_ABOVE_TCP, HAND_HALF_EXTENTS
from claw.envs.state import ObjectState, WorldState, yaw_rotation
from claw.skills.exceptions import NoPlacement

Array = NDArray[np.float64]
Mask = NDArray[np.bool_]

CLEARANCE = 0.015  # default least gap between the placed object and anything else
MIN_ROBUSTNESS = 0.005  # least landing error (m) tolerated; place lands within 3 mm (measured)
MAX_ROBUSTNESS = 0.02  # the search stops improving robustness here
ROBUSTNESS_STEP = 0.005  # robustness is compared in steps of this
GRID_STEP = 0.01  # candidate spacing over the workspace
SUPPORT_GRID_STEP = 0.005  # candidate spacing over the target of on/in
FINE_GRID_STEP = 0.005  # candidate spacing at a region where GRID_STEP finds no spot
FINGER_LENGTH = 0.022  # a finger along its face
FINGER_THICKNESS = 0.015  # a finger from its pad's face outwards
RELEASE_MARGIN = 0.03  # default opening at release: the object's width plus this
FINGER_GAP = 0.002  # least gap between a finger and anything it must not touch
HAND_GAP = 0.01  # least gap between the hand and an object taller than its underside
HEIGHT_TOLERANCE = 0.005  # objects whose top is at most this above the object's bottom are passed
# Released above a box's rim, the object drops onto the floor: it lands up to DROP_SPREAD from
# where it was let go (measured; see tests/skills/test_box_packing.py), so it keeps DROP_CLEARANCE
# from the walls and the objects already in the box, and the relation must survive that spread.
DROP_SPREAD = 0.005
DROP_CLEARANCE = 0.008
# ``at`` a region packs: each spot is chosen to keep room for this many later objects of the held
# one's size (a 6 cm disc takes four 4 cm blocks, 2 x 2, with room for the fingers between them).
PACK_LOOKAHEAD = 3

_SLACK = 0.0005  # robustness r is checked at r + _SLACK, so the reported value holds with margin
_CHUNK = 32  # candidates whose robustness is measured at a time, nearest first
_LEVELS = np.round(np.arange(MAX_ROBUSTNESS, MIN_ROBUSTNESS - 1e-9, -ROBUSTNESS_STEP), 6)
_ANGLES = np.linspace(0.0, 2 * np.pi, 16, endpoint=False)
_RING = np.stack([np.cos(_ANGLES), np.sin(_ANGLES)], axis=1)  # 16 landing directions
_VERIFY_RING = _RING[::2]  # the 8 directions the real predicate confirms


@dataclass(frozen=True)
class Placement:
    """Where to release the object.

    Attributes:
        x: The object's centre x (m).
        y: The object's centre y (m).
        yaw: The object's yaw there (rad).
        bottom: z of the object's bottom at rest there (m).
        robustness: The relation still holds if the object lands this far (m) from (x, y).
        over_rim: Release above the box's rim and let the object drop onto its spot: the open
            fingers do not fit inside the walls there (no room beside the object for a finger).
    """

    x: float
    y: float
    yaw: float
    bottom: float
    robustness: float
    over_rim: bool = False


class _Rect(NamedTuple):
    """A rectangle in the table plane: centre, yaw and half sides."""

    cx: float
    cy: float
    yaw: float
    hx: float
    hy: float

    @classmethod
    def of(cls, corners: Array) -> _Rect:
        """The rectangle with these corners (in :func:`geometry.rect_corners` order)."""
        ex, ey = corners[0] - corners[1], corners[1] - corners[2]
        centre = corners.mean(axis=0)
        hx, hy = (float(np.hypot(*e)) / 2 for e in (ex, ey))
        return cls(float(centre[0]), float(centre[1]), math.atan2(ex[1], ex[0]), hx, hy)


def _in_rect(points: Array, rect: _Rect, margin: float = 0.0) -> Mask:
    """Which points lie in ``rect`` at least ``margin`` from its edges (any leading shape)."""
    c, s = math.cos(rect.yaw), math.sin(rect.yaw)
    dx, dy = points[..., 0] - rect.cx, points[..., 1] - rect.cy
    return (np.abs(dx * c + dy * s) <= rect.hx - margin) & (
        np.abs(dy * c - dx * s) <= rect.hy - margin
    )


def _minkowski(a: Array, b: Array) -> Array:
    """The Minkowski sum of two convex CCW polygons: their edges merged by angle, CCW."""
    start = a[np.lexsort((a[:, 0], a[:, 1]))[0]] + b[np.lexsort((b[:, 0], b[:, 1]))[0]]
    edges = np.concatenate([np.roll(a, -1, axis=0) - a, np.roll(b, -1, axis=0) - b])
    edges = edges[np.argsort(np.arctan2(edges[:, 1], edges[:, 0]) % (2 * np.pi), kind="stable")]
    return start + np.concatenate([[[0.0, 0.0]], np.cumsum(edges, axis=0)[:-1]])


def _signed_distance(points: Array, poly: Array, cap: float) -> Array:
    """Distance from points (any leading shape) to a convex CCW polygon, negative inside.

    Points farther than ``cap`` from the polygon's bounding circle get ``inf`` (not computed).
    """
    flat = points.reshape(-1, 2)
    centre = poly.mean(axis=0)
    radius = float(np.sqrt(((poly - centre) ** 2).sum(-1).max())) + cap
    out = np.full(len(flat), np.inf)
    near = ((flat - centre) ** 2).sum(-1) <= radius * radius
    if near.any():
        edges = np.roll(poly, -1, axis=0) - poly
        rel = flat[near][:, None, :] - poly
        t = np.clip(np.einsum("nek,ek->ne", rel, edges) / (edges * edges).sum(-1), 0.0, 1.0)
        gap = rel - t[..., None] * edges
        dist = np.sqrt(np.einsum("nek,nek->ne", gap, gap).min(-1))
        inside = (edges[:, 0] * rel[..., 1] - edges[:, 1] * rel[..., 0] >= 0).all(-1)
        out[near] = np.where(inside, -dist, dist)
    return out.reshape(points.shape[:-1])


@dataclass(frozen=True, eq=False)
class _Task:
    """One placement problem, resolved from the call's arguments."""

    world: WorldState
    held: ObjectState
    relation: str
    placing: Placing
    target: ObjectState | None  # None at a region
    predicate: Predicate
    words: str  # "left of blue_box", "at the center"
    anchor: Array  # target centre or region anchor
    bottom: float
    yaws: tuple[float, ...]
    grid: Array  # (N, 2) candidate centres
    release_width: float
    target2: ObjectState | None = None  # between's second target

    @property
    def box(self) -> ObjectState | None:
        """The box the object goes into, if any."""
        target = self.target
        supported = self.placing.supported and target is not None and target.type == "box"
        return target if supported else None

    def placed(self, x: float, y: float, yaw: float) -> ObjectState:
        """The held object resting upright at (x, y) with this yaw."""
        h = self.held
        xyz = np.array([x, y, self.bottom + h.half_extents[2]])
        return ObjectState(
            h.name,
            h.type,
            xyz,
            yaw_rotation(yaw),
            h.half_extents,
            h.inner_half_width,
            color=h.color,
        )

    def holds(self, x: float, y: float, yaw: float) -> bool:
        """The real predicate with the object resting at (x, y)."""
        objs = {**self.world.objects, self.held.name: self.placed(x, y, yaw)}
        world = WorldState(objects=objs, gripper=None, table_z=self.world.table_z)
        return evaluate(self.predicate, world).holds


def _rests_on(points: Array, bottom: float, support: ObjectState) -> Mask:
    """Vectorised ``spatial.rests_on(a, support)``, ``a`` upright at points with this bottom."""
    if support.type == "box":
        return _in_rect(points, _Rect.of(support.inner_footprint())) & (bottom < support.rim)
    near = abs(bottom - support.top) <= ON_TOLERANCE
    return _in_rect(points, _Rect.of(support.footprint())) & near


def _carries(task: _Task, points: Array, yaw: float, other: ObjectState) -> Mask:
    """Vectorised ``spatial.rests_on(other, a)`` with the held object ``a`` at points."""
    h = task.held
    top = task.bottom + 2 * float(h.half_extents[2])
    x, y = float(other.xy[0]), float(other.xy[1])
    if h.inner_half_width is not None:
        w = h.inner_half_width
        return _in_rect(points, _Rect(x, y, yaw, w, w)) & (other.bottom < top)
    rect = _Rect(x, y, yaw, float(h.half_extents[0]), float(h.half_extents[1]))
    return _in_rect(points, rect) & (abs(other.bottom - top) <= ON_TOLERANCE)


def _fast_holds(task: _Task, points: Array, yaw: float) -> Mask:
    """Vectorised mirror of ``evaluate(task.predicate)`` with the object resting at each point,
    by the relation's :class:`~claw.envs.relations.Placing` (a ``predicate`` one: not vectorised,
    the relation's own check at each point)."""
    placing = task.placing
    if placing.kind == "region":
        return np.linalg.norm(points - task.anchor, axis=-1) <= AT_RADIUS
    if placing.kind == "predicate" or task.target is None:
        return _checked(task, points, yaw)
    target, bottom = task.target, task.bottom
    if placing.supported:
        return _rests_on(points, bottom, target)
    ok = ~_rests_on(points, bottom, target)
    if placing.kind == "direction":
        axis, sign = placing.axis, placing.sign
        offset = sign * (points[..., axis] - target.position[axis])
        lateral = np.abs(points[..., 1 - axis] - target.position[1 - axis])
        return ok & (offset >= DIRECTION_MIN) & (offset >= lateral)
    if placing.kind == "between" and task.target2 is not None:
        ok &= spatial.band(target, task.target2).contains(points)
        return ok & _on_table(task, points, yaw, (target, task.target2))
    body = _body(task, yaw)
    ok &= _signed_distance(points, _minkowski(target.footprint(), body), NEAR_GAP) <= NEAR_GAP
    return ok & _on_table(task, points, yaw, (target,))


def _on_table(task: _Task, points: Array, yaw: float, targets: tuple[ObjectState, ...]) -> Mask:
    """Vectorised ``spatial.off_table(a) is None`` with the object resting at points, and no
    target resting on it."""
    bottom = task.bottom
    ok = np.full(points.shape[:-1], abs(bottom - task.world.table_z) <= TABLE_TOLERANCE)
    for target in targets:
        ok &= ~_carries(task, points, yaw, target)
    for other in task.world.objects.values():
        if other.name != task.held.name:
            ok &= ~_rests_on(points, bottom, other)
    return ok


def _checked(task: _Task, points: Array, yaw: float) -> Mask:
    """The relation's own check with the object resting at each point (any leading shape)."""
    check, name = relation(task.relation).measure, task.held.name
    target = task.target if task.target is not None else task.predicate.args[1]
    targets = (target,) if task.target2 is None else (target, task.target2)
    found = []
    for x, y in points.reshape(-1, 2).tolist():
        placed = task.placed(x, y, yaw)
        world = WorldState({**task.world.objects, name: placed}, None, task.world.table_z)
        found.append(check(world, placed, *targets).holds)
    return np.array(found, dtype=bool).reshape(points.shape[:-1])


def _body(task: _Task, yaw: float) -> Array:
    """The held object's footprint centred at the origin with this yaw."""
    hx, hy = (float(v) for v in task.held.half_extents[:2])
    return geometry.rect_corners(0.0, 0.0, yaw, hx, hy)


def _clear(
    task: _Task, yaw: float, obstacles: list[ObjectState], clearance: float
) -> tuple[Array, Mask]:
    """The grid points where the body and the fingers keep clear (and on the reachable table).

    Also which of them release above a box's rim: inside a box a point is kept if the open
    fingers fit between the object and the walls and neighbours (released low), else if the body
    keeps :data:`DROP_CLEARANCE` from them and the fingers, above the rim, clear anything taller
    than the rim (dropped).
    """
    pts = task.grid
    hx, hy = (float(v) for v in task.held.half_extents[:2])
    c, s = math.cos(yaw), math.sin(yaw)
    if not task.placing.supported:
        ex, ey = abs(c) * hx + abs(s) * hy, abs(s) * hx + abs(c) * hy
        keep = (pts[:, 0] >= PLACE_X[0] + ex) & (pts[:, 0] <= PLACE_X[1] - ex)
        keep &= (pts[:, 1] >= PLACE_Y[0] + ey) & (pts[:, 1] <= PLACE_Y[1] - ey)
        radius = np.hypot(pts[:, 0], pts[:, 1])
        keep &= (
            (pts[:, 0] >= REACH_MIN_X) & (radius >= REACH_RADIUS[0]) & (radius <= REACH_RADIUS[1])
        )
        pts = pts[keep]
    body = _body(task, yaw)
    finger = geometry.rect_corners(0.0, 0.0, yaw, FINGER_LENGTH / 2, FINGER_THICKNESS / 2)
    offset = (task.release_width + FINGER_THICKNESS) / 2 * np.array([-s, c])
    box = task.box
    low: Mask = np.ones(len(pts), dtype=bool)  # released low, the fingers beside the object
    drop: Mask = np.zeros(len(pts), dtype=bool)  # released above the rim
    drop_clearance = max(clearance, DROP_CLEARANCE)
    if box is not None:  # body (and low fingers) inside the box, clear of its walls
        inner = _Rect.of(box.inner_footprint())
        slack = inner.hx - max(hx, hy)
        low = np.asarray(_in_rect(pts[:, None, :] + body, inner, min(clearance, slack / 2)).all(-1))
        for side in (offset, -offset):
            low &= _in_rect(pts[:, None, :] + side + finger, inner, FINGER_GAP).all(-1)
        drop = np.asarray(
            _in_rect(pts[:, None, :] + body, inner, min(drop_clearance, slack / 2)).all(-1)
        )
        keep = low | drop
        pts, low, drop = pts[keep], low[keep], drop[keep]
    # Objects taller than the palm's underside at release must clear the hand too.
    hand_floor = task.bottom + float(task.held.half_extents[2]) + HAND_ABOVE_TCP
    hand = geometry.rect_corners(0.0, 0.0, yaw, *HAND_HALF_EXTENTS)
    for obstacle in obstacles:
        footprint = obstacle.footprint()
        if obstacle.top > hand_floor:
            clear = _signed_distance(pts, _minkowski(footprint, hand), HAND_GAP) >= HAND_GAP
            pts, low, drop = pts[clear], low[clear], drop[clear]
        sums = _minkowski(footprint, body)
        low &= _signed_distance(pts, sums, clearance) >= clearance
        reach = _minkowski(footprint, finger)
        for side in (offset, -offset):
            low &= _signed_distance(pts + side, reach, FINGER_GAP) >= FINGER_GAP
        if box is not None:
            drop &= _signed_distance(pts, sums, drop_clearance) >= drop_clearance
            if obstacle.top > box.rim:  # the fingers pass over what is lower than the rim
                for side in (offset, -offset):
                    drop &= _signed_distance(pts + side, reach, FINGER_GAP) >= FINGER_GAP
        keep = low | drop
        pts, low, drop = pts[keep], low[keep], drop[keep]
    return pts, ~low


def _robustness(task: _Task, points: Array, yaw: float) -> Array:
    """The largest level of ``_LEVELS`` each point's relation survives in 16 directions, else 0."""
    radii = _LEVELS[:, None, None, None] + _SLACK
    ring = points[None, None, :, :] + radii * _RING[None, :, None, :]
    ok = np.asarray(_fast_holds(task, ring, yaw).all(axis=1))  # (levels, N)
    ok = np.cumprod(ok[::-1], axis=0)[::-1].astype(bool)  # level r counts if all smaller do too
    return np.where(ok.any(axis=0), _LEVELS[np.argmax(ok, axis=0)], 0.0)


def _ranked(
    task: _Task,
    obstacles: list[ObjectState],
    clearance: float,
    focus: Array,
    lookahead: int = PACK_LOOKAHEAD,
) -> list[tuple[float, float, float, float, bool]]:
    """Valid candidates ``(robustness, x, y, yaw, over_rim)``, best first: robustness, distance,
    yaw. A drop over the rim must survive :data:`DROP_SPREAD` too."""
    if task.placing.kind == "region":
        return _ranked_packed(task, obstacles, clearance, focus, lookahead)
    found: list[Array] = []
    for k, yaw in enumerate(task.yaws):
        pts, over = _clear(task, yaw, obstacles, clearance)
        ok = _fast_holds(task, pts, yaw)
        pts, over = pts[ok], over[ok]
        dist = np.round(np.linalg.norm(pts - focus, axis=1), 9)
        level = np.zeros(len(pts))
        order = np.argsort(dist, kind="stable")
        for start in range(0, len(order), _CHUNK):  # nearest first, until one is most robust
            chunk = order[start : start + _CHUNK]
            level[chunk] = _robustness(task, pts[chunk], yaw)
            if level[chunk].max() >= _LEVELS[0]:
                break
        ok = level >= np.where(over, max(MIN_ROBUSTNESS, DROP_SPREAD), MIN_ROBUSTNESS)
        columns = [-level[ok], dist[ok], np.full(ok.sum(), k), pts[ok], over[ok]]
        found.append(np.column_stack(columns))
    rows = np.concatenate(found)
    rows = rows[np.lexsort((rows[:, 2], rows[:, 1], rows[:, 0]))]  # stable: grid order last
    return [(-r[0], r[3], r[4], task.yaws[int(r[2])], bool(r[5])) for r in rows.tolist()]


def _ranked_packed(
    task: _Task, obstacles: list[ObjectState], clearance: float, focus: Array, lookahead: int
) -> list[tuple[float, float, float, float, bool]]:
    """Valid candidates ``at`` a region, best first: the room kept for up to ``lookahead``
    later objects (:func:`_room`), then robustness, distance, yaw."""
    points, kinds, levels = [], [], []
    for k, yaw in enumerate(task.yaws):
        pts, _ = _clear(task, yaw, obstacles, clearance)
        pts = pts[_fast_holds(task, pts, yaw)]
        level = _robustness(task, pts, yaw)
        ok = level >= MIN_ROBUSTNESS
        points.append(pts[ok])
        kinds.append(np.full(ok.sum(), k))
        levels.append(level[ok])
    pts, kind, level = np.concatenate(points), np.concatenate(kinds), np.concatenate(levels)
    if not len(pts):
        return []
    # Later copies are looked for on the 1 cm lattice only (of a 5 mm grid, one node in four):
    # as good a count of the room left, at a fraction of the cost.
    room = np.zeros(len(pts), dtype=np.int_)
    if lookahead:
        coarse = np.flatnonzero(_on_lattice(pts - task.anchor, task.yaws[0], GRID_STEP))
        follows = _follows(task, pts, kind, clearance, coarse)
        room = _room(follows, follows[coarse], lookahead)
    dist = np.round(np.linalg.norm(pts - focus, axis=1), 9)
    order = np.lexsort((kind, dist, -level, -room))
    return [
        (float(level[i]), float(pts[i, 0]), float(pts[i, 1]), task.yaws[int(kind[i])], False)
        for i in order
    ]


def _on_lattice(offsets: Array, yaw: float, step: float) -> Mask:
    """Which offsets are nodes of the grid ``step`` apart on axes turned by ``yaw``."""
    c, s = math.cos(yaw), math.sin(yaw)
    u = np.stack([offsets[:, 0] * c + offsets[:, 1] * s, offsets[:, 1] * c - offsets[:, 0] * s])
    return np.asarray((np.abs(u / step - np.round(u / step)) < 1e-6).all(axis=0))


def _follows(
    task: _Task, pts: Array, kind: NDArray[np.int_], clearance: float, later: NDArray[np.int_]
) -> Mask:
    """``ok[i, k]``: a copy of the held object may go to candidate ``later[k]`` once it rests at i.

    Their footprints keep ``clearance`` and the fingers releasing there clear the object at i.
    """
    ok = np.zeros((len(pts), len(later)), dtype=bool)
    for a, yaw_a in enumerate(task.yaws):
        for b, yaw_b in enumerate(task.yaws):
            ia, kb = np.flatnonzero(kind == a), np.flatnonzero(kind[later] == b)
            if not len(ia) or not len(kb):
                continue
            diff = pts[later[kb]][None, :, :] - pts[ia][:, None, :]
            body_a, body_b = _body(task, yaw_a), _body(task, yaw_b)
            fits = _signed_distance(diff, _minkowski(body_a, body_b), clearance) >= clearance
            finger = geometry.rect_corners(0.0, 0.0, yaw_b, FINGER_LENGTH / 2, FINGER_THICKNESS / 2)
            reach = _minkowski(body_a, finger)
            offset = (task.release_width + FINGER_THICKNESS) / 2
            side = offset * np.array([-math.sin(yaw_b), math.cos(yaw_b)])
            for shift in (side, -side):
                fits &= _signed_distance(diff + shift, reach, FINGER_GAP) >= FINGER_GAP
            ok[np.ix_(ia, kb)] = fits
    return ok


def _room(follows: Mask, later: Mask, cap: int) -> NDArray[np.int_]:
    """How many more copies fit after each candidate (greedily, at most ``cap``).

    ``follows[i, k]``: a copy may go to later spot k after candidate i; ``later[k, m]``: to m
    after k. Each further copy goes where it leaves the most later spots free.
    """
    room = np.zeros(len(follows), dtype=np.int_)
    for i in range(len(follows)):
        free = follows[i].copy()
        while room[i] < cap and free.any():
            idx = np.flatnonzero(free)
            k = idx[np.argmax(later[np.ix_(idx, idx)].sum(axis=1))]
            free &= later[k]
            room[i] += 1
    return room


def targets_problem(relation: str, second: bool) -> str | None:
    """Why a place ``relation`` with (``second``) or without a second target cannot be, if so:
    a relation of two targets (``between``) takes ``target`` and ``target2``, any other one."""
    related = find_relation(relation)
    if related is None or (related.targets == 2) == second:
        return None
    if second:
        return f"{related.name} takes one target; target2 is for {_two_targets()} only"
    return f"{related.name} takes two targets: target and target2"


def _two_targets() -> str:
    return " and ".join(r.name for r in relations() if r.targets == 2) or "no relation"


def _task(
    world: WorldState,
    obj: str,
    relation: str,
    target: str,
    release_width: float | None,
    target2: str | None = None,
) -> _Task:
    """Resolve the call's arguments; raises NoPlacement for requests no spot can satisfy."""
    related = find_relation(relation)
    if related is None or related.name != relation:
        allowed = ", ".join(relation_names())
        raise PredicateError(f"unknown relation {relation!r}; allowed: {allowed}")
    problem = targets_problem(relation, target2 is not None)
    if problem is not None:
        raise PredicateError(problem)
    placing = related.placing
    held = world.get(obj)
    goal: ObjectState | None = None
    second = None if target2 is None else _second_target(world, obj, target, target2)
    if related.target == "region":
        region = resolve_region(target)
        anchor, words, target = (
            np.array(region_anchor(region)),
            f"{related.words} the {region}",
            region,
        )
    else:
        goal = world.get(target)
        anchor, words = np.array(goal.xy), f"{related.words} {target}"
        if target == obj:
            raise NoPlacement(f"{obj} cannot be placed {related.words} itself")
        if second is not None:  # between: searched from the midpoint of the two
            anchor, words = (goal.xy + second.xy) / 2, f"{words} and {second.name}"
    width = float(held.half_extents[1]) * 2
    release = width + RELEASE_MARGIN if release_width is None else release_width
    bottom, yaw = world.table_z, held.yaw
    lo, hi = np.array(list(zip(PLACE_X, PLACE_Y, strict=True))) - anchor
    grid = _grid(anchor, 0.0, lo, hi, GRID_STEP)
    if goal is not None and placing.supported:
        bottom, yaw, grid = _on_support(held, placing, goal, words)
    if placing.kind == "region":
        residents = _residents(world, obj, anchor)
        if residents:  # square up to what is there already, so that the objects pack
            yaw = residents[0].yaw
        # A grid on the objects' axes, so that they pack in rows whatever their yaw.
        reach = np.full(2, AT_RADIUS)
        grid = _grid(anchor, yaw, -reach, reach, GRID_STEP)
    yaws = (yaw, math.remainder(yaw + math.pi / 2, 2 * math.pi))
    pred = Predicate(name=relation, args=(obj, target, *([] if target2 is None else [target2])))
    return _Task(
        world, held, relation, placing, goal, pred, words, anchor, bottom, yaws, grid, release,
        second,
    )  # fmt: skip


def _second_target(world: WorldState, obj: str, target: str, target2: str) -> ObjectState:
    """between's second target; raises NoPlacement where no spot lies between the two."""
    first, second = world.get(target), world.get(target2)
    if obj in (target, target2) or target == target2:
        raise NoPlacement(f"{obj} goes between two other objects, not {target} and {target2}")
    span = spatial.band(first, second)
    if span.start >= span.end:
        raise NoPlacement(f"{target} and {target2} leave no room between them")
    return second


def _on_support(
    held: ObjectState, placing: Placing, goal: ObjectState, words: str
) -> tuple[float, float, Array]:
    """(bottom, yaw, grid) on or in the target ``goal`` that carries the object; raises
    NoPlacement where it cannot."""
    obj, target, width = held.name, goal.name, float(held.half_extents[1]) * 2
    if placing.kind == "contain" and goal.type != "box":
        raise NoPlacement(f"{target} is not a box; only boxes hold things")
    if held.type == "box":
        raise NoPlacement(f"boxes go on the table only: {obj} cannot go {words}")
    rect, bottom = _Rect.of(goal.footprint()), goal.top
    if goal.inner_half_width is not None:
        rect = _Rect.of(goal.inner_footprint())
        bottom = goal.bottom + objects.BOX_FLOOR_THICKNESS
        if float(max(held.half_extents[:2])) >= rect.hx:
            raise NoPlacement(
                f"{obj} ({width * 100:.1f} cm) does not fit in {target} "
                f"({2 * rect.hx * 100:.1f} cm inside)"
            )
    half = np.array([rect.hx, rect.hy])
    return bottom, goal.yaw, _grid(np.array(rect[:2]), rect.yaw, -half, half, SUPPORT_GRID_STEP)


def _residents(world: WorldState, obj: str, anchor: Array) -> list[ObjectState]:
    """The objects but ``obj`` whose centre is ``at`` the region with this anchor, nearest first."""
    found = [
        (float(np.linalg.norm(o.xy - anchor)), o)
        for o in world.objects.values()
        if o.name != obj and float(np.linalg.norm(o.xy - anchor)) <= AT_RADIUS
    ]
    return [o for _, o in sorted(found, key=lambda pair: pair[0])]


def _grid(origin: Array, yaw: float, lo: Array, hi: Array, step: float) -> Array:
    """Grid nodes ``step`` apart on axes turned by ``yaw`` about ``origin``, offsets in [lo, hi]."""
    i, j = (
        np.arange(math.ceil(a / step - 1e-9), b / step + 1e-9) for a, b in zip(lo, hi, strict=True)
    )
    u, v = (k.ravel() * step for k in np.meshgrid(i, j, indexing="ij"))
    c, s = math.cos(yaw), math.sin(yaw)
    return np.stack([origin[0] + u * c - v * s, origin[1] + u * s + v * c], axis=1)


def _obstacles(task: _Task) -> list[ObjectState]:
    """Objects the placed object and the fingers must keep clear of."""
    skip = {task.held.name}
    if task.placing.supported and task.target is not None:
        skip.add(task.target.name)
    return [
        o
        for o in task.world.objects.values()
        if o.name not in skip and o.top > task.bottom + HEIGHT_TOLERANCE
    ]


def _failure(task: _Task, clearance: float) -> str:
    """Why no candidate survived, in one line."""
    if task.placing.supported and task.target is not None:
        on = task.relation
        residents = [
            o.name
            for o in task.world.objects.values()
            if o.name not in (task.held.name, task.target.name)
            and evaluate(Predicate(name=on, args=(o.name, task.target.name)), task.world).holds
        ]
        if residents:
            verb = "is" if len(residents) == 1 else "are"
            return f"no free spot {task.words}: {', '.join(residents)} {verb} {on} it"
    if task.placing.kind == "region":
        near = {o.name for o in _residents(task.world, task.held.name, task.anchor)}
        there = [name for name in task.world.objects if name in near]  # in scene order
        if there:
            verb = "is" if len(there) == 1 else "are"
            return f"no free spot {task.words}: {', '.join(there)} {verb} there"
    if not _ranked(task, [], clearance, task.anchor):
        if task.placing.supported:
            cm = f"{MIN_ROBUSTNESS * 100:.1f} cm"
            return f"no spot {task.words} where {task.held.name} stays if it lands {cm} off"
        return f"no free spot {task.words} within reach"
    return f"no free spot {task.words} clear of the other objects"


def holds_with_margin(
    world: WorldState,
    obj: str,
    relation: str,
    target: str,
    points: Array,
    margin: float,
    *,
    target2: str | None = None,
) -> Mask:
    """Whether ``relation(obj, target[, target2])`` holds with ``obj`` resting on the table at
    each of ``points`` (N, 2), turned as it is now, and ``margin`` (m) from there in 16
    directions: the search's vectorised mirror of the predicate (for a relation of ``on``/``in``,
    on the target).

    Raises:
        PredicateError: Unknown relation, or a target2 that does not fit it.
        UnknownObjectError: ``obj`` or a target names no object.
        NoPlacement: The request cannot hold anywhere (``obj`` is its own target, ...).
    """
    task = _task(world, obj, relation, target, None, target2)
    yaw, pts = task.held.yaw, np.asarray(points, dtype=np.float64).reshape(-1, 2)
    ring = pts[:, None, :] + (margin + _SLACK) * _RING[None, :, :]
    return np.asarray(_fast_holds(task, pts, yaw) & _fast_holds(task, ring, yaw).all(axis=1))


def find_placement(
    world: WorldState,
    obj: str,
    relation: str,
    target: str,
    *,
    target2: str | None = None,
    clearance: float = CLEARANCE,
    release_width: float | None = None,
    preferred: tuple[float, float] | None = None,
    lookahead: int = PACK_LOOKAHEAD,
) -> Placement:
    """Choose where to put ``obj`` so that ``relation(obj, target)`` (``relation(obj, target,
    target2)``) holds.

    Args:
        world: The current world; where ``obj`` is now does not matter (it moves).
        obj: The object to place.
        relation: A relation's name (:func:`~claw.envs.relations.relation_names`).
        target: An object name, or a region name for ``at``.
        target2: The second object of a relation of two targets (``between``): the object goes
            between ``target`` and ``target2``; ``None`` for every other relation.
        clearance: Least gap (m) between the object's footprint and any other object
            (the target of ``on``/``in`` excepted).
        release_width: Opening of the claw (m) between the pads at release; the object's width
            plus :data:`RELEASE_MARGIN` when ``None``.
        preferred: Among equally robust spots, take the one nearest this (x, y);
            else the one nearest the target (or the region's anchor).
        lookahead: ``at`` a region, rank spots by the room they leave for this many more
            objects like it (0: only whether a spot exists matters, at a fraction of the cost).

    Returns:
        The most robust valid spot (robustness quantised to :data:`ROBUSTNESS_STEP`).

    Raises:
        NoPlacement: No spot satisfies the relation clear of the other objects; says why.
        UnknownObjectError: ``obj`` or ``target`` names no object.
        PredicateError: ``target`` names no region (for ``at``), or ``target2`` is missing
            for a relation of two targets or given for one of one.
    """
    task = _task(world, obj, relation, target, release_width, target2)
    focus = task.anchor if preferred is None else np.asarray(preferred, dtype=np.float64)
    tasks = [task]
    if (
        task.placing.kind == "region"
    ):  # where the 1 cm grid finds nothing, a 5 mm one (a sliver beside a box)
        yaw, reach = task.yaws[0], np.full(2, AT_RADIUS)
        tasks.append(replace(task, grid=_grid(task.anchor, yaw, -reach, reach, FINE_GRID_STEP)))
    for attempt in tasks:
        ranked = _ranked(attempt, _obstacles(task), clearance, focus, lookahead)
        for robustness, x, y, yaw, over_rim in ranked:
            landings = [(x, y)] + [(x + dx, y + dy) for dx, dy in robustness * _VERIFY_RING]
            if all(task.holds(px, py, yaw) for px, py in landings):  # the real predicate agrees
                return Placement(x, y, yaw, task.bottom, float(robustness), over_rim)
    raise NoPlacement(_failure(task, clearance))
