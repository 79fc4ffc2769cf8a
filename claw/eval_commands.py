"""``claw eval SUITE.yaml``: run a suite on physics with a planner, judge it, report metrics."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from claw.output import EXIT_FAILED, EXIT_OK, errors

PLANNERS = "offline, mock:oracle, or a litellm model"


def eval_command(
    suite: Annotated[str, typer.Argument(help="A suite YAML file, or a built-in name (basic).")],
    planner: Annotated[str, typer.Option(help=f"The planner: {PLANNERS}.")] = "offline",
    workers: Annotated[int, typer.Option(min=1, help="Processes running cases.")] = 1,
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Write the full results to this JSON file.")
    ] = None,
) -> None:
    """Run every case of a suite and judge it by its ground truth (goal or expected error)."""
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from claw.eval.runner import run_suite
    from claw.eval.suite import load_suite

    with errors():
        loaded = load_suite(suite)
    console = Console()
    with Progress(console=console, transient=True) as bar:
        task = bar.add_task(f"{loaded.name} with {planner}", total=len(loaded.cases))
        result = run_suite(loaded, planner, workers, progress=lambda case: bar.advance(task))
    if json_file is not None:
        json_file.parent.mkdir(parents=True, exist_ok=True)
        json_file.write_text(result.model_dump_json(indent=1))
    table = Table(
        title=f"{loaded.name}: {planner}, {len(result.cases)} cases", title_justify="left"
    )
    for column in ("tag", "cases", "success", "goal recall", "executable", "replans"):
        table.add_column(column, justify="left" if column == "tag" else "right")
    rows = [("all", result.overall), *result.per_tag.items()]
    for tag, metrics in rows:
        table.add_row(
            tag,
            f"{metrics['cases']:.0f}",
            f"{100 * metrics['success_rate']:.1f} %",
            f"{metrics['goal_recall']:.3f}",
            f"{metrics['executability']:.3f}",
            f"{metrics['replans']:.2f}",
        )
    console.print(table)
    for case in result.cases:
        if not case.success:
            console.print(f"[red]failed[/red] {case.id}: {case.reason}")
    recovered = int(result.overall["recovered_by_replanning"])
    console.print(f"{recovered} successes recovered by replanning; {result.wall_seconds} s wall")
    raise typer.Exit(EXIT_OK if result.overall["success_rate"] == 1.0 else EXIT_FAILED)
