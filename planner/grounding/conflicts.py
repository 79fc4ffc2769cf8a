"""Goals no order reaches, and what rests on what: checks the grounding stage makes before any
step is written.

A support cycle (``on(a, b)`` and ``on(b, a)``), one object asked to rest on two things, a relation
said with its opposite or the other way round, a predicate with its negation, one object at two
regions, and a push that would move what an earlier request placed are ``unsupported`` before
anything moves, with the conflict named.
"""

from __future__ import annotations

from claw.envs.predicates import Predicate
from claw.envs.state import WorldState
from claw.envs.world import supported_by
from claw.planner.exceptions import UnsupportedError
from claw.skills import SkillCall

TOWERS = ("stacked", "tower")  # goals that stack their arguments (``tower``: in order, as given)
TABLE = "the table"  # what a tower's base rests on, in the conflicts (no object is named so)


def moves(predicate: Predicate) -> set[str]:
    """The objects a goal predicate has the claw carry (for ``not(P)``, P's)."""
    if predicate.inner is not None:
        return moves(predicate.inner)
    if predicate.name in TOWERS:
        return set(predicate.args)
    return {predicate.args[0]}


def targets(predicate: Predicate) -> set[str]:
    """The objects a goal predicate places things relative to (for ``not(P)``, P's)."""
    if predicate.inner is not None:
        return targets(predicate.inner)
    if predicate.name in TOWERS:
        return set(predicate.args)
    if predicate.name in ("at", "holding"):
        return set()
    return set(predicate.args[1:])  # between's two


def supports(world: WorldState) -> dict[str, str]:
    """What each object rests on (a block or a box), for those resting on something."""
    below: dict[str, str] = {}
    for name in world.objects:
        for other in supported_by(world, name):
            below.setdefault(other, name)
    return below


def above(name: str, below: dict[str, str]) -> list[str]:
    """Objects resting on ``name``, directly or on one another, nearest first."""
    found: list[str] = []
    frontier = [name]
    while frontier:
        level = [o for o, s in below.items() if s in frontier and o not in found]
        found.extend(level)
        frontier = level
    return found


OPPOSITES = {"left_of": "right_of", "right_of": "left_of", "behind": "in_front_of",
             "in_front_of": "behind"}  # fmt: skip
"""Relations that cannot both hold of the same two objects."""


def _check_opposites(goal: list[Predicate]) -> None:
    """Refuse a relation said with its opposite (:data:`OPPOSITES`), with itself the other way
    round ("a left of b" and "b left of a"), or with its negation; one object at two regions."""
    said = {str(p) for p in goal}
    regions: dict[str, str] = {}
    for predicate in goal:
        args = list(predicate.args)
        clashes = [f"not({predicate})"]
        if predicate.name in OPPOSITES:
            clashes.append(str(Predicate.of(OPPOSITES[predicate.name], *args)))
            clashes.append(str(Predicate.of(predicate.name, *args[::-1])))
        if predicate.name == "at":
            clashes.append(f"at({args[0]}, {regions.setdefault(args[0], args[1])})")
        for clash in clashes:
            if clash in said and clash != str(predicate):
                raise UnsupportedError(f"{predicate} and {clash} cannot both hold")


def check_conflicts(goal: list[Predicate]) -> None:
    """Refuse goals that no order reaches: support cycles, two supports for one object, a
    relation and its opposite ("left of the red block and right of it") or the other way round,
    a predicate and its negation, one object at two regions.

    Raises:
        UnsupportedError: naming the predicates in conflict.
    """
    _check_opposites(goal)
    rests: dict[str, tuple[str, Predicate]] = {}  # object -> (what it rests on, the goal saying so)
    for predicate in goal:
        pairs: list[tuple[str, str]] = []
        if predicate.name in ("on", "in"):
            pairs = [(predicate.args[0], predicate.args[1])]
        elif predicate.name in TOWERS:
            args = list(predicate.args)
            pairs = list(zip(args[1:], args[:-1], strict=True))
            if predicate.name == "tower":
                pairs.insert(0, (args[0], TABLE))
        for obj, base in pairs:
            if obj in rests and rests[obj][0] != base:
                raise UnsupportedError(
                    f"{obj} cannot rest on both {rests[obj][0]} and {base}: "
                    f"{rests[obj][1]} conflicts with {predicate}"
                )
            rests[obj] = (base, predicate)
    for start in rests:
        chain, node = [start], start
        while node in rests:
            node = rests[node][0]
            if node == start:
                said = sorted({str(rests[n][1]) for n in chain})
                raise UnsupportedError(
                    f"no order reaches {' and '.join(said)}: "
                    f"{' on '.join([*chain, start])} would rest on itself"
                )
            if node in chain:
                break
            chain.append(node)


def check_pushes(done: list[Predicate], pushes: list[SkillCall]) -> None:
    """Refuse a push that would move what an earlier request placed (or placed things on).

    Raises:
        UnsupportedError: naming the push and the goal it would undo.
    """
    for call in pushes:
        obj = call.args["object"]
        for predicate in done:
            if obj in moves(predicate) | targets(predicate):
                raise UnsupportedError(
                    f"pushing {obj} {call.args['direction']} after {predicate} would undo it; "
                    "ask for the push first"
                )
