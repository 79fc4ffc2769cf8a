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
import json
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from pydantic import BaseModel

import claw.envs  # noqa: F401  (registers the training envs)
from claw.envs.goal import GoalEnv
from claw.envs.tasks import TASKS, GoalObservation
from claw.learning.exceptions import InvalidConfigError

TASK_ENVS = {"reach": "claw/Reach-v0", "push": "claw/Push-v0", "pick_place": "claw/PickAndPlace-v0"}
"""The training env of each task that has an expert."""
NAMESPACE = "claw"
DEFAULT_NAME = "expert"
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


def dataset_id(task: str, name: str | None = None) -> str:
    """The Minari id of a task's demonstrations: ``claw/TASK/NAME-v0`` (``NAME`` may already be
    a full id, ``namespace/.../name-vN``)."""
    name = name or DEFAULT_NAME
    if "/" in name:
        return name
    return f"{NAMESPACE}/{task}/{name}" + ("" if _versioned(name) else "-v0")


def _versioned(name: str) -> bool:
    stem, sep, version = name.rpartition("-v")
    return bool(sep and stem and version.isdigit())


def datasets_root() -> Path:
    """Where Minari keeps local datasets (``MINARI_DATASETS_PATH``, else ``~/.minari/datasets``)."""
    from minari.storage.datasets_root_dir import get_dataset_path

    return get_dataset_path()


def expert_episode(env: gym.Env, seed: int) -> tuple[dict[str, Any], bool]:
    """One episode of the task's expert from ``env.reset(seed=seed)``: its arrays (Minari's
    episode layout, observations and infos one longer than actions) and whether it succeeded."""
    goal_env = env.unwrapped
    assert isinstance(goal_env, GoalEnv)
    obs, info = env.reset(seed=seed)
    drawn = _drawn(info)
    observations, actions, rewards, terminations, truncations = [obs], [], [], [], []
    infos = [_step_info(info, drawn)]
    done = False
    while not done:
        action = goal_env.task.expert_action(GoalObservation(**obs)).astype(np.float32)
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
    on_episode: Callable[[int, bool], None] | None = None,
) -> RecordResult:
    """Run the task's expert for ``episodes`` episodes (seeds ``seed``, ``seed + 1``, ...) and
    write the successful ones (every one with ``include_failures``) as a Minari dataset.

    Raises:
        InvalidConfigError: an unknown task, no episodes, a dataset of that id already there, or
            no episode to keep.
    """
    from minari import create_dataset_from_buffers
    from minari.data_collector import EpisodeBuffer

    if task not in TASK_ENVS:
        raise InvalidConfigError(f"no expert for task {task!r}; allowed: {', '.join(TASK_ENVS)}")
    if episodes < 1:
        raise InvalidConfigError(f"--episodes must be at least 1, got {episodes}")
    target_id = dataset_id(task, name)
    root = datasets_root()
    if (root / target_id).exists():
        raise InvalidConfigError(
            f"dataset {target_id} already exists in {root}; choose another --out "
            "(claw demos list shows the datasets)"
        )
    started = time.perf_counter()
    env = gym.make(TASK_ENVS[task])
    kept: list[EpisodeBuffer] = []
    successes = steps = 0
    try:
        for i in range(episodes):
            episode, success = expert_episode(env, seed + i)
            successes += success
            if on_episode is not None:
                on_episode(i, success)
            if success or include_failures:
                steps += len(episode["rewards"])
                kept.append(EpisodeBuffer(id=len(kept), seed=seed + i, **episode))
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
        env.close()
    return RecordResult(
        dataset_id=target_id,
        path=str(root / target_id),
        episodes_run=episodes,
        episodes_kept=len(kept),
        successes=successes,
        steps=steps,
        wall_seconds=round(time.perf_counter() - started, 2),
    )


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


def episodes_of(dataset_id: str) -> Iterator[Any]:
    """The episodes of a local dataset (Minari's ``EpisodeData``), in order."""
    import minari

    yield from minari.load_dataset(dataset_id).iterate_episodes()


def list_datasets() -> list[dict[str, Any]]:
    """The local Minari datasets: id, episodes, steps and the env they were recorded in."""
    from minari import list_local_datasets

    rows = []
    for dataset_id_, metadata in sorted(list_local_datasets().items()):
        env_spec = metadata.get("env_spec")
        rows.append(
            {
                "dataset_id": dataset_id_,
                "episodes": int(metadata.get("total_episodes", 0)),
                "steps": int(metadata.get("total_steps", 0)),
                "env_id": _env_id(env_spec),
            }
        )
    return rows


def _env_id(env_spec: Any) -> str | None:
    if env_spec is None:
        return None
    if isinstance(env_spec, str):
        try:
            return str(json.loads(env_spec).get("id"))
        except (json.JSONDecodeError, AttributeError):
            return None
    return str(getattr(env_spec, "id", None))


def resolve(name: str, task: str | None = None) -> str:
    """The id of a local dataset named ``name``: a full id, ``claw/TASK/NAME-v0`` for a task, or
    the one claw dataset of that name.

    Raises:
        InvalidConfigError: none or several match (the message lists the local ones).
    """
    from minari import list_local_datasets

    local = sorted(list_local_datasets())
    if task is not None or "/" in name:
        wanted = dataset_id(task or "", name)
        if wanted in local:
            return wanted
        matches = []
    else:
        stem = name if _versioned(name) else f"{name}-v0"
        matches = [d for d in local if d.startswith(f"{NAMESPACE}/") and d.endswith(f"/{stem}")]
        if len(matches) == 1:
            return matches[0]
    known = ", ".join(local) or "none"
    several = f" ({len(matches)} match: name it by its id)" if matches else ""
    raise InvalidConfigError(
        f"no single dataset {name!r}{several}; local datasets: {known} "
        "(claw demos record TASK makes one)"
    )


def dataset_summary(name: str) -> dict[str, Any]:
    """What ``claw demos show`` prints: provenance, episodes, success, lengths, seeds, draws."""
    import minari

    found = resolve(name)
    dataset = minari.load_dataset(found)
    episodes = list(dataset.iterate_episodes())
    metadata = list(dataset.storage.get_episode_metadata(range(len(episodes))))
    seeds = [m.get("seed") for m in metadata]
    lengths = np.array([len(e.actions) for e in episodes])
    final_success = [bool(e.infos["is_success"][-1]) for e in episodes]
    sizes = [float(e.infos["block_size"][0]) for e in episodes if "block_size" in e.infos]
    spec = dataset.spec
    summary: dict[str, Any] = {
        "dataset_id": found,
        "path": str(datasets_root() / found),
        "env_id": spec.env_spec.id if spec.env_spec is not None else None,
        "algorithm": dataset.storage.metadata.get("algorithm_name"),
        "episodes": len(episodes),
        "steps": int(lengths.sum()),
        "success_rate": float(np.mean(final_success)),
        "episode_length": {"min": int(lengths.min()), "max": int(lengths.max())},
        "seeds": {"first": min(s for s in seeds if s is not None), "last": max(seeds)}
        if all(s is not None for s in seeds)
        else None,
        "observation_space": str(dataset.observation_space),
        "action_space": str(dataset.action_space),
        "description": dataset.storage.metadata.get("description"),
    }
    if sizes:
        summary["block_size"] = {"min": round(min(sizes), 4), "max": round(max(sizes), 4)}
    return summary
