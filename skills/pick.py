"""``pick``: approach from above, grasp by friction between the fingers, lift."""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import ClassVar

import numpy as np

from claw.envs import geometry, objects
from claw.envs.geometry import wrap_angle
from claw.envs.predicates import Predicate, evaluate
from claw.envs.regions import in_reach
from claw.envs.robot import (
    GRASP_MARGIN,
    HAND_ABOVE_TCP,
    HAND_HALF_EXTENTS,
    MAX_HALF_OPENING,
    MIN_TCP_HEIGHT,
    PAD_CLEARANCE,
    PAD_REACH,
)
from claw.envs.state import ObjectState, WorldState
from claw.envs.tabletop import TabletopEnv
from claw.envs.world import held_object, supported_by
from claw.skills.base import ObjectName, Skill, SkillParams, SkillResult
from claw.skills.basic import result
from claw.skills.motion import Claw
from claw.skills.registry import register_skill

MAX_GRASP_WIDTH = 2 * MAX_HALF_OPENING + PAD_CLEARANCE - 0.015  # leave room to open around it
FINGER_FOOTPRINT = (0.011, 0.008)  # half extents (m) of a finger seen from above, face-on
APPROACH_CLEARANCE = 0.06  # m above everything when moving across the table
TIGHT_GRASP_MARGIN = 0.014  # m opened beyond it where the wider opening has no room (in a box)
FINGER_GAP = 0.004  # m kept between an open finger and anything it must not touch
# m: the longest object one claw lifts. A rule, not the physics (a claw at a bar's middle
# holds it level here): a long object is lifted with both arms (lift_together), as real long or
# heavy parts are.
ONE_CLAW_LENGTH = 0.12


def safe_height(
    world: WorldState, exclude: str | None = None, elsewhere: Collection[str] = ()
) -> float:
    """Tool height (m) at which the open claw passes over every object but ``exclude`` and
    those ``elsewhere`` (another arm's lane works with them, a band of the table away)."""
    tops = [o.top for o in world.objects.values() if o.name != exclude and o.name not in elsewhere]
    return max([0.0, *tops]) + PAD_REACH + APPROACH_CLEARANCE


def finger_footprints(x: float, y: float, yaw: float, width: float) -> list[np.ndarray]:
    """Footprints of the two fingers of a claw at (x, y, yaw) opened to ``width`` (m)."""
    hx, hy = FINGER_FOOTPRINT
    offset = width / 2 + hy
    # The fingers close along the tool's y axis: (-sin yaw, cos yaw) in the table plane.
    ax, ay = -math.sin(yaw), math.cos(yaw)
    return [
        geometry.rect_corners(x + side * offset * ax, y + side * offset * ay, yaw, hx, hy)
        for side in (1.0, -1.0)
    ]


def box_walls(box: ObjectState) -> list[np.ndarray]:
    """Footprints of a box's four walls (its floor lies under whatever it holds)."""
    assert box.inner_half_width is not None
    w, t = box.inner_half_width, objects.BOX_WALL_THICKNESS
    c, s = math.cos(box.yaw), math.sin(box.yaw)
    x, y = float(box.xy[0]), float(box.xy[1])
    walls = []
    for u, v, hx, hy in ((w + t / 2, 0.0, t / 2, w + t), (0.0, w + t / 2, w + t, t / 2)):
        for sign in (1.0, -1.0):
            cx, cy = x + sign * (u * c - v * s), y + sign * (u * s + v * c)
            walls.append(geometry.rect_corners(cx, cy, box.yaw, hx, hy))
    return walls


