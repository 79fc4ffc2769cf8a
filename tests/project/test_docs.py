"""Every code name the docs mention exists.

README.md, CONTRIBUTING.md and every page under ``docs/`` are scanned for code that names claw:

- dotted names ``claw.x.y[.z]`` in code spans and ``from claw.x import y`` in Python blocks: an
  importable module, or an attribute of one (looked up in the source without importing where it
  can be, so that the test stays fast);
- ``module:attr`` entry points (``claw.cli:main``);
- repository paths (``planner/language/grammar.lark``, ``eval/suites/basic.yaml``,
  ``eval/suites/*.yaml``) whose first folder is one the repository tracks;
- ``claw SUBCOMMAND … --option`` in code spans and in shell examples, and ``--option`` spans,
  checked against the typer app's click command tree.

A name that does not exist fails its document's test, each named with its line. No site is built.
"""

from __future__ import annotations

import ast
import glob
import importlib
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import typer.main

from claw.cli import app, expand_args
from claw.common.plugins import GROUPS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = sorted(
    [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *(ROOT / "docs").rglob("*.md")],
    key=lambda p: str(p),
)

#: Paths the design notes (records) name that are not this repository's: another repository's
#: files whose first folder happens to share a name with one of ours, or ours as they were when
#: the note was written.
NOT_HERE: dict[str, str] = {
    "prompts/hl_corr.txt": "Stanford-ILIAD/droc (HELDOUT10.md's sources)",
    "prompts/is_planning_error.txt": "Stanford-ILIAD/droc (HELDOUT10.md's sources)",
    "prompts/ll_corr.txt": "Stanford-ILIAD/droc (HELDOUT10.md's sources)",
    "prompts/hl_content.txt": "Stanford-ILIAD/droc (HELDOUT10.md's sources)",
    "scripts/qa_generator.py": "NVlabs/RoboSpatial (HELDOUT4.md's sources)",
    "scripts/run_eval.py": "NVlabs/progprompt-vh (HELDOUT5.md's sources)",
    "eval/suites/REFUSALS4.md": "now docs/design/open-language/REFUSALS4.md (a record of its day)",
    "eval/suites/*.md": "the write-ups, now in docs/design/ (a record of its day)",
    "tests/test_planner*.py": "the planner's tests, now under tests/planner/ (a record of its day)",
}

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)[^\n]*\n(.*?)^\1\2\s*$", re.M | re.S)
SPAN = re.compile(r"(?<!`)(`+)(?!`)((?:(?!\n\s*\n).)+?)(?<!`)\1(?!`)", re.S)
DOTTED = re.compile(r"(?<![\w./-])claw(?:\.[A-Za-z_]\w*)+")
ENTRY_POINT = re.compile(r"^(claw(?:\.\w+)*):([A-Za-z_]\w*(?:\.\w+)*)$")
PATH = re.compile(r"^\.?[\w-]+(?:/[\w.*{},-]*)+$")
ENV_ID = re.compile(r"-v\d+$")  # claw/Tabletop-v0, claw/pick_place/expert-v0: ids, not paths
OPTION = re.compile(r"^--?[A-Za-z][\w-]*$")
SHELL = {"", "bash", "sh", "console", "shell", "text"}


@dataclass(frozen=True)
class Mention:
    """A name a document mentions: what kind of name, the text, and the line it is on."""

    kind: str  # "dotted", "entry", "path", "command", "option"
    text: str
    line: int


# -- reading the documents ------------------------------------------------------------------------


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _blanked(text: str, start: int, end: int) -> str:
    """``text`` with ``[start, end)`` replaced by as many newlines as it held (lines kept)."""
    return text[:start] + "\n" * text.count("\n", start, end) + text[end:]


def span_mentions(text: str, first_line: int = 1) -> Iterator[Mention]:
    """The names in the code spans of ``text`` (fenced blocks already taken out)."""
    for match in SPAN.finditer(text):
        code = " ".join(match.group(2).split())
        line = first_line + _line_of(text, match.start()) - 1
        if code.startswith("claw ") or code == "claw":
            yield Mention("command", code, line)
        elif ENTRY_POINT.match(code):
            yield Mention("entry", code, line)
        elif code.startswith("--"):
            yield Mention("option", code.split()[0].split("=")[0], line)
        elif PATH.match(code) and not ENV_ID.search(code):
            yield Mention("path", code, line)
        for dotted in DOTTED.findall(code):
            if not ENTRY_POINT.match(code):
                yield Mention("dotted", dotted, line)


