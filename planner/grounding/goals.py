"""The grounding stage: requests + the scene -> goal predicates (:func:`ground_requests`, a
:class:`~claw.planner.language.forms.Grounding`): each clause's noun phrases grounded on the scene,
the goal its action asks for, and the goal split where pushes were asked for, all in one pass over
the requests (:mod:`claw.planner.steps.writer` writes the steps that reach it); the goals of each
kind of request come from :mod:`claw.planner.grounding.arrangements`.

A later request about an object replaces holding it or setting it aside; "it"/"them" refers to
what the previous request named; a push asked for stays a skill call, in its place.
"""

from __future__ import annotations

from collections.abc import Callable

from claw.common.exceptions import ClawError
from claw.envs.exceptions import PredicateError
from claw.envs.predicates import NOT, Predicate
from claw.envs.state import WorldState
from claw.planner.exceptions import AmbiguousError, UnparseableError, UnsupportedError
from claw.planner.grounding import pushing
from claw.planner.grounding.arrangements import (
    TARGET_TYPES,
    Resolver,
    Tower,
    by_size,
    colour_pairs,
    movers_of,
    relation_goal,
    stacks_by_colour,
    swap_goals,
    together_goals,
    unstack_goals,
)
from claw.planner.grounding.conflicts import check_conflicts, check_pushes
from claw.planner.grounding.references import ground_region, type_of
from claw.planner.language import lexicon
from claw.planner.language.forms import Grounding, Reference, Request, Segment
from claw.skills import SkillCall


def ground_requests(
    requests: list[Request], names: list[str], world: WorldState | None = None
) -> Grounding:
    """The goal the requests ask for on this scene, split where pushes were asked for.

    Each push runs after the goals of the requests before it (pushes that would move what they
    placed are refused), the goals of later requests after it.

    Raises:
        UnknownObjectError, UnparseableError, UnsupportedError: as :func:`goals_and_pushes`;
            UnsupportedError also for goals no order reaches and a push that undoes a goal.
    """
    grounder = _Grounder(names, world)
    goal, pushes = grounder.ground(requests)
    check_conflicts(goal)
    segments: list[Segment] = []
    assigned: list[Predicate] = []
    count = 0
    waypoints = [w for w in grounder.waypoints if w not in goal]
    pool = goal + waypoints
    for before, total in grounder.at_pushes:
        if isinstance(before, ClawError):  # the requests before the push cannot be reached
            raise before
        part = [g for g in pool if g in before and g not in assigned]
        check_pushes(assigned + part, pushes[count:total])
        checks = [g for g in part if g in waypoints]
        reached = [g for i, g in grounder.push_goals if count <= i < total]
        segments.append(Segment(part, pushes[count:total], reached, checks))
        assigned.extend(part)
        count = total
    segments.append(Segment([g for g in goal if g not in assigned], []))
    return Grounding(goal=goal, segments=segments)


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
    return _Grounder(names, world).ground(requests)


def _said_push(request: Request) -> bool:
    """Whether a push request's clause says a push verb ("slide it towards ..."), not a
    place verb the reader took as one ("move it towards ...")."""
    return bool(set(request.text.split()[:2]) & _PUSH_WORDS)


_PUSH_WORDS = {verb.split()[0] for verb in lexicon.PUSH_VERBS}


def _generic(ref: Reference) -> bool:
    """Whether a phrase names an object by its type alone ("the block", "the cube")."""
    return ref.quantity == "one" and not (ref.anaphoric or ref.colors or ref.family or ref.filters)


