"""Reading instructions: the clause grammar's parses, given their meaning as typed requests.

An instruction is read with the LALR grammar ``grammar.lark`` (:mod:`claw.planner.parsing`):
clauses joined by full stops, "then", "after that", or a comma or "and" that starts a new request
(a verb follows, or both sides say where); a clause without a verb takes the previous one's.
Each clause is a verb phrase — ``VERB OBJECTS [RELATION TARGET]`` (put, place, move, stack,
build a tower of, ...), ``pick up OBJECTS``, ``push OBJECTS [DISTANCE] DIRECTION [DISTANCE]``,
unstacking ("take the tower apart", "take the blocks off the red block") — after politeness,
filler and sequence words; or a definition ("this is a dax red block") or a statement ("the
purple block is hidden under the orange block"), which ask for nothing. Noun phrases and targets
are read by :mod:`claw.planner.reference`. Where one clause has several parses (where the
objects end and the relation begins), the first whose noun phrases read is kept. What cannot be
read is ``unparseable``; what reads but no skill can do is ``unsupported`` — all before anything
moves.
"""

from __future__ import annotations

import re
from itertools import pairwise

from lark import Token, Tree

from claw.envs.exceptions import ClawError
from claw.planner import vocabulary as vocab
from claw.planner.exceptions import UnparseableError, UnsupportedError
from claw.planner.forms import Reference, Request
from claw.planner.parsing import (
    NUMBER,
    RELATIONS,
    WAYS,
    Parse,
    Words,
    child,
    parse_all,
    parse_first,
    span,
    text_of,
    tokens,
    without,
)
from claw.planner.reference import named_region, parse_reference, parse_references, parse_region
from claw.planner.vocabulary import DEFAULT_PUSH, SMALL_PUSH

__all__ = ["DEFAULT_PUSH", "MAX_INSTRUCTION_CHARS", "MAX_SENTENCE_TOKENS", "SMALL_PUSH",
           "normalise", "parse_clause", "parse_instruction", "split_clauses"]  # fmt: skip

MAX_INSTRUCTION_CHARS = 1000
"""The longest instruction the reader takes, in characters; checked before it is read.

The longest instruction of the project's suites has 130 characters; 1000 hold some 25 requests
(a plan's 50 steps, ``MAX_PLAN_STEPS``). A longer one is ``unparseable`` before any of it is read:
100 KB is refused as fast as 1001 characters."""
MAX_SENTENCE_TOKENS = 80
"""The most words and marks in one sentence: the text between full stops, "then", "after that".

Reading a sentence costs more than its length (where each request ends, where its objects end
and its place begins); 80 (the suites' longest has 25) keeps the worst under a second or two."""

_CLASSES = ("tower", "unstack", "v_unsupported", "v_push", "v_pick", "v_stack", "v_place")
_WAY_ORDER = {phrase: k for k, phrase in enumerate(WAYS)}
_METRIC = {unit for unit in vocab.UNITS if unit.startswith(("c", "m"))}  # "5 cm" is a distance
_ARTICLES = {"the", "a", "an", "that", "this", "those", "these", "its", "of"}
_EXPANSIONS = re.compile(
    r"(?<![\w'])(?:"
    + "|".join(re.escape(w) for w in sorted(vocab.EXPANSIONS, key=len)[::-1])
    + r")(?![\w'])"
)
_POLITE = re.compile(r"\b(?:please|pls|thanks|thank\s+you|thx)\b[,!.]?")


def normalise(instruction: str) -> str:
    """Lower case, plain spaces, no quotes; punctuation kept where it separates clauses."""
    text = instruction.lower().replace("’", "'").replace("_", " ")
    text = re.sub(r"[\"“”]", " ", text)
    text = re.sub(r"\bcentre\b", "center", text)
    text = re.sub(r"\b(it|that|what)'s\b", r"\1 is", text)
    text = re.sub(r"\bthey're\b", "they are", text)
    text = re.sub(r"\b(left|right)[- ]hand\b", r"\1", text)  # "the left-hand side"
    text = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", text)  # "warm-coloured", "top-left"
    text = re.sub(r"(\d)\s*(cm|mm|m)\b", r"\1 \2", text)
    text = _POLITE.sub(" ", text)
    text = _EXPANSIONS.sub(lambda m: vocab.EXPANSIONS[m.group()], " ".join(text.split()))
    return text


