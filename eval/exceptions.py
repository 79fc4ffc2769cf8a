"""The evaluation's errors: suites, planner names, cassettes and results that cannot be used."""

from __future__ import annotations

from claw.common.exceptions import ClawError
from claw.planner.exceptions import InvalidPlannerError as InvalidPlannerError


class InvalidSuiteError(ClawError, ValueError):
    """A suite file that cannot be used; the message names the case and the field."""

    kind = "invalid_suite"


class InvalidSelectionError(ClawError, ValueError):
    """A ``-k``, ``--tags`` or ``--limit`` that is malformed or selects no case of the suite."""

    kind = "invalid_input"


class CassetteError(ClawError, ValueError):
    """A cassette file that cannot be read (not JSON, not a cassette, not UTF-8)."""

    kind = "invalid_input"


class CassetteMiss(ClawError, KeyError):
    """A request the cassette has no answer for."""

    kind = "planner_unavailable"

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class InvalidReportError(ClawError, ValueError):
    """A file that is not a JSON report written by ``claw eval --json``."""

    kind = "invalid_report"


class InvalidRayOptionError(ClawError, ValueError):
    """A ``--ray`` address in none of the forms taken, or a ``CLAW_RAY_TIMEOUT`` that is no
    number of seconds."""

    kind = "invalid_input"


class RayUnavailableError(ClawError):
    """``--ray`` without Ray installed, or a cluster that cannot be used (a version mismatch)."""

    kind = "ray_unavailable"


class RayUnreachableError(RayUnavailableError):
    """A ``--ray`` address at which no cluster answers in time: the address is the bad input."""

    kind = "ray_unreachable"
