"""``claw bench all`` (every figure the docs quote, into one results file) and ``claw bench
startup`` (a cold ``claw "…"`` against its floor)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from claw.options import JsonFlag
from claw.output import EXIT_FAILED, EXIT_OK, errors, markup, report_error, table

if TYPE_CHECKING:
    from claw.results import Entry


def _names(values: list[str] | None) -> list[str]:
    return [n.strip() for v in values or [] for n in v.split(",") if n.strip()]


def bench_all_command(
    json_file: Annotated[
        Path,
        typer.Option("--json", metavar="FILE", help="The results file written (after each run)."),
    ] = Path("results.json"),
    quick: Annotated[
        bool,
        typer.Option("--quick", help="Tiny budgets (a few episodes or cases each): a smoke run."),
    ] = False,
    only: Annotated[
        list[str] | None,
        typer.Option(
            "--only",
            metavar="NAME[,NAME]",
            help="Run only these: env, library, skills, planner, words, two-arm, imitation, "
            "policy, eval (with the trust table), perception, startup.",
        ),
    ] = None,
) -> None:
    """Every benchmark the docs quote, in one process tree, into one JSON file: the commit,
    versions, machine and date, and each figure with the command that reproduces it.

    Exit 0 when every benchmark ran, 1 when some failed (each recorded with its error)."""
    import shlex
    import sys

    from rich.console import Console

    from claw.bench_all import bench_all, check_only

    names = _names(only)
    with errors():
        from claw.common.outputs import check_output_file

        check_only(names)
        check_output_file(json_file, what="--json file")
    console = Console(stderr=True)

    def progress(k: int, n: int, entry: Entry) -> None:
        said = "ok" if entry.status == "ok" else f"[red]failed[/red]: {markup(entry.error)}"
        console.print(f"[{k}/{n}] {markup(entry.name)} {said} ({entry.seconds:.1f} s)")

    line = "claw " + shlex.join(sys.argv[1:])
    with errors():
        results = bench_all(line, json_file, quick=quick, only=names, progress=progress)
    failed = results.failed()
    table(
        f"claw bench all{' --quick' if quick else ''}: {json_file}",
        [
            ("commit", f"{results.commit.sha}{' (dirty)' if results.commit.dirty else ''}"),
            ("entries", f"{len(results.entries)} ({len(failed)} failed)"),
            *[(e.name, f"failed: {e.error}") for e in failed],
            ("wall time", f"{results.wall_seconds:.0f} s"),
        ],
    )
    raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)


def bench_startup_command(
    repeats: Annotated[int, typer.Option(min=1, help="Timed runs of each (the median).")] = 5,
    as_json: JsonFlag = False,
) -> None:
    """A cold claw "put the red block next to the blue box" (fresh CLAW_HOME) and its warm
    rerun against the floor (MuJoCo and numpy running the same scene and physics steps); the
    modules claw imports and the processes it starts."""
    with errors(as_json):
        from claw.bench_startup import bench_startup, describe

        try:
            result = bench_startup(repeats)
        except RuntimeError as exc:  # a timed process failed: the measurement did
            report_error("startup_failed", str(exc), as_json)
            raise typer.Exit(EXIT_FAILED) from None
    if as_json:
        print(result.model_dump_json())
    else:
        table("claw bench startup", describe(result))
