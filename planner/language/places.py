"""Where things go: the rest of a place, stack, push or unstack clause read into a
:class:`~claw.planner.language.forms.Request` (:mod:`claw.planner.language.grammar` finds the verb
and calls these).

``OBJECTS [RELATION TARGET]`` and the constructions around it (together, by size, a level at a
time, on top of each other, on the table, a distance that makes a place a push), a push's
``OBJECTS [DISTANCE] DIRECTION [DISTANCE]``, and the blocks an unstack takes off. Of the parses
``OBJECTS RELATION TARGET`` the first whose objects read and whose target names a place is kept.
"""

from __future__ import annotations

from itertools import pairwise

from lark import Tree

from claw.planner.exceptions import UnparseableError, UnsupportedError
from claw.planner.language import lexicon
from claw.planner.language.forms import Reference, Request
from claw.planner.language.parsing import (
    NUMBER,
    RELATIONS,
    WAYS,
    Parse,
    cached,
    child,
    parse_all,
    parse_first,
    span,
    text_of,
    tokens,
    without,
)
from claw.planner.language.reference import (
    named_region,
    parse_reference,
    parse_references,
    parse_region,
)

_WAY_ORDER = {phrase: k for k, phrase in enumerate(WAYS)}
_METRIC = {unit for unit in lexicon.UNITS if unit.startswith(("c", "m"))}  # "5 cm" is a distance


@cached
def reads_as_objects(text: str) -> bool:
    """True when ``text`` is empty or reads as noun phrases."""
    if not text:
        return True
    try:
        parse_references(text)
    except UnparseableError:
        return False
    return True


def _region_of(text: str) -> str | None:
    """The table region a target phrase names outright, if it names one."""
    region = named_region(text.split())
    return None if region is None else region.region


@cached
def _names_place(target: str) -> bool:
    """True when ``target`` names objects or a table region ("the blue box", "the far side")."""
    nouns = {"side", "corner", "center", "middle", "table", *lexicon.REGION_NOUNS}
    region = parse_region(target)  # "the far side", "the corner farthest from the bowl"
    if region is not None and (region.region is None or nouns & set(target.split())):
        return True  # (with a region noun: not a bare "the right")
    try:
        parse_reference(target)
    except UnparseableError:
        return False
    return True


def parse_unstack(rest: str, clause: str, target: str | None = None) -> Request:
    """Blocks to take off whatever they rest on: "the tower", "the blocks", "it"."""
    words = tokens(rest.strip())
    rest = words.slice(0, len(words.words) - (words.words[-1:] == ("apart",)))
    if not rest or parse_first("tower_noun", rest):
        objects = [Reference(quantity="all", type="block", text=rest or "the blocks")]
    else:
        objects = parse_references(rest)
    return Request(
        action="unstack",
        objects=objects,
        target=parse_reference(target) if target else None,
        text=clause,
    )


_Split = tuple[str, str, str]  # (objects, relation, target)


@cached
def _placements(rest: str) -> tuple[tuple[_Split, ...], str | None]:
    """One reading of ``rest`` (rule ``placement``): its splits OBJECTS RELATION TARGET, earliest
    relation first (the longest where two start together), each relation a whole word between
    spaces; and the words before "on top of each other" (its first parse), if it says that."""
    splits, each_other = [], None
    for tree, words in parse_all("placement", rest):
        i, j = span(tree.children[1])
        if tree.children[1].data == "each_other_phrase":
            each_other = text_of((tree, words), 0) if each_other is None else each_other
        elif all(words.spaced[i:j]):  # "(on" is no relation
            relation = RELATIONS[" ".join(words.words[i:j])]
            splits.append(
                ((i, i - j), (text_of((tree, words), 0), relation, text_of((tree, words), 2)))
            )
    return tuple(split for _, split in sorted(splits)), each_other


@cached
def find_relation(rest: str) -> _Split | None:
    """(objects, relation, target): of the parses OBJECTS RELATION TARGET, earliest relation
    first (the longest where two start together), the first whose objects read and whose target
    names a place, else the first."""
    splits = _placements(rest)[0]
    for split in splits:
        if reads_as_objects(split[0]) and _names_place(split[2]):
            return split
    return splits[0] if splits else None


