"""Options several commands take, defined once with their help and defaults."""

from __future__ import annotations

from typing import Annotated

import typer

from claw.output import Prefer

SEED_MAX = 2**32 - 1  # what NumPy and Gymnasium accept (claw.envs.outputs.check_seed)


def seed_callback(value: int) -> int:
    """Refuse a seed outside 0 … 2**32 - 1 as a usage error."""
    if not 0 <= value <= SEED_MAX:
        raise typer.BadParameter(f"a seed is an integer from 0 to {SEED_MAX}, not {value}")
    return value


JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]
Seed = Annotated[
    int,
    typer.Option(callback=seed_callback, help="Seed of the scene's sampled poses (0 … 2^32−1)."),
]
Timeout = Annotated[
    float,
    typer.Option(min=0.1, help="Seconds one LLM call may take (a deadline, retries apart)."),
]
DEFAULT_TIMEOUT = 30.0
Planner = Annotated[
    str | None,
    typer.Option(
        help="offline (default), a litellm model ($CLAW_MODEL), replay:FILE, or in claw eval "
        "mock:oracle, mock:literal, mock:noisy:P, mock:faulty:P."
    ),
]
PreferOption = Annotated[
    Prefer | None,
    typer.Option(
        "--prefer",
        help="Where a skill has both, run the learned policy or the controller "
        "(default: the one with the best measured success).",
    ),
]
MaxSteps = Annotated[
    int | None,
    typer.Option(min=1, help="Refuse plans longer than this many steps (default 50)."),
]
