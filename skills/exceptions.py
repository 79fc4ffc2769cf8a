"""The skills' errors: unknown skills, bad parameters, refused artifacts, no room to place."""

from __future__ import annotations

from claw.common.exceptions import ClawError


class UnknownSkillError(ClawError, KeyError):
    """A skill name (or implementation) that is not registered."""

    kind = "unknown_skill"

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class InvalidParamsError(ClawError, ValueError):
    """Skill parameters that do not validate, or that name unknown objects or regions."""

    kind = "invalid_params"


class ArtifactError(ClawError, RuntimeError):
    """A skill artifact that is missing, or whose sha256 differs from the manifest's: refused."""

    kind = "artifact_rejected"


class NoPlacement(ClawError, ValueError):
    """No spot makes the relation true clear of the other objects; ``str(e)`` says why."""

    kind = "no_placement"
