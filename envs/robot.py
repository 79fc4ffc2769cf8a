"""The arm and its claw: named joints and actuators, tool-point kinematics, differential IK."""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]

ARM_JOINTS: tuple[str, ...] = (
    "shoulder_pan",
    "shoulder_lift",
    "elbow",
    "forearm_roll",
    "wrist_pitch",
    "wrist_roll",
)
FINGER_JOINTS: tuple[str, str] = ("left_finger", "right_finger")
GRIPPER_ACTUATOR = "gripper"
TCP_SITE = "tcp"
PAD_SITES: tuple[str, str] = ("left_pad", "right_pad")
PAD_GEOMS: tuple[str, str] = ("left_pad", "right_pad")
FINGER_BODIES: tuple[str, str] = ("left_finger", "right_finger")
REST_KEY = "rest"
MAX_HALF_OPENING = 0.045  # m per finger; the claw opens to 9.5 cm between the pads
PAD_CLEARANCE = 0.005  # distance between the pads' inner faces when fully closed
GRASP_MARGIN = 0.025  # m the claw opens beyond an object's width before closing on it
PAD_REACH = 0.015  # m: the pads end this far below the tool point
MIN_TCP_HEIGHT = 0.02  # m: the lowest tool height (the fingertips end 1.5 cm below the tool point)
HAND_ABOVE_TCP = 0.08  # m: the palm's underside above the tool point
# Half extents (m) of the palm, flange and wrist seen from above, in the tool frame (y: the
# fingers' closing axis): what sweeps past objects taller than HAND_ABOVE_TCP above the tool point.
HAND_HALF_EXTENTS = (0.036, 0.06)

# Claw pointing down (the wrist pitched by pi); with yaw 0 the fingers close along world y.
DOWN = np.array([[-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]])


def tool_rotation(yaw: float, pitch: float = 0.0) -> Array:
    """World rotation of the tool frame: pointing down, turned by ``yaw`` about z, and tilted by
    ``pitch`` about the fingers' closing axis (``pi / 2``: level, along (cos yaw, sin yaw))."""
    c, s = np.cos(yaw), np.sin(yaw)
    cp, sp = np.cos(pitch), np.sin(pitch)
    turn = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    tilt = np.array([[cp, 0.0, -sp], [0.0, 1.0, 0.0], [sp, 0.0, cp]])
    return turn @ tilt @ DOWN


def down_rotation(yaw: float) -> Array:
    """World rotation of the tool frame for the claw pointing down, turned by ``yaw`` about z."""
    return tool_rotation(yaw)


def tool_yaw(rotation: Array) -> float:
    """Yaw of a tool frame about world z: the angle of its finger axis (y) from world y.

    ``rotation`` is a 3x3 matrix or its 9 entries in row-major order (as in ``site_xmat``).
    """
    flat = rotation.ravel()
    return math.atan2(-flat[1], flat[4])


def tool_pitch(rotation: Array) -> float:
    """How far a tool frame tilts from pointing down (rad) toward the direction its yaw faces."""
    flat = rotation.ravel()
    yaw = tool_yaw(rotation)
    ahead = flat[2] * math.cos(yaw) + flat[5] * math.sin(yaw)  # the tool z axis along (cos, sin)
    return math.atan2(ahead, -flat[8])


def _rotation_error(target: Array, current: Array, out: Array | None = None) -> Array:
    """Rotation vector taking ``current`` to ``target`` (both 3x3 world rotation matrices)."""
    relative = np.empty((3, 3))
    mujoco.mju_mulMatMatT(relative, target, current)
    quat = np.empty(4)
    mujoco.mju_mat2Quat(quat, relative.ravel())
    out = np.empty(3) if out is None else out
    mujoco.mju_quat2Vel(out, quat, 1.0)
    return out


