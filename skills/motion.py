"""Motion for controller skills: minimum-jerk paths of the tool point, IK, PD through actuators.

A :class:`Claw` drives a :class:`~claw.envs.TabletopEnv` at 50 Hz: each control period it
interpolates a minimum-jerk path of the tool point (position, yaw, and a tilt from pointing down:
0 unless a skill asks, as a handover's receiving claw does), solves
the damped least-squares IK for the six joints, and hands the joint targets to the position
actuators (the joints' PD loops). It watches contacts to know what the claw touched and whether
both fingers hold something.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from claw.envs.geometry import wrap_angle
from claw.envs.robot import (
    FINGER_JOINTS,
    MAX_HALF_OPENING,
    PAD_CLEARANCE,
    tool_pitch,
    tool_rotation,
    tool_yaw,
)
from claw.envs.state import SETTLED_SPEED
from claw.envs.tabletop import TabletopEnv

CONTROL_SUBSTEPS = 10  # physics steps per control period: 50 Hz at the 2 ms timestep
MAX_SPEED = 0.5  # m/s, peak tool-point speed along a path
MAX_YAW_RATE = 2.5  # rad/s, peak turning rate (yaw or tilt)
MIN_DURATION = 0.15  # s, shortest path
REACH_TOLERANCE = 0.002  # m, IK error above which a target counts as out of reach
SETTLE_TOLERANCE = 0.002  # m, tool-point error at which a motion has arrived
SETTLE_TIME = 1.5  # s: the longest a skill waits for the scene to come to rest before judging
TILTED = 0.05  # rad: a claw tilted less than this from pointing down counts as pointing down
ARM_STILL = 0.02  # rad/s (m/s for the fingers): joint speeds at which the claw counts as still


def min_jerk(s: float) -> float:
    """Minimum-jerk progress (0 to 1, zero velocity and acceleration at both ends) at ``s``."""
    s = min(max(s, 0.0), 1.0)
    return s * s * s * (10.0 - 15.0 * s + 6.0 * s * s)


@dataclass(frozen=True)
class Arrival:
    """How a motion ended: whether the tool point arrived, and how far from the target."""

    reached: bool
    error: float


class Claw:
    """One arm and claw of an env (the arm the caller drives), through its actuators at 50 Hz."""

    def __init__(self, env: TabletopEnv) -> None:
        self.env = env
        self.model, self.data, self.robot = env.model, env.data, env.robot
        self.ik = env.ik
        self.q = self.data.ctrl[self.robot.arm_actuators].copy()
        self.grip_target = float(self.data.ctrl[self.robot.gripper_actuator])
        tilt = tool_pitch(self.ik.tool_pose(self.q)[1])
        self.pitch = tilt if abs(tilt) > TILTED else 0.0
        """The commanded tilt from pointing down (rad): 0 unless a skill tilts the claw."""
        self.start_time = float(self.data.time)
        self.touched: set[str] = set()
        finger_geoms = np.zeros(self.model.ngeom, dtype=bool)
        hand, prefix = self.robot.hand_body, self.robot.prefix
        for g in range(self.model.ngeom):
            body = self.model.geom_bodyid[g]
            finger_geoms[g] = body == hand or body in self.robot.finger_bodies
        self._claw_geom = finger_geoms
        self._object_of_geom = env.geom_objects
        self._finger_dof = int(self.model.jnt_dofadr[self.model.joint(prefix + "left_finger").id])
        self._robot_dofs = np.concatenate(
            [
                self.robot.arm_dofs,
                [self.model.jnt_dofadr[self.model.joint(prefix + n).id] for n in FINGER_JOINTS],
            ]
        ).astype(int)

    # -- state ----------------------------------------------------------------------------------

    @property
    def elapsed(self) -> float:
        """Simulated seconds since this claw took control."""
        return float(self.data.time) - self.start_time

    def tcp(self) -> tuple[np.ndarray, float]:
        """The measured tool-point position and yaw."""
        site = self.robot.tcp_site
        return self.data.site_xpos[site].copy(), tool_yaw(self.data.site_xmat[site])

    def target_pose(self) -> tuple[np.ndarray, float]:
        """The tool pose the current joint targets command (where the arm is headed)."""
        position, rotation = self.ik.tool_pose(self.q)
        return position, tool_yaw(rotation)

    def gripper_width(self) -> float:
        """Distance between the pads' inner faces (m)."""
        return self.robot.gripper_width(self.data)

    def finger_contacts(self) -> tuple[set[str], set[str]]:
        """Objects touching the left and the right finger now. Through a perceiver, touch
        tells that a pad touches an object, not which (two look-alike blocks feel the same):
        the object is the one the robot believes its claw closed on."""
        left, right = self.env.finger_contacts()
        if self.env.perception is None:
            return left, right
        gripper = self.env.world_state().gripper
        held = set(gripper.left_contacts) if gripper is not None else set()
        return (held if left else set()), (held if right else set())

    # -- control --------------------------------------------------------------------------------

    def _advance(self, substeps: int = CONTROL_SUBSTEPS) -> None:
        self.env.actuate(self.q, self.grip_target, substeps)
        ncon = self.data.ncon
        if ncon:
            geoms = self.data.contact.geom[:ncon]
            for g1, g2 in geoms[self._claw_geom[geoms[:, 0]] | self._claw_geom[geoms[:, 1]]]:
                obj = max(self._object_of_geom[g1], self._object_of_geom[g2])
                if obj >= 0:
                    self.touched.add(self.env.object_names[obj])

    def solve(
        self, position: np.ndarray, yaw: float, pitch: float = 0.0
    ) -> tuple[np.ndarray, float]:
        """Joint positions for the tool pose (claw down unless tilted by ``pitch``) near the
        current targets, and the position error."""
        rotation = tool_rotation(yaw, pitch)
        q, pos_err, _ = self.ik.solve(position, rotation, self.q, max_iterations=60)
        return q, pos_err

    def reachable(self, position: np.ndarray, yaw: float, pitch: float = 0.0) -> bool:
        """True when the claw can reach ``position`` at ``yaw`` (pointing down, or tilted)."""
        return self.solve(np.asarray(position, dtype=float), yaw, pitch)[1] <= REACH_TOLERANCE

    def move(
        self,
        position: np.ndarray,
        yaw: float | None = None,
        speed: float = MAX_SPEED,
        settle_time: float = 1.0,
        tolerance: float = SETTLE_TOLERANCE,
        pitch: float | None = None,
    ) -> Arrival:
        """Move the tool point along a minimum-jerk path to ``position``, turning to ``yaw`` and
        tilting to ``pitch`` (each kept when ``None``; the claw starts pointing down); then
        wait to arrive."""
        start, start_yaw = self.target_pose()
        start_pitch = self.pitch
        goal = np.asarray(position, dtype=float)
        turn = wrap_angle((start_yaw if yaw is None else yaw) - start_yaw)
        tilt = (start_pitch if pitch is None else pitch) - start_pitch
        distance = float(np.linalg.norm(goal - start))
        rotation = max(abs(turn), abs(tilt))
        duration = max(MIN_DURATION, 1.875 * distance / speed, 1.875 * rotation / MAX_YAW_RATE)
        period = CONTROL_SUBSTEPS * self.model.opt.timestep
        steps = max(1, math.ceil(duration / period))
        for k in range(1, steps + 1):
            s = min_jerk(k / steps)
            orientation = tool_rotation(start_yaw + s * turn, start_pitch + s * tilt)
            self.q = self.ik.solve(start + s * (goal - start), orientation, self.q, 3)[0]
            self._advance()
        self.pitch = start_pitch + tilt
        self.q, _ = self.solve(goal, start_yaw + turn, self.pitch)
        return self.settle(goal, settle_time, tolerance)

    def settle(self, goal: np.ndarray, max_time: float, tolerance: float) -> Arrival:
        """Hold the current targets until the tool point is within ``tolerance`` and still."""
        period = CONTROL_SUBSTEPS * self.model.opt.timestep
        error = float(np.linalg.norm(self.data.site_xpos[self.robot.tcp_site] - goal))
        for _ in range(math.ceil(max_time / period)):
            speed = float(np.abs(self.data.qvel[self.robot.arm_dofs]).max())
            if error <= tolerance and speed < 0.02:
                return Arrival(True, error)
            self._advance()
            error = float(np.linalg.norm(self.data.site_xpos[self.robot.tcp_site] - goal))
        return Arrival(error <= tolerance, error)

    def move_joints(self, target: np.ndarray, speed: float = 1.5, settle_time: float = 1.0) -> bool:
        """Move the joints along a minimum-jerk path to ``target`` (rad); True when arrived."""
        start = self.q.copy()
        target = np.clip(target, self.robot.joint_low, self.robot.joint_high)
        duration = max(MIN_DURATION, 1.875 * float(np.abs(target - start).max()) / speed)
        period = CONTROL_SUBSTEPS * self.model.opt.timestep
        steps = max(1, math.ceil(duration / period))
        for k in range(1, steps + 1):
            self.q = start + min_jerk(k / steps) * (target - start)
            self._advance()
        for _ in range(math.ceil(settle_time / period)):
            error = np.abs(self.data.qpos[self.robot.arm_qpos] - target).max()
            if error < 0.005 and np.abs(self.data.qvel[self.robot.arm_dofs]).max() < 0.02:
                return True
            self._advance()
        return bool(np.abs(self.data.qpos[self.robot.arm_qpos] - target).max() < 0.005)

    def grip(self, width: float, max_time: float = 0.8) -> float:
        """Drive the fingers toward a pad-to-pad ``width`` (m) until they stop; returns the width.

        Closing on an object stops at the object: the squeeze is bounded by the actuator's force
        limit, so the claw holds by friction.
        """
        self.grip_target = min(max((width - PAD_CLEARANCE) / 2, 0.0), MAX_HALF_OPENING)
        period = CONTROL_SUBSTEPS * self.model.opt.timestep
        for k in range(math.ceil(max_time / period)):
            self._advance()
            if k >= 10 and abs(float(self.data.qvel[self._finger_dof])) < 0.005:
                break
        return self.gripper_width()

    def open(self, width: float | None = None) -> float:
        """Open the claw (fully, or to ``width`` m between the pads)."""
        return self.grip(2 * MAX_HALF_OPENING + PAD_CLEARANCE if width is None else width)

    def close(self) -> float:
        """Close the claw until it stops, on an object or on itself."""
        return self.grip(0.0)

    def wait(self, seconds: float) -> None:
        """Hold still for ``seconds`` of simulated time."""
        period = CONTROL_SUBSTEPS * self.model.opt.timestep
        for _ in range(math.ceil(seconds / period)):
            self._advance()

    def still(self, speed: float = SETTLED_SPEED, arm: bool = False) -> bool:
        """True when every object moves slower than ``speed`` (m/s) and, with ``arm``, the arm's
        and the fingers' joints turn slower than ``ARM_STILL`` (rad/s, m/s)."""
        speeds = self.env.object_speeds_here()
        if speeds.size and float(np.max(speeds)) >= speed:
            return False
        if arm:
            moving = np.abs(self.data.qvel[self._robot_dofs])
            return bool(moving.size == 0 or float(moving.max()) < ARM_STILL)
        return True

    def wait_settled(
        self, max_time: float = SETTLE_TIME, speed: float = SETTLED_SPEED, arm: bool = False
    ) -> bool:
        """Hold the actuators' targets until the scene is at rest (:meth:`still`), at most
        ``max_time`` simulated seconds; True if it came to rest. Skills measure their outcome
        after this, and fail when it returns False."""
        period = CONTROL_SUBSTEPS * self.model.opt.timestep
        for _ in range(math.ceil(max_time / period)):
            if self.still(speed, arm):
                return True
            self._advance()
        return self.still(speed, arm)
