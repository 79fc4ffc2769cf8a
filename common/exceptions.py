"""The root of claw's errors, and the errors of what every layer shares (output paths).

Every expected error is a :class:`ClawError` with the ``kind`` that JSON output reports; each
layer defines its own in its ``exceptions`` module, under this root.
"""

from __future__ import annotations

from typing import Any


class ClawError(Exception):
    """Base class of claw's expected errors: bad input, unknown names, unavailable services.

    Args:
        from_reading: the error comes from how an instruction was read (a word, a phrase the
            reader took one way), not from the world or the skills: another reader (a model)
            may read the instruction where this one refused it.
    """

    kind: str = "error"
    suggestions: tuple[Any, ...] = ()
    """Instructions close to the refused one that claw does read on the live scene (the
    planner's ``Suggestion`` s: each instruction and its goal)."""
    read: tuple[str, ...] = ()
    """What of a refused instruction was read: its verb, objects and places, as said."""

    def __init__(self, *args: object, from_reading: bool = False) -> None:
        super().__init__(*args)
        self.from_reading = from_reading


class InvalidOutputError(ClawError, ValueError):
    """An output path that cannot be written: refused before anything runs."""

    kind = "invalid_output"


class PluginError(ClawError):
    """A plugin that cannot be used: a ``"module:attr"`` reference or an installed package's
    entry point that does not import, or names what its registry does not take."""

    kind = "plugin_error"
