"""Learned claws: trained policies behind the same ``Skill`` protocol as the controllers.

``move_to`` and ``push`` each have a ``learned`` implementation here. It takes the controller's
parameters and checks, turns them into a goal, and lets the policy act through the actuators
(:class:`~claw.envs.tasks.ToolDriver`, as in training) until the goal holds or the horizon ends.
The weights come from the skill library (sha256 checked); the library is seeded with the policies
shipped in ``skills/policies/``. Success is measured from the physics, as for every skill.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from claw.envs.errors import ArtifactError
from claw.envs.robot import Array
from claw.envs.tabletop import TabletopEnv
from claw.envs.tasks import TASKS, GoalTask, ToolDriver
from claw.skills.base import SkillParams, SkillResult, register_skill
from claw.skills.basic import MoveTo, MoveToParams
from claw.skills.policy import CONFIG_FILE, WEIGHTS_FILE, PolicyNetwork
from claw.skills.push import DIRECTIONS, Push, PushParams, push_outcome

POLICIES_DIR = Path(__file__).with_name("policies")
SETTLED_SPEED = 0.01  # m/s: the policy stops early once the goal holds and things are this still
STOP_WITHIN = 0.005  # m: the policy may stop early this close to its goal
LIFT_STEPS = 4  # control periods the claw rises after a push, to let go of the object


class PolicySkill:
    """Mixin for skills run by a trained policy (put it before the controller class).

    ``task_name`` names the training task (``claw train TASK``) and the shipped policy's folder.
    """

    kind: ClassVar[str] = "policy"
    implementation: ClassVar[str] = "learned"
    task_name: ClassVar[str]
    horizon: ClassVar[int]
    """Most policy steps per run: the training env's episode length."""
    name: ClassVar[str]
    _cache: ClassVar[dict[str, PolicyNetwork]] = {}

    @classmethod
    def bundled_artifacts(cls) -> list[Path]:
        """The shipped policy's files, registered in the library with the skill."""
        folder = POLICIES_DIR / cls.task_name
        return [folder / WEIGHTS_FILE, folder / CONFIG_FILE]

    @classmethod
    def bundled_metrics(cls) -> dict[str, Any] | None:
        """The shipped policy's measured success (from its ``policy.json``)."""
        path = POLICIES_DIR / cls.task_name / CONFIG_FILE
        if not path.is_file():
            return None
        evaluation = json.loads(path.read_text()).get("evaluation") or None
        if evaluation is None:
            return None
        return {
            "success_rate": evaluation["success_rate"],
            "episodes": evaluation["episodes"],
            "conditions": evaluation,
        }

    def prepare(self) -> None:
        self._network = self.network()

    def network(self) -> PolicyNetwork:
        """The library's latest policy for this skill, its weights checked against the manifest.

        Raises:
            ArtifactError: the weights are missing or differ from what was registered.
        """
        from claw.library.storage import SkillLibrary, implementation_ref

        library = SkillLibrary()
        ref = implementation_ref(type(self))  # type: ignore[arg-type]
        records = [r for r in library.latest_by_implementation() if r.implementation == ref]
        if not records or not records[0].artifacts:
            raise ArtifactError(f"the library has no trained policy for {self.name}")
        record = records[0]
        paths = library.artifact_paths(record)
        weights = next(a.sha256 for a in record.artifacts if a.path.endswith(WEIGHTS_FILE))
        if weights not in self._cache:
            folder = paths[WEIGHTS_FILE].parent
            self._cache[weights] = PolicyNetwork.load(folder, expected_sha256=weights)
        return self._cache[weights]

    def _network_loaded(self) -> PolicyNetwork:
        network = getattr(self, "_network", None)
        return network if network is not None else self.network()

    def run_policy(
        self, env: TabletopEnv, task: GoalTask, goal: Array, network: PolicyNetwork, within: float
    ) -> tuple[int, float]:
        """Let the policy act toward ``goal`` until it is ``within`` m of it and all is still, or
        the horizon ends; returns the steps taken and the final distance."""
        driver = ToolDriver(env, task.gripper)
        scale = network.config.residual_scale
        steps = 0
        for steps in range(1, self.horizon + 1):  # noqa: B007  (steps is reported)
            obs = task.goal_observation(env, goal)
            command = task.command(obs, network.act(obs.as_dict()), scale)
            driver.apply(command)
            distance = float(task.distance(task.achieved(env), goal))
            still = float(np.max(np.abs(env.data.qvel))) < SETTLED_SPEED
            if distance <= within and still:
                break
        return steps, float(task.distance(task.achieved(env), goal))


def _policy_result(
    skill: PolicySkill, env: TabletopEnv, start: float, success: bool, reason: str, **details: Any
) -> SkillResult:
    return SkillResult(
        skill=skill.name,
        success=success,
        reason="" if success else reason,
        sim_seconds=round(float(env.data.time) - start, 4),
        details=details,
    )


@register_skill
class LearnedMoveTo(PolicySkill, MoveTo):
    """``move_to`` by the trained reach policy: success within its trained 2 cm."""

    task_name = "reach"
    horizon = 50

    def execute(self, env: TabletopEnv, params: SkillParams) -> SkillResult:
        assert isinstance(params, MoveToParams)
        network, start = self._network_loaded(), float(env.data.time)
        task = TASKS[self.task_name]()
        goal = np.array([params.x, params.y, params.z])
        steps, error = self.run_policy(env, task, goal, network, STOP_WITHIN)
        return _policy_result(
            self,
            env,
            start,
            error <= task.threshold,
            f"the reach policy stopped {error * 100:.1f} cm from the target",
            error=round(error, 5),
            policy_steps=steps,
            tolerance=task.threshold,
        )


@register_skill
class LearnedPush(PolicySkill, Push):
    """``push`` by the trained push policy; success within the controller's 2 cm."""

    task_name = "push"
    horizon = 80

    def execute(self, env: TabletopEnv, params: SkillParams) -> SkillResult:
        assert isinstance(params, PushParams)
        network, start = self._network_loaded(), float(env.data.time)
        task = TASKS[self.task_name](params.object)
        u = np.array(DIRECTIONS[params.direction])
        origin = task.achieved(env)
        goal = origin + params.distance * u
        steps, _ = self.run_policy(env, task, goal, network, STOP_WITHIN)
        driver = ToolDriver(env, task.gripper)
        for _ in range(LIFT_STEPS):
            driver.apply(np.array([0.0, 0.0, 1.0]))
        success, reason, details = push_outcome(
            params.object, params.direction, origin, task.achieved(env), goal
        )
        return _policy_result(self, env, start, success, reason, **details, policy_steps=steps)


LEARNED_SKILLS: dict[str, type[PolicySkill]] = {"reach": LearnedMoveTo, "push": LearnedPush}
"""The skill each training task's policy implements."""
