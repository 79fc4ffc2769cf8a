"""The offline planner: instruction → goal predicates → skill calls, deterministic, no network.

Goals come from the grammar (``claw.planner.grammar``) matched against the scene; steps come
from a small symbolic planner over the current state. It skips what already holds; orders the
goals so that each can be reached (a target is put in place before anything is placed relative
to it, so towers go bottom-up; an object resting on a target, or standing in a target region,
goes to its own place first; the held object's goal first, holding last); clears a block off
a target before stacking on it or picking it; makes room in a crowded region; and puts down
whatever the claw holds that no goal wants. Replanning is planning again from the state as it
now is (pushes that had not run yet are kept).
"""

from __future__ import annotations

import itertools

import numpy as np

from claw.envs.exceptions import ClawError
from claw.envs.predicates import AT_RADIUS, evaluate, parse_predicate
from claw.envs.regions import REGIONS, region_anchor
from claw.envs.state import WorldState
from claw.envs.tabletop import TabletopEnv
from claw.planner.exceptions import UnparseableError, UnsupportedError
from claw.planner.grammar import NounPhrase, Request, missing_object_error, parse_instruction
from claw.planner.plan import Plan
from claw.skills.exceptions import NoPlacement
from claw.skills.executor import SkillCall
from claw.skills.pick import held_object, supported_by
from claw.skills.placement import find_placement

REGION_CLEARING = 0.15  # m from a region's anchor: blocks this near may be moved to make room
BOX_MARGIN = 0.002  # m: a box this far inside a region's radius holds blocks ``at`` the region


