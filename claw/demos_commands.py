"""``claw demos record|list|show``: the experts' demonstrations as Minari datasets."""

from __future__ import annotations

import json
from functools import partial
from typing import Annotated, Any

import typer

from claw.options import JsonFlag, ObsOption, RayOption, seed_callback
from claw.output import errors, markup, table

demos_app = typer.Typer(
    help="Demonstrations: record a task's scripted expert as a Minari dataset, list, show.",
    no_args_is_help=True,
)


@demos_app.command("record")
def record_command(
    task: Annotated[
        str, typer.Argument(help="The task whose expert acts: pick_place, push, reach.")
    ],
    episodes: Annotated[int, typer.Option(min=1, help="Episodes to run.")] = 200,
    out: Annotated[
        str | None, typer.Option(help="Dataset name (id claw/TASK/NAME-v0) or a full Minari id.")
    ] = None,
    include_failures: Annotated[
        bool, typer.Option("--include-failures", help="Keep the expert's failed episodes too.")
    ] = False,
    seed: Annotated[
        int, typer.Option(callback=seed_callback, help="Seed of the first episode (then +1 each).")
    ] = 0,
    obs: ObsOption = "state",
    ray: RayOption = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Environment workers on Ray (with --ray; default: the cluster's CPUs).",
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Run the task's controller, in the training env's action space, and write the episodes
    (observed in --obs; the controller acts on the state). With --ray, Ray actors run the
    episodes: the same seeds give the same dataset."""
    with errors(as_json):
        from claw.envs.seeding import check_seeds
        from claw.learning.demos import record
        from claw.learning.exceptions import InvalidConfigError

        check_seeds(seed, episodes)
        recording = partial(
            record, task, episodes, out, include_failures=include_failures, seed=seed, obs_mode=obs
        )
        if ray is None:
            if workers is not None:
                raise InvalidConfigError("--workers needs --ray: a local run has one worker")
            result = recording()
        else:
            from claw.eval.ray_connect import joined
            from claw.eval.ray_runner import cluster_cpus

            with joined(ray, num_cpus=workers):
                result = recording(ray_workers=workers or cluster_cpus())
    if as_json:
        print(result.model_dump_json())
        return
    rows = [(k, v) for k, v in result.model_dump().items() if k != "workers"]
    table(f"claw demos record {task}", rows)
    table("environment workers", _worker_rows(result.workers))


def _worker_rows(workers: list[Any]) -> list[tuple[str, str]]:
    """One row per environment worker: where it ran, its episodes, steps and steps per second."""
    return [
        (
            f"worker {w.worker} ({w.node})",
            f"{w.episodes} episodes, {w.steps} steps, {w.steps_per_second:g} steps/s",
        )
        for w in workers
    ]


@demos_app.command("list")
def list_command(as_json: JsonFlag = False) -> None:
    """The local Minari datasets (claw's and any other), with their size and env."""
    with errors(as_json):
        from claw.learning.demos import list_datasets

        rows = list_datasets()
    if as_json:
        print(json.dumps(rows))
        return
    if not rows:
        typer.echo("no local datasets (claw demos record TASK makes one)")
        return
    for row in rows:
        typer.echo(
            f"{row['dataset_id']}  {row['episodes']} episodes  {row['steps']} steps  "
            f"{row['env_id']}"
        )


@demos_app.command("show")
def show_command(
    name: Annotated[str, typer.Argument(help="A dataset id, or NAME of claw/TASK/NAME-v0.")],
    as_json: JsonFlag = False,
) -> None:
    """One dataset: where it came from, its episodes, success, lengths, seeds, randomisation."""
    with errors(as_json):
        from claw.learning.demos import dataset_summary

        summary = dataset_summary(name)
    if as_json:
        print(json.dumps(summary))
        return
    rows: list[tuple[str, Any]] = [(k, markup(v)) for k, v in summary.items()]
    table(f"claw demos show {summary['dataset_id']}", rows)
