"""``TwoArmReach``: the two-arm table as a PettingZoo ``ParallelEnv``, one agent per arm.

Each agent (``left``, ``right``) steers its own claw by tool-point deltas, as ``claw/Tabletop-v0``
does with ``control="ee"`` (the claw pointing down), towards a target of its own drawn at reset on
its side of the table. Observations are in the agent's own frame: the right arm's are mirrored
across the table's centre line (y -> -y, and its actions' y back), so the two agents face the same
problem and one policy can serve both (parameter sharing). An agent's episode ends when both
claws are within ``SUCCESS_DISTANCE`` of their targets (``success`` in its info) or after
``max_steps``; the two hands touching costs both agents 1 each step.

The rest of the reward (``reward=``): ``"own"`` (the default) rewards each agent for its own
claw, ``-10`` x its distance and ``+5`` while within ``SUCCESS_DISTANCE``; ``"team"`` gives both
agents minus the sum of both distances.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Literal, get_args

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from claw.envs.arms import arm_base, arm_names
from claw.envs.tabletop import TabletopEnv
from claw.envs.tool import ToolTarget

SUCCESS_DISTANCE = 0.02  # m
TARGET_X = (0.30, 0.60)
TARGET_SIDE_Y = (0.05, 0.40)  # m from the table's centre line, on the agent's own side
TARGET_Z = (0.08, 0.30)
MAX_TRANSLATION = 0.02  # m per step and axis at action 1
# Own tool point; own target, own steering target (it leads the tool point by up to 4 cm) and
# the other's tool point, each from own tool point; the other's target from its tool point.
OBS_SIZE = 15
Reward = Literal["own", "team"]
# Nothing else on the table: one block out of both claws' way (a scene has at least one object).
SCENE = {
    "name": "two_arm_reach",
    "arms": 2,
    "objects": [{"type": "block", "color": "gray", "pose": [0.70, 0.0]}],
}


def mirror(agent: str) -> np.ndarray:
    """The agent's frame: the right arm's y is mirrored."""
    return np.array([1.0, -1.0 if agent == "right" else 1.0, 1.0])


class TwoArmReach(ParallelEnv[str, np.ndarray, np.ndarray]):
    """Both claws reach their own targets, cooperatively (see the module's docstring)."""

    metadata = {"name": "claw_two_arm_reach_v0", "render_modes": ["rgb_array"]}  # noqa: RUF012

    def __init__(
        self, max_steps: int = 60, reward: Reward = "own", render_mode: str | None = None
    ) -> None:
        if reward not in get_args(Reward):
            raise ValueError(f"reward must be 'own' or 'team', got {reward!r}")
        self.reward = reward
        self.sim = TabletopEnv(SCENE, render_mode=render_mode, camera="top")
        self.possible_agents = list(arm_names(2))
        self.agents: list[str] = []
        self.max_steps, self.render_mode = max_steps, render_mode
        self._targets: dict[str, np.ndarray] = {}
        self._tools: dict[str, ToolTarget] = {}
        self._hands = {
            arm: set(np.flatnonzero(self._claw_geoms(arm)).tolist()) for arm in self.possible_agents
        }
        self._steps = 0

    def _claw_geoms(self, arm: str) -> np.ndarray:
        model, robot = self.sim.model, self.sim.robots[arm]
        bodies = {robot.hand_body, *robot.finger_bodies}
        return np.isin(model.geom_bodyid, list(bodies))

    @functools.cache  # noqa: B019 (PettingZoo's idiom: one space per agent)
    def observation_space(self, agent: str) -> spaces.Box:
        return spaces.Box(-np.inf, np.inf, (OBS_SIZE,), np.float32)

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Box:
        return spaces.Box(-1.0, 1.0, (3,), np.float32)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, dict[str, Any]]]:
        self.sim.reset(seed=seed)
        rng = self.sim.np_random
        self.agents = list(self.possible_agents)
        self._steps = 0
        for arm in self.agents:
            side = 1.0 if arm == "left" else -1.0
            self._targets[arm] = np.array(
                [rng.uniform(*TARGET_X), side * rng.uniform(*TARGET_SIDE_Y), rng.uniform(*TARGET_Z)]
            )
            robot = self.sim.robots[arm]
            self._tools[arm] = ToolTarget(
                self.sim.iks[arm], self.sim.data.ctrl[robot.arm_actuators]
            )
        return self._observations(), {arm: self._info(arm) for arm in self.agents}

    def step(
        self, actions: dict[str, np.ndarray]
    ) -> tuple[
        dict[str, np.ndarray],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        deltas = self._checked(actions)
        data = self.sim.data
        for arm, delta in deltas.items():
            robot = self.sim.robots[arm]
            measured = data.site_xpos[robot.tcp_site]
            q = self._tools[arm].step(measured, delta * MAX_TRANSLATION)
            data.ctrl[robot.arm_actuators] = q
        self.sim.actuate()
        self._steps += 1
        distances = {arm: self._distance(arm) for arm in self.possible_agents}
        success = all(d < SUCCESS_DISTANCE for d in distances.values())
        truncated = self._steps >= self.max_steps
        agents = self.agents
        observations = self._observations()
        infos = {arm: self._info(arm) for arm in agents}
        rewards = self._rewards(distances)
        terminations = dict.fromkeys(agents, success)
        truncations = dict.fromkeys(agents, truncated and not success)
        if success or truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _checked(self, actions: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Each live agent's action, clipped and in the world's frame; refused, before anything
        moves, after the episode's end or where one is missing, misshapen or not finite.

        Raises:
            RuntimeError: no agent is live (the episode ended, or ``reset`` was never called).
            ValueError: an action that is missing, not 3 numbers, or not finite.
        """
        if not self.agents:
            raise RuntimeError("the episode has ended (no agent is live): call reset() first")
        deltas = {}
        for arm in self.agents:
            if arm not in actions:
                raise ValueError(f"no action for agent {arm!r}; live agents: {self.agents}")
            action = np.asarray(actions[arm], dtype=np.float64)
            if action.shape != (3,) or not np.isfinite(action).all():
                raise ValueError(
                    f"the action of {arm!r} must be 3 finite numbers in [-1, 1], got {action}"
                )
            deltas[arm] = np.clip(action, -1.0, 1.0) * mirror(arm)
        return deltas

    def _rewards(self, distances: dict[str, float]) -> dict[str, float]:
        touch = 1.0 if self._hands_touch() else 0.0
        if self.reward == "team":
            return dict.fromkeys(self.possible_agents, -sum(distances.values()) - touch)
        return {
            arm: -10.0 * d + (5.0 if d < SUCCESS_DISTANCE else 0.0) - touch
            for arm, d in distances.items()
        }

    def _distance(self, arm: str) -> float:
        tcp = self.sim.data.site_xpos[self.sim.robots[arm].tcp_site]
        return float(np.linalg.norm(tcp - self._targets[arm]))

    def _hands_touch(self) -> bool:
        left, right = self._hands["left"], self._hands["right"]
        for g1, g2 in self.sim.data.contact.geom[: self.sim.data.ncon]:
            if (g1 in left and g2 in right) or (g1 in right and g2 in left):
                return True
        return False

    def _observations(self) -> dict[str, np.ndarray]:
        data, out = self.sim.data, {}
        tcp = {a: data.site_xpos[self.sim.robots[a].tcp_site] for a in self.possible_agents}
        for arm in self.possible_agents:
            other = "right" if arm == "left" else "left"
            parts = [
                tcp[arm],
                self._targets[arm] - tcp[arm],
                self._tools[arm].position - tcp[arm],
                tcp[other] - tcp[arm],
                self._targets[other] - tcp[other],
            ]
            out[arm] = (np.concatenate(parts) * np.tile(mirror(arm), 5)).astype(np.float32)
        return {arm: out[arm] for arm in self.agents}

    def _info(self, arm: str) -> dict[str, Any]:
        distances = {a: self._distance(a) for a in self.possible_agents}
        return {
            "distance": distances[arm],
            "success": all(d < SUCCESS_DISTANCE for d in distances.values()),
            "base": arm_base(arm, 2),
        }

    def render(self) -> np.ndarray | None:
        return self.sim.render()

    def close(self) -> None:
        self.sim.close()

    def state(self) -> np.ndarray:
        """The whole simulation's joint state (qpos, qvel), for a centralised critic."""
        data = self.sim.data
        return np.concatenate([data.qpos, data.qvel]).astype(np.float32)


PARALLEL_ENVS: dict[str, Callable[..., ParallelEnv[str, np.ndarray, np.ndarray]]] = {
    "claw/TwoArmReach-v0": TwoArmReach,
}
"""The multi-agent envs by id (``claw train``'s ``env_id``), as Gymnasium's registry holds the
others."""
