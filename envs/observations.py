"""What a training env shows a policy: its observation modes, camera views and frame stacks.

``obs_mode`` picks the keys of a :class:`~claw.envs.goal.GoalEnv`'s ``Dict`` observation, shaped
as Stable-Baselines3's ``MultiInputPolicy`` expects (flat keys, images channel-first uint8):

========================  ==================================================================
mode                      keys
========================  ==================================================================
``state``                 ``observation``, ``achieved_goal``, ``desired_goal`` (object state)
``depth``                 ``depth``, ``proprio``, ``desired_goal`` (no object state)
``rgbd``                  ``rgb``, ``depth``, ``proprio``, ``desired_goal``
``state+depth``           ``state``'s keys and ``depth``, ``proprio``
``state+rgbd``            ``state``'s keys and ``rgb``, ``depth``, ``proprio``
========================  ==================================================================

``depth`` is ``(frame_stack * views, H, W)`` and ``rgb`` ``(3 * frame_stack * views, H, W)``,
oldest frame first. A view is a scene camera (``wrist``, on the claw; ``front``, ``side``,
``top``, fixed) or a fixed camera's crop centred on the tool point (``front@tool``): a window
:data:`CROP_SIZE` wide at the tool point's depth, so the claw stays in the middle of the picture
wherever it goes. Depth is stored in levels 1-255 over a range per view (:func:`depth_levels`;
0 is no reading), ``proprio`` is what the arm knows of itself (:func:`proprioception`).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

import cv2
import mujoco
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from claw.envs.cameras import CameraRig, check_cameras
from claw.envs.randomization import SensorNoise
from claw.envs.robot import Array, tool_yaw

if TYPE_CHECKING:
    from claw.envs.tabletop import TabletopEnv
    from claw.envs.tasks import GoalObservation

ObsMode = Literal["state", "depth", "rgbd", "state+depth", "state+rgbd"]
OBS_MODES: tuple[str, ...] = get_args(ObsMode)
WRIST = "wrist"
"""The camera on each arm's hand (the second arm's is ``right/wrist``)."""
TOOL_CENTRED = "@tool"
"""A view named ``camera@tool`` is ``camera``'s image cropped around the tool point."""
DEFAULT_VIEWS = ("wrist", "front@tool")
DEFAULT_IMAGE_SIZE = (64, 64)
"""(height, width) of each view's images (DrQ and the Atari CNN use 84; 64 trains in half the
time on a CPU)."""
CROP_SIZE = 0.24
"""Width (m) of the scene a tool-centred crop shows, at the tool point's depth."""
CROP_SOURCE = (240, 320)
"""(height, width) a fixed camera renders at before its tool-centred crop is cut out."""
CROP_DEPTH = 0.25
"""A tool-centred crop's depth levels span this far (m) either side of the tool point."""
WRIST_DEPTH = (0.02, 0.52)
"""Depth range (m) of the wrist view's levels: the fingers to the table below a raised claw."""
FIXED_DEPTH = (0.5, 2.5)
"""Depth range (m) of a whole fixed view's levels."""
PROPRIO_SIZE = 15
"""Joint angles (6), tool point (3), its velocity (3), claw heading (cos, sin) and opening."""


def check_obs_mode(mode: str) -> ObsMode:
    """``mode`` as an :data:`ObsMode`, or ``ValueError`` naming the allowed ones."""
    if mode not in OBS_MODES:
        raise ValueError(f"unknown obs_mode {mode!r}; allowed: {', '.join(OBS_MODES)}")
    return mode  # type: ignore[return-value]  # checked against OBS_MODES above


def channels(mode: ObsMode) -> tuple[str, ...]:
    """The image keys of a mode: ``()``, ``("depth",)`` or ``("rgb", "depth")``."""
    pixels = mode.removeprefix("state").removeprefix("+")
    return {"": (), "depth": ("depth",), "rgbd": ("rgb", "depth")}[pixels]


def depth_levels(depth: NDArray[np.float32], near: float, far: float) -> NDArray[np.uint8]:
    """Depth (m, 0 where none) as uint8 levels: 0 for no reading, 1-255 over ``near``-``far``
    (clipped)."""
    scaled = (np.clip(depth, near, far) - near) * (254.0 / (far - near)) + 1.0
    return np.where(depth > 0, np.rint(scaled), 0).astype(np.uint8)


