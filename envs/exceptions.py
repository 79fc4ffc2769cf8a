"""The root of claw's errors, and the world's: scenes, objects, predicates, seeds, output paths.

Every expected error is a :class:`ClawError` with the ``kind`` that JSON output reports; each
layer defines its own in its ``exceptions`` module.
"""

from __future__ import annotations


class ClawError(Exception):
    """Base class of claw's expected errors: bad input, unknown names, unavailable services."""

    kind: str = "error"


class InvalidSceneError(ClawError, ValueError):
    """A scene spec that cannot be built: unknown type or colour, overlap, out of reach, crowded."""

    kind = "invalid_scene"


class UnknownObjectError(ClawError, KeyError):
    """A name that is not an object of the current scene."""

    kind = "unknown_object"

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class PredicateError(ClawError, ValueError):
    """A predicate string that cannot be parsed, or names an unknown predicate or region."""

    kind = "invalid_predicate"


class InvalidOutputError(ClawError, ValueError):
    """An output path that cannot be written: refused before anything runs."""

    kind = "invalid_output"


class YamlLimitError(ClawError, ValueError):
    """A YAML file or text past a limit of ``claw.envs.yamlfile`` (size, values with aliases
    expanded, depth, a recursive alias); readers report it with their own kind."""

    kind = "invalid_input"


class InvalidSeedError(ClawError, ValueError):
    """A seed outside ``0 … 2**32 - 1``."""

    kind = "invalid_input"
