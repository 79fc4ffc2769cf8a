"""Referring expressions: what a noun phrase means (a typed :class:`Reference`), and which objects
of the scene it picks (:func:`ground`).

A recursive-descent parser over words reads a noun phrase — determiner, pre-modifiers, head,
post-modifiers — with its vocabulary kept as data in :mod:`claw.planner.vocabulary`::

    phrase    := PRONOUN | DET? PRE* HEAD? POST*
    DET       := the | a | an | any | one of the | all (of) (the) | every | each | both (the)
                 | NUMBER (of the)
    PRE       := COLOUR ((,|and|or) COLOUR)* | warm | cool | small | big | smallest | biggest
                 | leftmost | rightmost | farthest | nearest | ... | first | second | ... | last
                 | other | remaining
    HEAD      := block(s) | box(es) | one(s) | object(s) | ...
    POST      := from the SIDE                         (an ordinal's or a superlative's side)
                 | closest|nearest|farthest (to|from) PHRASE
                 | (that|which)? (is|are)? not? RELATION PHRASE
                 | (on|in|at) the REGION               (where on the table)
                 | except|but|other than PHRASE
                 | with matching|mismatched colours, of the same|a different colour

Grounding is on the live scene (:class:`~claw.envs.state.WorldState`); README.md writes down
what each expression means. A definite singular phrase with several answers raises
:class:`~claw.planner.exceptions.AmbiguousError` naming them; "a red block" takes the first in
scene order.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from claw.envs.exceptions import PredicateError, UnknownObjectError
from claw.envs.objects import COLOR_RGBA
from claw.envs.predicates import evaluate
from claw.envs.regions import REGIONS, region_anchor, resolve_region
from claw.envs.state import WorldState
from claw.planner.exceptions import AmbiguousError, UnparseableError, UnsupportedError
from claw.planner.vocabulary import (
    COLOR_FAMILIES,
    COLOR_WORDS,
    COMPASS,
    EXTREME_WORDS,
    LIGHTNESS_WORDS,
    NUMBER_WORDS,
    ORDINAL_WORDS,
    OTHER_COLORS,
    REFERRING_RELATIONS,
    REGION_ALIASES,
    REGION_NOUNS,
    SIDE_WORDS,
    SIZE_WORDS,
    TYPE_WORDS,
    UNDER_WORDS,
)

Quantity = Literal["one", "any", "all", "count", "pronoun"]
TIE = 0.01  # m: two objects closer than this along a measure are not told apart by it
TABLE_GAP = 0.005  # m: an object whose bottom is this near the table stands on it
LIGHTNESS_TIE = 0.05  # colours closer than this in luminance are not told apart by lightness


class Filter(BaseModel):
    """One post-modifier: a relation to another phrase, a region, an extreme, an ordinal, an
    exclusion or a colour match."""

    kind: Literal[
        "relation", "region", "extreme", "ordinal", "except", "matching", "same_color", "parity"
    ]
    relation: str | None = None  # relation: left_of, in, on, next_to, ...
    negated: bool = False
    inverse: bool = False  # relation: the target stands in it to the object ("under": on)
    target: Reference | None = None  # relation / extreme (to) / except
    region: str | None = None  # region: a table region or half ("left side")
    measure: str | None = None  # extreme: closest | farthest | small | big | left | right | ...
    rank: int | None = None  # ordinal: 1 = first, -1 = last
    side: str | None = None  # ordinal: counted from this side (left, right, far, near)
    same: bool | None = None  # matching: same colour (True) or a different one (False)
    even: bool | None = None  # parity: objects whose colour the scene has an even number of


class Reference(BaseModel):
    """A noun phrase before it is grounded."""

    quantity: Quantity = "one"
    count: int | None = None
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


_PRONOUNS = {"it", "them", "that", "this", "they", "those", "these"}
_ARTICLES = {"the", "this", "that", "these", "those", "its", "their"}
_INDEFINITE = {"a", "an", "any", "some"}
_UNIVERSAL = {"all", "every", "each", "both", "whatever", "whichever"}
_NO_OP = {"only", "single", "sole", "lone", "same"}  # "the only block": a definite singular
_MATCH_WORDS = {"matching": True, "matched": True, "corresponding": True, "mismatched": False,
                "mismatching": False, "unmatched": False, "different": False}  # fmt: skip
_GENERIC_HEADS = {"one", "ones", "object", "objects", "thing", "things", "item", "items", "piece",
                  "pieces"}  # fmt: skip
_PLURAL_HEADS = {"ones", "objects", "things", "items", "pieces"}
_EXCEPT = (("other", "than"), ("except", "for"), ("except",), ("but",), ("apart", "from"),
           ("besides",), ("excluding",), ("save", "for"))  # fmt: skip
_BE = {"is", "are", "was", "were", "that", "which", "has", "have", "having", "sits", "sit",
       "stands", "stand", "lies", "lie", "placed", "sitting", "standing", "lying", "located",
       "resting", "rests", "currently", "already"}  # fmt: skip
_REGION_HEADS = {"corner", "side", "center", "middle", "centre", *REGION_NOUNS}
_DIFFERENT = (("a", "different"), ("different",), ("another",), ("mismatched",),
              ("mismatching",), ("non", "matching"), ("unmatched",))  # fmt: skip
_SAME = (("the", "same"), ("matching",), ("same",), ("its",), ("their",), ("its", "own"), ("that",),
         ("their", "own"), ("corresponding",), ("the", "corresponding"),
         ("the", "matching"))  # fmt: skip
_ON_TABLE = (("on", "the", "table"), ("from", "the", "table"), ("off", "the", "table"),
             ("off", "of", "the", "table"))  # fmt: skip
_WHOSE_COLOR_DIFFERS = (("whose", "color", "differs"), ("whose", "colour", "differs"),
                        ("whose", "color", "is", "different"),
                        ("whose", "colour", "is", "different"))  # fmt: skip
# Words that place a description in the past: the scene is grounded as it was when the
# instruction was given, so "the object that was previously at its north" needs nothing more.
_TEMPORAL = (("previously",), ("before",), ("originally",), ("earlier",), ("initially",),
             ("at", "first"), ("used", "to", "be"), ("at", "the", "start"), ("too",),
             ("as", "well"), ("also",))  # fmt: skip
# The objects' only surface property is their colour: a texture is read as one.
_PARITY = tuple(
    (*lead, parity, *tail)
    for parity in ("even", "odd")
    for lead, tail in (
        (("of", "an"), ("number",)),
        (("whose", "color", "appears", "an"), ("number", "of", "times")),
        (("whose", "colour", "appears", "an"), ("number", "of", "times")),
    )
)
_COLOR_NOUNS = {"color", "colors", "colour", "colours", "colored", "coloured", "texture",
                "textures"}  # fmt: skip


class _Words:
    """The words of a phrase and a cursor over them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.words = text.replace(",", " , ").split()
        self.i = 0

    def peek(self, k: int = 0) -> str:
        return self.words[self.i + k] if self.i + k < len(self.words) else ""

    def take(self, *seq: str) -> bool:
        """Consume ``seq`` if the words continue with it."""
        if tuple(self.words[self.i : self.i + len(seq)]) == seq:
            self.i += len(seq)
            return True
        return False

    def take_any(self, options: tuple[tuple[str, ...], ...]) -> tuple[str, ...] | None:
        for seq in sorted(options, key=len, reverse=True):
            if self.take(*seq):
                return seq
        return None

    @property
    def done(self) -> bool:
        return self.i >= len(self.words)


