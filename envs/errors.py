"""The exceptions every part of claw raises; each carries the error ``kind`` used in JSON output."""

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


class UnknownSkillError(ClawError, KeyError):
    """A skill name (or implementation) that is not registered."""

    kind = "unknown_skill"

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class InvalidParamsError(ClawError, ValueError):
    """Skill parameters that do not validate, or that name unknown objects or regions."""

    kind = "invalid_params"


class LibraryError(ClawError, RuntimeError):
    """The skill library cannot be read or written (a damaged manifest, a failed write)."""

    kind = "library_error"


class ArtifactError(ClawError, RuntimeError):
    """A skill artifact that is missing, or whose sha256 differs from the manifest's: refused."""

    kind = "artifact_rejected"


class InvalidOutputError(ClawError, ValueError):
    """An output path that cannot be written: refused before anything runs."""

    kind = "invalid_output"


class InvalidSeedError(ClawError, ValueError):
    """A seed outside ``0 … 2**32 - 1``."""

    kind = "invalid_input"
