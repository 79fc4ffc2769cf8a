"""Packaging: every package pyproject maps ships a ``py.typed`` marker (PEP 561), so that
projects using claw get its type hints."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_ships_py_typed() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = sorted(set(setuptools["package-dir"].values()))
    missing = [folder for folder in folders if not (ROOT / folder / "py.typed").is_file()]
    assert not missing, f"no py.typed in {', '.join(missing)}"
    assert "py.typed" in setuptools["package-data"]["*"]


def test_every_package_folder_is_shipped() -> None:
    """Each folder with an ``__init__.py`` under a mapped folder (``planner/language`` …) is in
    pyproject's ``packages``, so that a wheel holds it; and nothing else is listed."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = set()
    for package, folder in setuptools["package-dir"].items():
        found.add(package)
        if package == "claw":
            continue
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join([package, *parts]))
    assert sorted(setuptools["packages"]) == sorted(found)