def parse_reference(text: str) -> Reference:
    """One noun phrase, all of ``text``.

    Raises:
        UnparseableError: ``text`` is not one noun phrase.
    """
    words = _Words(text.strip())
    ref = _phrase(words)
    if ref is None or not words.done:
        raise UnparseableError(f"cannot read {text.strip()!r} as objects of the scene")
    return ref


def parse_references(text: str) -> list[Reference]:
    """Noun phrases joined by commas and "and" ("the red block and the blue one"); a list of
    colours before one plural head is one phrase ("the red, green and blue blocks").

    Raises:
        UnparseableError: ``text`` is not a list of noun phrases.
    """
    words = _Words(text.strip())
    refs: list[Reference] = []
    while True:
        ref = _phrase(words)
        if ref is None:
            raise UnparseableError(f"cannot read {text.strip()!r} as objects of the scene")
        refs.append(ref)
        if words.done:
            break
        if not (words.take(",", "and") or words.take(",") or words.take("and") or words.take("&")):
            raise UnparseableError(f"cannot read {text.strip()!r} as objects of the scene")
    kind = refs[-1].type  # "the red block and the blue": the type carries over
    for ref in refs:
        if ref.type is None and not ref.pronoun:
            ref.type = kind
    return refs


def parse_region(text: str) -> RegionReference | None:
    """A table region named by ``text``, if it names one ("the far left corner", "the corner
    farthest from the purple bowl"); ``None`` otherwise."""
    words = _Words(text.strip())
    words.take("the")
    start = words.i
    kind = words.peek()
    if kind in ("corner", "side") and words.peek(1) in EXTREME_WORDS:
        words.i += 1
        measure = EXTREME_WORDS[words.peek()]
        words.i += 1
        if measure in ("closest", "farthest") and (words.take("to") or words.take("from")):
            try:
                target = _phrase(words)
            except UnparseableError:
                return None
            if target is not None and words.done:
                return RegionReference(kind=kind, measure=measure, target=target, text=text)
        words.i = start
    return named_region(words.words[words.i :], text)


