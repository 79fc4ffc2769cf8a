"""Environment workers on Ray (``--ray``): a ``VecEnv`` whose envs live in Ray actors.

Each env runs in an actor of one CPU, wherever Ray places it on the cluster. The actor steps its
env as ``SubprocVecEnv``'s workers do (reset when an episode ends, the last observation in
``terminal_observation``), so SB3's algorithms and claw's recorders use it as any ``VecEnv``,
and the same seeds give the same data as local workers. Each actor counts its steps and the
seconds its env spent on them: the throughput per worker.

Ray is imported only when a run asks for it; the command joins the cluster first.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from pydantic import BaseModel
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)
from stable_baselines3.common.vec_env.patch_gym import _patch_env
from stable_baselines3.common.vec_env.subproc_vec_env import _stack_obs

EnvFn = Callable[[], gym.Env]
Episode = Callable[[gym.Env, int], tuple[dict[str, Any], bool]]
"""Runs one episode from a seed: its arrays and whether it succeeded."""


class WorkerThroughput(BaseModel):
    """One environment worker's share of a run: where it ran, its steps and their rate."""

    worker: int
    node: str
    episodes: int
    steps: int
    env_seconds: float
    """Seconds its env spent stepping and resetting (the worker's own time, not the driver's)."""
    steps_per_second: float


class EnvWorker:
    """One env, stepped on request: the body of a Ray actor (and usable in-process)."""

    def __init__(self, env_fn: EnvFn) -> None:
        self.env = _patch_env(env_fn())
        self.episodes = self.steps = 0
        self.seconds = 0.0

    def spaces(self) -> tuple[gym.Space[Any], gym.Space[Any]]:
        return self.env.observation_space, self.env.action_space

    def reset(self, seed: int | None, options: dict[str, Any] | None) -> tuple[Any, dict[str, Any]]:
        tic = time.perf_counter()
        result = self.env.reset(seed=seed, **({"options": options} if options else {}))
        self.seconds += time.perf_counter() - tic
        return result

    def step(self, action: np.ndarray) -> tuple[Any, float, bool, dict[str, Any], dict[str, Any]]:
        tic = time.perf_counter()
        observation, reward, terminated, truncated, info = self.env.step(action)
        done = terminated or truncated
        info["TimeLimit.truncated"] = truncated and not terminated
        reset_info: dict[str, Any] = {}
        if done:
            info["terminal_observation"] = observation
            observation, reset_info = self.env.reset()
            self.episodes += 1
        self.steps += 1
        self.seconds += time.perf_counter() - tic
        return observation, float(reward), done, info, reset_info

    def expert_episode(
        self, expert_episode: Episode, seed: int
    ) -> tuple[int, dict[str, Any], bool]:
        """``(seed, episode, success)``: ``expert_episode(env, seed)``, timed and counted."""
        tic = time.perf_counter()
        episode, success = expert_episode(self.env, seed)
        self.seconds += time.perf_counter() - tic
        self.episodes += 1
        self.steps += len(episode["actions"])
        return seed, episode, success

    def expert_episodes(
        self, expert_episode: Episode, seeds: Sequence[int]
    ) -> Iterator[tuple[int, dict[str, Any], bool]]:
        """:meth:`expert_episode` for each of ``seeds``, in their order."""
        return (self.expert_episode(expert_episode, seed) for seed in seeds)

    def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return self.env.get_wrapper_attr(name)(*args, **kwargs)

    def get_attr(self, name: str) -> Any:
        return self.env.get_wrapper_attr(name)

    def has_attr(self, name: str) -> bool:
        try:
            self.env.get_wrapper_attr(name)
        except AttributeError:
            return False
        return True

    def set_attr(self, name: str, value: Any) -> None:
        setattr(self.env, name, value)

    def is_wrapped(self, wrapper_class: type[gym.Wrapper[Any, Any, Any, Any]]) -> bool:
        from stable_baselines3.common.env_util import is_wrapped

        return is_wrapped(self.env, wrapper_class)

    def render(self) -> Any:
        return self.env.render()

    def throughput(self, worker: int) -> WorkerThroughput:
        return WorkerThroughput(
            worker=worker,
            node=_node(),
            episodes=self.episodes,
            steps=self.steps,
            env_seconds=round(self.seconds, 3),
            steps_per_second=round(self.steps / self.seconds, 1) if self.seconds else 0.0,
        )

    def close(self) -> None:
        self.env.close()


def _node() -> str:
    """The Ray node of the actor this runs in (``local`` outside an actor)."""
    import sys

    ray = sys.modules.get("ray")
    if ray is None or not ray.is_initialized():
        return "local"
    context = ray.get_runtime_context()
    return "local" if context.get_actor_id() is None else str(context.get_node_id())[:12]


def _ray() -> Any:
    """Ray, imported where a run asks for it (``--ray``; the caller has joined it)."""
    import ray

    return ray


