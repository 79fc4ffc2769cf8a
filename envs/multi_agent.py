"""``TwoArmReach``: the two-arm table as a PettingZoo ``ParallelEnv``, one agent per arm.

Each agent (``left``, ``right``) steers its own claw by tool-point deltas, as ``claw/Tabletop-v0``
does with ``control="ee"`` (the claw pointing down), towards a target of its own drawn at reset on
its side of the table. Observations are in the agent's own frame: the right arm's are mirrored
across the table's centre line (y -> -y, and its actions' y back), so the two agents face the same
problem and one policy can serve both (parameter sharing). The reward is joint: both agents get
minus the sum of both distances, and -1 more for every step the two hands touch. An agent's
episode ends when both claws are within ``SUCCESS_DISTANCE`` of their targets (``success`` in its
info) or after ``max_steps``.
"""

from __future__ import annotations

import functools
from typing import Any

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
OBS_SIZE = 12  # own tool point, own target, the other's tool point, the other's target
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

    def __init__(self, max_steps: int = 60, render_mode: str | None = None) -> None:
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
        data = self.sim.data
        for arm in self.agents:
            robot = self.sim.robots[arm]
            delta = np.clip(np.asarray(actions[arm], dtype=np.float64), -1.0, 1.0) * mirror(arm)
            measured = data.site_xpos[robot.tcp_site]
            q = self._tools[arm].step(measured, delta * MAX_TRANSLATION)
            data.ctrl[robot.arm_actuators] = q
        self.sim.actuate()
        self._steps += 1
        distance = sum(self._distance(arm) for arm in self.possible_agents)
        reward = -distance - (1.0 if self._hands_touch() else 0.0)
        success = all(self._distance(arm) < SUCCESS_DISTANCE for arm in self.possible_agents)
        truncated = self._steps >= self.max_steps
        agents = self.agents
        observations = self._observations()
        infos = {arm: self._info(arm) for arm in agents}
        rewards = dict.fromkeys(agents, reward)
        terminations = dict.fromkeys(agents, success)
        truncations = dict.fromkeys(agents, truncated and not success)
        if success or truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

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
        for arm in self.possible_agents:
            other = "right" if arm == "left" else "left"
            flip = mirror(arm)
            parts = []
            for who in (arm, other):
                parts.append(data.site_xpos[self.sim.robots[who].tcp_site] * flip)
                parts.append(self._targets[who] * flip)
            out[arm] = np.concatenate(parts).astype(np.float32)
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
