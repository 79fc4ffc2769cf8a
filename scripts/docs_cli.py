"""MkDocs hook: the command-line reference, generated from the typer app's click command tree.

A page holding the line ``<!-- generated: cli -->`` gets, in its place, every command of
``claw.cli.app`` (groups first, then their subcommands, depth first): its help text, its usage
line, and a table of its arguments and options as ``claw … --help`` shows them. Nothing is typed
by hand, so the page cannot drift from the code. ``python scripts/docs_cli.py`` prints it.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from typing import Any

import typer.main

MARKER = "<!-- generated: cli -->"


def command_tree() -> Any:
    """The click command behind ``claw`` (a group); ``claw`` is imported here, once the layout
    hook has put this checkout first on ``sys.path``."""
    from claw.cli import app

    return typer.main.get_command(app)


def walk(command: Any, ctx: Any) -> Iterator[tuple[Any, Any]]:
    """Every command under ``command`` with its click context, depth first, groups first."""
    yield command, ctx
    for name in sorted(getattr(command, "commands", {})):
        sub = command.commands[name]
        if getattr(sub, "hidden", False):
            continue
        yield from walk(sub, type(ctx)(sub, info_name=name, parent=ctx))


def _cell(text: str) -> str:
    """Help text as one Markdown table cell: escaped, one line."""
    text = html.escape(" ".join(text.split()), quote=False)
    for char in "\\|*_`[]":
        text = text.replace(char, "\\" + char)
    return text


def _slug(path: str) -> str:
    """The anchor of a command's heading (Markdown's toc: lower case, words joined by ``-``)."""
    return "-".join(path.lower().split())


def _help(command: Any) -> str:
    text = (command.help or "").strip()
    return "\n\n".join(" ".join(block.split()) for block in text.split("\n\n") if block.strip())


def params_table(command: Any, ctx: Any) -> list[str]:
    """The arguments and options of ``command``, one row each."""
    rows = []
    for param in command.params:
        if getattr(param, "hidden", False):
            continue
        record = param.get_help_record(ctx)
        if record is None:  # a plain click argument has no help record
            record = (param.human_readable_name, "")
        name, text = record
        kind = "argument" if param.param_type_name == "argument" else "option"
        rows.append(f"| `{name}` | {kind} | {_cell(text)} |")
    if not rows:
        return []
    return ["| name | kind | description |", "| --- | --- | --- |", *rows, ""]


def section(command: Any, ctx: Any) -> list[str]:
    """One command's section: heading, help, usage, parameters, subcommands."""
    path = ctx.command_path
    level = "#" * min(2 + path.count(" "), 4)
    lines = [f"{level} `{path}`", ""]
    if command.help:
        lines += [_help(command), ""]
    usage = " ".join(command.collect_usage_pieces(ctx))
    lines += ["```", f"{path} {usage}".rstrip(), "```", ""]
    lines += params_table(command, ctx)
    subcommands = sorted(getattr(command, "commands", {}))
    if subcommands:
        links = ", ".join(f"[`{path} {name}`](#{_slug(f'{path} {name}')})" for name in subcommands)
        lines += [f"Subcommands: {links}.", ""]
    return lines


def render() -> str:
    """The whole reference, every command of ``claw``."""
    root = command_tree()
    ctx_class = type(root.context_class(root, info_name="claw"))
    lines: list[str] = []
    for command, ctx in walk(root, ctx_class(root, info_name="claw")):
        lines += section(command, ctx)
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render())


if __name__ == "__main__":
    print(render())
