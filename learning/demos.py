"""Demonstrations as Minari datasets: the scripted experts of the training envs, recorded.

``record`` runs a task's expert (:meth:`~claw.envs.tasks.GoalTask.expert_action`, the
controller expressed in the env's own action space) in its training env and writes a Minari
dataset (Farama's format for offline data): observations, actions, rewards, terminations,
truncations and infos per step, each episode's seed, and the randomisation each reset drew
(in the infos). ``minari.load_dataset(ID)`` reads it; so do :func:`dataset_summary` and
``claw demos list/show``. Datasets live where Minari keeps them (``MINARI_DATASETS_PATH``, else
``~/.minari/datasets``) under ids ``claw/TASK/NAME-v0``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from pydantic import BaseModel, Field

import claw.envs  # noqa: F401  (registers the training envs)
from claw.envs.goal import TaskEnv
from claw.envs.seeding import check_seeds
from claw.envs.tasks import TASKS
from claw.learning.datasets import (
    DEFAULT_NAME,
    NAMESPACE,
    check_demonstrations,
    dataset_id,
    dataset_summary,
    datasets_root,
    episodes_of,
    list_datasets,
    local_datasets,
    open_dataset,
    resolve,
)
from claw.learning.exceptions import InvalidConfigError
from claw.learning.ray_envs import EnvWorker, ExpertPool, WorkerThroughput

__all__ = [
    "DATA_FORMAT",
    "DEFAULT_NAME",
    "NAMESPACE",
    "TASK_ENVS",
    "RecordResult",
    "check_demonstrations",
    "dataset_id",
    "dataset_summary",
    "datasets_root",
    "episodes_of",
    "expert_episode",
    "list_datasets",
    "local_datasets",
    "minari_root",
    "open_dataset",
    "record",
    "resolve",
]

TASK_ENVS = {"reach": "claw/Reach-v0", "push": "claw/Push-v0", "pick_place": "claw/PickAndPlace-v0"}
"""The training env of each task that has an expert."""
DATA_FORMAT = "hdf5"


class RecordResult(BaseModel):
    """What ``record`` wrote and how the expert did."""

    dataset_id: str
    path: str
    episodes_run: int
    episodes_kept: int
    successes: int
    steps: int
    wall_seconds: float
    workers: list[WorkerThroughput] = Field(default_factory=list)
    """Each environment worker's episodes, steps and steps per second (one locally)."""


def expert_episode(env: gym.Env, seed: int) -> tuple[dict[str, Any], bool]:
    """One episode of the task's expert from ``env.reset(seed=seed)``: its arrays (Minari's
    episode layout, observations and infos one longer than actions) and whether it succeeded."""
    goal_env = env.unwrapped
    assert isinstance(goal_env, TaskEnv)
    obs, info = env.reset(seed=seed)
    drawn = _drawn(info)
    observations, actions, rewards, terminations, truncations = [obs], [], [], [], []
    infos = [_step_info(info, drawn)]
    done = False
    while not done:
        action = goal_env.task.expert_action(goal_env.privileged_state()).astype(np.float32)
        obs, reward, terminated, truncated, info = env.step(action)
        observations.append(obs)
        actions.append(action)
        rewards.append(float(reward))
        terminations.append(bool(terminated))
        truncations.append(bool(truncated))
        infos.append(_step_info(info, drawn))
        done = terminated or truncated
    episode = {
        "observations": {k: np.stack([o[k] for o in observations]) for k in observations[0]},
        "actions": np.stack(actions),
        "rewards": rewards,
        "terminations": terminations,
        "truncations": truncations,
        "infos": {k: np.asarray([i[k] for i in infos]) for k in infos[0]},
    }
    return episode, bool(info["is_success"])


def _drawn(reset_info: dict[str, Any]) -> dict[str, Any]:
    """The randomisation a reset drew, as flat numbers (kept in every step's infos)."""
    drawn = reset_info.get("randomization", {})
    values: dict[str, Any] = {"block_size": float(reset_info.get("block_size", 0.0))}
    for name, draws in drawn.get("objects", {}).items():
        values.update({f"{name}_friction": draws["friction"], f"{name}_mass": draws["mass"]})
    values["arm_jitter"] = np.asarray(drawn.get("arm_jitter", np.zeros(6)), dtype=np.float64)
    return values


def _step_info(info: dict[str, Any], drawn: dict[str, Any]) -> dict[str, Any]:
    return {"is_success": bool(info["is_success"]), "distance": float(info["distance"]), **drawn}


