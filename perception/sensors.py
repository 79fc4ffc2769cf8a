"""What a robot's sensors give: RGB-D frames from calibrated cameras and the arm's own readings.

:class:`Sensors` is the only part of ``claw.perception`` that touches MuJoCo, and it reads what a
real robot has: images rendered from the scene's cameras (with each camera's intrinsics and
its calibrated extrinsics) and the arm's joint encoders, turned into the claw's pose by the
arm's own kinematics. It never reads an object's pose, a segmentation render or an object's
geoms.

With the sensor model on (``DomainRandomization.sensor_noise``), depth is noisy, quantised and
has holes at edges, RGB is noisy and its lighting varies, each camera sits a few millimetres and
a degree off its calibration, and frames arrive ``latency_steps`` control steps late.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING

import mujoco
import numpy as np
from numpy.typing import NDArray

from claw.envs.cameras import Camera, CameraRig, place
from claw.envs.randomization import SensorNoise
from claw.envs.robot import PAD_CLEARANCE, tool_yaw

if TYPE_CHECKING:
    from claw.envs.tabletop import TabletopEnv

DEFAULT_CAMERAS = ("front", "side")
"""The views the ``camera`` perceiver uses unless told otherwise."""
DEFAULT_IMAGE_SIZE = (240, 320)
"""(height, width) of each view's images."""
CLOSING_TARGET = 0.005
"""A claw commanded to a half opening below this (m) is closing on whatever it holds."""
ARM_ROOT = "base"
"""The body every link of an arm hangs from (the arm's prefix before it)."""


@dataclass(frozen=True)
class Frame:
    """One view's images: RGB (H x W x 3, uint8) and depth (H x W, m; 0 where none)."""

    camera: Camera
    rgb: NDArray[np.uint8]
    depth: NDArray[np.float32]


@dataclass(frozen=True)
class ArmReadings:
    """What the arm knows of itself: joint encoders, the claw's opening and its command, and
    the pose of the claw by the arm's own kinematics.

    Attributes:
        arm: The arm's name.
        joints: The six arm joint angles (rad).
        opening: Distance between the finger pads (m).
        closing: Whether the claw was last commanded to close.
        left_pad: (3,) left finger pad centre (m).
        right_pad: (3,) right finger pad centre (m).
        tcp: (3,) the tool point between the pads (m).
        tcp_yaw: The claw's heading about +z (rad).
    """

    arm: str
    joints: NDArray[np.float64]
    opening: float
    closing: bool
    left_pad: NDArray[np.float64]
    right_pad: NDArray[np.float64]
    tcp: NDArray[np.float64]
    tcp_yaw: float


class ShapeKind(IntEnum):
    """The kinds of the arm's visible shapes."""

    BOX = 0
    CYLINDER = 1
    CAPSULE = 2
    SPHERE = 3


@dataclass(frozen=True)
class SelfShape:
    """The arms' visible shapes at the instant a frame shows, from the arms' own kinematics:
    (N, 3) centres, (N, 3, 3) rotations, (N, 3) half sizes of their bounding boxes and (N,)
    :class:`ShapeKind` s. Points inside are the robot, not objects (a self filter); the arm as
    seen checks each camera's calibration."""

    centres: NDArray[np.float64]
    rotations: NDArray[np.float64]
    half_sizes: NDArray[np.float64]
    kinds: NDArray[np.int64]


@dataclass(frozen=True)
class SensorReading:
    """Everything the sensors give at one instant: frames from each camera, every arm's
    readings, the simulated time the frames show, and the catalogue of what may be on the
    table (names, types, colours: the detector's vocabulary, no poses or sizes)."""

    frames: tuple[Frame, ...]
    robot: SelfShape
    arms: dict[str, ArmReadings]
    acting_arm: str
    time: float
    vocabulary: tuple[tuple[str, str, str], ...]
    arm_log: tuple[tuple[float, dict[str, ArmReadings]], ...] = ()
    """The arms' readings at every control step since the last reading (time, by arm)."""


_KINDS = {
    mujoco.mjtGeom.mjGEOM_CYLINDER: ShapeKind.CYLINDER,
    mujoco.mjtGeom.mjGEOM_CAPSULE: ShapeKind.CAPSULE,
    mujoco.mjtGeom.mjGEOM_SPHERE: ShapeKind.SPHERE,
}


def _kind(model: mujoco.MjModel, geom: int) -> ShapeKind:
    """A geom's shape kind (anything else is taken as its bounding box)."""
    return _KINDS.get(mujoco.mjtGeom(int(model.geom_type[geom])), ShapeKind.BOX)


def _half_size(model: mujoco.MjModel, geom: int) -> NDArray[np.float64]:
    """Half sizes of the box bounding a geom, in its own frame (a cylinder's or a capsule's
    axis is its z)."""
    size = model.geom_size[geom]
    kind = _kind(model, geom)
    if kind == ShapeKind.SPHERE:
        return np.full(3, size[0])
    if kind == ShapeKind.CYLINDER:
        return np.array([size[0], size[0], size[1]])
    if kind == ShapeKind.CAPSULE:
        return np.array([size[0], size[0], size[1] + size[0]])
    if mujoco.mjtGeom(int(model.geom_type[geom])) == mujoco.mjtGeom.mjGEOM_BOX:
        return size.copy()
    return np.full(3, model.geom_rbound[geom])


