"""``lift_together``: both claws grasp a long object near its ends and raise it level.

Each arm takes the end nearer its base, its fingers closing across the object; the two claws
descend, close and rise in lockstep (:meth:`~claw.envs.TabletopEnv.parallel`), along paths of
the same length and speed, so the object stays level as it rises.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
from pydantic import Field

from claw.envs.geometry import polygon_gap, wrap_angle
from claw.envs.predicates import Predicate, evaluate, held_objects
from claw.envs.robot import GRASP_MARGIN
from claw.envs.state import ObjectState
from claw.envs.tabletop import TabletopEnv
from claw.envs.world import supported_by
from claw.skills.base import ObjectName, Skill, SkillParams, SkillResult
from claw.skills.basic import arms_result, two_arm_problem
from claw.skills.motion import Claw
from claw.skills.pick import (
    FINGER_GAP,
    finger_footprints,
    finger_obstacles,
    grasp_height,
    object_length,
    object_width,
    safe_height,
)
from claw.skills.registry import register_skill

END_MARGIN = 0.04  # m from each end to where a claw's pads close
MIN_LENGTH = 0.16  # m: the shortest object two claws grasp side by side
LIFT_SPEED = 0.15  # m/s, peak speed of the joint lift


class LiftTogetherParams(SkillParams):
    object: ObjectName
    height: float = Field(
        0.10, ge=0.04, le=0.25, description="How high to raise it (m, its bottom above the table)."
    )


def long_axis(obj: ObjectState) -> float:
    """The direction (yaw, rad) of ``obj``'s longest side on the table."""
    column = 0 if obj.half_extents[0] >= obj.half_extents[1] else 1
    return math.atan2(obj.rotation[1, column], obj.rotation[0, column])


def grasp_points(env: TabletopEnv, obj: ObjectState) -> dict[str, np.ndarray]:
    """Where each arm's pads close: the two ends' grasp points, each to the arm nearer it."""
    along = long_axis(obj)
    axis = np.array([math.cos(along), math.sin(along)])
    reach = object_length(obj) / 2 - END_MARGIN
    ends = [obj.position[:2] + sign * reach * axis for sign in (1.0, -1.0)]
    first, second = env.arms.arms[:2]
    bases = [np.array(env.arm_base(arm)) for arm in (first, second)]
    straight = sum(float(np.linalg.norm(e - b)) for e, b in zip(ends, bases, strict=True))
    crossed = sum(float(np.linalg.norm(e - b)) for e, b in zip(ends[::-1], bases, strict=True))
    if crossed < straight:
        ends.reverse()
    z = grasp_height(obj)
    return {arm: np.append(end, z) for arm, end in zip((first, second), ends, strict=True)}


@register_skill
class LiftTogether(Skill[LiftTogetherParams]):
    name = "lift_together"
    arms = 2
    description = (
        "Lift a long object (a bar) with both arms: each claw grasps one end and both raise it "
        "together, keeping it level."
    )
    examples = (
        "lift the bar with both arms",
        "raise the beam together",
        "pick up the rod with two hands",
        "hold the bar at both ends and lift it",
        "carry the plank with both claws",
    )

    def preconditions(self, env: TabletopEnv, params: LiftTogetherParams) -> list[str]:
        problems = super().preconditions(env, params)
        if problems:
            return problems
        problem = two_arm_problem(env, "lifting together")
        if problem is not None:
            return [problem]
        world = env.world_state()
        obj = world.get(params.object)
        if object_length(obj) < MIN_LENGTH:
            return [
                f"{obj.name} is {object_length(obj) * 100:.0f} cm long; two claws need at least "
                f"{MIN_LENGTH * 100:.0f} cm side by side (pick it with one)"
            ]
        for arm in env.arms.arms:
            held = held_objects(world, arm)
            if held:
                return [f"the {arm} claw holds {held[0]}; place it first"]
        above = supported_by(world, obj.name)
        if above:
            return [f"{', '.join(above)} is on {obj.name}; move it first"]
        width = object_width(obj) + GRASP_MARGIN
        obstacles = finger_obstacles(world, obj)
        for arm, point in grasp_points(env, obj).items():
            fingers = finger_footprints(float(point[0]), float(point[1]), long_axis(obj), width)
            hit = [n for n, f in obstacles if any(polygon_gap(g, f) < FINGER_GAP for g in fingers)]
            if hit:
                return [f"no room for the {arm} claw's fingers at {obj.name}'s end: {hit[0]}"]
        return []

    def execute(self, env: TabletopEnv, params: LiftTogetherParams) -> SkillResult:
        start = float(env.data.time)
        world = env.world_state()
        obj = world.get(params.object)
        points = grasp_points(env, obj)
        travel = safe_height(world)
        open_width = object_width(obj) + GRASP_MARGIN
        bar_yaw = long_axis(obj)  # the claw yaw whose fingers close across it
        claws: dict[str, Claw] = {}

        def grasp(arm: str) -> bool:
            claw = claws[arm] = Claw(env)
            point, yaw = points[arm], claw.tcp()[1]
            across = min((bar_yaw, bar_yaw + math.pi), key=lambda y: abs(wrap_angle(y - yaw)))
            position = claw.tcp()[0]
            if position[2] < travel:
                claw.move(np.array([position[0], position[1], travel]))
            claw.open(open_width)
            if not claw.move(np.array([point[0], point[1], travel]), wrap_angle(across)).reached:
                return False
            claw.move(point, speed=0.3)
            claw.close()
            left, right = claw.finger_contacts()
            return obj.name in left and obj.name in right

        grasped = env.parallel({arm: partial(grasp, arm) for arm in points})
        missed = [arm for arm, ok in grasped.items() if not ok]
        if missed:
            env.parallel({arm: partial(self._let_go, env, open_width) for arm in points})
            reason = f"the {missed[0]} claw missed {obj.name}"
            return arms_result(self, env, start, claws.values(), False, reason)

        def lift(arm: str) -> bool:
            claw = claws[arm] = Claw(env)
            goal = points[arm] + np.array([0.0, 0.0, params.height])
            claw.move(goal, speed=LIFT_SPEED)
            claw.wait(0.1)
            return claw.wait_settled(arm=True)

        settled = all(env.parallel({arm: partial(lift, arm) for arm in points}).values())
        after = env.world_state()
        checks = [Predicate.of("holding", obj.name, arm) for arm in points]
        checks.append(Predicate.of("level", obj.name))
        results = [evaluate(check, after) for check in checks]
        failed = next((r for r in results if not r.holds), None)
        if failed is not None:
            reason = f"{failed.predicate} does not hold after the lift ({failed.reason})"
        else:
            reason = "the scene did not come to rest after the lift"
        tilt = results[-1].measured["tilt_deg"]
        success = failed is None and settled
        tilt_deg = round(tilt, 3)
        return arms_result(self, env, start, claws.values(), success, reason, tilt_deg=tilt_deg)

    @staticmethod
    def _let_go(env: TabletopEnv, width: float) -> None:
        claw = Claw(env)
        claw.open(width)
        claw.move(claw.tcp()[0] + np.array([0.0, 0.0, 0.05]))
