"""``push``: slide an object along the table with the closed claw, without lifting it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from pydantic import Field

from claw.envs import geometry
from claw.envs.geometry import wrap_angle
from claw.envs.regions import in_reach
from claw.envs.robot import MIN_TCP_HEIGHT, PAD_CLEARANCE
from claw.envs.spatial import extent_along
from claw.envs.state import ObjectState, WorldState
from claw.envs.tabletop import TabletopEnv
from claw.envs.world import held_object
from claw.skills.base import ObjectName, Skill, SkillParams, SkillResult
from claw.skills.basic import result
from claw.skills.motion import Claw
from claw.skills.pick import FINGER_FOOTPRINT, finger_footprints, safe_height
from claw.skills.registry import register_skill

Direction = Literal["left", "right", "far", "near"]
DIRECTIONS: dict[str, tuple[float, float]] = {
    "left": (0.0, 1.0),
    "right": (0.0, -1.0),
    "far": (1.0, 0.0),
    "near": (-1.0, 0.0),
}
TOLERANCE = 0.02  # m: success when the object ends this close to where it was asked to go
MAX_DISTANCE = 0.3  # m: the longest push one call makes
PATH_CLEARANCE = 0.01  # m kept from other objects along the way
STANDOFF = 0.015  # m between the claw and the object before the push starts
SEGMENT = 0.03  # m pushed between corrections of the claw's line
PUSH_SPEED = 0.12  # m/s
RECENTRE = 0.008  # m the object may sit off the pusher's centre before the claw re-centres
MAX_STEER = math.radians(25)  # the push turns at most this far from its direction to steer


def _convex_hull(points: np.ndarray) -> np.ndarray:
    """Counter-clockwise convex hull (monotone chain) of 2-D points."""
    pts = sorted(map(tuple, points))

    def half(seq: list[tuple[float, float]]) -> list[tuple[float, float]]:
        out: list[tuple[float, float]] = []
        for p in seq:
            while (
                len(out) >= 2
                and (
                    (out[-1][0] - out[-2][0]) * (p[1] - out[-2][1])
                    - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])
                )
                <= 0
            ):
                out.pop()
            out.append(p)
        return out

    lower, upper = half(pts), half(pts[::-1])
    return np.array(lower[:-1] + upper[:-1])


@dataclass(frozen=True)
class PushPlan:
    """Where the claw stands and how it turns to push an object along ``direction``."""

    direction: np.ndarray  # unit vector in the table plane
    yaw: float  # claw yaw: the pusher's face flush with the object's face
    back: float  # distance (m) along ``direction`` from the object's centre to the claw's
    gap: float  # opening between the pads (m): two fingers, closer than the object is wide

    def pusher(self, xy: np.ndarray) -> list[np.ndarray]:
        """Footprints of the two fingers with the claw at ``xy``."""
        return finger_footprints(float(xy[0]), float(xy[1]), self.yaw, self.gap)


def plan_push(obj: ObjectState, direction: str) -> PushPlan:
    """Push squarely along ``direction``: the claw's fingers side by side across it."""
    u = np.array(DIRECTIONS[direction])
    # The claw's x axis is the pusher's face normal: yaw = the direction's angle (mod pi).
    yaw = wrap_angle(math.atan2(u[1], u[0]))
    if abs(yaw) > math.pi / 2:
        yaw = wrap_angle(yaw + math.pi)
    width = 2 * float(min(obj.half_extents[:2]))
    return PushPlan(
        direction=u,
        yaw=yaw,
        back=extent_along(obj, u) + FINGER_FOOTPRINT[0],
        gap=max(PAD_CLEARANCE, width - 0.012),
    )


