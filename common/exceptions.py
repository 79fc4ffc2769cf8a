"""The root of claw's errors, and the errors of what every layer shares (output paths).

Every expected error is a :class:`ClawError` with the ``kind`` that JSON output reports; each
layer defines its own in its ``exceptions`` module, under this root.
"""

from __future__ import annotations


class ClawError(Exception):
    """Base class of claw's expected errors: bad input, unknown names, unavailable services."""

    kind: str = "error"


class InvalidOutputError(ClawError, ValueError):
    """An output path that cannot be written: refused before anything runs."""

    kind = "invalid_output"
