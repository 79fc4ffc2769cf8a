"""The world's errors: scenes, objects, predicates, YAML limits, seeds.

Each is a :class:`~claw.common.ClawError` (the root of claw's errors, in ``claw.common``) with the
``kind`` that JSON output reports.
"""

from __future__ import annotations

from claw.common.exceptions import ClawError


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


class YamlLimitError(ClawError, ValueError):
    """A YAML file or text past a limit of ``claw.envs.yamlfile`` (size, values with aliases
    expanded, depth, a recursive alias); readers report it with their own kind."""

    kind = "invalid_input"


class InvalidSeedError(ClawError, ValueError):
    """A seed outside ``0 … 2**32 - 1``."""

    kind = "invalid_input"
