"""Reading instructions: the clause grammar's parses, given their meaning as typed requests.

An instruction is read with the LALR grammar ``grammar.lark``
(:mod:`claw.planner.language.parsing`): clauses joined by full stops, "then", "after that", or a
comma or "and" that starts a new request (a verb follows, or both sides say where); a clause without
a verb takes the previous one's. Each clause is a verb phrase — ``VERB OBJECTS [RELATION TARGET]``
(put, place, move, stack, build a tower of, ...), ``pick up OBJECTS``, ``push OBJECTS [DISTANCE]
DIRECTION [DISTANCE]``, unstacking ("take the tower apart", "take the blocks off the red block") —
after politeness, filler and sequence words; or a definition ("this is a dax red block") or a
statement ("the purple block is hidden under the orange block"), which ask for nothing. Noun phrases
and targets are read by :mod:`claw.planner.language.reference`; a clause's filler, verb, placements
and definition by one reading of it (:mod:`claw.planner.language.clauses`). Where one clause has
several parses (where the objects end and the relation begins), the first whose noun phrases read is
kept. What cannot be read is ``unparseable``; what reads but no skill can do is ``unsupported`` —
all before anything moves.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from lark import Token, Tree

from claw.common.exceptions import ClawError
from claw.planner.exceptions import UnparseableError, UnsupportedError
from claw.planner.language import lexicon
from claw.planner.language.audit import unread_part
from claw.planner.language.clauses import read_lead, strip_filler, verb_at, verb_phrase
from claw.planner.language.forms import Request
from claw.planner.language.lexicon import DEFAULT_PUSH, SMALL_PUSH
from claw.planner.language.parsing import (
    STATS,
    Words,
    cached,
    child,
    parse_first,
    part_spans,
    span,
    text_of,
    tokens,
)
from claw.planner.language.places import (
    find_relation,
    parse_apart,
    parse_place,
    parse_push,
    parse_unstack,
    reads_as_objects,
)
from claw.planner.language.reference import parse_reference, parse_references

__all__ = ["DEFAULT_PUSH", "MAX_INSTRUCTION_CHARS", "MAX_SENTENCE_TOKENS", "SMALL_PUSH",
           "VERBS_ALLOWED", "normalise", "parse_clause", "parse_instruction", "split_clauses",
           "split_parts", "split_turns"]  # fmt: skip

MAX_INSTRUCTION_CHARS = 1000
"""The longest instruction the reader takes, in characters; checked before it is read.