def obstacle(world: WorldState, obj: ObjectState, plan: PushPlan, goal: np.ndarray) -> str | None:
    """The first other object in the way of the object's slide or of the claw pushing it."""
    start = obj.footprint()
    paths = [_convex_hull(np.concatenate([start, start + (goal - obj.xy)]))]
    claw_start = obj.xy - (plan.back + STANDOFF) * plan.direction
    claw_end = goal - plan.back * plan.direction
    for a, b in zip(plan.pusher(claw_start), plan.pusher(claw_end), strict=True):
        paths.append(_convex_hull(np.concatenate([a, b])))
    for other in world.objects.values():
        if other.name == obj.name or other.bottom > obj.top:
            continue
        footprint = other.footprint()
        if any(geometry.polygon_gap(path, footprint) < PATH_CLEARANCE for path in paths):
            return other.name
    return None


def push_problem(
    world: WorldState,
    obj: ObjectState,
    direction: str,
    distance: float,
    base: tuple[float, float] = (0.0, 0.0),
) -> str | None:
    """Why ``obj`` cannot be pushed ``distance`` along ``direction`` from where it is by the arm
    standing at ``base`` (its goal out of reach, something in the way of it or of the claw), or
    ``None``."""
    goal = obj.xy + distance * np.array(DIRECTIONS[direction])
    if not in_reach(float(goal[0]), float(goal[1]), base):
        return f"target out of reach: {obj.name} would end at ({goal[0]:.2f}, {goal[1]:.2f})"
    blocker = obstacle(world, obj, plan_push(obj, direction), goal)
    if blocker is not None:
        return f"{blocker} is in the way of pushing {obj.name} {direction}"
    return None


def _limit_angle(vector: np.ndarray, axis: np.ndarray, limit: float) -> np.ndarray:
    """The unit vector along ``vector``, turned towards ``axis`` to within ``limit`` rad of it."""
    angle = math.atan2(axis[0] * vector[1] - axis[1] * vector[0], float(axis @ vector))
    angle = min(max(angle, -limit), limit)
    c, s = math.cos(angle), math.sin(angle)
    return np.array([c * axis[0] - s * axis[1], s * axis[0] + c * axis[1]])


def push_outcome(
    name: str,
    direction: str,
    start: np.ndarray,
    final: np.ndarray,
    goal: np.ndarray,
    settled: bool = True,
) -> tuple[bool, str, dict[str, float]]:
    """Whether a push of ``name`` ended within ``TOLERANCE`` of its goal, why not, how far.

    Every push is judged by this (the controller, the learned push, and ``claw eval``'s
    ``expect_push``): ``start`` and ``final`` are the object's measured (x, y), ``goal`` where it
    was asked to go; ``settled`` says whether the scene came to rest before ``final`` was read
    (a push that leaves things moving is not a success, wherever the object is at that moment).
    """
    u = np.array(DIRECTIONS[direction])
    moved = np.asarray(final, dtype=float) - np.asarray(start, dtype=float)
    along, across = float(moved @ u), float(moved @ np.array([-u[1], u[0]]))
    miss = float(np.linalg.norm(np.asarray(final, dtype=float) - np.asarray(goal, dtype=float)))
    if not settled:
        reason = f"the scene did not come to rest after pushing {name}"
    else:
        reason = (
            f"{name} moved {along * 100:.1f} cm {direction} and {abs(across) * 100:.1f} "
            f"cm sideways, {miss * 100:.1f} cm from where it was asked to go"
        )
    details = {
        "along": round(along, 4),
        "across": round(across, 4),
        "miss": round(miss, 4),
        "tolerance": TOLERANCE,
    }
    return settled and miss <= TOLERANCE, reason, details


class PushParams(SkillParams):
    object: ObjectName
    direction: Direction = Field(description="left (+y), right (-y), far (+x) or near (-x).")
    distance: float = Field(gt=0.0, le=MAX_DISTANCE, description="How far to push it (m).")