def _reads_as_objects(text: str) -> bool:
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


def _names_place(target: str) -> bool:
    """True when ``target`` names objects or a table region ("the blue box", "the far side")."""
    nouns = {"side", "corner", "center", "middle", "table", *vocab.REGION_NOUNS}
    if _region_of(target) and nouns & set(target.split()):  # not a bare "the right"
        return True
    region = parse_region(target)
    if region is not None and region.region is None:  # "the corner farthest from the bowl"
        return True
    try:
        parse_reference(target)
    except UnparseableError:
        return False
    return True


def _strip_filler(clause: str) -> str:
    """``clause`` without its filler and a means' lead-in, its -ing verb made plain."""
    text = text_of(parse_first("head", clause), "rest")  # type: ignore[arg-type]
    means = parse_first("means", text)
    if means is not None and text_of(means, "rest").split(" ", 1)[0] in vocab.GERUNDS:
        text = text_of(means, "rest")  # "... by putting the blue block in the bowl"
    first, _, rest = text.partition(" ")
    text = f"{vocab.GERUNDS[first]} {rest}".strip() if first in vocab.GERUNDS else text
    return text if _verb_phrase(text) else _as_place(text)


def _as_place(text: str) -> str:
    """A state asked for ("I'd like the red block to end up in the box", "the red block should
    be in the box") as the place that reaches it ("put the red block in the box")."""
    wish = parse_first("wish", text)
    if wish is not None:
        return "put " + without(text_of(wish, "rest"), "state_words", {"state"})
    must = parse_first("obligation", text)
    if must is not None:
        return f"put {text_of(must, 'span')} {text_of(must, 'rest')}".strip()
    return text


def _verb_phrase(text: str) -> tuple[str, str, str] | None:
    """(verb class, verb, rest) of a clause that starts with a verb; the first class wins."""
    best: tuple[int, str, str, str] | None = None
    for tree, words in parse_all("verb_phrase", text):
        verb = tree.children[0].children[0]
        rank = _CLASSES.index(verb.data)
        if best is None or rank < best[0]:
            best = rank, verb.data, words.slice(*span(verb)), text_of((tree, words), 1)
    return None if best is None else best[1:]


def _verb_at(text: str) -> str | None:
    """The verb a clause starts with (after filler words), if it starts with one."""
    found = _verb_phrase(_strip_filler(text))
    if found is None:
        return None
    return {"tower": "stack", "unstack": "unstack"}.get(found[0], found[1])


def _says_where(clause: str) -> bool:
    """True when ``clause`` reads as a full request with a place or direction."""
    try:
        request = parse_clause(clause, elide=False)
    except ClawError:
        return False
    return request.relation is not None or request.direction is not None


def split_clauses(text: str) -> list[str]:
    """Clauses between strong separators, and at a comma or "and" that starts a new request:
    where a verb follows or both sides say where. A clause without a verb takes the last one's."""
    clauses: list[str] = []
    verb: str | None = None

    def with_verb(piece: str) -> str:
        return piece if _verb_at(piece) or verb is None else f"{verb} {piece}"

    tree, words = parse_first("instruction", text)  # type: ignore[misc]
    for part in (c for c in tree.children if isinstance(c, Tree) and c.data == "part"):
        _check_sentence(words, *span(part))
        parse = parse_first("pieces", words.slice(*span(part)).strip(" ,"))
        if parse is None:
            continue
        nodes = [c for c in parse[0].children if isinstance(c, Tree) and c.data != "seq"]
        current = with_verb(parse[1].slice(*span(nodes[0])))
        verb = _verb_at(current) or verb
        for before, weak, node in zip(nodes[:-1:2], nodes[1::2], nodes[2::2], strict=True):
            sep = parse[1].text[parse[1].ends[span(before)[1] - 1] : parse[1].starts[span(weak)[1]]]
            piece = parse[1].slice(*span(node))
            if _verb_at(piece) or (_says_where(with_verb(piece)) and _says_where(current)):
                if _strip_filler(current) != _verb_at(current):  # "grasp and lift X": one clause
                    clauses.append(current)
                current = with_verb(piece)
                verb = _verb_at(current) or verb
            else:
                current = f"{current}{sep}{piece}"
        clauses.append(current)
    return clauses


