"""Referring expressions: what a noun phrase means, as a typed :class:`Reference` (which
objects of the scene it picks is :mod:`claw.planner.grounding.references`).

A recursive-descent parser over words reads a noun phrase — determiner, pre-modifiers, head,
post-modifiers — with its words kept as data in :mod:`claw.planner.language.lexicon`::

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
                 | with matching|mismatched colours, of the same|a different colour (as PHRASE)
                 | at its COMPASS | of an even|odd number | that was previously ...

The post-modifiers are read by :mod:`claw.planner.language.modifiers`;
docs/concepts/planners/references.md writes down what each form means.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from claw.planner.exceptions import UnparseableError
from claw.planner.language.forms import Filter, Reference, RegionReference
from claw.planner.language.inflection import verb_forms
from claw.planner.language.lexicon import (
    COLLECTIVE_NOUNS,
    COLOR_FAMILIES,
    COLOR_NOUNS,
    COLOR_WORDS,
    DEFINITE,
    EXTREME_WORDS,
    GENERIC_HEADS,
    HELD_WORDS,
    INDEFINITE,
    LIGHTNESS_WORDS,
    MATCH_WORDS,
    MIDDLE_WORDS,
    NO_OP,
    NUMBER_WORDS,
    ORDINAL_WORDS,
    OTHER_COLORS,
    OTHER_WORDS,
    PLURAL_HEADS,
    PRONOUNS,
    REGION_HEADS,
    ROBOT,
    SIDE_WORDS,
    SIZE_NOUNS,
    SIZE_WORDS,
    TYPE_WORDS,
    UNIVERSAL,
)
from claw.planner.language.modifiers import Cursor, named_region, post


def parse_reference(text: str) -> Reference:
    """One noun phrase, all of ``text``.

    Raises:
        UnparseableError: ``text`` is not one noun phrase.
    """
    words = Cursor(text.strip(), _phrase)
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
    refs = _both_listed(text) or _listed(Cursor(text.strip(), _phrase), text)
    kind = refs[-1].type  # "the red block and the blue": the type carries over
    for i, ref in enumerate(refs):
        if ref.type is None and not ref.pronoun:  # else the last before: "the blue one"
            ref.type = kind or next((r.type for r in reversed(refs[:i]) if r.type), None)
    return refs


def _both_listed(text: str) -> list[Reference] | None:
    """ "both the red block and a blue one": the phrases after "both", when they are two or more
    and the first names one (not "both red blocks", "both of them")."""
    words = Cursor(text.strip(), _phrase)
    if not words.take("both") or words.done:
        return None
    try:
        refs = _listed(words, text)
    except UnparseableError:
        return None
    return refs if len(refs) > 1 and refs[0].quantity in ("one", "any") else None


def _listed(words: Cursor, text: str) -> list[Reference]:
    """The noun phrases from the cursor on, joined by commas and "and"."""
    refs: list[Reference] = []
    while True:
        ref = _phrase(words)
        if ref is None:
            raise UnparseableError(f"cannot read {text.strip()!r} as objects of the scene")
        refs.append(ref)
        if words.done:
            return refs
        if not (words.take(",", "and") or words.take(",") or words.take("and") or words.take("&")):
            raise UnparseableError(f"cannot read {text.strip()!r} as objects of the scene")


def parse_region(text: str) -> RegionReference | None:
    """A table region named by ``text``, if it names one ("the far left corner", "the corner
    farthest from the purple bowl"); ``None`` otherwise."""
    words = Cursor(text.strip(), _phrase)
    words.take("the")
    start = words.i
    kind = words.peek()
    if kind in REGION_HEADS and words.peek(1) in EXTREME_WORDS:
        words.i += 2
        measure = EXTREME_WORDS[words.words[words.i - 1]]
        if measure in ("closest", "farthest") and (spoken := _speaker_side(words, kind, measure)):
            return spoken  # "the edge nearest me": the near side
        if (
            kind in ("corner", "side")
            and measure in ("closest", "farthest")
            and (words.take("to") or words.take("from"))
        ):
            try:
                target = _phrase(words)
            except UnparseableError:
                return None
            if target is not None and words.done:
                return RegionReference(kind=kind, measure=measure, target=target, text=text)
        words.i = start
    return named_region(words.words[words.i :], text)


def _speaker_side(words: Cursor, kind: str, measure: str) -> RegionReference | None:
    """ "the corner nearest (to) me on the right": the robot stands at the table's near edge,
    so the corner or side closest to it is a near one (farthest, a far one); what follows
    names the rest of the region. ``None`` (cursor as found) when no robot word follows."""
    start = words.i
    words.take("to") or words.take("from")
    if not words.take_any(ROBOT):
        words.i = start
        return None
    rest = [w for w in words.words[words.i :] if w not in ("on", "at", "to", "in", "towards")]
    side = "near" if measure == "closest" else "far"
    region = named_region([side, *rest, kind], " ".join(words.words))
    if region is None:
        words.i = start
    return region


def _phrase(words: Cursor) -> Reference | None:
    """A noun phrase from the cursor on, as far as it goes; ``None`` if none starts there."""
    start = words.i
    text_start = words.i
    heads = set(TYPE_WORDS) | GENERIC_HEADS
    word = words.peek()
    if word in ("it", "them", "they") or (word in PRONOUNS and words.peek(1) not in heads):
        word = words.peek()
        words.i += 1
        if word in ("that", "this") and words.peek() == "one":
            words.i += 1
        ref = Reference(quantity="pronoun", text=word)
        post(words, ref)
        ref.text = " ".join(words.words[text_start : words.i])
        return ref
    ref = Reference()
    _determiner(words, ref)
    first = words.words[start] if start < len(words.words) else ""
    free_choice = first in _FREE_CHOICE and ref.quantity == "all"
    if free_choice:  # "whichever block": one, as "the block"; "whichever blocks": all
        ref.quantity = "one"
    head = _pre_and_head(words, ref)
    if not head and not ref.colors and ref.family is None and ref.quantity == "one":
        words.i = start
        return None
    if not head and not ref.colors and ref.family is None and _counted(first):
        words.i = start  # "2": a count of what? (not "the two", "both")
        return None
    post(words, ref)
    ref.text = " ".join(words.words[text_start : words.i])
    return ref


_FREE_CHOICE = {"whichever", "whatever"}


def _counted(word: str) -> bool:
    """Whether a phrase's first word is a bare count ("2", "three"), which names nothing
    without a noun after it."""
    return word.isdigit() or (word in NUMBER_WORDS and word not in ("a", "one"))


def _determiner(words: Cursor, ref: Reference) -> None:
    word = words.peek()
    if word in DEFINITE:
        words.i += 1
        ref.anaphoric = word in ("that", "this")
        if word in ("these", "those", "their"):
            ref.quantity = "all"
        count = words.peek()  # "the three leftmost blocks"
        if (count.isdigit() or count in NUMBER_WORDS) and count not in ("a", "one"):
            words.i += 1
            ref.quantity, ref.exact = "count", True
            ref.count = int(count) if count.isdigit() else NUMBER_WORDS[count]
    elif words.take("one", "of", "the"):
        ref.quantity = "any"
    elif word == "another" and words.peek(1) not in (*COLOR_NOUNS, *SIZE_NOUNS):
        words.i += 1  # "another cube": any one not named before ("another colour": a filter)
        ref.quantity, ref.other = "any", True
    elif word in INDEFINITE:
        words.i += 1
        ref.quantity = "any"
    elif word in UNIVERSAL:
        words.i += 1
        ref.quantity, ref.count = ("count", 2) if word == "both" else ("all", None)
        ref.exact = word == "both"
        words.take("of")
        words.take("the")
        count = words.peek()  # "all three red blocks": exactly that many
        if (count.isdigit() or count in NUMBER_WORDS) and count not in ("a", "one"):
            words.i += 1
            ref.quantity, ref.exact = "count", True
            ref.count = int(count) if count.isdigit() else NUMBER_WORDS[count]
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


def _pre_and_head(words: Cursor, ref: Reference) -> bool:
    """Pre-modifiers then the head noun; True when a head noun was read."""
    while not words.done:
        read = next((r for read in _PRE_MODIFIERS if (r := read(words, ref)) is not None), None)
        if read is None:
            break
        if read == "head":
            return True
    return _head(words, ref)


_Pre = Literal["pre", "head"]


def _no_op(words: Cursor, ref: Reference) -> _Pre | None:
    """ "the only block", "the same box": a definite singular (the same: the one named last)."""
    word = words.peek()
    if word not in NO_OP or words.peek(1) in COLOR_NOUNS:
        return None
    words.i += 1
    ref.anaphoric = ref.anaphoric or word == "same"
    return "pre"


def _match_word(words: Cursor, ref: Reference) -> _Pre | None:
    """ "their matching color bowls", "the mismatched boxes"."""
    word = words.peek()
    if word not in MATCH_WORDS or words.peek(1) not in (*COLOR_NOUNS, *TYPE_WORDS):
        return None
    words.i += 1
    words.take_any(tuple((w,) for w in COLOR_NOUNS))
    ref.filters.append(Filter(kind="matching", same=MATCH_WORDS[word]))
    return "pre"


def _colour(words: Cursor, ref: Reference) -> _Pre | None:
    """A colour, or a list of them ("the red, green and blue blocks")."""
    word = words.peek()
    if word not in COLOR_WORDS and word not in OTHER_COLORS:
        return None
    words.i += 1
    ref.colors.append(COLOR_WORDS.get(word, word))
    words.take("colored") or words.take("coloured")
    while words.peek() in (",", "and", "or") and words.peek(1) in COLOR_WORDS:
        words.i += 1
    return "pre"


def _family(words: Cursor, ref: Reference) -> _Pre | None:
    """ "the warm colored blocks", "the cool colors" (not "warm to the touch")."""
    word = words.peek()
    if word not in COLOR_FAMILIES or words.peek(1) in ("to", "from"):
        return None
    words.i += 1
    ref.family = word
    if words.take("colors") or words.take("colours"):  # "the cool colors": the objects of them
        ref.quantity = "all" if ref.quantity == "one" else ref.quantity
        return "head"
    words.take("colored") or words.take("coloured") or words.take("color")
    return "pre"


def _size(words: Cursor, ref: Reference) -> _Pre | None:
    """ "the smallest block", "the big ones"."""
    if words.peek() not in SIZE_WORDS:
        return None
    ref.filters.append(Filter(kind="extreme", measure=SIZE_WORDS[words.peek()]))
    words.i += 1
    words.take("sized") or words.take("size")  # "the medium sized block"
    return "pre"


def _lightness(words: Cursor, ref: Reference) -> _Pre | None:
    """ "the light colored block", "the palest block"."""
    word = words.peek()
    if word not in LIGHTNESS_WORDS:
        return None
    words.i += 1
    words.take_any(tuple((w,) for w in COLOR_NOUNS))
    ref.filters.append(Filter(kind="extreme", measure=LIGHTNESS_WORDS[word]))
    return "pre"


def _ordinal(words: Cursor, ref: Reference) -> _Pre | None:
    """ "the second block" (not "the first of ...")."""
    word = words.peek()
    if word not in ORDINAL_WORDS or words.peek(1) in ("of",):
        return None
    after = words.peek(1)
    side = EXTREME_WORDS.get(after)
    if side in SIDE_WORDS.values():  # "the third leftmost block": the third from the left
        words.i += 2
        ref.filters.append(Filter(kind="ordinal", rank=ORDINAL_WORDS[word], side=side))
        return "pre"
    if side is not None or (after.endswith("est") and after in _RANKED):
        raise UnparseableError(  # "the 2nd largest block": a rank by size, not from the left
            f"cannot read {word + ' ' + after!r}: claw reads the {after} one, or one counted "
            "from a side ('the second block from the left'), not a rank by a superlative"
        )
    words.i += 1
    ref.filters.append(Filter(kind="ordinal", rank=ORDINAL_WORDS[word]))
    return "pre"


_RANKED = {*SIZE_WORDS, *LIGHTNESS_WORDS}
"""Words of a measure whose superlative an ordinal could rank by ("2nd largest")."""


def _side_extreme(words: Cursor, ref: Reference) -> _Pre | None:
    """ "the leftmost block"; before the noun, "the nearest block" is nearest the robot."""
    word = words.peek()
    if word not in EXTREME_WORDS or words.peek(1) in ("to", "from"):
        return None
    measure = EXTREME_WORDS[word]
    if measure in ("closest", "farthest"):  # "the nearest block": nearest to the robot
        measure = "near" if measure == "closest" else "far"
    words.i += 1
    ref.filters.append(Filter(kind="extreme", measure=measure))
    return "pre"


def _middle(words: Cursor, ref: Reference) -> _Pre | None:
    """ "the middle block", "the center red cube": the one between the others along their row
    (not "the middle of", "the center side")."""
    if words.peek() not in MIDDLE_WORDS or words.peek(1) not in (*TYPE_WORDS, *GENERIC_HEADS,
                                                                *COLOR_WORDS):  # fmt: skip
        return None
    words.i += 1
    ref.filters.append(Filter(kind="extreme", measure="middle"))
    return "pre"


def _side_adjective(words: Cursor, ref: Reference) -> _Pre | None:
    """ "the left box", "the far yellow block": the extreme that way, among those that match
    (not "the left side", "the top left corner", "the left of")."""
    word, after = words.peek(), words.peek(1)
    if word not in SIDE_WORDS or after in (*REGION_HEADS, *SIDE_WORDS, "of", "to", "from", ""):
        return None
    if after not in (*TYPE_WORDS, *GENERIC_HEADS, *COLOR_WORDS, *SIZE_WORDS, *COLOR_FAMILIES):
        return None
    words.i += 1
    measure = "top" if word in ("top", "topmost", "uppermost") else SIDE_WORDS[word]
    ref.filters.append(Filter(kind="extreme", measure=measure))  # "top": highest in a tower
    return "pre"


def _collective(words: Cursor, ref: Reference) -> _Pre | None:
    """ "the pile of blue blocks", "a group of cubes": all of them."""
    if words.peek() not in COLLECTIVE_NOUNS or words.peek(1) != "of":
        return None
    words.i += 2
    words.take("the") or words.take("those") or words.take("these")
    if ref.quantity in ("one", "any"):
        ref.quantity = "all"
    return "pre"


def _other(words: Cursor, ref: Reference) -> _Pre | None:
    """ "the other blocks", "the remaining ones"; "the others", "the rest" are a head too."""
    word = words.peek()
    if word not in OTHER_WORDS:
        return None
    words.i += 1
    ref.other = True
    if ref.quantity == "one":
        ref.quantity = "all" if word != "other" or words.peek() in PLURAL_HEADS else "one"
    return "head" if word in ("others", "rest") else "pre"


def _verbal(words: Cursor, ref: Reference) -> _Pre | None:
    """A verb's form before the head: "the grasped block" (the one named last, as it was
    grasped), "the stacked block" (on another block), "the sliding cabinet" (says nothing)."""
    word, after = words.peek(), words.peek(1)
    if after not in (*TYPE_WORDS, *GENERIC_HEADS):
        return None
    if word in HELD_WORDS:
        ref.anaphoric = True
    elif word == "stacked":
        below = Reference(quantity="all", type="block", text="any block")
        ref.filters.append(Filter(kind="relation", relation="on", target=below))
    elif word not in verb_forms("ing"):
        return None
    words.i += 1
    return "pre"


_PRE_MODIFIERS: tuple[Callable[[Cursor, Reference], _Pre | None], ...] = (
    _no_op, _match_word, _colour, _family, _size, _lightness, _ordinal, _side_extreme,
    _middle, _side_adjective, _collective, _other, _verbal,
)  # fmt: skip
"""The pre-modifiers, tried in this order at each word before the head."""


def _head(words: Cursor, ref: Reference) -> bool:
    """The head noun, if one is next; True when read. Plural heads and colour lists are all."""
    word = words.peek()
    if word in TYPE_WORDS:
        words.i += 1
        ref.type = TYPE_WORDS[word]
        if word.endswith("s") and word not in ("box",) and ref.quantity in ("one", "any"):
            ref.quantity = "all"  # "the blocks", "any blocks"
        return True
    if word in GENERIC_HEADS:
        words.i += 1
        if word in PLURAL_HEADS and ref.quantity in ("one", "any"):
            ref.quantity = "all"
        return True
    if len(ref.colors) > 1 and ref.quantity == "one":
        ref.quantity = "all"
    return False
