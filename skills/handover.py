"""``handover``: pass a held object from one claw to the other in the air, held by friction.

The giving claw (the one that holds the object) brings it to a point between the two arms,
turned so that its fingers press the faces that look toward the receiving arm. The receiving
claw comes in level from its side, its fingers on the two faces no finger touches yet, closes,
and the giver lets go and rises; the receiver backs away and turns its claw down again, so a
``place`` by that arm goes on from there.
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import Field

from claw.envs.arms import ArmName, arm_base
from claw.envs.geometry import wrap_angle
from claw.envs.predicates import Predicate, evaluate, held_objects
from claw.envs.robot import GRASP_MARGIN
from claw.envs.state import WorldState
from claw.envs.tabletop import TabletopEnv
from claw.envs.world import holder
from claw.skills.base import ObjectName, Skill, SkillParams, SkillResult
from claw.skills.basic import arms_result, two_arm_problem
from claw.skills.motion import Arrival, Claw
from claw.skills.pick import FINGER_FOOTPRINT, object_width, safe_height
from claw.skills.registry import register_skill

HANDOVER_REACH = 0.45  # m in front of the bases: where the arms meet
HANDOVER_HEIGHT = 0.25  # m: the least tool height of the handover
STANDOFF = 0.10  # m the receiving claw waits short of the object, and backs away after
RISE = 0.06  # m the giving claw rises after letting go
LEVEL = math.pi / 2  # the receiving claw's tilt: pointing level
# The receiving fingers close on the two faces beside the giver's fingers: the object must be
# wider than a finger (its footprint across the faces) with 1 mm to spare on each side.
MIN_WIDTH = 2 * FINGER_FOOTPRINT[0] + 0.002


class HandoverParams(SkillParams):
    object: ObjectName
    to: ArmName = Field(description="The arm that takes the object.")


def meeting_xy(arms: tuple[str, ...]) -> np.ndarray:
    """Where on the table the arms meet for a handover: in front of the bases, midway."""
    bases = np.array([arm_base(a, len(arms))[:2] for a in arms])
    return bases.mean(axis=0) + np.array([HANDOVER_REACH, 0.0])


def handover_point(env: TabletopEnv, world: WorldState, held: str) -> np.ndarray:
    """Where the arms meet (:func:`meeting_xy`), above everything."""
    z = max(HANDOVER_HEIGHT, safe_height(world, exclude=held))
    return np.append(meeting_xy(env.arms.arms), z)


@register_skill
class Handover(Skill[HandoverParams]):
    name = "handover"
    arms = 2
    description = (
        "Hand a held object to the other arm: the claw holding it brings it between the arms, "
        "the other claw grasps it from the side, and the first lets go."
    )
    examples = (
        "hand the block to the other arm",
        "pass the cube to the right arm",
        "give it to the left hand",
        "transfer the block from one claw to the other",
        "switch hands",
        "hand it over",
    )

    meeting_point = staticmethod(meeting_xy)
    """Where on the table (xy) the arms meet for a handover (:func:`meeting_xy`)."""

    def preconditions(self, env: TabletopEnv, params: HandoverParams) -> list[str]:
        problems = super().preconditions(env, params)
        if problems:
            return problems
        if params.to not in env.arms.arms:
            return [f"the scene has no {params.to} arm (its arms: {', '.join(env.arms.arms)})"]
        problem = two_arm_problem(env, "a handover")
        if problem is not None:
            return [problem]
        world = env.world_state()
        giver = holder(world, params.object)
        if giver is None:
            return [f"{params.object} is in no claw; pick it up first"]
        if giver == params.to:
            return [f"the {params.to} arm already holds {params.object}"]
        taken = held_objects(world, params.to)
        if taken:
            return [f"the {params.to} claw already holds {taken[0]}; place it first"]
        width = object_width(world.get(params.object))
        if width < MIN_WIDTH:
            return [
                f"{params.object} is too narrow to hand over ({width * 100:.1f} cm): the "
                f"receiving fingers close beside the giver's, on faces of {MIN_WIDTH * 100:.1f} "
                "cm or more"
            ]
        return []

    def execute(self, env: TabletopEnv, params: HandoverParams) -> SkillResult:
        start = float(env.data.time)
        world = env.world_state()
        name, receiver = params.object, params.to
        giver = holder(world, name)
        assert giver is not None  # checked by the preconditions
        meet = handover_point(env, world, name)
        base = np.array(env.arm_base(receiver))
        toward = (meet[:2] - base) / np.linalg.norm(meet[:2] - base)  # the receiver's approach
        waiting = meet - STANDOFF * np.append(toward, 0.0)
        width = object_width(world.get(name))
        claws: dict[str, Claw] = {}

        def bring() -> Arrival:
            claw = claws[giver] = Claw(env)
            position, yaw = claw.tcp()
            face = math.atan2(-toward[0], toward[1])  # the fingers along the approach
            turn = min((face, face + math.pi), key=lambda y: abs(wrap_angle(y - yaw)))
            if position[2] < meet[2]:
                claw.move(np.array([position[0], position[1], meet[2]]))
            return claw.move(meet, wrap_angle(turn))

        def come_near() -> Arrival:
            claw = claws[receiver] = Claw(env)
            claw.open()
            position = claw.tcp()[0]
            if position[2] < meet[2]:
                claw.move(np.array([position[0], position[1], meet[2]]))
            # Turn first, then tilt at that yaw: the wrist passes straight through its
            # singularity (pitch 0) rather than rolling there, as a turn while tilting would.
            yaw = math.atan2(toward[1], toward[0])
            claw.move(waiting + np.array([0.0, 0.0, RISE]), yaw)
            return claw.move(waiting, pitch=LEVEL)

        arrived = env.parallel({giver: bring, receiver: come_near})
        late = next((arm for arm, arrival in arrived.items() if not arrival.reached), None)
        if late is not None:
            short = f"{arrived[late].error * 100:.1f} cm"
            reason = f"the {late} arm stopped {short} short of the handover"
            return arms_result(self, env, start, claws.values(), False, reason)
        with env.arms.driving(receiver):
            claw = claws[receiver] = Claw(env)
            claw.move(meet, speed=0.2)
            claw.close()
            left, right = claw.finger_contacts()
            if name not in left or name not in right:
                claw.open()
                claw.move(waiting)
                reason = f"the {receiver} claw missed {name}"
                return arms_result(self, env, start, claws.values(), False, reason)
        with env.arms.driving(giver):  # let go, rise, and clear the meeting point
            claw = claws[giver] = Claw(env)
            claw.open(width + GRASP_MARGIN)
            claw.move(claw.tcp()[0] + np.array([0.0, 0.0, RISE]))
            home = np.array(env.arm_base(giver))
            back = (meet[:2] - home) / np.linalg.norm(meet[:2] - home)
            claw.move(claw.tcp()[0] - STANDOFF * np.append(back, 0.0))
        with env.arms.driving(receiver):
            claw = claws[receiver] = Claw(env)
            claw.move(waiting, speed=0.3)
            claw.move(waiting + np.array([0.0, 0.0, 0.03]), pitch=0.0, speed=0.3)
            settled = claw.wait_settled(arm=True)
        check = evaluate(Predicate.of("holding", name, receiver), env.world_state())
        if not check.holds:
            reason = f"{name} slipped in the handover ({check.reason})"
        else:
            reason = "the scene did not come to rest after the handover"
        success = check.holds and settled
        return arms_result(self, env, start, claws.values(), success, reason, giver=giver)
