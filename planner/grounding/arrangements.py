"""The goal predicates of each kind of request, from its grounded objects: a :class:`Resolver`
that grounds noun phrases remembering what "it" means, the objects a request moves, a tower
named a level at a time, and the goals of a place, a colour pairing, a stack by colour or size,
a take-out or unstack, a swap and "together" (:mod:`claw.planner.grounding.goals` calls them request
by request).
"""

from __future__ import annotations

from claw.envs.predicates import Predicate, evaluate
from claw.envs.state import WorldState
from claw.planner.exceptions import AmbiguousError, UnparseableError, UnsupportedError
from claw.planner.grounding.conflicts import above, supports
from claw.planner.grounding.naming import spoken
from claw.planner.grounding.references import color_of, ground, type_of
from claw.planner.language.forms import Reference, Request


class Resolver:
    """Grounds noun phrases on the scene, remembering what "it" refers to and what was named."""

    def __init__(self, names: list[str], world: WorldState | None = None) -> None:
        self.names = names
        self.world = world
        self.last: list[str] = []
        self.mentioned: list[str] = []

    def objects(self, noun: Reference, default_type: str | None = None) -> list[str]:
        chosen = ground(
            noun,
            self.names,
            self.world,
            default_type=default_type,
            last=self.last,
            mentioned=self.mentioned,
        )
        self.last = chosen
        self.mentioned = [n for n in self.mentioned if n not in chosen] + chosen  # latest last
        return chosen

    def one(self, noun: Reference, default_type: str | None = None) -> str:
        """The one object ``noun`` names where a request relates to one object.

        Raises:
            UnsupportedError: it names several ("next to the red and green blocks"): no place
                is relative to several objects at once, and taking one of them would drop
                the others.
        """
        found = self.objects(noun, default_type)
        if len(found) > 1:
            raise UnsupportedError(
                f"{noun.text!r} names {len(found)} objects ({', '.join(found)}), where claw "
                "places relative to one; name one of them, or ask for each in turn",
                from_reading=True,
            )
        return found[0]


def movers_of(resolve: Resolver, nouns: list[Reference], what: str) -> list[str]:
    """The objects a request moves; boxes cannot be picked up, so they cannot be carried."""
    movers: list[str] = []
    for noun in nouns:
        movers.extend(o for o in resolve.objects(noun, "block") if o not in movers)
    resolve.last = movers
    boxes = [o for o in movers if type_of(o, resolve.world) == "box"]
    if boxes:
        raise UnsupportedError(
            f"the claw cannot {what} {', '.join(boxes)}: boxes are too wide to grasp "
            "(it picks up blocks; a box can only be pushed)"
        )
    return movers


