"""Ground-truth predicates (README, "Predicates") evaluated on a :class:`WorldState` snapshot."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, model_serializer, model_validator

from claw.envs import geometry
from claw.envs.exceptions import PredicateError
from claw.envs.regions import region_anchor, resolve_region
from claw.envs.state import SETTLED_SPEED, ObjectState, WorldState, unknown_object_error

ON_TOLERANCE = 0.01  # |a.bottom - b.top| for on(a, b)
NEAR_GAP = 0.05  # footprint gap for next_to
DIRECTION_MIN = 0.05  # least offset along the direction for left_of & co.
AT_RADIUS = 0.06  # xy distance to a region's anchor for at
HOLD_HEIGHT = 0.03  # least height of a held object's bottom above the table
HOLD_AXIS_DISTANCE = 0.03  # most distance of a held object's centre from the line between the pads
TABLE_TOLERANCE = 0.01  # |a.bottom - table_z| for an object on the table

# Canonical name -> (least, most) number of arguments; ``None`` = no upper bound.
PREDICATES: dict[str, tuple[int, int | None]] = {
    **dict.fromkeys(
        ["on", "in", "next_to", "left_of", "right_of", "behind", "in_front_of", "at"], (2, 2)
    ),
    "stacked": (2, None),
    "holding": (1, 1),
}

ALIASES: dict[str, str] = {
    **dict.fromkeys(["inside", "inside_of", "into", "within"], "in"),
    **dict.fromkeys(["beside", "near", "next", "adjacent_to", "by"], "next_to"),
    **dict.fromkeys(["on_top_of", "on_top", "onto", "upon", "atop"], "on"),
    **dict.fromkeys(["left", "to_the_left_of", "left_to"], "left_of"),
    **dict.fromkeys(["right", "to_the_right_of", "right_to"], "right_of"),
    **dict.fromkeys(["in_back_of", "behind_of", "beyond"], "behind"),
    **dict.fromkeys(["in_front", "front_of", "before"], "in_front_of"),
    **dict.fromkeys(["stack", "stacked_on", "tower"], "stacked"),
    **dict.fromkeys(["held", "holds", "grasping", "grasped"], "holding"),
}

# Directional predicates: (axis compared, sign) — left = +y, right = -y, behind = +x, front = -x.
_DIRECTIONS: dict[str, tuple[int, int]] = {
    "left_of": (1, 1),
    "right_of": (1, -1),
    "behind": (0, 1),
    "in_front_of": (0, -1),
}

_FORM = re.compile(r"^\s*([A-Za-z][\w \-]*?)\s*\((.*)\)\s*$", re.DOTALL)
_QUOTES = "\"'`"


def _canonical_name(name: str) -> str:
    key = re.sub(r"[\s\-]+", "_", name.strip().lower())
    key = ALIASES.get(key, key)
    if key not in PREDICATES:
        raise PredicateError(f"unknown predicate {name!r}; allowed: {', '.join(PREDICATES)}")
    return key


def _canonical(name: str, args: Iterable[str]) -> tuple[str, tuple[str, ...]]:
    """Canonical name and arguments; raises PredicateError on a bad name, arity or region."""
    key = _canonical_name(name)
    clean = tuple(str(a).strip().strip(_QUOTES).strip() for a in args)
    least, most = PREDICATES[key]
    if len(clean) < least or (most is not None and len(clean) > most):
        expected = f"at least {least}" if most is None else str(least)
        plural = "" if least == 1 and most == 1 else "s"
        raise PredicateError(
            f"{key} takes {expected} argument{plural}, got {len(clean)}: {key}({', '.join(clean)})"
        )
    if any(not a for a in clean):
        raise PredicateError(f"empty argument in {key}({', '.join(clean)})")
    if key == "at":
        clean = (clean[0], resolve_region(clean[1]))
    return key, clean


class Predicate(BaseModel):
    """One goal condition, e.g. ``next_to(red_block, blue_box)``; name and args are canonical.

    It validates from its text as well (``Predicate.model_validate("beside(a, b)")``, or a
    string in a ``list[Predicate]`` field), canonicalised as :func:`parse_predicate` does, and
    serialises (``model_dump``, JSON) to its canonical text: goals are strings in every JSON.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    args: tuple[str, ...]

    @model_validator(mode="before")
    @classmethod
    def _canonicalise(cls, data: Any) -> Any:
        if isinstance(data, str):
            name, args = _parse_text(data)
            return {"name": name, "args": args}
        if isinstance(data, dict) and "name" in data and "args" in data:
            args = data["args"]
            args = [args] if isinstance(args, str) else args
            name, args = _canonical(str(data["name"]), args)
            data = {**data, "name": name, "args": args}
        return data

    @model_serializer(mode="plain")
    def _as_text(self) -> str:
        return str(self)

    def __str__(self) -> str:
        return f"{self.name}({', '.join(self.args)})"

    @classmethod
    def of(cls, name: str, *args: str) -> Predicate:
        """The canonical predicate ``name(*args)``.

        Raises:
            PredicateError: unknown predicate or region, or wrong number of args.
        """
        name, clean = _canonical(name, args)
        return cls(name=name, args=clean)

    @property
    def objects(self) -> tuple[str, ...]:
        """The arguments that name objects (all but ``at``'s region)."""
        return self.args[:1] if self.name == "at" else self.args


