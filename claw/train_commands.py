"""``claw train SKILL`` and ``claw tune SKILL``: learned claws with Stable-Baselines3 and Optuna."""

from __future__ import annotations

import json
import shlex
import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from claw.options import (
    JsonFlag,
    ObsOption,
    RayOption,
    TrackerOption,
    TrackingUriOption,
    seed_callback,
)
from claw.output import errors, table

if TYPE_CHECKING:
    from claw.learning.config import TrainConfig
    from claw.learning.tracking import TrackedRun, TrackerSettings

Algo = Annotated[
    str | None,
    typer.Option(help="tqc, sac, td3 or ppo (default: the skill's YAML default_algo)."),
]
Hyperparams = Annotated[
    list[str] | None,
    typer.Option(
        "--hyperparams", help="Override a config value: KEY=VALUE, dotted keys (repeatable)."
    ),
]


def _config_and_run_dir(
    skill: str,
    algo: str | None,
    steps: int | None,
    n_envs: int | None,
    seed: int,
    hyperparams: list[str],
    runs_dir: Path,
    out: Path | None,
    resume: Path | None,
    curriculum: bool = False,
    obs: str = "state",
) -> tuple[TrainConfig, Path | None]:
    """The config to train with and its run folder: a resumed run's own, ``--out``, or ``None``
    (a new one in ``runs_dir``, made once every check has passed)."""
    from claw.learning.config import TrainConfig, load_config, read_config_file

    if resume is None:
        config = load_config(
            skill,
            algo,
            hyperparams,
            curriculum=curriculum,
            obs=obs,
            total_timesteps=steps,
            seed=seed,
            n_envs=n_envs,
        )
        if out is not None and (out / "config.yaml").exists():
            raise FileExistsError(f"{out} already holds a run; continue it with --resume {out}")
        return config, out
    if obs != "state":
        raise ValueError("--obs sets up a new run; a resumed run keeps its own observation mode")
    saved = resume / "config.yaml"
    if not saved.is_file():
        raise FileNotFoundError(f"{resume} is not a run folder (no config.yaml)")
    config = TrainConfig.model_validate(read_config_file(saved))
    if config.skill != skill:
        raise ValueError(f"{resume} trains {config.skill}, not {skill}")
    if steps is not None:
        config = config.model_copy(update={"total_timesteps": steps})
    return config, resume


def _check_claw(config: TrainConfig, register: bool, demos: str | None) -> None:
    """Refuse --register and --demos for a multi-agent example (it trains no claw)."""
    from claw.envs.multi_agent import PARALLEL_ENVS

    if config.env_id in PARALLEL_ENVS and (register or demos is not None):
        flag = "--register" if register else "--demos"
        raise ValueError(
            f"{config.skill} trains a multi-agent example ({config.env_id}), not a claw: "
            f"{flag} is for reach, push and pick"
        )


