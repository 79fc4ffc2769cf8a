"""The runtime's errors: a run asked for in a way it cannot go."""

from __future__ import annotations

from claw.common.exceptions import ClawError


class InvalidRunError(ClawError, ValueError):
    """A run's settings that no run can have (a step cap under 1): refused before it starts."""

    kind = "invalid_input"
