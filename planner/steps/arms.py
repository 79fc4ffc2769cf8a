"""Two arms in a plan: which arm does each step, and the words that say which.

The one-claw steps (:mod:`claw.planner.steps.writer`) get an ``arm`` each (:func:`assign_arms`): a
pick goes to a free arm that reaches the object, the nearer one first, preferring one that also
reaches where the object goes next; when only the other arm reaches that place, the object is handed
over in between (``handover``); a place goes to the arm holding the object; a push to an arm that
reaches the object and where it ends. An object too long for one claw is lifted with both
(``lift_together``). Calls of the two arms that share no object then run at the same time
(:mod:`claw.skills.lanes`).

In the instruction, arm phrases (:mod:`claw.planner.language.arm_phrases`) say which arm: "to the
other arm", "into the right hand" (the object ends in that claw: ``holding(a, arm)``, reached by a
handover where another arm picks it), "with both arms" (``holding`` by each arm and ``level``),
"with the left hand" (that arm first, where it reaches), "keep it level" (``level``).
"""

from __future__ import annotations

import numpy as np

from claw.common.exceptions import ClawError
from claw.envs.arms import REST_REACH, arm_base
from claw.envs.predicates import Predicate, held_objects
from claw.envs.regions import in_reach, region_anchor
from claw.envs.state import WorldState
from claw.envs.world import holder
from claw.planner.exceptions import UnsupportedError
from claw.planner.language.arm_phrases import ArmIntent
from claw.skills import ARM_ARG, LANE_CLEARANCE, Handover, Pick, Plan, Push, SkillCall

AT_REST = 0.03  # m from its rest point: an arm's claw this near it is out of the way


def long(world: WorldState, name: str) -> bool:
    """Whether ``name`` is too long for one claw (two lift it together)."""
    return Pick.length_of(world.get(name)) > Pick.max_length


def check_holdable(goal: list[Predicate], world: WorldState) -> None:
    """Refuse a goal no claws can hold as it says, before anything moves: an object too long
    for one claw where there is one arm, or an object short enough for one held by two.

    Raises:
        UnsupportedError: naming the object, its length and what does hold it.
    """
    arms = tuple(world.grippers)
    held: dict[str, set[str]] = {}
    for predicate in goal:
        if predicate.name == "holding" and predicate.args[0] in world.objects:
            held.setdefault(predicate.args[0], set()).update(predicate.args[1:] or arms[:1])
    for name, by in held.items():
        size = f"{name} is {Pick.length_of(world.get(name)) * 100:.0f} cm long"
        if len(arms) < 2 and long(world, name):
            raise _one_arm_cannot(world, name)
        if len(by) > 1 and not long(world, name):
            raise UnsupportedError(
                f"{size}: one claw holds it; both claws hold only objects longer than "
                f"{Pick.max_length * 100:.0f} cm, lifted together (lift_together)"
            )


def _one_arm_cannot(world: WorldState, name: str) -> UnsupportedError:
    """The refusal of carrying ``name``, too long for one claw, where there is one arm."""
    return UnsupportedError(
        f"{name} is {Pick.length_of(world.get(name)) * 100:.0f} cm long: one claw holds objects "
        f"up to {Pick.max_length * 100:.0f} cm, and this scene has one arm (a scene with two "
        "lifts it with both: lift_together)"
    )


def _check_one_arm_picks(steps: list[SkillCall], world: WorldState) -> None:
    """Refuse a one-arm plan that picks an object too long for one claw ("put the bar next to
    the red block"): it would fail at the step, replanned the same way."""
    for call in steps:
        name = str(call.args.get("object", ""))
        if call.skill == "pick" and name in world.objects and long(world, name):
            raise _one_arm_cannot(world, name)


def arm_goal(goal: list[Predicate], intent: ArmIntent, world: WorldState) -> list[Predicate]:
    """``goal`` with its ``holding`` predicates naming arms, as ``intent`` and the objects'
    lengths say: the arm named (``other``: not the one that holds or would pick it); both arms
    and ``level`` for a long object or "with both arms"; ``level`` where it is asked for.

    Raises:
        UnsupportedError: a goal no claws hold as it says (:func:`check_holdable`).
    """
    arms = tuple(world.grippers)
    if len(arms) < 2:
        check_holdable(goal, world)
        return goal
    out: list[Predicate] = []
    for predicate in goal:
        if predicate.name != "holding" or len(predicate.args) > 1:
            out.append(predicate)
            continue
        name = predicate.args[0]
        if intent.using == "both" or long(world, name):
            out += [Predicate.of("holding", name, arm) for arm in arms]
        elif intent.to is not None:
            out.append(Predicate.of("holding", name, _receiver(world, name, intent.to)))
        else:
            out.append(predicate)
        if intent.using == "both" or intent.level or long(world, name):
            out.append(Predicate.of("level", name))
    check_holdable(out, world)
    return out