@cached
def _elided_relation(rest: str) -> tuple[str, str, str] | None:
    """(objects, "at", target): of the parses NOUN-PHRASE ARTICLE..., the first whose sides read
    ("put the yellow one the green thing")."""
    for tree, words in parse_all("elided", rest):
        i = span(tree.children[0])[1]
        objects, target = (
            " ".join(words.slice(*r).split()) for r in ((0, i), (i, len(words.words)))
        )
        if reads_as_objects(objects) and _names_place(target):
            return objects, "at", target
    return None


def parse_place(rest: str, clause: str, action: str, elide: bool = False) -> Request:
    """OBJECTS [RELATION TARGET] and the constructions around it, to a place or a stack."""
    grouped = _grouped(rest, clause, action)
    if grouped is not None:
        return grouped
    each_other = _placements(rest)[1]
    if each_other is not None:  # "put the blocks on top of each other": a stack
        action, rest = "stack", each_other
    beside = _beside_each_other(rest, clause, action)
    if beside is not None:
        return beside
    between = _between(without(rest, "filler_words", {"so_that"}), clause, action)
    if between is not None:  # "so it sits between the two boxes"
        return between
    on_table = parse_first("on_table", rest)
    if on_table and action == "place":  # "put every block on the table": unstack them
        taken = parse_unstack(text_of(on_table, "span"), clause)
        return taken.model_copy(update={"relation": "table"})
    if parse_first("unnamed_spot", rest):
        raise UnsupportedError(
            f"no skill puts an object down at an unnamed spot ({clause!r}); name a table region "
            "(the center, the left side, the far right corner, ...) or an object to put it next to",
            from_reading=True,  # "place on table" may say more to another reader
        )
    rest = without(rest, "filler_words", {"so_that", "updown"})  # "so that it is", "up"
    if action == "place" and "apart" in tokens(rest).words:  # "move the blocks apart"
        return parse_apart(rest, clause)
    if action == "place" and " far from " in f" {rest} " and find_relation(rest) is None:
        return parse_apart(rest.replace(" far from ", " apart from "), clause)  # no other place
    push = _as_push(rest, clause) if action == "place" else None
    if push is not None:
        return push
    rest, found = _placement(rest, clause, elide)
    if found is None:
        if action == "stack":  # "stack one on the other": what was named before
            objects = parse_references(rest) if rest else [Reference(quantity="pronoun")]
            return Request(action="stack", objects=objects, text=clause)
        raise UnparseableError(f"cannot read where to put things in {clause!r}")
    return _placed(found, clause, action)


def _between(rest: str, clause: str, action: str) -> Request | None:
    """ "put the red block (in) between the blue box and the green block", "between the two
    boxes": a place between two objects (``target`` and ``target2``, or one phrase of two)."""
    words = tokens(rest)
    if "between" not in words.words:
        return None
    at = words.words.index("between")
    objects = words.slice(0, at - (at > 0 and words.words[at - 1] == "in"))
    targets = parse_references(words.slice(at + 1, len(words.words)))
    if len(targets) > 2 or not objects:
        raise UnparseableError(f"between what, in {clause!r}? name two objects")
    return Request(action=action, objects=parse_references(objects), relation="between",
                   target=targets[0], target2=targets[1] if len(targets) == 2 else None,
                   text=clause)  # fmt: skip


RECIPROCALS = ("each other", "one another")


def _beside_each_other(rest: str, clause: str, action: str) -> Request | None:
    """ "put the blue and green blocks next to each other": the objects together (not next to
    every other object); None when the place is not a reciprocal next to."""
    split = find_relation(rest) if action == "place" else None
    if split is None or split[1] != "next_to" or split[2] not in RECIPROCALS:
        return None
    objects = parse_references(split[0])
    return Request(action="place", objects=objects, relation="together", text=clause)


