"""The clause grammar (``grammar.lark``) and how a text is read with it.

Tokens are the words and marks of a normalised instruction. A token may play several roles:
the keyword a rule spells, or a plain ``WORD`` of a noun phrase. :func:`parse_all` feeds lark's
LALR tables (through its public interactive parser) one token at a time and enumerates the role
assignments the grammar accepts, keyword roles first, so the first parse reads every keyword it
can; :mod:`claw.planner.grammar` gives the parses their meaning. The vocabulary rules (``v_*``:
verbs, relation phrases, directions, units, number words) are generated from
:mod:`claw.planner.vocabulary` when the grammar is first built.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib.resources import files

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedToken
from lark.lexer import PatternStr
from lark.parsers.lalr_interactive_parser import InteractiveParser

from claw.planner import vocabulary as vocab

_STARTS = ("instruction", "pieces", "head", "means", "verb_phrase", "take_apart", "off",
           "tower_noun", "together", "levels", "each_other", "on_table", "unnamed_spot",
           "filler_words", "adverbs", "placement", "under", "side_of", "measure", "slight",
           "direction", "push_words", "definition", "statement", "elided", "for_each", "wish",
           "state_words", "obligation", "swap", "by_size")  # fmt: skip
RELATIONS, WAYS = dict(vocab.RELATION_PHRASES), dict(vocab.DIRECTION_WORDS)
_RELATION_WORDS = [tuple(phrase.split()) for phrase in RELATIONS]
_TOKEN = re.compile(r"[\w']+(?:\.\d+)*|\S")  # a word ("2.5" is one) or any other mark alone
NUMBER = re.compile(r"\d+(?:\.\d+)?")
Parse = tuple[Tree, "Words"]


@cache
def _lark() -> Lark:
    """The LALR tables of ``grammar.lark`` and the vocabulary's rules, built once."""
    # "to the left" reads as "to the" + "left", as "towards the left" does
    directions = [p for p in WAYS if not (p.startswith("to the ") and p[7:] in WAYS)]
    vocabulary = {"v_place": vocab.PLACE_VERBS, "v_push": vocab.PUSH_VERBS,
                  "v_pick": vocab.PICK_VERBS, "v_stack": vocab.STACK_VERBS,
                  "v_unsupported": vocab.UNSUPPORTED_VERBS, "v_relation": RELATIONS,
                  "v_direction": directions, "v_unit": vocab.UNITS,
                  "v_number": vocab.NUMBER_WORDS, "v_size": vocab.SIZE_WORDS}  # fmt: skip
    rules = "\n".join(  # one alternative a phrase: v_pick: "pick" "up" | "pick" | ...
        f"{name}: " + " | ".join(" ".join(f'"{w}"' for w in p.split()) for p in phrases)
        for name, phrases in vocabulary.items()
    )
    text = files("claw.planner").joinpath("grammar.lark").read_text() + "\n" + rules
    return Lark(
        text,
        parser="lalr",
        lexer="basic",
        start=list(_STARTS),
        keep_all_tokens=True,
        maybe_placeholders=False,
    )


@cache
def _keywords() -> dict[str, str]:
    """Each word the grammar spells out, and its terminal's name."""
    terminals = _lark().terminals
    return {t.pattern.value: t.name for t in terminals if isinstance(t.pattern, PatternStr)}


@dataclass(frozen=True)
class Words:
    """A text's tokens, their character offsets, and whether whitespace surrounds each."""

    text: str
    words: tuple[str, ...]
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    spaced: tuple[bool, ...]

    def slice(self, i: int, j: int) -> str:
        """The text of tokens ``i`` to ``j`` (exclusive), as written."""
        return self.text[self.starts[i] : self.ends[j - 1]] if i < j else ""


@lru_cache(maxsize=4096)
def tokens(text: str) -> Words:
    """The tokens of ``text``."""
    found = list(_TOKEN.finditer(text))
    spaced = tuple((m.start() == 0 or text[m.start() - 1] == " ")
                   and text[m.end() : m.end() + 1] in ("", " ") for m in found)  # fmt: skip
    return Words(text, tuple(m.group() for m in found), tuple(m.start() for m in found),
                  tuple(m.end() for m in found), spaced)  # fmt: skip


def _roles(start: str, words: Words, i: int) -> list[str]:
    """The terminals token ``i`` may be in rule ``start``: its keyword first, then WORD."""
    word, roles = words.words[i], []
    after = words.words[i + 1] if i + 1 < len(words.words) else ""
    keyword = _keywords().get(word)
    if keyword and not (
        (start in ("placement", "direction") and not words.spaced[i])  # "(on": not a relation
        or (start == "pieces" and word == "next" and after == "to")  # "next to": no sequence
        or (word == "keep" and not re.match(r"\w+ing\b", after))  # "keep pushing it"
        or (start == "adverbs" and not _before_relation(words, i))  # "right next to"
        or (start == "definition" and word == "and" and after not in ("a", "an", "the"))
    ):
        roles.append(keyword)
        if start == "definition" and word == "and":
            return roles  # "..., and a wug is ...": a definition ends at "and" + article
    return [*roles, "NUM", "WORD"] if NUMBER.fullmatch(word) else [*roles, "WORD"]


