"""``claw/Tabletop-v0``: the arm, its claw and a scene of blocks and boxes, as a Gymnasium env."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

import gymnasium as gym
import mujoco
import numpy as np
from gymnasium import spaces

from claw.envs.arms import ARM_PREFIX, ArmContext, Lockstep, arm_base, arm_names
from claw.envs.model import ObjectModel, build_model, camera_names, model_xml
from claw.envs.predicates import GoalResult, Predicate, check_objects, evaluate_goal, parse_goal
from claw.envs.randomization import DomainRandomization, Nominal, randomize_objects
from claw.envs.rendering import Renderers, has_display
from claw.envs.robot import (
    MAX_HALF_OPENING,
    PAD_CLEARANCE,
    DifferentialIK,
    RobotIndex,
    tool_yaw,
)
from claw.envs.scene import MAX_SCENE_OBJECTS, PlacedObject, SceneSpec
from claw.envs.seeding import check_seed
from claw.envs.state import SETTLED_SPEED, WorldState
from claw.envs.tool import ToolTarget
from claw.envs.truth import GroundTruth

Control = Literal["ee", "joint"]
ObsMode = Literal["state", "rgb", "state+rgb"]
RESET_OPTIONS = ("scene", "goal", "randomize")


class TabletopEnv(GroundTruth, gym.Env[dict[str, Any], np.ndarray]):
    """A 6-joint arm with a parallel-jaw claw above a table of blocks and boxes.

    Actions (``control="ee"``, 5 numbers in [-1, 1]): tool-point deltas along x, y, z (scaled by
    ``max_translation`` m), a yaw delta (scaled by ``max_rotation`` rad), and the gripper command
    (-1 open, +1 closed); an internal damped least-squares IK keeps the claw pointing down.
    With ``control="joint"`` (7 numbers): the six arm joint targets, normalised to their ranges,
    and the gripper command. Either way the robot moves only through its position actuators.

    Observations are a ``Dict``: ``robot`` (joint positions and velocities, tool position, yaw and
    quaternion, finger width), ``objects`` (pose ``[x, y, z, qw, qx, qy, qz]``, velocity
    ``[vx, vy, vz, wx, wy, wz]``, and a mask, padded to ``max_objects`` rows in scene order: by
    default ``MAX_SCENE_OBJECTS``, the most a scene may have, or more), and ``rgb`` when
    ``obs_mode`` asks for a camera image.

    Reset options: ``scene`` (a built-in name, a YAML path, a mapping or a ``SceneSpec``), ``goal``
    (predicate strings; then the reward is the fraction that holds and the episode terminates
    when the goal is met), ``randomize`` (``True`` or a ``DomainRandomization`` mapping).
    """

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": 20}  # noqa: RUF012

    def __init__(
        self,
        scene: str | Mapping[str, Any] | SceneSpec = "default",
        control: Control = "ee",
        obs_mode: ObsMode = "state",
        render_mode: str | None = None,
        *,
        control_freq: int = 20,
        max_objects: int = MAX_SCENE_OBJECTS,
        camera: str = "front",
        render_size: tuple[int, int] = (480, 640),
        image_size: tuple[int, int] = (128, 128),
        max_translation: float = 0.02,
        max_rotation: float = 0.15,
        goal: Sequence[str] | None = None,
    ) -> None:
        if control not in ("ee", "joint"):
            raise ValueError(f"control must be 'ee' or 'joint', got {control!r}")
        if obs_mode not in ("state", "rgb", "state+rgb"):
            raise ValueError(f"obs_mode must be 'state', 'rgb' or 'state+rgb', got {obs_mode!r}")
        if max_objects < MAX_SCENE_OBJECTS:
            raise ValueError(
                f"max_objects pads the observations of scenes of up to {MAX_SCENE_OBJECTS} "
                f"objects; allowed: {MAX_SCENE_OBJECTS} or more, got {max_objects}"
            )
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(
                f"render_mode must be None, 'rgb_array' or 'human', got {render_mode!r}"
            )
        if render_mode == "human" and not has_display():
            raise ValueError(
                "render_mode='human' needs a display (DISPLAY is not set); "
                "use render_mode='rgb_array' to get images headless"
            )
        self.control, self.obs_mode, self.render_mode = control, obs_mode, render_mode
        self.control_freq, self.max_objects, self.camera = control_freq, max_objects, camera
        self.render_size, self.image_size = render_size, image_size
        self.max_translation, self.max_rotation = max_translation, max_rotation
        self.metadata = {**self.metadata, "render_fps": control_freq}

        self.scene = SceneSpec.load(scene)
        self._goal: list[Predicate] = parse_goal(goal or [])
        self._randomization: DomainRandomization | None = None
        self._noise = 0.0
        self.physics_wall_seconds = 0.0
        """Wall time spent inside ``mj_step`` so far (to tell physics from control overhead)."""
        self.step_callbacks: list[Callable[[TabletopEnv], None]] = []
        """Called after every advance of the physics, by ``step`` or ``actuate``."""
        self.episodes = 0
        """How many resets this env has had (a perceiver restarts at each)."""
        self.perception: Callable[[], WorldState] | None = None
        """Where :meth:`world_state` comes from: ``None`` is the ground truth; a perceiver
        attached by ``claw.perception.attach`` gives what the cameras see instead."""
        self._objects: tuple[ObjectModel, ...] = ()
        self.arms = ArmContext(())
        self._renderers: Renderers | None = None
        self._load(self.scene.sample(0), self.scene.arms)
        cameras = camera_names(self.model)
        if camera not in cameras:
            raise ValueError(f"unknown camera {camera!r}; allowed: {', '.join(cameras)}")
        self.action_space = spaces.Box(-1.0, 1.0, (5 if control == "ee" else 7,), np.float32)
        self.observation_space = self._observation_space()

    # -- scene loading --------------------------------------------------------------------------

    def _load(self, placed: list[PlacedObject], arms: int) -> None:
        """Compile the model for these objects and arms (cached by the objects' names, types,
        colours and sizes, and the number of arms)."""
        objects = tuple(ObjectModel(p.name, p.type, p.color, p.size) for p in placed)
        if self._objects == objects and self.arms.arms == arm_names(arms):
            return
        if self._renderers is not None:
            self._renderers.close()
        self._objects = objects
        self.arms = ArmContext(arm_names(arms))
        self.model = build_model(objects, arms)
        self._renderers = Renderers(self.model)
        self.data = mujoco.MjData(self.model)
        self._const_data = mujoco.MjData(self.model)  # scratch for mj_setConst (it writes qpos)
        self.robots = {a: RobotIndex.from_model(self.model, ARM_PREFIX[a]) for a in self.arms.arms}
        self.iks = {
            a: DifferentialIK(self.model, robot, max_iterations=4)
            for a, robot in self.robots.items()
        }
        self._nominal = Nominal.of(self.model)
        self.n_substeps = max(1, round(1.0 / (self.control_freq * self.model.opt.timestep)))
        self.object_names = [o.name for o in objects]
        joints = [self.model.joint(name) for name in self.object_names]
        self._obj_qpos = np.array([np.arange(j.qposadr[0], j.qposadr[0] + 7) for j in joints])
        self._obj_qvel = np.array([np.arange(j.dofadr[0], j.dofadr[0] + 6) for j in joints])
        self._obj_lin_qvel = self._obj_qvel[:, :3]
        self._sum3 = np.ones(3)
        self._obj_body = np.array([self.model.body(n).id for n in self.object_names])
        geom_object = np.full(self.model.ngeom, -1)
        for i, body in enumerate(self._obj_body):
            geom_object[self.model.geom_bodyid == body] = i
        self._geom_object = geom_object
        self._finger_side = {}
        for arm, robot in self.robots.items():
            self._finger_side[arm] = side_of = np.full(self.model.ngeom, -1)
            for side, body in enumerate(robot.finger_bodies):
                side_of[self.model.geom_bodyid == body] = side
        self._placed: list[PlacedObject] = placed

    # -- spaces and observations ----------------------------------------------------------------

    def _observation_space(self) -> spaces.Dict:
        def box(*shape: int) -> spaces.Box:
            return spaces.Box(-np.inf, np.inf, shape, np.float64)

        n = self.max_objects
        parts: dict[str, spaces.Space[Any]] = {}
        if self.obs_mode != "rgb":
            parts["robot"] = spaces.Dict(
                {
                    "joint_pos": box(6),
                    "joint_vel": box(6),
                    "tcp_pos": box(3),
                    "tcp_yaw": box(1),
                    "tcp_quat": box(4),
                    "gripper_width": box(1),
                }
            )
            parts["objects"] = spaces.Dict(
                {"pose": box(n, 7), "velocity": box(n, 6), "mask": spaces.MultiBinary(n)}
            )
        if self.obs_mode != "state":
            height, width = self.image_size
            parts["rgb"] = spaces.Box(0, 255, (height, width, 3), np.uint8)
        return spaces.Dict(parts)

    def _get_obs(self) -> dict[str, Any]:
        data, robot = self.data, self.robot
        obs: dict[str, Any] = {}
        if self.obs_mode != "rgb":
            n = len(self.object_names)
            pose = np.zeros((self.max_objects, 7))
            pose[:n] = data.qpos[self._obj_qpos]
            velocity = np.zeros((self.max_objects, 6))
            velocity[:n] = data.qvel[self._obj_qvel]
            mask = np.zeros(self.max_objects, dtype=np.int8)
            mask[:n] = 1
            joint_pos = data.qpos[robot.arm_qpos]
            tcp_pos = data.site_xpos[robot.tcp_site].copy()
            tcp_mat = data.site_xmat[robot.tcp_site]
            tcp_quat = np.empty(4)
            mujoco.mju_mat2Quat(tcp_quat, tcp_mat)
            yaw = np.array([tool_yaw(tcp_mat)])
            if self._noise > 0.0:
                noise = self.np_random.normal(0.0, self._noise, size=6 + 3 + 1 + 3 * n)
                joint_pos = joint_pos + noise[:6]
                tcp_pos += noise[6:9]
                yaw += noise[9]
                pose[:n, :3] += noise[10:].reshape(n, 3)
            obs["robot"] = {
                "joint_pos": joint_pos,
                "joint_vel": data.qvel[robot.arm_dofs],
                "tcp_pos": tcp_pos,
                "tcp_yaw": yaw,
                "tcp_quat": tcp_quat,
                "gripper_width": data.qpos[robot.finger_qpos].sum(keepdims=True) + PAD_CLEARANCE,
            }
            obs["objects"] = {"pose": pose, "velocity": velocity, "mask": mask}
        if self.obs_mode != "state":
            obs["rgb"] = self._render(self.image_size)
        return obs

    # -- gymnasium API --------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is not None:
            check_seed(seed)
        super().reset(seed=seed)
        self.episodes += 1
        options = dict(options or {})
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; allowed: {list(RESET_OPTIONS)}")
        # Check every option before keeping any, so a rejected reset changes nothing.
        scene = SceneSpec.load(options["scene"]) if "scene" in options else self.scene
        goal = parse_goal(options["goal"] or []) if "goal" in options else self._goal
        randomization = self._randomization
        if "randomize" in options:
            randomization = DomainRandomization.from_option(options["randomize"])

        placed = scene.sample(self.np_random)
        for pred in goal:
            check_objects(pred, [p.name for p in placed])
        self._load(placed, scene.arms)
        self._placed = placed
        self.scene, self._goal, self._randomization = scene, goal, randomization

        model, data = self.model, self.data
        self._nominal.restore(model)
        mujoco.mj_resetDataKeyframe(model, data, model.key("rest").id)
        for obj, adr in zip(placed, self._obj_qpos, strict=True):
            half_yaw = 0.5 * obj.yaw
            data.qpos[adr] = [obj.x, obj.y, obj.z, np.cos(half_yaw), 0.0, 0.0, np.sin(half_yaw)]
        info: dict[str, Any] = {}
        self._noise = 0.0
        if self._randomization is not None:
            info["randomization"] = self._randomize(self._randomization)
        # Masses and inertias were restored or redrawn: recompute the model's derived constants
        # (invweight0, subtreemass, ...). mj_setConst resets the qpos of the data it is given.
        mujoco.mj_setConst(model, self._const_data)
        mujoco.mj_forward(model, data)

        self._q_target = data.qpos[self.robot.arm_qpos].copy()
        self._tool: ToolTarget | None = None  # made from the joint targets on the next ee step
        self._sync_viewer()
        return self._get_obs(), self._info(info)

    def _randomize(self, config: DomainRandomization) -> dict[str, Any]:
        model, data, robot = self.model, self.data, self.robot
        drawn: dict[str, Any] = {
            "objects": randomize_objects(model, config, self.np_random, self.object_names)
        }
        jitter = self.np_random.uniform(-config.arm_jitter, config.arm_jitter, size=6)
        q = np.clip(data.qpos[robot.arm_qpos] + jitter, robot.joint_low, robot.joint_high)
        data.qpos[robot.arm_qpos] = q
        data.ctrl[robot.arm_actuators] = q
        drawn["arm_jitter"] = [round(float(v), 5) for v in jitter]
        drawn["observation_noise"] = self._noise = config.observation_noise
        return drawn

    def step(self, action: np.ndarray) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        action = np.asarray(action, dtype=np.float64)
        if action.shape != self.action_space.shape:
            raise ValueError(
                f"action must have shape {self.action_space.shape}, got {action.shape}"
            )
        action = np.minimum(np.maximum(action, -1.0), 1.0)
        if self.control == "ee":
            self._apply_ee(action)
        else:
            low, high = self.robot.joint_low, self.robot.joint_high
            self._set_arm_targets(low + 0.5 * (action[:6] + 1.0) * (high - low))
        self.data.ctrl[self.robot.gripper_actuator] = 0.5 * (1.0 - action[-1]) * MAX_HALF_OPENING
        self._advance(self.n_substeps)

        info = self._info({})
        reward, terminated = 0.0, False
        if self._goal:
            result: GoalResult = info["goal"]
            reward = sum(r.holds for r in result.results) / len(result.results)
            terminated = result.success
        return self._get_obs(), reward, terminated, False, info

    def actuate(
        self,
        arm_targets: np.ndarray | None = None,
        gripper: float | None = None,
        substeps: int | None = None,
    ) -> None:
        """Advance the physics under these actuator targets, for controllers with their own loop.

        Args:
            arm_targets: Joint position targets of the six arm joints (rad), clipped to their
                ranges; ``None`` keeps the current ones.
            gripper: The claw's half opening target (m, 0 closed .. 0.045 open); ``None`` keeps it.
            substeps: Physics steps to take (default: one control period, ``n_substeps``).
        """
        robot = self.robot
        if arm_targets is not None:
            self._set_arm_targets(arm_targets)
        if gripper is not None:
            self.data.ctrl[robot.gripper_actuator] = min(max(gripper, 0.0), MAX_HALF_OPENING)
        substeps = self.n_substeps if substeps is None else substeps
        lockstep = self.arms.lockstep
        if lockstep is None:
            self._advance(substeps)
        else:
            lockstep.request(self.arms.current, substeps)

    @property
    def robot(self) -> RobotIndex:
        """The addresses of the arm the caller drives (:meth:`parallel`; the first arm if none)."""
        return self.robots[self.arms.current]

    @property
    def ik(self) -> DifferentialIK:
        """The IK of the arm the caller drives."""
        return self.iks[self.arms.current]

    def arm_base(self, arm: str | None = None) -> tuple[float, float]:
        """Where ``arm``'s base (the caller's arm's by default) stands on the table (x, y)."""
        return arm_base(arm or self.arms.current, len(self.arms.arms))[:2]

    def parallel(
        self,
        jobs: Mapping[str, Callable[[], Any]],
        busy: Mapping[str, Iterable[str]] | None = None,
    ) -> dict[str, Any]:
        """Run one controller per arm (``arm -> function``) at the same time in this simulation.

        Each function drives its arm through :meth:`actuate` (skills do), and the physics
        advances when every arm has asked it to (:class:`~claw.envs.arms.Lockstep`). ``busy``
        names the objects each arm works with: the other arms' waits for rest leave them out.

        Raises:
            ValueError: an arm the scene does not have.
        """
        for arm in jobs:
            self.arms.check(arm)
        return Lockstep(self.arms, self._advance).run(jobs, busy)

    def model_xml(self) -> str:
        """The MJCF text of the scene's model as built for the last reset
        (:func:`claw.envs.model.model_xml`)."""
        return model_xml(self._objects, len(self.arms.arms))

    def world_state(self) -> WorldState:
        """What the robot believes of the world: the attached perceiver's estimate, or the
        ground truth (:meth:`true_world_state`) when no perceiver is attached."""
        if self.perception is None:
            return self.true_world_state()
        return self.perception()

    @property
    def vocabulary(self) -> tuple[tuple[str, str, str], ...]:
        """Each object's (name, type, colour): what a detector may be asked to find here (no
        pose, no size)."""
        return tuple((o.name, o.type, o.color) for o in self._objects)

    @property
    def sensor_noise(self) -> DomainRandomization | None:
        """The randomisation of this episode when its sensor model is on, else ``None``."""
        config = self._randomization
        return config if config is not None and config.sensor_noise else None

    def _command_arm(self, q: np.ndarray) -> None:
        """Send joint targets to the arm's actuators, with the sensor model's action noise."""
        config = self.sensor_noise
        if config is not None and config.sensor.action_noise > 0.0:
            q = q + self.np_random.normal(0.0, config.sensor.action_noise, size=q.shape)
        self.data.ctrl[self.robot.arm_actuators] = q

    def _set_arm_targets(self, targets: np.ndarray) -> None:
        robot = self.robot
        q = np.minimum(np.maximum(targets, robot.joint_low), robot.joint_high)
        self._command_arm(q)
        if self.arms.current == self.arms.arms[0]:  # the ee action space steers the first arm
            self._q_target = q
            self._tool = None

    def _advance(self, substeps: int) -> None:
        tic = time.perf_counter()
        mujoco.mj_step(self.model, self.data, nstep=substeps)
        self.physics_wall_seconds += time.perf_counter() - tic
        self._sync_viewer()
        for callback in self.step_callbacks:
            callback(self)

    def _steering(self) -> ToolTarget:
        """The ee target; after joint targets were set directly, steering on from them."""
        if self._tool is None:
            self._tool = ToolTarget(self.ik, self._q_target)
        return self._tool

    def _apply_ee(self, action: np.ndarray) -> None:
        measured = self.data.site_xpos[self.robot.tcp_site]
        yaw_delta = float(action[3]) * self.max_rotation
        tool = self._steering()
        self._q_target = tool.step(measured, action[:3] * self.max_translation, yaw_delta)
        self._command_arm(self._q_target)

    def _info(self, extra: dict[str, Any]) -> dict[str, Any]:
        info = {
            "object_names": list(self.object_names),
            "settled": bool(np.max(self.object_speeds()) < SETTLED_SPEED),
            "sim_time": float(self.data.time),
            **self._target_info(),
            **extra,
        }
        if self._goal:
            result = evaluate_goal(self._goal, self.true_world_state())
            info["goal"] = result
            info["success"] = result.success
        return info

    def _target_info(self) -> dict[str, Any]:
        """Where the ee controller is steering: the IK target the next deltas move from."""
        if self.control != "ee":
            return {}
        tool = self._steering()
        return {"tcp_target": tool.position.copy(), "yaw_target": tool.yaw}

    # -- rendering ------------------------------------------------------------------------------

    def render(self) -> np.ndarray | None:
        if self.render_mode == "rgb_array":
            return self._render(self.render_size)
        if self.render_mode == "human":
            self._sync_viewer()
        return None

    def _render(self, size: tuple[int, int]) -> np.ndarray:
        assert self._renderers is not None  # made with the model, in _load
        return self._renderers.image(self.data, size, self.camera)

    def _sync_viewer(self) -> None:
        if self.render_mode == "human":
            assert self._renderers is not None
            self._renderers.sync_viewer(self.data)

    def close(self) -> None:
        if self._renderers is not None:
            self._renderers.close()
