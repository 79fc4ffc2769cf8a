"""The planner's errors: instructions it cannot read or carry out, models it cannot use."""

from __future__ import annotations

from claw.common.exceptions import ClawError


class UnparseableError(ClawError, ValueError):
    """Empty, or no request can be read from it."""

    kind = "unparseable"


class AmbiguousError(UnparseableError):
    """A reference with several answers where one is needed; the message lists them.

    Args:
        candidates: the objects it could be, by name, where they are objects.
    """

    kind = "ambiguous"

    def __init__(self, *args: object, candidates: tuple[str, ...] = ()) -> None:
        super().__init__(*args)
        self.candidates = candidates


class UnsupportedError(ClawError, ValueError):
    """A request that no registered skill can carry out."""

    kind = "unsupported"


class PlanTooLongError(ClawError, ValueError):
    """A plan with more steps than the cap: refused before any of it runs."""

    kind = "plan_too_long"


class InvalidPlannerError(ClawError, ValueError):
    """A ``--planner`` (or ``--fallback``) that names no registered planner, or that cannot be
    used here; the message names what is allowed."""

    kind = "invalid_input"


class PlannerUnavailableError(ClawError, RuntimeError):
    """The model could not be reached or used (after retries): network, keys, the provider."""

    kind = "planner_unavailable"


class InvalidPlanError(ClawError, ValueError):
    """The model's answers were still unusable after the repairs; the message names why."""

    kind = "invalid_plan"


class CacheSettingError(ClawError, ValueError):
    """``CLAW_ANSWER_CACHE`` set to something other than on or off."""

    kind = "invalid_input"


class BodyTooLarge(PlannerUnavailableError):
    """A model's HTTP body over the cap, or in an encoding whose decoded size cannot be
    bounded: the server's answer cannot be used (not retried)."""


class InvalidInstructionError(ClawError, ValueError):
    """An instruction that is not text (bytes that are not UTF-8): refused before it is read."""

    kind = "invalid_input"
