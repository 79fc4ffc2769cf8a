"""The offline planner: instruction → goal predicates → skill calls, deterministic, no network.

Goals come from the grammar (``claw.planner.grammar``) matched against the scene; steps come
from a small symbolic planner over the current state: it skips what already holds, builds towers
bottom-up, clears a block before stacking on it or picking it, and puts down whatever the claw
holds before doing anything else. Replanning is planning again from the state as it now is.
"""

from __future__ import annotations

import itertools

from claw.envs.predicates import evaluate, parse_predicate
from claw.envs.state import WorldState
from claw.envs.tabletop import TabletopEnv
from claw.planner.grammar import (
    NounPhrase,
    Request,
    UnparseableError,
    missing_object_error,
    parse_instruction,
)
from claw.planner.plan import Plan
from claw.skills.executor import SkillCall
from claw.skills.pick import held_object, supported_by


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


def goals_and_pushes(
    requests: list[Request], names: list[str]
) -> tuple[list[str], list[SkillCall]]:
    """Goal predicates for place, stack and pick requests; push calls for push requests."""
    resolve = Resolver(names)
    goal: list[str] = []
    pushes: list[SkillCall] = []
    for request in requests:
        if request.action == "push":
            for obj in resolve.objects(request.objects[0], "block"):
                args = {"object": obj, "direction": request.direction, "distance": request.distance}
                pushes.append(SkillCall(skill="push", args=args))
            continue
        movers = [o for noun in request.objects for o in resolve.objects(noun, "block")]
        if request.action == "pick":
            goal.extend(f"holding({o})" for o in movers[:1])
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
        saved = resolve.last
        target = resolve.one(request.target, "block" if request.relation == "on" else None)
        resolve.last = saved
        if target in movers:
            raise UnparseableError(f"{target} cannot be placed relative to itself")
        if request.relation == "on" and target.split("_")[1] == "block" and len(movers) > 1:
            goal.append(f"stacked({', '.join([target, *movers])})")  # a tower on the target
            continue
        goal.extend(f"{request.relation}({o}, {target})" for o in movers)
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
        plan = Plan(goal=goal, steps=self.steps(goal, env.world_state()))
        plan.steps.extend(pushes)
        return plan

    def replan(
        self, instruction: str, plan: Plan, env: TabletopEnv, failure: object = None
    ) -> Plan:
        """Plan again from the state as it is now, for what remains of the goal."""
        return Plan(goal=plan.goal, steps=self.steps(plan.goal, env.world_state()))

    def steps(self, goal: list[str], world: WorldState) -> list[SkillCall]:
        """Skill calls that reach ``goal`` from ``world``, skipping what already holds."""
        calls: list[SkillCall] = []
        held = held_object(world)
        pending = list(goal)

        def move(obj: str, relation: str, target: str) -> None:
            nonlocal held
            if held is not None and held != obj:
                calls.append(SkillCall(skill="place", args={"target": "center", "relation": "at"}))
                held = None
            for above in supported_by(world, obj):
                calls.append(SkillCall(skill="pick", args={"object": above}))
                calls.append(SkillCall(skill="place", args={"target": obj, "relation": "next_to"}))
            if held != obj:
                calls.append(SkillCall(skill="pick", args={"object": obj}))
            calls.append(SkillCall(skill="place", args={"target": target, "relation": relation}))
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
