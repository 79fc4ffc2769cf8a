"""The workspace, the arm's reach, and the named table regions used by ``at(object, region)``.

Words follow an operator standing at the robot and looking along +x: left = +y, right = -y,
far (behind, top) = +x, near (in front, bottom) = -x.
"""

from __future__ import annotations

import math
import re

from claw.envs.exceptions import PredicateError

# Where objects are placed (their whole footprint, when sampled).
WORKSPACE_X = (0.30, 0.65)
WORKSPACE_Y = (-0.30, 0.30)
# Where the claw may put objects down: the reachable part of the table (centres also in reach).
PLACE_X = (0.24, 0.74)
PLACE_Y = (-0.42, 0.42)
# Where the claw reaches pointing down: horizontal distance from the base, and x beyond this.
REACH_RADIUS = (0.22, 0.78)
REACH_MIN_X = 0.15

_X_NEAR, _X_MID, _X_FAR = 0.36, 0.475, 0.59
_Y_SIDE = 0.22

REGIONS: dict[str, tuple[float, float]] = {
    "center": (_X_MID, 0.0),
    "left side": (_X_MID, _Y_SIDE),
    "right side": (_X_MID, -_Y_SIDE),
    "far side": (_X_FAR, 0.0),
    "near side": (_X_NEAR, 0.0),
    "far left corner": (_X_FAR, _Y_SIDE),
    "far right corner": (_X_FAR, -_Y_SIDE),
    "near left corner": (_X_NEAR, _Y_SIDE),
    "near right corner": (_X_NEAR, -_Y_SIDE),
}

_WORD_ALIASES = {"top": "far", "bottom": "near", "middle": "center", "centre": "center"}


def resolve_region(name: str) -> str:
    """The canonical region name for ``name`` ("top_left_corner" -> "far left corner").

    Raises:
        PredicateError: ``name`` is no region; the message lists the allowed ones.
    """
    words = [w for w in re.split(r"[\s_\-]+", name.strip().lower()) if w and w != "the"]
    words = [_WORD_ALIASES.get(w, w) for w in words]
    if words and words[-1] == "of" and len(words) > 1:  # "left side of" from a sloppy parse
        words = words[:-1]
    if words and words[-1] not in ("side", "corner", "center"):
        words.append("corner" if len(words) == 2 else "side")
    candidate = " ".join(words)
    if candidate in REGIONS:
        return candidate
    raise PredicateError(
        f"unknown region {name!r}; allowed: {', '.join(REGIONS)} (aliases: top=far, bottom=near, "
        "middle=center)"
    )


def region_anchor(name: str) -> tuple[float, float]:
    """The anchor point (x, y) of a region, by any accepted spelling."""
    return REGIONS[resolve_region(name)]


def in_reach(x: float, y: float, base: tuple[float, float] = (0.0, 0.0)) -> bool:
    """True when the claw of the arm standing at ``base`` (x, y) can reach (x, y) pointing down."""
    r = math.hypot(x - base[0], y - base[1])
    return x - base[0] >= REACH_MIN_X and REACH_RADIUS[0] <= r <= REACH_RADIUS[1]
