"""Referring expressions: what a noun phrase means, as a typed :class:`Reference` (which
objects of the scene it picks is :mod:`claw.planner.grounding`).

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
                 | with matching|mismatched colours, of the same|a different colour (as PHRASE)
                 | at its COMPASS | of an even|odd number | that was previously ...

README.md writes down what each form means.
"""

from __future__ import annotations

from claw.envs.exceptions import PredicateError
from claw.envs.regions import resolve_region
from claw.planner.exceptions import UnparseableError
from claw.planner.forms import Filter, Reference, RegionReference
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

_PRONOUNS = {"it", "them", "that", "this", "they", "those", "these"}
_ARTICLES = {"the", "this", "that", "these", "those", "its", "their"}
_INDEFINITE = {"a", "an", "any", "some"}
_UNIVERSAL = {"all", "every", "each", "both", "whatever", "whichever"}
_NO_OP = {"only", "single", "sole", "lone", "same"}  # "the only block": a definite singular
_MATCH_WORDS = {"matching": True, "matched": True, "corresponding": True, "same": True,
                "mismatched": False,
                "mismatching": False, "unmatched": False, "different": False}  # fmt: skip
_GENERIC_HEADS = {"one", "ones", "object", "objects", "thing", "things", "item", "items", "piece",
                  "pieces"}  # fmt: skip
_PLURAL_HEADS = {"ones", "objects", "things", "items", "pieces"}
_EXCEPT = (("other", "than"), ("except", "for"), ("except",), ("but",), ("apart", "from"),
           ("besides",), ("excluding",), ("save", "for"))  # fmt: skip
_BE = {"is", "are", "was", "were", "that", "which", "has", "have", "having", "sits", "sit",
       "stands", "stand", "lies", "lie", "placed", "sitting", "standing", "lying", "located",
       "resting", "rests", "currently", "already", "hidden", "buried", "covered", "stacked",
       "kept", "left", "now"}  # fmt: skip
_REGION_HEADS = {"corner", "side", "center", "middle", "centre", *REGION_NOUNS}
_DIFFERENT = (("a", "different"), ("different",), ("another",), ("the", "other"), ("mismatched",),
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
             ("as", "well"), ("also",), ("one", "by", "one"), ("one", "at", "a", "time"),
             ("in", "turn"))  # fmt: skip
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
    heads = set(TYPE_WORDS) | _GENERIC_HEADS
    word = words.peek()
    if word in ("it", "them", "they") or (word in _PRONOUNS and words.peek(1) not in heads):
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
        count = words.peek()  # "the three leftmost blocks"
        if (count.isdigit() or count in NUMBER_WORDS) and count not in ("a", "one"):
            words.i += 1
            ref.quantity, ref.exact = "count", True
            ref.count = int(count) if count.isdigit() else NUMBER_WORDS[count]
    elif words.take("one", "of", "the"):
        ref.quantity = "any"
    elif word in _INDEFINITE:
        words.i += 1
        ref.quantity = "any"
    elif word in _UNIVERSAL:
        words.i += 1
        ref.quantity, ref.count = ("count", 2) if word == "both" else ("all", None)
        ref.exact = word == "both"
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
    extreme = _distance_extreme(words)
    if extreme is not None:
        ref.filters.append(extreme)
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
    extreme = _distance_extreme(words)  # "that is closest to the green box"
    if extreme is not None:
        ref.filters.append(extreme)
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
    if words.peek() in COLOR_WORDS and words.peek(1) not in (*TYPE_WORDS, *_GENERIC_HEADS):
        color = COLOR_WORDS[words.peek()]  # "every block that is not red"
        words.i += 1
        ref.filters.append(Filter(kind="color", measure=color, negated=negated))
        return True
    kind = words.peek(1) if words.peek() in ("a", "an") else words.peek()
    if negated and kind in TYPE_WORDS:  # "everything that is not a box": all but the boxes
        words.i += 1 + (words.peek() in ("a", "an"))
        others = Reference(quantity="all", type=TYPE_WORDS[kind], text=f"the {kind}")
        ref.filters.append(Filter(kind="except", target=others))
        return True
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


_ROBOT = (("the", "robot"), ("me",), ("you",), ("the", "claw"), ("the", "arm"))


def _distance_extreme(words: _Words) -> Filter | None:
    """ "closest to X", "farthest from X"; "nearest to the robot" is the near side's extreme."""
    word = words.peek()
    if word not in EXTREME_WORDS or words.peek(1) not in ("to", "from"):
        return None
    start = words.i
    words.i += 2
    measure = EXTREME_WORDS[word]
    measure = {"near": "closest", "far": "farthest"}.get(measure, measure)
    if words.take_any(_ROBOT):  # the robot stands at the near edge
        return Filter(kind="extreme", measure="near" if measure == "closest" else "far")
    if words.peek() == "the" and words.peek(1) in SIDE_WORDS and measure == "farthest":
        words.i += 2  # "furthest to the right": the rightmost
        return Filter(kind="extreme", measure=SIDE_WORDS[words.words[words.i - 1]])
    target = _phrase(words)
    if target is None:
        words.i = start
        return None
    return Filter(kind="extreme", measure=measure, target=target)


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
