"""Objects named the way a user would say them: "the red block", and among several of one
colour and type, by where each stands ("the left red block", "the middle red block", "the
second red block from the left"). Every name is one the reader reads back as that object.

API::

    spoken("red_block_2", world, names)   # "the left red block"
    spoken_list(["red_block", "red_block_2"], world, names)   # "the right red block or the ..."
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from claw.envs.objects import name_parts
from claw.envs.state import WorldState

__all__ = ["TIE", "spoken", "spoken_list"]

TIE = 0.01  # m: two objects closer than this along a measure are not told apart by it

_SIDES = (("left", 1, 1.0), ("right", 1, -1.0), ("far", 0, 1.0), ("near", 0, -1.0))
"""A position adjective, the axis it reads (0: x, far; 1: y, left) and its sign."""
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def spoken(name: str, world: WorldState | None, names: Sequence[str]) -> str:
    """How a user singles out ``name`` among the scene's ``names``: its colour and type, and
    where that is not enough, a side it is the extreme of (by more than the reader's tie),
    the middle of three, or its place counted from the left."""
    if world is None or name not in world.objects:
        return name
    colour, kind = _kind(world, name)
    plain = f"the {colour} {kind}"
    alike = [n for n in names if n in world.objects and _kind(world, n) == (colour, kind)]
    if len(alike) < 2 or name not in alike:
        return plain
    where = {n: world.get(n).xy for n in alike}
    best: tuple[float, str] | None = None
    for word, axis, sign in _SIDES:
        ranked = sorted(alike, key=lambda n: -sign * where[n][axis])
        lead = sign * (where[ranked[0]][axis] - where[ranked[1]][axis])
        if ranked[0] == name and lead > TIE and (best is None or lead > best[0]):
            best = (lead, word)
    if best is not None:
        return f"the {best[1]} {colour} {kind}"
    by_left = sorted(alike, key=lambda n: -where[n][1])
    gaps = [where[a][1] - where[b][1] for a, b in itertools.pairwise(by_left)]
    rank = by_left.index(name)
    if rank < len(_ORDINALS) and all(g > TIE for g in gaps):
        if len(alike) == 3 and rank == 1:
            return f"the middle {colour} {kind}"
        return f"the {_ORDINALS[rank]} {colour} {kind} from the left"
    return plain


def _kind(world: WorldState, name: str) -> tuple[str, str]:
    """An object's colour and type (the colour from its name where the state has none)."""
    obj = world.get(name)
    return obj.color or name_parts(name)[0], obj.type


def spoken_list(found: Sequence[str], world: WorldState | None, names: Sequence[str]) -> str:
    """The objects ``found``, each named as :func:`spoken` names it, joined with "or"."""
    said = [spoken(n, world, names) for n in found]
    return said[0] if len(said) == 1 else f"{', '.join(said[:-1])} or {said[-1]}"
