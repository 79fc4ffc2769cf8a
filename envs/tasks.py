"""Goal-conditioned tasks for learned claws: what a policy sees, how its actions move the claw.

A task reads a compact observation from a :class:`~claw.envs.TabletopEnv` (positions relative to
what matters, no images) and turns a policy's action — tool-point deltas in [-1, 1] — into
actuator targets through :class:`ToolDriver`. The training envs (``claw/Reach-v0``,
``claw/Push-v0``) and the policy skills use the same task objects, so a policy acts on the main
env exactly as it was trained.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import mujoco
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from claw.envs.regions import in_reach
from claw.envs.robot import MAX_HALF_OPENING, PAD_CLEARANCE, Array, tool_yaw
from claw.envs.tabletop import TabletopEnv
from claw.envs.tool import ToolTarget

CONTROL_PERIOD = 0.1  # s between a policy's actions (10 Hz)
MAX_TRANSLATION = 0.03  # m the tool target moves per action at full scale
MAX_ROTATION = 0.15  # rad the claw turns per action at full scale
PUSH_HEIGHT = 0.03  # m: tool-point height while pushing (fingertips 1.5 cm above the table)
PUSHER_REACH = 0.022  # m from the tool point to the closed claw's face, at most
TRAVEL_CLEARANCE = 0.05  # m above an object's top when the claw moves over it
REACH_GOAL_LOW = np.array([0.28, -0.32, 0.08])
REACH_GOAL_HIGH = np.array([0.68, 0.32, 0.35])
PUSH_DISTANCE = (0.05, 0.18)  # m: how far the goal lies from the object's start
PUSH_GOAL_X = (0.28, 0.68)
MAX_AIR_HEIGHT = 0.20  # m: the highest a pick-and-place goal in the air lies above the block
PUSH_GOAL_Y = (-0.34, 0.34)
ONE_BLOCK: dict[str, Any] = {"name": "one_block", "objects": [{"type": "block", "color": "red"}]}


class ToolDriver:
    """Moves the claw of an env by tool-point deltas, claw down, at 10 Hz.

    An action is a tool-point delta (3 numbers in [-1, 1]; yaw and claw held), or that, a yaw
    delta and a claw command (5: +1 closes the claw, -1 opens it fully), as in the main env.

    Args:
        env: The env whose actuators it drives (the arm starts from its current joint targets).
        gripper: The claw's half opening held by 3-number actions (m, 0 closed).
    """

    def __init__(self, env: TabletopEnv, gripper: float = 0.0) -> None:
        self.env = env
        self.gripper = min(max(gripper, 0.0), MAX_HALF_OPENING)
        self.tool = ToolTarget(env.ik, env.data.ctrl[env.robot.arm_actuators])
        self.substeps = max(1, round(CONTROL_PERIOD / env.model.opt.timestep))

    def apply(self, action: Array) -> None:
        """Move the claw by ``action`` and advance one control period."""
        action = np.clip(np.asarray(action, dtype=np.float64), -1.0, 1.0)
        yaw_delta = 0.0
        if action.shape[0] == 5:
            yaw_delta = float(action[3]) * MAX_ROTATION
            self.gripper = 0.5 * (1.0 - float(action[4])) * MAX_HALF_OPENING
        measured = self.env.data.site_xpos[self.env.robot.tcp_site]
        q = self.tool.step(measured, action[:3] * MAX_TRANSLATION, yaw_delta)
        self.env.actuate(q, self.gripper, self.substeps)


def claw_command(width: float) -> float:
    """The claw command of a 5-number action (+1 closed, -1 fully open) that opens the pads
    ``width`` (m) apart."""
    return min(max(1.0 - (width - PAD_CLEARANCE) / MAX_HALF_OPENING, -1.0), 1.0)


def tool_velocity(env: TabletopEnv) -> Array:
    """The tool point's linear velocity (m/s, world frame)."""
    velocity = np.zeros(6)
    mujoco.mj_objectVelocity(
        env.model, env.data, mujoco.mjtObj.mjOBJ_SITE, env.robot.tcp_site, velocity, 0
    )
    return velocity[3:]


def claw_yaw(env: TabletopEnv) -> float:
    """The claw's yaw about world z (rad)."""
    return tool_yaw(env.data.site_xmat[env.robot.tcp_site])


def block_pose(env: TabletopEnv, name: str) -> tuple[Array, float, Array]:
    """An object's position, yaw about world z and linear velocity."""
    body = env.model.body(name).id
    yaw = math.atan2(env.data.xmat[body][3], env.data.xmat[body][0])
    start = env.model.body_dofadr[body]
    return env.data.xpos[body], yaw, env.data.qvel[start : start + 3]


