"""The tests are a map of the packages (CONTRIBUTING.md, "Test"): each test file sits in the folder
that mirrors the package it tests (``tests/planner/language/`` for ``claw.planner.language``),
in ``tests/cli/`` for the command line (``claw/``) or in ``tests/project/`` for what crosses the
packages (architecture, docs, packaging); ``tests/`` itself holds only the shared helpers. Every
folder is a package (``__init__.py``): pytest imports ``tests/planner/llm/test_x.py`` as
``tests.planner.llm.test_x``, so two folders may hold files of the same name."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]

#: Folders that mirror no package of ``claw.*`` but the command line and the project itself.
OTHERS = {
    "cli": "the command line (claw/, the claw package's own modules)",
    "project": "what crosses the packages: architecture, docs, packaging, this map",
}


def mirrors() -> set[str]:
    """The folders under ``tests/`` that pyproject's packages call for: ``claw.planner.language``
    is ``planner/language``; the folders above them, and ``cli`` and ``project``."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    names = [name for name in config["tool"]["setuptools"]["packages"] if name != "claw"]
    return {"/".join(name.split(".")[1:]) for name in names} | set(OTHERS)


DATA = "data"
"""The folder of what tests read: fixtures, a plugin distribution."""


def is_test_file(path: Path) -> bool:
    """What pytest collects (its default ``python_files``: ``test_*.py``, ``*_test.py``)."""
    return path.suffix == ".py" and (path.name.startswith("test_") or path.stem.endswith("_test"))


def misplaced(tests: Path, folders: set[str]) -> list[str]:
    """Every way the tree under ``tests`` is no map of ``folders``, one line each."""
    found = [
        f"{path.name}: a test file in tests/ itself; it goes to the folder of the package it tests"
        for path in sorted(tests.glob("*.py"))
        if is_test_file(path)
    ]
    for folder in sorted(p for p in tests.rglob("*") if p.is_dir()):
        rel = folder.relative_to(tests)
        if rel.name == "__pycache__" or any(part.startswith(".") for part in rel.parts):
            continue
        if rel.parts[0] == DATA:  # what tests read (a plugin's source among it), not tests
            continue
        if not any(folder.glob("*.py")):  # data, not tests
            continue
        if rel.as_posix() not in folders:
            found.append(f"{rel.as_posix()}/: mirrors no package of pyproject's, nor cli, project")
        elif not (folder / "__init__.py").is_file():
            found.append(f"{rel.as_posix()}/: no __init__.py (its modules would clash by name)")
    return found


def test_every_test_file_sits_in_the_folder_of_a_package() -> None:
    problems = misplaced(ROOT / "tests", mirrors())
    assert not problems, "tests/ is no map of the packages:\n" + "\n".join(problems)


def test_the_packages_all_have_a_folder_to_go_to() -> None:
    assert {"envs", "planner/language", "planner/llm", "eval", "cli", "project"} <= mirrors()


def test_a_stray_file_or_folder_is_caught(tmp_path: Path) -> None:
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "conftest.py").write_text("")
    (tmp_path / "reading.py").write_text("")  # a helper: stays
    (tmp_path / "test_round7.py").write_text("")
    for folder in ("envs", "hardening", "planner/language", "planner/parsers"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "test_x.py").write_text("")
    for folder in ("envs", "hardening", "planner"):
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "scene.yaml").write_text("")  # data: no Python, no package needed
    problems = misplaced(tmp_path, {"envs", "planner", "planner/language"})
    assert [line.split(":")[0] for line in problems] == [
        "test_round7.py",
        "hardening/",
        "planner/language/",  # no __init__.py
        "planner/parsers/",
    ], problems
