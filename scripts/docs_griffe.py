"""Griffe extension for the API reference: claw's docstrings are written in reST, which the
Markdown renderer shows as typed. This turns Sphinx roles (``:func:`x```, ``:class:`~a.B```) into
code spans and a paragraph's closing ``::`` (a literal block follows) into ``:``; the docstrings
in the code are not changed. ``mkdocs.yml`` loads it (``extensions`` of the Python handler).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|attr|data|exc|obj|const|ref):`~?([^`]+)`")
LITERAL = re.compile(r"(?<=\S)::[ \t]*$", re.M)


def plain(text: str) -> str:
    """``text`` with reST roles as code spans and literal-block markers as colons."""
    return LITERAL.sub(":", ROLE.sub(r"`\1`", text))


class ReSTRoles(griffe.Extension):
    """Rewrites every docstring once the object tree is built."""

    def on_object(self, *, obj: griffe.Object, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain(obj.docstring.value)
