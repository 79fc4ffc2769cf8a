"""Cameras as a robot has them: RGB and depth images rendered from the scene's cameras (fixed
to the world, or the ``wrist`` camera on the claw), with their intrinsics and the poses they are
believed to have.

With the sensor model on (``DomainRandomization.sensor_noise``), depth is noisy, quantised and
has holes at edges, RGB is noisy and its lighting varies, each camera sits a few millimetres and
a degree off its calibration, and frames arrive ``latency_steps`` control steps late
(:mod:`claw.envs.sensor_noise`).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import mujoco
import numpy as np
from numpy.typing import NDArray

from claw.envs import sensor_noise
from claw.envs.model import camera_names
from claw.envs.randomization import SensorNoise

MAX_RANGE = 3.0
"""Depth (m) beyond which a pixel returns nothing (the sky, the far floor)."""


@dataclass(frozen=True)
class Camera:
    """A calibrated pinhole camera: intrinsics and the pose it is believed to have.

    Attributes:
        name: The scene camera's name.
        height: Image rows.
        width: Image columns.
        fx: Focal length in pixels (columns).
        fy: Focal length in pixels (rows).
        cx: Principal point column.
        cy: Principal point row.
        position: (3,) camera centre in the world (m), as calibrated.
        rotation: (3, 3) world-from-camera rotation, as calibrated; the camera looks along its
            -z axis, image x to the right, image y up (MuJoCo's convention).
    """

    name: str
    height: int
    width: int
    fx: float
    fy: float
    cx: float
    cy: float
    position: NDArray[np.float64]
    rotation: NDArray[np.float64]

    @property
    def intrinsics(self) -> NDArray[np.float64]:
        """The 3x3 intrinsic matrix K (OpenCV's convention: image y down)."""
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    def back_project(self, depth: NDArray[np.float32]) -> NDArray[np.float32]:
        """World points (H x W x 3) of a depth image (m along the optical axis)."""
        rows, cols = np.indices(depth.shape, dtype=np.float32)
        x = (cols + 0.5 - self.cx) / self.fx * depth
        y = -(rows + 0.5 - self.cy) / self.fy * depth
        camera_points = np.stack([x, y, -depth], axis=-1)
        rotation = self.rotation.astype(np.float32)
        return camera_points @ rotation.T + self.position.astype(np.float32)

    def project(self, point: NDArray[np.float64]) -> tuple[float, float, float]:
        """Where a world point shows: (column, row, depth along the optical axis in m)."""
        x, y, z = self.rotation.T @ (np.asarray(point, dtype=np.float64) - self.position)
        depth = -z
        return self.cx + self.fx * x / depth - 0.5, self.cy - self.fy * y / depth - 0.5, depth


def check_cameras(model: mujoco.MjModel, cameras: tuple[str, ...]) -> None:
    """Raise ``ValueError`` naming the cameras the scene lacks, and the ones it has."""
    known = camera_names(model)
    unknown = [c for c in cameras if c not in known]
    if unknown or not cameras:
        raise ValueError(
            f"unknown camera(s) {unknown or '(none given)'}; allowed: {', '.join(known)}"
        )


def place(model: mujoco.MjModel, data: mujoco.MjData) -> None:
    """Pose every body, geom and camera of ``data`` from its joint positions."""
    mujoco.mj_kinematics(model, data)
    mujoco.mj_camlight(model, data)


def same_assets(old: mujoco.MjModel, new: mujoco.MjModel) -> bool:
    """Whether a renderer made for ``old`` can draw ``new``: the same textures, meshes,
    materials, skins, height fields and flexes (what a rendering context uploads), and as many
    geoms; primitives' sizes and poses are read from the model at each frame."""
    counts = ("ntex", "nmesh", "nmat", "nskin", "nhfield", "nflex", "ngeom", "ncam", "nlight")
    if any(getattr(old, n) != getattr(new, n) for n in counts):
        return False
    return bool(
        np.array_equal(old.tex_data, new.tex_data)
        and np.array_equal(old.mat_rgba, new.mat_rgba)
        and np.array_equal(old.mat_texid, new.mat_texid)
    )


class _Renderer(mujoco.Renderer):
    """MuJoCo's offscreen renderer, which can move on to a rebuilt model of the same scene
    without making a new rendering context (a quarter of a second each on a CPU)."""

    _model: mujoco.MjModel
    _scene: mujoco.MjvScene

    def retarget(self, model: mujoco.MjModel) -> bool:
        """Draw ``model`` from now on, if :func:`same_assets` allows; False (and unchanged)
        when it does not."""
        if not same_assets(self._model, model):
            return False
        self._model = model
        self._scene = mujoco.MjvScene(model=model, maxgeom=self._scene.maxgeom)
        return True


class CameraRig:
    """Renders the images of some of a model's cameras, as the sensor model says they arrive.

    Each control step's physics state is kept (:meth:`record`) so that frames can show the
    world ``latency_steps`` steps ago (:meth:`state`); :meth:`capture` renders one camera from a
    state, off its calibration by this episode's error, with the image noise applied.

    Args:
        model: The model whose cameras are rendered.
        cameras: Camera names.
        image_size: (height, width) of the images.

    Raises:
        ValueError: an unknown camera (the message lists the scene's cameras).
    """

    def __init__(
        self, model: mujoco.MjModel, cameras: tuple[str, ...], image_size: tuple[int, int]
    ) -> None:
        check_cameras(model, cameras)
        self.model = model
        self.names = tuple(cameras)
        self.image_size = image_size
        self.noise: SensorNoise | None = None
        self._renderer = _Renderer(model, *image_size)
        self._state = mujoco.MjData(model)
        self._history: deque[NDArray[np.float64]] = deque(maxlen=1)
        self._offsets: dict[str, tuple[NDArray[np.float64], NDArray[np.float64]]] = {}
        self._rng = np.random.default_rng(0)

    def retarget(self, model: mujoco.MjModel) -> None:
        """Render ``model`` from now on: the env rebuilt its model (objects' sizes changed)."""
        check_cameras(model, self.names)
        if not self._renderer.retarget(model):
            self._renderer.close()
            self._renderer = _Renderer(model, *self.image_size)
        self.model = model
        self._state = mujoco.MjData(model)

    def reset(self, seed: int | None, noise: SensorNoise | None) -> None:
        """Start an episode under ``noise`` (``None``: perfect cameras): draw each camera's
        calibration error and forget the frames kept."""
        self.noise = noise
        self._rng = np.random.default_rng(seed)
        self._history = deque(maxlen=(noise.latency_steps if noise is not None else 0) + 1)
        self._offsets = {}
        if noise is not None:
            for name in self.names:
                self._offsets[name] = sensor_noise.calibration_error(noise, self._rng)

    def record(self, qpos: NDArray[np.float64]) -> None:
        """Keep one control step's joint positions (the latest frame shows the oldest kept)."""
        self._history.append(qpos.copy())

    def state(self, qpos: NDArray[np.float64]) -> mujoco.MjData:
        """The state the cameras show now: the oldest step kept (``qpos`` when none is), posed."""
        if not self._history:
            self.record(qpos)
        data = self._state
        data.qpos[:] = self._history[0]
        place(self.model, data)
        return data

    def camera(self, name: str, data: mujoco.MjData) -> Camera:
        """Camera ``name`` as calibrated, posed as in ``data`` (placed): its intrinsics and
        the pose it is believed to have."""
        cam = self.model.camera(name)
        height, width = self.image_size
        fy = 0.5 * height / math.tan(math.radians(float(cam.fovy[0])) / 2)
        return Camera(
            name=name,
            height=height,
            width=width,
            fx=fy,
            fy=fy,
            cx=width / 2,
            cy=height / 2,
            position=data.cam_xpos[cam.id].copy(),
            rotation=data.cam_xmat[cam.id].reshape(3, 3).copy(),
        )

    def capture(
        self, name: str, data: mujoco.MjData
    ) -> tuple[NDArray[np.uint8], NDArray[np.float32]]:
        """RGB (H x W x 3, uint8) and depth (H x W, m along the optical axis; 0 where none) of
        camera ``name`` showing ``data`` (placed), as the sensor model gives them."""
        with self._off_calibration(name, data):
            self._renderer.update_scene(data, camera=name)
            rgb = self._renderer.render().copy()
            depth = self._depth(name, data, noisy=False)
        if self.noise is not None:  # RGB's noise drawn first, as a run's seeds have always given
            rgb = sensor_noise.rgb(rgb, self.noise, self._rng)
            depth = sensor_noise.depth(depth, self.noise, self._rng)
        return rgb, depth

    def capture_depth(self, name: str, data: mujoco.MjData) -> NDArray[np.float32]:
        """Depth alone (as :meth:`capture` gives it), at half the rendering cost."""
        with self._off_calibration(name, data):
            return self._depth(name, data)

    def _depth(self, name: str, data: mujoco.MjData, noisy: bool = True) -> NDArray[np.float32]:
        renderer = self._renderer
        renderer.enable_depth_rendering()
        try:
            renderer.update_scene(data, camera=name)
            depth = renderer.render().astype(np.float32)
        finally:
            renderer.disable_depth_rendering()
        depth[depth > MAX_RANGE] = 0.0
        if noisy and self.noise is not None:
            depth = sensor_noise.depth(depth, self.noise, self._rng)
        return depth

    @contextmanager
    def _off_calibration(self, name: str, data: mujoco.MjData) -> Iterator[None]:
        """Camera ``name`` where it truly is (its calibration error applied) for a while."""
        if name not in self._offsets:
            yield
            return
        model, cam = self.model, self.model.camera(name)
        nominal = (model.cam_pos[cam.id].copy(), model.cam_quat[cam.id].copy())
        shift, turn = self._offsets[name]
        model.cam_pos[cam.id] = nominal[0] + shift
        quat = np.empty(4)
        mujoco.mju_mulQuat(quat, nominal[1], turn)
        model.cam_quat[cam.id] = quat
        place(model, data)
        try:
            yield
        finally:
            model.cam_pos[cam.id], model.cam_quat[cam.id] = nominal
            place(model, data)

    def close(self) -> None:
        """Free the renderer."""
        self._renderer.close()
