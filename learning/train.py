"""The training script for learned claws: read it top to bottom, as ``train()`` runs it.

A run folder holds everything about one run::

    runs/push-tqc-20261129-231500-s0/
      config.yaml        the resolved TrainConfig
      meta.json          seed, git commit, package versions, the command (written at the start),
                         then steps and wall time
      tb/                TensorBoard logs (train/*, eval/success_rate, eval/mean_reward, ...)
      eval/              evaluations.npz and evaluations.json (every evaluation)
      checkpoints/       model, replay buffer and VecNormalize statistics every checkpoint_freq
      curriculum.json    with --curriculum: the stage reached and each evaluation's stage
      model.zip          the final SB3 model, vecnormalize.pkl beside it (for --resume, SB3 tools)
      policy/            the exported policy: policy.safetensors + policy.json (no pickle)
      eval/episode.mp4   with --tracker: one evaluation episode of the policy (also in MLflow)
"""

from __future__ import annotations

import json
import platform
import re
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
import yaml
from pydantic import ValidationError
from sb3_contrib import TQC
from stable_baselines3 import PPO, SAC, TD3, HerReplayBuffer
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback, EvalCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.noise import NormalActionNoise
from stable_baselines3.common.off_policy_algorithm import OffPolicyAlgorithm
from stable_baselines3.common.preprocessing import get_action_dim, is_image_space
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import (
    DummyVecEnv,
    SubprocVecEnv,
    VecEnv,
    VecMonitor,
    VecNormalize,
)

import claw.envs  # noqa: F401  (registers the training envs)
from claw.common.files import atomic_write
from claw.envs.multi_agent import PARALLEL_ENVS
from claw.learning.config import OFF_POLICY, TrainConfig
from claw.learning.curriculum import Curriculum
from claw.learning.evaluate import record_policy_video
from claw.learning.exceptions import InvalidConfigError
from claw.learning.export import export_policy, zero_output_layer
from claw.learning.multi_agent import AgentsVecEnv
from claw.learning.tracking import TrackedRun
from claw.library.files import git_commit
from claw.skills.policy import PolicyNetwork

ALGORITHM_CLASSES: dict[str, type[BaseAlgorithm]] = {"tqc": TQC, "sac": SAC, "td3": TD3, "ppo": PPO}
EVAL_SEED_OFFSET = 10_000  # evaluation episodes use seeds apart from training ones
PACKAGES = ("claw", "stable-baselines3", "sb3-contrib", "torch", "gymnasium", "mujoco", "numpy")


@dataclass
class TrainResult:
    """What a run produced and how it went."""

    run_dir: Path
    config: TrainConfig
    timesteps: int
    wall_seconds: float
    evaluations: list[dict[str, float]] = field(default_factory=list)
    workers: list[dict[str, Any]] = field(default_factory=list)
    """Each Ray environment worker's episodes, steps and steps per second (``--ray``)."""

    @property
    def policy_dir(self) -> Path:
        """The exported policy (a multi-agent example exports none)."""
        return self.run_dir / "policy"


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def run_meta(run_dir: Path, config: TrainConfig, command: str | None) -> dict[str, Any]:
    """The run's ``meta.json`` at its start (seed, commit, versions, command), written; a resumed
    run keeps its first start."""
    meta = _read_json(run_dir / "meta.json")
    meta.update(
        seed=config.seed,
        git_commit=git_commit(),
        versions=package_versions(),
        command=command or " ".join(sys.argv),
        started=meta.get("started", datetime.now(timezone.utc).isoformat()),
    )
    atomic_write(run_dir / "meta.json", json.dumps(meta, indent=1).encode())
    return meta


def check_env(config: TrainConfig) -> None:
    """Make the config's env once, in this process, and close it: settings it does not take
    (``env_kwargs``, a curriculum's difficulty) are refused before a run folder or a worker
    process is made.

    Raises:
        InvalidConfigError: the env refuses its settings (its reason, one line).
    """
    try:
        if config.env_id in PARALLEL_ENVS:
            PARALLEL_ENVS[config.env_id](**config.env_kwargs).close()
        else:
            gym.make(config.env_id, **config.env_kwargs).close()
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ValidationError):
            first = exc.errors()[0]
            reason = f"{'.'.join(map(str, first['loc']))}: {first['msg']}"
        else:
            reason = str(exc).split(" was raised from the environment creator")[0]
        reason = " ".join(reason.split())[:300] or type(exc).__name__
        raise InvalidConfigError(f"{config.env_id} refuses env_kwargs: {reason}") from None