def record(
    task: str,
    episodes: int,
    name: str | None = None,
    *,
    include_failures: bool = False,
    seed: int = 0,
    obs_mode: str = "state",
    on_episode: Callable[[int, bool], None] | None = None,
    ray_workers: int | None = None,
) -> RecordResult:
    """Run the task's expert for ``episodes`` episodes (seeds ``seed``, ``seed + 1``, ...) and
    write the successful ones (every one with ``include_failures``) as a Minari dataset, the
    observations in ``obs_mode`` (the expert acts on the state in every mode).

    With ``ray_workers``, that many Ray actors run the episodes (Ray joined by the caller, see
    :func:`claw.eval.ray_connect.joined`); the dataset is the one a local run writes.

    Raises:
        InvalidConfigError: an unknown task or observation mode, no episodes, a dataset of that
            id already there, or no episode to keep.
        InvalidSeedError: a last seed, ``seed + episodes - 1``, over ``2**32 - 1``.
    """
    from minari import create_dataset_from_buffers
    from minari.data_collector import EpisodeBuffer

    if task not in TASK_ENVS:
        raise InvalidConfigError(f"no expert for task {task!r}; allowed: {', '.join(TASK_ENVS)}")
    if episodes < 1:
        raise InvalidConfigError(f"--episodes must be at least 1, got {episodes}")
    check_seeds(seed, episodes)
    target_id = dataset_id(task, name)
    root = datasets_root()
    if (root / target_id).exists():
        raise InvalidConfigError(
            f"dataset {target_id} already exists in {root}; choose another --out "
            "(claw demos list shows the datasets)"
        )
    started = time.perf_counter()
    try:
        env = gym.make(TASK_ENVS[task], obs_mode=obs_mode)
    except ValueError as exc:
        raise InvalidConfigError(str(exc)) from None
    kept: list[EpisodeBuffer] = []
    successes = steps = 0
    seeds = list(range(seed, seed + episodes))
    pool, local = None, EnvWorker(lambda: env)
    try:
        if ray_workers is not None:
            pool = ExpertPool(_maker(task, obs_mode), ray_workers, expert_episode)
        run = local.expert_episodes(expert_episode, seeds) if pool is None else pool.episodes(seeds)
        for i, (episode_seed, episode, success) in enumerate(run):
            successes += success
            if on_episode is not None:
                on_episode(i, success)
            if success or include_failures:
                steps += len(episode["rewards"])
                kept.append(EpisodeBuffer(id=len(kept), seed=episode_seed, **episode))
        throughput = [local.throughput(0)] if pool is None else pool.throughput()
        if not kept:
            raise InvalidConfigError(
                f"the {task} expert succeeded in none of {episodes} episodes: nothing to keep "
                "(--include-failures keeps them)"
            )
        _write(
            root,
            target_id,
            lambda: _quietly(create_dataset_from_buffers)(
                target_id,
                kept,
                env=env,
                algorithm_name=f"claw scripted expert ({TASKS[task].__name__}.expert_action)",
                author="claw",
                description=_description(task, episodes, successes, include_failures),
                data_format=DATA_FORMAT,
                requirements=_requirements(),
            ),
        )
    finally:
        if pool is not None:
            pool.close()
        env.close()
    return RecordResult(
        dataset_id=target_id,
        path=str(root / target_id),
        episodes_run=episodes,
        episodes_kept=len(kept),
        successes=successes,
        steps=steps,
        wall_seconds=round(time.perf_counter() - started, 2),
        workers=throughput,
    )


def _maker(task: str, obs_mode: str) -> Callable[[], gym.Env]:
    """Makes the task's training env in any process (``module:id`` imports claw.envs there,
    which registers the id)."""
    return partial(gym.make, f"claw.envs:{TASK_ENVS[task]}", obs_mode=obs_mode)


@contextlib.contextmanager
def minari_root(path: Path) -> Iterator[None]:
    """Minari's dataset folder set to ``path`` for the duration."""
    previous = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = str(path)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("MINARI_DATASETS_PATH", None)
        else:
            os.environ["MINARI_DATASETS_PATH"] = previous


def _write(root: Path, target_id: str, write: Callable[[], object]) -> None:
    """Let Minari ``write`` the dataset into a staging folder beside the others, then move it
    into place in one rename: a crash never leaves a half-written dataset under its id."""
    staging = Path(tempfile.mkdtemp(prefix=".claw-staging-", dir=root))
    try:
        with minari_root(staging):
            write()
        final = root / target_id
        final.parent.mkdir(parents=True, exist_ok=True)
        os.rename(staging / target_id, final)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _quietly(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` without Minari's advice to add an e-mail, a permalink and an eval env."""

    def call(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=UserWarning, module="minari")
            return function(*args, **kwargs)

    return call


def _description(task: str, episodes: int, successes: int, include_failures: bool) -> str:
    kept = "every episode" if include_failures else "its successful episodes"
    return (
        f"The claw {task} expert (the IK/PID controllers in {TASK_ENVS[task]}'s action space): "
        f"{successes} of {episodes} episodes succeeded; {kept} kept. Domain randomisation on; "
        "each episode's seed in its metadata, the randomisation drawn in its infos."
    )


def _requirements() -> list[str]:
    from importlib import metadata

    return [f"{name}=={metadata.version(name)}" for name in ("claw", "mujoco", "gymnasium")]
