"""MkDocs hook: lay the ``claw`` package out where mkdocstrings (griffe) can read it statically.

pyproject maps ``claw.envs`` to ``envs/``, ``claw.planner`` to ``planner/`` and so on
(``[tool.setuptools.package-dir]``), so from the repository root there is no ``claw/envs``.
As ``scripts/typecheck.sh`` does for mypy, this builds a tree of links, ``build/docs-layout/claw``
(one link per package-dir entry; the ``claw`` entry's modules linked one by one), before any
page is rendered. ``mkdocs.yml`` points the Python handler's ``paths`` there, and the tree goes
first on ``sys.path``, so that the other hooks (which import ``claw`` when they render) document
this checkout's code even where another ``claw`` is installed.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
LAYOUT = ROOT / "build" / "docs-layout"


def package_dirs(root: Path = ROOT) -> dict[str, str]:
    """pyproject's ``[tool.setuptools.package-dir]``: package name to folder."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    folders: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    return folders


def lay_out(root: Path = ROOT, tree: Path = LAYOUT) -> Path:
    """Build ``tree/claw`` as links into the repository; return ``tree``."""
    if tree.exists():
        shutil.rmtree(tree)
    tree.mkdir(parents=True)
    for package, folder in package_dirs(root).items():
        target = tree.joinpath(*package.split("."))
        source = root / folder
        if not source.is_dir():
            raise SystemExit(f"docs: {folder}/ (package-dir of {package}) does not exist")
        if package == "claw":  # claw/ holds the CLI; the other packages are linked into it
            target.mkdir(parents=True, exist_ok=True)
            for module in sorted(source.glob("*.py")):
                (target / module.name).symlink_to(module)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(source, target_is_directory=True)
    return tree


@event_priority(100)  # before mkdocstrings makes its handler, which drops missing paths
def on_config(config: Any) -> Any:
    tree = str(lay_out())
    if tree not in sys.path:
        sys.path.insert(0, tree)
    return config
