"""The checks of the predicates that are not relations: ``stacked`` and ``tower`` (objects on
one another) and ``holding`` (an object in the claw), on a :class:`WorldState`.

:mod:`claw.envs.predicates` parses and evaluates them (README, "Predicates").
"""

from __future__ import annotations

import itertools

import numpy as np

from claw.envs.spatial import Check, cm, off_table, rests_on
from claw.envs.state import ObjectState, WorldState

HOLD_HEIGHT = 0.03  # least height of a held object's bottom above the table
HOLD_AXIS_DISTANCE = 0.03  # most distance of a held object's centre from the line between the pads


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


def holding(world: WorldState, a: ObjectState) -> Check:
    """``holding(a)``: a touches both fingers, lies between the pads, above the table."""
    height = a.bottom - world.table_z
    measured = {"bottom_height": height}
    gripper = world.gripper
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
    if not 0.0 <= t <= 1.0 or off_axis > HOLD_AXIS_DISTANCE:
        return Check(False, measured, f"{a.name}'s centre is not between the finger pads")
    if height < HOLD_HEIGHT:
        return Check(
            False,
            measured,
            f"{a.name}'s bottom is {cm(height)} above the table (< {cm(HOLD_HEIGHT)})",
        )
    return Check(True, measured, f"{a.name} is held {cm(height)} above the table")


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
