"""Steering the claw by tool-point deltas: a target that leads the measured tool point, and IK."""

from __future__ import annotations

import numpy as np

from claw.envs.robot import Array, DifferentialIK, down_rotation, tool_yaw

# End-effector target box (m): the IK target never leaves it.
TARGET_LOW = np.array([0.12, -0.55, 0.0])
TARGET_HIGH = np.array([0.82, 0.55, 0.55])
MAX_TARGET_LEAD = 0.04  # m: the target stays this close to the measured tool point (no wind-up)


class ToolTarget:
    """Where the claw is steered: a tool-point position and yaw, claw pointing down.

    Each :meth:`step` moves the target by a delta, keeps it within ``MAX_TARGET_LEAD`` of the
    measured tool point and inside the target box, and returns the joint targets IK finds for it.
    """

    def __init__(self, ik: DifferentialIK, q: Array) -> None:
        self.ik = ik
        self.q = np.array(q, dtype=np.float64)
        self.position, rotation = ik.tool_pose(self.q)
        self.yaw = tool_yaw(rotation)

    def step(self, measured: Array, translation: Array, yaw_delta: float = 0.0) -> Array:
        """Move the target by ``translation`` (m) and ``yaw_delta`` (rad); the new joint targets."""
        lead_low, lead_high = measured - MAX_TARGET_LEAD, measured + MAX_TARGET_LEAD
        target = np.minimum(np.maximum(self.position + translation, lead_low), lead_high)
        self.position = np.minimum(np.maximum(target, TARGET_LOW), TARGET_HIGH)
        self.yaw = min(max(self.yaw + yaw_delta, -np.pi), np.pi)
        self.q, _, _ = self.ik.solve(self.position, down_rotation(self.yaw), self.q)
        return self.q