class Resolver:
    """Matches noun phrases to the scene's objects, remembering what "it" refers to."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.last: list[str] = []

    def objects(self, noun: NounPhrase, default_type: str | None = None) -> list[str]:
        if noun.pronoun:
            if not self.last:
                raise UnparseableError(f"cannot tell what {noun.text or 'it'!r} refers to")
            return list(self.last)
        kind = noun.type or default_type
        found = [
            n
            for n in self.names
            if (noun.color is None or n.split("_")[0] == noun.color)
            and (kind is None or n.split("_")[1] == kind)
        ]
        if not found and noun.type is None and kind is not None:  # "the red one" may be a box
            found = [n for n in self.names if noun.color is None or n.startswith(noun.color)]
        if not found:
            raise missing_object_error(NounPhrase(noun.color, kind, text=noun.text), self.names)
        if not noun.every and len(found) > 1 and noun.color is None:
            raise UnparseableError(
                f"{noun.text!r} could be any of {', '.join(found)}; say which by its colour"
            )
        chosen = found if noun.every else found[:1]
        self.last = chosen
        return chosen

    def one(self, noun: NounPhrase, default_type: str | None = None) -> str:
        return self.objects(noun, default_type)[0]


def _movers(resolve: Resolver, nouns: list[NounPhrase], what: str) -> list[str]:
    """The objects a request moves; boxes cannot be picked up, so they cannot be carried."""
    movers: list[str] = []
    for noun in nouns:
        movers.extend(o for o in resolve.objects(noun, "block") if o not in movers)
    resolve.last = movers
    boxes = [o for o in movers if o.split("_")[1] == "box"]
    if boxes:
        raise UnsupportedError(
            f"the claw cannot {what} {', '.join(boxes)}: boxes are too wide to grasp "
            "(it picks up blocks; a box can only be pushed)"
        )
    return movers


def goals_and_pushes(
    requests: list[Request], names: list[str]
) -> tuple[list[str], list[SkillCall]]:
    """Goal predicates for place, stack and pick requests; push calls for push requests.

    A later request about an object replaces holding it ("pick up the red block and put it in
    the box"); "it"/"them" in a target refers to what the previous request named.

    Raises:
        UnknownObjectError: a noun phrase that matches no object of the scene.
        UnparseableError: a pronoun with nothing before it, or an ambiguous noun.
        UnsupportedError: carrying a box, or holding two objects at once.
    """
    resolve = Resolver(names)
    goal: list[str] = []
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
        verb = {"pick": "pick up", "stack": "stack"}.get(request.action, "carry")
        movers = _movers(resolve, request.objects, verb)
        goal = [g for g in goal if g not in {f"holding({o})" for o in movers}]
        if request.action == "pick":
            goal.extend(f"holding({o})" for o in movers)
            continue
        if request.relation == "at":
            goal.extend(f"at({o}, {request.region})" for o in movers)
            continue
        if request.action == "stack" and request.target is None:
            if len(movers) < 2:
                raise UnparseableError(f"stacking needs two objects or more: {request.text!r}")
            goal.append(f"stacked({', '.join(movers)})")
            continue
        assert request.target is not None
        if request.target.matching:
            for obj in movers:
                color = obj.split("_")[0]
                box = next((n for n in names if n.startswith(f"{color}_box")), None)
                if box is None:
                    continue  # no box of its colour: nothing to match
                goal.append(f"{request.relation}({obj}, {box})")
            continue
        resolve.last = previous  # "it" in the target is what an earlier request named
        target = resolve.one(request.target, "block" if request.relation == "on" else None)
        resolve.last = movers
        if target in movers:
            if not any(n.every for n in request.objects) or len(movers) == 1:
                raise UnparseableError(f"{target} cannot be placed relative to itself")
            movers = [o for o in movers if o != target]  # "all the blocks on the red block"
            resolve.last = movers
        if request.relation == "on" and target.split("_")[1] == "block" and len(movers) > 1:
            goal.append(f"stacked({', '.join([target, *movers])})")  # a tower on the target
            continue
        goal.extend(f"{request.relation}({o}, {target})" for o in movers)
    held = [g for g in goal if g.startswith("holding(")]
    if len(held) > 1:
        raise UnsupportedError(
            f"the claw holds one object at a time, not {len(held)}: {', '.join(held)}"
        )
    return goal, pushes


def _tower_order(names: list[str], world: WorldState) -> list[str]:
    """Bottom-up order for ``stacked(names)``: keep a tower that is already there."""
    base = names[0]
    for name in names:  # the lowest object of the group that others already rest on
        obj = world.get(name)
        if obj.bottom <= world.table_z + 0.01 and any(
            evaluate(f"on({o}, {name})", world).holds for o in names if o != name
        ):
            base = name
            break
    order = [base]
    while len(order) < len(names):
        top = order[-1]
        above = [o for o in names if o not in order and evaluate(f"on({o}, {top})", world).holds]
        if not above:
            break
        order.append(above[0])
    order.extend(n for n in names if n not in order)
    return order


def _moves(text: str) -> set[str]:
    """The objects a goal predicate has the claw carry."""
    predicate = parse_predicate(text)
    if predicate.name == "stacked":
        return set(predicate.args)
    return {predicate.args[0]}


def _targets(text: str) -> set[str]:
    """The objects a goal predicate places things relative to."""
    predicate = parse_predicate(text)
    if predicate.name == "stacked":
        return set(predicate.args)
    if predicate.name in ("at", "holding"):
        return set()
    return {predicate.args[1]}


def order_goals(goal: list[str], world: WorldState) -> list[str]:
    """The goal's predicates in an order in which they can be reached one after another.

    A target is put in its place before anything is placed relative to it (towers bottom-up);
    an object resting on a target goes to its own place before the target is used; a goal for
    the held object comes first, and holding an object comes last. Otherwise the order is the
    instruction's.
    """
    held = held_object(world)
    resting = {name: set(supported_by(world, name)) for name in world.objects}
    after: dict[int, set[int]] = {i: set() for i in range(len(goal))}  # i waits for these
    for i, text in enumerate(goal):
        blockers = set().union(*(resting.get(t, set()) for t in _targets(text)))
        if text.startswith("at("):  # objects standing in the region go to their places first
            anchor = np.array(region_anchor(parse_predicate(text).args[1]))
            blockers |= {n for n, o in world.objects.items()
                         if float(np.linalg.norm(o.xy - anchor)) < REGION_CLEARING}  # fmt: skip
        for j, other in enumerate(goal):
            if i == j or _moves(other) & _moves(text) == _moves(other):
                continue
            if _moves(other) & _targets(text) or _moves(other) & blockers:
                after[i].add(j)

    def rank(i: int) -> tuple[int, int]:
        text = goal[i]
        if text.startswith("holding("):
            return (2, i)
        return (0 if held in _moves(text) else 1, i)

    order: list[int] = []
    while len(order) < len(goal):
        left = [i for i in range(len(goal)) if i not in order]
        ready = [i for i in left if after[i] <= set(order)] or left  # a cycle: instruction order
        order.append(min(ready, key=rank))
    return [goal[i] for i in order]


def _without(world: WorldState, names: set[str]) -> WorldState:
    """The world with these objects taken away (to ask where things would fit then)."""
    kept = {n: o for n, o in world.objects.items() if n not in names}
    return WorldState(objects=kept, gripper=world.gripper, table_z=world.table_z)


def _fits(world: WorldState, obj: str, relation: str, target: str) -> bool:
    try:
        find_placement(world, obj, relation, target)
    except (NoPlacement, ClawError):
        return False
    return True


def clear_region(
    world: WorldState, obj: str, region: str, keep: set[str], taken: set[str]
) -> list[SkillCall]:
    """Steps that move blocks out of ``region`` when nothing else lets ``obj`` fit there.

    Blocks nearest the region's anchor go first, as few as make room; each goes to the nearest
    other region with room that no goal uses. ``keep`` are objects the goal moves anyway.
    Nothing is moved when clearing blocks would not make room (a box is in the way).
    """
    if _fits(world, obj, "at", region):
        return []
    anchor = np.array(region_anchor(region))

    def distance(name: str) -> float:
        return float(np.linalg.norm(world.get(name).xy - anchor))

    near = sorted(
        (
            name
            for name, o in world.objects.items()
            if o.type == "block" and name != obj and name not in keep
            if distance(name) < REGION_CLEARING and not supported_by(world, name)
        ),
        key=distance,
    )
    moved: list[str] = []
    for name in near:
        moved.append(name)
        if _fits(_without(world, set(moved)), obj, "at", region):
            break
    else:
        return []
    calls: list[SkillCall] = []
    for name in moved:
        here = world.get(name).xy
        free = [r for r in REGIONS if r != region and r not in taken]
        others = sorted(
            (r for r in free if np.linalg.norm(np.array(REGIONS[r]) - anchor) > 2 * AT_RADIUS),
            key=lambda r: float(np.linalg.norm(np.array(REGIONS[r]) - here)),
        )
        away = next((r for r in others if _fits(world, name, "at", r)), None)
        if away is None:
            return []
        taken = taken | {away}
        calls.append(SkillCall(skill="pick", args={"object": name}))
        calls.append(SkillCall(skill="place", args={"target": away, "relation": "at"}))
    return calls


def box_in_region(world: WorldState, obj: str, region: str) -> str | None:
    """A box standing on the region's anchor that ``obj`` fits in, when the region has no room.

    A block in a box whose centre is this near the anchor is ``at`` the region (the predicate
    asks for the centre within 6 cm): when a box fills the region, the block goes in it.
    """
    if _fits(world, obj, "at", region):
        return None
    anchor = np.array(region_anchor(region))
    for name, box in world.objects.items():
        if box.type != "box" or float(np.linalg.norm(box.xy - anchor)) > AT_RADIUS - BOX_MARGIN:
            continue
        if _fits(world, obj, "in", name):
            return name
    return None


class OfflinePlanner:
    """Grammar + symbolic planner; the default, deterministic and offline."""

    name = "offline"

    def plan(self, instruction: str, env: TabletopEnv) -> Plan:
        """Read the instruction and plan from the current state.

        Raises:
            UnparseableError, UnsupportedError, UnknownObjectError: before anything moves.
        """
        requests = parse_instruction(instruction)
        goal, pushes = goals_and_pushes(requests, env.object_names)
        for text in goal:
            parse_predicate(text)
        # pushes asked for before anything else run first; the others after the goal's steps
        leading = next((i for i, r in enumerate(requests) if r.action != "push"), len(requests))
        first = len(goals_and_pushes(requests[:leading], env.object_names)[1])
        steps = [*pushes[:first], *self.steps(goal, env.world_state()), *pushes[first:]]
        return Plan(goal=goal, steps=steps)

    def replan(
        self, instruction: str, plan: Plan, env: TabletopEnv, failure: object = None
    ) -> Plan:
        """Plan again from the state as it is now, for what remains of the goal.

        Pushes of the old plan that had not run yet (after the failed step) are kept; a failed
        push is not repeated (how far it moved the object is not a goal the planner can check).
        """
        steps = self.steps(plan.goal, env.world_state())
        if isinstance(failure, tuple) and failure and isinstance(failure[0], int):
            steps.extend(call for call in plan.steps[failure[0] :] if call.skill == "push")
        return Plan(goal=plan.goal, steps=steps)

    def steps(self, goal: list[str], world: WorldState) -> list[SkillCall]:
        """Skill calls that reach ``goal`` from ``world``, skipping what already holds."""
        calls: list[SkillCall] = []
        held = held_object(world)
        pending = order_goals(goal, world)

        def move(obj: str, relation: str, target: str, near: str | None = None) -> None:
            nonlocal held
            if held is not None and held != obj:
                calls.append(SkillCall(skill="place", args={"target": "center", "relation": "at"}))
                held = None
            for above in supported_by(world, obj):
                calls.append(SkillCall(skill="pick", args={"object": above}))
                calls.append(SkillCall(skill="place", args={"target": obj, "relation": "next_to"}))
            if held != obj:
                calls.append(SkillCall(skill="pick", args={"object": obj}))
            args = {"target": target, "relation": relation}
            if near is not None:
                args["near"] = near
            calls.append(SkillCall(skill="place", args=args))
            held = None

        for text in pending:
            predicate = parse_predicate(text)
            if evaluate(predicate, world).holds:
                continue
            if predicate.name == "holding":
                obj = predicate.args[0]
                if held != obj:
                    if held is not None:
                        calls.append(
                            SkillCall(skill="place", args={"target": "center", "relation": "at"})
                        )
                    calls.append(SkillCall(skill="pick", args={"object": obj}))
                    held = obj
                continue
            if predicate.name == "stacked":
                order = _tower_order(list(predicate.args), world)
                for below, above in itertools.pairwise(order):
                    if evaluate(f"on({above}, {below})", world).holds:
                        continue
                    move(above, "on", below)
                continue
            obj, target = predicate.args
            if predicate.name == "at":
                keep = {o for g in goal for o in _moves(g)}
                taken = {parse_predicate(g).args[1] for g in goal if g.startswith("at(")}
                clearing = clear_region(world, obj, target, keep, taken)
                box = None if clearing else box_in_region(world, obj, target)
                if box is not None:
                    move(obj, "in", box, near=target)  # in the box, as near the anchor as fits
                    continue
                calls.extend(clearing)
            if predicate.name == "on":
                for other in supported_by(world, target):
                    if other != obj:
                        calls.append(SkillCall(skill="pick", args={"object": other}))
                        calls.append(
                            SkillCall(skill="place", args={"target": target, "relation": "next_to"})
                        )
            move(obj, predicate.name, target)
        if held is not None and not any(p.startswith("holding(") for p in goal):
            calls.append(SkillCall(skill="place", args={"target": "center", "relation": "at"}))
        return calls