def _grouped(rest: str, clause: str, action: str) -> Request | None:
    """Objects together, a tower by size, a tower a level at a time; None when neither."""
    together = parse_first("together", rest)
    if together and action == "place":  # "group the blue objects together": in one place
        return Request(
            action="place",
            objects=parse_references(text_of(together, "span")),
            relation="together",
            text=clause,
        )
    by_size = parse_first("by_size", rest) if action == "stack" else None
    if by_size is not None:  # "stack the blocks from the biggest to the smallest"
        return Request(action="stack", objects=parse_references(text_of(by_size, "span")),
                       bottom=_bottom_by_size(by_size), text=clause)  # fmt: skip
    levels = parse_first("levels", rest) if action == "stack" else None
    if levels is not None and child(levels[0].children[-1], "level") is not None:
        objects, ends = [], []  # "a tower with the red block at the bottom, then the green one"
        for part in (c for c in levels[0].children if isinstance(c, Tree)):
            level = child(part, "level")
            named = parse_references(text_of((part, levels[1]), "span"))
            objects += named
            ends += [levels[1].words[span(level)[1] - 1] if level else None] * len(named)
        return Request(action="stack", objects=objects, levels=ends, text=clause)
    return None


def _as_push(rest: str, clause: str) -> Request | None:
    """A place that is a push along the table ("move the red block 5 cm to the right": a
    distance, "a bit", or no place named), if it reads as one.

    Raises:
        UnparseableError: "put the red block back" (the verb's particle: return it), which is
            no push backwards: where it was is no goal claw can check.
    """
    words = tokens(clause).words
    measured = any(w.isdigit() or w in lexicon.NUMBER_WORDS for w in words)  # "5 cm back"
    if words[-1:] == ("back",) and words[0] in _RETURNING and not measured:
        raise UnparseableError(
            f"cannot read {clause!r}: put back where it was is no place claw can check; say "
            "where it goes ('put it back in the blue box') or how far ('move it 5 cm back')",
            from_reading=True,
        )
    slight = parse_first("slight", rest)
    if (
        find_relation(rest) is None
        or any(c.isdigit() for c in rest)
        or (slight and slight[1].slice(*span(slight[0], inner=True)) != "a touch")
    ):
        try:
            return parse_push(rest, clause, allow_place=False)
        except UnparseableError:
            pass
    return None


_RETURNING = {"put", "place", "set", "bring", "return", "lay", "drop"}
"""Verbs whose "back" returns what they move ("put it back"), not a way to push it."""


def _placement(rest: str, clause: str, elide: bool) -> tuple[str, tuple[str, str, str] | None]:
    """``rest`` without a distance and adverbs, and its (objects, relation, target), if any."""
    if any(NUMBER.fullmatch(a) and b in _METRIC for a, b in pairwise(tokens(rest).words)):
        _, rest = _parse_distance(rest)
    rest = without(rest, "adverbs", {"adverb"})  # "right next to", "directly behind"
    found = find_relation(rest)
    under = parse_first("under", rest)
    if under and (found is None or span(under[0].children[1])[0] >= len(tokens(found[0]).words)):
        raise UnsupportedError(  # "put it under the box", but not "put the block under X ..."
            f"no skill puts an object under another ({clause!r}); put the other one on it instead",
            from_reading=True,  # what goes on what is a reading a model may make
        )
    side = parse_first("side_of", found[2]) if found and found[1] in ("at", "on", "in") else None
    target = tokens(text_of(side, "span")).words if side else ()
    if side and target[:1] != ("table",) and target[:2] != ("the", "table"):  # not "of the table"
        word = side[1].words[span(child(side[0], "side"))[0]]  # "at the left of the box"
        found = (found[0], lexicon.SIDE_RELATIONS[word], text_of(side, "span"))  # type: ignore[index]
    if found is None and elide:  # "put the yellow one the green thing" (sic)
        found = _elided_relation(rest)
    return rest, found