@dataclass(frozen=True)
class RobotIndex:
    """Addresses of the robot's joints, actuators and sites inside a compiled model."""

    arm_qpos: NDArray[np.int64]
    arm_dofs: NDArray[np.int64]
    arm_actuators: NDArray[np.int64]
    finger_qpos: NDArray[np.int64]
    gripper_actuator: int
    tcp_site: int
    pad_sites: tuple[int, int]
    pad_geoms: tuple[int, int]
    finger_bodies: tuple[int, int]
    joint_low: Array
    joint_high: Array
    rest_qpos: Array
    hand_body: int = -1
    prefix: str = ""
    """The prefix of this arm's names in the model (``""`` for the first arm, ``"right/"``)."""

    @classmethod
    def from_model(cls, model: mujoco.MjModel, prefix: str = "") -> RobotIndex:
        """The addresses of the arm whose MJCF names carry ``prefix``."""

        def oid(kind: mujoco.mjtObj, name: str) -> int:
            return mujoco.mj_name2id(model, kind, prefix + name)

        def jid(name: str) -> int:
            return oid(mujoco.mjtObj.mjOBJ_JOINT, name)

        def pair(kind: mujoco.mjtObj, names: tuple[str, str]) -> tuple[int, int]:
            return oid(kind, names[0]), oid(kind, names[1])

        arm = [jid(n) for n in ARM_JOINTS]
        key = oid(mujoco.mjtObj.mjOBJ_KEY, REST_KEY)
        arm_qpos = np.array([model.jnt_qposadr[j] for j in arm])
        return cls(
            arm_qpos=arm_qpos,
            arm_dofs=np.array([model.jnt_dofadr[j] for j in arm]),
            arm_actuators=np.array([oid(mujoco.mjtObj.mjOBJ_ACTUATOR, n) for n in ARM_JOINTS]),
            finger_qpos=np.array([model.jnt_qposadr[jid(n)] for n in FINGER_JOINTS]),
            gripper_actuator=oid(mujoco.mjtObj.mjOBJ_ACTUATOR, GRIPPER_ACTUATOR),
            tcp_site=oid(mujoco.mjtObj.mjOBJ_SITE, TCP_SITE),
            pad_sites=pair(mujoco.mjtObj.mjOBJ_SITE, PAD_SITES),
            pad_geoms=pair(mujoco.mjtObj.mjOBJ_GEOM, PAD_GEOMS),
            finger_bodies=pair(mujoco.mjtObj.mjOBJ_BODY, FINGER_BODIES),
            joint_low=model.jnt_range[arm, 0].copy(),
            joint_high=model.jnt_range[arm, 1].copy(),
            rest_qpos=model.key_qpos[key][arm_qpos].copy(),
            hand_body=oid(mujoco.mjtObj.mjOBJ_BODY, "hand"),
            prefix=prefix,
        )

    def gripper_width(self, data: mujoco.MjData) -> float:
        """Distance between the pads' inner faces (m)."""
        return float(data.qpos[self.finger_qpos].sum() + PAD_CLEARANCE)


class DifferentialIK:
    """Damped least-squares IK for the tool point, on a scratch copy of the model's data.

    Solves for the six arm joints that put the tool centre point at a position with a given
    orientation, warm-started from a guess, respecting the joint limits. The live simulation
    state is never touched.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        index: RobotIndex,
        damping: float = 1e-3,
        max_iterations: int = 20,
        position_tolerance: float = 1e-4,
        rotation_tolerance: float = 1e-3,
    ) -> None:
        self.model = model
        self.index = index
        self.damping = damping
        self.max_iterations = max_iterations
        self.position_tolerance = position_tolerance
        self.rotation_tolerance = rotation_tolerance
        self._data = mujoco.MjData(model)
        self._jacp = np.zeros((3, model.nv))
        self._jacr = np.zeros((3, model.nv))
        self._jac = np.zeros((6, 6))
        self._error = np.zeros(6)
        self._rot_error = np.zeros(3)
        self._hessian = np.zeros((6, 6))
        self._solution = np.zeros(6)

    def tool_pose(self, qpos_arm: Array) -> tuple[Array, Array]:
        """Forward kinematics: tool position and rotation for arm joint positions."""
        self._data.qpos[self.index.arm_qpos] = qpos_arm
        mujoco.mj_kinematics(self.model, self._data)
        site = self.index.tcp_site
        return self._data.site_xpos[site].copy(), self._data.site_xmat[site].reshape(3, 3).copy()

    def solve(
        self, position: Array, rotation: Array, guess: Array, max_iterations: int | None = None
    ) -> tuple[Array, float, float]:
        """Joint positions reaching ``position``/``rotation`` from ``guess``.

        Returns:
            The joint positions, and the remaining position (m) and rotation (rad) errors.
        """
        model, data, idx = self.model, self._data, self.index
        low, high, dofs = idx.joint_low, idx.joint_high, idx.arm_dofs
        q = np.minimum(np.maximum(np.asarray(guess, dtype=np.float64), low), high)
        pos_tol2, rot_tol2 = self.position_tolerance**2, self.rotation_tolerance**2
        error, jac, site = self._error, self._jac, idx.tcp_site
        hessian, solution = self._hessian, self._solution
        pos_err2 = rot_err2 = np.inf
        for _ in range(max_iterations or self.max_iterations):
            data.qpos[idx.arm_qpos] = q
            mujoco.mj_kinematics(model, data)
            np.subtract(position, data.site_xpos[site], out=error[:3])
            _rotation_error(rotation, data.site_xmat[site].reshape(3, 3), self._rot_error)
            error[3:] = self._rot_error
            pos_err2, rot_err2 = float(error[:3] @ error[:3]), float(error[3:] @ error[3:])
            if pos_err2 < pos_tol2 and rot_err2 < rot_tol2:
                break
            mujoco.mj_comPos(model, data)
            mujoco.mj_jacSite(model, data, self._jacp, self._jacr, site)
            jac[:3], jac[3:] = self._jacp[:, dofs], self._jacr[:, dofs]
            # (J J^T + damping I) x = error by Cholesky; mujoco's routines beat numpy's at 6x6.
            mujoco.mju_mulMatMatT(hessian, jac, jac)
            hessian.flat[::7] += self.damping
            mujoco.mju_cholFactor(hessian, 0.0)
            mujoco.mju_cholSolve(solution, hessian, error)
            q = np.minimum(np.maximum(q + jac.T @ solution, low), high)
        return q, float(np.sqrt(pos_err2)), float(np.sqrt(rot_err2))
