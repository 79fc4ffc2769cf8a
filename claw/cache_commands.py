"""``claw cache info`` / ``claw cache clear``: the model answers kept in
``$CLAW_HOME/cache/answers`` (``claw.planner.llm.answer_cache``)."""

from __future__ import annotations

import json

import typer

from claw.options import JsonFlag
from claw.output import errors, markup

cache_app = typer.Typer(
    help="The model answers kept so that a repeated instruction costs no call: claw cache info "
    "shows them, claw cache clear deletes them.",
    no_args_is_help=True,
)


def _say(folder: str, files: int, size: int, done: str, as_json: bool) -> None:
    if as_json:
        print(json.dumps({"folder": folder, "answers": files, "bytes": size}))
        return
    from rich.console import Console

    Console().print(markup(f"{files} answer{'' if files == 1 else 's'} {done} ({size:,} bytes) "
                           f"in {folder}"))  # fmt: skip


@cache_app.command("info")
def info(as_json: JsonFlag = False) -> None:
    """How many answers are kept, and where."""
    from claw.planner.llm.answer_cache import AnswerCache

    with errors(as_json):
        cache = AnswerCache()
        entries = cache.entries()
        size = sum(path.stat().st_size for path in entries)
    _say(str(cache.folder), len(entries), size, "kept", as_json)


@cache_app.command("clear")
def clear(as_json: JsonFlag = False) -> None:
    """Delete every answer kept; the next run asks the model again."""
    from claw.planner.llm.answer_cache import AnswerCache

    with errors(as_json):
        cache = AnswerCache()
        files, size = cache.clear()
    _say(str(cache.folder), files, size, "deleted", as_json)
