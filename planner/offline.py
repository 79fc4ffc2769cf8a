"""The offline planner: instruction → goal predicates → skill calls, deterministic, no network.

Goals come from the grammar (``claw.planner.grammar``) matched against the scene
(``claw.planner.goals``); steps come
from a small symbolic planner over the current state. It skips what already holds; orders the
goals so that each can be reached (a target is put in place before anything is placed relative
to it, so towers go bottom-up; an object resting on a target, or standing in a target region,
goes to its own place first; the held object's goal first, holding last); clears a block off
a target before stacking on it or picking it; makes room in a crowded region; and puts down
whatever the claw holds that no goal wants. What rests on what is tracked as the steps are
planned, so a block is cleared top-down (a tower is taken apart from its top) and only once.
Pushes run where the instruction asked for them, between the goals of the requests before and
after; ordering and the conflicts no order can reach are in ``claw.planner.ordering``.
"Unstack the tower", "take the blocks off the red block" and "put every block on the table"
put each block resting on another next to its tower's base. Replanning is planning again from
the state as it now is (pushes that had not run yet are kept, at the end).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from claw.envs.predicates import Predicate, evaluate
from claw.envs.regions import REGIONS
from claw.envs.state import WorldState
from claw.envs.tabletop import TabletopEnv
from claw.planner.forms import Request
from claw.planner.goals import goals_and_pushes
from claw.planner.grammar import parse_instruction
from claw.planner.ordering import (
    above,
    check_conflicts,
    check_pushes,
    moves,
    order_goals,
    supports,
    tower_order,
)
from claw.planner.plan import Failure, Plan
from claw.planner.room import box_in_region, clear_region, fits, stack_base
from claw.skills.executor import SkillCall
from claw.skills.pick import held_object


class OfflinePlanner:
    """Grammar + symbolic planner; the default, deterministic and offline."""

    name = "offline"

    def plan(self, instruction: str, env: TabletopEnv) -> Plan:
        """Read the instruction and plan from the current state.

        Steps keep the instruction's order where it gives one: a push runs where it was asked
        for (before the goals of later requests, after those of earlier ones).

        Raises:
            UnparseableError, UnsupportedError, UnknownObjectError: before anything moves.
        """
        requests = parse_instruction(instruction)
        world = env.world_state()
        goal = goals_and_pushes(requests, env.object_names, world)[0]
        check_conflicts(goal)
        segments = _segments(requests, env.object_names, world, goal)
        return Plan(goal=goal, steps=self._steps(segments, world, goal))

    def replan(
        self, instruction: str, plan: Plan, env: TabletopEnv, failure: Failure | None = None
    ) -> Plan:
        """Plan again from the state as it is now, for what remains of the goal.

        Pushes of the old plan that had not run yet (after the failed step) are kept; a failed
        push is not repeated (how far it moved the object is not a goal the planner can check).
        """
        steps = self.steps(plan.goal, env.world_state())
        if failure is not None:
            steps.extend(call for call in plan.steps[failure.step :] if call.skill == "push")
        return Plan(goal=plan.goal, steps=steps)

    def steps(self, goal: list[Predicate], world: WorldState) -> list[SkillCall]:
        """Skill calls that reach ``goal`` from ``world``, skipping what already holds."""
        return self._steps([(goal, [])], world, goal)

    def _steps(
        self,
        segments: list[tuple[list[Predicate], list[SkillCall]]],
        world: WorldState,
        goal: list[Predicate],
    ) -> list[SkillCall]:
        """Steps for each segment's goals (ordered), then its pushes, tracking what rests where."""
        calls: list[SkillCall] = []
        held = held_object(world)
        below = supports(world)  # what each object rests on, as the planned steps leave it
        moved: set[str] = set()
        placed: dict[str, tuple[str, str]] = {}
        keep = {o for g in goal for o in moves(g)}
        taken = {g.args[1] for g in goal if g.name == "at"}

        def holds(predicate: Predicate) -> bool:
            args = list(predicate.args)
            if not set(args) & moved:
                return evaluate(predicate, world).holds
            if predicate.name == "holding":
                return held == args[0]
            if predicate.name in ("on", "in"):
                return below.get(args[0]) == args[1]
            if predicate.name == "stacked":
                return all(below.get(u) == b for b, u in itertools.pairwise(args))
            return placed.get(args[0]) == (predicate.name, args[1])

        def aside(name: str, obj: str) -> tuple[str, str]:
            """Where a block on ``obj`` goes before ``obj`` is picked: a free region away from
            it (next to it, it could leave no room for the fingers), else next to it."""
            here = world.get(obj).xy
            free = sorted(
                (
                    r
                    for r in REGIONS
                    if r not in taken and np.linalg.norm(np.array(REGIONS[r]) - here) > 0.1
                ),
                key=lambda r: float(np.linalg.norm(np.array(REGIONS[r]) - here)),
            )
            region = next((r for r in free if fits(world, name, "at", r)), None)
            if region is None:
                return ("next_to", obj)
            taken.add(region)
            return ("at", region)

        def put_down() -> None:
            nonlocal held
            if held is not None:
                calls.append(SkillCall(skill="place", args={"target": "center", "relation": "at"}))
                below.pop(held, None)
                moved.add(held)
                placed[held] = ("at", "center")
                held = None

        def move(obj: str, relation: str, target: str, near: str | None = None) -> None:
            nonlocal held
            if held is not None and held != obj:
                put_down()
            if held != obj:
                for top in reversed(above(obj, below)):  # what rests on it goes first, top down
                    move(top, *aside(top, obj))
                calls.append(SkillCall(skill="pick", args={"object": obj}))
            args = {"target": target, "relation": relation}
            if near is not None:
                args["near"] = near
            calls.append(SkillCall(skill="place", args=args))
            below.pop(obj, None)
            if relation in ("on", "in"):
                below[obj] = target
            moved.add(obj)
            placed[obj] = (relation, target)
            held = None

        for part, pushes in segments:
            for predicate in order_goals(part, world):
                if holds(predicate):
                    continue
                if predicate.name == "holding":
                    obj = predicate.args[0]
                    if held != obj:
                        put_down()
                        for top in reversed(above(obj, below)):
                            move(top, *aside(top, obj))
                        calls.append(SkillCall(skill="pick", args={"object": obj}))
                        below.pop(obj, None)
                        moved.add(obj)
                        held = obj
                    continue
                if predicate.name == "stacked":
                    order = tower_order(list(predicate.args), world)
                    for base, top in itertools.pairwise(order):
                        if not holds(Predicate.of("on", top, base)):
                            self._stack(top, base, below, move)
                    continue
                obj, target = predicate.args
                if predicate.name == "at" and not fits(world, obj, "at", target):
                    clearing = clear_region(world, obj, target, keep, taken)
                    calls.extend(clearing)
                    moved.update(c.args["object"] for c in clearing if c.skill == "pick")
                    box = None if clearing else box_in_region(world, obj, target)
                    if box is not None:
                        move(obj, "in", box, near=target)  # in the box, as near the anchor as fits
                        continue
                    bases = set(below.values())
                    base = None if clearing else stack_base(world, obj, target, goal, moved, bases)
                    if base is not None:  # the region is full: on top of a block there
                        move(obj, "on", base)
                        continue
                if predicate.name == "on":
                    self._stack(obj, target, below, move)
                    continue
                move(obj, predicate.name, target)
            if pushes:
                put_down()
                calls.extend(pushes)
                for call in pushes:
                    below.pop(call.args["object"], None)
                    moved.add(call.args["object"])
        if held is not None and not any(p.name == "holding" for p in goal):
            put_down()
        return calls

    @staticmethod
    def _stack(obj: str, target: str, below: dict[str, str], move: Any) -> None:
        """Put ``obj`` on ``target``: whatever else is on the target goes next to it first."""
        if obj in above(target, below) and below.get(obj) != target:
            move(obj, "next_to", target)  # it is higher up the target's tower: off it first
        for other in reversed(above(target, below)):
            if other != obj:
                move(other, "next_to", target)
        move(obj, "on", target)


def _segments(
    requests: list[Request], names: list[str], world: WorldState, goal: list[Predicate]
) -> list[tuple[list[Predicate], list[SkillCall]]]:
    """The goal split where pushes were asked for: (goals asked for before, the pushes)."""
    segments: list[tuple[list[Predicate], list[SkillCall]]] = []
    assigned: list[Predicate] = []
    count = 0
    for k, request in enumerate(requests):
        if request.action != "push":
            continue
        before = goals_and_pushes(requests[:k], names, world)[0]
        _, pushes = goals_and_pushes(requests[: k + 1], names, world)
        part = [g for g in goal if g in before and g not in assigned]
        check_pushes(assigned + part, pushes[count:])
        segments.append((part, pushes[count:]))
        assigned.extend(part)
        count = len(pushes)
    segments.append(([g for g in goal if g not in assigned], []))
    return segments
