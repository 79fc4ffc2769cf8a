"""The training side's errors: configs, algorithms and run folders that cannot be used."""

from __future__ import annotations

from claw.skills.exceptions import InvalidParamsError


class InvalidConfigError(InvalidParamsError):
    """A training config that cannot be used: unknown skill or algorithm, a bad override, a run
    that cannot be resumed."""

    kind = "invalid_config"
