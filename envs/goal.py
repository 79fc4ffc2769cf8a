"""Goal-conditioned training envs for learned claws: ``claw/Reach-v0``, ``claw/Push-v0`` and
``claw/PickAndPlace-v0``.

Built like Gymnasium-Robotics' Fetch envs: ``Dict`` observations with ``observation``,
``achieved_goal`` and ``desired_goal``; a vectorised :meth:`GoalEnv.compute_reward` so
Hindsight Experience Replay can relabel goals; ``is_success`` in ``info``; episodes end by time
limit only. The physics is the main env's: a :class:`~claw.envs.TabletopEnv` with one block.
The task (``claw.envs.tasks``) says what is observed, what a goal is and how goals are drawn.

``obs_mode`` adds camera images (``depth``, ``rgbd``) beside the state or in its place
(:mod:`claw.envs.observations`), and ``sensor_noise`` turns on the sensor model.
"""

from __future__ import annotations

from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from claw.envs.observations import (
    DEFAULT_IMAGE_SIZE,
    DEFAULT_VIEWS,
    PROPRIO_SIZE,
    ObsMode,
    PixelObserver,
    channels,
    check_obs_mode,
    compose,
)
from claw.envs.randomization import DomainRandomization, SensorNoise
from claw.envs.robot import Array
from claw.envs.tabletop import TabletopEnv
from claw.envs.tasks import (
    ONE_BLOCK,
    TASKS,
    Difficulty,
    GoalObservation,
    GoalTask,
    ToolDriver,
    block_half_size,
)

RewardType = Literal["sparse", "dense"]
RESIDUAL_SCALE = 0.3  # default share of a residual policy's action added to the controller's
BLOCK = "red_block"
# Reset variety: the arm starts up to this far (rad per joint) from rest; object friction and
# mass vary as in domain randomisation, so a policy does not overfit one block.
START_RANDOMIZATION = DomainRandomization(arm_jitter=0.2, observation_noise=0.0, color_jitter=0.0)


