"""``claw eval sweep SWEEP.yaml``: planners × suites × seeds, one JSON per cell and one table;
the table over many results that ``claw eval compare`` shows for three or more files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from claw.options import RayOption
from claw.output import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    cassettes,
    errors,
    markup,
    report_error,
    suite_files,
)

if TYPE_CHECKING:
    from rich.console import Console

    from claw.eval.compare import ResultRow
    from claw.eval.sweep import Cell

TABLE = "table.json"
"""The file in ``--out`` with every cell's overall metrics, one row each."""


def eval_sweep(
    sweep_file: Annotated[
        Path, typer.Argument(metavar="SWEEP.yaml", help="suites, planners and seeds to run.")
    ],
    out: Annotated[
        Path,
        typer.Option("--out", metavar="DIR", help="Where each cell's JSON and table.json go."),
    ] = Path("runs/sweep"),
    workers: Annotated[int, typer.Option(min=1, help="Processes running cases.")] = 1,
    ray: RayOption = None,
) -> None:
    """Run every suite with every planner and seed offset; write one --json file per cell and
    show them side by side (exit 1 when a cell has a failed case)."""
    from rich.console import Console
    from rich.progress import Progress

    from claw.common.outputs import check_apart, check_output_dir
    from claw.eval.compare import result_row
    from claw.eval.suite import load_suite
    from claw.eval.sweep import cells, load_sweep, run_sweep

    with errors():
        sweep = load_sweep(sweep_file)
        check_output_dir(out, what="--out folder")
        suites = {name: load_suite(name) for name in sweep.suites}
        inputs = [("the sweep file being read", sweep_file), *cassettes(list(sweep.planners))]
        inputs += [file for name, suite in suites.items() for file in suite_files(name, suite)]
        written = [cell.path for cell in cells(sweep, out, suites)] + [out / TABLE]
        check_apart(inputs, [("--out file", path) for path in written])
    console = Console()
    rows: list[ResultRow] = []
    failed = False
    with Progress(console=console, transient=True) as bar, errors():
        task = bar.add_task(sweep.name, total=0)

        def start(cell: Cell, cases: int) -> None:
            bar.reset(task, total=cases, description=markup(cell.path.name))

        try:
            for cell, result in run_sweep(
                sweep, out, workers, ray, on_cell=start, progress=lambda c: bar.advance(task)
            ):
                rows.append(result_row(result, cell.path))
                failed |= result.overall["success_rate"] < 1.0
        except KeyboardInterrupt:
            show_rows(rows, console, title=f"{sweep.name}: the cells finished")
            report_error("interrupted", f"after {len(rows)} cells; their files are in {out}")
            raise typer.Exit(EXIT_INTERRUPTED) from None
    write_rows(out / TABLE, rows)
    show_rows(rows, console, title=f"{sweep.name}: {len(rows)} cells in {out}")
    raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)


def write_rows(path: Path, rows: list[ResultRow]) -> None:
    """``rows`` as JSON at ``path``, atomically."""
    import json

    from claw.common.files import atomic_write

    atomic_write(path, json.dumps([r.model_dump() for r in rows], indent=1).encode())


SHORT_LABELS = {
    "success_rate": "success", "read_right": "read right", "goal_recall": "recall",
    "replans": "replans", "plan_steps": "steps", "llm_tokens": "tokens", "wall_seconds": "wall s",
}  # fmt: skip
"""Column heads of the table over many results (per case where it is a mean)."""


def show_rows(rows: list[ResultRow], console: Console, title: str) -> None:
    """A table of many results' overall metrics, one row each."""
    from rich.table import Table

    from claw.eval.compare import TABLE_METRICS
    from claw.eval.report import format_metric, metric_label

    table = Table(title=markup(title), title_justify="left")
    table.add_column("result", no_wrap=True)
    table.add_column("planner")
    for key in TABLE_METRICS:
        table.add_column(SHORT_LABELS.get(key, metric_label(key)), justify="right")
    for row in rows:
        table.add_row(
            markup(Path(row.path).stem) + (" (stopped)" if row.interrupted else ""),
            markup(row.planner),
            *(format_metric(key, row.metrics.get(key)) for key in TABLE_METRICS),
        )
    console.print(table)