The longest instruction of the project's suites has 130 characters; 1000 hold some 25 requests
(a plan's 50 steps, ``MAX_PLAN_STEPS``). A longer one is ``unparseable`` before any of it is read:
100 KB is refused as fast as 1001 characters."""
MAX_SENTENCE_TOKENS = 80
"""The most words and marks in one sentence: the text between full stops, "then", "after that".

Reading a sentence costs more than its length (where each request ends, where its objects end
and its place begins); 80 (the suites' longest has 25) keeps the worst under a second or two."""

_EXPANSIONS = re.compile(
    r"(?<![\w'])(?:"
    + "|".join(re.escape(w) for w in sorted(lexicon.EXPANSIONS, key=len)[::-1])
    + r")(?![\w'])"
)
_POLITE = re.compile(r"\b(?:" + "|".join(lexicon.POLITE) + r")\b[,!.]?")


_TABLE_TOP = re.compile(
    r"\b(table|" + "|".join(lexicon.TABLE_NAMES) + r")\s+(?:top|surface)\b"
)  # "the table top": the table, not its far side
_COUNTED_ACROSS = re.compile(
    r"\b((?:" + "|".join(lexicon.ORDINAL_WORDS) + r")(?:\s+\w+){0,3}?)\s+from\s+"
    r"(left|right)\s+to\s+(?:left|right)\b"
)  # "the 2nd block from left to right": counted from the left, not moved to the right
_LIST_ITEM = re.compile(r"(?m)^\s*(?:[-*•+]\s*)?(?:\[[ xX]?\]|\d{1,2}[.)](?!\d)|[-*•+])\s+")
"""A list item's marker at a line's start ("- ", "* ", "1. ", "2) ", "[ ] "): a step of its own."""
_INLINE_ITEM = re.compile(r"(?<=\s)\d{1,2}\)\s+")
"""A numbered step within a line ("Steps: 1) put … 2) put …")."""


def normalise(instruction: str) -> str:
    """Lower case, plain spaces, no quotes; punctuation kept where it separates clauses; the
    items of a list as sentences; a table's top as the table; a row counted "from left to
    right" as counted from the left."""
    text = _INLINE_ITEM.sub(" . ", _LIST_ITEM.sub(" . ", instruction))
    text = text.lower().replace("’", "'").replace("_", " ")
    text = re.sub(r"[\"“”]", " ", text)
    text = re.sub(r"\s*(?:->|=>|→)\s*", " to ", text)  # "red block -> blue box"
    text = re.sub(r"\bcentre\b", "center", text)
    text = re.sub(r"\b(it|that|what|there|here)'s\b", r"\1 is", text)
    text = re.sub(r"\bthey're\b", "they are", text)
    text = re.sub(r"\b(left|right)[- ]hand\b", r"\1", text)  # "the left-hand side"
    text = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", text)  # "warm-coloured", "top-left"
    text = re.sub(r"(\d)\s*(cm|mm|m)\b", r"\1 \2", text)
    text = _TABLE_TOP.sub(r"\1", text)
    text = _COUNTED_ACROSS.sub(r"\1 from the \2", text)
    text = _POLITE.sub(" ", text)
    text = _EXPANSIONS.sub(lambda m: lexicon.EXPANSIONS[m.group()], " ".join(text.split()))
    return text


@cached
def _says_where(clause: str) -> bool:
    """True when ``clause`` reads as a full request with a place or direction."""
    try:
        request = parse_clause(clause, elide=False)
    except ClawError:
        return False
    if request.relation == "apart" and request.target is None:  # of the objects together
        return False
    return request.relation is not None or request.direction is not None


def split_clauses(text: str) -> list[str]:
    """Clauses between strong separators, and at a comma or "and" that starts a new request:
    where a verb follows or both sides say where. A clause without a verb takes the last one's."""
    return [clause for _, clause in split_turns(text)]


def split_parts(text: str) -> list[str]:
    """The parts of a normalised text between strong separators (full stops, "then", "after
    that"), in order, their separators left out.

    Raises:
        UnparseableError: a part with more than ``MAX_SENTENCE_TOKENS`` words and marks.
    """
    words, spans = tokens(text), part_spans(text)
    for start, end in spans:
        _check_sentence(words, start, end)
    return [words.slice(start, end).strip(" ,") for start, end in spans]


def split_turns(text: str) -> list[tuple[int, str]]:
    """:func:`split_clauses`, each clause with its turn: the number of the part (between strong
    separators: full stops, "then", "after that") it is in, from 0."""
    clauses: list[tuple[int, str]] = []
    verb: str | None = None

    def with_verb(piece: str) -> str:
        return piece if verb_at(piece) or verb is None else f"{verb} {piece}"

    for turn, part in enumerate(split_parts(text)):
        parse = parse_first("pieces", part)
        if parse is None:
            continue
        nodes = [c for c in parse[0].children if isinstance(c, Tree) and c.data != "seq"]
        current = with_verb(parse[1].slice(*span(nodes[0])))
        verb = verb_at(current) or verb
        for before, weak, node in zip(nodes[:-1:2], nodes[1::2], nodes[2::2], strict=True):
            sep = parse[1].text[parse[1].ends[span(before)[1] - 1] : parse[1].starts[span(weak)[1]]]
            piece = parse[1].slice(*span(node))
            if verb_at(piece) or (_says_where(with_verb(piece)) and _says_where(current)):
                if strip_filler(current) != verb_at(current):  # "grasp and lift X": one clause
                    clauses.append((turn, current))
                current = with_verb(piece)
                verb = verb_at(current) or verb
            else:
                current = f"{current}{sep}{piece}"
        clauses.append((turn, current))
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


@dataclass(frozen=True)
class _Verbed:
    """A clause that starts with a verb of a class: its text (filler gone), verb and the rest."""

    clause: str
    text: str
    verb: str
    rest: str
    elide: bool


VERBS_ALLOWED = "start with put, place, move, stack, pick up or push"
NOT_READ_WHOLE = "the request would run without it; say it as a request of its own, or leave it out"
"""What a clause with no verb the reader knows is told."""


def parse_clause(clause: str, elide: bool = True) -> Request:
    """One verb phrase to a ``Request``; with ``elide``, "put X Y" reads as "put X to Y"."""
    text, found = read_lead(clause)
    if found is not None and found[0] == "tower":  # "build a tower of the red and blue blocks"
        found = verb_phrase(text := f"stack {found[2]}")
    unstacking = _unstacking(found, text, clause)
    if unstacking is not None:
        return unstacking
    if found is None:
        raise UnparseableError(f"cannot read {clause!r}: {VERBS_ALLOWED}")
    kind, verb, rest = found
    return _VERB_READERS[kind](_Verbed(clause, text, verb, rest, elide))


def _unstacking(found: tuple[str, str, str] | None, text: str, clause: str) -> Request | None:
    """An unstack: by its verb, "take the tower apart", "take the blocks off the red block"; "lift
    the red block off the table" is a pick."""
    off = parse_first("off", text)
    if off is not None and tokens(text_of(off, -1)).words[-1:] == ("table",):
        return Request(action="pick", objects=parse_references(text_of(off, "span")), text=clause)
    if off is not None:  # "take the blocks off the red block", "remove it from the box"
        return parse_unstack(text_of(off, "span"), clause, target=text_of(off, -1))
    if found is not None and found[0] == "unstack":
        return parse_unstack(found[2], clause)
    apart = parse_first("take_apart", text)
    if apart is not None:  # "take the tower apart"
        return parse_unstack(text_of(apart, "span"), clause)
    words = tokens(text)
    if len(words.words) > 2 and words.words[:2] in _OUT_FIRST:  # "take out the red block"
        taken = parse_unstack(words.slice(2, len(words.words)), clause)
        return taken.model_copy(update={"relation": "out"})
    if len(words.words) > 2 and words.words[-1] in ("out", "off") and words.words[0] in _OFF_VERBS:
        end = len(words.words) - 1
        while end > 2 and words.words[end - 1] in _ADVERBS:  # "take it back out"
            end -= 1
        taken = parse_unstack(words.slice(1, end), clause)  # "take it out"
        return taken.model_copy(update={"relation": "out"}) if words.words[-1] == "out" else taken
    return None


_OFF_VERBS = set(lexicon.GRAMMAR_WORDS["off_verb"])
_OUT_FIRST = {(verb, "out") for verb in _OFF_VERBS}
_ADVERBS = set(lexicon.GRAMMAR_WORDS["adverb"])


def _read_unsupported(c: _Verbed) -> Request:
    """A verb no skill does; "sort ... into ..." is a place."""
    if c.verb == "sort" and find_relation(c.rest) is not None:  # "sort the blocks into ..."
        return parse_place(c.rest, c.clause, "place")
    raise UnsupportedError(
        f"{c.verb!r} is not something the claw can do; it can pick, place, stack and push"
    )


def _read_pick(c: _Verbed) -> Request:
    """ "pick (up) the red block (up)"; "take the red block to the box" is a place."""
    words = tokens(c.rest)
    start = int(words.words[:1] == ("up",))
    end = len(words.words) - (len(words.words) > start and words.words[-1] == "up")
    rest = words.slice(start, end)
    if not reads_as_objects(rest) and find_relation(rest) is not None:
        return parse_place(rest, c.clause, "place")  # "take the red block to the box"
    return Request(action="pick", objects=parse_references(rest), text=c.clause)


def _read_place(c: _Verbed) -> Request:
    """A place; "swap the red and blue blocks" (no place named) a swap."""
    swap = parse_first("swap", c.text)
    if swap is not None and find_relation(c.rest) is None:  # "swap the red and blue blocks"
        spans = [x for x in swap[0].children if isinstance(x, Tree) and x.data == "span"]
        objects = [r for node in spans for r in parse_references(swap[1].slice(*span(node)))]
        return Request(action="swap", objects=objects, text=c.clause)
    return parse_place(c.rest, c.clause, "place", c.elide)


_VERB_READERS: dict[str, Callable[[_Verbed], Request]] = {
    "v_unsupported": _read_unsupported,
    "v_push": lambda c: parse_push(c.rest, c.clause),
    "v_separate": lambda c: parse_apart(c.rest, c.clause),
    "v_empty": lambda c: parse_unstack("", c.clause, target=c.rest),  # every block out of it
    "v_approach": lambda c: Request(action="note", objects=parse_references(c.rest), text=c.clause),
    "v_pick": _read_pick,
    "v_stack": lambda c: parse_place(c.rest, c.clause, "stack"),
    "v_place": _read_place,
}
"""How a clause of each verb class of ``lexicon.VERB_CLASSES`` is read."""


def _nothing_to_read(instruction: str) -> str:
    """Why an instruction without a letter of English is refused: empty, or not English."""
    example = "e.g. 'put the red block in the blue box'"
    if not instruction.strip():
        return f"the instruction is empty; say what to do, {example}"
    shown = " ".join(instruction.split())
    shown = shown if len(shown) <= 40 else f"{shown[:39]}…"
    return (
        f"nothing in {shown!r} reads as English: the offline reader reads English words; say "
        f"it in English, {example}, or let a model read it (--planner offline+MODEL)"
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
        raise UnparseableError(_nothing_to_read(instruction))
    requests: list[Request] = []
    names: dict[str, str] = {}  # new words the instruction defines ("this is a dax red block")
    clauses = split_turns(_distribute(text))
    STATS.clauses += len(clauses)
    for turn, clause in clauses:
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
        there = _there(clause, requests)
        try:
            request = there if there is not None else parse_clause(clause)
        except UnsupportedError as exc:  # "say 6 cm", "let's count": a request, or beside one?
            exc.from_reading = exc.from_reading or len(clauses) > 1
            raise
        unread = None if there is not None else unread_part(request, strip_filler(clause))
        if unread is not None:  # read only in part: refused, never run as half of it
            raise UnparseableError(f"cannot read {unread} of {clause!r}: {NOT_READ_WHOLE}")
        requests.append(request.model_copy(update={"turn": turn}))
    if all(r.action == "note" for r in requests):
        what = "defines words" if not requests else "says where things are"
        raise UnparseableError(f"{instruction.strip()!r} {what} but asks for nothing")
    return requests


def _there(clause: str, before: list[Request]) -> Request | None:
    """ "put the green block there (too)": a place verb's objects at the place the last request
    with one named; None when the clause is no such request."""
    words = tokens(clause).words
    end = len(words)
    while end and words[end - 1] in _ALSO:
        end -= 1
    placed = next((r for r in reversed(before) if r.relation not in (None, "out", "table")), None)
    if end < 3 or words[end - 1] != "there" or placed is None:
        return None
    _, found = read_lead(" ".join(words[: end - 1]))
    if found is None or found[0] not in ("v_place", "v_stack") or not found[2]:
        return None
    place = {k: getattr(placed, k) for k in _PLACE_FIELDS}
    return Request(action=placed.action, objects=parse_references(found[2]), text=clause, **place)


_ALSO = {"too", "also", "as", "well", "aswell"}
_PLACE_FIELDS = ("relation", "target", "target2", "region", "region_ref")


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
    parse = parse_first("definition", strip_filler(clause))
    found: dict[str, str] = {}
    for part in (c for c in parse[0].children if isinstance(c, Tree)) if parse else []:
        part = child(part, "call_more") or part
        word = next(t for t in part.children if isinstance(t, Token) and t.type == "WORD")
        known = (lexicon.COLOR_WORDS, lexicon.TYPE_WORDS, lexicon.UNDEFINABLE)
        if not word.isalpha() or any(word in w for w in known) or verb_at(word):
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
    the orange block", "there are two yellow blocks"): it asks for nothing but names what "it"
    means next."""
    words = tokens(clause).words
    if words[:2] in (("there", "is"), ("there", "are")) and verb_at(clause) is None:
        try:  # "there are two yellow blocks": what "them" means next
            objects = parse_references(tokens(clause).slice(2, len(words)))
        except UnparseableError:
            return None
        return Request(action="note", objects=objects, text=clause)
    parse = parse_first("statement", clause)
    if parse is None or verb_at(clause) is not None:
        return None
    try:
        objects = parse_references(text_of(parse, 0))
        parse_reference(f"the object that is {text_of(parse, -1)}")  # a place it is said to be
    except UnparseableError:
        return None
    return Request(action="note", objects=objects, text=clause)