def named_region(words: list[str], text: str = "") -> RegionReference | None:
    """The region these words name outright ("the bottom right area of the table"), if any."""
    skip = {"of", "the", "table", *REGION_NOUNS}
    name = [REGION_ALIASES.get(w, w) for w in words if w not in skip]
    if not name or not set(name) & {"left", "right", "far", "near", "center", "side", "corner"}:
        return None
    try:
        return RegionReference(region=resolve_region(" ".join(name)), text=text)
    except PredicateError:
        return None


def _phrase(words: _Words) -> Reference | None:
    """A noun phrase from the cursor on, as far as it goes; ``None`` if none starts there."""
    start = words.i
    text_start = words.i
    if words.peek() in _PRONOUNS and words.peek(1) not in set(TYPE_WORDS) | _GENERIC_HEADS:
        word = words.peek()
        words.i += 1
        if word in ("that", "this") and words.peek() == "one":
            words.i += 1
        ref = Reference(quantity="pronoun", text=word)
        _post(words, ref)
        ref.text = " ".join(words.words[text_start : words.i])
        return ref
    ref = Reference()
    _determiner(words, ref)
    head = _pre_and_head(words, ref)
    if not head and not ref.colors and ref.family is None and ref.quantity == "one":
        words.i = start
        return None
    _post(words, ref)
    ref.text = " ".join(words.words[text_start : words.i])
    return ref


def _determiner(words: _Words, ref: Reference) -> None:
    word = words.peek()
    if word in _ARTICLES:
        words.i += 1
        ref.anaphoric = word in ("that", "this")
        if word in ("these", "those", "their"):
            ref.quantity = "all"
    elif words.take("one", "of", "the"):
        ref.quantity = "any"
    elif word in _INDEFINITE:
        words.i += 1
        ref.quantity = "any"
    elif word in _UNIVERSAL:
        words.i += 1
        ref.quantity = "all"
        words.take("of")
        words.take("the")
    elif (word.isdigit() or word in NUMBER_WORDS) and word != "a" and words.peek(1) != "cm":
        if word == "one" and words.peek(1) in ("of", "block", "box", "cube"):
            pass
        elif word == "one":
            return  # "the red one" is a head, not a count
        words.i += 1
        ref.quantity, ref.count = "count", int(word) if word.isdigit() else NUMBER_WORDS[word]
        if ref.count == 1:
            ref.quantity, ref.count = "any", None
        words.take("of", "the")