def workers(env_fns: Sequence[EnvFn]) -> list[Any]:
    """One Ray actor of one CPU per env maker (Ray must be joined)."""
    actor = _ray().remote(num_cpus=1)(EnvWorker)
    return [actor.remote(env_fn) for env_fn in env_fns]


class RayVecEnv(VecEnv):
    """``len(env_fns)`` envs in Ray actors, behind SB3's ``VecEnv`` interface (a drop-in for
    ``SubprocVecEnv``, e.g. ``make_vec_env(..., vec_env_cls=RayVecEnv)``)."""

    def __init__(self, env_fns: list[EnvFn]) -> None:
        self._ray = _ray()
        self.actors = workers(env_fns)
        self.waiting = False
        self.closed = False
        observation_space, action_space = self._ray.get(self.actors[0].spaces.remote())
        super().__init__(len(env_fns), observation_space, action_space)
        self._pending: list[Any] = []

    def step_async(self, actions: np.ndarray) -> None:
        self._pending = [a.step.remote(act) for a, act in zip(self.actors, actions, strict=True)]
        self.waiting = True

    def step_wait(self) -> VecEnvStepReturn:
        results = self._ray.get(self._pending)
        self.waiting = False
        obs, rewards, dones, infos, self.reset_infos = zip(*results, strict=True)  # type: ignore[assignment]
        stacked = _stack_obs(list(obs), self.observation_space)
        return stacked, np.stack(rewards), np.stack(dones), list(infos)

    def reset(self) -> VecEnvObs:
        refs = [a.reset.remote(self._seeds[i], self._options[i]) for i, a in enumerate(self.actors)]
        obs, self.reset_infos = zip(*self._ray.get(refs), strict=True)  # type: ignore[assignment]
        self._reset_seeds()
        self._reset_options()
        return _stack_obs(list(obs), self.observation_space)

    def throughput(self) -> list[WorkerThroughput]:
        """Each worker's steps, episodes and steps per second so far."""
        return list(self._ray.get([a.throughput.remote(i) for i, a in enumerate(self.actors)]))

    def close(self) -> None:
        if self.closed:
            return
        if self.waiting:
            self._ray.get(self._pending)
        self._ray.get([a.close.remote() for a in self.actors])
        for actor in self.actors:
            self._ray.kill(actor)
        self.closed = True

    def get_images(self) -> Sequence[np.ndarray | None]:
        return list(self._ray.get([a.render.remote() for a in self.actors]))

    def _targets(self, indices: VecEnvIndices) -> list[Any]:
        return [self.actors[i] for i in self._get_indices(indices)]

    def has_attr(self, attr_name: str) -> bool:
        return all(self._ray.get([a.has_attr.remote(attr_name) for a in self.actors]))

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return list(self._ray.get([a.get_attr.remote(attr_name) for a in self._targets(indices)]))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        self._ray.get([a.set_attr.remote(attr_name, value) for a in self._targets(indices)])

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        refs = [
            a.call.remote(method_name, method_args, method_kwargs) for a in self._targets(indices)
        ]
        return list(self._ray.get(refs))

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper[Any, Any, Any, Any]], indices: VecEnvIndices = None
    ) -> list[bool]:
        return list(
            self._ray.get([a.is_wrapped.remote(wrapper_class) for a in self._targets(indices)])
        )


class ExpertPool:
    """``n_workers`` Ray actors running a task's expert, each taking the next seed when free."""

    def __init__(self, env_fn: EnvFn, n_workers: int, expert_episode: Episode) -> None:
        self._ray = _ray()
        self._episode = expert_episode
        self.actors = workers([env_fn] * max(1, n_workers))

    def episodes(self, seeds: Sequence[int]) -> Iterator[tuple[int, dict[str, Any], bool]]:
        """``(seed, episode, success)`` for each of ``seeds``, in their order (so the data is
        the data of one local worker), whichever worker ran it."""
        queue, pending = list(seeds), {}
        finished: dict[int, tuple[dict[str, Any], bool]] = {}
        following = 0
        for actor in self.actors[: len(queue)]:
            seed = queue.pop(0)
            pending[actor.expert_episode.remote(self._episode, seed)] = actor
        while pending:
            ready, _ = self._ray.wait(list(pending), num_returns=1)
            actor = pending.pop(ready[0])
            seed, episode, success = self._ray.get(ready[0])
            finished[seed] = (episode, success)
            if queue:
                pending[actor.expert_episode.remote(self._episode, queue.pop(0))] = actor
            while following < len(seeds) and seeds[following] in finished:
                episode, success = finished.pop(seeds[following])
                yield seeds[following], episode, success
                following += 1

    def throughput(self) -> list[WorkerThroughput]:
        """Each worker's episodes, steps and steps per second so far."""
        return list(self._ray.get([a.throughput.remote(i) for i, a in enumerate(self.actors)]))

    def close(self) -> None:
        for actor in self.actors:
            self._ray.kill(actor)
