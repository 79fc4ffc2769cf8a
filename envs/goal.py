"""Goal-conditioned training envs for learned claws: ``claw/Reach-v0``, ``claw/Push-v0`` and
``claw/PickAndPlace-v0``.

Built like Gymnasium-Robotics' Fetch envs: ``Dict`` observations with ``observation``,
``achieved_goal`` and ``desired_goal``; a vectorised :meth:`GoalEnv.compute_reward` so
Hindsight Experience Replay can relabel goals; ``is_success`` in ``info``; episodes end by time
limit only. The physics is the main env's: a :class:`~claw.envs.TabletopEnv` with one block.
The task (``claw.envs.tasks``) says what is observed, what a goal is and how goals are drawn.
"""

from __future__ import annotations

from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from claw.envs.randomization import DomainRandomization
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


class GoalEnv(gym.Env[dict[str, Array], np.ndarray]):
    """A goal-conditioned skill on the tabletop: reach a point, push a block to one, or pick a
    block and bring it to one (on the table or in the air).

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
        self.world = TabletopEnv(ONE_BLOCK, render_mode=render_mode, camera="operator")
        self.driver: ToolDriver | None = None
        self.goal = np.zeros(self.task.goal_size)
        self._last: GoalObservation | None = None
        goal_box = spaces.Box(-np.inf, np.inf, (self.task.goal_size,), np.float64)
        # gymnasium types a Dict space by its sub-spaces, not by the samples it holds.
        self.observation_space = spaces.Dict(  # type: ignore[assignment]
            {
                "observation": spaces.Box(
                    -np.inf, np.inf, (self.task.observation_size,), np.float64
                ),
                "achieved_goal": goal_box,
                "desired_goal": goal_box,
            }
        )
        self.action_space = spaces.Box(-1.0, 1.0, (self.task.action_size,), np.float32)
        self.set_difficulty(**Difficulty.model_validate(difficulty or {}).model_dump())

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

    def compute_reward(
        self, achieved_goal: Array, desired_goal: Array, info: Any = None
    ) -> np.ndarray | float:
        """Reward for goals, vectorised over leading axes (HER relabels with it)."""
        distance = self.task.distance(achieved_goal, desired_goal)
        if self.reward_type == "sparse":  # a NaN distance is no success (NaN > t is False)
            return -np.logical_not(distance <= self.distance_threshold).astype(np.float32)
        return -distance.astype(np.float32)

    # -- gymnasium API --------------------------------------------------------------------------

    def _observe(self) -> dict[str, Array]:
        self._last = self.task.goal_observation(self.world, self.goal.copy())
        return {key: value.copy() for key, value in self._last.as_dict().items()}

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
        scene = self.task.scene(self.np_random) if self.randomize else ONE_BLOCK
        _, world_info = self.world.reset(
            seed=world_seed, options={"randomize": randomize, "scene": scene}
        )
        self.driver = ToolDriver(self.world, self.task.gripper)
        self.goal = self.task.sample_goal(self.world, self.np_random)
        obs, info = self._observe(), self._info()
        if "randomization" in world_info:
            info["randomization"] = world_info["randomization"]
        if self.task.target is not None:
            info["block_size"] = 2.0 * block_half_size(self.world, self.task.target)
        return obs, info

    def _randomization(self) -> DomainRandomization:
        strength = self.task.difficulty.randomization
        if strength == 1.0:
            return START_RANDOMIZATION
        full = START_RANDOMIZATION

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
        obs = self._observe()
        info = self._info()
        reward = float(self.compute_reward(obs["achieved_goal"], obs["desired_goal"], info))
        return obs, reward, False, False, info

    def render(self) -> np.ndarray | None:
        return self.world.render()

    def close(self) -> None:
        self.world.close()
