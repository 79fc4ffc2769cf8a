"""``claw eval SUITE.yaml``: run a suite on physics with a planner, judge it, report metrics.

``claw eval compare A.json B.json`` compares two results written by ``--json`` instead.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from claw.output import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, Prefer, errors

if TYPE_CHECKING:
    from rich.console import Console

    from claw.eval.compare import Comparison

PLANNERS = "offline, mock:oracle, mock:noisy:P, mock:faulty:P, replay:FILE, or a litellm model"
COMPARE = "compare"
TAG_DELTAS = {
    "success_rate": "success",
    "goal_recall": "recall",
    "executability": "exec.",
    "replans": "replans",
}


def eval_command(
    suite: Annotated[
        str,
        typer.Argument(
            metavar="SUITE",
            help="A suite YAML file, or a built-in name (basic). Or the word compare, followed "
            "by two JSON results (A, the baseline, and B) to compare.",
        ),
    ],
    reports: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="A.json B.json",
            help="With compare: two files written by --json (or --report folders).",
            show_default=False,
        ),
    ] = None,
    planner: Annotated[str, typer.Option(help=f"The planner: {PLANNERS}.")] = "offline",
    workers: Annotated[int, typer.Option(min=1, help="Processes running cases.")] = 1,
    json_file: Annotated[
        Path | None,
        typer.Option(
            "--json",
            help="Write the full results (per case, overall, per tag) to this JSON file; with "
            "compare, the comparison.",
        ),
    ] = None,
    record: Annotated[
        Path | None,
        typer.Option(
            "--record",
            metavar="FILE",
            help="Save every LLM answer to this cassette; replay it with --planner replay:FILE.",
        ),
    ] = None,
    prefer: Annotated[
        Prefer | None,
        typer.Option(help="Run the learned policy or the controller where a skill has both."),
    ] = None,
    report: Annotated[
        Path | None,
        typer.Option(
            "--report",
            metavar="DIR",
            help="Write report.md, a self-contained report.html, results.json, PNG plots and a "
            "GIF of every failed case (run again while recording) into this folder.",
        ),
    ] = None,
) -> None:
    """Run every case of a suite and judge it by its ground truth (goal or expected error).

    claw eval compare A.json B.json: the metric changes from A to B and the cases that changed.
    """
    if suite == COMPARE:
        if report or record or prefer or planner != "offline" or workers != 1:
            _bad_input("compare takes two JSON results and only the --json option")
        if not reports or len(reports) != 2:
            _bad_input(f"compare takes two JSON results, got {len(reports or [])}")
        _compare(reports[0], reports[1], json_file)  # type: ignore[index]
        return
    if reports:
        extra = " ".join(str(r) for r in reports)
        _bad_input(
            f"unexpected argument(s) after the suite: {extra} "
            f"(to compare results: claw eval compare A.json B.json)"
        )
    _run(suite, planner, workers, json_file, report, record, prefer.value if prefer else None)


def _bad_input(message: str) -> None:
    print(f"error: invalid_input: {message}", file=sys.stderr)
    raise typer.Exit(EXIT_BAD_INPUT)


def _run(
    suite: str,
    planner: str,
    workers: int,
    json_file: Path | None,
    report: Path | None,
    record: Path | None = None,
    prefer: str | None = None,
) -> None:
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
        result = run_suite(
            loaded,
            planner,
            workers,
            progress=lambda case: bar.advance(task),
            record=record,
            prefer=prefer,
        )
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
    if report is not None:
        from claw.eval.report import write_report

        failed = sum(not case.success for case in result.cases)
        with Progress(console=console, transient=True) as bar:
            task = bar.add_task(f"recording {failed} failed cases", total=failed)
            written = write_report(result, report, loaded, progress=lambda c: bar.advance(task))
        console.print(f"report: {written.markdown}, {written.html}")
    raise typer.Exit(EXIT_OK if result.overall["success_rate"] == 1.0 else EXIT_FAILED)


def _compare(a: Path, b: Path, json_file: Path | None) -> None:
    from rich.console import Console

    from claw.eval.compare import compare_files

    with errors():
        comparison = compare_files(a, b)
    if json_file is not None:
        json_file.parent.mkdir(parents=True, exist_ok=True)
        json_file.write_text(comparison.model_dump_json(indent=1))
    show_comparison(comparison, Console())


def show_comparison(comparison: Comparison, console: Console) -> None:
    """Tables of the metric deltas and the list of cases that changed."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    from claw.eval.compare import Delta, format_delta
    from claw.eval.report import format_metric, metric_label

    a, b = comparison.a, comparison.b
    for side, info in (("A", a), ("B", b)):
        console.print(
            escape(f"{side}: {info.path} ({info.suite}, {info.planner}, {info.cases} cases)")
        )
    overall = Table(title="overall (Δ = B − A)", title_justify="left")
    for column in ("metric", "A", "B", "Δ"):
        overall.add_column(column, justify="left" if column == "metric" else "right")
    for key, d in comparison.overall.items():
        overall.add_row(
            metric_label(key),
            format_metric(key, d.a),
            format_metric(key, d.b),
            _colored(key, d.delta, format_delta(key, d.delta)),
        )
    console.print(overall)
    if comparison.per_tag:
        tags = Table(title="per tag (Δ = B − A)", title_justify="left", box=box.SIMPLE_HEAD)
        columns = ["tag", "cases", "success", *(f"Δ {label}" for label in TAG_DELTAS.values())]
        for column in columns:
            tags.add_column(
                column,
                justify="left" if column == "tag" else "right",
                no_wrap=column in ("tag", "success"),
            )
        missing = Delta(a=None, b=None, delta=None)
        for tag, deltas in comparison.per_tag.items():
            cases, success = deltas.get("cases", missing), deltas.get("success_rate", missing)
            tags.add_row(
                escape(tag),
                f"{format_metric('cases', cases.a)} → {format_metric('cases', cases.b)}",
                f"{format_metric('success_rate', success.a)} → "
                f"{format_metric('success_rate', success.b)}",
                *(
                    _colored(key, d.delta, format_delta(key, d.delta))
                    for d, key in ((deltas.get(k, missing), k) for k in TAG_DELTAS)
                ),
            )
        console.print(tags)
    if not comparison.changed:
        console.print("no case changed its success")
    for change in comparison.changed:
        if change.change == "fixed":
            console.print(
                f"[green]fixed[/green]  {escape(change.id)} (A: {escape(change.reason_a)})"
            )
        else:
            console.print(f"[red]broken[/red] {escape(change.id)}: {escape(change.reason_b)}")
    for label, ids in (("only in A", comparison.only_in_a), ("only in B", comparison.only_in_b)):
        if ids:
            console.print(escape(f"{label}: {', '.join(ids)}"))


def _colored(key: str, delta: float | None, text: str) -> str:
    """Green for a change for the better, red for the worse (higher is better for rates)."""
    if not delta or key not in ("success_rate", "goal_recall", "executability"):
        return text
    return f"[green]{text}[/green]" if delta > 0 else f"[red]{text}[/red]"