def _pre_and_head(words: _Words, ref: Reference) -> bool:
    """Pre-modifiers then the head noun; True when a head noun was read."""
    while not words.done:
        word = words.peek()
        if word in _NO_OP and words.peek(1) not in _COLOR_NOUNS:
            words.i += 1
            ref.anaphoric = ref.anaphoric or word == "same"
            continue
        if word in _MATCH_WORDS and words.peek(1) in (*_COLOR_NOUNS, *TYPE_WORDS):
            words.i += 1  # "their matching color bowls"
            words.take_any(tuple((w,) for w in _COLOR_NOUNS))
            ref.filters.append(Filter(kind="matching", same=_MATCH_WORDS[word]))
            continue
        if word in COLOR_WORDS or word in OTHER_COLORS:
            words.i += 1
            ref.colors.append(COLOR_WORDS.get(word, word))
            words.take("colored") or words.take("coloured")
            while words.peek() in (",", "and", "or") and words.peek(1) in COLOR_WORDS:
                words.i += 1
            continue
        if word in COLOR_FAMILIES and words.peek(1) not in ("to", "from"):
            words.i += 1
            ref.family = word
            words.take("colored") or words.take("coloured") or words.take("color")
            continue
        if word in SIZE_WORDS:
            words.i += 1
            ref.filters.append(Filter(kind="extreme", measure=SIZE_WORDS[word]))
            continue
        if word in LIGHTNESS_WORDS:  # "the light colored block", "the palest block"
            words.i += 1
            words.take_any(tuple((w,) for w in _COLOR_NOUNS))
            ref.filters.append(Filter(kind="extreme", measure=LIGHTNESS_WORDS[word]))
            continue
        if word in ORDINAL_WORDS and words.peek(1) not in ("of",):
            words.i += 1
            ref.filters.append(Filter(kind="ordinal", rank=ORDINAL_WORDS[word]))
            continue
        if word in EXTREME_WORDS and words.peek(1) not in ("to", "from"):
            measure = EXTREME_WORDS[word]
            if measure in ("closest", "farthest"):  # "the nearest block": nearest to the robot
                measure = "near" if measure == "closest" else "far"
            words.i += 1
            ref.filters.append(Filter(kind="extreme", measure=measure))
            continue
        if word in ("other", "remaining", "rest", "others"):
            words.i += 1
            ref.other = True
            if ref.quantity == "one":
                ref.quantity = "all" if word != "other" or words.peek() in _PLURAL_HEADS else "one"
            if word in ("others", "rest"):
                return True
            continue
        break
    word = words.peek()
    if word in TYPE_WORDS:
        words.i += 1
        ref.type = TYPE_WORDS[word]
        if word.endswith("s") and word not in ("box",) and ref.quantity in ("one", "any"):
            ref.quantity = "all"  # "the blocks", "any blocks"
        return True
    if word in _GENERIC_HEADS:
        words.i += 1
        if word in _PLURAL_HEADS and ref.quantity in ("one", "any"):
            ref.quantity = "all"
        return True
    if len(ref.colors) > 1 and ref.quantity == "one":
        ref.quantity = "all"
    return False


def _post(words: _Words, ref: Reference) -> None:
    """Post-modifiers, as many as follow."""
    while not words.done:
        start = words.i
        if _post_one(words, ref):
            continue
        words.i = start
        return