def proprioception(env: TabletopEnv) -> Array:
    """What the arm knows of itself (:data:`PROPRIO_SIZE` numbers): joint encoders, the tool
    point and its velocity by the arm's kinematics, the claw's heading and its opening."""
    data, robot = env.data, env.robot
    velocity = np.zeros(6)
    mujoco.mj_objectVelocity(env.model, data, mujoco.mjtObj.mjOBJ_SITE, robot.tcp_site, velocity, 0)
    yaw = tool_yaw(data.site_xmat[robot.tcp_site])
    return np.concatenate(
        [
            data.qpos[robot.arm_qpos],
            data.site_xpos[robot.tcp_site],
            velocity[3:],
            [np.cos(yaw), np.sin(yaw), robot.gripper_width(data)],
        ]
    )


def compose(
    mode: ObsMode, state: GoalObservation, env: TabletopEnv, pixels: PixelObserver | None
) -> dict[str, Array | NDArray[np.uint8]]:
    """The observation of ``mode``: the task's state keys (the ``state`` modes; the desired
    goal alone otherwise), and the arm's readings and the images where there are images."""
    observed: dict[str, Array | NDArray[np.uint8]] = {
        key: value.copy() for key, value in state.as_dict().items()
    }
    if pixels is None:
        return observed
    if not mode.startswith("state"):
        observed = {"desired_goal": observed["desired_goal"]}
    observed["proprio"] = proprioception(env)
    observed.update(pixels.observation())
    return observed


def needed_cameras(env_kwargs: dict[str, Any], arm_prefix: str = "") -> list[str]:
    """The scene cameras a policy trained with these env keyword arguments looks through, on
    the arm whose model names start with ``arm_prefix`` (its own wrist camera); none for a
    ``state`` policy."""
    if not channels(check_obs_mode(env_kwargs.get("obs_mode", "state"))):
        return []
    views = [View.parse(v) for v in env_kwargs.get("views", DEFAULT_VIEWS)]
    return [arm_prefix + v.camera if v.camera == WRIST else v.camera for v in views]


def observer_for(
    model: mujoco.MjModel, env_kwargs: dict[str, Any], arm_prefix: str = ""
) -> PixelObserver | None:
    """The images a policy trained with these env keyword arguments observes (``None``: no
    images), with the training env's defaults for what they leave out; ``wrist`` is the wrist
    camera of the arm whose names start with ``arm_prefix``."""
    mode = check_obs_mode(env_kwargs.get("obs_mode", "state"))
    if not channels(mode):
        return None
    size = env_kwargs.get("image_size", DEFAULT_IMAGE_SIZE)
    views = [View.parse(v) for v in env_kwargs.get("views", DEFAULT_VIEWS)]
    return PixelObserver(
        model,
        tuple(arm_prefix + v.name if v.camera == WRIST else v.name for v in views),
        mode,
        (int(size[0]), int(size[1])),
        int(env_kwargs.get("frame_stack", 1)),
    )


@dataclass(frozen=True)
class View:
    """A camera view of a training env: a scene camera, or its crop around the tool point."""

    camera: str
    tool_centred: bool = False

    @classmethod
    def parse(cls, text: str) -> View:
        camera, _, suffix = text.partition("@")
        if suffix not in ("", TOOL_CENTRED[1:]) or not camera:
            raise ValueError(f"bad view {text!r}; a view is CAMERA or CAMERA{TOOL_CENTRED}")
        return cls(camera, bool(suffix))

    @property
    def name(self) -> str:
        return self.camera + (TOOL_CENTRED if self.tool_centred else "")


