"""The perception layer's errors."""

from __future__ import annotations

from claw.common.exceptions import ClawError


class InvalidPerceptionError(ClawError, ValueError):
    """A perceiver name that is not registered, or options it does not take."""

    kind = "invalid_perception"
