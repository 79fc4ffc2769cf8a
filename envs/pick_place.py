"""The pick-and-place task of ``claw/PickAndPlace-v0``, and its scripted expert.

The action is a tool-point delta, a yaw delta and a claw command (five numbers in [-1, 1], the
main env's ``ee`` layout: +1 closes the claw, -1 opens it); the claw points down. The goal is a
position of the block's centre, on the table or in the air, as in Gymnasium-Robotics'
FetchPickAndPlace. The block holds only by friction between the pads: nothing welds.

:meth:`PickPlaceTask.expert_action` is the pick and place controllers expressed in this action
space: it reads only the observation, so it can label any state a learner reaches (DAgger).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from claw.envs.geometry import wrap_angle
from claw.envs.objects import BLOCK_SIZE
from claw.envs.regions import in_reach
from claw.envs.robot import GRASP_MARGIN, MIN_TCP_HEIGHT, PAD_REACH, Array
from claw.envs.tabletop import TabletopEnv
from claw.envs.tasks import (
    MAX_AIR_HEIGHT,
    MAX_ROTATION,
    MAX_TRANSLATION,
    GoalObservation,
    GoalTask,
    block_half_size,
    claw_command,
    claw_yaw,
    register_task,
    tool_and_object,
)

BLOCK_SIZES = (0.03, 0.05)  # m: the block's edge is drawn from this range at each reset
GOAL_X = (0.30, 0.66)
GOAL_Y = (-0.30, 0.30)
AIR_SHARE = 0.5  # of goals above the table, as in FetchPickAndPlace
AIR_HEIGHT = (0.03, MAX_AIR_HEIGHT)  # m the block's bottom is above the table for a goal in the air
MIN_GOAL_DISTANCE = 0.06  # m from the block's start: no episode is done before it starts
CARRY_CLEARANCE = 0.08  # m the held block's bottom rises above the table while carried (over walls)
APPROACH_CLEARANCE = 0.03  # m the open pads pass above the block's top
ALIGNED_XY = 0.006  # m: the claw is over the block's centre
ALIGNED_YAW = 0.06  # rad: the fingers face two of the block's faces
GRASP_SLACK = 0.003  # m: the pads are closed on the block when the opening is within this
CLOSE = 1.0


@register_task
class PickPlaceTask(GoalTask):
    """Grasp a block and bring its centre to a position (table or air).

    Observation (19): tool position and velocity, block position, block minus tool, block
    velocity, sin/cos of four times the block's yaw relative to the claw's (a block looks the
    same every quarter turn), the opening between the pads, and the block's half edge.
    """

    name = "pick_place"
    observation_size = 19
    goal_size = 3
    action_size = 5
    threshold = 0.03
    min_goal_distance = MIN_GOAL_DISTANCE

    def scene(self, rng: np.random.Generator) -> dict[str, Any]:
        drawn = float(rng.uniform(*BLOCK_SIZES))
        size = BLOCK_SIZE + self.difficulty.randomization * (drawn - BLOCK_SIZE)
        return {"name": "one_block", "objects": [{"type": "block", "color": "red", "size": size}]}

    def observe(self, env: TabletopEnv) -> Array:
        assert self.target is not None
        motion, yaw = tool_and_object(env, self.target)
        relative = wrap_angle(4.0 * (yaw - claw_yaw(env)))
        opening, half = env.robot.gripper_width(env.data), block_half_size(env, self.target)
        return np.concatenate([*motion, [math.sin(relative), math.cos(relative), opening, half]])

    def achieved(self, env: TabletopEnv) -> Array:
        assert self.target is not None
        return env.data.xpos[env.model.body(self.target).id].copy()

    def sample_goal(self, env: TabletopEnv, rng: np.random.Generator) -> Array:
        assert self.target is not None
        half, level = block_half_size(env, self.target), self.difficulty
        air_share = AIR_SHARE if level.air_share is None else level.air_share
        highest = AIR_HEIGHT[1] if level.air_height is None else level.air_height
        lift = rng.uniform(AIR_HEIGHT[0], max(highest, AIR_HEIGHT[0]))
        lift = lift if rng.uniform() < air_share else 0.0
        start, cap = self.achieved(env), level.goal_distance
        while True:
            goal = np.array([rng.uniform(*GOAL_X), rng.uniform(*GOAL_Y), half + lift])
            if cap is not None:  # the same draw, pulled toward the start
                offset = goal - start
                goal = start + offset * min(1.0, cap / max(float(np.linalg.norm(offset)), 1e-9))
            distance = float(np.linalg.norm(goal - start))
            if in_reach(goal[0], goal[1]) and distance >= MIN_GOAL_DISTANCE:
                return goal

    @classmethod
    def expert_action(cls, obs: GoalObservation) -> Array:
        """The controllers' action: over the block with the fingers on two faces, down, close,
        then carry it (up, across, down) to the goal. Reactive: any state gets its action."""
        o = obs.observation
        tcp, block, half, opening = o[:3], o[6:9], float(o[18]), float(o[17])
        yaw_error = math.atan2(o[15], o[16]) / 4.0
        grasp_z = max(block[2], MIN_TCP_HEIGHT)
        over = float(np.linalg.norm(block[:2] - tcp[:2]))
        closed_on = opening <= 2 * half + GRASP_SLACK and abs(block[2] - tcp[2]) < half
        if closed_on and over < half:
            return _carry(tcp, block, obs.desired_goal, half)
        travel = block[2] + half + PAD_REACH + APPROACH_CLEARANCE
        yaw = yaw_error / MAX_ROTATION
        # Open as the pick controller does, the block's width and a margin: room for the fingers
        # beside it where neighbours stand close.
        opened = claw_command(2 * half + GRASP_MARGIN)
        if over > ALIGNED_XY or abs(yaw_error) > ALIGNED_YAW:
            low_beside = tcp[2] < travel - 0.01 and over < half + 0.05
            target = np.array([*tcp[:2], travel]) if low_beside else np.array([*block[:2], travel])
            return _action(target - tcp, yaw, opened)
        if tcp[2] > grasp_z + 0.004 and opening > 2 * half + GRASP_SLACK:
            return _action(np.array([*block[:2], grasp_z]) - tcp, yaw, opened)
        return _action(np.array([*block[:2], grasp_z]) - tcp, yaw, CLOSE)


def _carry(tcp: Array, block: Array, goal: Array, half: float) -> Array:
    """The held block up to carrying height, across, and down to the goal."""
    carry_z = max(goal[2], half + CARRY_CLEARANCE)
    far = float(np.linalg.norm(goal[:2] - block[:2])) > 0.02
    if far and block[2] < carry_z - 0.01:
        to = np.array([0.0, 0.0, carry_z - block[2]])
    elif far:
        to = np.array([*(goal[:2] - block[:2]), carry_z - block[2]])
    else:
        to = goal - block
    return _action(to, 0.0, CLOSE)


def _action(translation: Array, yaw: float, claw: float) -> Array:
    return np.clip(np.array([*(translation / MAX_TRANSLATION), yaw, claw]), -1.0, 1.0)