def _parse_text(text: Any) -> tuple[str, tuple[str, ...]]:
    match = _FORM.match(text) if isinstance(text, str) else None
    if match is None:
        raise PredicateError(
            f"cannot parse predicate {text!r}: expected name(arg, ...), "
            "e.g. next_to(red_block, blue_box)"
        )
    raw_args = match.group(2).split(",") if match.group(2).strip() else []
    return _canonical(match.group(1), raw_args)


def parse_predicate(text: str) -> Predicate:
    """Parse ``name(arg, ...)``: any case, extra spaces, quoted args, aliases and region spellings.

    Raises:
        PredicateError: Not of that form, unknown predicate or region, or wrong number of args.
    """
    name, args = _parse_text(text)
    return Predicate(name=name, args=args)


def parse_goal(items: Iterable[str | Predicate]) -> list[Predicate]:
    """Parse every item of a goal (strings or predicates) into canonical predicates."""
    if isinstance(items, (str, Predicate)):
        items = [items]
    return [item if isinstance(item, Predicate) else parse_predicate(item) for item in items]


def check_objects(pred: Predicate, names: Iterable[str]) -> None:
    """Check that every object argument of ``pred`` is one of ``names``.

    Raises:
        UnknownObjectError: An argument names no object; the message lists the scene's objects.
    """
    known = list(names)
    for arg in pred.objects:
        if arg not in known:
            raise unknown_object_error(arg, known)


class PredicateResult(BaseModel):
    """The outcome of one predicate: whether it holds, the quantities measured, and why."""

    predicate: str
    holds: bool
    measured: dict[str, float]
    reason: str


class GoalResult(BaseModel):
    """The outcome of a goal: every predicate holds, the world is at rest, the gripper is empty."""

    success: bool
    results: list[PredicateResult]
    settled: bool
    gripper_empty: bool
    reason: str

    @property
    def recall(self) -> float:
        """Fraction of the goal's predicates that hold (1.0 for an empty goal)."""
        return sum(r.holds for r in self.results) / len(self.results) if self.results else 1.0


@dataclass(frozen=True)
class _Check:
    holds: bool
    measured: dict[str, float]
    reason: str


def _cm(metres: float) -> str:
    return f"{round(metres * 100, 1) + 0.0:.1f} cm"  # + 0.0: no "-0.0"


def _xy_distance(a: ObjectState, b: ObjectState) -> float:
    return float(np.linalg.norm(a.xy - b.xy))


def _in(a: ObjectState, c: ObjectState) -> _Check:
    measured = {"centre_offset": _xy_distance(a, c), "depth": c.rim - a.bottom}
    if a.name == c.name:
        return _Check(False, measured, f"{a.name} cannot be in itself")
    if c.inner_half_width is None:
        return _Check(False, measured, f"{c.name} is not a box")
    if not geometry.point_in_polygon(a.xy, c.inner_footprint()):
        return _Check(
            False, measured, f"{a.name}'s centre is not inside {c.name}'s inner footprint"
        )
    if a.bottom >= c.rim:
        return _Check(False, measured, f"{a.name}'s bottom is not below {c.name}'s rim")
    return _Check(
        True, measured, f"{a.name} is inside {c.name}, {_cm(measured['depth'])} below its rim"
    )