def _post_one(words: _Words, ref: Reference) -> bool:
    """One post-modifier; False (cursor anywhere) when none starts here."""
    if words.take_any(_ON_TABLE):  # "the blue block on the table": not on another object
        ref.filters.append(Filter(kind="region", region="table"))
        return True
    if words.peek(1) != "under" and words.take("from"):  # "the second block from the left"
        words.take("the")
        side = SIDE_WORDS.get(words.peek())
        counted = any(f.kind in ("ordinal", "extreme") for f in ref.filters)
        if side is None or not counted:  # "the blocks from the bottom left area": where they are
            words.i -= 1 if words.words[words.i - 1] == "the" else 0
            return _region_filter(words, ref)
        words.i += 1
        words.take("side") or words.take("end")
        for f in ref.filters:
            if f.kind == "ordinal":
                f.side = side
        return True
    word = words.peek()
    if word in EXTREME_WORDS and words.peek(1) in ("to", "from"):
        words.i += 2
        target = _phrase(words)
        if target is None:
            return False
        measure = EXTREME_WORDS[word]
        measure = {"near": "closest", "far": "farthest"}.get(measure, measure)
        ref.filters.append(Filter(kind="extreme", measure=measure, target=target))
        return True
    if words.take_any(_EXCEPT):
        target = _phrase(words)
        if target is None:
            return False
        ref.filters.append(Filter(kind="except", target=target))
        return True
    parity = words.take_any(_PARITY)
    if parity is not None:  # "the blocks of an even number"
        ref.filters.append(Filter(kind="parity", even="even" in parity))
        return True
    if words.take("with") or words.take("of"):
        words.take("a")
        if words.peek() in COLOR_FAMILIES and words.peek(1) in _COLOR_NOUNS:  # "of warm colours"
            ref.family = words.peek()
            words.i += 2
            return True
        return _colour_match(words, ref)
    if words.take_any(_TEMPORAL):
        return True
    while words.peek() in _BE:
        words.i += 1
    if words.take_any(_TEMPORAL):
        return True
    compass = _compass(words)
    if compass is not None:
        ref.filters.append(compass)
        return True
    mark = words.i
    if _colour_match(words, ref):  # "that has the same colour as the blue box"
        return True
    words.i = mark
    if words.take_any((("match",), ("matches",), ("matching",), ("match", "with"))):
        # "that matches its colour", "matching the colour of the red box"
        words.take_any(_SAME) or words.take("the")
        if words.peek() not in _COLOR_NOUNS:
            return False
        words.i += 1
        if words.take("of") or words.take("as"):  # "matching the colour of the red box"
            target = _phrase(words)
            if target is None:
                return False
            ref.filters.append(Filter(kind="same_color", target=target))
            return True
        ref.filters.append(Filter(kind="matching", same=True))
        return True
    if words.take_any(_WHOSE_COLOR_DIFFERS):  # "a bowl whose colour differs from its own"
        words.take_any((("from", "its", "own"), ("from", "its"), ("from", "theirs")))
        ref.filters.append(Filter(kind="matching", same=False))
        return True
    negated = words.take("not")
    mark = words.i
    if words.take_any(UNDER_WORDS):  # "the blue block under the red block"
        target = _phrase(words)
        if target is not None:
            ref.filters.append(
                Filter(kind="relation", relation="on", inverse=True, negated=negated,
                       target=target)
            )  # fmt: skip
            return True
        words.i = mark
    relation = words.take_any(tuple(REFERRING_RELATIONS))
    if relation is not None:
        target = _phrase(words)
        if target is not None:
            ref.filters.append(
                Filter(kind="relation", relation=REFERRING_RELATIONS[relation], negated=negated,
                       target=target)
            )  # fmt: skip
            return True
        words.i = mark
    if not negated and words.peek() in ("on", "in", "at", "within"):  # "on the left side"
        words.i += 1
        return _region_filter(words, ref)
    return False


def _colour_match(words: _Words, ref: Reference) -> bool:
    """ "the same colour (as X)", "a different colour", "matching colours" from the cursor."""
    negated = bool(words.take_any(_DIFFERENT))
    same = negated or words.take_any(_SAME)
    if not same or words.peek() not in _COLOR_NOUNS:
        return False
    words.i += 1
    if words.take("as"):  # "with the same colour as the red box"
        target = _phrase(words)
        if target is None or negated:
            return False
        ref.filters.append(Filter(kind="same_color", target=target))
        return True
    ref.filters.append(Filter(kind="matching", same=not negated))
    return True


def _compass(words: _Words) -> Filter | None:
    """ "at its north", "to the east of the box": a relation by compass direction."""
    start = words.i
    if words.take_any((("at",), ("to",), ("on",))):
        if words.take("its") and words.peek() in COMPASS:  # of what was named last
            relation = COMPASS[words.peek()]
            words.i += 1
            words.take("side")
            return Filter(kind="relation", relation=relation, target=Reference(quantity="pronoun"))
        if words.take("the") and words.peek() in COMPASS and words.peek(1) == "of":
            relation = COMPASS[words.peek()]
            words.i += 2
            target = _phrase(words)
            if target is not None:
                return Filter(kind="relation", relation=relation, target=target)
    words.i = start
    return None


def _region_filter(words: _Words, ref: Reference) -> bool:
    """A region the objects are in, from the cursor ("the far left corner")."""
    n = _region_length(words)
    region = named_region(words.words[words.i : words.i + n])
    if region is None or region.region is None:
        return False
    words.i += n
    ref.filters.append(Filter(kind="region", region=region.region))
    return True


