"""What the CLI's commands share: exit codes, one-line errors, tables."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from typing import Any

import typer

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_UNAVAILABLE = 0, 1, 2, 3


class Prefer(str, Enum):
    """Which implementation runs where a skill has a controller and a learned policy."""

    learned = "learned"
    controller = "controller"


@contextmanager
def errors(as_json: bool = False) -> Iterator[None]:
    """Turn claw's expected errors into one line on stderr (or a JSON error) and exit code 2."""
    from claw.envs.errors import ClawError

    try:
        yield
    except (ClawError, ValueError, FileNotFoundError, FileExistsError) as exc:
        kind = getattr(exc, "kind", "invalid_input")
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if as_json:
            print(json.dumps({"error": {"kind": kind, "message": message}}))
        else:
            print(f"error: {kind}: {message}", file=sys.stderr)
        raise typer.Exit(EXIT_BAD_INPUT) from None


def table(title: str, rows: list[tuple[str, Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    for key, value in rows:
        table.add_row(key, str(value))
    Console().print(table)
