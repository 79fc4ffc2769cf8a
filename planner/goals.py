"""From requests to goal predicates: each clause's noun phrases grounded on the scene, and the
goal its action asks for (``claw.planner.offline`` plans the steps that reach it).

A later request about an object replaces holding it or setting it aside; "it"/"them" refers to
what the previous request named; a push asked for stays a skill call, in its place.
"""

from __future__ import annotations

from claw.envs.predicates import Predicate, evaluate
from claw.envs.state import WorldState
from claw.planner.exceptions import AmbiguousError, UnparseableError, UnsupportedError
from claw.planner.forms import Reference, Request
from claw.planner.grounding import color_of, ground, ground_region, type_of
from claw.planner.ordering import above, supports
from claw.skills.executor import SkillCall


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
        return self.objects(noun, default_type)[0]


def _movers(resolve: Resolver, nouns: list[Reference], what: str) -> list[str]:
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


def goals_and_pushes(
    requests: list[Request], names: list[str], world: WorldState | None = None
) -> tuple[list[Predicate], list[SkillCall]]:
    """Goal predicates for place, stack and pick requests; push calls for push requests.

    A later request about an object replaces holding it or setting it aside ("pick up the red
    block and put it in the box", "take it out of the box and put it on the blue block");
    "it"/"them" in a target refers to what the previous request named. Unstacking ("unstack the
    tower", "take the blocks off the red block", "put every block on the table") needs
    ``world``: each block resting on another goes next to its tower's base, and a block taken
    out of a box next to the box.

    Raises:
        UnknownObjectError: a noun phrase that matches no object of the scene.
        UnparseableError: a pronoun with nothing before it, or an ambiguous noun.
        UnsupportedError: carrying a box, or holding two objects at once.
    """
    resolve = Resolver(names, world)
    tower = _Tower()
    goal: list[Predicate] = []
    aside: list[Predicate] = []  # unstacked: next to their base unless asked to go elsewhere
    pushes: list[SkillCall] = []
    for request in requests:
        previous = list(resolve.last)
        if request.action == "push":
            pushed = [o for noun in request.objects for o in resolve.objects(noun, "block")]
            resolve.last = pushed
            for obj in pushed:
                args = {"object": obj, "direction": request.direction, "distance": request.distance}
                pushes.append(SkillCall(skill="push", args=args))
            continue
        if request.action == "note":  # what the instruction says is there: "it" next
            for noun in request.objects:
                resolve.objects(noun, "block")
            continue
        if request.action == "swap":
            goal.extend(g for g in _swap(request, resolve, world) if g not in goal)
            continue
        if request.action == "unstack":
            taken = [g for g in _unstack(request, resolve, world) if g not in goal]
            goal.extend(taken)
            aside.extend(taken)
            continue
        if request.relation == "together":
            goal.extend(g for g in _together(resolve, request.objects) if g not in goal)
            continue
        verb = {"pick": "pick up", "stack": "stack"}.get(request.action, "carry")
        movers = _movers(resolve, request.objects, verb)
        # a later request about an object replaces holding it or setting it aside
        goal = [
            g for g in goal if not (g.args[0] in movers and (g.name == "holding" or g in aside))
        ]
        if request.action == "pick":
            goal.extend(Predicate.of("holding", o) for o in movers)
            continue
        if request.relation == "at":
            region = request.region
            if request.region_ref is not None:
                region = ground_region(request.region_ref, names, world)
            if request.action == "stack" and len(movers) > 1:  # a tower at the region
                goal.append(Predicate.of("stacked", *movers))
            goal.extend(Predicate.of("at", o, region) for o in movers)
            continue
        if request.action == "stack" and request.target is None:
            if request.bottom is not None:  # "stack the blocks from the biggest to the smallest"
                goal.append(Predicate.of("stacked", *_by_size(movers, request, world)))
                continue
            if len(movers) > 1 and request.levels is None:
                goal.append(Predicate.of("stacked", *movers))
                continue
            tower.add(movers, request)  # one block at a time: "…, then the green block, …"
            continue
        assert request.target is not None
        if request.target.matching or request.target.mismatched:
            targets = resolve.objects(request.target.loosened(), "box")
            pairs = colour_pairs(movers, targets, same=request.target.matching, world=world)
            goal.extend(_goal(request.relation, obj, box, world) for obj, box in pairs)
            continue
        # "it" in the target is what an earlier request named, else what this one's objects
        # were named by ("the blocks with the same colour as the red box ... into it")
        landmarks = [n for n in resolve.mentioned if n not in movers][-1:]
        resolve.last = previous or landmarks or movers  # "the box closest to it": the mover
        if request.relation == "in" and request.target.every and len(movers) > 1:
            boxes = resolve.objects(request.target, "box")  # "in the boxes": spread over them
            resolve.last = movers
            goal.extend(Predicate.of("in", o, boxes[i % len(boxes)]) for i, o in enumerate(movers))
            continue
        target = resolve.one(request.target, "block" if request.relation == "on" else None)
        resolve.last = movers
        if target in movers:
            if not any(n.every for n in request.objects) or len(movers) == 1:
                raise UnparseableError(f"{target} cannot be placed relative to itself")
            movers = [o for o in movers if o != target]  # "all the blocks on the red block"
            resolve.last = movers
        if request.relation == "on" and type_of(target, world) == "block" and len(movers) > 1:
            goal.append(Predicate.of("stacked", target, *movers))  # a tower on the target
            continue
        goal.extend(_goal(request.relation, o, target, world) for o in movers)
    goal.extend(tower.goal())
    held = [str(g) for g in goal if g.name == "holding"]
    if len(held) > 1:
        raise UnsupportedError(
            f"the claw holds one object at a time, not {len(held)}: {', '.join(held)}"
        )
    return goal, pushes