def _region_length(words: _Words) -> int:
    """How many words from the cursor name a region ("the far left corner of the table")."""
    n = 0
    allowed = {"the", "of", "table", *SIDE_WORDS, *_REGION_HEADS, *REGION_ALIASES}
    while words.peek(n) in allowed and words.peek(n):
        n += 1
    return n


# -- grounding -----------------------------------------------------------------------------------


def _color(name: str) -> str:
    return name.split("_")[0]


def _type(name: str) -> str:
    return name.split("_")[1]


def ground(
    ref: Reference,
    names: list[str],
    world: WorldState | None,
    *,
    default_type: str | None = None,
    last: list[str] | None = None,
    mentioned: Sequence[str] | None = None,
) -> list[str]:
    """The objects ``ref`` picks in the scene, in scene order (or in the order an ordinal or an
    extreme ranks them).

    Args:
        names: The scene's objects.
        world: Where they are; needed for spatial phrases.
        default_type: The type a phrase without one means (a place's objects are blocks).
        last: What "it"/"them" refers to.
        mentioned: Objects named before, in order: "the other blocks" leaves them out, "the
            same box" takes the last of them that matches.

    Raises:
        UnknownObjectError: nothing in the scene matches.
        AmbiguousError: a definite singular phrase with several answers.
        UnparseableError: a pronoun with nothing before it.
        UnsupportedError: a spatial phrase without the scene.
    """
    from claw.planner.grammar import missing_object_error

    if ref.pronoun:
        if not last:
            raise UnparseableError(f"cannot tell what {ref.text or 'it'!r} refers to")
        found = list(last)
        return _filtered(ref, found, names, world, last, mentioned)
    names = list(dict.fromkeys(names))
    kind = ref.type or default_type
    found = [n for n in names if _matches(ref, n, kind)]
    if not found and ref.type is None and kind is not None:  # "the red one" may be a box
        found = [n for n in names if _matches(ref, n, None)]
    if len(ref.colors) > 1:  # "the yellow, blue and green blocks": in the order said
        found.sort(key=lambda n: ref.colors.index(_color(n)))
    if ref.other:
        found = [n for n in found if n not in (mentioned or set())]
    if not found:
        raise missing_object_error(ref, names)
    found = _filtered(ref, found, names, world, last, mentioned)
    if not found:  # there are such objects, but none where or as the phrase says
        raise UnknownObjectError(
            f"nothing in the scene is {ref.text!r}; objects: {', '.join(names)}"
        )
    if ref.anaphoric and len(found) > 1:  # "the same container": the one named last
        recent = [n for n in reversed(list(mentioned or [])) if n in found]
        found = recent[:1] or found
    return _chosen(ref, found)


def _matches(ref: Reference, name: str, kind: str | None) -> bool:
    if ref.colors and _color(name) not in ref.colors:
        return False
    if ref.family is not None and _color(name) not in COLOR_FAMILIES[ref.family]:
        return False
    return kind is None or _type(name) == kind


def _filtered(
    ref: Reference,
    found: list[str],
    names: list[str],
    world: WorldState | None,
    last: list[str] | None,
    mentioned: Sequence[str] | None,
) -> list[str]:
    """``found`` narrowed by the phrase's post-modifiers, in order."""
    for f in ref.filters:
        if f.kind == "matching":
            continue  # a property of a pairing, judged where the pairs are made
        if f.kind == "except":
            assert f.target is not None
            excluded = set(_ground_any(f.target, names, world, last, mentioned, found))
            found = [n for n in found if n not in excluded]
            continue
        if world is None:
            raise UnsupportedError(f"{ref.text!r} needs the scene as it is")
        found = _spatial(ref, f, found, names, world, last, mentioned)
    return found


def _ground_any(
    ref: Reference,
    names: list[str],
    world: WorldState | None,
    last: list[str] | None,
    mentioned: Sequence[str] | None,
    context: list[str],
) -> list[str]:
    """Every object ``ref`` may mean (a relation's landmark may be any of several)."""
    loose = ref.model_copy(update={"quantity": "all" if ref.quantity == "one" else ref.quantity})
    kind = _type(context[0]) if context and ref.type is None else None
    return ground(loose, names, world, default_type=kind, last=last, mentioned=mentioned)


