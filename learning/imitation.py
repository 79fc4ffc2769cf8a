"""Learning a claw from demonstrations: behaviour cloning, then DAgger, into the SB3 actor.

Read it top to bottom, as :func:`imitate` runs it::

    runs/pick-tqc-20261202-101500-s0/
      config.yaml        the resolved TrainConfig (its ``imitation`` section: epochs, rounds ...)
      meta.json          seed, git commit, versions, the command, the dataset, env steps, wall time
      imitation.json     each stage: data size, loss, env steps so far, measured success
      model.zip          the SB3 model whose actor was trained (the critics untouched), and
      vecnormalize.pkl   its observation statistics (fit on the demonstrations)
      policy/            the exported actor (policy.safetensors + policy.json), as ``claw train``'s

Behaviour cloning regresses the actor's deterministic action (SAC/TQC: the tanh of its mean)
onto the expert's actions. Each DAgger round (Ross et al. 2011) lets the current policy act in
the training env, labels every state it reaches with the expert's action, adds those pairs to
the data and trains on. Each stage is measured on validation seeds (apart from the final
evaluation's); the best is exported. The network is the one ``claw train`` exports, so export,
``PolicyNetwork``, sha256 and ``--register`` are unchanged.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
import yaml
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.off_policy_algorithm import OffPolicyAlgorithm
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import VecNormalize

from claw.common.files import atomic_write
from claw.envs.goal import TaskEnv
from claw.learning.config import TrainConfig
from claw.learning.evaluate import evaluate_policy
from claw.learning.exceptions import InvalidConfigError
from claw.learning.export import export_policy
from claw.learning.finetune import BehaviourCloningTerm, finetune, squashed_actor
from claw.learning.tracking import TrackedRun
from claw.learning.train import (
    EVAL_SEED_OFFSET,
    make_envs,
    make_model,
    run_meta,
    track_outputs,
    vector_keys,
)
from claw.skills.policy import PolicyNetwork

DAGGER_SEED_OFFSET = 20_000  # DAgger rollouts use seeds apart from the demonstrations' and evals'


@dataclass
class Demonstrations:
    """Observation-action pairs: each observation key stacked, the expert's action for each."""

    observations: dict[str, np.ndarray]
    actions: np.ndarray

    def __len__(self) -> int:
        return len(self.actions)

    def extend(self, other: Demonstrations) -> Demonstrations:
        return Demonstrations(
            {k: np.concatenate([v, other.observations[k]]) for k, v in self.observations.items()},
            np.concatenate([self.actions, other.actions]),
        )


@dataclass
class ImitationResult:
    """What a run produced: its folder, env steps, wall time and the measured stages."""

    run_dir: Path
    config: TrainConfig
    timesteps: int
    wall_seconds: float
    stages: list[dict[str, Any]]
    chosen_stage: str
    """The stage exported: the best on the validation seeds (a tie: the later)."""

    @property
    def policy_dir(self) -> Path:
        return self.run_dir / "policy"


def load_demonstrations(
    dataset_id: str, env_id: str, obs_mode: str = "state"
) -> tuple[Demonstrations, int]:
    """The pairs of a Minari dataset recorded in ``env_id`` (in ``obs_mode``), and its env
    steps.

    Raises:
        InvalidConfigError: no such dataset (the message lists the local ones), or one recorded
            in another env.
    """
    from claw.learning.datasets import check_demonstrations, local_datasets, open_dataset

    local = local_datasets()[0]
    if dataset_id not in local:
        known = ", ".join(sorted(local)) or "none"
        raise InvalidConfigError(
            f"no demonstrations {dataset_id!r}; local datasets: {known} "
            "(claw demos record TASK makes one)"
        )
    check_demonstrations(dataset_id, env_id, obs_mode)
    dataset = open_dataset(dataset_id)
    observations: dict[str, list[np.ndarray]] = {}
    actions = []
    for episode in dataset.iterate_episodes():
        for key, values in episode.observations.items():
            observations.setdefault(key, []).append(values[:-1])  # the last one has no action
        actions.append(episode.actions)
    stacked = {k: np.concatenate(v) for k, v in observations.items()}
    return Demonstrations(stacked, np.concatenate(actions)), int(dataset.total_steps)


