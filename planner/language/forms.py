"""The logical form an instruction is read into: clauses as :class:`Request` s, their noun
phrases as :class:`Reference` s (with :class:`Filter` post-modifiers), table regions as
:class:`RegionReference` s.

:mod:`claw.planner.language.grammar` reads clauses and :mod:`claw.planner.language.reference` noun
phrases into these; :mod:`claw.planner.grounding.references` finds the objects of the scene they
mean, and :mod:`claw.planner.offline` turns them into goal predicates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from claw.envs.predicates import Predicate
from claw.planner.language.lexicon import Action
from claw.skills import SkillCall

Quantity = Literal["one", "any", "all", "count", "pronoun"]


class Filter(BaseModel):
    """One post-modifier: a relation to another phrase, a region, an extreme, an ordinal, an
    exclusion or a colour match."""

    kind: Literal[
        "relation",
        "region",
        "extreme",
        "ordinal",
        "except",
        "matching",
        "same_color",
        "same_size",
        "parity",
        "color",
    ]
    relation: str | None = None  # relation: left_of, in, on, next_to, ...
    negated: bool = False
    inverse: bool = False  # relation: the target stands in it to the object ("under": on)
    target: Reference | None = None  # relation / extreme (to) / except
    region: str | None = None  # region: a table region or half ("left side")
    measure: str | None = None  # extreme: closest | farthest | small | ...; color: the colour
    rank: int | None = None  # ordinal: 1 = first, -1 = last
    side: str | None = None  # ordinal: counted from this side (left, right, far, near)
    same: bool | None = None  # matching: same colour (True) or a different one (False)
    even: bool | None = None  # parity: objects whose colour the scene has an even number of


class Reference(BaseModel):
    """A noun phrase before it is grounded."""

    quantity: Quantity = "one"
    count: int | None = None
    exact: bool = False  # "both", "the two blocks": exactly that many must match
    colors: list[str] = Field(default_factory=list)
    family: str | None = None  # warm | cool
    type: str | None = None  # block | box
    other: bool = False  # "the other blocks": not those named before
    anaphoric: bool = False  # "the same box", "that box": the one named last, if several match
    filters: list[Filter] = Field(default_factory=list)
    text: str = ""

    @property
    def color(self) -> str | None:
        return self.colors[0] if len(self.colors) == 1 else None

    @property
    def every(self) -> bool:
        return self.quantity in ("all", "count")

    @property
    def pronoun(self) -> bool:
        return self.quantity == "pronoun"

    @property
    def matching(self) -> bool:
        return any(f.kind == "matching" and f.same for f in self.filters)

    @property
    def mismatched(self) -> bool:
        return any(f.kind == "matching" and f.same is False for f in self.filters)

    def loosened(self) -> Reference:
        """The phrase taken for every object it may mean ("the bowls with matching colours" as
        the targets to pair)."""
        return self.model_copy(update={"quantity": "all"})

    @property
    def spatial(self) -> bool:
        """Grounding it needs where things are."""
        return any(f.kind not in ("except", "matching") for f in self.filters) or any(
            f.target is not None and f.target.spatial for f in self.filters
        )


Filter.model_rebuild()


class RegionReference(BaseModel):
    """A table region named outright ("the far left corner") or by an extreme ("the corner
    farthest from the purple bowl")."""

    region: str | None = None
    kind: Literal["corner", "side"] | None = None
    measure: Literal["closest", "farthest"] | None = None
    target: Reference | None = None
    text: str = ""


class Request(BaseModel):
    """One clause read from an instruction: what to do, to which objects, where.

    ``note`` asks for nothing: a statement ("the purple block is hidden under the orange block")
    that names what "it" means next. A ``to`` relation ("move the block to the green thing") is
    into a box, else next to it, decided once its target is grounded.
    """

    action: Action
    objects: list[Reference] = Field(default_factory=list)
    relation: str | None = None
    """on | in | next_to | left_of | ... | at (a region) | to | together | apart; for an
    unstack: out (of a box), table (onto the table, out of a box too)."""
    target: Reference | None = None
    target2: Reference | None = None  # between: the second object, when named apart
    region: str | None = None  # relation at: a table region named outright
    region_ref: RegionReference | None = None  # "the corner farthest from the purple bowl"
    levels: list[str | None] | None = None  # stack: each object's "bottom" / "top", if said
    bottom: Literal["big", "small"] | None = None  # stack by size: which end goes at the bottom
    direction: str | None = None  # push: left | right | far | near
    distance: float | None = None  # push: metres
    text: str = ""
    turn: int = 0
    """The part of the instruction the clause is in (parts are split by full stops, "then",
    "after that"): a later turn's place of an object supersedes an earlier turn's."""


@dataclass(frozen=True)
class Segment:
    """Goals to reach, then the pushes asked for after them (in the instruction's order)."""

    goals: list[Predicate]
    pushes: list[SkillCall] = field(default_factory=list)
    reached: list[Predicate] = field(default_factory=list)
    """Goals its pushes reach ("push the red block to the left of the blue one")."""
    waypoints: list[Predicate] = field(default_factory=list)
    """Goals of this segment that a later turn supersedes: they must hold once its steps ran
    (before its pushes), and not at the end."""


@dataclass(frozen=True)
class Grounding:
    """What the requests ask for on this scene: the goal predicates, and the goal split where
    pushes were asked for (the pushes run between the goals of the requests around them)."""

    goal: list[Predicate]
    segments: list[Segment]

    @property
    def pushes(self) -> list[SkillCall]:
        """Every push asked for, in order."""
        return [call for segment in self.segments for call in segment.pushes]
