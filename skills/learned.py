"""Learned claws: trained policies behind the same ``Skill`` protocol as the controllers.

``move_to`` and ``push`` each have a ``learned`` implementation here. It takes the controller's
parameters and checks, turns them into a goal, and lets the policy act through the actuators
(:class:`~claw.envs.tasks.ToolDriver`, as in training) until the goal holds or the horizon ends.
The weights come from a :class:`PolicySource` given to the skill (the executor passes its
caller's: ``claw "…"`` and ``claw eval`` pass the skill library, whose latest registered policy
is sha256 checked against the manifest), else from the shipped ``skills/policies/``.
Success is measured from the physics, as for every skill.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar, Protocol

import numpy as np

from claw.envs.robot import Array
from claw.envs.tabletop import TabletopEnv
from claw.envs.tasks import TASKS, GoalTask, ToolDriver
from claw.skills.base import P, Skill, SkillKind, SkillResult
from claw.skills.basic import MoveTo, MoveToParams
from claw.skills.motion import Claw
from claw.skills.policy import CONFIG_FILE, WEIGHTS_FILE, PolicyNetwork
from claw.skills.push import DIRECTIONS, Push, PushParams, push_outcome
from claw.skills.registry import register_skill

POLICIES_DIR = Path(__file__).with_name("policies")
SETTLED_SPEED = 0.01  # m/s: the policy stops early once the goal holds and things are this still
STOP_WITHIN = 0.005  # m: the policy may stop early this close to its goal
LIFT_STEPS = 4  # control periods the claw rises after a push, to let go of the object


class PolicySource(Protocol):
    """Where policy skills get their networks: the skill library (``claw.library.policy_source``),
    :class:`ShippedPolicies`, or anything else with this method."""

    def policy(self, cls: type[PolicySkill]) -> PolicyNetwork:
        """The network to run for a policy skill class.

        Raises:
            ArtifactError: it is missing, or its files differ from what was recorded.
        """
        ...


class ShippedPolicies:
    """The policies shipped with the skill classes (``skills/policies/TASK/``), sha256 checked
    against their ``policy.json``."""

    def policy(self, cls: type[PolicySkill]) -> PolicyNetwork:
        return PolicyNetwork.load(POLICIES_DIR / cls.task())


LEARNED_SKILLS: dict[str, tuple[type[PolicySkill[Any]], ...]] = {}
"""The skills each training task's policy implements (``reach``: ``move_to``; ``push``;
``pick_place``: ``pick`` and ``place``), listed as the classes are defined."""


class PolicySkill(Skill[P]):
    """Base for skills run by a trained policy (put it before the controller class), generic in
    the controller's parameters: ``class LearnedPush(PolicySkill[PushParams], Push)``.

    ``task_name`` names the training task (``claw train TASK``) and the shipped policy's folder.
    """

    kind: ClassVar[SkillKind] = "policy"
    implementation: ClassVar[str] = "learned"
    horizon: ClassVar[int]
    """Most policy steps per run: the training env's episode length."""

    @classmethod
    def task(cls) -> str:
        """The training task's name: every policy skill names one (``task_name``)."""
        if cls.task_name is None:
            raise TypeError(f"{cls.__name__} is a policy skill without a task_name")
        return cls.task_name

    @classmethod
    def bundled_artifacts(cls) -> list[Path]:
        """The shipped policy's files, registered in the library with the skill."""
        folder = POLICIES_DIR / cls.task()
        return [folder / WEIGHTS_FILE, folder / CONFIG_FILE]

    @classmethod
    def bundled_metrics(cls) -> dict[str, Any] | None:
        """The shipped policy's measured success (from its ``policy.json``)."""
        path = POLICIES_DIR / cls.task() / CONFIG_FILE
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

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.task_name is not None:
            LEARNED_SKILLS[cls.task_name] = (*LEARNED_SKILLS.get(cls.task_name, ()), cls)

    def __init__(
        self, network: PolicyNetwork | None = None, policies: PolicySource | None = None
    ) -> None:
        self._network = network
        self.policies = policies
        """Where the network comes from unless one was given; ``None``: the shipped policies."""

    def prepare(self) -> None:
        """Load the network (before anything moves): the one given, else ``policies``', else the
        shipped one. The run path (``claw.runtime.run_instruction``) passes the skill library.

        Raises:
            ArtifactError: the weights are missing or differ from what was registered.
        """
        if self._network is None:
            source = self.policies if self.policies is not None else ShippedPolicies()
            self._network = source.policy(type(self))

    def network(self) -> PolicyNetwork:
        """The policy this skill runs: the one it was given, or its source's.

        Raises:
            ArtifactError: the weights are missing or differ from what was registered.
        """
        self.prepare()
        assert self._network is not None
        return self._network

    def goal(self, env: TabletopEnv, params: P) -> tuple[GoalTask, Array]:
        """The task and the goal the policy is asked to reach for these parameters."""
        raise NotImplementedError

    def finish(self, env: TabletopEnv, task: GoalTask) -> None:
        """What the claw does once the policy is done, before the outcome is judged."""

    def judge(
        self,
        env: TabletopEnv,
        params: P,
        task: GoalTask,
        start: Array,
        goal: Array,
        settled: bool,
    ) -> tuple[bool, str, dict[str, Any]]:
        """Success measured from the state once the scene came to rest (or failed to: then
        ``settled`` is False and the skill fails), the reason if not, and measured details."""
        raise NotImplementedError

    def execute(self, env: TabletopEnv, params: P) -> SkillResult:
        network, started = self.network(), float(env.data.time)
        task, goal = self.goal(env, params)
        start = task.achieved(env)
        steps, _ = self.run_policy(env, task, goal, network, STOP_WITHIN)
        self.finish(env, task)
        # Judge at rest, as every skill does: the actuators hold their last targets until the
        # arm, the fingers and every object are still (bounded), then the outcome is measured.
        settled = Claw(env).wait_settled(arm=True)
        success, reason, details = self.judge(env, params, task, start, goal, settled)
        return SkillResult(
            skill=self.name,
            success=success,
            reason="" if success else reason,
            sim_seconds=round(float(env.data.time) - started, 4),
            details={**details, "policy_steps": steps},
        )

    def run_policy(
        self, env: TabletopEnv, task: GoalTask, goal: Array, network: PolicyNetwork, within: float
    ) -> tuple[int, float]:
        """Let the policy act toward ``goal`` until it is ``within`` m of it and all is still, or
        the horizon ends; returns the steps taken and the final distance."""
        from claw.envs.observations import check_obs_mode, compose, observer_for  # OpenCV

        driver = ToolDriver(env, task.gripper)
        config = network.config
        mode = check_obs_mode(config.env_kwargs.get("obs_mode", "state"))
        pixels = observer_for(env.model, config.env_kwargs, env.robot.prefix)
        if pixels is not None:  # the cameras it was trained with, under the env's sensor model
            noise = env.sensor_noise
            pixels.reset(env, np.random.default_rng(0), noise.sensor if noise else None)
        steps = 0
        try:
            for steps in range(1, self.horizon + 1):  # noqa: B007  (steps is reported)
                state = task.goal_observation(env, goal)
                action = network.act(compose(mode, state, env, pixels))  # type: ignore[arg-type]
                driver.apply(task.command(state, action, config.residual_scale))
                if pixels is not None:
                    pixels.step(env)
                distance = float(task.distance(task.achieved(env), goal))
                still = float(np.max(np.abs(env.data.qvel))) < SETTLED_SPEED
                if distance <= within and still:
                    break
        finally:
            if pixels is not None:
                pixels.close()
        return steps, float(task.distance(task.achieved(env), goal))