def block_mentions(language: str, body: str, first_line: int) -> Iterator[Mention]:
    """The names in a fenced block: ``claw`` command lines of shell examples, imports of Python."""
    if language in SHELL:
        lines = body.split("\n")
        number = 0
        while number < len(lines):
            start, command = number, lines[number]
            while command.endswith("\\") and number + 1 < len(lines):
                number += 1
                command = command[:-1] + " " + lines[number].strip()
            number += 1
            command = re.sub(r"^\s*(\$\s+)?((time|nice -n \d+)\s+)?", "", command)
            if command.startswith("claw ") or command == "claw":
                yield Mention("command", command, first_line + start)
    elif language == "python":
        try:
            tree = ast.parse(body)
        except SyntaxError:
            return
        for node in ast.walk(tree):
            line = first_line + getattr(node, "lineno", 1) - 1
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("claw"):
                for alias in node.names:
                    yield Mention("dotted", f"{node.module}.{alias.name}", line)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "claw":
                        yield Mention("dotted", alias.name, line)


def mentions(text: str) -> list[Mention]:
    """Every name ``text`` (Markdown) mentions, in its fenced blocks and its code spans."""
    found: list[Mention] = []
    rest = text
    for match in reversed(list(FENCE.finditer(text))):
        first_line = _line_of(text, match.start(4))
        found += block_mentions(match.group(3).lower(), match.group(4), first_line)
        rest = _blanked(rest, match.start(), match.end())
    found += span_mentions(rest)
    return sorted(found, key=lambda m: m.line)


# -- the repository's names -----------------------------------------------------------------------