class Tower:
    """A tower named a block or a level at a time: "a tower with the red block at the bottom,
    then the green block, then the blue block"."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.top: list[str] = []
        self.text = ""

    def add(self, movers: list[str], request: Request) -> None:
        levels = request.levels if request.levels and len(request.levels) == len(movers) else None
        for i, block in enumerate(movers):
            level = levels[i] if levels else None
            if level in ("bottom", "base"):
                self.blocks.insert(0, block)
            else:
                (self.top if level == "top" else self.blocks).append(block)
        self.text = self.text or request.text

    def goal(self) -> list[Predicate]:
        order = [b for b in self.blocks if b not in self.top] + self.top
        if not order:
            return []
        if len(order) < 2:
            raise UnparseableError(f"stacking needs two objects or more: {self.text!r}")
        return [Predicate.of("stacked", *order)]


TARGET_TYPES = {"on": "block", "in": "box"}
"""The type a target of a relation is where its words do not say ("put red in blue")."""


def relation_goal(relation: str, obj: str, target: str, world: WorldState | None) -> Predicate:
    """The goal predicate; on a box is in it (the predicates define it so), written as ``in``;
    "to" an object is into a box; "to" a block could be onto it or next to it.

    Raises:
        AmbiguousError: "to" a block (``on`` or ``next_to``: the reader does not guess).
    """
    kind = type_of(target, world)
    if relation in ("on", "to") and kind == "box":
        relation = "in"
    elif relation == "to":
        said = {
            n: n if world is None else spoken(n, world, list(world.objects)) for n in (obj, target)
        }
        raise AmbiguousError(
            f"moving {said[obj]} to {said[target]} could put it on {said[target]} or next to it; "
            "say which ('on …', 'next to …')"
        )
    elif relation == "in" and kind not in ("box", None):
        raise UnsupportedError(f"nothing goes in {target}: it is a {kind}, not a box; put "
                               f"{obj} on it, or in a box")  # fmt: skip
    return Predicate.of(relation, obj, target)


def together_goals(resolve: Resolver, nouns: list[Reference]) -> list[Predicate]:
    """Objects "together": the blocks in the box among them, else next to the first block."""
    named: list[str] = []
    for noun in nouns:
        named += [o for o in resolve.objects(noun) if o not in named]
    blocks = [o for o in named if type_of(o, resolve.world) == "block"]
    boxes = [o for o in named if type_of(o, resolve.world) == "box"]
    if len(boxes) > 1:
        raise AmbiguousError(f"together in which box: {', '.join(boxes)}? say which")
    if boxes:
        return [Predicate.of("in", o, boxes[0]) for o in blocks]
    if len(blocks) < 2:
        raise UnparseableError(f"grouping needs two objects or more, not {', '.join(named)}")
    return [Predicate.of("next_to", o, blocks[0]) for o in blocks[1:]]


def colour_pairs(
    movers: list[str], targets: list[str], *, same: bool, world: WorldState | None = None
) -> list[tuple[str, str]]:
    """Each object with a target of its colour (``same``) or of another colour.

    Objects without a target of their colour are left out; with another colour, each object
    takes a different target while there are enough, in scene order (stated in the plan).
    """
    if same:
        by_color = {color_of(t, world): t for t in reversed(targets)}
        return [(o, by_color[color_of(o, world)]) for o in movers if color_of(o, world) in by_color]
    pairs: list[tuple[str, str]] = []
    used: set[str] = set()
    for obj in movers:
        others = [t for t in targets if color_of(t, world) != color_of(obj, world)]
        if not others:
            raise UnsupportedError(f"no target of another colour than {obj}: {', '.join(targets)}")
        free = [t for t in others if t not in used] or others
        pairs.append((obj, free[0]))
        used.add(free[0])
    return pairs


def unstack_goals(
    request: Request, resolve: Resolver, world: WorldState | None, planned: dict[str, str]
) -> list[Predicate]:
    """``next_to(block, base)`` for each named block resting on a block, as high as it rests,
    and next to the box for one in a box; "take it out": next to the box it is in, or an
    earlier request put it in (``planned``); one an earlier request put in or on something,
    next to that."""
    if world is None:
        raise UnsupportedError(f"unstacking needs the scene as it is: {request.text!r}")
    rests_on = supports(world)
    on_blocks = {o: s for o, s in rests_on.items() if type_of(s, world) == "block"}
    previous = list(resolve.last)
    named = _taken_from(resolve, request, rests_on)
    if request.target is not None:
        resolve.last = previous
        named, base = _taken_and_base(resolve, request.target, named)
        put = [o for o in named if planned.get(o) == base]  # "put it in the box, then take it out"
        if type_of(base, world) == "box":  # "take the red block out of the box": next to it
            chosen = [o for o in named if evaluate(Predicate.of("in", o, base), world).holds]
            order = chosen + [o for o in put if o not in chosen]
        else:  # "take the blocks off the red block": top first
            chosen = [o for o in above(base, on_blocks) if o in named]
            order = [o for o in put if o not in chosen] + chosen[::-1]
        resolve.last = order or named
        return [Predicate.of("next_to", o, base) for o in order]
    if request.relation == "out":  # "take it out": of the box it is in, next to that box
        held = {**rests_on, **planned}
        return [
            Predicate.of("next_to", o, held[o])
            for o in named
            if o in held and type_of(held[o], world) == "box"
        ]
    goals: list[Predicate] = []
    # "put them on the table", "remove the green block": out of a box too ("the tower": not)
    out_of_boxes = request.relation == "table" or not all(r.every for r in request.objects)
    for obj in sorted(named, key=lambda o: -world.get(o).bottom):  # top down
        if obj in planned:  # "put it in the box, then put it (back) on the table": off that
            goals.append(Predicate.of("next_to", obj, planned[obj]))
        elif obj in on_blocks:
            base = obj
            while base in on_blocks:
                base = on_blocks[base]
            goals.append(Predicate.of("next_to", obj, base))
        elif obj in rests_on and out_of_boxes:  # in a box: next to it
            goals.append(Predicate.of("next_to", obj, rests_on[obj]))
    return goals


def _taken_and_base(
    resolve: Resolver, target: Reference, named: list[str]
) -> tuple[list[str], str]:
    """What a take-out or take-off with a target moves, and what from: ``named`` and the
    target; for a target of several that says where they are ("clear all the yellow blocks
    from the brown box"), those objects and where they are."""
    source = next(
        (f.target for f in target.filters if f.kind == "relation" and f.relation in ("in", "on")),
        None,
    )
    if target.every and source is not None:
        taken = resolve.objects(target, "block")
        return taken, resolve.one(source)
    return named, resolve.one(target, "block")


def _taken_from(resolve: Resolver, request: Request, rests_on: dict[str, str]) -> list[str]:
    """The objects a take-out or take-off moves; "the block" among several is the one the
    place it is taken from holds ("take the block out of the grey box": the block in it)."""
    previous = list(resolve.last)
    try:
        return movers_of(resolve, request.objects, "unstack")
    except AmbiguousError:
        if request.target is None or len(request.objects) != 1:
            raise
        resolve.last = previous
        base = resolve.one(request.target)
        every = resolve.objects(request.objects[0].loosened(), "block")
        held = [o for o in every if rests_on.get(o) == base]
        if len(held) != 1:
            raise
        resolve.last = held
        return held


def stacks_by_colour(movers: list[str], world: WorldState | None) -> list[Predicate]:
    """A stack of each colour that two or more of ``movers`` share.

    Raises:
        UnsupportedError: no two of them share a colour.
    """
    by_colour: dict[str, list[str]] = {}
    for obj in movers:
        by_colour.setdefault(color_of(obj, world), []).append(obj)
    stacks = [Predicate.of("stacked", *same) for same in by_colour.values() if len(same) > 1]
    if not stacks:
        raise UnsupportedError(f"no two of {', '.join(movers)} have the same colour to stack")
    return stacks


def by_size(movers: list[str], request: Request, world: WorldState | None) -> list[str]:
    """A tower's blocks bottom first, by size (blocks of one size in the scene's order)."""
    if world is None:
        raise UnsupportedError(f"a tower by size needs the scene as it is: {request.text!r}")
    if len(movers) < 2:
        raise UnparseableError(f"stacking needs two objects or more: {request.text!r}")
    sign = -1 if request.bottom == "big" else 1
    return sorted(movers, key=lambda o: sign * world.get(o).size)


def swap_goals(request: Request, resolve: Resolver, world: WorldState | None) -> list[Predicate]:
    """Two objects each in (or on) what holds the other: "swap the red and blue blocks".

    On the table, where the other stood is no predicate claw can check: ``unsupported``.
    """
    if world is None:
        raise UnsupportedError(f"swapping needs the scene as it is: {request.text!r}")
    pair = movers_of(resolve, request.objects, "swap")
    if len(pair) != 2:
        raise UnparseableError(f"a swap takes two objects, not {', '.join(pair)}: {request.text!r}")
    (a, b), held = pair, supports(world)
    if a not in held or b not in held or held[a] == held[b]:
        where = " and ".join(f"{o} rests on {held.get(o, 'the table')}" for o in pair)
        raise UnsupportedError(
            f"{where}: a swap needs each in or on a different thing (where an object stood on "
            "the table is no goal claw can check); say where each goes"
        )
    return [relation_goal("on", a, held[b], world), relation_goal("on", b, held[a], world)]
