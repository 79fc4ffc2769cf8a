"""The ``claw`` command line (typer); heavy libraries are imported inside the commands using them.

Exit codes: 0 success, 1 attempted and failed, 2 bad input (one line on stderr), 3 planner/LLM
unavailable.
"""

from __future__ import annotations

import sys

import typer

from claw.bench_commands import bench_app
from claw.eval_commands import eval_command
from claw.run_command import run
from claw.scene_commands import scene_app
from claw.skills_commands import skills_app
from claw.train_commands import train_command, tune_command

app = typer.Typer(
    name="claw",
    help="Natural-language instructions to robot skills on a MuJoCo tabletop.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(bench_app, name="bench")
app.add_typer(scene_app, name="scene")
app.add_typer(skills_app, name="skills")
app.command("run")(run)
app.command("eval")(eval_command)
app.command("train")(train_command)
app.command("tune")(tune_command)

COMMANDS = ("run", "eval", "bench", "scene", "skills", "train", "tune")


def main() -> None:
    """Entry point of the ``claw`` console script: ``claw "INSTRUCTION"`` means ``claw run``."""
    args = sys.argv[1:]
    if args and not args[0].startswith("-") and args[0] not in COMMANDS:
        sys.argv.insert(1, "run")
    app()