def _check_sentence(words: Words, start: int, end: int) -> None:
    """Refuse a sentence (tokens ``start`` to ``end``) over ``MAX_SENTENCE_TOKENS``."""
    if end - start > MAX_SENTENCE_TOKENS:
        head = " ".join(words.words[start : start + 6])
        raise UnparseableError(
            f"the sentence '{head} ...' has {end - start} words and marks, over the cap of "
            f"{MAX_SENTENCE_TOKENS}; split it into shorter ones with full stops or 'then' "
            "('put the red block in the box, then put the blue block on it')"
        )


def parse_clause(clause: str, elide: bool = True) -> Request:
    """One verb phrase to a ``Request``; with ``elide``, "put X Y" reads as "put X to Y"."""
    text = _strip_filler(clause)
    found = _verb_phrase(text)
    if found is not None and found[0] == "tower":  # "build a tower of the red and blue blocks"
        found = _verb_phrase(text := f"stack {found[2]}")
    if found is not None and found[0] == "unstack":
        return _parse_unstack(found[2], clause)
    apart = parse_first("take_apart", text)
    if apart is not None:  # "take the tower apart"
        return _parse_unstack(text_of(apart, "span"), clause)
    off = parse_first("off", text)
    if off is not None:  # "take the blocks off the red block"
        return _parse_unstack(text_of(off, "span"), clause, target=text_of(off, -1))
    if found is None:
        raise UnparseableError(
            f"cannot read {clause!r}: start with put, place, move, stack, pick up or push"
        )
    kind, verb, rest = found
    if kind == "v_unsupported":
        if verb == "sort" and _find_relation(rest) is not None:  # "sort the blocks into ..."
            return _parse_place(rest, clause, "place")
        raise UnsupportedError(
            f"{verb!r} is not something the claw can do; it can pick, place, stack and push"
        )
    if kind == "v_push":
        return _parse_push(rest, clause)
    if kind == "v_pick":  # "pick (up) the red block (up)"
        words = tokens(rest)
        start = int(words.words[:1] == ("up",))
        end = len(words.words) - (len(words.words) > start and words.words[-1] == "up")
        rest = words.slice(start, end)
        if not _reads_as_objects(rest) and _find_relation(rest) is not None:
            return _parse_place(rest, clause, "place")  # "take the red block to the box"
        return Request(action="pick", objects=parse_references(rest), text=clause)
    if kind == "v_stack":
        return _parse_place(rest, clause, "stack")
    swap = parse_first("swap", text)
    if swap is not None and _find_relation(rest) is None:  # "swap the red and blue blocks"
        spans = [c for c in swap[0].children if isinstance(c, Tree) and c.data == "span"]
        objects = [r for node in spans for r in parse_references(swap[1].slice(*span(node)))]
        return Request(action="swap", objects=objects, text=clause)
    return _parse_place(rest, clause, "place", elide)


def _parse_unstack(rest: str, clause: str, target: str | None = None) -> Request:
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


def _find_relation(rest: str) -> tuple[str, str, str] | None:
    """(objects, relation, target): of the parses OBJECTS RELATION TARGET, earliest relation
    first (the longest where two start together), the first whose objects read and whose target
    names a place, else the first."""
    splits = []
    for tree, words in parse_all("placement", rest):
        i, j = span(tree.children[1])
        relation = RELATIONS[" ".join(words.words[i:j])]
        splits.append(
            ((i, i - j), (text_of((tree, words), 0), relation, text_of((tree, words), 2)))
        )
    for _, split in sorted(splits):
        if _reads_as_objects(split[0]) and _names_place(split[2]):
            return split
    return min(splits)[1] if splits else None


def _elided_relation(rest: str) -> tuple[str, str, str] | None:
    """(objects, "at", target): of the parses NOUN-PHRASE ARTICLE..., the first whose sides read
    ("put the yellow one the green thing")."""
    for tree, words in parse_all("elided", rest):
        i = span(tree.children[0])[1]
        objects, target = (
            " ".join(words.slice(*r).split()) for r in ((0, i), (i, len(words.words)))
        )
        if _reads_as_objects(objects) and _names_place(target):
            return objects, "at", target
    return None


