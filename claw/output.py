"""What the CLI's commands share: exit codes, the one way errors are reported, safe text, tables,
and the files a command reads (which its outputs are kept apart from: ``common.outputs``).

Every command reports an error through :func:`report_error` (or the :func:`errors` context that
calls it): one line ``error: KIND: MESSAGE`` on stderr, or, under ``--json``, one JSON object
``{"error": {"kind", "message"}}`` on stdout — never both.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer

if TYPE_CHECKING:
    from claw.common.outputs import NamedPath
    from claw.eval.suite import Suite

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_UNAVAILABLE = 0, 1, 2, 3
EXIT_INTERRUPTED = 130

UNAVAILABLE_KINDS = frozenset({"planner_unavailable", "invalid_plan", "ray_unavailable"})
"""Error kinds that are the planner's (or the cluster's) failure, not the user's input (exit 3)."""
INTERRUPTED = "interrupted"
"""The error kind of a run stopped with Ctrl-C (exit 130)."""


class Prefer(str, Enum):
    """Which implementation runs where a skill has a controller and a learned policy."""

    learned = "learned"
    controller = "controller"


def exit_code(kind: str) -> int:
    """The exit code of an error kind: 3 for the planner's or the cluster's failures, 130 for
    an interrupt, 2 for bad input."""
    if kind == INTERRUPTED:
        return EXIT_INTERRUPTED
    return EXIT_UNAVAILABLE if kind in UNAVAILABLE_KINDS else EXIT_BAD_INPUT


def one_line(text: object, limit: int = 1000) -> str:
    """``text`` made safe for a terminal line (``claw.planner.clean_text``): escape sequences and
    control characters dropped, line breaks folded into spaces, cut at ``limit`` characters."""
    from claw.planner.text import clean_text

    return clean_text(text, limit)


def markup(text: object) -> str:
    """``text`` as one safe line for a rich console: no markup is read from it."""
    from rich.markup import escape

    return escape(one_line(text))


def error_payload(kind: str, message: str) -> dict[str, str]:
    return {"kind": one_line(kind, 80), "message": one_line(message) or kind}


def report_error(kind: str, message: str, as_json: bool = False) -> None:
    """Print an error once: a JSON object on stdout under ``--json``, else one stderr line."""
    payload = error_payload(kind, message)
    if as_json:
        print(json.dumps({"error": payload}))
    else:
        print(f"error: {payload['kind']}: {payload['message']}", file=sys.stderr)


def report_help(read: Sequence[str], suggestions: Sequence[str]) -> None:
    """After a refused reading's error line: what of it was read (``read: …``) and each
    instruction the reader would read instead (``try: …``), one line each, on stderr."""
    if read:
        print(f"read: {one_line(', '.join(read))}", file=sys.stderr)
    for text in suggestions:
        print(f"try: {one_line(text)}", file=sys.stderr)


class _Notes(logging.Handler):
    """Writes a record's message alone, one line, to ``sys.stderr`` as it is at the time (tests
    and the Ray block swap it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            print(self.format(record), file=sys.stderr)
        except Exception:  # logging's own convention: a failed write is reported, not raised
            self.handleError(record)


def show_notes() -> None:
    """Show what the library logs to ``claw`` (``note: …`` lines, warnings and above) on
    stderr, each line its message alone, as claw's own lines are (one handler per process)."""
    logger = logging.getLogger("claw")
    if logger.level == logging.NOTSET:  # whatever the root's level, the notes are shown
        logger.setLevel(logging.WARNING)
    if not any(isinstance(handler, _Notes) for handler in logger.handlers):
        logger.addHandler(_Notes())


def said_already(reason: str, said: list[str]) -> bool:
    """Whether a verdict's ``reason`` ends with a reason already on screen (a failed step's, a
    check's): then its "why" line would only repeat it."""
    return any(r and reason.endswith(r) for r in said)


def fail(kind: str, message: str, as_json: bool = False) -> NoReturn:
    """Report an error and exit with its code."""
    report_error(kind, message, as_json)
    raise typer.Exit(exit_code(kind))


def error_of(exc: BaseException) -> tuple[str, str]:
    """(kind, message) of an expected exception: claw's own, bad values, files."""
    kind = getattr(exc, "kind", None)
    if kind is None:
        kind = "invalid_output" if isinstance(exc, PermissionError) else "invalid_input"
    if isinstance(exc, OSError) and exc.strerror and not getattr(exc, "kind", None):
        where = f" {str(exc.filename)!r}" if exc.filename else ""
        return kind, f"{exc.strerror}:{where}"
    text = str(exc)
    return kind, (text.splitlines()[0] if text.strip() else type(exc).__name__)


@contextmanager
def progress_bar(label: str, total: int, as_json: bool = False) -> Iterator[Callable[[int], None]]:
    """A transient progress bar on stderr (none under ``--json``): yields the callback a long
    benchmark calls with how many of ``total`` are done."""
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True, disable=as_json) as bar:
        task = bar.add_task(label, total=total)
        yield lambda done: bar.update(task, completed=done)


@contextmanager
def errors(as_json: bool = False) -> Iterator[None]:
    """Turn claw's expected errors (and bad values, unreadable or unwritable files) into one
    reported error and its exit code."""
    from claw.common.exceptions import ClawError

    try:
        yield
    except (ClawError, ValueError, OSError) as exc:
        fail(*error_of(exc), as_json=as_json)


def scene_file(scene: str | None) -> NamedPath:
    """A ``--scene`` (or scene argument) as an input for ``check_apart``: its file, if a file."""
    path = Path(scene).expanduser() if scene is not None else None
    return "the scene being read", path if path is not None and path.is_file() else None


def cassettes(planners: list[str | None]) -> list[NamedPath]:
    """The replay cassettes (``replay:FILE``) among ``planners``, as inputs for ``check_apart``."""
    from claw.runtime import parse_planner

    return [("the replay cassette being read", parse_planner(p).reads) for p in planners]


def suite_files(source: str, suite: Suite) -> list[NamedPath]:
    """The files a suite was read from (the suite's, its cases' scene files), as inputs for
    ``check_apart``."""
    files: list[NamedPath] = [("the suite being read", source if Path(source).is_file() else None)]
    scenes = {s for s in map(suite.scene_of, suite.cases) if isinstance(s, str)}
    return files + [scene_file(scene) for scene in sorted(scenes)]


def table(title: str, rows: list[tuple[str, Any]]) -> None:
    """A two-column table of names and values on stdout."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=markup(title), show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    for key, value in rows:
        table.add_row(markup(key), markup(value))
    Console().print(table)
