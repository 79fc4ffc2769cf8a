"""A package surface whose names are imported when first used (PEP 562).

A package lists its public names as imports under ``if TYPE_CHECKING:`` — what type checkers and
readers see — and ends with::

    __getattr__, __dir__ = lazy_surface(__name__, __file__)

Each name is then imported from its module the first time it is asked for, so that importing
the package (or one of its modules) costs nothing of the rest. The ``TYPE_CHECKING`` imports are
the one list of what the surface holds.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _surface(path: str) -> dict[str, tuple[str, str]]:
    """Each name the ``if TYPE_CHECKING:`` imports of the file at ``path`` bind: its module and
    the attribute it is there."""
    names: dict[str, tuple[str, str]] = {}
    for node in ast.parse(Path(path).read_text(encoding="utf-8")).body:
        if not (isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")):
            continue
        for statement in node.body:
            if isinstance(statement, ast.ImportFrom) and statement.module:
                for alias in statement.names:
                    names[alias.asname or alias.name] = (statement.module, alias.name)
    return names


def lazy_surface(package: str, path: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose source is at ``path``."""
    table: dict[str, tuple[str, str]] = {}

    def __getattr__(name: str) -> Any:
        if not table:
            table.update(_surface(path))
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = table[name]
        found = importlib.import_module(module)
        try:
            value = getattr(found, attribute)
        except AttributeError:  # a module of the package: ``from claw.planner.llm import local``
            value = importlib.import_module(f"{module}.{attribute}")
        setattr(sys.modules[package], name, value)  # asked once: the next look-up is plain
        return value

    def __dir__() -> list[str]:
        if not table:
            table.update(_surface(path))
        return sorted({*vars(sys.modules[package]), *table})

    return __getattr__, __dir__
