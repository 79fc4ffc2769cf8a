"""``claw tune``: search a skill's hyperparameters with Optuna, pruning on evaluation success.

Each trial is a short training run (``claw.learning.train.train``) with sampled overrides; after
each periodic evaluation its success rate (ties broken by mean reward, see :func:`score`) is
reported to Optuna, and a trial the median pruner finds behind is stopped. The study lives in
``STUDY_DIR/study.db`` (SQLite, so a study can be continued); ``best.yaml`` holds the best
trial's overrides for ``claw train --hyperparams``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import optuna
import yaml

from claw.learning.config import OFF_POLICY, load_config
from claw.learning.train import train
from claw.library.files import atomic_write


def sample_overrides(trial: optuna.Trial, algo: str) -> dict[str, Any]:
    """Hyperparameters to try, as dotted override keys."""
    arch = trial.suggest_categorical("net_arch", ["64x64", "128x128", "256x256"])
    overrides: dict[str, Any] = {
        "algo_kwargs.learning_rate": trial.suggest_float("learning_rate", 1e-4, 3e-3, log=True),
        "algo_kwargs.gamma": trial.suggest_categorical("gamma", [0.9, 0.95, 0.98]),
        "policy_kwargs.net_arch": [int(n) for n in arch.split("x")],
    }
    if algo in OFF_POLICY:
        overrides["algo_kwargs.batch_size"] = trial.suggest_categorical("batch_size", [128, 256])
        overrides["algo_kwargs.tau"] = trial.suggest_categorical("tau", [0.01, 0.05])
    else:
        overrides["algo_kwargs.ent_coef"] = trial.suggest_float("ent_coef", 1e-8, 1e-2, log=True)
    return overrides


def score(evaluation: dict[str, float]) -> float:
    """A trial's value: the evaluation's success rate, plus at most 0.01 from its mean reward per
    step (rewards are at most 0 in the goal envs) so that trials tied on success still differ."""
    per_step = evaluation["mean_reward"] / max(evaluation["mean_length"], 1.0)
    return evaluation.get("success_rate", 0.0) + 0.01 * max(0.0, 1.0 + max(per_step, -1.0))


@dataclass
class TuneResult:
    study_dir: Path
    best_value: float
    best_overrides: dict[str, Any]
    trials: list[dict[str, Any]]


def tune(
    skill: str,
    trials: int,
    study_dir: str | Path,
    *,
    algo: str | None = None,
    steps: int | None = None,
    seed: int = 0,
    n_envs: int | None = None,
    eval_freq: int | None = None,
) -> TuneResult:
    """Run ``trials`` Optuna trials of short training runs; returns the best and every trial."""
    study_dir = Path(study_dir)
    study_dir.mkdir(parents=True, exist_ok=True)
    base = load_config(skill, algo)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(
        study_name=f"{skill}-{base.algo}",
        storage=f"sqlite:///{study_dir / 'study.db'}",
        load_if_exists=True,
        direction="maximize",
        sampler=optuna.samplers.TPESampler(seed=seed),
        pruner=optuna.pruners.MedianPruner(n_startup_trials=2, n_warmup_steps=1),
    )

    def objective(trial: optuna.Trial) -> float:
        overrides = sample_overrides(trial, base.algo)
        config = load_config(
            skill,
            base.algo,
            [f"{key}={json.dumps(value)}" for key, value in overrides.items()],
            total_timesteps=steps,
            seed=seed + trial.number,
            n_envs=n_envs,
            eval_freq=eval_freq,
        )
        evaluations: list[dict[str, float]] = []

        def report(row: dict[str, float]) -> bool:
            evaluations.append(row)
            trial.report(score(row), len(evaluations))
            return not trial.should_prune()

        train(config, study_dir / f"trial-{trial.number:03d}", after_evaluation=report)
        if trial.should_prune():
            raise optuna.TrialPruned()
        return score(evaluations[-1]) if evaluations else 0.0

    study.optimize(objective, n_trials=trials)
    rows = [
        {"number": t.number, "state": t.state.name, "value": t.value, "params": t.params}
        for t in study.trials
    ]
    best = study.best_trial
    best_overrides = sample_overrides(optuna.trial.FixedTrial(best.params), base.algo)
    atomic_write(study_dir / "best.yaml", yaml.safe_dump(best_overrides).encode())
    atomic_write(study_dir / "trials.json", json.dumps(rows, indent=1).encode())
    return TuneResult(study_dir, float(best.value), best_overrides, rows)