def _before_relation(words: Words, i: int) -> bool:
    """True when a relation phrase follows token ``i``, and "the" does not precede it."""
    following = words.words[i + 1 :]
    return not (i and words.words[i - 1] == "the") and any(
        following[: len(p)] == p for p in _RELATION_WORDS
    )


def parse_all(start: str, text: str) -> Iterator[Parse]:
    """Every parse of ``text`` from rule ``start``, depth first, keyword roles first.

    The search keeps its own stack (no recursion, so no limit on the text's length): each entry
    is a parser state, the token it goes on from, and the roles of that token still to try
    (``None`` before the first). Every role but the last goes on from a copy of the state.
    """
    words = tokens(text)
    roles = [_roles(start, words, i) for i in range(len(words.words))]
    stack: list[tuple[InteractiveParser, int, list[str] | None]] = [
        (_lark().parse_interactive(start=start), 0, None)
    ]
    while stack:
        parser, i, fits = stack.pop()
        if fits is None:
            choices = parser.choices()
            if i == len(roles):
                if "$END" in choices:
                    with suppress(UnexpectedToken):  # a reduction the lookahead allowed, no parse
                        yield parser.feed_eof(), words
                continue
            fits = [role for role in roles[i] if role in choices]
        if not fits:
            continue
        if len(fits) > 1:  # the other roles go on later from this state, kept as it is
            stack.append((parser, i, fits[1:]))
            parser = _branch(parser)
        try:
            parser.feed_token(Token(fits[0], words.words[i], i))
        except UnexpectedToken:  # the same: a reduction that leads nowhere
            continue
        stack.append((parser, i + 1, None))


def _branch(parser: InteractiveParser) -> InteractiveParser:
    """A copy of ``parser`` that goes on apart from it, in time linear in its stack.

    Lark's LALR tree builder extends in place the child list of a value on the stack that it
    inlines (``_w+``), never a tree below one, so each value on the stack gets its own list and
    the rest is shared (a deep copy would copy the whole parse so far at every branch)."""
    branch = parser.copy(deepcopy_values=False)
    values = branch.parser_state.value_stack
    values[:] = [Tree(v.data, list(v.children)) if isinstance(v, Tree) else v for v in values]
    return branch


@lru_cache(maxsize=4096)
def parse_first(start: str, text: str) -> Parse | None:
    """The first parse of ``text`` from rule ``start``, or None (kept: a clause is asked about
    several times while an instruction is read; parses are never changed once made)."""
    return next(parse_all(start, text), None)


def span(node: Tree | Token | None, inner: bool = False) -> tuple[int, int]:
    """The token indices (start, end) a subtree covers, or with ``inner`` its children outside
    their ``rest``s (the phrase a rule found); (0, 0) when empty."""
    if isinstance(node, Token):
        return node.start_pos, node.start_pos + 1  # type: ignore[operator]
    if inner and node is not None:
        node = Tree(
            "", [c for c in node.children if not (isinstance(c, Tree) and c.data == "rest")]
        )
    found = [] if node is None else [t.start_pos for t in node.scan_values(lambda _: True)]
    return (min(found), max(found) + 1) if found else (0, 0)


def child(node: Tree | Token, name: str) -> Tree | None:
    """The first child subtree named ``name``."""
    children = node.children if isinstance(node, Tree) else []
    return next((c for c in children if isinstance(c, Tree) and c.data == name), None)


def text_of(parse: Parse, name: str | int) -> str:
    """The text of a parse's first child named ``name`` (or its child at index ``name``)."""
    node = parse[0].children[name] if isinstance(name, int) else child(parse[0], name)
    return parse[1].slice(*span(node)) if node is not None else ""


def without(text: str, start: str, drop: set[str]) -> str:
    """``text`` without the subtrees named in ``drop`` of its first parse from ``start``."""
    parse = parse_first(start, text)
    if parse is None:
        return text
    (tree, words), gone = parse, set()
    for child in (c for c in tree.children if isinstance(c, Tree) and c.data in drop):
        gone.update(range(*span(child)))
    kept = [i for i in range(len(words.words)) if i not in gone]
    return "".join((" " if k and words.starts[i] > words.ends[kept[k - 1]] else "") + words.words[i]
                   for k, i in enumerate(kept))  # fmt: skip


def clear_caches() -> None:
    """Forget the texts read so far (for timing a reading from scratch)."""
    parse_first.cache_clear()
    tokens.cache_clear()