def make_envs(config: TrainConfig, n_envs: int, seed: int, training: bool) -> VecEnv:
    """``n_envs`` copies of the skill's env (in subprocesses if asked), with VecNormalize; for a
    multi-agent env, its agents as the envs (parameter sharing, ``AgentsVecEnv``)."""
    if config.env_id in PARALLEL_ENVS:
        agents = AgentsVecEnv(PARALLEL_ENVS[config.env_id](**config.env_kwargs), seed=seed)
        env: VecEnv = VecMonitor(agents)
    else:
        vec_cls: type[VecEnv] = DummyVecEnv
        if config.vec_env == "ray" and training:
            from claw.learning.ray_envs import RayVecEnv

            vec_cls = RayVecEnv
        elif config.vec_env == "subproc" and n_envs > 1:
            vec_cls = SubprocVecEnv
        # "module:id" makes each subprocess import claw.envs, which registers the id there too.
        env_id = config.env_id
        env_id = f"claw.envs:{env_id}" if env_id.startswith("claw/") else env_id
        env = make_vec_env(
            env_id,
            n_envs=n_envs,
            seed=seed,
            vec_env_cls=vec_cls,  # type: ignore[arg-type]  # any VecEnv taking env makers
            env_kwargs=config.env_kwargs,
        )
    if config.normalize:
        env = VecNormalize(
            env,
            training=training,
            norm_obs=True,
            norm_obs_keys=vector_keys(env.observation_space),
            norm_reward=training and config.normalize_reward,
            gamma=config.algo_kwargs.get("gamma", 0.99),
        )
    return env


def vector_keys(space: gym.Space[Any]) -> list[str] | None:
    """A ``Dict`` space's keys that are not images (the ones ``VecNormalize`` normalises;
    images go to a CNN as they are); ``None`` for any other space."""
    if not isinstance(space, gym.spaces.Dict):
        return None
    return [key for key, sub in space.spaces.items() if not is_image_space(sub)]


def make_model(config: TrainConfig, env: VecEnv, tensorboard_dir: Path) -> BaseAlgorithm:
    """The SB3 algorithm for the config, with HER for off-policy algorithms that ask for it."""
    kwargs: dict[str, Any] = dict(config.algo_kwargs)
    noise_std = kwargs.pop("action_noise_std", None)
    if noise_std is not None:
        n_actions = get_action_dim(env.action_space)
        kwargs["action_noise"] = NormalActionNoise(
            np.zeros(n_actions), noise_std * np.ones(n_actions)
        )
    if config.her is not None:
        if config.algo not in OFF_POLICY:
            raise InvalidConfigError(f"HER needs an off-policy algorithm, not {config.algo}")
        horizon = gym.spec(config.env_id).max_episode_steps or 0
        if kwargs.get("learning_starts", 100) <= horizon:
            raise InvalidConfigError(
                f"with HER, algo_kwargs.learning_starts must exceed the episode length "
                f"({horizon} steps of {config.env_id})"
            )
        kwargs["replay_buffer_class"] = HerReplayBuffer
        kwargs["replay_buffer_kwargs"] = config.her.model_dump()
    model = ALGORITHM_CLASSES[config.algo](
        "MultiInputPolicy" if isinstance(env.observation_space, gym.spaces.Dict) else "MlpPolicy",
        env,
        policy_kwargs=dict(config.policy_kwargs),
        tensorboard_log=str(tensorboard_dir),
        seed=config.seed,
        device="cpu",
        verbose=0,
        **kwargs,
    )
    if config.env_kwargs.get("residual"):
        zero_output_layer(model)  # a residual policy starts as exactly the controller
    return model


def latest_checkpoint(run_dir: Path) -> tuple[Path, int] | None:
    """The newest ``checkpoints/model_N_steps.zip`` of a run, and N."""
    found = []
    for path in (run_dir / "checkpoints").glob("model_*_steps.zip"):
        match = re.fullmatch(r"model_(\d+)_steps\.zip", path.name)
        if match:
            found.append((int(match.group(1)), path))
    if not found:
        return None
    steps, path = max(found)
    return path, steps


