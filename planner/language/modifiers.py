"""A noun phrase's words under a cursor (:class:`Cursor`), and its post-modifiers: what
follows the head ("on the table", "from the left", "closest to the box", "except the red one",
"that is not red", "left of the blue box", ...), each read by one reader, tried in a fixed order
(:func:`post`). :mod:`claw.planner.language.reference` reads the rest of the phrase; a reader that
meets a nested phrase ("left of *the blue box*") has the cursor read it (:meth:`Cursor.phrase`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from claw.envs.exceptions import PredicateError
from claw.envs.regions import resolve_region
from claw.planner.language.forms import Filter, Reference, RegionReference
from claw.planner.language.lexicon import (
    BE,
    COLOR_FAMILIES,
    COLOR_NOUNS,
    COLOR_WORDS,
    COMPASS,
    DIFFERENT,
    EXCEPT,
    EXTREME_WORDS,
    GENERIC_HEADS,
    HOLDING_VERBS,
    MATCH_VERBS,
    ON_TABLE,
    PARITY,
    REFERRING_RELATIONS,
    REGION_ALIASES,
    REGION_HEADS,
    REGION_NOUNS,
    ROBOT,
    SAME,
    SIDE_WORDS,
    SIZE_NOUNS,
    SOURCE_LEADS,
    TEMPORAL,
    TYPE_WORDS,
    UNDER_WORDS,
    WHOSE_COLOR_DIFFERS,
)


class Cursor:
    """The words of a phrase, a cursor over them, and how a nested phrase is read from it."""

    def __init__(self, text: str, read: Callable[[Cursor], Reference | None]) -> None:
        self.text = text
        self.words = text.replace(",", " , ").split()
        self.i = 0
        self.read = read

    def phrase(self) -> Reference | None:
        """A noun phrase from the cursor on (as far as it goes), or None."""
        return self.read(self)

    def peek(self, k: int = 0) -> str:
        """The word ``k`` after the cursor ("" past the end)."""
        return self.words[self.i + k] if self.i + k < len(self.words) else ""

    def take(self, *seq: str) -> bool:
        """Consume ``seq`` if the words continue with it."""
        if tuple(self.words[self.i : self.i + len(seq)]) == seq:
            self.i += len(seq)
            return True
        return False

    def take_any(self, options: tuple[tuple[str, ...], ...]) -> tuple[str, ...] | None:
        """Consume the longest of ``options`` the words continue with; which one."""
        for seq in sorted(options, key=len, reverse=True):
            if self.take(*seq):
                return seq
        return None

    @property
    def done(self) -> bool:
        """Whether every word has been read."""
        return self.i >= len(self.words)


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


def post(words: Cursor, ref: Reference) -> None:
    """Post-modifiers, as many as follow."""
    while not words.done:
        start = words.i
        if _post_one(words, ref):
            continue
        words.i = start
        return


def _post_one(words: Cursor, ref: Reference) -> bool:
    """One post-modifier; False (cursor anywhere) when none starts here.

    Each reader says True or False once it has recognised its words, None to let the next try
    (where it leaves the cursor as it found it). "is", "that", "which", ... come between the
    first readers and the others; "not" before the last ones."""
    for read in _POST_FIRST:
        found = read(words, ref)
        if found is not None:
            return found
    while words.peek() in BE:
        words.i += 1
    for read in _POST_AFTER_BE:
        found = read(words, ref)
        if found is not None:
            return found
    negated = words.take("not")
    for negatable in _POST_NEGATABLE:
        found = negatable(words, ref, negated)
        if found is not None:
            return found
    return False


def _on_table(words: Cursor, ref: Reference) -> bool | None:
    """ "the blue block on the table": not on another object."""
    if not words.take_any(ON_TABLE):
        return None
    ref.filters.append(Filter(kind="region", region="table"))
    return True


def _counted_from(words: Cursor, ref: Reference) -> bool | None:
    """ "the second block from the left"; "the blocks from the bottom left area": where."""
    if words.peek(1) == "under" or not words.take("from"):
        return None
    words.take("the")
    side = SIDE_WORDS.get(words.peek())
    counted = any(f.kind in ("ordinal", "extreme") for f in ref.filters)
    if side is None or not counted:  # "the blocks from the bottom left area": where they are
        words.i -= 1 if words.words[words.i - 1] == "the" else 0
        return _region_filter(words, ref) or _source(words, ref)
    words.i += 1
    words.take("side") or words.take("end")
    for f in ref.filters:
        if f.kind == "ordinal":
            f.side = side
    return True


def _source(words: Cursor, ref: Reference) -> bool:
    """ "(the block) from the gray bin", "from on top of the blue block": what it rests on or
    in now, from the cursor (after "from")."""
    words.take_any(SOURCE_LEADS)
    target = words.phrase()
    if target is None:
        return False
    relation = "in" if target.type == "box" else "on"
    ref.filters.append(Filter(kind="relation", relation=relation, target=target))
    return True


def _extreme_to(words: Cursor, ref: Reference) -> bool | None:
    """ "closest to the box", "farthest from me"."""
    extreme = _distance_extreme(words)
    if extreme is None:
        return None
    ref.filters.append(extreme)
    return True


def _except(words: Cursor, ref: Reference) -> bool | None:
    """ "except the red one", "other than the boxes", ", but not the green one"."""
    start = words.i
    words.take(",")
    if not words.take_any(EXCEPT):
        words.i = start
        return None
    words.take("not")
    target = words.phrase()
    if target is None:
        return False
    words.take(",")  # "all the blocks, except the green one, ..."
    ref.filters.append(Filter(kind="except", target=target))
    return True


def _parity(words: Cursor, ref: Reference) -> bool | None:
    """ "the blocks of an even number"."""
    parity = words.take_any(PARITY)
    if parity is None:
        return None
    ref.filters.append(Filter(kind="parity", even="even" in parity))
    return True


def _with_of(words: Cursor, ref: Reference) -> bool | None:
    """ "of warm colours", "with the same colour as the red box"."""
    mark = words.i
    if not (words.take("with") or words.take("of")):
        return None
    words.take("a")
    if words.peek() in COLOR_FAMILIES and words.peek(1) in COLOR_NOUNS:  # "of warm colours"
        ref.family = words.peek()
        words.i += 2
        return True
    if _colour_match(words, ref):
        return True
    words.i = mark  # "with the red block in it": what it holds
    return None


def _temporal(words: Cursor, ref: Reference) -> bool | None:
    """ "that was previously ...", "as well": nothing to add."""
    return True if words.take_any(TEMPORAL) else None


def _compass_relation(words: Cursor, ref: Reference) -> bool | None:
    """ "at its north", "to the east of the box"."""
    compass = _compass(words)
    if compass is None:
        return None
    ref.filters.append(compass)
    return True


def _same_colour(words: Cursor, ref: Reference) -> bool | None:
    """ "that has the same colour as the blue box"."""
    mark = words.i
    if _colour_match(words, ref):
        return True
    words.i = mark
    return None


def _matches(words: Cursor, ref: Reference) -> bool | None:
    """ "that matches its colour", "matching the colour of the red box"."""
    if not words.take_any(MATCH_VERBS):
        return None
    words.take_any(SAME) or words.take("the")
    if words.peek() not in COLOR_NOUNS:
        return False
    words.i += 1
    if words.take("of") or words.take("as"):  # "matching the colour of the red box"
        target = words.phrase()
        if target is None:
            return False
        ref.filters.append(Filter(kind="same_color", target=target))
        return True
    ref.filters.append(Filter(kind="matching", same=True))
    return True


def _by_colour(words: Cursor, ref: Reference) -> bool | None:
    """ "(the boxes) by colour", "by their colours": each to the one of its colour."""
    if words.peek() != "by":
        return None
    start = words.i
    words.i += 1
    words.take("their") or words.take("its") or words.take("the")
    if words.peek() not in COLOR_NOUNS:
        words.i = start
        return None
    words.i += 1
    ref.filters.append(Filter(kind="matching", same=True))
    return True


def _colour_differs(words: Cursor, ref: Reference) -> bool | None:
    """ "a bowl whose colour differs from its own"."""
    if not words.take_any(WHOSE_COLOR_DIFFERS):
        return None
    words.take_any((("from", "its", "own"), ("from", "its"), ("from", "theirs")))
    ref.filters.append(Filter(kind="matching", same=False))
    return True


def _colour_is(words: Cursor, ref: Reference, negated: bool) -> bool | None:
    """ "every block that is (not) red"."""
    if words.peek() not in COLOR_WORDS or words.peek(1) in (*TYPE_WORDS, *GENERIC_HEADS):
        return None
    ref.filters.append(Filter(kind="color", measure=COLOR_WORDS[words.peek()], negated=negated))
    words.i += 1
    return True


def _not_a(words: Cursor, ref: Reference, negated: bool) -> bool | None:
    """ "everything that is not a box": all but the boxes."""
    kind = words.peek(1) if words.peek() in ("a", "an") else words.peek()
    if not negated or kind not in TYPE_WORDS:
        return None
    words.i += 1 + (words.peek() in ("a", "an"))
    others = Reference(quantity="all", type=TYPE_WORDS[kind], text=f"the {kind}")
    ref.filters.append(Filter(kind="except", target=others))
    return True


def _under(words: Cursor, ref: Reference, negated: bool) -> bool | None:
    """ "the blue block under the red block": the red block is on it."""
    mark = words.i
    return _inverse(words, ref, "on", negated, mark) if words.take_any(UNDER_WORDS) else None


def _holding(words: Cursor, ref: Reference, negated: bool) -> bool | None:
    """ "the box containing the green block", "that holds it", "which has the red block in it",
    "with the red block inside": the named object is in it."""
    mark = words.i
    had = words.i > 0 and words.words[words.i - 1] in ("has", "have")  # read with "is", "that"
    if not (had or words.take_any(_HOLDER_WORDS)):
        return None
    return _inverse(words, ref, "in", negated, mark, _INSIDE_IT)


def _inverse(
    words: Cursor,
    ref: Reference,
    relation: str,
    negated: bool,
    mark: int,
    closings: tuple[tuple[str, ...], ...] = (),
) -> bool | None:
    """The phrase from the cursor on as what stands in ``relation`` to the objects of ``ref``;
    its closing words (``closings``: "in it") read with it. None, the cursor back at ``mark``,
    when no phrase follows."""
    target = words.phrase()
    if target is None:
        words.i = mark
        return None
    if closings:
        words.take_any(closings)
        inside = target.filters[-1:]  # "the green block in it": read with the phrase
        if inside and inside[0].target is not None and inside[0].target.pronoun:
            target.filters.pop()
    ref.filters.append(
        Filter(kind="relation", relation=relation, inverse=True, negated=negated, target=target)
    )
    return True


_HOLDER_WORDS = (*((w,) for w in HOLDING_VERBS), ("with",))
_INSIDE_IT = (("in", "it"), ("inside", "it"), ("in", "them"), ("inside",), ("in", "there"))


def _relation(words: Cursor, ref: Reference, negated: bool) -> bool | None:
    """ "(not) left of the blue box", "in the bowl"."""
    mark = words.i
    relation = words.take_any(tuple(REFERRING_RELATIONS))
    if relation is not None:
        target = words.phrase()
        if target is not None:
            ref.filters.append(
                Filter(kind="relation", relation=REFERRING_RELATIONS[relation], negated=negated,
                       target=target)
            )  # fmt: skip
            return True
        words.i = mark
    return None


def _on_region(words: Cursor, ref: Reference, negated: bool) -> bool | None:
    """ "on the left side", "in the far right corner"."""
    if negated or words.peek() not in ("on", "in", "at", "within"):
        return None
    words.i += 1
    return _region_filter(words, ref)


_POST_FIRST: tuple[Callable[[Cursor, Reference], bool | None], ...] = (
    _on_table, _counted_from, _extreme_to, _except, _parity, _with_of, _temporal, _by_colour,
)  # fmt: skip
_POST_AFTER_BE: tuple[Callable[[Cursor, Reference], bool | None], ...] = (
    _temporal, _compass_relation, _extreme_to, _same_colour, _matches, _colour_differs,
)  # fmt: skip
_POST_NEGATABLE: tuple[Callable[[Cursor, Reference, bool], bool | None], ...] = (
    _colour_is, _not_a, _under, _holding, _relation, _on_region,
)  # fmt: skip
"""The post-modifiers, tried in this order: before "is", "that", ...; after them; after "not"."""


def _distance_extreme(words: Cursor) -> Filter | None:
    """ "closest to X" (or "nearest X"), "farthest from X"; "nearest to the robot" is the near
    side's extreme."""
    word = words.peek()
    if word not in EXTREME_WORDS:
        return None
    measure = EXTREME_WORDS[word]
    measure = {"near": "closest", "far": "farthest"}.get(measure, measure)
    bare = measure == "closest" and words.peek(1) in ("the", "me", "you")  # "nearest the box"
    if words.peek(1) not in ("to", "from") and not bare:
        return None
    start = words.i
    words.i += 1 if bare else 2
    if words.take_any(ROBOT):  # the robot stands at the near edge
        return Filter(kind="extreme", measure="near" if measure == "closest" else "far")
    if words.peek() == "the" and words.peek(1) in SIDE_WORDS and measure == "farthest":
        words.i += 2  # "furthest to the right": the rightmost
        return Filter(kind="extreme", measure=SIDE_WORDS[words.words[words.i - 1]])
    target = words.phrase()
    if target is None:
        words.i = start
        return None
    return Filter(kind="extreme", measure=measure, target=target)