@register_skill
class LearnedMoveTo(PolicySkill[MoveToParams], MoveTo):
    """``move_to`` by the trained reach policy: success within its trained 2 cm."""

    task_name = "reach"
    horizon = 50

    def goal(self, env: TabletopEnv, params: MoveToParams) -> tuple[GoalTask, Array]:
        return TASKS[self.task()](), np.array([params.x, params.y, params.z])

    def judge(
        self,
        env: TabletopEnv,
        params: MoveToParams,
        task: GoalTask,
        start: Array,
        goal: Array,
        settled: bool,
    ) -> tuple[bool, str, dict[str, Any]]:
        error = float(task.distance(task.achieved(env), goal))
        if settled:
            reason = f"the reach policy stopped {error * 100:.1f} cm from the target"
        else:
            reason = "the claw did not come to rest after the reach policy"
        return (
            settled and error <= task.threshold,
            reason,
            {"error": round(error, 5), "tolerance": task.threshold},
        )


@register_skill
class LearnedPush(PolicySkill[PushParams], Push):
    """``push`` by the trained push policy; success within the controller's 2 cm."""

    task_name = "push"
    horizon = 80

    def finish(self, env: TabletopEnv, task: GoalTask) -> None:
        """Rise off the pushed object before anything else moves."""
        driver = ToolDriver(env, task.gripper)
        for _ in range(LIFT_STEPS):
            driver.apply(np.array([0.0, 0.0, 1.0]))

    def goal(self, env: TabletopEnv, params: PushParams) -> tuple[GoalTask, Array]:
        task = TASKS[self.task()](params.object)
        direction = np.array(DIRECTIONS[params.direction])
        return task, task.achieved(env) + params.distance * direction

    def judge(
        self,
        env: TabletopEnv,
        params: PushParams,
        task: GoalTask,
        start: Array,
        goal: Array,
        settled: bool,
    ) -> tuple[bool, str, dict[str, Any]]:
        # The controller's own test (``push_outcome``: within ``push.TOLERANCE``, 2 cm), not the
        # training task's 5 cm ``PushTask.threshold``.
        return push_outcome(
            params.object, params.direction, start, task.achieved(env), goal, settled
        )
