"""Ordering the offline planner's goals as its steps are planned.

Goals are ordered so that a later step never undoes an earlier one: a target is put in its place
before anything is placed on or relative to it (towers bottom-up; a base before its tower), a
block with others on it is moved only after the goals of the blocks above it (towers are taken
apart top-down), and an object resting on a target that must be clear goes to its own place
first. Goals that no order can reach were refused by the grounding stage
(:mod:`claw.planner.grounding.conflicts`).
"""

from __future__ import annotations

import numpy as np

from claw.common.exceptions import ClawError
from claw.envs.predicates import AT_RADIUS, Predicate, evaluate
from claw.envs.regions import REGIONS, region_anchor
from claw.envs.spatial import NEAR_GAP
from claw.envs.state import WorldState
from claw.envs.world import held_object, supported_by
from claw.planner.exceptions import UnsupportedError
from claw.planner.grounding.conflicts import TOWERS, above, moves, supports, targets
from claw.skills import NoPlacement, Place

REGION_CLEARING = 0.15  # m from a region's anchor: blocks this near may be moved to make room
CLEAR_TOP = ("on", "in", *TOWERS)  # relations whose target's top must be free of other goals


def tower_order(names: list[str], world: WorldState, *, fixed: bool = False) -> list[str]:
    """Bottom-up order for ``stacked(names)``: keep a tower that is already there; ``fixed``
    (``tower(names)``): the order given."""
    if fixed:
        return list(names)
    base = names[0]
    for name in names:  # the lowest object of the group that others already rest on
        obj = world.get(name)
        if obj.bottom <= world.table_z + 0.01 and any(
            evaluate(Predicate.of("on", o, name), world).holds for o in names if o != name
        ):
            base = name
            break
    order = [base]
    while len(order) < len(names):
        top = order[-1]
        above = [
            o for o in names if o not in order and evaluate(Predicate.of("on", o, top), world).holds
        ]
        if not above:
            break
        order.append(above[0])
    order.extend(n for n in names if n not in order)
    return order


def stand_in(predicate: Predicate, world: WorldState | None = None) -> Predicate | None:
    """The goal whose steps reach ``predicate``, a ``not(P)``, by moving P's object:
    ``next_to(a, b)`` for ``not(in(a, b))`` and ``not(on(a, b))`` (out of the box, or off b onto
    the table beside it); on ``world``, ``at(a, region)`` for ``not(next_to(a, b))``, the table
    region farthest from b where a finds a spot; None for any other."""
    inner = predicate.inner
    if inner is not None and inner.name in ("on", "in"):
        return Predicate.of("next_to", *inner.args)
    if inner is not None and inner.name == "next_to" and world is not None:
        return _away_from(inner.args[0], inner.args[1], world)
    return None


def _away_from(obj: str, other: str, world: WorldState) -> Predicate | None:
    """``at(obj, region)`` for the region farthest from ``other`` where ``obj`` finds a spot
    that cannot be next to it (wherever within the region it lands); None when none does."""
    a, b = world.get(obj), world.get(other)
    apart = AT_RADIUS + NEAR_GAP + float(np.linalg.norm(a.half_extents[:2]) +
                                         np.linalg.norm(b.half_extents[:2]))  # fmt: skip
    distance = {r: float(np.hypot(*(np.array(xy) - b.xy))) for r, xy in REGIONS.items()}
    for region in sorted(distance, key=lambda r: -distance[r]):
        if distance[region] < apart:
            break
        try:
            Place.find_placement(world, obj, "at", region, lookahead=0)
        except (NoPlacement, ClawError):
            continue
        return Predicate.of("at", obj, region)
    return None


def _supports_alike(a: Predicate, b: Predicate) -> bool:
    """Whether ``a`` and ``b`` say the same thing: equal, or ``on`` and ``in`` of the same pair
    (a block on a box is in it)."""
    return a == b or ({a.name, b.name} == {"on", "in"} and a.args == b.args)