def _on(a: ObjectState, b: ObjectState) -> _Check:
    if b.type == "box":
        return _in(a, b)
    offset = a.bottom - b.top
    measured = {"height_offset": offset, "centre_offset": _xy_distance(a, b)}
    if a.name == b.name:
        return _Check(False, measured, f"{a.name} cannot be on itself")
    if abs(offset) > ON_TOLERANCE:
        return _Check(
            False,
            measured,
            f"{a.name}'s bottom is {_cm(abs(offset))} {'above' if offset > 0 else 'below'} "
            f"{b.name}'s top (> {_cm(ON_TOLERANCE)})",
        )
    if not geometry.point_in_polygon(a.xy, b.footprint()):
        return _Check(False, measured, f"{a.name}'s centre is not over {b.name}'s footprint")
    return _Check(True, measured, f"{a.name} rests on {b.name} (height offset {_cm(offset)})")


def _supporter(a: ObjectState, world: WorldState) -> ObjectState | None:
    """The first other object that ``a`` is on or in, if any."""
    for other in world.objects.values():
        if other.name != a.name and _on(a, other).holds:
            return other
    return None


def _off_table(obj: ObjectState, world: WorldState) -> str | None:
    """Why ``obj`` is not on the table, or ``None`` when it is."""
    support = _supporter(obj, world)
    if support is not None:
        return f"{obj.name} is not on the table (it is on/in {support.name})"
    height = obj.bottom - world.table_z
    if abs(height) > TABLE_TOLERANCE:
        return f"{obj.name} is not on the table (its bottom is {_cm(height)} above it)"
    return None


def on_table(obj: ObjectState, world: WorldState) -> bool:
    """True when ``obj``'s bottom is within TABLE_TOLERANCE of the table and it is on/in nothing."""
    return _off_table(obj, world) is None


def _next_to(world: WorldState, a: ObjectState, b: ObjectState) -> _Check:
    gap = geometry.polygon_gap(a.footprint(), b.footprint())
    measured = {"gap": gap, "bottom_height": a.bottom - world.table_z}
    if a.name == b.name:
        return _Check(False, measured, f"{a.name} cannot be next to itself")
    for x, y in ((a, b), (b, a)):
        if _on(x, y).holds:
            return _Check(False, measured, f"{x.name} is on/in {y.name}")
    off_table = _off_table(a, world)
    if off_table is not None:
        return _Check(False, measured, off_table)
    holds = gap <= NEAR_GAP
    sign = "≤" if holds else ">"
    return _Check(holds, measured, f"gap {_cm(gap)} {sign} {_cm(NEAR_GAP)}")


def _direction(name: str) -> Callable[[WorldState, ObjectState, ObjectState], _Check]:
    axis, sign = _DIRECTIONS[name]
    along, across = ("dx", "dy") if axis == 0 else ("dy", "dx")
    words = name.replace("_", " ")

    def check(world: WorldState, a: ObjectState, b: ObjectState) -> _Check:
        offset = sign * float(a.position[axis] - b.position[axis])
        lateral = abs(float(a.position[1 - axis] - b.position[1 - axis]))
        measured = {along: offset, across: lateral}
        if a.name == b.name:
            return _Check(False, measured, f"{a.name} cannot be {words} itself")
        if _on(a, b).holds:
            return _Check(False, measured, f"{a.name} is on/in {b.name}")
        said = f"{a.name} is {_cm(offset)} {words} {b.name}"
        if offset < DIRECTION_MIN:
            return _Check(False, measured, f"{said} (< {_cm(DIRECTION_MIN)})")
        if offset < lateral:
            return _Check(False, measured, f"{said}, less than its {_cm(lateral)} sideways offset")
        return _Check(True, measured, f"{said} (≥ {_cm(DIRECTION_MIN)}, ≥ {_cm(lateral)} sideways)")

    return check


def _at(world: WorldState, a: ObjectState, region: str) -> _Check:
    anchor = np.asarray(region_anchor(region))
    distance = float(np.linalg.norm(a.xy - anchor))
    holds = distance <= AT_RADIUS
    sign = "≤" if holds else ">"
    reason = f"{a.name} is {_cm(distance)} from the {region} anchor ({sign} {_cm(AT_RADIUS)})"
    return _Check(holds, {"distance": distance}, reason)


