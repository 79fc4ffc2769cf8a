"""``claw tune``: search a skill's hyperparameters with Optuna, pruning on evaluation success.

Each trial is a short training run (``claw.learning.train.train``) with sampled overrides; after
each periodic evaluation its success rate (ties broken by mean reward, see :func:`score`) is
reported to Optuna, and a trial the median pruner finds behind is stopped. The study lives in
``STUDY_DIR/study.db`` (SQLite, so a study can be continued) or in a database given by URL;
``best.yaml`` holds the best trial's overrides for ``claw train --hyperparams``. K workers can
share a study (``parallel``), as local processes or as Ray tasks (``on_ray``).
"""

from __future__ import annotations

import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import optuna
import yaml

from claw.common.files import atomic_write
from claw.learning.config import OFF_POLICY, load_config
from claw.learning.exceptions import InvalidConfigError
from claw.learning.tracking import TrackedRun, TrackerSettings
from claw.learning.train import train


def sample_overrides(trial: optuna.trial.BaseTrial, algo: str) -> dict[str, Any]:
    """Hyperparameters to try (or tried, from a ``FixedTrial``), as dotted override keys."""
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


@dataclass(frozen=True)
class TuneJob:
    """What every trial of a study is run with (sent as is to each parallel worker)."""

    skill: str
    algo: str
    study_dir: Path
    storage: str
    seed: int = 0
    steps: int | None = None
    n_envs: int | None = None
    eval_freq: int | None = None
    eval_episodes: int | None = None
    tracking: TrackerSettings | None = None
    """Log each trial as an MLflow run (``--tracker mlflow``)."""

    @property
    def study_name(self) -> str:
        return f"{self.skill}-{self.algo}"


def study_storage(study_dir: Path, url: str | None = None) -> str:
    """The study's storage: ``url`` (e.g. PostgreSQL, for workers on several machines), else
    ``STUDY_DIR/study.db``."""
    return url or f"sqlite:///{study_dir / 'study.db'}"


def open_study(job: TuneJob, worker: int = 0) -> optuna.Study:
    """The job's study (created on first use), sampled with a seed of its own per worker."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage: Any = job.storage
    if job.storage.startswith("sqlite"):  # parallel workers wait on each other's writes
        storage = optuna.storages.RDBStorage(
            job.storage, engine_kwargs={"connect_args": {"timeout": 120}}
        )
    return optuna.create_study(
        study_name=job.study_name,
        storage=storage,
        load_if_exists=True,
        direction="maximize",
        sampler=optuna.samplers.TPESampler(seed=job.seed + 1000 * worker),
        pruner=optuna.pruners.MedianPruner(n_startup_trials=2, n_warmup_steps=1),
    )


def run_trials(job: TuneJob, trials: int, worker: int = 0) -> int:
    """Run ``trials`` trials of the job's study in this process; returns how many ran."""
    study = open_study(job, worker)

    def objective(trial: optuna.Trial) -> float:
        overrides = sample_overrides(trial, job.algo)
        config = load_config(
            job.skill,
            job.algo,
            [f"{key}={json.dumps(value)}" for key, value in overrides.items()],
            total_timesteps=job.steps,
            seed=job.seed + trial.number,
            n_envs=job.n_envs,
            eval_freq=job.eval_freq,
            eval_episodes=job.eval_episodes,
        )
        evaluations: list[dict[str, float]] = []

        def report(row: dict[str, float]) -> bool:
            evaluations.append(row)
            trial.report(score(row), len(evaluations))
            return not trial.should_prune()

        folder = job.study_dir / f"trial-{trial.number:03d}"
        tags = {"study": job.study_name, "trial": str(trial.number), "run_dir": str(folder)}
        run = None
        if job.tracking is not None:
            run = TrackedRun(job.tracking, f"claw tune {job.skill}", folder.name, tags)
        with run or nullcontext():
            train(config, folder, after_evaluation=report, tracker=run)
            pruned, value = trial.should_prune(), score(evaluations[-1]) if evaluations else 0.0
            if run is not None:
                run.log_params({f"trial.{k}": v for k, v in trial.params.items()})
                run.log_metrics({"trial/value": value}, step=len(evaluations))
                run.tag("pruned", pruned)
        if pruned:
            raise optuna.TrialPruned()
        return value

    study.optimize(objective, n_trials=trials)
    return trials