class _Grounder:
    """The goal and pushes of the requests read so far, one request at a time."""

    def __init__(self, names: list[str], world: WorldState | None) -> None:
        self.names, self.world = names, world
        self.resolve = Resolver(names, world)
        self.tower = Tower()
        self.goal: list[Predicate] = []
        self.aside: list[Predicate] = []  # unstacked: next to their base unless asked elsewhere
        self.pushes: list[SkillCall] = []
        # at each push or waypoint: the goal of the requests before it (or why it fails), the
        # pushes so far
        self.at_pushes: list[tuple[list[Predicate] | ClawError, int]] = []
        self.turn = 0
        self.turn_of: dict[str, int] = {}  # each goal's turn (a part of the instruction)
        self.waypoints: list[Predicate] = []  # goals a later turn superseded
        self.push_goals: list[tuple[int, Predicate]] = []  # (a push's index, the goal it reaches)

    def ground(self, requests: list[Request]) -> tuple[list[Predicate], list[SkillCall]]:
        """Every request's goals and pushes, then the goal checked whole."""
        for request in requests:
            self.add(request)
        return self.result(), self.pushes

    def result(self) -> list[Predicate]:
        """The goal so far, a tower named a level at a time included.

        Raises:
            UnsupportedError: holding two objects at once.
        """
        goal = [*self.goal, *self.tower.goal()]
        held = [str(g) for g in goal if g.name == "holding"]
        if len(held) > 1:
            raise UnsupportedError(
                f"the claw holds one object at a time, not {len(held)}: {', '.join(held)}"
            )
        return goal

    def add(self, request: Request) -> None:
        """One request's goals (or pushes)."""
        handler = _HANDLERS.get(request.action)
        if handler is None:
            handler = _Grounder._together if request.relation == "together" else _Grounder._carry
        self.turn = request.turn
        handler(self, request)
        for goal in self.goal:
            self.turn_of.setdefault(str(goal), request.turn)

    def _replace_held(self, movers: list[str]) -> None:
        """A later request about an object replaces holding it or setting it aside."""
        self.goal = [
            g
            for g in self.goal
            if not (g.args[0] in movers and (g.name == "holding" or g in self.aside))
        ]

    def _supersede(self, movers: list[str]) -> None:
        """Goals of earlier turns about what this request moves become waypoints: reached in
        their turn, not checked at the end ("move it to the left side, then onto the red
        block")."""
        stale = [
            g
            for g in self.goal
            if self.turn_of.get(str(g), self.turn) < self.turn
            and g.name != "holding"
            and g not in self.aside
            and set(g.args[1:] if g.name == "stacked" else g.args[:1]) & set(movers)
        ]
        if not stale:
            return
        try:
            before: list[Predicate] | ClawError = self.result()
        except ClawError as exc:
            before = exc
        self.at_pushes.append((before, len(self.pushes)))
        self.goal = [g for g in self.goal if g not in stale]
        self.waypoints.extend(stale)

    def _extend(self, goals: list[Predicate]) -> None:
        """Add the goals not asked for yet (nor earlier in ``goals``)."""
        self.goal.extend(g for g in goals if g not in self.goal)

    def _push(self, request: Request) -> None:
        try:
            before: list[Predicate] | ClawError = self.result()
        except ClawError as exc:
            before = exc
        previous = list(self.resolve.last)
        pushed = [o for noun in request.objects for o in self.resolve.objects(noun, "block")]
        if request.relation not in (None, "towards", "away"):  # pushed until it holds
            self.resolve.last = previous
            if not self._push_until(request, pushed):
                self.resolve.last = previous
                self._carry(request.model_copy(update={"action": "place"}))
                return
        elif request.target is not None:  # towards / away from an object: the scene's way
            self.resolve.last = previous
            try:
                self.pushes.extend(self._pushes_about(request, pushed))
            except UnsupportedError as exc:  # "move it towards the box": a push read, not said
                exc.from_reading = exc.from_reading or not _said_push(request)
                raise
        else:
            for obj in pushed:
                args = {"object": obj, "direction": request.direction, "distance": request.distance}
                self.pushes.append(SkillCall(skill="push", args=args))
        self.resolve.last = pushed
        self.at_pushes.append((before, len(self.pushes)))

    def _push_until(self, request: Request, pushed: list[str]) -> bool:
        """Pushes after which the request's relation holds, and its goals; False (nothing
        added) when some push cannot reach it, to be placed instead."""
        assert request.relation is not None and request.target is not None
        if self.world is None:
            return False
        refs = self._targets(request, pushed)
        try:
            moves = [pushing.push_until(self.world, o, request.relation, refs) for o in pushed]
        except (UnsupportedError, PredicateError):
            return False
        for obj, move in zip(pushed, moves, strict=True):
            goal = Predicate.of(request.relation, obj, *refs)
            if move.needed:
                self.pushes.append(move.call())
                self.push_goals.append((len(self.pushes) - 1, goal))
            self.goal.append(goal)
        return True

    def _pushes_about(self, request: Request, pushed: list[str]) -> list[SkillCall]:
        """The pushes that bring each object towards, or away from, the target object."""
        assert request.target is not None
        if self.world is None:
            raise UnsupportedError(f"a push towards an object needs the scene: {request.text!r}")
        ref = self.resolve.one(request.target)
        calls: list[SkillCall] = []
        for obj in pushed:
            if request.relation == "away":
                away = request.distance or pushing.AWAY_DISTANCE
                move = pushing.push_away(self.world, obj, ref, away)
            else:
                move = pushing.push_towards(self.world, obj, ref, request.distance)
            if move.needed:
                calls.append(move.call())
        return calls

    def _note(self, request: Request) -> None:
        for noun in request.objects:  # what the instruction says is there: "it" next
            self.resolve.objects(noun, "block")

    def _swap(self, request: Request) -> None:
        self._extend(swap_goals(request, self.resolve, self.world))

    def _unstack(self, request: Request) -> None:
        planned = {g.args[0]: g.args[1] for g in self.goal if g.name in ("in", "on")}
        goals = unstack_goals(request, self.resolve, self.world, planned)
        taken = [g for g in goals if g not in self.goal]
        self._supersede([g.args[0] for g in taken])  # "put it in the box, then take it out"
        self._replace_held([g.args[0] for g in taken])  # "pick it up and put it on the table"
        self.goal.extend(taken)
        self.aside.extend(taken)

    def _together(self, request: Request) -> None:
        self._extend(together_goals(self.resolve, request.objects))

    def _carry(self, request: Request) -> None:
        """A place, stack or pick request: what it moves, and where."""
        previous = list(self.resolve.last)
        verb = {"pick": "pick up", "stack": "stack"}.get(request.action, "carry")
        movers = movers_of(self.resolve, request.objects, verb)
        if not movers:  # nothing to carry: the request would be dropped without a word
            raise UnparseableError(f"cannot tell what {request.text!r} moves")
        self._supersede(movers)
        self._replace_held(movers)
        if request.action == "pick":
            self.goal.extend(Predicate.of("holding", o) for o in movers)
        elif request.relation == "at":
            self._at_region(request, movers)
        elif request.relation == "between":
            self._between(request, movers, previous)
        elif request.relation == "apart":
            self._apart(request, movers, previous)
        elif request.action == "stack" and request.target is None:
            self._free_tower(request, movers)
        elif request.target is not None and (request.target.matching or request.target.mismatched):
            assert request.relation is not None
            targets = self.resolve.objects(request.target.loosened(), "box")
            pairs = colour_pairs(movers, targets, same=request.target.matching, world=self.world)
            self.goal.extend(
                relation_goal(request.relation, o, box, self.world) for o, box in pairs
            )
        else:
            self._relative(request, movers, previous)

    def _between(self, request: Request, movers: list[str], previous: list[str]) -> None:
        """Movers between two objects: named one by one, or by one phrase of two."""
        self.resolve.last = previous or movers
        pair = self._targets(request, movers)
        self.resolve.last = movers
        self.goal.extend(Predicate.of("between", o, *pair) for o in movers)

    def _apart(self, request: Request, movers: list[str], previous: list[str]) -> None:
        """Movers apart from the target (not next to it), or two movers apart from each other."""
        if request.target is None:
            if len(movers) != 2:
                raise AmbiguousError(f"what should stand apart in {request.text!r}? name two "
                                     f"objects, or one and what it moves away from, not "
                                     f"{', '.join(movers)}")  # fmt: skip
            movers, target = movers[:1], movers[1]
            targets = [target]
        else:  # apart from several: from each of them
            self.resolve.last = previous or movers
            targets = [t for t in self.resolve.objects(request.target) if t not in movers]
            self.resolve.last = movers
        self.goal.extend(
            Predicate.of(NOT, str(Predicate.of("next_to", o, t))) for o in movers for t in targets
        )

    def _targets(self, request: Request, movers: list[str]) -> list[str]:
        """What a relation places ``movers`` relative to: its target, or for ``between`` the
        two objects (named one by one, or by one phrase of two)."""
        assert request.target is not None
        if request.relation != "between":
            return [self.resolve.one(request.target)]
        if request.target2 is not None:
            pair = [self.resolve.one(request.target), self.resolve.one(request.target2)]
        else:
            pair = self.resolve.objects(request.target)
        if len(pair) != 2 or pair[0] == pair[1] or set(pair) & set(movers):
            raise UnparseableError(
                f"between needs two other objects, not {', '.join(pair)}: {request.text!r}"
            )
        return pair

    def _at_region(self, request: Request, movers: list[str]) -> None:
        """Movers at a table region (a tower there, for a stack of several)."""
        region = request.region
        if request.region_ref is not None:
            region = ground_region(request.region_ref, self.names, self.world)
        assert region is not None
        if request.action == "stack" and len(movers) > 1:
            self.goal.append(Predicate.of("stacked", *movers))
        self.goal.extend(Predicate.of("at", o, region) for o in movers)

    def _free_tower(self, request: Request, movers: list[str]) -> None:
        """A stack with no base named: by size, all at once, or a block at a time."""
        if request.bottom is not None:  # "stack the blocks from the biggest to the smallest"
            self.goal.append(Predicate.of("stacked", *by_size(movers, request, self.world)))
        elif any(r.matching for r in request.objects):  # "stack the same coloured blocks"
            self.goal.extend(stacks_by_colour(movers, self.world))
        elif len(movers) > 1 and request.levels is None:
            self.goal.append(Predicate.of("stacked", *movers))
        else:
            self.tower.add(movers, request)  # one block at a time: "…, then the green block, …"

    def _relative(self, request: Request, movers: list[str], previous: list[str]) -> None:
        """Movers placed relative to a target object (on, in, next to, left of, ...)."""
        assert request.target is not None and request.relation is not None
        resolve = self.resolve
        # "it" in the target is what an earlier request named, else what this one's objects
        # were named by ("the blocks with the same colour as the red box ... into it")
        landmarks = [n for n in resolve.mentioned if n not in movers][-1:]
        resolve.last = previous or landmarks or movers  # "the box closest to it": the mover
        if request.relation == "in" and request.target.every and len(movers) > 1:
            boxes = resolve.objects(request.target, "box")  # "in the boxes": spread over them
            resolve.last = movers
            self.goal.extend(
                Predicate.of("in", o, boxes[i % len(boxes)]) for i, o in enumerate(movers)
            )
            return
        kind = TARGET_TYPES.get(request.relation)
        if request.relation == "on" and request.target.every:  # "all the blocks on top of each
            targets = resolve.objects(request.target, kind)  # other": a tower of them, the
            if set(targets) >= set(movers):  # first at the bottom
                resolve.last = movers
                self.goal.append(Predicate.of("stacked", *targets))
                return
            resolve.last = previous or landmarks or movers
        target = resolve.one(request.target, kind)
        if movers == [target] and _generic(request.target):
            # "the blue block next to the block": not the one it moves but one of the others
            resolve.mentioned = movers
            target = resolve.one(request.target.model_copy(update={"other": True}), kind)
        resolve.last = movers
        if request.action == "stack" and len(movers) > 1 and type_of(target, self.world) == "box":
            raise UnsupportedError(  # read as a place in the box, the stacking would be lost
                f"claw reads no stack inside a box ({request.text!r}); stack them, then say "
                "where the tower goes, or put each in the box",
                from_reading=True,
            )
        if target in movers:
            if not any(n.every for n in request.objects) or len(movers) == 1:
                raise UnparseableError(f"{target} cannot be placed relative to itself")
            movers = [o for o in movers if o != target]  # "all the blocks on the red block"
            resolve.last = movers
        if request.relation == "on" and type_of(target, self.world) == "block" and len(movers) > 1:
            self.goal.append(Predicate.of("stacked", target, *movers))  # a tower on the target
            return
        self.goal.extend(relation_goal(request.relation, o, target, self.world) for o in movers)


_HANDLERS: dict[str, Callable[[_Grounder, Request], None]] = {
    "push": _Grounder._push,
    "note": _Grounder._note,
    "swap": _Grounder._swap,
    "unstack": _Grounder._unstack,
}
"""The grounding of each action that is neither a place, a stack nor a pick."""