@register_skill
class Push(Skill[PushParams]):
    name = "push"
    measures_own_success = True
    success_tolerance: ClassVar[float] = TOLERANCE
    directions: ClassVar[Mapping[str, tuple[float, float]]] = DIRECTIONS
    """Each direction a push goes, as a unit vector in the table's xy."""
    max_distance: ClassVar[float] = MAX_DISTANCE
    """The longest push (m) one call makes."""
    description = (
        "Push an object along the table in a direction (left, right, far, near) by a distance, "
        "sliding it with the closed claw without lifting it."
    )
    examples = (
        "push the red block to the left",
        "slide the cube 10 cm forward",
        "nudge it right",
        "shove the block",
        "drag it along the table",
        "slide it away from you without lifting it",
        "sweep the cube toward the robot",
        "bump the block a little further",
    )

    problem = staticmethod(push_problem)
    """Why an object cannot be pushed a distance along a direction from where it is
    (:func:`claw.skills.push.push_problem`), or ``None``."""

    def preconditions(self, env: TabletopEnv, params: PushParams) -> list[str]:
        problems = super().preconditions(env, params)
        if problems:
            return problems
        world = env.world_state()
        obj = world.get(params.object)
        held = held_object(world)
        if held is not None:
            return [f"the claw holds {held}; place it before pushing"]
        problem = push_problem(world, obj, params.direction, params.distance, env.arm_base())
        return [] if problem is None else [problem]

    def execute(self, env: TabletopEnv, params: PushParams) -> SkillResult:
        claw = Claw(env)
        world = env.world_state()
        obj = world.get(params.object)
        plan = plan_push(obj, params.direction)
        u, yaw, back = plan.direction, plan.yaw, plan.back
        normal = np.array([-u[1], u[0]])
        start_xy = obj.xy.copy()
        goal_xy = start_xy + params.distance * u
        height = max(MIN_TCP_HEIGHT, obj.bottom + 0.5 * (obj.top - obj.bottom))
        height = min(height, obj.top - 0.005)
        travel = safe_height(world, elsewhere=env.arms.others_busy)

        claw.grip(plan.gap)
        here = claw.tcp()[0]
        claw.move(np.array([here[0], here[1], max(here[2], travel)]))
        approach = np.array([*(start_xy - (back + STANDOFF) * u), height])
        claw.move(np.array([approach[0], approach[1], travel]), yaw)
        if not claw.move(approach, yaw, speed=0.3).reached:
            claw.move(np.array([approach[0], approach[1], travel]), yaw)
            return result(self, claw, False, f"could not get the claw down behind {obj.name}")

        for _ in range(2 * int(params.distance / SEGMENT) + 10):
            current = env.world_state().get(obj.name).xy
            to_goal = goal_xy - current
            if float(to_goal @ u) < 0.003:
                break
            # Move the pusher towards the goal: a flush contact drags the object along with it,
            # which steers out sideways drift. Re-centre if the object slides along the pusher.
            aim = _limit_angle(to_goal, u, MAX_STEER)
            tcp_xy = claw.tcp()[0][:2]
            offset = float((current - tcp_xy) @ normal)
            recentre = (offset - min(max(offset, -RECENTRE), RECENTRE)) * normal
            step = min(SEGMENT, float(np.linalg.norm(to_goal)))
            target_xy = tcp_xy + step * aim + recentre
            claw.move(np.array([*target_xy, height]), yaw, speed=PUSH_SPEED, settle_time=0.2)
        claw.grip(plan.gap + 0.02)  # let go of a corner wedged between the fingers
        retreat = claw.tcp()[0][:2] - 0.03 * u
        claw.move(np.array([retreat[0], retreat[1], height]), yaw, speed=0.2)
        end = claw.tcp()[0]
        claw.move(np.array([end[0], end[1], travel]), yaw)
        settled = claw.wait_settled(arm=True)

        final = env.world_state().get(obj.name).xy
        success, reason, details = push_outcome(
            obj.name, params.direction, start_xy, final, goal_xy, settled
        )
        return result(self, claw, success, reason, **details)