def shares(trials: int, parallel: int) -> list[int]:
    """``trials`` split over at most ``parallel`` workers as evenly as it goes."""
    workers = max(1, min(parallel, trials))
    return [trials // workers + (i < trials % workers) for i in range(workers)]


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
    eval_episodes: int | None = None,
    parallel: int = 1,
    on_ray: bool = False,
    storage: str | None = None,
    tracking: TrackerSettings | None = None,
) -> TuneResult:
    """Run ``trials`` more Optuna trials of short training runs; returns the best and every
    trial of the study.

    With ``parallel`` K, K workers share the study (each runs its share of the trials, asking
    the study for parameters and telling it results and intermediate values, so pruning and
    the sampler see every worker's trials): local processes, or with ``on_ray`` Ray tasks of one
    CPU on the Ray this process is connected to (``ray.init`` first; ``claw tune --ray`` does).
    Workers on other machines need a ``storage`` they all reach (a PostgreSQL or MySQL URL) and
    write their trials' folders on their own disks. ``steps``, ``n_envs``, ``eval_freq`` and
    ``eval_episodes`` (episodes per evaluation) replace the skill's YAML values when given.
    With ``tracking``, each trial is also an MLflow run (experiment ``claw tune SKILL``).
    """
    study_dir = Path(study_dir)
    study_dir.mkdir(parents=True, exist_ok=True)
    job = TuneJob(
        skill=skill,
        algo=load_config(skill, algo).algo,
        study_dir=study_dir.resolve(),
        storage=study_storage(study_dir.resolve(), storage),
        seed=seed,
        steps=steps,
        n_envs=n_envs,
        eval_freq=eval_freq,
        eval_episodes=eval_episodes,
        tracking=tracking,
    )
    _open_first(job)
    parts = shares(trials, parallel)
    if on_ray:
        run_on_ray(job, parts)
    elif len(parts) > 1:
        context = multiprocessing.get_context("spawn")  # torch and fork do not mix
        with ProcessPoolExecutor(max_workers=len(parts), mp_context=context) as pool:
            list(pool.map(run_trials, [job] * len(parts), parts, range(len(parts))))
    else:
        run_trials(job, trials)
    return summarise_study(job)


def _open_first(job: TuneJob) -> None:
    """Create the study once, before workers race to create it.

    Raises:
        InvalidConfigError: a storage URL that cannot be opened (an unknown scheme, a database
            that does not answer), in one line.
    """
    try:
        open_study(job)
    except Exception as exc:  # sqlalchemy's and optuna's many errors: the URL is the cause
        first = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        raise InvalidConfigError(
            f"--storage {job.storage!r} cannot be opened ({type(exc).__name__}: {first[:200]}); "
            "allowed: a database URL Optuna takes (sqlite:///FILE, postgresql://..., mysql://...)"
        ) from None


def run_on_ray(job: TuneJob, parts: list[int]) -> None:
    """Run ``parts[i]`` trials of ``job``'s study in worker ``i``, each a Ray task of one CPU
    (retried once if its worker or node dies) on the Ray this process is connected to.

    Raises:
        InvalidConfigError: Ray is not installed or not connected.
    """
    try:
        import ray
    except ImportError:
        raise InvalidConfigError("tuning on Ray needs Ray: pip install -e '.[ray]'") from None
    if not ray.is_initialized():
        raise InvalidConfigError("tuning on Ray needs a connection: ray.init(...) first")
    task = ray.remote(num_cpus=1, max_retries=1)(run_trials)
    # Ray's stubs take run_trials for a two-argument function (its third has a default).
    refs = [task.remote(job, n, worker) for worker, n in enumerate(parts)]  # type: ignore[call-arg]
    try:
        ray.get(refs)
    except BaseException as exc:  # Ctrl-C, or a worker failed: stop the others
        for ref in refs:
            ray.cancel(ref, force=True)
        if isinstance(exc, ray.exceptions.RayTaskError):  # a trial's own error, as locally
            raise exc.as_instanceof_cause() from None
        raise


def summarise_study(job: TuneJob) -> TuneResult:
    """The study's trials and its best, written to ``best.yaml`` and ``trials.json``."""
    study = open_study(job)
    rows = [
        {"number": t.number, "state": t.state.name, "value": t.value, "params": t.params}
        for t in study.trials
    ]
    best = study.best_trial
    assert best.value is not None, "the best trial is a complete one, with a value"
    best_overrides = sample_overrides(optuna.trial.FixedTrial(best.params), job.algo)
    atomic_write(job.study_dir / "best.yaml", yaml.safe_dump(best_overrides).encode())
    atomic_write(job.study_dir / "trials.json", json.dumps(rows, indent=1).encode())
    return TuneResult(job.study_dir, float(best.value), best_overrides, rows)