class PixelObserver:
    """Renders a training env's views each control step and keeps the last ``frame_stack``.

    Args:
        model: The env's model (its cameras are checked).
        views: View names (``wrist``, ``front@tool``, …).
        mode: The observation mode (which images: depth, or RGB and depth).
        image_size: (height, width) of each view's images.
        frame_stack: How many frames each observation holds, oldest first.

    Raises:
        ValueError: a malformed or unknown view, no views, a frame stack below 1 or tiny images.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        views: tuple[str, ...],
        mode: ObsMode,
        image_size: tuple[int, int] = DEFAULT_IMAGE_SIZE,
        frame_stack: int = 1,
    ) -> None:
        if not views:
            raise ValueError("a pixel observation needs at least one view, e.g. wrist")
        if frame_stack < 1:
            raise ValueError(f"frame_stack must be at least 1, got {frame_stack}")
        if min(image_size) < 16:
            raise ValueError(f"image_size must be at least 16 x 16 pixels, got {image_size}")
        self.views = tuple(View.parse(v) for v in views)
        check_cameras(model, tuple(view.camera for view in self.views))
        self.channels = channels(mode)
        self.image_size = image_size
        self.frame_stack = frame_stack
        self._rigs: list[CameraRig] = []
        self._frames: deque[dict[str, NDArray[np.uint8]]] = deque(maxlen=frame_stack)

    def spaces(self) -> dict[str, spaces.Box]:
        """The image keys' spaces (channel-first uint8)."""
        height, width = self.image_size
        planes = {"rgb": 3, "depth": 1}
        return {
            key: spaces.Box(
                0, 255, (planes[key] * self.frame_stack * len(self.views), height, width), np.uint8
            )
            for key in self.channels
        }

    def reset(self, env: TabletopEnv, rng: np.random.Generator, noise: SensorNoise | None) -> None:
        """Start an episode of ``env`` (rebuilt renderers if its model was) under ``noise``,
        with the stack filled by the first frame."""
        if not self._rigs:
            self._rigs = [
                CameraRig(
                    env.model,
                    (view.camera,),
                    CROP_SOURCE if view.tool_centred else self.image_size,
                )
                for view in self.views
            ]
        for rig in self._rigs:
            if rig.model is not env.model:
                rig.retarget(env.model)
        for rig in self._rigs:
            rig.reset(int(rng.integers(2**31)), noise)
        first = self._capture(env)
        self._frames.clear()
        self._frames.extend([first] * self.frame_stack)

    def step(self, env: TabletopEnv) -> None:
        """Take the frames of one more control step."""
        self._frames.append(self._capture(env))

    def observation(self) -> dict[str, NDArray[np.uint8]]:
        """The image keys now: each the stacked frames, oldest first."""
        return {key: np.concatenate([f[key] for f in self._frames]) for key in self.channels}

    def _capture(self, env: TabletopEnv) -> dict[str, NDArray[np.uint8]]:
        images: dict[str, list[NDArray[np.uint8]]] = {key: [] for key in self.channels}
        for view, rig in zip(self.views, self._rigs, strict=True):
            rig.record(env.data.qpos)
            data = rig.state(env.data.qpos)
            if "rgb" in images:
                rgb, depth = rig.capture(view.camera, data)
            else:
                rgb, depth = None, rig.capture_depth(view.camera, data)
            if view.tool_centred:
                rgb, levels = self._crop(rig, view, data, rgb, depth, env)
            else:
                near, far = WRIST_DEPTH if view.camera.endswith(WRIST) else FIXED_DEPTH
                levels = depth_levels(depth, near, far)
            if rgb is not None:
                images["rgb"].append(np.moveaxis(rgb, -1, 0))
            images["depth"].append(levels[None])
        return {key: np.concatenate(planes) for key, planes in images.items()}

    def _crop(
        self,
        rig: CameraRig,
        view: View,
        data: mujoco.MjData,
        rgb: NDArray[np.uint8] | None,
        depth: NDArray[np.float32],
        env: TabletopEnv,
    ) -> tuple[NDArray[np.uint8] | None, NDArray[np.uint8]]:
        """The window of a fixed view around the tool point (by the arm's own kinematics at
        the frame's time), resized to the image size; outside the picture is black and empty."""
        camera = rig.camera(view.camera, data)
        column, row, tool_depth = camera.project(data.site_xpos[env.robot.tcp_site])
        height, width = self.image_size
        scale = width / (CROP_SIZE * camera.fx / max(tool_depth, 1e-3))
        warp = np.array(
            [
                [scale, 0.0, width / 2 - scale * column],
                [0.0, scale, height / 2 - scale * row],
            ]
        )
        size = (width, height)
        window = np.asarray(cv2.warpAffine(depth, warp, size, flags=cv2.INTER_NEAREST), np.float32)
        near = max(tool_depth - CROP_DEPTH, 0.0)
        levels = depth_levels(window, near, tool_depth + CROP_DEPTH)
        if rgb is None:
            return None, levels
        return np.asarray(cv2.warpAffine(rgb, warp, size, flags=cv2.INTER_LINEAR), np.uint8), levels

    def close(self) -> None:
        """Free the renderers."""
        for rig in self._rigs:
            rig.close()
        self._rigs = []
