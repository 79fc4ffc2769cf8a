"""The one rule for seeds, everywhere in claw: an integer from 0 to 2**32 - 1."""

from __future__ import annotations

from claw.envs.exceptions import InvalidSeedError

SEED_MAX = 2**32 - 1


def check_seed(seed: int, what: str = "seed") -> int:
    """``seed`` if it is an integer in ``0 … 2**32 - 1`` (what NumPy and Gymnasium accept)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise InvalidSeedError(f"a {what} is an integer from 0 to {SEED_MAX}, not {seed!r}")
    return seed


def check_seeds(first: int, count: int, counted: str = "--episodes") -> int:
    """``first`` if it and the ``count - 1`` seeds after it (one an episode) are all seeds.

    Raises:
        InvalidSeedError: ``first`` is no seed, or the last seed, ``first + count - 1``, passes
            ``2**32 - 1`` (the message names the range and the highest first seed allowed).
    """
    check_seed(first)
    last = first + count - 1
    if last > SEED_MAX:
        raise InvalidSeedError(
            f"seeds {first} … {last} ({counted} {count}) pass {SEED_MAX}: a seed is an integer "
            f"from 0 to {SEED_MAX}, so with {counted} {count} the first is at most "
            f"{SEED_MAX - count + 1}"
        )
    return first
