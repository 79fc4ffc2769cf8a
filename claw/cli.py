"""The ``claw`` command line (typer); heavy libraries are imported inside the commands using them.

Exit codes: 0 success, 1 attempted and failed, 2 bad input (one line on stderr), 3 planner/LLM
unavailable or unusable, 130 interrupted.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import typer
from typer.core import TyperGroup

try:  # typer vendors click from 0.2x on; its errors are those classes
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - older typer
    from click import exceptions as click_errors  # type: ignore[no-redef]

from claw import __version__
from claw.bench_commands import bench_app
from claw.cache_commands import cache_app
from claw.demos_commands import demos_app
from claw.eval_commands import EVAL_COMMANDS, eval_app
from claw.llm_commands import llm_app
from claw.output import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    INTERRUPTED,
    report_error,
    show_notes,
)
from claw.run_command import run
from claw.scene_commands import scene_app
from claw.skills_commands import skills_app
from claw.train_commands import train_command, tune_command


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


app = typer.Typer(
    cls=ClawGroup,
    name="claw",
    help="Natural-language instructions to robot skills on a MuJoCo tabletop.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(bench_app, name="bench")
app.add_typer(cache_app, name="cache")
app.add_typer(demos_app, name="demos")
app.add_typer(eval_app, name="eval")
app.add_typer(llm_app, name="llm")
app.add_typer(scene_app, name="scene")
app.add_typer(skills_app, name="skills")
app.command("run")(run)
app.command("train")(train_command)
app.command("tune")(tune_command)

COMMANDS = ("run", "eval", "bench", "cache", "demos", "scene", "skills", "train", "tune", "llm")
HELP = ("--help", "-h")


def expand_args(args: list[str]) -> list[str]:
    """``claw [OPTIONS] "INSTRUCTION"`` means ``claw run``; ``claw eval SUITE`` means
    ``claw eval run SUITE``; a bare ``--ray`` means ``--ray=local``."""
    if args and args[0] not in COMMANDS and args[0] not in HELP:
        return ["run", *args]
    if "--ray" in args:  # ``--ray`` alone is a local Ray (click's options take one value)
        from claw.eval.ray_runner import with_bare_ray_flag

        args = with_bare_ray_flag(args)
    if len(args) > 1 and args[0] == "eval" and args[1] not in EVAL_COMMANDS + HELP:
        return ["eval", "run", *args[1:]]
    return args


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``claw`` console script."""
    args = expand_args(list(sys.argv[1:] if argv is None else argv))
    if args in (["--version"], ["run", "--version"]):
        print(f"claw {__version__}")
        raise SystemExit(EXIT_OK)
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
    if completion is not None and completion.abandoned_calls():
        # A model call abandoned at its deadline may still run; it must not hold up the exit.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise SystemExit(code)


def _json_flag(args: list[str]) -> bool:
    return "--json" in args and args[:1] != ["eval"] and args[:2] != ["bench", "all"]