class Sensors:
    """The cameras and the arm's readings of one env, captured on demand.

    Args:
        env: The env whose cameras are read (its model and its data).
        cameras: Scene camera names; :data:`DEFAULT_CAMERAS` without them.
        image_size: (height, width) of each view.

    Raises:
        ValueError: an unknown camera (the message lists the scene's cameras).
    """

    def __init__(
        self,
        env: TabletopEnv,
        cameras: tuple[str, ...] = DEFAULT_CAMERAS,
        image_size: tuple[int, int] = DEFAULT_IMAGE_SIZE,
    ) -> None:
        model = env.model
        self.rig = CameraRig(model, tuple(cameras), image_size)
        self.env = env
        self.model = model
        self.names = tuple(cameras)
        self.image_size = image_size
        self._arm_log: list[tuple[float, dict[str, ArmReadings]]] = []
        self._arm_geoms = self._robot_geoms()
        calibration = mujoco.MjData(model)  # the scene's cameras are fixed to the world
        place(model, calibration)
        self.cameras = {name: self.rig.camera(name, calibration) for name in self.names}
        """Each view's camera as calibrated."""
        env.step_callbacks.append(self._record)

    def _robot_geoms(self) -> NDArray[np.int64]:
        """The arms' visible geoms (those rendered), for the self filter."""
        model = self.model
        roots = [model.body(robot.prefix + ARM_ROOT).id for robot in self.env.robots.values()]
        bodies = [b for b in range(model.nbody) if any(_has_ancestor(model, b, r) for r in roots)]
        visible = model.geom_rgba[:, 3] > 0
        geoms = np.flatnonzero(np.isin(model.geom_bodyid, bodies) & visible)
        self._half_sizes = np.array([_half_size(model, int(g)) for g in geoms]).reshape(-1, 3)
        self._kinds = np.array([_kind(model, int(g)) for g in geoms], dtype=np.int64)
        return geoms

    def serve(self, env: TabletopEnv) -> bool:
        """Whether these sensors still read ``env`` (its model is rebuilt when its objects
        change)."""
        return self.env is env and self.model is env.model

    # -- episode ---------------------------------------------------------------------------------

    def reset(self, seed: int | None) -> None:
        """Start an episode: draw this episode's calibration error and clear the frame queue."""
        self.rig.reset(seed, self.noise)
        self._arm_log = []
        self._record(self.env)

    @property
    def noise(self) -> SensorNoise | None:
        """The sensor model of this episode, when it is on."""
        config = self.env.sensor_noise
        return config.sensor if config is not None else None

    def _record(self, env: TabletopEnv) -> None:
        """Keep the physics state each control step shows (for late frames), and the arms'
        readings at each step (the encoders run faster than the cameras)."""
        self.rig.record(env.data.qpos)
        self._arm_log.append((float(env.data.time), {arm: self._arm(arm) for arm in env.robots}))

    # -- capture --------------------------------------------------------------------------------

    def read(self) -> SensorReading:
        """Capture every camera and every arm now (frames as late as the sensor model says)."""
        env = self.env
        data = self.rig.state(env.data.qpos)
        rig = self.rig
        frames = tuple(Frame(self.cameras[name], *rig.capture(name, data)) for name in self.names)
        geoms = self._arm_geoms
        robot = SelfShape(
            data.geom_xpos[geoms].copy(),
            data.geom_xmat[geoms].reshape(-1, 3, 3).copy(),
            self._half_sizes,
            self._kinds,
        )
        arms = {arm: self._arm(arm) for arm in env.robots}
        log, self._arm_log = tuple(self._arm_log), []
        return SensorReading(
            frames, robot, arms, env.arms.current, float(env.data.time), env.vocabulary, log
        )

    def _arm(self, arm: str) -> ArmReadings:
        data = self.env.data
        robot = self.env.robots[arm]
        return ArmReadings(
            arm=arm,
            joints=data.qpos[robot.arm_qpos].copy(),
            opening=float(data.qpos[robot.finger_qpos].sum() + PAD_CLEARANCE),
            closing=float(data.ctrl[robot.gripper_actuator]) < CLOSING_TARGET,
            left_pad=data.site_xpos[robot.pad_sites[0]].copy(),
            right_pad=data.site_xpos[robot.pad_sites[1]].copy(),
            tcp=data.site_xpos[robot.tcp_site].copy(),
            tcp_yaw=tool_yaw(data.site_xmat[robot.tcp_site]),
        )

    def close(self) -> None:
        """Free the renderer and stop recording the env's steps."""
        if self._record in self.env.step_callbacks:
            self.env.step_callbacks.remove(self._record)
        self.rig.close()


def _has_ancestor(model: mujoco.MjModel, body: int, root: int) -> bool:
    while body > 0:
        if body == root:
            return True
        body = int(model.body_parentid[body])
    return body == root
