"""The one rule for seeds, everywhere in claw: an integer from 0 to 2**32 - 1."""

from __future__ import annotations

from claw.envs.exceptions import InvalidSeedError

SEED_MAX = 2**32 - 1


def check_seed(seed: int, what: str = "seed") -> int:
    """``seed`` if it is an integer in ``0 … 2**32 - 1`` (what NumPy and Gymnasium accept)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise InvalidSeedError(f"a {what} is an integer from 0 to {SEED_MAX}, not {seed!r}")
    return seed