def finger_obstacles(world: WorldState, obj: ObjectState) -> list[tuple[str, np.ndarray]]:
    """What the open fingers descending to ``obj`` could hit: ``(name, footprint)`` pairs.

    Every other object standing higher than the object's bottom (the fingers reach down beside
    it), except that a box the object stands in counts only by its walls: its floor is below.
    """
    found: list[tuple[str, np.ndarray]] = []
    for other in world.objects.values():
        if other.name == obj.name or other.top <= obj.bottom + 0.005:
            continue
        holds_it = (
            other.inner_half_width is not None
            and evaluate(Predicate.of("in", obj.name, other.name), world).holds
        )
        if holds_it:
            found.extend((f"{other.name}'s wall", wall) for wall in box_walls(other))
        else:
            found.append((other.name, other.footprint()))
    return found


def grasp_height(obj: ObjectState) -> float:
    """Tool height (m) at which the pads close on ``obj``: mid-way up its lower part."""
    return max(obj.bottom + min(obj.top - obj.bottom, object_width(obj)) / 2, MIN_TCP_HEIGHT)


def grasp_collisions(world: WorldState, obj: ObjectState, yaw: float, width: float) -> list[str]:
    """What the claw grasping ``obj`` at ``yaw``, opened to ``width``, would hit on the way down.

    The open fingers must clear :func:`finger_obstacles`; the hand above them must clear objects
    taller than its underside at the grasp.
    """
    x, y = float(obj.position[0]), float(obj.position[1])
    fingers = finger_footprints(x, y, yaw, width)
    hit = [
        name
        for name, footprint in finger_obstacles(world, obj)
        if any(geometry.polygon_gap(f, footprint) < FINGER_GAP for f in fingers)
    ]
    hand = geometry.rect_corners(x, y, yaw, *HAND_HALF_EXTENTS)
    hand_floor = grasp_height(obj) + HAND_ABOVE_TCP
    tall = [o for o in world.objects.values() if o.name != obj.name and o.top > hand_floor]
    hit += [
        o.name
        for o in tall
        if o.name not in hit and geometry.polygon_gap(hand, o.footprint()) < FINGER_GAP
    ]
    return hit


def grasp_yaw(world: WorldState, obj: ObjectState, width: float, current: float) -> float | None:
    """The claw yaw (fingers on two faces of ``obj``) at which the claw clears the neighbours.

    Of the clear ones, the yaw nearest ``current``; ``None`` when neither pair of faces is clear.
    """
    clear = [yaw for yaw in _face_yaws(obj) if not grasp_collisions(world, obj, yaw, width)]
    return min(clear, key=lambda yaw: abs(wrap_angle(yaw - current)), default=None)


def _face_yaws(obj: ObjectState) -> list[float]:
    """The two claw yaws that put the fingers on a pair of opposite faces (within ±90°)."""
    yaws = [wrap_angle(obj.yaw + k * math.pi / 2) for k in range(4)]
    return [yaw for yaw in yaws if abs(yaw) <= math.pi / 2 + 1e-9]  # symmetric under a half turn


def crowding(world: WorldState, obj: ObjectState, width: float) -> str:
    """Why no grasp fits: what each pair of faces' claw would hit, in one phrase."""
    hit: list[str] = []
    for yaw in _face_yaws(obj):
        hit += [name for name in grasp_collisions(world, obj, yaw, width) if name not in hit]
    return ", ".join(hit)


def object_width(obj: ObjectState) -> float:
    """The object's width between two opposite faces (m)."""
    return 2.0 * float(min(obj.half_extents[0], obj.half_extents[1]))


def object_length(obj: ObjectState) -> float:
    """The object's longest side seen from above (m)."""
    return 2.0 * float(max(obj.half_extents[0], obj.half_extents[1]))


class PickParams(SkillParams):
    object: ObjectName


