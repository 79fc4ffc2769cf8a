"""Symbolic step generation: goal predicates + the scene -> skill calls (the offline planner's
last stage; :mod:`claw.planner.offline` chains the stages).

The steps skip what already holds; the goals are ordered so that each can be reached
(:func:`claw.planner.steps.ordering.order_goals`); a block is cleared off a target before stacking
on it or picking it; a crowded region is made room in (:mod:`claw.planner.steps.room`); and whatever
the claw holds that no goal wants is put down. What rests on what is tracked as the steps are
written, so a block is cleared top-down (a tower is taken apart from its top) and only once.
"""

from __future__ import annotations

import itertools

import numpy as np

from claw.envs.predicates import Predicate, evaluate
from claw.envs.regions import REGIONS
from claw.envs.state import WorldState
from claw.envs.world import held_object
from claw.planner.grounding.conflicts import TOWERS, above, moves, supports
from claw.planner.language.forms import Segment
from claw.planner.steps.ordering import order_goals, tower_order
from claw.planner.steps.room import box_in_region, clear_region, fits, stack_base
from claw.skills import Plan, SkillCall, Waypoint


def write_steps(
    segments: list[Segment], world: WorldState, goal: list[Predicate]
) -> list[SkillCall]:
    """Skill calls for each segment's goals (ordered), then its pushes; ``goal`` is the whole
    goal (what the plan must not carry away, whether holding is asked for)."""
    return _StepWriter(world, goal).write(segments)


def write_plan(segments: list[Segment], world: WorldState, goal: list[Predicate]) -> Plan:
    """:func:`write_steps` as a plan, each segment's waypoints checked after its goals' steps."""
    writer = _StepWriter(world, goal)
    steps = writer.write(segments)
    waypoints = [
        Waypoint(goal=segment.waypoints, after=after)
        for segment, after in zip(segments, writer.reached, strict=True)
        if segment.waypoints
    ]
    return Plan(goal=goal, steps=steps, waypoints=waypoints)


