"""Cooperative training on a PettingZoo ``ParallelEnv`` by parameter sharing with SB3.

:class:`AgentsVecEnv` shows the agents of one ``ParallelEnv`` to Stable-Baselines3 as the
environments of a ``VecEnv``: one policy acts for every agent (each in its own observation frame),
and every agent's transition trains it. :func:`train_shared` trains SAC on it and
:func:`evaluate_shared` measures the joint success.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from pettingzoo import ParallelEnv
from stable_baselines3 import SAC
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn


class AgentsVecEnv(VecEnv):
    """The agents of a ``ParallelEnv`` (all alive until the episode ends) as a ``VecEnv``.

    When the episode ends every agent's ``terminal_observation`` is in its info and the env is
    reset, as SB3's ``DummyVecEnv`` does.
    """

    def __init__(self, env: ParallelEnv[str, np.ndarray, np.ndarray], seed: int = 0) -> None:
        self.env, self._seed = env, seed
        self.names: list[str] = list(env.possible_agents)
        first = self.names[0]
        super().__init__(len(self.names), env.observation_space(first), env.action_space(first))
        self._actions = np.zeros((self.num_envs, *self.action_space.shape))  # type: ignore[misc]

    def reset(self) -> np.ndarray:
        observations, _ = self.env.reset(seed=self._seed)
        self._seed += 1
        return np.stack([observations[a] for a in self.names])

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        actions = {a: self._actions[i] for i, a in enumerate(self.names)}
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        obs = np.stack([observations[a] for a in self.names])
        reward = np.array([rewards[a] for a in self.names], dtype=np.float32)
        done = np.array([terminations[a] or truncations[a] for a in self.names])
        out_infos: list[dict[str, Any]] = []
        for agent in self.names:
            info = dict(infos[agent])
            info["TimeLimit.truncated"] = bool(truncations[agent] and not terminations[agent])
            out_infos.append(info)
        if not self.env.agents:
            for i, info in enumerate(out_infos):
                info["terminal_observation"] = obs[i]
                info["is_success"] = bool(info.get("success", False))  # SB3's EvalCallback
            obs = self.reset()
        return obs, reward, done, out_infos

    def close(self) -> None:
        self.env.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self.env, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(
        self, method_name: str, *args: Any, indices: VecEnvIndices = None, **kwargs: Any
    ) -> list[Any]:
        return [getattr(self.env, method_name)(*args, **kwargs)] * len(self._indices(indices))

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices: VecEnvIndices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, int) else list(indices)


def train_shared(env: ParallelEnv[str, np.ndarray, np.ndarray], steps: int, seed: int = 0) -> SAC:
    """SAC with one policy shared by every agent, for ``steps`` transitions (all agents')."""
    vec = AgentsVecEnv(env, seed=seed)
    model = SAC("MlpPolicy", vec, seed=seed, learning_starts=500, verbose=0, device="cpu")
    model.learn(total_timesteps=steps)
    return model


def evaluate_shared(
    model: SAC, env: ParallelEnv[str, np.ndarray, np.ndarray], episodes: int, seed: int = 10_000
) -> float:
    """The share of ``episodes`` (fresh seeds) ending in joint success, acting deterministically."""
    successes = 0
    for episode in range(episodes):
        observations, infos = env.reset(seed=seed + episode)
        while env.agents:
            actions = {a: model.predict(observations[a], deterministic=True)[0] for a in env.agents}
            observations, _, terminations, _, infos = env.step(actions)
        successes += all(terminations.values()) and all(i["success"] for i in infos.values())
    return successes / episodes