def _spatial(
    ref: Reference,
    f: Filter,
    found: list[str],
    names: list[str],
    world: WorldState,
    last: list[str] | None,
    mentioned: Sequence[str] | None,
) -> list[str]:
    position = {n: world.get(n).position for n in names}
    if f.kind == "region":
        assert f.region is not None
        if f.region == "table":
            return [n for n in found if world.get(n).bottom <= world.table_z + TABLE_GAP]
        return [n for n in found if _in_region(position[n], f.region)]
    if f.kind == "relation":
        assert f.target is not None and f.relation is not None
        landmarks = ground(f.target, names, world, last=last, mentioned=mentioned)
        _note(mentioned, landmarks)
        keep = []
        for n in found:
            pairs = [(m, n) if f.inverse else (n, m) for m in landmarks if m != n]
            holds = any(evaluate(f"{f.relation}({a}, {b})", world).holds for a, b in pairs)
            if holds != f.negated:
                keep.append(n)
        return keep
    if f.kind == "extreme":
        return _ranked(ref, f, found, names, world, position, last, mentioned)
    if f.kind == "parity":
        counts: dict[str, int] = {}
        for n in names:
            if _type(n) == _type(found[0]):
                counts[_color(n)] = counts.get(_color(n), 0) + 1
        return [n for n in found if (counts[_color(n)] % 2 == 0) == f.even]
    if f.kind == "same_color":
        assert f.target is not None
        landmarks = ground(f.target, names, world, last=last, mentioned=mentioned)
        _note(mentioned, landmarks)
        colors = {_color(m) for m in landmarks}
        return [n for n in found if _color(n) in colors and n not in landmarks]
    # ordinal: rank along the side it is counted from (the near side when none is said)
    side = f.side or "left"
    axis, sign = _SIDE_AXES[side]
    order = sorted(found, key=lambda n: -sign * position[n][axis])
    rank = f.rank or 1
    if abs(rank) > len(order):
        raise AmbiguousError(
            f"{ref.text!r}: there are only {len(order)} ({', '.join(order)}), "
            f"counted from the {side}"
        )
    index = rank - 1 if rank > 0 else rank
    chosen = order[index]
    _check_gap(ref, [position[n][axis] * sign for n in order], index, order)
    return [chosen]


_SIDE_AXES = {"left": (1, 1.0), "right": (1, -1.0), "far": (0, 1.0), "near": (0, -1.0)}


def _ranked(
    ref: Reference,
    f: Filter,
    found: list[str],
    names: list[str],
    world: WorldState,
    position: dict[str, np.ndarray],
    last: list[str] | None,
    mentioned: Sequence[str] | None,
) -> list[str]:
    """The objects at the extreme a superlative asks for: the one, or the n of a count."""
    if f.measure in ("small", "big"):
        size = {n: float(np.prod(world.get(n).half_extents)) for n in found}
        score = {n: size[n] if f.measure == "big" else -size[n] for n in found}
        tie, alike = 1e-9, "they are the same size"
    elif f.measure in ("light", "dark"):
        lightness = {n: _luminance(_color(n)) for n in found}
        score = {n: v if f.measure == "light" else -v for n, v in lightness.items()}
        tie, alike = LIGHTNESS_TIE, "their colours are about as light"
    elif f.measure in _SIDE_AXES:
        axis, sign = _SIDE_AXES[f.measure]
        score = {n: sign * float(position[n][axis]) for n in found}
        tie, alike = TIE, f"they are within {TIE * 100:.0f} cm of each other that way"
    else:
        assert f.target is not None
        landmarks = ground(f.target, names, world, last=last, mentioned=mentioned)
        candidates = [n for n in found if n not in landmarks]
        if not candidates:
            return []
        distance = {
            n: min(float(np.linalg.norm(position[n][:2] - position[m][:2])) for m in landmarks)
            for n in candidates
        }
        score = {n: -d if f.measure == "closest" else d for n, d in distance.items()}
        tie, alike = TIE, f"their distances are within {TIE * 100:.0f} cm"
    order = sorted(score, key=lambda n: -score[n])
    take = ref.count if ref.quantity == "count" and ref.count else 1
    if ref.quantity == "all" and f.measure in ("small", "big"):  # "the smaller blocks"
        return _size_class(order, score)
    if ref.quantity == "all":
        return order
    if len(order) > take and score[order[take - 1]] - score[order[take]] < tie:
        raise AmbiguousError(f"{ref.text!r} could be {order[take - 1]} or {order[take]}: {alike}")
    return order[:take]


