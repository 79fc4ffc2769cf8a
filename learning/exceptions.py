"""The training side's errors: configs, algorithms and run folders that cannot be used."""

from __future__ import annotations

from claw.common.exceptions import ClawError
from claw.skills.exceptions import InvalidParamsError


class InvalidConfigError(InvalidParamsError):
    """A training config that cannot be used: unknown skill or algorithm, a bad override, a run
    that cannot be resumed."""

    kind = "invalid_config"


class TrackingUnavailableError(ClawError):
    """A ``--tracker mlflow`` store that cannot be used (a server that does not answer, an
    unwritable SQLite file): refused before the command starts, its URI without a password."""

    kind = "tracking_unavailable"
