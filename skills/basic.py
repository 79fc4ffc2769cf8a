"""Basic claws: move the tool point, open or close the fingers, go home."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from pydantic import Field

from claw.envs.robot import MAX_HALF_OPENING, MIN_TCP_HEIGHT, PAD_CLEARANCE
from claw.envs.tabletop import TabletopEnv
from claw.skills.base import NoParams, Skill, SkillParams, SkillResult
from claw.skills.motion import Claw
from claw.skills.registry import register_skill

ARRIVAL_TOLERANCE = 0.005  # m
OPEN_WIDTH = 2 * MAX_HALF_OPENING + PAD_CLEARANCE
CLOSED_WIDTH = PAD_CLEARANCE + 0.003  # m: pads this close have closed on nothing but each other


def result(
    skill: Skill[Any], claw: Claw, success: bool, reason: str = "", **details: object
) -> SkillResult:
    """A ``SkillResult`` with the simulated time and the touched objects read from ``claw``."""
    return arms_result(skill, claw.env, claw.start_time, [claw], success, reason, **details)


def two_arm_problem(env: TabletopEnv, doing: str) -> str | None:
    """Why a skill that drives both arms (``doing``: "a handover") cannot run now, if it cannot:
    the scene has one arm, or the caller is a lane beside another arm's."""
    if len(env.arms.arms) < 2:
        return f"{doing} needs two arms; this scene has one"
    if env.arms.lockstep is not None:
        return f"{doing} needs both arms; it cannot run beside another step"
    return None


def arms_result(
    skill: Skill[Any],
    env: TabletopEnv,
    start: float,
    claws: Iterable[Claw],
    success: bool,
    reason: str = "",
    **details: object,
) -> SkillResult:
    """A ``SkillResult`` of a skill that drove several claws, timed from ``start`` (sim s)."""
    return SkillResult(
        skill=skill.name,
        success=success,
        reason="" if success else reason,
        sim_seconds=round(float(env.data.time) - start, 4),
        touched=sorted({name for claw in claws for name in claw.touched}),
        details=details,
    )


class MoveToParams(SkillParams):
    x: float = Field(description="Metres away from the robot.")
    y: float = Field(description="Metres to the left.")
    z: float = Field(description="Metres above the table.")


@register_skill
class MoveTo(Skill[MoveToParams]):
    name = "move_to"
    measures_own_success = True
    description = "Move the gripper's tool point to a position (x, y, z), claw pointing down."
    examples = (
        "move the gripper to x 0.5 y 0 z 0.2",
        "go to this position",
        "hover over there",
        "position the claw at these coordinates",
        "bring the hand to a point above the table",
        "raise the gripper to 20 cm",
        "lower the claw",
    )

    def preconditions(self, env: TabletopEnv, params: MoveToParams) -> list[str]:
        problems = super().preconditions(env, params)
        if params.z < MIN_TCP_HEIGHT:
            problems.append(
                f"target z {params.z:.3f} m is below the lowest tool height {MIN_TCP_HEIGHT} m"
            )
        elif not (claw := Claw(env)).reachable(
            np.array([params.x, params.y, params.z]), claw.tcp()[1]
        ):
            problems.append(
                f"target out of reach: ({params.x:.3f}, {params.y:.3f}, {params.z:.3f}) m"
            )
        return problems

    def execute(self, env: TabletopEnv, params: MoveToParams) -> SkillResult:
        claw = Claw(env)
        goal = np.array([params.x, params.y, params.z])
        arrival = claw.move(goal, tolerance=ARRIVAL_TOLERANCE)
        return result(
            self,
            claw,
            arrival.reached,
            f"stopped {arrival.error * 100:.1f} cm short of the target (something in the way?)",
            error=round(arrival.error, 5),
        )


@register_skill
class OpenGripper(Skill[NoParams]):
    name = "open_gripper"
    measures_own_success = True
    description = "Open the claw's fingers fully, releasing whatever they hold."
    examples = (
        "open the gripper",
        "release",
        "let go",
        "open the claw",
        "spread the fingers",
        "unclench the claw",
        "loosen the grip",
    )

    def execute(self, env: TabletopEnv, params: NoParams) -> SkillResult:
        claw = Claw(env)
        claw.open()
        settled = claw.wait_settled(arm=True)  # what it let go of lands first
        width = claw.gripper_width()
        opened = width >= OPEN_WIDTH - 0.005
        reason = (
            f"the fingers stopped at {width * 100:.1f} cm"
            if not opened
            else "the scene did not come to rest after opening"
        )
        return result(self, claw, opened and settled, reason, width=width)


@register_skill
class CloseGripper(Skill[NoParams]):
    name = "close_gripper"
    measures_own_success = True
    description = "Close the claw's fingers until they stop, on an object or on each other."
    examples = (
        "close the gripper",
        "grip",
        "squeeze",
        "close the claw",
        "clamp the fingers shut",
        "pinch",
        "tighten the grip",
    )

    def execute(self, env: TabletopEnv, params: NoParams) -> SkillResult:
        claw = Claw(env)
        claw.close()
        settled = claw.wait_settled(arm=True)
        width = claw.gripper_width()
        left, right = claw.finger_contacts()
        holding = sorted(left & right)
        # Closed: the pads met (nothing between them), or both fingers press on one object.
        closed = width <= CLOSED_WIDTH or bool(holding)
        if not settled:
            reason = "the claw and the scene did not come to rest after closing"
        elif not closed:
            touching = sorted(left | right)
            reason = f"the fingers stopped {width * 100:.1f} cm apart, " + (
                f"touching {', '.join(touching)} with one finger only"
                if touching
                else "on nothing (the claw could not close)"
            )
        else:
            reason = ""
        return result(
            self, claw, settled and closed, reason, width=round(width, 5), holding=holding
        )


@register_skill
class Home(Skill[NoParams]):
    name = "home"
    measures_own_success = True
    description = "Return the arm to its rest pose above the table, claw pointing down."
    examples = (
        "go home",
        "return to the start position",
        "reset the arm",
        "move out of the way",
        "go back to the rest pose",
        "park the arm",
        "retract the arm",
        "back to the initial position",
    )

    def execute(self, env: TabletopEnv, params: NoParams) -> SkillResult:
        claw = Claw(env)
        arrived = claw.move_joints(env.robot.rest_qpos)
        error = float(np.abs(env.data.qpos[env.robot.arm_qpos] - env.robot.rest_qpos).max())
        return result(
            self,
            claw,
            arrived,
            f"the arm stopped {np.degrees(error):.1f} degrees from its rest pose",
            joint_error=error,
        )