def _colour_match(words: Cursor, ref: Reference) -> bool:
    """ "the same colour (as X)", "a different colour", "matching colours" from the cursor."""
    negated = bool(words.take_any(DIFFERENT))
    same = negated or words.take_any(SAME)
    if not same or words.peek() not in (*COLOR_NOUNS, *SIZE_NOUNS):
        return False
    kind: Literal["same_color", "same_size"] = (
        "same_size" if words.peek() in SIZE_NOUNS else "same_color"
    )
    words.i += 1
    if words.take("as"):  # "with the same colour as the red box"
        target = words.phrase()
        if target is None or negated:
            return False
        ref.filters.append(Filter(kind=kind, target=target))
        return True
    if kind == "same_size":
        return False
    ref.filters.append(Filter(kind="matching", same=not negated))
    return True


def _compass(words: Cursor) -> Filter | None:
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
            target = words.phrase()
            if target is not None:
                return Filter(kind="relation", relation=relation, target=target)
    words.i = start
    return None


def _region_filter(words: Cursor, ref: Reference) -> bool:
    """A region the objects are in, from the cursor ("the far left corner")."""
    n = _region_length(words)
    said = [w for w in words.words[words.i : words.i + n] if w != "the"]
    if len(said) == 2 and said[0] == "far" and said[1] in ("left", "right"):
        words.i += n  # "the one on the far right": the rightmost, not the far right corner
        ref.filters.append(Filter(kind="extreme", measure=said[1]))
        return True
    region = named_region(words.words[words.i : words.i + n])
    if region is None or region.region is None:
        return False
    words.i += n
    ref.filters.append(Filter(kind="region", region=region.region))
    return True


def _region_length(words: Cursor) -> int:
    """How many words from the cursor name a region ("the far left corner of the table")."""
    n = 0
    allowed = {"the", "of", "table", *SIDE_WORDS, *REGION_HEADS, *REGION_ALIASES}
    while words.peek(n) in allowed and words.peek(n):
        n += 1
    return n