class _StepWriter:
    """The steps written so far and the state they leave: what is held, what rests on what,
    what was moved and where it was placed."""

    def __init__(self, world: WorldState, goal: list[Predicate]) -> None:
        self.world, self.goal = world, goal
        self.calls: list[SkillCall] = []
        self.reached: list[int] = []  # the steps written when each segment's goals are reached
        self.held = held_object(world)
        self.below = supports(world)  # what each object rests on, as the planned steps leave it
        self.moved: set[str] = set()
        self.placed: dict[str, tuple[str, str]] = {}
        self.keep = {o for g in goal for o in moves(g)}
        self.taken = {g.args[1] for g in goal if g.name == "at"}

    def write(self, segments: list[Segment]) -> list[SkillCall]:
        """The steps of every segment, and a last put-down of what no goal holds."""
        for segment in segments:
            for predicate in order_goals(segment.goals, self.world):
                if not self.holds(predicate):
                    self._reach(predicate)
            self.reached.append(len(self.calls))
            if segment.pushes:
                self._push(segment.pushes)
            for reached in segment.reached:  # a goal a push reached
                self.placed[reached.args[0]] = (reached.name, reached.args[1])
        if self.held is not None and not any(p.name == "holding" for p in self.goal):
            self.put_down()
        return self.calls

    def holds(self, predicate: Predicate) -> bool:
        """Whether ``predicate`` holds once the steps so far have run."""
        args = list(predicate.args)
        if not set(args) & self.moved:
            return evaluate(predicate, self.world).holds
        if predicate.name == "holding":
            return self.held == args[0]
        if predicate.name in ("on", "in"):
            return self.below.get(args[0]) == args[1]
        if predicate.name in TOWERS:
            on_table = predicate.name == "stacked" or args[0] not in self.below
            return on_table and all(self.below.get(u) == b for b, u in itertools.pairwise(args))
        return self.placed.get(args[0]) == (predicate.name, args[1])

    def _reach(self, predicate: Predicate) -> None:
        """The steps for one goal predicate that does not hold yet."""
        name, args = predicate.name, list(predicate.args)
        if name == "level":  # no step levels an object alone; a joint lift keeps it level
            return
        if name == "holding":
            self._hold(args[0])
        elif name in TOWERS:
            self._tower(args, fixed=name == "tower")
        elif name == "at" and not fits(self.world, args[0], "at", args[1]):
            self._at_full_region(args[0], args[1])
        elif name == "on":
            self.stack(args[0], args[1])
        else:  # a relation of two targets (between) places relative to both
            self.move(args[0], name, args[1], target2=args[2] if len(args) > 2 else None)

    def _hold(self, obj: str) -> None:
        """Pick ``obj`` up and keep it (what rests on it goes aside first)."""
        if self.held == obj:
            return
        self.put_down()
        self._clear_above(obj)
        self.calls.append(SkillCall(skill="pick", args={"object": obj}))
        self.below.pop(obj, None)
        self.moved.add(obj)
        self.held = obj

    def _tower(self, names: list[str], *, fixed: bool = False) -> None:
        """Stack ``names`` bottom-up, keeping what of the tower is already there; ``fixed``
        (``tower``): in the order given, on a base that rests on the table (moved beside what it
        rests on first)."""
        support = self.below.get(names[0])
        if fixed and support is not None:
            self.move(names[0], "next_to", support)
        for base, top in itertools.pairwise(tower_order(names, self.world, fixed=fixed)):
            if not self.holds(Predicate.of("on", top, base)):
                self.stack(top, base)

    def _at_full_region(self, obj: str, region: str) -> None:
        """``obj`` at a region it does not fit in now: make room, else in a box there, else on
        a block there, else placed there as it is."""
        clearing = clear_region(self.world, obj, region, self.keep, self.taken)
        self.calls.extend(clearing)
        self.moved.update(c.args["object"] for c in clearing if c.skill == "pick")
        box = None if clearing else box_in_region(self.world, obj, region)
        if box is not None:
            self.move(obj, "in", box, near=region)  # in the box, as near the anchor as fits
            return
        bases = set(self.below.values())
        base = (
            None if clearing else stack_base(self.world, obj, region, self.goal, self.moved, bases)
        )
        if base is not None:  # the region is full: on top of a block there
            self.move(obj, "on", base)
            return
        self.move(obj, "at", region)

    def _push(self, pushes: list[SkillCall]) -> None:
        """The pushes asked for here, with the claw empty."""
        self.put_down()
        self.calls.extend(pushes)
        for call in pushes:
            self.below.pop(call.args["object"], None)
            self.moved.add(call.args["object"])

    def _aside(self, name: str, obj: str) -> tuple[str, str]:
        """Where a block on ``obj`` goes before ``obj`` is picked: a free region away from it
        (next to it, it could leave no room for the fingers), else next to it."""
        here = self.world.get(obj).xy
        free = sorted(
            (
                r
                for r in REGIONS
                if r not in self.taken and np.linalg.norm(np.array(REGIONS[r]) - here) > 0.1
            ),
            key=lambda r: float(np.linalg.norm(np.array(REGIONS[r]) - here)),
        )
        region = next((r for r in free if fits(self.world, name, "at", r)), None)
        if region is None:
            return ("next_to", obj)
        self.taken.add(region)
        return ("at", region)

    def _clear_above(self, obj: str) -> None:
        """What rests on ``obj`` goes aside, top down."""
        for top in reversed(above(obj, self.below)):
            self.move(top, *self._aside(top, obj))

    def put_down(self) -> None:
        """Put what the claw holds (if anything) down at the center."""
        if self.held is not None:
            self.calls.append(SkillCall(skill="place", args={"target": "center", "relation": "at"}))
            self.below.pop(self.held, None)
            self.moved.add(self.held)
            self.placed[self.held] = ("at", "center")
            self.held = None

    def move(
        self,
        obj: str,
        relation: str,
        target: str,
        near: str | None = None,
        target2: str | None = None,
    ) -> None:
        """Pick ``obj`` (unless held; what rests on it first) and place it."""
        if self.held is not None and self.held != obj:
            self.put_down()
        if self.held != obj:
            self._clear_above(obj)
            self.calls.append(SkillCall(skill="pick", args={"object": obj}))
        args = {"target": target, "relation": relation}
        if near is not None:
            args["near"] = near
        if target2 is not None:
            args["target2"] = target2
        self.calls.append(SkillCall(skill="place", args=args))
        self.below.pop(obj, None)
        if relation in ("on", "in"):
            self.below[obj] = target
        self.moved.add(obj)
        self.placed[obj] = (relation, target)
        self.held = None

    def stack(self, obj: str, target: str) -> None:
        """Put ``obj`` on ``target``: whatever else is on the target goes next to it first."""
        if obj in above(target, self.below) and self.below.get(obj) != target:
            self.move(obj, "next_to", target)  # it is higher up the target's tower: off it first
        for other in reversed(above(target, self.below)):
            if other != obj:
                self.move(other, "next_to", target)
        self.move(obj, "on", target)
