"""The ``claw`` command line (typer); heavy libraries are imported inside the commands using them,
and a command's module only when that command runs (``claw "…"`` builds ``run`` alone).

Exit codes: 0 success, 1 attempted and failed, 2 bad input (one line on stderr), 3 planner/LLM
unavailable or unusable, 130 interrupted.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperGroup

try:  # typer vendors click from 0.2x on; its errors are those classes
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - older typer
    from click import exceptions as click_errors  # type: ignore[no-redef]

from claw import __version__
from claw.output import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    INTERRUPTED,
    report_error,
    show_notes,
)


class ClawGroup(TyperGroup):
    """claw's commands, which show the library's notes on stderr (:func:`show_notes`). A Ctrl-C
    that a command did not report itself leaves here as ``typer.Abort``, which ``main`` reports
    (typer would turn it into a silent exit 130)."""

    def invoke(self, ctx: Any) -> Any:
        show_notes()
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise typer.Abort from None


GROUPS = {
    "bench": "claw.bench_commands:bench_app",
    "cache": "claw.cache_commands:cache_app",
    "demos": "claw.demos_commands:demos_app",
    "eval": "claw.eval_commands:eval_app",
    "llm": "claw.llm_commands:llm_app",
    "scene": "claw.scene_commands:scene_app",
    "skills": "claw.skills_commands:skills_app",
}
"""The command groups, and where each is defined."""
SINGLE = {
    "run": "claw.run_command:run",
    "train": "claw.train_commands:train_command",
    "tune": "claw.train_commands:tune_command",
}
"""The commands of their own, and where each is defined."""
COMMANDS = ("run", "eval", "bench", "cache", "demos", "scene", "skills", "train", "tune", "llm")


def _defined(where: str) -> Any:
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)


def build_app(commands: Sequence[str] = COMMANDS) -> typer.Typer:
    """The typer app with ``commands`` (default: all of them; a run builds only its own)."""
    built = typer.Typer(
        cls=ClawGroup,
        name="claw",
        help="Natural-language instructions to robot skills on a MuJoCo tabletop.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    if len(commands) == 1:  # stays a group (typer makes a lone command the app itself)
        built.callback()(_no_options)
    for name in sorted(commands):
        if name in GROUPS:
            built.add_typer(_defined(GROUPS[name]), name=name)
        else:
            built.command(name)(_defined(SINGLE[name]))
    return built


def _no_options() -> None:
    """The app's own callback where one command is built: no options of its own."""


def __getattr__(name: str) -> Any:
    """``app``: every command (for the docs and tests), built on first use."""
    if name == "app":
        globals()["app"] = full = build_app()
        return full
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


HELP = ("--help", "-h")
GC_THRESHOLDS = (50_000, 10, 10)
"""The cyclic collector's thresholds in the console script: a command makes most of its objects
once, at start (modules, pydantic models, the grammar's tables), which the default (700
allocations) walks some 250 times in a ``claw "…"``, a tenth of its time; this walks them a few
times."""


def expand_args(args: list[str]) -> list[str]:
    """``claw [OPTIONS] "INSTRUCTION"`` means ``claw run``; ``claw eval SUITE`` means
    ``claw eval run SUITE``; a bare ``--ray`` means ``--ray=local``."""
    if args and args[0] not in COMMANDS and args[0] not in HELP:
        return ["run", *args]
    if "--ray" in args:  # ``--ray`` alone is a local Ray (click's options take one value)
        from claw.eval.ray_runner import with_bare_ray_flag

        args = with_bare_ray_flag(args)
    if len(args) > 1 and args[0] == "eval":
        from claw.eval_commands import EVAL_COMMANDS

        if args[1] not in EVAL_COMMANDS + HELP:
            return ["eval", "run", *args[1:]]
    return args


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``claw`` console script."""
    if argv is None:  # the console script: a short-lived process, not a caller's Python
        gc.set_threshold(*GC_THRESHOLDS)
    args = expand_args(list(sys.argv[1:] if argv is None else argv))
    if args in (["--version"], ["run", "--version"]):
        print(f"claw {__version__}")
        raise SystemExit(EXIT_OK)
    _renders_nothing(args)
    app = build_app([args[0]] if args and args[0] in COMMANDS else COMMANDS)
    try:
        code = app(args=args, prog_name="claw", standalone_mode=False)
    except click_errors.NoArgsIsHelpError as exc:  # `claw eval` alone: its help
        assert exc.ctx is not None
        print(exc.ctx.get_help())
        code = EXIT_OK
    except (
        click_errors.ClickException
    ) as exc:  # bad options or arguments: one line, like every error
        ctx = getattr(exc, "ctx", None)  # UsageError and its subclasses carry one
        hint = f" (see {ctx.command_path} --help)" if ctx else ""
        # Under --json a flag asks for JSON (``claw eval``/``bench all --json FILE`` name a file).
        report_error("invalid_input", exc.format_message() + hint, as_json=_json_flag(args))
        code = EXIT_BAD_INPUT
    except (typer.Abort, KeyboardInterrupt):
        report_error(INTERRUPTED, "stopped by the user", as_json=_json_flag(args))
        code = EXIT_INTERRUPTED
    code = code if isinstance(code, int) else EXIT_OK
    completion = sys.modules.get("claw.planner.llm.completion")
    abandoned = completion is not None and completion.abandoned_calls()
    if abandoned or (argv is None and args[:1] == ["run"]):
        # A model call abandoned at its deadline may still run, and must not hold up the exit;
        # the console script's run has written all it writes (atomically): its ~700 modules are
        # left to the OS, not torn down one by one (a tenth of a second), once the exit
        # handlers have run. Called with arguments (from Python), main raises SystemExit.
        _exit_now(code)
    raise SystemExit(code)


def _exit_now(code: int) -> None:
    """End the process now: streams flushed, exit handlers run, no interpreter teardown."""
    import atexit

    sys.stdout.flush()
    sys.stderr.flush()
    atexit._run_exitfuncs()  # what a normal exit runs (loggers, Ray, weakref finalizers)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _renders_nothing(args: list[str]) -> None:
    """A run that films nothing, opens no viewer and sees the truth loads no OpenGL: MuJoCo's
    GL backend is chosen when it is first imported, so it is set off before then (unless the
    user set one)."""
    if args[:1] != ["run"] or any(a.startswith(("--video", "--viewer")) for a in args):
        return
    seen = [
        a.partition("=")[2] if "=" in a else (args[i + 1] if i + 1 < len(args) else "")
        for i, a in enumerate(args)
        if a.startswith("--perception")
    ]
    if all(value == "truth" for value in seen):
        os.environ.setdefault("MUJOCO_GL", "disable")


def _json_flag(args: list[str]) -> bool:
    return "--json" in args and args[:1] != ["eval"] and args[:2] != ["bench", "all"]