def _placed(found: tuple[str, str, str], clause: str, action: str) -> Request:
    """The place or stack of (objects, relation, target): at a region, or relative to objects."""
    objects_text, relation, target_text = found
    if action == "stack" and relation in ("at", "in"):
        relation = relation if relation == "in" else "on"
    objects = parse_references(objects_text) if objects_text else [Reference(quantity="pronoun")]
    if relation == "on" and target_text == "top":  # "then put the green block on top": of it
        target_text = "it"
    if relation == "on" and target_text.split()[:2] == ["top", "of"]:  # "on top of the table":
        target_text = target_text.split(maxsplit=2)[2]  # on it, not at the table's far side
    if relation in ("at", "in", "on", "next_to"):
        region = _region_of(target_text)
        if region is not None:
            return Request(
                action=action, objects=objects, relation="at", region=region, text=clause
            )
        region_ref = parse_region(target_text)
        if region_ref is not None:  # "in the corner farthest from the purple bowl"
            return Request(
                action=action, objects=objects, relation="at", region_ref=region_ref, text=clause
            )
    if relation == "at":  # "move the block to the bowl": into a container; to a block: on
        if reads_as_objects(target_text):  # it or next to it? (refused once grounded)
            relation = "in" if parse_reference(target_text).type == "box" else "to"
        if relation == "at":
            raise UnparseableError(f"cannot read {target_text!r} as a place on the table")
    if action == "stack":
        relation = "on"
    objects, target = _pairing_of_target(objects, parse_reference(target_text))
    objects, target = _exception_of_objects(objects, target)
    return Request(action=action, objects=objects, relation=relation, target=target, text=clause)


def _pairing_of_target(
    objects: list[Reference], target: Reference
) -> tuple[list[Reference], Reference]:
    """A pairing said of the objects ("sort the blocks by colour into the boxes") is the
    target's: each object goes to the target of its colour."""
    matched = [f for o in objects for f in o.filters if f.kind == "matching"]
    if not matched or target.matching or target.mismatched:
        return objects, target
    objects = [o.model_copy(update={"filters": [f for f in o.filters if f.kind != "matching"]})
               for o in objects]  # fmt: skip
    return objects, target.model_copy(update={"filters": [*target.filters, matched[0]]})


def _exception_of_objects(
    objects: list[Reference], target: Reference
) -> tuple[list[Reference], Reference]:
    """A trailing exception ("put all blocks in the box except the green one") excludes from
    the objects moved: one named target has nothing to except."""
    excepted = [f for f in target.filters if f.kind == "except"]
    if not excepted or target.every or not objects or not objects[-1].every:
        return objects, target
    moved = objects[-1].model_copy(update={"filters": [*objects[-1].filters, *excepted]})
    kept = [f for f in target.filters if f.kind != "except"]
    return [*objects[:-1], moved], target.model_copy(update={"filters": kept})


def _bottom_by_size(parse: Parse) -> str:
    """Which end of a tower by size goes at the bottom: the first of "from X to Y", the one
    said to be at the bottom (or not the one on top), else the big one."""
    words = parse[1].words
    sizes = [
        lexicon.SIZE_WORDS[words[i]]
        for i in range(*span(parse[0]))
        if words[i] in lexicon.SIZE_WORDS
    ]
    said = child(parse[0], "with_end")
    if said is not None:
        at_top = words[span(said)[1] - 1] == "top"
        return {"big": "small", "small": "big"}[sizes[-1]] if at_top else sizes[-1]
    return sizes[0] if child(parse[0], "from_to") is not None else "big"


def _parse_distance(text: str) -> tuple[float | None, str]:
    """How far ("5 cm", "two inches", else "a bit"), and ``text`` without it."""
    parse = parse_first("measure", text) or parse_first("slight", text)
    if parse is None:
        return None, text
    (tree, words), (i, j) = parse, span(parse[0], inner=True)
    remaining = (text[: words.starts[i]] + text[words.ends[j - 1] :]).strip()
    if tree.data == "slight":
        return lexicon.SMALL_PUSH, remaining
    number, unit = words.words[i], words.words[j - 1]
    value = float(number) if number[0].isdigit() else float(lexicon.NUMBER_WORDS[number])
    return value * lexicon.UNITS[unit], remaining