def _parse_place(rest: str, clause: str, action: str, elide: bool = False) -> Request:
    """OBJECTS [RELATION TARGET] and the constructions around it, to a place or a stack."""
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
    each_other = parse_first("each_other", rest)
    if each_other:  # "put the blocks on top of each other": a stack
        action, rest = "stack", text_of(each_other, "span")
    if "between" in tokens(rest).words:
        raise UnsupportedError(
            f"no skill places an object between two others ({clause!r}); "
            "say next to, left of, right of, behind or in front of one of them"
        )
    on_table = parse_first("on_table", rest)
    if on_table and action == "place":  # "put every block on the table": unstack them
        return _parse_unstack(text_of(on_table, "span"), clause)
    if parse_first("unnamed_spot", rest):
        raise UnsupportedError(
            f"no skill puts an object down at an unnamed spot ({clause!r}); name a table region "
            "(the center, the left side, the far right corner, ...) or an object to put it next to"
        )
    rest = without(rest, "filler_words", {"so_that", "updown"})  # "so that it is", "up"
    slight = parse_first("slight", rest)
    if action == "place" and (
        _find_relation(rest) is None
        or any(c.isdigit() for c in rest)
        or (slight and slight[1].slice(*span(slight[0], inner=True)) != "a touch")
    ):
        try:  # "move the red block 5 cm to the right": along the table, a push
            return _parse_push(rest, clause, allow_place=False)
        except UnparseableError:
            pass
    if any(NUMBER.fullmatch(a) and b in _METRIC for a, b in pairwise(tokens(rest).words)):
        _, rest = _parse_distance(rest)
    rest = without(rest, "adverbs", {"adverb"})  # "right next to", "directly behind"
    found = _find_relation(rest)
    under = parse_first("under", rest)
    if under and (found is None or span(under[0].children[1])[0] >= len(tokens(found[0]).words)):
        raise UnsupportedError(  # "put it under the box", but not "put the block under X ..."
            f"no skill puts an object under another ({clause!r}); put the other one on it instead"
        )
    side = parse_first("side_of", found[2]) if found and found[1] in ("at", "on", "in") else None
    target = tokens(text_of(side, "span")).words if side else ()
    if side and target[:1] != ("table",) and target[:2] != ("the", "table"):  # not "of the table"
        word = side[1].words[span(child(side[0], "side"))[0]]  # "at the left of the box"
        found = (found[0], vocab.SIDE_RELATIONS[word], text_of(side, "span"))  # type: ignore[index]
    if found is None and elide:  # "put the yellow one the green thing" (sic)
        found = _elided_relation(rest)
    if found is None:
        if action == "stack":
            return Request(action="stack", objects=parse_references(rest), text=clause)
        raise UnparseableError(f"cannot read where to put things in {clause!r}")
    objects_text, relation, target_text = found
    if action == "stack" and relation in ("at", "in"):
        relation = relation if relation == "in" else "on"
    objects = parse_references(objects_text) if objects_text else [Reference(quantity="pronoun")]
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
    if relation == "at":  # "move the block to the bowl": into a container, else next to it
        if target_text.startswith(("the", "a ")):
            kind = parse_reference(target_text).type
            relation = {"box": "in", None: "to"}.get(kind, "next_to")  # "to": once grounded
        if relation == "at":
            raise UnparseableError(f"cannot read {target_text!r} as a place on the table")
    if action == "stack":
        relation = "on"
    return Request(
        action=action,
        objects=objects,
        relation=relation,
        target=parse_reference(target_text),
        text=clause,
    )