class AfterEvaluation(BaseCallback):
    """Calls a function with each new evaluation (a row of ``evaluations.json``); stops training
    when it returns False (``claw tune`` prunes trials this way)."""

    def __init__(self, hook: Callable[[dict[str, float]], bool]) -> None:
        super().__init__()
        self.hook = hook

    def _on_step(self) -> bool:
        assert isinstance(self.parent, EvalCallback)
        return self.hook(_evaluations(self.parent)[-1])


def _evaluations(callback: EvalCallback) -> list[dict[str, float]]:
    rows = []
    for i, steps in enumerate(callback.evaluations_timesteps):
        rewards = np.asarray(callback.evaluations_results[i])
        row = {
            "timesteps": int(steps),
            "mean_reward": float(rewards.mean()),
            "mean_length": float(np.mean(callback.evaluations_length[i])),
        }
        if i < len(callback.evaluations_successes):
            row["success_rate"] = float(np.mean(callback.evaluations_successes[i]))
        rows.append(row)
    return rows


def train(
    config: TrainConfig,
    run_dir: str | Path,
    *,
    resume: bool = False,
    progress_bar: bool = False,
    callbacks: Sequence[BaseCallback] = (),
    after_evaluation: Callable[[dict[str, float]], bool] | None = None,
    command: str | None = None,
    tracker: TrackedRun | None = None,
) -> TrainResult:
    """Train the skill's policy as ``config`` says, into ``run_dir``; export it at the end.

    Args:
        config: The resolved config (``load_config``); on resume, the run's own.
        run_dir: The run folder (created; on resume, the existing run).
        resume: Continue from the run's latest checkpoint up to ``config.total_timesteps``.
        progress_bar: Show SB3's progress bar.
        callbacks: Extra SB3 callbacks.
        after_evaluation: Called with each evaluation's figures; returning False stops training.
        command: The command line, recorded in ``meta.json``.
        tracker: An MLflow run to log the config, each evaluation and the outputs to.
    """
    run_dir = Path(run_dir)
    checkpoint = latest_checkpoint(run_dir) if resume else None
    if resume and checkpoint is None:
        raise InvalidConfigError(f"cannot resume {run_dir}: it has no checkpoints/model_*.zip")
    run_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(run_dir / "config.yaml", yaml.safe_dump(config.model_dump(mode="json")).encode())

    # 1. Reproducibility: seeds, one torch thread per process (the envs take the other cores).
    torch.set_num_threads(config.torch_threads)
    set_random_seed(config.seed)
    started = time.perf_counter()
    meta = run_meta(run_dir, config, command)
    if tracker is not None:
        tracker.log_params(config.model_dump(mode="json"))

    # 2. Environments: training copies in parallel, one evaluation env on separate seeds.
    env = make_envs(config, config.n_envs, config.seed, training=True)
    eval_env = make_envs(config, 1, config.seed + EVAL_SEED_OFFSET, training=False)

    # 3. The model: new, or the latest checkpoint with its replay buffer and statistics.
    if checkpoint is None:
        model = make_model(config, env, run_dir / "tb")
    else:
        path, steps = checkpoint
        stats = path.with_name(f"model_vecnormalize_{steps}_steps.pkl")
        if config.normalize and stats.is_file():
            env = VecNormalize.load(str(stats), env.venv if isinstance(env, VecNormalize) else env)
        model = ALGORITHM_CLASSES[config.algo].load(str(path), env=env, device="cpu")
        buffer = path.with_name(f"model_replay_buffer_{steps}_steps.pkl")
        if isinstance(model, OffPolicyAlgorithm) and buffer.is_file():
            model.load_replay_buffer(str(buffer))

    # 4. Periodic evaluation (success rate, mean reward, length) and checkpoints.
    eval_callback = EvalCallback(
        eval_env,
        n_eval_episodes=config.eval_episodes,
        eval_freq=max(config.eval_freq // env.num_envs, 1),
        log_path=str(run_dir / "eval"),
        best_model_save_path=None,
        callback_after_eval=AfterEvaluation(after_evaluation) if after_evaluation else None,
        deterministic=True,
        verbose=0,
    )
    checkpoint_callback = CheckpointCallback(
        save_freq=max(config.checkpoint_freq // env.num_envs, 1),
        save_path=str(run_dir / "checkpoints"),
        name_prefix="model",
        save_replay_buffer=config.algo in OFF_POLICY,
        save_vecnormalize=config.normalize,
    )

    # 5. A curriculum: the envs start at the run's stage, promoted on evaluation success.
    staged: list[BaseCallback] = []
    if config.curriculum is not None:
        curriculum = Curriculum(config.curriculum, eval_callback, eval_env, run_dir)
        env.env_method("set_difficulty", **config.curriculum.stages[curriculum.stage].difficulty)
        staged.append(curriculum)
    if tracker is not None:
        staged.append(TrackEvaluations(eval_callback, tracker))

    # 6. Learn.
    remaining = config.total_timesteps - model.num_timesteps
    try:
        if remaining > 0:
            model.learn(
                total_timesteps=remaining,
                callback=[eval_callback, *staged, checkpoint_callback, *callbacks],
                tb_log_name="run",
                reset_num_timesteps=checkpoint is None,
                progress_bar=progress_bar,
            )
    finally:
        throughput = getattr(env.unwrapped, "throughput", None)
        workers = [w.model_dump() for w in throughput()] if throughput is not None else []
        env.close()
        eval_env.close()
    wall = time.perf_counter() - started

    # 7. Save: a last checkpoint (for --resume), copied to model.zip and vecnormalize.pkl, then
    # the pickle-free export.
    steps = int(model.num_timesteps)
    saved = run_dir / "checkpoints"
    model.save(str(saved / f"model_{steps}_steps.zip"))
    shutil.copyfile(saved / f"model_{steps}_steps.zip", run_dir / "model.zip")
    normalizer = model.get_vec_normalize_env()
    if normalizer is not None:
        stats = saved / f"model_vecnormalize_{steps}_steps.pkl"
        normalizer.save(str(stats))
        shutil.copyfile(stats, run_dir / "vecnormalize.pkl")
    if isinstance(model, OffPolicyAlgorithm):
        model.save_replay_buffer(str(saved / f"model_replay_buffer_{steps}_steps"))
    previous = _read_json(run_dir / "eval" / "evaluations.json").get("evaluations", [])
    kept = [e for e in previous if checkpoint is not None and e["timesteps"] <= checkpoint[1]]
    evaluations = kept + _evaluations(eval_callback)
    atomic_write(
        run_dir / "eval" / "evaluations.json",
        json.dumps({"evaluations": evaluations}, indent=1).encode(),
    )
    meta.update(
        timesteps=steps,
        wall_seconds=round(meta.get("wall_seconds", 0.0) + wall, 1),
        resumed=meta.get("resumed", 0) + (checkpoint is not None),
        **({"workers": workers} if workers else {}),
    )
    atomic_write(run_dir / "meta.json", json.dumps(meta, indent=1).encode())
    training = {k: meta[k] for k in ("seed", "git_commit", "command", "timesteps", "wall_seconds")}
    if config.env_id not in PARALLEL_ENVS:  # a multi-agent example is no claw to export
        export_policy(model, normalizer, config, run_dir / "policy", training=training)
    if tracker is not None:
        track_outputs(tracker, run_dir, ("config.yaml", "meta.json", "eval/evaluations.json"))
    return TrainResult(run_dir, config, steps, meta["wall_seconds"], evaluations, workers)


class TrackEvaluations(BaseCallback):
    """Logs each new evaluation of ``evaluation`` to a tracked run, at its env step."""

    def __init__(self, evaluation: EvalCallback, tracker: TrackedRun) -> None:
        super().__init__()
        self.evaluation, self.tracker = evaluation, tracker
        self._seen = 0

    def _on_step(self) -> bool:
        rows = _evaluations(self.evaluation)
        for row in rows[self._seen :]:
            metrics = {f"eval/{k}": v for k, v in row.items() if k != "timesteps"}
            self.tracker.log_metrics(metrics, step=int(row["timesteps"]))
        self._seen = len(rows)
        return True


def track_outputs(tracker: TrackedRun, run_dir: Path, files: Sequence[str]) -> None:
    """A finished run's files, its exported policy and a video of one evaluation episode, as
    artifacts of the tracked run."""
    for name in files:
        tracker.log_artifact(run_dir / name, folder=str(Path(name).parent) if "/" in name else None)
    tracker.log_artifact(run_dir / "policy")
    video = record_policy_video(
        PolicyNetwork.load(run_dir / "policy"), run_dir / "eval" / "episode.mp4"
    )
    tracker.log_artifact(video, folder="eval")


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {}