@cache
def package_dirs() -> dict[str, Path]:
    """pyproject's ``package-dir``: ``claw.envs`` -> ``ROOT/envs``."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    folders: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    return {name: ROOT / folder for name, folder in folders.items()}


def module_file(dotted: str) -> Path | None:
    """The source file of module ``dotted`` in the tree (a package's ``__init__.py``)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        folder = package_dirs().get(".".join(parts[:cut]))
        if folder is None:
            continue
        base = folder.joinpath(*parts[cut:])
        for candidate in (base / "__init__.py", base.with_suffix(".py")):
            if candidate.is_file() and (cut < len(parts) or candidate.name == "__init__.py"):
                return candidate
        return None
    return None


@cache
def top_level_names(path: Path) -> frozenset[str]:
    """Names a module defines or imports at its top level (statically)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.If | ast.Try):  # TYPE_CHECKING blocks, optional imports
            names |= {
                (a.asname or a.name).split(".")[0]
                for n in ast.walk(node)
                if isinstance(n, ast.Import | ast.ImportFrom)
                for a in n.names
            }
    return frozenset(names)


def _imported(module: str, attributes: list[str]) -> bool:
    """Whether ``module`` imports and has the chain of ``attributes`` (the slow, sure way)."""
    try:
        value: Any = importlib.import_module(module)
    except ImportError:
        return False
    for name in attributes:
        if not hasattr(value, name):
            return False
        value = getattr(value, name)
    return True


def dotted_exists(dotted: str) -> bool:
    """``claw.x.y``: a module of the tree, or a module's attribute (a chain of them)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        path = module_file(module)
        if path is None:
            continue
        rest = parts[cut:]
        if not rest:
            return True
        if len(rest) == 1 and rest[0] in top_level_names(path):
            return True
        return _imported(module, rest)
    return False


@cache
def tracked_tops() -> frozenset[str]:
    """The first path component of every file git tracks (the folders a path may start with)."""
    try:
        listing = subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        listing = [p.name for p in ROOT.iterdir() if not p.name.startswith(".git")]
    return frozenset(name.split("/")[0] for name in listing)


def _expand_braces(path: str) -> list[str]:
    match = re.search(r"\{([^{}]*)\}", path)
    if match is None:
        return [path]
    return [
        expanded
        for choice in match.group(1).split(",")
        for expanded in _expand_braces(path[: match.start()] + choice + path[match.end() :])
    ]


def path_exists(path: str) -> bool | None:
    """Whether a repository path exists (a glob: matches); ``None`` when it is not one (its first
    folder is none the repository tracks: a run folder, a library's artifacts, …)."""
    if path.split("/")[0] not in tracked_tops():
        return None
    return all(glob.glob(str(ROOT / p)) for p in _expand_braces(path))


# -- the command line -----------------------------------------------------------------------------


@cache
def command_tree() -> Any:
    return typer.main.get_command(app)


@cache
def every_option() -> frozenset[str]:
    """Every option name of every claw command."""
    found: set[str] = {"--help", "--version"}
    todo = [command_tree()]
    while todo:
        command = todo.pop()
        todo += list(getattr(command, "commands", {}).values())
        for param in command.params:
            found |= set(getattr(param, "opts", ())) | set(getattr(param, "secondary_opts", ()))
    return frozenset(o for o in found if o.startswith("-"))


def _words(command: str) -> list[str]:
    """A command line's words after ``claw``: quotes, comments, placeholders' brackets removed,
    cut at ``&&``, ``;`` or ``|`` between commands."""
    command = re.sub(r"\s#.*$", "", command)
    command = re.sub(r"\"[^\"]*\"|'[^']*'|“[^”]*”|…", " X ", command)
    command = re.split(r"\s(?:&&|;|\|\||\|)\s", command)[0]
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    return [w.strip("[]()") for w in words[1:] if w.strip("[]()")]


def command_problem(command: str) -> str | None:
    """Why a ``claw …`` line names a command or option that does not exist; None when it does."""
    words = _words(command)
    if words in (["--version"], ["--help"]) or not words:
        return None
    routed = expand_args(words)
    current, path = command_tree(), ["claw"]
    for index, word in enumerate(routed):
        subcommands = getattr(current, "commands", None)
        if subcommands is None or word.startswith("-"):
            return _options_problem(current, path, routed[index:])
        choices = word.split("|")
        unknown = [choice for choice in choices if choice not in subcommands]
        if unknown:
            return f"{' '.join(path)} has no command {unknown[0]!r}"
        current, path = subcommands[choices[0]], [*path, choices[0]]
    return None


def _options_problem(command: Any, path: list[str], words: list[str]) -> str | None:
    known = {"--help", "-h"}
    for param in command.params:
        known |= set(getattr(param, "opts", ())) | set(getattr(param, "secondary_opts", ()))
    for word in words:
        name = word.split("=")[0]
        if OPTION.match(name) and name not in known:
            return f"{' '.join(path)} has no option {name}"
    return None


# -- the checks -----------------------------------------------------------------------------------


def problem(mention: Mention) -> str | None:
    """Why ``mention`` names nothing that exists; None when it does (or is planned)."""
    if mention.text in NOT_HERE or mention.text in GROUPS:
        return None  # an entry-point group (claw.planners) is a name, not a module
    if mention.kind == "dotted":
        return None if dotted_exists(mention.text) else "no such module or attribute"
    if mention.kind == "entry":
        module, _, attribute = mention.text.partition(":")
        exists = module_file(module) is not None and _imported(module, attribute.split("."))
        return None if exists else "no such entry point"
    if mention.kind == "path":
        return "no such file in the repository" if path_exists(mention.text) is False else None
    if mention.kind == "option":
        return None if mention.text in every_option() else "no claw command has this option"
    paths = [w for w in _words(mention.text) if PATH.match(w) and w not in NOT_HERE]
    missing = [w for w in paths if path_exists(w) is False]
    return command_problem(mention.text) or (f"no such file {missing[0]}" if missing else None)


def problems(path: Path) -> list[str]:
    """Every name the document at ``path`` mentions that does not exist, one line each."""
    found = []
    for mention in mentions(path.read_text(encoding="utf-8")):
        why = problem(mention)
        if why is not None:
            found.append(f"{path.relative_to(ROOT)}:{mention.line}: `{mention.text}`: {why}")
    return found


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_code_name_exists(document: Path) -> None:
    missing = problems(document)
    assert not missing, "names the docs mention that do not exist:\n" + "\n".join(missing)


FAKE = [
    "`claw.envs.NoSuchEnv`",
    "`claw.nowhere.module`",
    "`claw.cli:no_such_main`",
    "`planner/no_such_grammar.lark`",
    "`eval/suites/no_such_*.yaml`",
    "`claw skills frobnicate`",
    "`claw eval run basic --no-such-option`",
    "`claw cache info|wipe`",
    "`--no-such-option`",
    "```bash\nclaw skills list --no-such-flag\n```",
    "```console\n$ claw bench nothing\n```",
    "```bash\nclaw eval eval/suites/no_such_suite.yaml --workers 2\n```",
    "```python\nfrom claw.envs import NoSuchEnv\n```",
]


@pytest.mark.parametrize("text", FAKE)
def test_a_name_that_does_not_exist_is_caught(text: str) -> None:
    found = mentions(text)
    assert found, f"nothing read from {text!r}"
    assert any(problem(m) is not None for m in found), f"{text!r} passed as existing"


REAL = [
    "`claw.envs.TabletopEnv`",
    "`claw.envs.relations`",
    "`claw.cli:main`",
    "`planner/language/grammar.lark`",
    "`eval/suites/basic.yaml`",
    "`learning/hyperparams/{reach,push}.yaml`",
    "`claw eval basic --workers 2`",
    '`claw "put the red block next to the blue box" --seed 3`',
    '`claw eval cap -k "t00 or seen" --limit 5`',
    "```bash\nclaw train push --algo sac \\\n    --steps 60000\n```",
    "```python\nfrom claw.runtime import Session, make_planner\n```",
]


@pytest.mark.parametrize("text", REAL)
def test_a_name_that_exists_passes(text: str) -> None:
    found = mentions(text)
    assert found and all(problem(m) is None for m in found), [(m, problem(m)) for m in found]


def test_the_readme_figures_are_rendered_from_the_results_file() -> None:
    from claw.results import load_results
    from claw.results_page import README_END, README_START, readme_block

    readme = (ROOT / "README.md").read_text()
    block = readme[readme.index(README_START) + len(README_START) : readme.index(README_END)]
    assert block.strip() == readme_block(load_results(ROOT / "docs" / "results.json")).strip()