def _receiver(world: WorldState, name: str, to: str) -> str:
    if to != "other":
        return to
    giver = holder(world, name) or _nearest(world, world.get(name).xy, tuple(world.grippers))
    return next(a for a in world.grippers if a != giver)


def _tool_xy(world: WorldState, arm: str) -> np.ndarray | None:
    """Where ``arm``'s claw is over the table now (between its pads); ``None`` at rest."""
    claw = world.grippers[arm]
    here = np.asarray((claw.left_tip[:2] + claw.right_tip[:2]) / 2)
    rest = _base(world, arm) + np.array([REST_REACH, 0.0])
    return None if float(np.linalg.norm(here - rest)) < AT_REST else here


def _base(world: WorldState, arm: str) -> np.ndarray:
    return np.array(arm_base(arm, len(world.grippers))[:2])


def _reaches(world: WorldState, arm: str, xy: np.ndarray) -> bool:
    base = arm_base(arm, len(world.grippers))
    return in_reach(float(xy[0]), float(xy[1]), (base[0], base[1]))


def _nearest(world: WorldState, xy: np.ndarray, arms: tuple[str, ...]) -> str:
    return min(arms, key=lambda a: float(np.linalg.norm(_base(world, a) - xy)))


class _ArmWriter:
    """Arms given to one-claw steps, and the handovers and joint lifts they need."""

    def __init__(self, world: WorldState, goal: list[Predicate], intent: ArmIntent) -> None:
        self.world, self.intent = world, intent
        self.arms = tuple(world.grippers)
        self.held = {a: next(iter(held_objects(world, a)), None) for a in self.arms}
        self.where = {name: obj.xy for name, obj in world.objects.items()}
        self.at: dict[str, np.ndarray | None] = {a: _tool_xy(world, a) for a in self.arms}
        """Where each arm's claw works (``None``: at rest, out of the way)."""
        self.wanted = {
            p.args[0]: p.args[1] for p in goal if p.name == "holding" and len(p.args) == 2
        }
        self.calls: list[SkillCall] = []

    def write(self, steps: list[SkillCall]) -> list[SkillCall]:
        """The calls for ``steps``; ``produced[k]``: how many the first ``k + 1`` became."""
        self.produced: list[int] = []
        for k, call in enumerate(steps):
            if ARM_ARG in call.args or call.skill in ("handover", "lift_together"):
                self._given(call)
            elif call.skill == "pick":
                self._pick(call.args["object"], steps[k + 1] if k + 1 < len(steps) else None)
            elif call.skill == "place":
                self._place(call)
            elif call.skill == "push":
                self._push(call)
            else:
                self.calls.append(call)
            self.produced.append(len(self.calls))
        return self.calls

    def _given(self, call: SkillCall) -> None:
        """A call as written (its arm named, or a two-arm skill), what it leaves held noted."""
        self.calls.append(call)
        arm, name = call.args.get(ARM_ARG), call.args.get("object")
        if call.skill == "lift_together":
            self.held = dict.fromkeys(self.arms, str(name))
        elif call.skill == "handover" and call.args.get("to") in self.held:
            self.held = {a: (str(name) if a == call.args["to"] else None) for a in self.arms}
        elif call.skill == "pick" and arm in self.held:
            self.held[str(arm)] = str(name)
        elif call.skill == "place" and arm in self.held:
            self.held[str(arm)] = None

    def _order(self, xy: np.ndarray, arms: tuple[str, ...]) -> list[str]:
        """``arms`` that reach ``xy``, the preferred arm first, then the nearer."""
        reaching = [a for a in arms if _reaches(self.world, a, xy)]
        return sorted(
            reaching,
            key=lambda a: (
                a != self.intent.using,
                float(np.linalg.norm(_base(self.world, a) - xy)),
            ),
        )

    def _pick(self, name: str, after: SkillCall | None) -> None:
        holder = next((a for a in self.arms if self.held[a] == name), None)
        if long(self.world, name):
            if after is not None and after.skill == "place":
                raise UnsupportedError(
                    f"{name} is too long for one claw, and two claws do not place it together "
                    "yet (lift_together lifts it)"
                )
            if holder is None:  # not lifted yet
                self.calls.append(SkillCall(skill="lift_together", args={"object": name}))
                self.held = dict.fromkeys(self.arms, name)
            return
        goes = self._destination(after)
        ends = self.wanted.get(name) if goes is None else None
        if holder is not None:  # a claw holds it already (after a failed step): no pick
            picker = holder
        else:
            picker = self._picker(name, goes, ends)
            self._clear_way(picker, [p for p in (self.where[name], goes) if p is not None])
            self.calls.append(SkillCall(skill="pick", args={"object": name, ARM_ARG: picker}))
            self.held[picker], self.at[picker] = name, self.where[name]
        receiver = ends
        if goes is not None and not _reaches(self.world, picker, goes):
            receiver = next((a for a in self._order(goes, self.arms) if a != picker), None)
        if receiver is not None and receiver != picker:
            self.calls.append(SkillCall(skill="handover", args={"object": name, "to": receiver}))
            self.held[picker], self.held[receiver] = None, name
            self.at[picker] = self.at[receiver] = Handover.meeting_point(self.arms)

    def _clear_way(self, arm: str, points: list[np.ndarray]) -> None:
        """Send home any other idle arm left where ``arm`` is about to work (within two lanes'
        clearances across the table of ``points``), so that it does not stand in the way."""
        low, high = min(float(p[1]) for p in points), max(float(p[1]) for p in points)
        for other in self.arms:
            spot = self.at[other]
            if other == arm or spot is None or self.held[other] is not None:
                continue
            if low - 2 * LANE_CLEARANCE < float(spot[1]) < high + 2 * LANE_CLEARANCE:
                self.calls.append(SkillCall(skill="home", args={ARM_ARG: other}))
                self.at[other] = None

    def _picker(self, name: str, goes: np.ndarray | None, ends: str | None) -> str:
        """The free arm to pick ``name`` that goes to ``goes`` (or ends in ``ends``' claw)."""
        free = tuple(a for a in self.arms if self.held[a] is None)
        order = self._order(self.where[name], free)
        if not order:
            raise UnsupportedError(f"{name} is out of reach of every free arm")
        picker = next((a for a in order if goes is None or _reaches(self.world, a, goes)), order[0])
        if ends in order:  # it ends in that claw: picked by it, unless a handover was asked for
            handing = self.intent.to is not None and len(order) > 1
            picker = next(a for a in order if a != ends) if handing else ends
        return picker

    def _destination(self, call: SkillCall | None) -> np.ndarray | None:
        """Where a place puts what it holds (its target object's place, or its region's)."""
        if call is None or call.skill != "place":
            return None
        target = str(call.args.get("target", ""))
        if target in self.where:
            return self.where[target]
        try:
            return np.array(region_anchor(target))
        except ClawError:
            return None

    def _place(self, call: SkillCall) -> None:
        holder = next((a for a in self.arms if self.held[a] is not None), None)
        if holder is None:
            self.calls.append(call)
            return
        goes = self._destination(call)
        name = self.held[holder]
        assert name is not None
        if goes is not None:
            self.where[name] = self.at[holder] = goes
        self.calls.append(call.model_copy(update={"args": {**call.args, ARM_ARG: holder}}))
        self.held[holder] = None

    def _push(self, call: SkillCall) -> None:
        name = str(call.args["object"])
        if self.intent.using == "both":  # "push the bar forward with both arms"
            raise UnsupportedError(
                f"a push is one claw's; two claws do not push {name} together yet (ask for the "
                "push without 'both arms')"
            )
        start = self.where[name]
        step = np.array(Push.directions[str(call.args["direction"])])
        end = start + float(call.args["distance"]) * step
        free = tuple(a for a in self.arms if self.held[a] is None) or self.arms
        order = [a for a in self._order(start, free) if _reaches(self.world, a, end)]
        arm = order[0] if order else _nearest(self.world, start, free)
        self._clear_way(arm, [start, end])
        self.where[name] = self.at[arm] = end
        self.calls.append(call.model_copy(update={"args": {**call.args, ARM_ARG: arm}}))


def assign_arms(
    steps: list[SkillCall], world: WorldState, goal: list[Predicate], intent: ArmIntent
) -> list[SkillCall]:
    """``steps`` with an arm each, and handovers and joint lifts where they need them; in a
    one-arm world, ``steps`` as they are.

    Raises:
        UnsupportedError: an object no free arm reaches, a long object to be placed, or a
            goal no claws hold as it says (:func:`check_holdable`).
    """
    check_holdable(goal, world)
    if len(world.grippers) < 2:
        _check_one_arm_picks(steps, world)
        return steps
    return _ArmWriter(world, goal, intent).write(steps)


def with_arms(plan: Plan, world: WorldState, intent: ArmIntent | None = None) -> Plan:
    """``plan`` with its steps given arms (:func:`assign_arms`), its waypoints kept after the
    same steps."""
    if len(world.grippers) < 2:
        _check_one_arm_picks(plan.steps, world)
        return plan
    writer = _ArmWriter(world, plan.goal, intent or ArmIntent())
    steps = writer.write(plan.steps)
    waypoints = [
        w.model_copy(update={"after": writer.produced[w.after - 1] if w.after else 0})
        for w in plan.waypoints
    ]
    return plan.model_copy(update={"steps": steps, "waypoints": waypoints})
