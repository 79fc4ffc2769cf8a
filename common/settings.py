"""Settings read from the environment, the one way: a number of seconds in a variable."""

from __future__ import annotations

import math
import os


def env_seconds(name: str, default: float, low: float, high: float) -> float | None:
    """The seconds environment variable ``name`` sets: ``default`` when it is unset or blank;
    ``None`` when it is not a number from ``low`` to ``high`` (the caller refuses it in its own
    words)."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    return seconds if low <= seconds <= high else None
