"""The spatial relations: each declared once, here; every table that lists them is derived.

A relation is what a place asks for and a goal predicate checks: ``on(a, b)``, ``left_of(a, b)``,
``at(a, REGION)``, ``between(a, b, c)`` (two targets). One :class:`Relation` says all there is
to it::

    Relation(
        name="next_to",                      # the predicate's canonical name
        check=spatial.next_to,               # (world, a, target) -> Check
        placing=Placing("adjacent"),         # how the placement search finds a spot for it
        aliases=("beside", "near", ...),     # other predicate names: beside(a, b)
        phrases=("next to", "beside", ...),  # instruction words: "put it next to the box"
        referring=("next to", "near", ...),  # in a noun phrase: "the block next to the box"
    )

What derives from the registry (docs/how-to/add-a-relation.md):

- :mod:`claw.envs.predicates`: the predicate names and their arity (``PREDICATES``), the aliases
  (``ALIASES``), the evaluation, the prompt's list of predicates (``predicate_signatures``).
- :mod:`claw.skills.placement` and ``place``: the relations a place takes (``relation_names``),
  the JSON schema's enum of the ``relation`` parameter (the plan schema's too), and the search's
  geometry (:class:`Placing`).
- :mod:`claw.planner.language.lexicon`: ``RELATION_PHRASES`` (:func:`relation_phrases`),
  ``REFERRING_RELATIONS`` (:func:`referring_phrases`), ``COMPASS`` (:func:`compass_words`),
  ``SIDE_RELATIONS`` (:func:`side_words`).
- :mod:`claw.eval.mocks`: the relations a noisy mock swaps a place's for (those of an object).

API:

- ``Relation``, ``Placing``, ``Check`` (from :mod:`claw.envs.spatial`).
- ``register_relation(relation) -> Relation``: add one (PredicateError if a name, alias or phrase
  is taken); ``unregister_relation(name)`` removes it (for tests).
- ``relation(name) -> Relation``: by name or alias (any case, spaces or hyphens for ``_``);
  PredicateError when none. ``find_relation(name) -> Relation | None`` likewise.
- ``relations()`` and ``relation_names()``: all of them, in declaration order.
- ``relation_phrases()``, ``referring_phrases()``, ``compass_words()``, ``side_words()``: the
  words that say each relation, as the planner's tables.
- ``registry_version() -> int``: changes on every register and unregister, so that a table
  derived from the registry and cached can be keyed on it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from claw.common.plugins import is_reference, load
from claw.envs import spatial
from claw.envs.exceptions import PredicateError
from claw.envs.spatial import Check
from claw.envs.state import ObjectState

PlacingKind = Literal[
    "support", "contain", "adjacent", "direction", "region", "between", "predicate"
]
Evaluator = Callable[..., Check]
"""A relation's check: the world, the object, and its targets (each an :class:`ObjectState`,
or a region's canonical name when the relation's ``target`` is ``"region"``): ``check(world, a,
b)``, or ``check(world, a, b, c)`` for a relation of two targets."""


@dataclass(frozen=True)
class Placing:
    """How the placement search finds a spot where a relation holds.

    Attributes:
        kind: ``support`` (on the target, which carries the object), ``contain`` (in the target,
            a box), ``adjacent`` (beside the target on the table), ``direction`` (beyond the
            target along an axis), ``region`` (at a table region, packed), ``between`` (in the
            band between two targets, :func:`claw.envs.spatial.band`), or ``predicate``
            (anywhere on the table where the relation's own check holds: slower, for any check).
        axis: For ``direction``: the axis compared (0: x, 1: y).
        sign: For ``direction``: +1 or -1 along it (left = +y, right = -y, behind = +x, front = -x).
    """

    kind: PlacingKind = "predicate"
    axis: int = 0
    sign: int = 1

    @property
    def supported(self) -> bool:
        """Whether the target carries the object (``on`` and ``in``)."""
        return self.kind in ("support", "contain")


@dataclass(frozen=True)
class Relation:
    """One spatial relation ``name(a, target)`` (``name(a, b, c)`` with two targets) and every
    word and table that says it.

    Attributes:
        name: The canonical predicate name (lower case, ``_`` between words).
        check: Its measurement on a world, or a ``"module:attr"`` reference to it, imported the
            first time the relation is measured.
        placing: How ``place`` finds a spot for it.
        target: ``object`` (another object of the scene) or ``region`` (a table region).
        argument: The targets' names in the prompt's signature: ``in(a, box)``,
            ``between(a, b, c)``; one name per target.
        targets: How many targets it takes: 1, or 2 (``between``); its arity is one more.
        aliases: Other predicate names for it (``beside`` for ``next_to``).
        phrases: Instruction words that ask for it ("next to"), in the order the grammar lists.
        referring: Words a noun phrase names objects by with it ("the block left of the box").
        compass: Compass words for its side ("north" for ``behind``: "at its north").
        sides: Side words after "at the" ("at the left of the box" for ``left_of``).
    """

    name: str
    check: Evaluator | str
    placing: Placing = field(default_factory=Placing)
    target: Literal["object", "region"] = "object"
    argument: str = "b"
    aliases: tuple[str, ...] = ()
    phrases: tuple[str, ...] = ()
    referring: tuple[str, ...] = ()
    compass: tuple[str, ...] = ()
    sides: tuple[str, ...] = ()
    targets: int = 1

    def __post_init__(self) -> None:
        if isinstance(self.check, str):
            object.__setattr__(self, "check", _Deferred(self.check, f"relation {self.name!r}"))

    def measure(self, world: object, *args: object) -> Check:
        """Its check on ``world`` of the object and its targets (a referenced check imported on
        first use)."""
        assert callable(self.check)  # a reference was made a deferred check at construction
        return self.check(world, *args)

    @property
    def arity(self) -> int:
        """How many arguments its predicate takes: the object and its targets."""
        return 1 + self.targets

    @property
    def words(self) -> str:
        """The name as words: ``left of``."""
        return self.name.replace("_", " ")

    @property
    def signature(self) -> str:
        """The predicate as the prompt lists it: ``in(a, box)``."""
        return f"{self.name}(a, {self.argument})"


class _Deferred:
    """A check named by reference, imported on its first call."""

    def __init__(self, reference: str, what: str) -> None:
        if not is_reference(reference):
            raise PredicateError(f"{what}: {reference!r} is not a 'module:attr' reference")
        self.reference, self.what = reference, what
        self._loaded: Evaluator | None = None

    def __call__(self, *args: object) -> Check:
        if self._loaded is None:
            self._loaded = load(self.reference, self.what)
        return self._loaded(*args)


_REGISTRY: dict[str, Relation] = {}
_BY_ALIAS: dict[str, Relation] = {}  # alias keys (key_of) -> relation
_RESERVED: set[str] = set()
_VERSION = [0]  # registry_version(), in a list so that registering needs no ``global``
_NAME = re.compile(r"[a-z][a-z0-9_]*")


def key_of(name: str) -> str:
    """A predicate name as a lookup key: lower case, spaces and hyphens as ``_``."""
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def reserve_names(*names: str) -> None:
    """Keep ``names`` (other predicates' names and aliases) from being a relation's."""
    _RESERVED.update(key_of(n) for n in names)


def _taken(relation: Relation) -> list[str]:
    """What of ``relation``'s names and words another relation (or predicate) already has."""
    names = {*_REGISTRY, *_BY_ALIAS, *_RESERVED}
    taken = [n for n in (relation.name, *relation.aliases) if key_of(n) in names]
    for kind, label in (("phrases", "phrase"), ("referring", "referring phrase"),
                        ("compass", "compass word"), ("sides", "side word")):  # fmt: skip
        used = {w for r in _REGISTRY.values() for w in getattr(r, kind)}
        taken += [f"{label} {w!r}" for w in getattr(relation, kind) if w in used]
    return taken


def register_relation(relation: Relation) -> Relation:
    """Add ``relation``; every derived table has it from now on.

    Raises:
        PredicateError: Its name is not lower-case words joined by ``_``; its name, an alias
            or a phrase is another relation's (or another predicate's); or its placing does not
            fit it (``region`` for a region's target only, a direction along x or y).
    """
    if not _NAME.fullmatch(relation.name):
        raise PredicateError(f"bad relation name {relation.name!r}: lower-case words and _")
    placing = relation.placing
    if (placing.kind == "region") != (relation.target == "region") and placing.kind != "predicate":
        raise PredicateError(f"relation {relation.name!r}: a region placing is a region target's")
    if placing.kind == "direction" and (placing.axis not in (0, 1) or placing.sign not in (-1, 1)):
        raise PredicateError(f"relation {relation.name!r}: a direction's axis is 0 or 1, sign ±1")
    _check_targets(relation)
    taken = _taken(relation)
    if taken:
        raise PredicateError(f"relation {relation.name!r}: already taken: {', '.join(taken)}")
    _REGISTRY[relation.name] = relation
    _BY_ALIAS.update(dict.fromkeys(map(key_of, relation.aliases), relation))
    _VERSION[0] += 1
    return relation


def _check_targets(relation: Relation) -> None:
    """Raise PredicateError unless its targets, their names and its placing agree."""
    name, targets = relation.name, relation.targets
    if targets not in (1, 2) or (targets == 2 and relation.target != "object"):
        raise PredicateError(f"relation {name!r}: 1 target, or 2 objects; got {targets}")
    if len(relation.argument.split(",")) != targets:
        raise PredicateError(f"relation {name!r}: name each of its {targets} targets in argument")
    kind = relation.placing.kind
    if (kind == "between") != (targets == 2) and kind != "predicate":
        raise PredicateError(f"relation {name!r}: a between placing is a two targets' relation's")


def unregister_relation(name: str) -> None:
    """Remove the relation ``name`` (for tests).

    Raises:
        PredicateError: No relation has this name.
    """
    removed = _REGISTRY.pop(name, None)
    if removed is None:
        raise PredicateError(f"no relation {name!r}")
    for alias in map(key_of, removed.aliases):
        del _BY_ALIAS[alias]
    _VERSION[0] += 1


def registry_version() -> int:
    """A number that changes whenever a relation is registered or unregistered."""
    return _VERSION[0]


def relations() -> tuple[Relation, ...]:
    """Every relation, in declaration order."""
    return tuple(_REGISTRY.values())


def relation_names() -> tuple[str, ...]:
    """Every relation's name, in declaration order."""
    return tuple(_REGISTRY)


def find_relation(name: str) -> Relation | None:
    """The relation ``name`` or an alias names (any case, spaces or hyphens for ``_``)."""
    found = _REGISTRY.get(name)  # the canonical name: the common case, without a regex
    if found is None:
        key = key_of(name)
        found = _REGISTRY.get(key, _BY_ALIAS.get(key))
    return found


def relation(name: str) -> Relation:
    """The relation ``name`` or an alias names.

    Raises:
        PredicateError: None does; the message lists the relations.
    """
    found = find_relation(name)
    if found is None:
        raise PredicateError(f"unknown relation {name!r}; allowed: {', '.join(_REGISTRY)}")
    return found


def relation_phrases() -> tuple[tuple[str, str], ...]:
    """(phrase, relation) for every instruction phrase, relation by relation."""
    return tuple((p, r.name) for r in _REGISTRY.values() for p in r.phrases)


def referring_phrases() -> dict[tuple[str, ...], str]:
    """Each referring phrase as its words, and the relation it names."""
    return {tuple(p.split()): r.name for r in _REGISTRY.values() for p in r.referring}


def compass_words() -> dict[str, str]:
    """Each compass word and the relation of its side."""
    return {w: r.name for r in _REGISTRY.values() for w in r.compass}


def side_words() -> dict[str, str]:
    """Each side word ("left" of "at the left of the box") and its relation."""
    return {w: r.name for r in _REGISTRY.values() for w in r.sides}


def _direction(name: str, axis: int, sign: int, **words: tuple[str, ...]) -> Relation:
    """A directional relation: ``name`` along ``sign`` x ``axis``."""
    check = spatial.direction(axis, sign, name.replace("_", " "))
    return Relation(name, check, Placing("direction", axis, sign), **words)  # type: ignore[arg-type]


def _binary(fn: Callable[[ObjectState, ObjectState], Check]) -> Evaluator:
    return lambda world, a, b: fn(a, b)


# The built-in relations, in the order every list of them follows. In the benchmarks' top-down
# words (as for the table, "the top of the table" is its far side) "on the top of X" is behind X
# and "on the bottom of X" in front of it; "on top of X" is on it.
for _relation in (
    Relation(
        "on", _binary(spatial.rests_on), Placing("support"),
        aliases=("on_top_of", "on_top", "onto", "upon", "atop"),
        phrases=("on top of", "on to", "onto", "atop", "on", "upon", "above", "over",
                 "onto the top of"),
        referring=("on top of", "on", "atop"),
    ),
    Relation(
        "in", _binary(spatial.inside), Placing("contain"), argument="box",
        aliases=("inside", "inside_of", "into", "within"),
        phrases=("inside of", "inside", "into", "in to", "within", "in"),
        referring=("in", "inside", "inside of", "within"),
    ),
    Relation(
        "next_to", spatial.next_to, Placing("adjacent"),
        aliases=("beside", "near", "next", "adjacent_to", "by"),
        phrases=("next to", "beside", "besides", "alongside", "close to", "near to", "near", "by",
                 "adjacent to", "closer to", "nearer to"),
        referring=("next to", "beside", "near", "close to", "adjacent to", "by"),
    ),
    _direction(
        "left_of", 1, 1,
        aliases=("left", "to_the_left_of", "left_to"),
        phrases=("to the left of", "on the left of", "left of", "west of", "to the west of"),
        referring=("to the left of", "left of", "on the left of", "west of", "to the west of"),
        compass=("west",), sides=("left",),
    ),
    _direction(
        "right_of", 1, -1,
        aliases=("right", "to_the_right_of", "right_to"),
        phrases=("to the right of", "on the right of", "right of", "east of", "to the east of"),
        referring=("to the right of", "right of", "on the right of", "east of", "to the east of"),
        compass=("east",), sides=("right",),
    ),
    _direction(
        "behind", 0, 1,
        aliases=("in_back_of", "behind_of", "beyond"),
        phrases=("behind", "in back of", "beyond", "on the top of", "to the top of", "north of",
                 "to the north of"),
        referring=("behind", "to the top of", "in back of", "beyond", "north of",
                   "to the north of"),
        compass=("north",), sides=("back", "rear", "far"),
    ),
    _direction(
        "in_front_of", 0, -1,
        aliases=("in_front", "front_of", "before"),
        phrases=("in front of", "before", "on the bottom of", "to the bottom of", "south of",
                 "to the south of"),
        referring=("in front of", "to the bottom of", "below", "south of", "to the south of"),
        compass=("south",), sides=("front", "bottom", "near"),
    ),
    # Its words are the planner's to add: "between" reads as a relation once the grammar
    # reads two targets ("between the green and blue blocks").
    Relation(
        "between", spatial.between, Placing("between"), argument="b, c", targets=2,
        aliases=("in_between",),
    ),
    Relation(
        "at", spatial.at, Placing("region"), target="region", argument="REGION",
        phrases=("at", "to"),
    ),
):  # fmt: skip
    register_relation(_relation)