def _push_about(rest: str, clause: str) -> Request | None:
    """ "push the red block towards the blue box", "slide it away from the bin": a push whose
    way is found from where the objects are (``relation`` ``towards`` or ``away``)."""
    words = tokens(rest)
    for i, word in enumerate(words.words):
        lead = lexicon.PUSH_ABOUT.get(word)
        if lead is None or tuple(words.words[i : i + len(lead[1])]) != lead[1]:
            continue
        target_text = words.slice(i + len(lead[1]), len(words.words))
        if not target_text or tuple(target_text.split()) in lexicon.ROBOT:
            return None  # "towards me": a direction
        try:
            target = parse_reference(target_text)
        except UnparseableError:
            return None
        distance, before = _parse_distance(words.slice(0, i))
        objects = parse_references(before) if before else [Reference(quantity="pronoun")]
        return Request(action="push", objects=objects, relation=lead[0], target=target,
                       distance=distance, text=clause)  # fmt: skip
    return None


def parse_apart(rest: str, clause: str) -> Request:
    """ "separate the green block from the red one", "(push) the red and blue blocks apart": the
    first moved until the two stand apart, not next to each other (``relation`` ``apart``)."""
    words = tokens(rest.replace(" apart from ", " from "))
    end = len(words.words) - (words.words[-1:] == ("apart",))
    if "from" in words.words[:end]:
        at = words.words.index("from")
        moved, target = words.slice(0, at), words.slice(at + 1, end)
        return Request(action="place", objects=parse_references(moved), relation="apart",
                       target=parse_reference(target), text=clause)  # fmt: skip
    objects = parse_references(words.slice(0, end)) if end else [Reference(quantity="pronoun")]
    return Request(action="place", objects=objects, relation="apart", text=clause)


def parse_push(rest: str, clause: str, allow_place: bool = True) -> Request:
    """OBJECTS [DISTANCE] DIRECTION [DISTANCE] to a push; with a place named, a place; towards
    or away from an object, a push whose way the scene gives; two objects apart."""
    if "apart" in tokens(rest).words:
        return parse_apart(rest, clause)
    about = _push_about(rest, clause)
    if about is not None:
        return about
    found = find_relation(rest) if allow_place else None
    words = tokens(rest)
    if allow_place and "between" in words.words:  # "push it between the two boxes"
        found = ("", "between", words.slice(words.words.index("between") + 1, len(words.words)))
    if found is not None and (found[0] or found[1] == "between") and _names_place(found[2]):
        placed = parse_place(rest, clause, "place")  # "slide the red block next to the box"
        if placed.relation in lexicon.PUSHED_RELATIONS and placed.target is not None:
            return placed.model_copy(update={"action": "push"})  # pushed until it holds
        return placed
    distance, rest = _parse_distance(rest)
    ways = []  # the direction earliest in the vocabulary's order, then earliest in the clause
    for tree, words in parse_all("direction", rest):
        i, j = span(tree, inner=True)
        phrase = " ".join(words.words[i:j])
        phrase = phrase if phrase in WAYS else phrase.split(" ", 2)[-1]  # "towards the left"
        ways.append((_WAY_ORDER[phrase], i, j, WAYS[phrase], words))
    if not ways:
        raise UnparseableError(
            f"cannot read which way to push in {clause!r}: say left, right, forward or back"
        )
    _, i, j, direction, words = min(ways, key=lambda way: way[:2])
    rest = (rest[: words.starts[i]] + " " + rest[words.ends[j - 1] :]).strip()
    distance, rest = (distance, rest) if distance is not None else _parse_distance(rest)
    rest = " ".join(without(rest, "push_words", {"push_word"}).split())  # "by about"
    objects = parse_references(rest) if rest else [Reference(quantity="pronoun")]
    distance = distance if distance is not None else lexicon.DEFAULT_PUSH
    return Request(
        action="push", objects=objects, direction=direction, distance=distance, text=clause
    )