def _luminance(color: str) -> float:
    """Relative luminance of a colour as rendered (0 black, 1 white)."""
    r, g, b, _ = COLOR_RGBA.get(color, (0.0, 0.0, 0.0, 1.0))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _size_class(order: list[str], score: dict[str, float]) -> list[str]:
    """The objects on the asked-for side of the widest gap in size (``order``: that side
    first); all of them when they are all one size."""
    gaps = [score[a] - score[b] for a, b in itertools.pairwise(order)]
    if not gaps or max(gaps) <= 1e-9:
        return order
    return order[: gaps.index(max(gaps)) + 1]


def _check_gap(ref: Reference, values: list[float], index: int, order: list[str]) -> None:
    for j in (index - 1, index + 1):
        if 0 <= j < len(values) and abs(values[j] - values[index]) < TIE:
            raise AmbiguousError(
                f"{ref.text!r} could be {order[index]} or {order[j]}: they are level "
                f"(within {TIE * 100:.0f} cm) from that side"
            )


def _note(mentioned: Sequence[str] | None, landmarks: list[str]) -> None:
    """Landmarks a phrase names are named too: "the objects with the same colour as the red box
    ... into it" (a list of what was named is kept in order; other sequences are left alone)."""
    if isinstance(mentioned, list):
        mentioned[:] = [n for n in mentioned if n not in landmarks] + landmarks


def _in_region(position: np.ndarray, region: str) -> bool:
    """Where an object is ``on``/``in`` a region of the table: the half (a side) or the quarter
    (a corner) of the table it names, or within reach of the center's anchor."""
    cx, _ = REGIONS["center"]
    x, y = float(position[0]), float(position[1])
    halves = {"left": y > 0.0, "right": y < 0.0, "far": x > cx, "near": x < cx}
    if region == "center":
        return float(np.linalg.norm(np.array([x, y]) - np.array(REGIONS["center"]))) <= 0.12
    words = [w for w in region.split() if w in halves]
    return all(halves[w] for w in words)


def _chosen(ref: Reference, found: list[str]) -> list[str]:
    if ref.quantity in ("all", "pronoun"):
        return found
    if ref.quantity == "count":
        assert ref.count is not None
        if len(found) < ref.count:
            raise AmbiguousError(
                f"{ref.text!r} asks for {ref.count}, but only {len(found)} match: "
                f"{', '.join(found)}"
            )
        return found[: ref.count]
    if ref.quantity == "any" or len(found) == 1:
        return found[:1]
    raise AmbiguousError(f"{ref.text!r} could be any of {', '.join(found)}; say which")


def ground_region(region: RegionReference, names: list[str], world: WorldState | None) -> str:
    """The table region ``region`` names on this scene.

    Raises:
        AmbiguousError: two regions equally far from the landmark.
        UnsupportedError: an extreme without the scene.
    """
    if region.region is not None:
        return region.region
    if world is None:
        raise UnsupportedError(f"{region.text!r} needs the scene as it is")
    assert region.target is not None
    landmarks = ground(region.target, names, world)
    kinds = [r for r in REGIONS if r.endswith(region.kind or "corner")]
    distance = {
        r: min(
            float(np.linalg.norm(np.array(region_anchor(r)) - world.get(m).position[:2]))
            for m in landmarks
        )
        for r in kinds
    }
    order = sorted(distance, key=distance.get, reverse=region.measure == "farthest")
    if len(order) > 1 and abs(distance[order[0]] - distance[order[1]]) < TIE:
        raise AmbiguousError(f"{region.text!r} could be the {order[0]} or the {order[1]}")
    return order[0]