def check_shapes(demos: Demonstrations, space: gym.Space[Any], dataset_id: str) -> None:
    """Refuse demonstrations whose observations differ from what the env gives (other keys,
    image sizes, views or frame stacks).

    Raises:
        InvalidConfigError: a key missing or of another shape, naming both.
    """
    assert isinstance(space, gym.spaces.Dict)
    for key, sub in space.spaces.items():
        held = demos.observations.get(key)
        shape = None if held is None else held.shape[1:]
        if shape != sub.shape:
            raise InvalidConfigError(
                f"demonstrations {dataset_id} hold {key} of shape {shape}, but the env gives "
                f"{sub.shape}: record them with the same env settings"
            )


def fit_normalizer(normalizer: VecNormalize, demos: Demonstrations) -> None:
    """Set the observation statistics to the demonstrations' (and freeze them)."""
    assert isinstance(normalizer.obs_rms, dict)
    for key, stats in normalizer.obs_rms.items():
        values = demos.observations[key]
        stats.mean, stats.var, stats.count = values.mean(0), values.var(0), float(len(values))
    normalizer.training = False


def behaviour_clone(
    model: BaseAlgorithm,
    normalizer: VecNormalize,
    demos: Demonstrations,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    rng: np.random.Generator,
    shift: int = 0,
) -> float:
    """Regress the actor's deterministic action onto the demonstrations' actions, the learning
    rate decaying linearly to zero over the epochs, each image shifted at random by up to
    ``shift`` pixels; the last epoch's mean squared error."""
    actor = squashed_actor(model)
    optimizer = torch.optim.Adam(actor.parameters(), lr=learning_rate)
    batches = -(-len(demos) // batch_size)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: max(0.0, 1.0 - step / (epochs * batches))
    )
    normalized = normalizer.normalize_obs(demos.observations)
    assert isinstance(normalized, dict)
    images = set(normalized) - set(vector_keys(normalizer.observation_space) or normalized)
    inputs = {  # images stay uint8 (the actor's extractor scales them), vectors as float
        k: torch.as_tensor(v) if k in images else torch.as_tensor(v, dtype=torch.float32)
        for k, v in normalized.items()
    }
    targets = torch.as_tensor(demos.actions, dtype=torch.float32)
    generator = torch.Generator().manual_seed(int(rng.integers(2**31)))
    loss_value = float("nan")
    actor.train()
    for _ in range(epochs):
        order = torch.as_tensor(rng.permutation(len(demos)))
        total = 0.0
        for start in range(0, len(demos), batch_size):
            batch = order[start : start + batch_size]
            observations = {k: v[batch] for k, v in inputs.items()}
            for key in images:
                observations[key] = random_shift(observations[key], shift, generator)
            mean, _, _ = actor.get_action_dist_params(observations)
            loss = torch.nn.functional.mse_loss(torch.tanh(mean), targets[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            total += loss.item() * len(batch)
        loss_value = total / len(demos)
    actor.eval()
    return loss_value


def random_shift(images: torch.Tensor, shift: int, generator: torch.Generator) -> torch.Tensor:
    """DrQ's augmentation: each image (N x C x H x W) padded by ``shift`` pixels (the border
    repeated) and cropped back at a random offset; floats in the images' range."""
    if shift == 0:
        return images
    n, channels, height, width = images.shape
    padded = torch.nn.functional.pad(images.float(), (shift,) * 4, mode="replicate")
    dy = torch.randint(0, 2 * shift + 1, (n,), generator=generator)
    dx = torch.randint(0, 2 * shift + 1, (n,), generator=generator)
    rows = (torch.arange(height)[None, :] + dy[:, None])[:, None, :, None]
    cols = (torch.arange(width)[None, :] + dx[:, None])[:, None, None, :]
    samples = torch.arange(n)[:, None, None, None]
    return padded[samples, torch.arange(channels)[None, :, None, None], rows, cols]


def dagger_rollouts(
    network: PolicyNetwork, env: gym.Env, episodes: int, seed: int
) -> tuple[Demonstrations, float]:
    """The learner acts for ``episodes`` episodes; the expert labels every state it reaches.
    Returns the labelled pairs and the learner's success rate on these episodes."""
    goal_env = env.unwrapped
    assert isinstance(goal_env, TaskEnv)
    observations: dict[str, list[np.ndarray]] = {}
    labels, successes = [], 0
    for i in range(episodes):
        obs, info = env.reset(seed=seed + i)
        done = False
        while not done:
            for key, value in obs.items():
                observations.setdefault(key, []).append(value)
            labels.append(goal_env.task.expert_action(goal_env.privileged_state()))
            obs, _, terminated, truncated, info = env.step(network.act(obs))
            done = terminated or truncated
        successes += bool(info["is_success"])
    stacked = {k: np.stack(v) for k, v in observations.items()}
    return Demonstrations(stacked, np.stack(labels).astype(np.float32)), successes / episodes


def imitate(
    config: TrainConfig,
    run_dir: str | Path,
    dataset_id: str,
    dagger_rounds: int = 0,
    *,
    finetune_steps: int = 0,
    command: str | None = None,
    on_stage: Callable[[dict[str, Any]], None] | None = None,
    tracker: TrackedRun | None = None,
) -> ImitationResult:
    """Behaviour-clone the skill's policy from ``dataset_id``, then ``dagger_rounds`` rounds of
    DAgger, then ``finetune_steps`` env steps of RL from the best of them (TQC/SAC + HER, the
    demonstrations in replay); export the best stage into ``run_dir/policy``.

    Raises:
        InvalidConfigError: the config has no ``imitation`` section or its algorithm has no
            squashed Gaussian actor (SAC, TQC); the dataset is missing or from another env.
    """
    if config.imitation is None:
        raise InvalidConfigError(f"the {config.skill} config has no imitation section")
    if config.algo not in ("sac", "tqc"):
        raise InvalidConfigError(
            f"learning from demonstrations needs sac or tqc, not {config.algo}"
        )
    if finetune_steps and config.env_kwargs.get("obs_mode", "state") != "state":
        raise InvalidConfigError("--finetune learns from state observations only (obs_mode state)")
    settings = config.imitation
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(run_dir / "config.yaml", yaml.safe_dump(config.model_dump(mode="json")).encode())

    # 1. Reproducibility and the data.
    torch.set_num_threads(config.torch_threads)
    set_random_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    started = time.perf_counter()
    meta = run_meta(run_dir, config, command)
    obs_mode = config.env_kwargs.get("obs_mode", "state")
    demos, steps = load_demonstrations(dataset_id, config.env_id, obs_mode)
    meta.update(
        demonstrations=dataset_id, dagger_rounds=dagger_rounds, finetune_steps=finetune_steps
    )
    if tracker is not None:
        tracked = {"demonstrations": dataset_id, "dagger_rounds": dagger_rounds}
        tracker.log_params({**config.model_dump(mode="json"), **tracked})

    # 2. The model ``claw train`` would make, its statistics fit on the demonstrations.
    vec_env = make_envs(config.model_copy(update={"normalize": True}), 1, config.seed, True)
    assert isinstance(vec_env, VecNormalize)
    fit_normalizer(vec_env, demos)
    model = make_model(config, vec_env, run_dir / "tb")
    env = gym.make(config.env_id, **config.env_kwargs)
    check_shapes(demos, env.observation_space, dataset_id)
    stages: list[dict[str, Any]] = []
    # The best stage so far: its success on the validation seeds, its name, the actor's weights.
    best: tuple[float, str, dict[str, Any]] = (-1.0, "", {})

    def stage(name: str, loss: float | None, learner_success: float | None = None) -> PolicyNetwork:
        nonlocal best
        export_policy(model, vec_env, config, run_dir / "policy", training={"stage": name})
        network = PolicyNetwork.load(run_dir / "policy")
        measured = evaluate_policy(
            network, settings.eval_episodes, seed=config.seed + EVAL_SEED_OFFSET
        )
        row = {
            "stage": name,
            "pairs": len(demos),
            "loss": None if loss is None else round(loss, 6),
            "env_steps": steps,
            "success_rate": measured["success_rate"],
            "eval_episodes": settings.eval_episodes,
            "learner_success_in_rollouts": learner_success,
        }
        stages.append(row)
        if tracker is not None:
            tracked = ("success_rate", "loss", "pairs", "learner_success_in_rollouts")
            tracker.log_metrics({f"imitation/{k}": row[k] for k in tracked}, step=steps)
        if measured["success_rate"] >= best[0]:  # a tie goes to the later stage (more data)
            weights = copy.deepcopy(squashed_actor(model).state_dict())
            best = (measured["success_rate"], name, weights)
        if on_stage is not None:
            on_stage(row)
        return network

    # 3. Behaviour cloning, then DAgger rounds on the states the learner reaches.
    try:
        loss = behaviour_clone(
            model,
            vec_env,
            demos,
            settings.epochs,
            settings.batch_size,
            settings.learning_rate,
            rng,
            settings.shift,
        )
        network = stage("bc", loss)
        for k in range(1, dagger_rounds + 1):
            seed = config.seed + DAGGER_SEED_OFFSET + k * settings.dagger_episodes
            labelled, learner = dagger_rollouts(network, env, settings.dagger_episodes, seed)
            demos, steps = demos.extend(labelled), steps + len(labelled)
            loss = behaviour_clone(
                model,
                vec_env,
                demos,
                settings.dagger_epochs,
                settings.batch_size,
                settings.learning_rate,
                rng,
                settings.shift,
            )
            network = stage(f"dagger{k}", loss, learner)
        if finetune_steps:
            squashed_actor(model).load_state_dict(best[2])  # from the best stage so far
            assert isinstance(model, OffPolicyAlgorithm)
            normalized = vec_env.normalize_obs(demos.observations)
            assert isinstance(normalized, dict)
            cloning = BehaviourCloningTerm(
                {k: torch.as_tensor(v, dtype=torch.float32) for k, v in normalized.items()},
                torch.as_tensor(demos.actions, dtype=torch.float32),
                settings.batch_size,
                settings.finetune_cloning_weight,
                config.seed,
            )
            finetune(
                model,
                dataset_id,
                finetune_steps,
                settings.finetune_warmup,
                settings.finetune_exploration,
                cloning,
            )
            steps += finetune_steps
            stage("finetune", None)
    finally:
        env.close()
        vec_env.close()

    # 4. The best stage on the validation seeds is the policy (as EvalCallback's best model);
    # the SB3 model and statistics saved beside its export, and the record of the stages.
    squashed_actor(model).load_state_dict(best[2])
    model.save(str(run_dir / "model.zip"))
    vec_env.save(str(run_dir / "vecnormalize.pkl"))
    wall = round(time.perf_counter() - started, 1)
    meta.update(timesteps=steps, wall_seconds=wall, stages=stages, chosen_stage=best[1])
    atomic_write(run_dir / "meta.json", json.dumps(meta, indent=1).encode())
    record = {"stages": stages, "chosen_stage": best[1]}
    atomic_write(run_dir / "imitation.json", json.dumps(record, indent=1).encode())
    training = {k: meta[k] for k in ("seed", "git_commit", "command", "timesteps", "wall_seconds")}
    training.update(demonstrations=dataset_id, dagger_rounds=dagger_rounds, stage=best[1])
    export_policy(model, vec_env, config, run_dir / "policy", training=training)
    if tracker is not None:
        track_outputs(tracker, run_dir, ("config.yaml", "meta.json", "imitation.json"))
    return ImitationResult(run_dir, config, steps, wall, stages, best[1])