def _bottom_by_size(parse: Parse) -> str:
    """Which end of a tower by size goes at the bottom: the first of "from X to Y", the one
    said to be at the bottom (or not the one on top), else the big one."""
    words = parse[1].words
    sizes = [
        vocab.SIZE_WORDS[words[i]] for i in range(*span(parse[0])) if words[i] in vocab.SIZE_WORDS
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
        return vocab.SMALL_PUSH, remaining
    number, unit = words.words[i], words.words[j - 1]
    value = float(number) if number[0].isdigit() else float(vocab.NUMBER_WORDS[number])
    return value * vocab.UNITS[unit], remaining


def _parse_push(rest: str, clause: str, allow_place: bool = True) -> Request:
    """OBJECTS [DISTANCE] DIRECTION [DISTANCE] to a push; with a place named, a place."""
    found = _find_relation(rest) if allow_place else None
    if found is not None and found[0] and _names_place(found[2]):
        return _parse_place(rest, clause, "place")  # "slide the red block next to the blue box"
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
    distance = distance if distance is not None else vocab.DEFAULT_PUSH
    return Request(
        action="push", objects=objects, direction=direction, distance=distance, text=clause
    )


def parse_instruction(instruction: str) -> list[Request]:
    """The requests in an instruction, in order.

    Raises:
        UnparseableError: empty, longer than ``MAX_INSTRUCTION_CHARS`` or with a sentence over
            ``MAX_SENTENCE_TOKENS``, or a clause that cannot be read.
        UnsupportedError: a clause asking for something no skill does.
    """
    if len(instruction) > MAX_INSTRUCTION_CHARS:
        raise UnparseableError(
            f"the instruction has {len(instruction):,} characters, over the cap of "
            f"{MAX_INSTRUCTION_CHARS:,}; say it in fewer words, or run it as several "
            "instructions one after another"
        )
    text = normalise(instruction)
    if not re.search(r"[a-z]", text):
        raise UnparseableError(
            "the instruction is empty; say what to do, e.g. 'put the red block in the blue box'"
        )
    requests: list[Request] = []
    names: dict[str, str] = {}  # new words the instruction defines ("this is a dax red block")
    for clause in split_clauses(_distribute(text)):
        defined = _definitions(clause)
        if defined:
            names.update(defined)
            continue
        told = _statement(clause)
        if told is not None:  # "the purple block is hidden under the orange block": context
            requests.append(told)
            continue
        for word, meaning in names.items():  # "put a dax in the box": the defined noun phrase
            words = tokens(clause)
            for i in reversed(range(len(words.words) - 1)):
                if (
                    words.words[i] in ("a", "an", "the", "that", "this")
                    and words.words[i + 1] == word
                ):
                    clause = clause[: words.starts[i]] + meaning + clause[words.ends[i + 1] :]
        requests.append(parse_clause(clause))
    if all(r.action == "note" for r in requests):
        what = "defines words" if not requests else "says where things are"
        raise UnparseableError(f"{instruction.strip()!r} {what} but asks for nothing")
    return requests


def _distribute(text: str) -> str:
    """The clause of a fronted "for each colour that has an even number of blocks, ...", its
    "those blocks" (or "them") written out as "the blocks whose color appears an even number of
    times"."""
    parse = parse_first("for_each", text)
    if parse is None or text[parse[1].starts[span(parse[0].children[-1])[0]] - 1] != " ":
        return text
    noun = next(t for t in parse[0].children if isinstance(t, Token) and t.type == "WORD")
    named = f"the {noun} whose color appears an {text_of(parse, 'parity')} number of times"
    clause = tokens(text_of(parse, -1))
    for i, word in enumerate(clause.words):  # the first "those blocks", "them", "these"
        size = (
            2
            if word in ("those", "these", "the", "its", "their")
            and clause.words[i + 1 : i + 2] == (noun,)
            else 1
        )
        if size == 2 or word in ("them", "those", "these"):
            return (
                clause.text[: clause.starts[i]] + named + clause.text[clause.ends[i + size - 1] :]
            )
    return text


def _definitions(clause: str) -> dict[str, str]:
    """The words ``clause`` defines (word -> its noun phrase), or none when it is no definition."""
    parse = parse_first("definition", _strip_filler(clause))
    found: dict[str, str] = {}
    for part in (c for c in parse[0].children if isinstance(c, Tree)) if parse else []:
        part = child(part, "call_more") or part
        word = next(t for t in part.children if isinstance(t, Token) and t.type == "WORD")
        lexicon = (vocab.COLOR_WORDS, vocab.TYPE_WORDS, _ARTICLES)
        if not word.isalpha() or any(word in w for w in lexicon) or _verb_at(word):
            return {}
        words = tokens(text_of((part, parse[1]), "span"))  # type: ignore[index]
        np = "the " + words.slice(int(words.words[0] in ("a", "an", "the")), len(words.words))
        try:
            parse_reference(np)
        except UnparseableError:
            return {}
        found[str(word)] = np
    return found


def _statement(clause: str) -> Request | None:
    """A clause that says where something is, with no verb ("the purple block is hidden under
    the orange block"): it asks for nothing but names what "it" means next."""
    parse = parse_first("statement", clause)
    if parse is None or _verb_at(clause) is not None:
        return None
    try:
        objects = parse_references(text_of(parse, 0))
        parse_reference(f"the object that is {text_of(parse, -1)}")  # a place it is said to be
    except UnparseableError:
        return None
    return Request(action="note", objects=objects, text=clause)