def tool_and_object(env: TabletopEnv, name: str) -> tuple[list[Array], float]:
    """What the object tasks observe first: tool position and velocity, the object's position,
    object minus tool, its velocity; and the object's yaw."""
    tcp = env.data.site_xpos[env.robot.tcp_site]
    position, yaw, velocity = block_pose(env, name)
    return [tcp, tool_velocity(env), position, position - tcp, velocity], yaw


def block_half_size(env: TabletopEnv, name: str) -> float:
    """Half a block's edge (m), from its geom."""
    return float(env.model.geom(name).size[0])


class Difficulty(BaseModel):
    """How hard a training env's episodes are; a curriculum stage sets it. The defaults are the
    full task."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    goal_distance: float | None = Field(None, gt=0.0)
    """Goals at most this far (m) from where the object (for ``reach``, the claw) starts."""
    air_share: float | None = Field(None, ge=0.0, le=1.0)
    """``pick_place``: the share of goals in the air (``None``: the task's own)."""
    air_height: float | None = Field(None, ge=0.0, le=MAX_AIR_HEIGHT)
    """``pick_place``: the highest a goal in the air lies above the block's rest (m; at most
    the full task's, ``MAX_AIR_HEIGHT``)."""
    randomization: float = Field(1.0, ge=0.0, le=1.0)
    """Strength of the reset randomisation: arm start, friction, mass, block size (0: none)."""


@dataclass(frozen=True)
class GoalObservation:
    """A goal-conditioned observation, as Gymnasium-Robotics envs give them."""

    observation: Array
    achieved_goal: Array
    desired_goal: Array

    def as_dict(self) -> dict[str, Array]:
        return {
            "observation": self.observation,
            "achieved_goal": self.achieved_goal,
            "desired_goal": self.desired_goal,
        }


class GoalTask:
    """What a goal-conditioned skill observes and how success is measured.

    Subclasses set the sizes and ``threshold`` and implement :meth:`observe` and
    :meth:`achieved`; ``base_action`` is the controller a residual policy corrects.
    """

    name: ClassVar[str]
    observation_size: ClassVar[int]
    goal_size: ClassVar[int]
    threshold: ClassVar[float]
    """Distance (m) between achieved and desired goal at which the task counts as done."""
    gripper: ClassVar[float] = 0.0
    """The claw's half opening held throughout (tasks with 3-number actions)."""
    action_size: ClassVar[int] = 3
    min_goal_distance: ClassVar[float] = 0.0
    """Goals lie at least this far (m) from the start: no episode is done before it begins."""

    def __init__(self, target: str | None = None) -> None:
        self.target = target
        """The object the task is about (``None`` for the claw itself)."""
        self.difficulty = Difficulty()
        """How hard the goals are drawn (the curriculum's stage)."""

    def scene(self, rng: np.random.Generator) -> dict[str, Any]:
        """The training env's scene for the next episode (a scene spec, randomised)."""
        return ONE_BLOCK

    def observe(self, env: TabletopEnv) -> Array:
        raise NotImplementedError

    def achieved(self, env: TabletopEnv) -> Array:
        raise NotImplementedError

    def sample_goal(self, env: TabletopEnv, rng: np.random.Generator) -> Array:
        """A goal for the episode that just started in ``env``."""
        raise NotImplementedError

    def goal_observation(self, env: TabletopEnv, goal: Array) -> GoalObservation:
        return GoalObservation(self.observe(env), self.achieved(env), np.asarray(goal, float))

    @classmethod
    def base_action(cls, obs: GoalObservation) -> Array:
        """The controller's action a residual policy adds to (zero: no base controller)."""
        return np.zeros(cls.action_size)

    @classmethod
    def expert_action(cls, obs: GoalObservation) -> Array:
        """The scripted expert's action (demonstrations, DAgger labels): the controller's."""
        return cls.base_action(obs)

    def command(self, obs: GoalObservation, action: Array, residual_scale: float | None) -> Array:
        """The tool-point command for a policy's ``action``: the action itself, or, for a
        residual policy, the controller's action plus ``residual_scale`` times it."""
        action = np.clip(np.asarray(action, dtype=np.float64), -1.0, 1.0)
        if residual_scale is not None:
            action = self.base_action(obs) + residual_scale * action
        return np.clip(action, -1.0, 1.0)

    def distance(self, achieved: Array, desired: Array) -> Array:
        """Distance between goals, over the last axis (vectorised for HER)."""
        return np.linalg.norm(np.asarray(achieved) - np.asarray(desired), axis=-1)


TASKS: dict[str, type[GoalTask]] = {}
"""The goal-conditioned tasks by name, filled by :func:`register_task`."""

T = TypeVar("T", bound=type[GoalTask])


def register_task(cls: T) -> T:
    """Class decorator: list a task in :data:`TASKS` under its ``name``."""
    TASKS[cls.name] = cls
    return cls


@register_task
class ReachTask(GoalTask):
    """Bring the tool point to a position. Observation: tool position and velocity."""

    name = "reach"
    observation_size = 6
    goal_size = 3
    threshold = 0.02

    def observe(self, env: TabletopEnv) -> Array:
        return np.concatenate([env.data.site_xpos[env.robot.tcp_site], tool_velocity(env)])

    def achieved(self, env: TabletopEnv) -> Array:
        return env.data.site_xpos[env.robot.tcp_site].copy()

    def sample_goal(self, env: TabletopEnv, rng: np.random.Generator) -> Array:
        start, cap = self.achieved(env), self.difficulty.goal_distance
        while True:
            goal = rng.uniform(REACH_GOAL_LOW, REACH_GOAL_HIGH)
            if cap is not None:  # the same draw, pulled toward the start
                goal = start + (goal - start) * min(1.0, cap / np.linalg.norm(goal - start))
            if in_reach(goal[0], goal[1]):
                return goal

    @classmethod
    def expert_action(cls, obs: GoalObservation) -> Array:
        """Straight at the goal, at full speed until the last step."""
        return np.clip((obs.desired_goal - obs.observation[:3]) / MAX_TRANSLATION, -1.0, 1.0)


@register_task
class PushTask(GoalTask):
    """Slide an object on the table to a point with the closed claw.

    Observation (17): tool position and velocity, object position, object minus tool, object
    velocity, and the object's yaw as sin/cos of four times it (a block looks the same every
    quarter turn). Goals are the object's (x, y).
    """

    name = "push"
    observation_size = 17
    goal_size = 2
    threshold = 0.05

    def observe(self, env: TabletopEnv) -> Array:
        assert self.target is not None
        motion, yaw = tool_and_object(env, self.target)
        return np.concatenate([*motion, [math.sin(4 * yaw), math.cos(4 * yaw)]])

    def achieved(self, env: TabletopEnv) -> Array:
        assert self.target is not None
        return env.data.xpos[env.model.body(self.target).id][:2].copy()

    def sample_goal(self, env: TabletopEnv, rng: np.random.Generator) -> Array:
        start, cap = self.achieved(env), self.difficulty.goal_distance
        low, high = PUSH_DISTANCE if cap is None else (min(PUSH_DISTANCE[0], cap / 2), cap)
        while True:
            angle = rng.uniform(-np.pi, np.pi)
            goal = start + rng.uniform(low, high) * np.array([np.cos(angle), np.sin(angle)])
            inside = PUSH_GOAL_X[0] <= goal[0] <= PUSH_GOAL_X[1]
            if inside and PUSH_GOAL_Y[0] <= goal[1] <= PUSH_GOAL_Y[1] and in_reach(*goal):
                return goal

    @classmethod
    def base_action(cls, obs: GoalObservation) -> Array:
        """A reactive pusher: over the object to behind it, down, then along the line to the goal.

        It reads only the observation, so a residual policy can be trained on top of it.
        """
        tcp, obj = obs.observation[:3], obs.observation[6:9]
        half = 0.02 if obj[2] < 0.05 else obj[2]  # object half height ~ half width for blocks
        to_goal = obs.desired_goal - obj[:2]
        distance = float(np.linalg.norm(to_goal))
        if distance < 0.005:
            return np.array([0.0, 0.0, 0.5])
        u = to_goal / distance
        normal = np.array([-u[1], u[0]])
        relative = tcp[:2] - obj[:2]
        along, lateral = float(relative @ u), float(relative @ normal)
        # Stand off by the block's largest half-extent (its corner), whatever its yaw.
        behind = obj[:2] - (math.sqrt(2.0) * half + PUSHER_REACH) * u
        travel = obj[2] + half + TRAVEL_CLEARANCE
        if along < -half and abs(lateral) < 0.012 and tcp[2] < PUSH_HEIGHT + 0.015:
            step = min(MAX_TRANSLATION, distance + 0.005)
            target_xy = tcp[:2] + step * u - 0.5 * lateral * normal
            target = np.array([*target_xy, PUSH_HEIGHT])
        elif np.linalg.norm(tcp[:2] - behind) < 0.012:
            target = np.array([*behind, PUSH_HEIGHT])
        elif tcp[2] < travel - 0.01 and np.linalg.norm(relative) < half + 0.06:
            target = np.array([tcp[0], tcp[1], travel])
        else:
            target = np.array([*behind, travel])
        return np.clip((target - tcp) / MAX_TRANSLATION, -1.0, 1.0)