def train_command(
    skill: Annotated[str, typer.Argument(help="What to train: reach, push or pick.")],
    algo: Algo = None,
    steps: Annotated[
        int | None,
        typer.Option(
            "--timesteps", "--steps", min=1, help="Total environment steps (default: the YAML's)."
        ),
    ] = None,
    n_envs: Annotated[int | None, typer.Option(min=1, help="Envs in parallel.")] = None,
    seed: Annotated[
        int,
        typer.Option(callback=seed_callback, help="Seed of training (evaluation seeds are apart)."),
    ] = 0,
    hyperparams: Hyperparams = None,
    runs_dir: Annotated[
        Path, typer.Option(help="Where run folders SKILL-ALGO-DATE-TIME-sSEED are made.")
    ] = Path("runs"),
    out: Annotated[
        Path | None, typer.Option(help="The run folder itself (instead of one in --runs-dir).")
    ] = None,
    resume: Annotated[
        Path | None, typer.Option(help="Continue this run folder from its latest checkpoint.")
    ] = None,
    register: Annotated[
        bool, typer.Option("--register", help="Measure the policy and add it to the library.")
    ] = False,
    eval_episodes: Annotated[
        int, typer.Option(min=1, help="Episodes measured for --register.")
    ] = 200,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    demos: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Learn from these demonstrations (claw demos record): behaviour cloning into "
            "the actor, then --dagger rounds, instead of RL.",
        ),
    ] = None,
    dagger: Annotated[
        int, typer.Option(min=0, metavar="K", help="DAgger rounds after behaviour cloning.")
    ] = 0,
    finetune: Annotated[
        int,
        typer.Option(
            min=0,
            metavar="STEPS",
            help="Then RL fine-tuning for STEPS env steps (TQC/SAC + HER, demonstrations in the "
            "replay buffer); the best stage is kept.",
        ),
    ] = 0,
    tracker: TrackerOption = None,
    tracking_uri: TrackingUriOption = None,
    curriculum: Annotated[
        bool,
        typer.Option(
            "--curriculum",
            help="Train through the stages of the skill's YAML (easy goals first), promoted "
            "when an evaluation's success rate passes the stage's promote_at.",
        ),
    ] = False,
    obs: ObsOption = "state",
    ray: RayOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Train a learned claw: SB3 (+HER), parallel envs (on Ray with --ray), evaluations,
    checkpoints, TensorBoard; or, with --demos, from an expert's demonstrations (behaviour
    cloning, DAgger)."""
    with errors(as_json):
        if ray is not None and demos is not None:
            raise ValueError(
                "--ray puts RL's training envs on Ray; record demonstrations there with "
                "claw demos record --ray"
            )
        if (dagger or finetune) and demos is None:
            flag = "--dagger" if dagger else "--finetune"
            raise ValueError(f"{flag} needs --demos NAME (the demonstrations it starts from)")
        if demos is not None and resume is not None:
            raise ValueError("--resume continues RL training; a --demos run starts afresh")
        from claw.common.outputs import check_output_dir

        for folder, what in ((out, "--out folder"), (runs_dir, "--runs-dir folder")):
            if folder is not None and resume is None:
                check_output_dir(folder, what=what)
        if register:  # before the training whose policy it must store
            from claw.library.storage import SkillLibrary

            SkillLibrary().check_writable()
        if curriculum and demos is not None:
            raise ValueError("--curriculum stages RL training; a --demos run has no stages")
        from claw.learning.tracking import TrackerSettings

        settings = TrackerSettings.of(tracker, tracking_uri)  # before a run folder is made
        config, folder = _config_and_run_dir(
            skill,
            algo,
            steps,
            n_envs,
            seed,
            hyperparams or [],
            runs_dir,
            out,
            resume,
            curriculum,
            obs,
        )
        _check_claw(config, register, demos)
        demos_id = _demonstrations(config, demos)
        from claw.learning.config import new_run_dir
        from claw.learning.train import check_env

        check_env(config)
        run_dir = folder or new_run_dir(runs_dir, config)
    if not as_json:
        typer.echo(f"run folder: {run_dir}  (tensorboard --logdir {run_dir / 'tb'})", err=True)
    command = "claw " + shlex.join(sys.argv[1:])
    with errors(as_json):
        run = _tracked_run(settings, f"claw train {skill}", run_dir, command, config)
    summary: dict[str, Any]
    if demos_id is not None:
        summary = _imitate(config, run_dir, demos_id, (dagger, finetune), command, as_json, run)
    else:
        from claw.learning.train import train

        config = config.model_copy(update={"vec_env": _vec_env(config, ray)})
        with errors(as_json), _ray_joined(ray, config.n_envs), run or nullcontext():
            result = train(
                config,
                run_dir,
                resume=resume is not None,
                progress_bar=progress and not as_json,
                command=command,
                tracker=run,
            )
        summary = {
            "run_dir": str(result.run_dir),
            "algo": config.algo,
            "timesteps": result.timesteps,
            "wall_seconds": result.wall_seconds,
            "last_evaluation": result.evaluations[-1] if result.evaluations else None,
            "policy": str(result.policy_dir) if result.policy_dir.is_dir() else None,
            **({"workers": result.workers} if result.workers else {}),
        }
    if register:
        from claw.learning.register import register_policy

        with errors(as_json):
            records = register_policy(Path(summary["policy"]), eval_episodes)
        assert records[0].metrics is not None
        summary["registered"] = ", ".join(r.key for r in records)
        summary["evaluation"] = records[0].metrics.conditions
    if as_json:
        print(json.dumps(summary))
        return
    rows = [(k, v) for k, v in summary.items() if k not in ("evaluation", "stages", "workers")]
    rows += [
        (f"worker {w['worker']} ({w['node']})", f"{w['steps']} steps, {w['steps_per_second']:g}/s")
        for w in summary.get("workers", [])
    ]
    if "stages" in summary:  # a --demos run: each stage's success on the validation seeds
        measured = [f"{s['stage']} {s['success_rate']:.0%}" for s in summary["stages"]]
        rows.insert(3, ("stages", ", ".join(measured)))
    if register:
        evaluation = summary["evaluation"]
        rows.append(
            (
                "measured",
                f"{evaluation['success_rate']:.1%} of {evaluation['episodes']} episodes within "
                f"{evaluation['threshold'] * 100:g} cm ({evaluation['success_within']})",
            )
        )
    table(f"claw train {skill}", rows)


def _vec_env(config: TrainConfig, ray: str | None) -> str:
    """Where the training envs run: on Ray with ``--ray``; else as configured (a resumed Ray
    run's envs run here)."""
    if ray is not None:
        return "ray"
    return "dummy" if config.vec_env == "ray" else config.vec_env


def _ray_joined(ray: str | None, n_envs: int) -> AbstractContextManager[None]:
    """Ray joined for the run (a local one with a CPU per env and one for the learner)."""
    if ray is None:
        return nullcontext()
    from claw.eval.ray_connect import joined

    return joined(ray, num_cpus=n_envs + 1)


def _demonstrations(config: TrainConfig, demos: str | None) -> str | None:
    """The id of the ``--demos`` dataset, checked to be local and of the config's env.

    Raises:
        InvalidConfigError: no such dataset, another env's, or one that cannot be read.
    """
    if demos is None:
        return None
    import gymnasium as gym

    from claw.learning.datasets import check_demonstrations, resolve

    found = resolve(demos, gym.spec(config.env_id).kwargs.get("task", config.skill))
    check_demonstrations(found, config.env_id, config.env_kwargs.get("obs_mode", "state"))
    return found


def _tracked_run(
    settings: TrackerSettings | None,
    experiment: str,
    run_dir: Path,
    command: str,
    config: TrainConfig,
) -> TrackedRun | None:
    """The MLflow run a command logs to (``--tracker mlflow``), tagged with how it was made."""
    if settings is None:
        return None
    from claw.learning.tracking import TrackedRun
    from claw.library.files import git_commit

    tags = {
        "command": command,
        "git_commit": git_commit() or "unknown",
        "run_dir": str(run_dir),
        "skill": config.skill,
        "algo": config.algo,
    }
    return TrackedRun(settings, experiment, run_dir.name, tags)


def _imitate(
    config: TrainConfig,
    run_dir: Path,
    demos: str,
    rounds: tuple[int, int],
    command: str,
    as_json: bool,
    run: TrackedRun | None,
) -> dict[str, Any]:
    """Behaviour cloning, DAgger rounds and RL fine-tuning from the dataset ``demos`` (its
    id; ``rounds``: DAgger's and fine-tuning's steps): each stage's success on stderr."""
    from claw.learning.imitation import imitate

    def show(row: dict[str, Any]) -> None:
        if not as_json:
            typer.echo(
                f"{row['stage']}: {row['success_rate']:.0%} of {row['eval_episodes']} episodes "
                f"({row['pairs']} pairs, {row['env_steps']} env steps)",
                err=True,
            )

    with errors(as_json), run or nullcontext():
        result = imitate(
            config,
            run_dir,
            demos,
            rounds[0],
            finetune_steps=rounds[1],
            command=command,
            on_stage=show,
            tracker=run,
        )
    return {
        "run_dir": str(result.run_dir),
        "algo": config.algo,
        "timesteps": result.timesteps,
        "wall_seconds": result.wall_seconds,
        "stages": result.stages,
        "chosen_stage": result.chosen_stage,
        "policy": str(result.policy_dir),
    }


def tune_command(
    skill: Annotated[str, typer.Argument(help="What to tune: reach, push or pick.")],
    trials: Annotated[int, typer.Option(min=1, help="Optuna trials.")] = 10,
    algo: Algo = None,
    steps: Annotated[int | None, typer.Option(min=1, help="Environment steps per trial.")] = None,
    n_envs: Annotated[int | None, typer.Option(min=1, help="Envs in parallel per trial.")] = None,
    eval_freq: Annotated[
        int | None, typer.Option(min=1, help="Evaluate (and maybe prune) every this many steps.")
    ] = None,
    eval_episodes: Annotated[
        int | None, typer.Option(min=1, help="Episodes per evaluation (default: the YAML's).")
    ] = None,
    seed: Annotated[
        int,
        typer.Option(callback=seed_callback, help="Seed of the sampler and of the first trial."),
    ] = 0,
    study_dir: Annotated[
        Path | None, typer.Option(help="Study folder (default: runs/tune-SKILL-ALGO).")
    ] = None,
    parallel: Annotated[
        int, typer.Option(min=1, help="Trials at once: local processes, or Ray tasks with --ray.")
    ] = 1,
    ray: RayOption = None,
    storage: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="The study's database (default: STUDY_DIR/study.db); workers on several "
            "machines need one they all reach, e.g. postgresql://…",
        ),
    ] = None,
    tracker: TrackerOption = None,
    tracking_uri: TrackingUriOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Search hyperparameters with Optuna, pruning trials on their evaluation success rate;
    K trials at once with --parallel K (on Ray with --ray); each trial an MLflow run with
    --tracker mlflow."""
    with errors(as_json):
        from claw.common.outputs import check_output_dir
        from claw.learning.config import load_config
        from claw.learning.tracking import TrackerSettings

        tracking = TrackerSettings.of(tracker, tracking_uri)

        chosen = load_config(skill, algo).algo
        if study_dir is not None:
            check_output_dir(study_dir, what="--study-dir folder")
        from claw.learning.tune import tune

        folder = study_dir or Path("runs") / f"tune-{skill}-{chosen}"
        if ray is None:
            cluster: AbstractContextManager[None] = nullcontext()
        else:  # the workers' Ray: joined (or started, with K CPUs) for the study
            from claw.eval.ray_runner import joined

            cluster = joined(ray, num_cpus=parallel)
        with cluster:
            result = tune(
                skill,
                trials,
                folder,
                algo=chosen,
                steps=steps,
                seed=seed,
                n_envs=n_envs,
                eval_freq=eval_freq,
                eval_episodes=eval_episodes,
                parallel=parallel,
                on_ray=ray is not None,
                storage=storage,
                tracking=tracking,
            )
    if as_json:
        print(
            json.dumps(
                {
                    "study_dir": str(result.study_dir),
                    "best_value": result.best_value,
                    "best_overrides": result.best_overrides,
                    "trials": result.trials,
                }
            )
        )
        return
    rows: list[tuple[str, Any]] = [
        (f"trial {t['number']}", f"{t['state']:8} {t['value']}  {t['params']}")
        for t in result.trials
    ]
    rows.append(("best score", f"{result.best_value:.5f} (success rate + reward tie-break)"))
    rows.append(("best overrides", result.best_overrides))
    rows.append(("saved", f"{result.study_dir / 'best.yaml'}, trials.json, study.db"))
    table(f"claw tune {skill}", rows)
