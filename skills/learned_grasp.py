"""Learned ``pick`` and ``place``: the pick-and-place policy (``claw/PickAndPlace-v0``) as skills.

One policy brings a block's centre to a point, the claw grasping it by friction on the way.
``pick`` asks it for a point above where the block stands; ``place`` for the spot the
controller's placement search finds (``Place.find_spot``), after which the claw opens and rises
(two scripted moves through the same actuators). Both take the controllers' parameters and
checks, and are judged as the controllers are: ``holding`` after a pick; the relation, and the
claw empty, after a place.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from claw.envs.predicates import Predicate, evaluate
from claw.envs.robot import Array
from claw.envs.tabletop import TabletopEnv
from claw.envs.tasks import MAX_TRANSLATION, TASKS, GoalTask, ToolDriver, claw_command
from claw.envs.world import held_object
from claw.skills.base import SkillResult
from claw.skills.exceptions import NoPlacement
from claw.skills.learned import PolicySkill
from claw.skills.pick import Pick, PickParams
from claw.skills.place import DROP_HEIGHT, RETREAT, Place, PlaceParams, place_outcome
from claw.skills.registry import register_skill

PICK_LIFT = 0.08  # m the block's centre is raised above where it stood
OPEN_STEPS = 3  # control periods the claw takes to open around a placed block


class GraspPolicySkill:
    """What the learned pick and place share: the pick-and-place task, its horizon."""

    task_name: ClassVar[str | None] = "pick_place"
    horizon: ClassVar[int] = 60
    success_tolerance: ClassVar[float | None] = TASKS["pick_place"].threshold


@register_skill
class LearnedPick(GraspPolicySkill, PolicySkill[PickParams], Pick):
    """``pick`` by the pick-and-place policy: the block to a point above where it stands."""

    def goal(self, env: TabletopEnv, params: PickParams) -> tuple[GoalTask, Array]:
        task = TASKS[self.task()](params.object)
        start = task.achieved(env)
        return task, start + np.array([0.0, 0.0, PICK_LIFT])

    def judge(
        self,
        env: TabletopEnv,
        params: PickParams,
        task: GoalTask,
        start: Array,
        goal: Array,
        settled: bool,
    ) -> tuple[bool, str, dict[str, Any]]:
        check = evaluate(Predicate.of("holding", params.object), env.world_state())
        lifted = float(task.achieved(env)[2] - start[2])
        if not check.holds:
            reason = f"the pick policy did not lift {params.object} ({check.reason})"
        else:
            reason = f"the scene did not come to rest after lifting {params.object}"
        return check.holds and settled, reason, {"lifted": round(lifted, 4)}


@register_skill
class LearnedPlace(GraspPolicySkill, PolicySkill[PlaceParams], Place):
    """``place`` by the pick-and-place policy: the held block to the spot found for the
    relation, then the claw opens and rises."""

    def execute(self, env: TabletopEnv, params: PlaceParams) -> SkillResult:
        world = env.world_state()
        held = held_object(world)
        assert held is not None  # the preconditions say so
        try:
            self._spot, self._release = self.find_spot(world, held, params)
        except NoPlacement as exc:
            return SkillResult(skill=self.name, success=False, reason=str(exc))
        return super().execute(env, params)

    def goal(self, env: TabletopEnv, params: PlaceParams) -> tuple[GoalTask, Array]:
        held = held_object(env.world_state())
        task = TASKS[self.task()](held)
        half = float(env.model.geom(held).size[2])
        spot = self._spot
        return task, np.array([spot.x, spot.y, spot.bottom + DROP_HEIGHT + half])

    def finish(self, env: TabletopEnv, task: GoalTask) -> None:
        """Let go of the block (opening as wide as the controller would there) and rise."""
        driver = ToolDriver(env, task.gripper)
        opened = claw_command(self._release)
        for _ in range(OPEN_STEPS):
            driver.apply(np.array([0.0, 0.0, 0.0, 0.0, opened]))
        for _ in range(round(RETREAT / MAX_TRANSLATION)):
            driver.apply(np.array([0.0, 0.0, 1.0, 0.0, opened]))

    def judge(
        self,
        env: TabletopEnv,
        params: PlaceParams,
        task: GoalTask,
        start: Array,
        goal: Array,
        settled: bool,
    ) -> tuple[bool, str, dict[str, Any]]:
        assert task.target is not None
        success, reason, details = place_outcome(params, task.target, env.world_state(), settled)
        error = float(task.distance(task.achieved(env), goal))
        return success, reason, {**details, "spot_error": round(error, 4)}