def resolve_negations(goal: list[Predicate], world: WorldState) -> list[Predicate]:
    """The goals to plan for ``goal``'s negations: a ``not(P)`` that holds now, that another goal
    moves P's object for, or ``not(holding(a))`` (the claw puts down what no goal holds) needs no
    step of its own; ``not(in(a, b))`` and ``not(on(a, b))`` move a beside b (:func:`stand_in`).
    The goal checked at the end is still the whole one.

    Raises:
        UnsupportedError: a goal and its negation both asked, or a negation no step reaches.
    """
    positive = [p for p in goal if p.inner is None]
    planned: list[Predicate] = []
    for predicate in goal:
        inner = predicate.inner
        if inner is None:
            planned.append(predicate)
            continue
        clash = next((p for p in positive if _supports_alike(p, inner)), None)
        if clash is not None:
            raise UnsupportedError(f"{predicate} and {clash} cannot both hold")
        moved = any(moves(inner) & moves(p) for p in positive)
        if inner.name == "holding" or moved or evaluate(predicate, world).holds:
            continue
        reaching = stand_in(predicate, world)
        if reaching is None:
            raise UnsupportedError(
                f"no step reaches {predicate}: only not(in(a, b)), not(on(a, b)), "
                "not(next_to(a, b)) where a table region far from b has room, and not(holding(a)) "
                "are planned for, or a negation that already holds"
            )
        planned.append(reaching)
    return planned


def fold_towers_at_regions(goal: list[Predicate], world: WorldState) -> list[Predicate]:
    """The goals to plan for, where a tower is asked for at a region: only its base is placed
    there (before the tower is built on it); the ``at`` goals of the blocks above then hold by
    stacking, and are left out so that no step carries them away from the tower. The goal
    checked at the end is still the whole one.
    """
    regions: dict[str, set[str]] = {}
    for predicate in goal:
        if predicate.name == "at":
            regions.setdefault(predicate.args[0], set()).add(predicate.args[1])
    left_out: set[Predicate] = set()  # at goals of the tower's blocks
    bases: dict[Predicate, Predicate] = {}  # a stacked goal -> the at goal of its base, before it
    for predicate in goal:
        if predicate.name not in TOWERS:
            continue
        members = list(predicate.args)
        shared = set.intersection(*(regions.get(m, set()) for m in members))
        if len(shared) != 1:
            continue
        region = next(iter(shared))
        left_out |= {_at(m, region) for m in members}
        base = tower_order(members, world, fixed=predicate.name == "tower")[0]
        bases[predicate] = _at(base, region)
    folded: list[Predicate] = []
    for predicate in goal:
        if predicate.name == "at" and predicate in left_out:
            continue
        folded.extend([bases[predicate], predicate] if predicate in bases else [predicate])
    return folded


def _at(obj: str, region: str) -> Predicate:
    return Predicate.of("at", obj, region)


def order_goals(goal: list[Predicate], world: WorldState) -> list[Predicate]:
    """The goal's predicates in an order in which they can be reached one after another.

    A target is put in its place before anything is placed relative to it (towers bottom-up);
    an object resting on a target that must be clear goes to its own place before the target is
    used; a block with others on it is moved after their goals (top-down); a goal for the held
    object comes first, and holding an object comes last. Otherwise the order is the
    instruction's. A tower asked for at a region is built on a base placed there
    (:func:`fold_towers_at_regions`); negations are planned for as :func:`resolve_negations`
    says.

    Raises:
        UnsupportedError: a negation no step reaches, or one asked with what it denies.
    """
    goal = list({str(g): g for g in goal}.values())  # each predicate once
    goal = fold_towers_at_regions(resolve_negations(goal, world), world)
    held = held_object(world)
    below = supports(world)
    resting = {name: set(supported_by(world, name)) for name in world.objects}
    after: dict[int, set[int]] = {i: set() for i in range(len(goal))}  # i waits for these
    for i, text in enumerate(goal):
        clear_top = text.name in CLEAR_TOP
        blockers = (
            set().union(*(resting.get(t, set()) for t in targets(text))) if clear_top else set()
        )
        if text.name == "at":  # objects standing in the region go to their places first
            anchor = np.array(region_anchor(text.args[1]))
            blockers |= {n for n, o in world.objects.items()
                         if float(np.linalg.norm(o.xy - anchor)) < REGION_CLEARING}  # fmt: skip
        on_top = set().union(*(above(m, below) for m in moves(text))) - moves(text)
        for j, other in enumerate(goal):
            if i == j or moves(other) & moves(text) == moves(other):
                continue
            if moves(other) & targets(text) or moves(other) & blockers:
                after[i].add(j)
            elif moves(other) & on_top and not moves(text) & targets(other):
                after[i].add(j)  # the blocks above go to their places before this one moves

    def rank(i: int) -> tuple[int, int]:
        text = goal[i]
        if text.name == "holding":
            return (2, i)
        return (0 if held in moves(text) else 1, i)

    order: list[int] = []
    done: set[int] = set()
    while len(order) < len(goal):
        left = [i for i in range(len(goal)) if i not in done]
        ready = [i for i in left if after[i] <= done] or left  # a cycle: instruction order
        order.append(min(ready, key=rank))
        done.add(order[-1])
    return [goal[i] for i in order]
