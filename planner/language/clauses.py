"""One reading of a clause's lead: its filler and verb phrase, and what that reading holds.

Rule ``clause`` reads the filler ("please", "could you", "robot,"), then each verb class the
clause reads as (its rest also as a placement), or a definition, or neither. Its parses give
the text after the filler, the clause's verb (the first class of ``lexicon.VERB_ORDER`` wins),
and, read within it, the placements of the verb's rest and the definitions: those need no
search of their own (:func:`claw.planner.language.parsing.lend`). A text changed after that reading
(a means' -ing verb, a state asked for as a place) is read again.
"""

from __future__ import annotations

from collections.abc import Iterable

from lark import Token, Tree

from claw.planner.language import lexicon
from claw.planner.language.inflection import verb_forms
from claw.planner.language.parsing import (
    Parse,
    Words,
    cached,
    lend,
    parse_all,
    parse_first,
    span,
    text_of,
    without,
)

__all__ = ["read_lead", "strip_filler", "verb_at", "verb_phrase"]

_Verb = tuple[str, str, str]  # (verb class, verb, rest)


@cached
def read_lead(clause: str) -> tuple[str, _Verb | None]:
    """``clause`` without its filler and a means' lead-in, its -ing verb made plain (a state
    asked for as its place), and its (verb class, verb, rest): the first class wins.

    One reading of the clause (rule ``clause``) gives both: its parses, keyword roles first,
    read the longest filler and then each verb class, and end with the filler and the rest as
    plain words. A text changed after it (a means, an -ing verb, a place) is read again."""
    text, read = _read_clause(clause)
    best = _best_verb(read["verb_phrase"])
    found, after_filler = (None if best is None else _verb_of(best)), text
    if best is not None:
        _lend_placements(best, read["verb_phrase"])
    lend("definition", text, read["definition"])
    means = parse_first("means", text)
    gerunds = verb_forms("ing")
    if means is not None and text_of(means, "rest").split(" ", 1)[0] in gerunds:
        text = text_of(means, "rest")  # "... by putting the blue block in the bowl"
    first, _, rest = text.partition(" ")
    text = f"{gerunds[first]} {rest}".strip() if first in gerunds else text
    found = found if text == after_filler else verb_phrase(text)
    if found is None and (placed := _as_place(text)) != text:
        return placed, verb_phrase(placed)
    return text, found


def _read_clause(clause: str) -> tuple[str, dict[str, list[Parse]]]:
    """The text after a clause's filler, and the verb phrase and definition parses of that
    text, in the order a search finds them: the parses of rule ``clause`` up to the first that
    reads neither (the filler, then plain words). A definition's "and" ends one where an
    article follows, and only there (as rule ``definition`` reads it)."""
    found: dict[str, list[Parse]] = {"verb_phrase": [], "definition": []}
    for tree, words in parse_all("clause", clause):
        node = tree.children[-1]
        if not isinstance(node, Tree) or node.data == "rest":
            return words.slice(*span(node)), found
        if node.data == "verb_phrase" or _and_ends_definitions(node, words):
            found[node.data].append((node, words))
    return clause, found


def _and_ends_definitions(node: Tree, words: Words) -> bool:
    """Whether each "and" of a definition parse is a keyword where an article follows it."""
    return all(
        (t.type == "AND") == (words.words[t.start_pos + 1 : t.start_pos + 2] in _ARTICLES)
        for t in node.scan_values(_is_token)
        if t == "and"
    )


_ARTICLES = (("a",), ("an",), ("the",))


def strip_filler(clause: str) -> str:
    """``clause`` without its filler and a means' lead-in, its -ing verb made plain."""
    return read_lead(clause)[0]


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


@cached
def verb_phrase(text: str) -> _Verb | None:
    """(verb class, verb, rest) of a text that starts with a verb (a second reading, for a
    text :func:`read_lead` changed)."""
    best = _best_verb(parse_all("verb_phrase", text))
    return None if best is None else _verb_of(best)


def _best_verb(parses: Iterable[Parse]) -> Parse | None:
    """Of verb phrase parses, the first of those whose class comes first."""
    best: tuple[int, Parse] | None = None
    for parse in parses:
        rank = lexicon.VERB_ORDER.index(parse[0].children[0].children[0].data)
        if best is None or rank < best[0]:
            best = rank, parse
    return None if best is None else best[1]


def _verb_of(parse: Parse) -> _Verb:
    """(verb class, verb, rest) of a verb phrase parse."""
    verb = parse[0].children[0].children[0]
    return verb.data, parse[1].slice(*span(verb)), text_of(parse, 1)


def _lend_placements(best: Parse, verbs: list[Parse]) -> None:
    """The placements of the rest of the verb phrase ``best``, read within the clause's one
    reading: the parses with its verb whose rest reads as a placement, for rule ``placement``
    of the rest's text (where its first word stands apart there as it does in the clause)."""
    tree, words = best

    def leaves(node: Tree) -> tuple[tuple[str, int], ...]:
        return tuple((t.type, t.start_pos) for t in node.children[0].scan_values(_is_token))

    start, verb = span(tree.children[1])[0], leaves(tree)
    if start and words.starts[start] > words.ends[start - 1]:
        placements = [(node.children[1], w) for node, w in verbs
                      if node.children[1].data == "placement" and leaves(node) == verb]  # fmt: skip
        lend("placement", text_of(best, 1), placements)


def _is_token(value: object) -> bool:
    return isinstance(value, Token)


@cached
def verb_at(text: str) -> str | None:
    """The verb a clause starts with (after filler words), if it starts with one."""
    found = read_lead(text)[1]
    if found is None:
        return None
    return {"tower": "stack", "unstack": "unstack"}.get(found[0], found[1])
