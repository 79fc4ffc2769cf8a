"""Ground-truth predicates (docs/reference/predicates.md) evaluated on a :class:`WorldState`
snapshot."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cached_property
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, model_serializer, model_validator

from claw.envs import spatial
from claw.envs.arms import ARM_NAMES
from claw.envs.assemblies import (
    HOLD_AXIS_DISTANCE,
    HOLD_HEIGHT,
    LEVEL_TOLERANCE,
    holding,
    level,
    stacked,
    tower,
)
from claw.envs.exceptions import PredicateError
from claw.envs.regions import resolve_region
from claw.envs.relations import (
    Relation,
    find_relation,
    key_of,
    registry_version,
    relations,
    reserve_names,
)
from claw.envs.spatial import (  # the predicates' tolerances (docs/reference/predicates.md)
    AT_RADIUS,
    DIRECTION_MIN,
    NEAR_GAP,
    ON_TOLERANCE,
    TABLE_TOLERANCE,
    Check,
    cm,
    off_table,
)
from claw.envs.state import SETTLED_SPEED, ObjectState, WorldState, unknown_object_error

__all__ = [
    "ALIASES",
    "AT_RADIUS",
    "DIRECTION_MIN",
    "HOLD_AXIS_DISTANCE",
    "HOLD_HEIGHT",
    "LEVEL_TOLERANCE",
    "MAX_PREDICATE_DEPTH",
    "NEAR_GAP",
    "NOT",
    "ON_TOLERANCE",
    "PREDICATES",
    "TABLE_TOLERANCE",
    "UNPROMPTED",
    "GoalResult",
    "Predicate",
    "PredicateResult",
    "check_objects",
    "evaluate",
    "evaluate_goal",
    "on_table",
    "parse_goal",
    "parse_predicate",
    "predicate_signatures",
]

NOT = "not"  # not(P): P does not hold; its one argument is P's canonical text
MAX_PREDICATE_DEPTH = 8
"""Parentheses inside one another in a predicate's text (``not(in(a, b))`` has 2): a deeper text
is refused before it is read (it would only nest ``not``, which takes no ``not``)."""

# The predicates that are not relations: canonical name -> (least, most) number of arguments
# (``None``: no upper bound), and their aliases. The relations' are claw.envs.relations'.
# ``tower`` (a tower in order on a base on the table) and ``not`` are for ground truth, and
# ``level`` (an object's top face horizontal) for two-arm scenes, whose prompt adds it: the
# prompt lists the others only (UNPROMPTED).
_OTHERS: dict[str, tuple[int, int | None]] = {
    "stacked": (2, None),
    "holding": (1, 2),
    "level": (1, 1),
    "tower": (2, None),
    NOT: (1, 1),
}
UNPROMPTED = ("tower", NOT, "level")
_OPTIONAL_ARGS = {"holding": "arm"}  # holding(a) or holding(a, arm): an arm name, not an object
_OTHER_ALIASES: dict[str, str] = {
    **dict.fromkeys(["stack", "stacked_on"], "stacked"),
    **dict.fromkeys(["held", "holds", "grasping", "grasped"], "holding"),
}
reserve_names(*_OTHERS, *_OTHER_ALIASES)


_T = TypeVar("_T")


class _Derived(Mapping[str, _T]):
    """A table derived from the relation registry, built once per state of the registry
    (:func:`~claw.envs.relations.registry_version`) rather than at each look-up."""

    def __init__(self, build: Callable[[], dict[str, _T]]) -> None:
        self._build = build
        self._version = -1
        self._built: dict[str, _T] = {}

    def _table(self) -> dict[str, _T]:
        if self._version != registry_version():
            self._built, self._version = self._build(), registry_version()
        return self._built

    def __getitem__(self, name: str) -> _T:
        return self._table()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())


PREDICATES: Mapping[str, tuple[int, int | None]] = _Derived(
    lambda: {**{r.name: (r.arity, r.arity) for r in relations()}, **_OTHERS}
)
"""Every predicate's canonical name -> (least, most) arguments: the relations (their arity,
both), in declaration order, then the others."""
ALIASES: Mapping[str, str] = _Derived(
    lambda: {a: r.name for r in relations() for a in r.aliases} | _OTHER_ALIASES
)
"""Every predicate alias -> its canonical name (the relations' and the others')."""


def predicate_signatures() -> tuple[str, ...]:
    """Every predicate as the prompt lists it: ``on(a, b)``, ``at(a, REGION)``, ...,
    ``stacked(a, b, ...)``, ``holding(a)``."""
    others = (
        f"{name}({', '.join('abcdefgh'[:least])}{'' if most else ', ...'})"
        for name, (least, most) in _OTHERS.items()
        if name not in UNPROMPTED
    )
    return (*(r.signature for r in relations()), *others)


_FORM = re.compile(r"^\s*([A-Za-z][\w \-]*?)\s*\((.*)\)\s*$", re.DOTALL)
_QUOTES = "\"'`"


def _canonical_name(name: str) -> str:
    key = key_of(name)
    key = ALIASES.get(key, key)
    if key not in PREDICATES:
        raise PredicateError(f"unknown predicate {name!r}; allowed: {', '.join(PREDICATES)}")
    return key


def _canonical(name: str, args: Iterable[Any]) -> tuple[str, tuple[str, ...]]:
    """Canonical name and arguments; raises PredicateError on a bad name, arity or region."""
    key = _canonical_name(name)
    clean = tuple(str(a).strip().strip(_QUOTES).strip() for a in args)
    if key == NOT:
        return key, (_denied(clean),)
    least, most = PREDICATES[key]
    if len(clean) < least or (most is not None and len(clean) > most):
        if most is None:
            expected = f"at least {least}"
        else:
            expected = str(least) if least == most else f"{least} or {most}"
        plural = "" if most == 1 else "s"
        raise PredicateError(
            f"{key} takes {expected} argument{plural}, got {len(clean)}: {key}({', '.join(clean)})"
        )
    if any(not a for a in clean):
        raise PredicateError(f"empty argument in {key}({', '.join(clean)})")
    related = find_relation(key)
    if related is not None and related.target == "region":
        clean = (clean[0], resolve_region(clean[1]))
    if key in _OPTIONAL_ARGS and len(clean) == 2 and clean[1] not in ARM_NAMES:
        raise PredicateError(
            f"{key}({', '.join(clean)}): unknown arm {clean[1]!r}; allowed: {', '.join(ARM_NAMES)}"
        )
    return key, clean


def _denied(args: tuple[str, ...]) -> str:
    """The canonical text of the one predicate ``not(...)`` is given."""
    if len(args) != 1 or not args[0]:
        raise PredicateError(
            f"not takes one predicate, got {len(args)} arguments: not({', '.join(args)}); "
            "e.g. not(in(red_block, brown_box))"
        )
    try:
        inner = parse_predicate(args[0])
    except PredicateError as exc:
        raise PredicateError(f"not({args[0]}): not takes one predicate; {exc}") from None
    if inner.name == NOT:
        raise PredicateError(f"not({inner}): a double negation; write {inner.inner} instead")
    return str(inner)


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
            given = data["args"]
            name, args = _canonical(str(data["name"]), [given] if isinstance(given, str) else given)
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

    @cached_property
    def inner(self) -> Predicate | None:
        """For ``not(P)``: P; None for any other predicate."""
        return parse_predicate(self.args[0]) if self.name == NOT else None

    @property
    def objects(self) -> tuple[str, ...]:
        """The arguments that name objects (all but a region, ``at``'s, and an arm, ``holding``'s;
        P's for ``not(P)``)."""
        if self.inner is not None:
            return self.inner.objects
        related = find_relation(self.name)
        if self.name in _OPTIONAL_ARGS or (related is not None and related.target == "region"):
            return self.args[:1]
        return self.args


def _depth(text: str) -> int:
    """How many parentheses inside one another ``text`` has at its deepest."""
    depth = deepest = 0
    for char in text:
        if char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif char == ")":
            depth -= 1
    return deepest


def _shown(text: Any, limit: int = 60) -> str:
    """``text`` quoted for a message, its start only where it is long."""
    shown = repr(text)
    return shown if len(shown) <= limit else f"{shown[: limit - 1]}…"


def _parse_text(text: Any) -> tuple[str, tuple[str, ...]]:
    if isinstance(text, str) and (depth := _depth(text)) > MAX_PREDICATE_DEPTH:
        raise PredicateError(
            f"a predicate nested {depth:,} deep: {_shown(text)}; allowed: at most "
            f"{MAX_PREDICATE_DEPTH} parentheses inside one another (not(in(a, b)) has 2)"
        )
    match = _FORM.match(text) if isinstance(text, str) else None
    if match is None:
        raise PredicateError(
            f"cannot parse predicate {_shown(text, 200)}: expected name(arg, ...), "
            "e.g. next_to(red_block, blue_box)"
        )
    body = match.group(2)
    if _canonical_name(match.group(1)) == NOT:  # not(in(a, b)): the one argument is a predicate
        return _canonical(match.group(1), [body] if body.strip() else [])
    return _canonical(match.group(1), body.split(",") if body.strip() else [])


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


def on_table(obj: ObjectState, world: WorldState) -> bool:
    """True when ``obj``'s bottom is within TABLE_TOLERANCE of the table and it is on/in nothing."""
    return off_table(obj, world) is None


_EVALUATORS: dict[str, Callable[..., Check]] = {
    "stacked": stacked,
    "holding": holding,
    "level": level,
    "tower": tower,
}


def _target(related: Relation, name: str, world: WorldState) -> ObjectState | str:
    """A relation's target: the object ``name``, or the region's name."""
    return name if related.target == "region" else world.get(name)


def _check(pred: Predicate, world: WorldState, at_radius: float | None) -> Check:
    """The measurement of ``pred``, whose objects are ``world``'s."""
    if pred.inner is not None:
        inner = _check(pred.inner, world, at_radius)
        said = f"{pred.inner} {'holds' if inner.holds else 'does not hold'}: {inner.reason}"
        return Check(not inner.holds, inner.measured, said)
    related = find_relation(pred.name)
    if related is None:
        objects = pred.objects
        return _EVALUATORS[pred.name](
            world, *(world.get(n) for n in objects), *pred.args[len(objects) :]
        )
    a, *targets = pred.args
    if related.name == "at" and at_radius is not None:
        return spatial.at(world, world.get(a), targets[0], at_radius)
    return related.measure(world, world.get(a), *(_target(related, t, world) for t in targets))


def evaluate(
    pred: Predicate | str, world: WorldState, *, at_radius: float | None = None
) -> PredicateResult:
    """Evaluate one predicate on ``world``; ``at_radius`` (m) replaces AT_RADIUS for ``at``.

    Raises:
        PredicateError: ``pred`` is a string that does not parse.
        UnknownObjectError: An argument names no object of ``world``.
    """
    pred = pred if isinstance(pred, Predicate) else parse_predicate(pred)
    check_objects(pred, world.objects)
    check = _check(pred, world, at_radius)
    measured = {k: round(float(v), 6) + 0.0 for k, v in check.measured.items()}
    return PredicateResult(
        predicate=str(pred), holds=check.holds, measured=measured, reason=check.reason
    )


def held_objects(world: WorldState, arm: str | None = None) -> list[str]:
    """The objects ``arm``'s claw holds now (any claw's when ``None``), in scene order."""
    return [o.name for o in world.objects.values() if holding(world, o, arm).holds]


def evaluate_goal(
    goal: Iterable[str | Predicate], world: WorldState, *, at_radius: float | None = None
) -> GoalResult:
    """Evaluate a goal: all predicates hold, the world is settled, and nothing is held.

    Holding is allowed when some goal predicate is ``holding(...)``; ``at_radius`` (m) replaces
    AT_RADIUS for the goal's ``at`` predicates (a suite case's ``region_radius``). A predicate
    the goal repeats (by any of its spellings) is judged once.

    Raises:
        PredicateError: A goal item does not parse.
        UnknownObjectError: A goal item names no object of ``world``.
    """
    preds = list(dict.fromkeys(parse_goal(goal)))
    results = [evaluate(p, world, at_radius=at_radius) for p in preds]
    settled = world.settled(SETTLED_SPEED)
    held = held_objects(world)
    holding_asked = any(p.name == "holding" for p in preds)
    failed = next((r for r in results if not r.holds), None)
    if failed is not None:
        reason = f"{failed.predicate} does not hold: {failed.reason}"
    elif not settled:
        reason = f"the scene has not settled (fastest object at {cm(world.max_speed)}/s)"
    elif held and not holding_asked:
        reason = f"the gripper still holds {', '.join(held)}"
    else:
        reason = f"all {len(results)} goal predicates hold"
    success = failed is None and settled and (holding_asked or not held)
    return GoalResult(
        success=success, results=results, settled=settled, gripper_empty=not held, reason=reason
    )
