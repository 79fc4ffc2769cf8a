"""``claw bench imitation``: learned pick-and-place from demonstrations, every figure in one run.

Records the expert's demonstrations into a scratch Minari folder, behaviour-clones the pick
policy, runs the DAgger rounds, and measures on the same fresh episodes (seeds apart from every
seed training used): the expert itself, the behaviour-cloned policy, and the policy exported
after DAgger (the best stage on the validation seeds). Randomisation on, as in training.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
from pydantic import BaseModel

from claw.learning.config import load_config
from claw.learning.demos import TASK_ENVS, expert_episode, minari_root, record
from claw.learning.evaluate import EVALUATION_SEED, evaluate_policy
from claw.learning.imitation import imitate
from claw.skills.policy import PolicyNetwork

SKILL, TASK = "pick", "pick_place"


class ImitationRow(BaseModel):
    """One learner (or the expert) measured on the fresh episodes."""

    learner: str
    success_rate: float
    episodes: int
    env_steps: int
    """Env steps its training used: the demonstrations, then DAgger's rollouts."""
    mean_final_distance: float | None = None


class ImitationBench(BaseModel):
    """What ``claw bench imitation`` prints."""

    env_id: str
    demonstrations: int
    dagger_rounds: int
    chosen_stage: str
    rows: list[ImitationRow]
    record_seconds: float
    train_seconds: float
    """Behaviour cloning and DAgger (rollouts, training, each stage's validation)."""
    wall_seconds: float
    stages: list[dict[str, Any]]


def expert_success(episodes: int, seed: int) -> float:
    """The expert's success rate on ``episodes`` episodes from ``seed``."""
    env = gym.make(TASK_ENVS[TASK])
    try:
        return sum(expert_episode(env, seed + i)[1] for i in range(episodes)) / episodes
    finally:
        env.close()


def bench_imitation(
    demonstrations: int = 200,
    dagger_rounds: int = 8,
    episodes: int = 200,
    seed: int = 0,
    overrides: Sequence[str] = (),
) -> ImitationBench:
    """Record, clone, correct and measure; every figure from this one run (``overrides``:
    ``KEY=VALUE`` changes to the pick config, as ``claw train --hyperparams``)."""
    started = time.perf_counter()
    rows: list[ImitationRow] = []
    measuring = 0.0  # seconds spent measuring during training (not training time)

    def measure(learner: str, network: PolicyNetwork, steps: int) -> None:
        nonlocal measuring
        tic = time.perf_counter()
        figures = evaluate_policy(network, episodes, EVALUATION_SEED)
        measuring += time.perf_counter() - tic
        rows.append(
            ImitationRow(
                learner=learner,
                success_rate=figures["success_rate"],
                episodes=episodes,
                env_steps=steps,
                mean_final_distance=figures["mean_final_distance"],
            )
        )

    with tempfile.TemporaryDirectory(prefix="claw-bench-imitation-") as scratch:
        root = Path(scratch)
        (root / "datasets").mkdir()
        with minari_root(root / "datasets"):
            recorded = record(TASK, demonstrations, "bench", seed=seed)
            recorded_at = time.perf_counter()
            config = load_config(SKILL, None, list(overrides), seed=seed)
            policy = root / "run" / "policy"

            def after_stage(row: dict[str, Any]) -> None:
                if row["stage"] == "bc":  # the export is the cloned policy at this moment
                    measure("behaviour cloning", PolicyNetwork.load(policy), row["env_steps"])

            result = imitate(
                config, root / "run", recorded.dataset_id, dagger_rounds, on_stage=after_stage
            )
            trained_at = time.perf_counter() - measuring
            if dagger_rounds:
                learner = f"DAgger ({dagger_rounds} rounds, {result.chosen_stage} kept)"
                measure(learner, PolicyNetwork.load(policy), result.timesteps)
    expert = ImitationRow(
        learner="expert (the controllers)",
        success_rate=expert_success(episodes, EVALUATION_SEED),
        episodes=episodes,
        env_steps=0,
    )
    return ImitationBench(
        env_id=TASK_ENVS[TASK],
        demonstrations=demonstrations,
        dagger_rounds=dagger_rounds,
        chosen_stage=result.chosen_stage,
        rows=[expert, *rows],
        record_seconds=round(recorded_at - started, 1),
        train_seconds=round(trained_at - recorded_at, 1),
        wall_seconds=round(time.perf_counter() - started, 1),
        stages=result.stages,
    )