def _stacked(world: WorldState, *objs: ObjectState) -> _Check:
    required = len(objs) - 1
    if len({o.name for o in objs}) < len(objs):
        return _Check(False, {"levels": 0.0, "required": float(required)}, "repeated object")
    tower = sorted(objs, key=lambda o: o.bottom)
    levels = 0
    failure = ""
    for lower, upper in itertools.pairwise(tower):
        check = _on(upper, lower)
        if check.holds:
            levels += 1
        elif not failure:
            failure = check.reason
    measured = {"levels": float(levels), "required": float(required)}
    if failure:
        return _Check(False, measured, f"{levels}/{required} levels stacked; {failure}")
    return _Check(True, measured, f"{' on '.join(o.name for o in reversed(tower))}")


def _holding(world: WorldState, a: ObjectState) -> _Check:
    height = a.bottom - world.table_z
    measured = {"bottom_height": height}
    gripper = world.gripper
    if gripper is None:
        return _Check(False, measured, "no gripper state")
    axis = gripper.right_tip - gripper.left_tip
    rel = a.position - gripper.left_tip
    t = float(rel @ axis / max(float(axis @ axis), 1e-18))
    off_axis = float(np.linalg.norm(rel - t * axis))
    measured.update(between=t, off_axis=off_axis)
    missing = [
        side
        for side, contacts in (("left", gripper.left_contacts), ("right", gripper.right_contacts))
        if a.name not in contacts
    ]
    if missing:
        return _Check(
            False, measured, f"{a.name} does not touch the {' and '.join(missing)} finger"
        )
    if not 0.0 <= t <= 1.0 or off_axis > HOLD_AXIS_DISTANCE:
        return _Check(False, measured, f"{a.name}'s centre is not between the finger pads")
    if height < HOLD_HEIGHT:
        return _Check(
            False,
            measured,
            f"{a.name}'s bottom is {_cm(height)} above the table (< {_cm(HOLD_HEIGHT)})",
        )
    return _Check(True, measured, f"{a.name} is held {_cm(height)} above the table")


def _binary(fn: Callable[[ObjectState, ObjectState], _Check]) -> Callable[..., _Check]:
    return lambda world, a, b: fn(a, b)


_EVALUATORS: dict[str, Callable[..., _Check]] = {
    "on": _binary(_on),
    "in": _binary(_in),
    "next_to": _next_to,
    **{name: _direction(name) for name in _DIRECTIONS},
    "stacked": _stacked,
    "holding": _holding,
}


def evaluate(pred: Predicate | str, world: WorldState) -> PredicateResult:
    """Evaluate one predicate on ``world``.

    Raises:
        PredicateError: ``pred`` is a string that does not parse.
        UnknownObjectError: An argument names no object of ``world``.
    """
    pred = pred if isinstance(pred, Predicate) else parse_predicate(pred)
    check_objects(pred, world.objects)
    if pred.name == "at":
        check = _at(world, world.get(pred.args[0]), pred.args[1])
    else:
        check = _EVALUATORS[pred.name](world, *(world.get(n) for n in pred.args))
    measured = {k: round(float(v), 6) + 0.0 for k, v in check.measured.items()}
    return PredicateResult(
        predicate=str(pred), holds=check.holds, measured=measured, reason=check.reason
    )


def _held_objects(world: WorldState) -> list[str]:
    return [o.name for o in world.objects.values() if _holding(world, o).holds]


def evaluate_goal(goal: Iterable[str | Predicate], world: WorldState) -> GoalResult:
    """Evaluate a goal: all predicates hold, the world is settled, and nothing is held.

    Holding is allowed when some goal predicate is ``holding(...)``.

    Raises:
        PredicateError: A goal item does not parse.
        UnknownObjectError: A goal item names no object of ``world``.
    """
    preds = parse_goal(goal)
    results = [evaluate(p, world) for p in preds]
    settled = world.settled(SETTLED_SPEED)
    held = _held_objects(world)
    holding_asked = any(p.name == "holding" for p in preds)
    failed = next((r for r in results if not r.holds), None)
    if failed is not None:
        reason = f"{failed.predicate} does not hold: {failed.reason}"
    elif not settled:
        reason = f"the scene has not settled (fastest object at {_cm(world.max_speed)}/s)"
    elif held and not holding_asked:
        reason = f"the gripper still holds {', '.join(held)}"
    else:
        reason = f"all {len(results)} goal predicates hold"
    success = failed is None and settled and (holding_asked or not held)
    return GoalResult(
        success=success, results=results, settled=settled, gripper_empty=not held, reason=reason
    )
