"""The checks of the predicates that are not relations: ``stacked`` and ``tower`` (objects on
one another), ``holding`` (an object in a claw, or in one arm's) and ``level`` (an object's
top face horizontal), on a :class:`WorldState`.

:mod:`claw.envs.predicates` parses and evaluates them (docs/reference/predicates.md).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from claw.envs.spatial import Check, cm, off_table, rests_on
from claw.envs.state import GripperState, ObjectState, WorldState

HOLD_HEIGHT = 0.03  # least height of a held object's bottom above the table
HOLD_AXIS_DISTANCE = 0.03  # most distance of a held object's centre from the line between the pads
HOLD_INSIDE_TOLERANCE = 0.005  # m the point between the pads may lie outside a held object
LEVEL_TOLERANCE = 3.0  # degrees: the most a level object's top face tilts from horizontal


def stacked(world: WorldState, *objs: ObjectState) -> Check:
    """``stacked(a, b, ...)``: one tower, in any order: each but the lowest on the one below."""
    required = len(objs) - 1
    if len({o.name for o in objs}) < len(objs):
        return Check(False, {"levels": 0.0, "required": float(required)}, "repeated object")
    lowest_first = sorted(objs, key=lambda o: o.bottom)
    levels = 0
    failure = ""
    for lower, upper in itertools.pairwise(lowest_first):
        check = rests_on(upper, lower)
        if check.holds:
            levels += 1
        elif not failure:
            failure = check.reason
    measured = {"levels": float(levels), "required": float(required)}
    if failure:
        return Check(False, measured, f"{levels}/{required} levels stacked; {failure}")
    return Check(True, measured, f"{' on '.join(o.name for o in reversed(lowest_first))}")


def holding(world: WorldState, a: ObjectState, arm: str | None = None) -> Check:
    """``holding(a)``: some claw holds a; ``holding(a, arm)``: that arm's claw does.

    A claw holds a when a touches both its fingers, lies between its pads, above the table.
    """
    if arm is not None and world.grippers and arm not in world.grippers:
        arms = ", ".join(world.grippers)
        return Check(False, {}, f"the scene has no {arm} arm (its arms: {arms})")
    if arm is not None and world.grippers:
        return claw_holds(world, a, world.grippers[arm])
    claws: list[GripperState | None] = [*world.grippers.values()] or [world.gripper]
    checks = [claw_holds(world, a, gripper) for gripper in claws]
    held = next((c for c in checks if c.holds), None)
    if held is not None or len(checks) == 1:
        return held or checks[0]
    height = {"bottom_height": checks[0].measured["bottom_height"]}
    return Check(False, height, f"{a.name} is in neither claw")


def claw_holds(world: WorldState, a: ObjectState, gripper: GripperState | None) -> Check:
    """Whether ``gripper`` holds ``a``: a touches both fingers, lies between the pads (its
    centre near the line between them; for an elongated object, or the point midway between
    them inside it), above the table."""
    height = a.bottom - world.table_z
    measured = {"bottom_height": height}
    if gripper is None:
        return Check(False, measured, "no gripper state")
    axis = gripper.right_tip - gripper.left_tip
    rel = a.position - gripper.left_tip
    t = float(rel @ axis / max(float(axis @ axis), 1e-18))
    off_axis = float(np.linalg.norm(rel - t * axis))
    measured.update(between=t, off_axis=off_axis)
    missing = [
        side
        for side, contacts in (("left", gripper.left_contacts), ("right", gripper.right_contacts))
        if a.name not in contacts
    ]
    if missing:
        return Check(False, measured, f"{a.name} does not touch the {' and '.join(missing)} finger")
    centred = 0.0 <= t <= 1.0 and off_axis <= HOLD_AXIS_DISTANCE
    midway = (gripper.left_tip + gripper.right_tip) / 2
    if not centred and not (_elongated(a) and _inside(a, midway)):
        return Check(False, measured, f"{a.name} is not between the finger pads")
    if height < HOLD_HEIGHT:
        return Check(
            False,
            measured,
            f"{a.name}'s bottom is {cm(height)} above the table (< {cm(HOLD_HEIGHT)})",
        )
    return Check(True, measured, f"{a.name} is held {cm(height)} above the table")


def _elongated(a: ObjectState) -> bool:
    """True when ``a`` is at least twice as long as it is wide (a bar, held anywhere along it)."""
    return bool(max(a.half_extents[:2]) >= 2 * min(a.half_extents[:2]))


def _inside(a: ObjectState, point: np.ndarray) -> bool:
    """True when ``point`` lies within ``a``'s bounds (a long object held away from its
    centre has the point between the pads inside it)."""
    local = a.rotation.T @ (point - a.position)
    return bool(np.all(np.abs(local) <= a.half_extents + HOLD_INSIDE_TOLERANCE))


def tower(world: WorldState, base: ObjectState, *above: ObjectState) -> Check:
    """``tower(a, b, ...)``: a rests on the table and each next object on the one before."""
    objs = (base, *above)
    measured = {"levels": 0.0, "required": float(len(above))}
    if len({o.name for o in objs}) < len(objs):
        return Check(False, measured, "repeated object")
    why_not = off_table(base, world)
    if why_not is not None:
        return Check(False, measured, f"the base: {why_not}")
    for lower, upper in itertools.pairwise(objs):
        check = rests_on(upper, lower)
        if not check.holds:
            done = f"{measured['levels']:g}/{len(above)} levels in order"
            return Check(False, measured, f"{done}; {check.reason}")
        measured["levels"] += 1
    return Check(True, measured, f"{' on '.join(o.name for o in reversed(objs))} on the table")


def level(world: WorldState, a: ObjectState) -> Check:
    """``level(a)``: a's top face is horizontal within LEVEL_TOLERANCE degrees."""
    up = float(np.clip(a.rotation[2, 2], -1.0, 1.0))  # a's z axis, in world z
    tilt = math.degrees(math.acos(up))
    measured = {"tilt_deg": tilt}
    if tilt > LEVEL_TOLERANCE:
        return Check(False, measured, f"{a.name} tilts {tilt:.1f} deg (> {LEVEL_TOLERANCE:g} deg)")
    return Check(True, measured, f"{a.name} is level within {tilt:.1f} deg")