class _Tower:
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


def _goal(relation: str, obj: str, target: str, world: WorldState | None) -> Predicate:
    """The goal predicate; on a box is in it (the predicates define it so), written as ``in``;
    "to" an object (its type unsaid: "the green thing") is into a box, else next to it."""
    if relation in ("on", "to") and type_of(target, world) == "box":
        relation = "in"
    elif relation == "to":
        relation = "next_to"
    return Predicate.of(relation, obj, target)


def _together(resolve: Resolver, nouns: list[Reference]) -> list[Predicate]:
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


def _unstack(request: Request, resolve: Resolver, world: WorldState | None) -> list[Predicate]:
    """``next_to(block, base)`` for each named block resting on a block, as high as it rests."""
    if world is None:
        raise UnsupportedError(f"unstacking needs the scene as it is: {request.text!r}")
    on_blocks = {o: s for o, s in supports(world).items() if type_of(s, world) == "block"}
    previous = list(resolve.last)
    named = _movers(resolve, request.objects, "unstack")
    if request.target is not None:
        resolve.last = previous
        base = resolve.one(request.target, "block")
        if type_of(base, world) == "box":  # "take the red block out of the box": next to it
            chosen = [o for o in named if evaluate(Predicate.of("in", o, base), world).holds]
            order = chosen
        else:  # "take the blocks off the red block": top first
            chosen = [o for o in above(base, on_blocks) if o in named]
            order = chosen[::-1]
        resolve.last = chosen or named
        return [Predicate.of("next_to", o, base) for o in order]
    goals: list[Predicate] = []
    for obj in sorted(named, key=lambda o: -world.get(o).bottom):  # top down
        if obj in on_blocks:
            base = obj
            while base in on_blocks:
                base = on_blocks[base]
            goals.append(Predicate.of("next_to", obj, base))
    return goals


def _by_size(movers: list[str], request: Request, world: WorldState | None) -> list[str]:
    """A tower's blocks bottom first, by size (blocks of one size in the scene's order)."""
    if world is None:
        raise UnsupportedError(f"a tower by size needs the scene as it is: {request.text!r}")
    if len(movers) < 2:
        raise UnparseableError(f"stacking needs two objects or more: {request.text!r}")
    sign = -1 if request.bottom == "big" else 1
    return sorted(movers, key=lambda o: sign * world.get(o).size)


def _swap(request: Request, resolve: Resolver, world: WorldState | None) -> list[Predicate]:
    """Two objects each in (or on) what holds the other: "swap the red and blue blocks".

    On the table, where the other stood is no predicate claw can check: ``unsupported``.
    """
    if world is None:
        raise UnsupportedError(f"swapping needs the scene as it is: {request.text!r}")
    pair = _movers(resolve, request.objects, "swap")
    if len(pair) != 2:
        raise UnparseableError(f"a swap takes two objects, not {', '.join(pair)}: {request.text!r}")
    (a, b), held = pair, supports(world)
    if a not in held or b not in held or held[a] == held[b]:
        where = " and ".join(f"{o} rests on {held.get(o, 'the table')}" for o in pair)
        raise UnsupportedError(
            f"{where}: a swap needs each in or on a different thing (where an object stood on "
            "the table is no goal claw can check); say where each goes"
        )
    return [_goal("on", a, held[b], world), _goal("on", b, held[a], world)]