class TaskEnv(gym.Env[dict[str, Array], np.ndarray]):
    """A goal-conditioned skill on the tabletop: reach a point, push a block to one, or pick a
    block and bring it to one (on the table or in the air), in any observation mode.

    :class:`GoalEnv` is this env where the achieved goal is observed (the ``state`` modes), with
    the ``compute_reward`` hook that Hindsight Experience Replay relabels with; the image-only
    modes are this class, whose observations hold no object state (:func:`make_task_env` picks).

    Args:
        task: A name in ``claw.envs.tasks.TASKS``: ``"reach"``, ``"push"`` or ``"pick_place"``.
        reward_type: ``"sparse"`` (-1 until within ``distance_threshold``, then 0) or ``"dense"``
            (minus the distance).
        distance_threshold: Success distance (m); the task's own by default (2 cm reach, 5 cm push).
        residual: Add the task's controller action to the policy's (residual learning): the
            policy learns a correction to a controller rather than the whole behaviour.
        residual_scale: How much of the policy's action is added to the controller's.
        randomize: Vary the arm's start and the block's friction and mass at each reset (and,
            for ``pick_place``, its size).
        difficulty: How hard episodes are (:class:`~claw.envs.tasks.Difficulty`: goal distance,
            goals in the air, randomisation strength); the full task by default. A curriculum
            changes it between episodes with :meth:`set_difficulty`.
        obs_mode: What the policy observes: ``state`` (positions, the Fetch envs' keys),
            ``depth`` or ``rgbd`` (camera images and the arm's own readings, no object state),
            ``state+depth`` or ``state+rgbd`` (both); see :mod:`claw.envs.observations`.
        views: The cameras of the image modes: ``wrist`` (on the claw), a fixed camera
            (``front``, ``side``, ``top``) or its crop around the tool point (``front@tool``).
        image_size: (height, width) of each view's images.
        frame_stack: How many frames each image key holds (the last ``k`` control steps).
        sensor_noise: The sensor model (depth and RGB noise, calibration error, latency, action
            noise): ``True`` for its defaults, or its levels.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 10}  # noqa: RUF012

    def __init__(
        self,
        task: str = "reach",
        reward_type: RewardType = "sparse",
        distance_threshold: float | None = None,
        residual: bool = False,
        residual_scale: float = RESIDUAL_SCALE,
        randomize: bool = True,
        render_mode: str | None = None,
        difficulty: Difficulty | dict[str, Any] | None = None,
        obs_mode: ObsMode = "state",
        views: tuple[str, ...] | list[str] = DEFAULT_VIEWS,
        image_size: tuple[int, int] = DEFAULT_IMAGE_SIZE,
        frame_stack: int = 1,
        sensor_noise: bool | SensorNoise | dict[str, Any] = False,
    ) -> None:
        if task not in TASKS:
            raise ValueError(f"unknown task {task!r}; allowed: {', '.join(TASKS)}")
        if reward_type not in ("sparse", "dense"):
            raise ValueError(f"reward_type must be 'sparse' or 'dense', got {reward_type!r}")
        self.task: GoalTask = TASKS[task](None if task == "reach" else BLOCK)
        self.reward_type = reward_type
        self.distance_threshold = distance_threshold or self.task.threshold
        self.residual, self.residual_scale = residual, residual_scale
        self.randomize = randomize
        self.render_mode = render_mode
        self.obs_mode = check_obs_mode(obs_mode)
        self.sensor = _sensor_model(sensor_noise)
        self.world = TabletopEnv(ONE_BLOCK, render_mode=render_mode, camera="operator")
        size = (int(image_size[0]), int(image_size[1]))
        self.pixels = (
            PixelObserver(self.world.model, tuple(views), self.obs_mode, size, frame_stack)
            if channels(self.obs_mode)
            else None
        )
        self.driver: ToolDriver | None = None
        self.goal = np.zeros(self.task.goal_size)
        self._last: GoalObservation | None = None
        # gymnasium types a Dict space by its sub-spaces, not by the samples it holds.
        self.observation_space = spaces.Dict(self._spaces())  # type: ignore[assignment]
        self.action_space = spaces.Box(-1.0, 1.0, (self.task.action_size,), np.float32)
        self.set_difficulty(**Difficulty.model_validate(difficulty or {}).model_dump())

    def _spaces(self) -> dict[str, spaces.Space[Any]]:
        goal_box = spaces.Box(-np.inf, np.inf, (self.task.goal_size,), np.float64)
        keys: dict[str, spaces.Space[Any]] = {}
        if self.obs_mode.startswith("state"):
            size = self.task.observation_size
            keys["observation"] = spaces.Box(-np.inf, np.inf, (size,), np.float64)
            keys["achieved_goal"] = goal_box
        keys["desired_goal"] = goal_box
        if self.pixels is not None:
            keys["proprio"] = spaces.Box(-np.inf, np.inf, (PROPRIO_SIZE,), np.float64)
            keys.update(self.pixels.spaces())
        return keys

    def set_difficulty(self, **values: Any) -> None:
        """Make the next episodes this hard (:class:`~claw.envs.tasks.Difficulty`'s fields; the
        ones left out are the full task's).

        Raises:
            ValueError: an unknown field, a value out of range, or goals nearer than the task's
                least goal distance.
        """
        difficulty = Difficulty.model_validate(values)
        cap = difficulty.goal_distance
        if cap is not None and cap < self.task.min_goal_distance:
            raise ValueError(
                f"goal_distance {cap} m is below {self.task.name}'s least goal distance "
                f"{self.task.min_goal_distance} m"
            )
        self.task.difficulty = difficulty

    # -- goals ----------------------------------------------------------------------------------

    def reward(
        self, achieved_goal: Array, desired_goal: Array, info: Any = None
    ) -> np.ndarray | float:
        """Reward for goals, vectorised over leading axes."""
        distance = self.task.distance(achieved_goal, desired_goal)
        if self.reward_type == "sparse":  # a NaN distance is no success (NaN > t is False)
            return -np.logical_not(distance <= self.distance_threshold).astype(np.float32)
        return -distance.astype(np.float32)

    # -- gymnasium API --------------------------------------------------------------------------

    def _observe(self) -> dict[str, Array]:
        self._last = self.task.goal_observation(self.world, self.goal.copy())
        return compose(self.obs_mode, self._last, self.world, self.pixels)  # type: ignore[return-value]

    def privileged_state(self) -> GoalObservation:
        """The task's state observation now, in every mode: what an expert (a controller) acts
        on and labels with. Never part of an image-only mode's observation.

        Raises:
            RuntimeError: before the first reset.
        """
        if self._last is None:
            raise RuntimeError("call reset() before privileged_state()")
        return self._last

    def _info(self) -> dict[str, Any]:
        assert self._last is not None
        distance = float(self.task.distance(self._last.achieved_goal, self.goal))
        return {"is_success": distance <= self.distance_threshold, "distance": distance}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Array], dict[str, Any]]:
        super().reset(seed=seed)
        if options:
            raise ValueError(f"unknown reset option(s) {sorted(options)}; this env takes none")
        world_seed = int(self.np_random.integers(2**31))
        randomize = self._randomization() if self.randomize else None
        if randomize is None and self.sensor is not None:
            randomize = DomainRandomization.sensors_only(self.sensor)
        scene = self.task.scene(self.np_random) if self.randomize else ONE_BLOCK
        _, world_info = self.world.reset(
            seed=world_seed, options={"randomize": randomize, "scene": scene}
        )
        self.driver = ToolDriver(self.world, self.task.gripper)
        self.goal = self.task.sample_goal(self.world, self.np_random)
        if self.pixels is not None:
            self.pixels.reset(self.world, self.np_random, self.sensor)
        obs, info = self._observe(), self._info()
        if "randomization" in world_info:
            info["randomization"] = world_info["randomization"]
        if self.task.target is not None:
            info["block_size"] = 2.0 * block_half_size(self.world, self.task.target)
        return obs, info

    def _randomization(self) -> DomainRandomization:
        full = START_RANDOMIZATION
        if self.sensor is not None:
            full = full.model_copy(update={"sensor_noise": True, "sensor": self.sensor})
        strength = self.task.difficulty.randomization
        if strength == 1.0:
            return full

        def scaled(low_high: tuple[float, float]) -> tuple[float, float]:
            return (1.0 - strength * (1.0 - low_high[0]), 1.0 + strength * (low_high[1] - 1.0))

        return full.model_copy(
            update={
                "arm_jitter": strength * full.arm_jitter,
                "friction_scale": scaled(full.friction_scale),
                "mass_scale": scaled(full.mass_scale),
            }
        )

    def step(
        self, action: np.ndarray
    ) -> tuple[dict[str, Array], float, bool, bool, dict[str, Any]]:
        if self.driver is None or self._last is None:
            raise RuntimeError("call reset() before step()")
        self.driver.apply(
            self.task.command(self._last, action, self.residual_scale if self.residual else None)
        )
        if self.pixels is not None:
            self.pixels.step(self.world)
        obs = self._observe()
        info = self._info()
        assert self._last is not None  # set by _observe
        reward = float(self.reward(self._last.achieved_goal, self.goal, info))
        return obs, reward, False, False, info

    def render(self) -> np.ndarray | None:
        return self.world.render()

    def close(self) -> None:
        if self.pixels is not None:
            self.pixels.close()
        self.world.close()


class GoalEnv(TaskEnv):
    """A :class:`TaskEnv` whose observations hold the achieved goal (``obs_mode`` ``state``,
    ``state+depth`` or ``state+rgbd``), with Gymnasium-Robotics' ``compute_reward`` hook.

    Raises:
        ValueError: an image-only ``obs_mode`` (use :class:`TaskEnv`, or ``gym.make``).
    """

    def __init__(self, task: str = "reach", *args: Any, **kwargs: Any) -> None:
        mode = kwargs.get("obs_mode", "state")
        if not str(mode).startswith("state"):
            raise ValueError(
                f"obs_mode {mode!r} observes no achieved goal, so it is not a GoalEnv; "
                "use TaskEnv or gym.make"
            )
        super().__init__(task, *args, **kwargs)

    def compute_reward(
        self, achieved_goal: Array, desired_goal: Array, info: Any = None
    ) -> np.ndarray | float:
        """Reward for goals, vectorised over leading axes (HER relabels with it)."""
        return self.reward(achieved_goal, desired_goal, info)


def make_task_env(task: str = "reach", obs_mode: ObsMode = "state", **kwargs: Any) -> TaskEnv:
    """The training env of ``task`` in ``obs_mode``: a :class:`GoalEnv` where the achieved goal
    is observed, else a :class:`TaskEnv` (the entry point of ``claw/Reach-v0`` and the rest)."""
    env_class = GoalEnv if str(obs_mode).startswith("state") else TaskEnv
    return env_class(task, obs_mode=obs_mode, **kwargs)


def _sensor_model(value: bool | SensorNoise | dict[str, Any]) -> SensorNoise | None:
    """The ``sensor_noise`` argument as the sensor model's levels, or ``None`` when off."""
    if value is False:
        return None
    if value is True:
        return SensorNoise()
    return SensorNoise.model_validate(value)