@register_skill
class Pick(Skill[PickParams]):
    name = "pick"
    max_length: ClassVar[float] = ONE_CLAW_LENGTH
    """The longest object (m, its longest side seen from above) one claw holds alone."""
    description = (
        "Pick up an object: approach it from above, grasp it by friction between the claw's "
        "two fingers, and lift it off the table."
    )
    examples = (
        "pick up the red block",
        "grab the cube",
        "lift the green block",
        "take it",
        "grasp the block",
        "seize the cube",
        "get the block off the table",
        "raise the cube up",
        "hold the block in the claw",
        "collect the cube",
    )

    length_of = staticmethod(object_length)
    """An object's longest side seen from above (m), as :attr:`max_length` measures it."""

    def preconditions(self, env: TabletopEnv, params: PickParams) -> list[str]:
        problems = super().preconditions(env, params)
        if problems:
            return problems
        world = env.world_state()
        obj = world.get(params.object)
        held = held_object(world)
        if held == obj.name:
            return [f"{obj.name} is already held"]
        if held is not None:
            return [f"the claw already holds {held}; place it first"]
        if obj.type == "box" or object_width(obj) > MAX_GRASP_WIDTH:
            return [
                f"{obj.name} is too wide for the claw ({object_width(obj) * 100:.1f} cm; "
                f"it grasps up to {MAX_GRASP_WIDTH * 100:.1f} cm)"
            ]
        if object_length(obj) > ONE_CLAW_LENGTH:
            both = "lift it with both arms (lift_together)"
            if len(env.arms.arms) < 2:  # lift_together is offered where there are two arms
                both = "a scene with two arms lifts it with both (lift_together)"
            return [
                f"{obj.name} is {object_length(obj) * 100:.0f} cm long; one claw lifts up to "
                f"{ONE_CLAW_LENGTH * 100:.0f} cm: {both}"
            ]
        above = supported_by(world, obj.name)
        if above:
            return [f"{', '.join(above)} is on {obj.name}; move it first"]
        if not in_reach(obj.position[0], obj.position[1], env.arm_base()):
            return [f"{obj.name} is out of reach at ({obj.position[0]:.2f}, {obj.position[1]:.2f})"]
        return []

    def execute(self, env: TabletopEnv, params: PickParams) -> SkillResult:
        claw = Claw(env)
        world = env.world_state()
        obj = world.get(params.object)
        width = object_width(obj)
        yaw = None
        for margin in (GRASP_MARGIN, TIGHT_GRASP_MARGIN):  # a narrower opening where crowded
            open_width = min(width + margin, MAX_GRASP_WIDTH + 0.015)
            yaw = grasp_yaw(world, obj, open_width, claw.tcp()[1])
            if yaw is not None:
                break
        if yaw is None:
            return result(
                self,
                claw,
                False,
                f"no room for the fingers around {obj.name}: "
                f"{crowding(world, obj, open_width)} too close on every side",
            )
        x, y = float(obj.position[0]), float(obj.position[1])
        travel = safe_height(world, elsewhere=env.arms.others_busy)
        grasp_z = grasp_height(obj)

        start = claw.tcp()[0]
        if start[2] < travel:
            claw.move(np.array([start[0], start[1], travel]))
        claw.open(open_width)
        if not claw.move(np.array([x, y, travel]), yaw).reached:
            return result(self, claw, False, f"could not reach above {obj.name}")
        claw.move(np.array([x, y, grasp_z]), yaw, speed=0.3)
        grip = claw.close()
        left, right = claw.finger_contacts()
        if obj.name not in left or obj.name not in right:
            claw.open(open_width)
            claw.move(np.array([x, y, travel]), yaw)
            return result(self, claw, False, f"grasp missed {obj.name}", grip_width=grip)
        claw.move(np.array([x, y, travel]), yaw, speed=0.3)
        claw.wait(0.1)
        settled = claw.wait_settled(arm=True)
        check = evaluate(Predicate.of("holding", obj.name, env.arms.current), env.world_state())
        if not check.holds:
            reason = f"{obj.name} slipped during lift ({check.reason})"
        else:
            reason = f"the scene did not come to rest after lifting {obj.name}"
        return result(self, claw, check.holds and settled, reason, grip_width=round(grip, 5))
