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
from typing import ClassVar

import mujoco
import numpy as np

from claw.envs.robot import MAX_HALF_OPENING, Array
from claw.envs.tabletop import TabletopEnv
from claw.envs.tool import ToolTarget

CONTROL_PERIOD = 0.1  # s between a policy's actions (10 Hz)
MAX_TRANSLATION = 0.03  # m the tool target moves per action at full scale
PUSH_HEIGHT = 0.03  # m: tool-point height while pushing (fingertips 1.5 cm above the table)
PUSHER_REACH = 0.022  # m from the tool point to the closed claw's face, at most
TRAVEL_CLEARANCE = 0.05  # m above an object's top when the claw moves over it


class ToolDriver:
    """Moves the claw of an env by tool-point deltas, claw down and yaw held, at 10 Hz.

    Args:
        env: The env whose actuators it drives (the arm starts from its current joint targets).
        gripper: The claw's half opening held throughout (m, 0 closed).
    """

    def __init__(self, env: TabletopEnv, gripper: float = 0.0) -> None:
        self.env = env
        self.gripper = min(max(gripper, 0.0), MAX_HALF_OPENING)
        self.tool = ToolTarget(env.ik, env.data.ctrl[env.robot.arm_actuators])
        self.substeps = max(1, round(CONTROL_PERIOD / env.model.opt.timestep))

    def apply(self, action: Array) -> None:
        """Move the tool target by ``action`` (3 numbers in [-1, 1]) and advance one period."""
        delta = np.clip(np.asarray(action, dtype=np.float64), -1.0, 1.0) * MAX_TRANSLATION
        measured = self.env.data.site_xpos[self.env.robot.tcp_site]
        q = self.tool.step(measured, delta)
        self.env.actuate(q, self.gripper, self.substeps)


def tool_velocity(env: TabletopEnv) -> Array:
    """The tool point's linear velocity (m/s, world frame)."""
    velocity = np.zeros(6)
    mujoco.mj_objectVelocity(
        env.model, env.data, mujoco.mjtObj.mjOBJ_SITE, env.robot.tcp_site, velocity, 0
    )
    return velocity[3:]


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

    def __init__(self, target: str | None = None) -> None:
        self.target = target
        """The object the task is about (``None`` for the claw itself)."""

    def observe(self, env: TabletopEnv) -> Array:
        raise NotImplementedError

    def achieved(self, env: TabletopEnv) -> Array:
        raise NotImplementedError

    def goal_observation(self, env: TabletopEnv, goal: Array) -> GoalObservation:
        return GoalObservation(self.observe(env), self.achieved(env), np.asarray(goal, float))

    @staticmethod
    def base_action(obs: GoalObservation) -> Array:
        """The controller's action a residual policy adds to (zero: no base controller)."""
        return np.zeros(3)

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
        data = env.data
        tcp = data.site_xpos[env.robot.tcp_site]
        body = env.model.body(self.target).id
        position = data.xpos[body]
        yaw = math.atan2(data.xmat[body][3], data.xmat[body][0])
        velocity = data.qvel[env.model.body_dofadr[body] : env.model.body_dofadr[body] + 3]
        return np.concatenate(
            [
                tcp,
                tool_velocity(env),
                position,
                position - tcp,
                velocity,
                [math.sin(4 * yaw), math.cos(4 * yaw)],
            ]
        )

    def achieved(self, env: TabletopEnv) -> Array:
        assert self.target is not None
        return env.data.xpos[env.model.body(self.target).id][:2].copy()

    @staticmethod
    def base_action(obs: GoalObservation) -> Array:
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


TASKS: dict[str, type[GoalTask]] = {"reach": ReachTask, "push": PushTask}
