"""The clause grammar (``grammar.lark``) and how a text is read with it.

Tokens are the words and marks of a normalised instruction. A token may play several roles:
the keyword a rule spells, or a plain ``WORD`` of a noun phrase. :func:`parse_all` feeds lark's
LALR tables (through its public interactive parser) one token at a time and enumerates the role
assignments the grammar accepts, keyword roles first, so the first parse reads every keyword it
can; :mod:`claw.planner.language.grammar` gives the parses their meaning. The word rules (verbs
``v_*``, relation phrases, directions, units, number words, filler and sequence words, ...) are
generated from :mod:`claw.planner.language.lexicon` when the grammar is first built. A search is
skipped where the text lacks the words every parse of its rule spells; ``STATS`` counts them.

A clause is read once (rule ``clause``, :mod:`claw.planner.language.clauses`): the parses of rules
inside it (its placements, a definition) are subtrees of that reading, lent to :func:`parse_all` for
their texts (:func:`lend`) so that no search of their own reads them again. The words a free
sequence drops (:func:`without`: "up", "right" in "right next to", "by about") are read from the
tokens' roles, which its first parse gives every token, unless a longer phrase may start.
"""

from __future__ import annotations

import hashlib
import io
import pickle
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal, TypeVar

import lark
from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedToken
from lark.lexer import PatternStr
from lark.parsers.lalr_interactive_parser import InteractiveParser

from claw.common.files import atomic_write, cache_dir
from claw.planner.language import lexicon

_STARTS = ("instruction", "pieces", "clause", "means", "verb_phrase", "take_apart", "off",
           "tower_noun", "together", "levels", "on_table", "unnamed_spot",
           "filler_words", "adverbs", "placement", "under", "side_of", "measure", "slight",
           "direction", "push_words", "definition", "statement", "elided", "for_each", "wish",
           "state_words", "obligation", "swap", "by_size")  # fmt: skip
RELATIONS, WAYS = dict(lexicon.RELATION_PHRASES), dict(lexicon.DIRECTION_WORDS)
_TOKEN = re.compile(r"[\w']+(?:\.\d+)*|\S")  # a word ("2.5" is one) or any other mark alone
NUMBER = re.compile(r"\d+(?:\.\d+)?")
Parse = tuple[Tree, "Words"]


_CACHES: list[Any] = []  # every reading kept by text, forgotten together (clear_caches)
_F = TypeVar("_F", bound=Callable[..., Any])


def cached(function: _F) -> _F:
    """``function`` (a pure function of its texts) kept by argument, until :func:`clear_caches`."""
    kept = lru_cache(maxsize=4096)(function)
    _CACHES.append(kept)
    return kept  # type: ignore[return-value]


@cache
def _lark() -> Lark:
    """The LALR tables of ``grammar.lark`` and the lexicon's word rules, built once."""
    # "to the left" reads as "to the" + "left", as "towards the left" does
    directions = [p for p in WAYS if not (p.startswith("to the ") and p[7:] in WAYS)]
    words = {**lexicon.GRAMMAR_WORDS, "v_relation": tuple(RELATIONS), "v_direction": directions}
    rules = [  # one alternative a phrase: v_pick: "pick" "up" | "pick" | ...
        f"{name}: " + " | ".join(" ".join(f'"{w}"' for w in p.split()) for p in phrases)
        for name, phrases in words.items()
    ]
    rules.append("verb: " + " | ".join(lexicon.VERB_ORDER))
    text = (
        files("claw.planner.language").joinpath("grammar.lark").read_text()
        + "\n"
        + "\n".join(rules)
    )
    options: dict[str, Any] = {"parser": "lalr", "lexer": "basic", "start": list(_STARTS),
                               "keep_all_tokens": True, "maybe_placeholders": False}  # fmt: skip
    kept = _tables_file(text, options)
    unreadable = (OSError, EOFError, ValueError, TypeError, AttributeError, pickle.PickleError)
    with suppress(*unreadable), kept.open("rb") as f:  # a few ms; building takes about a second
        return Lark.load(f)
    parser = Lark(text, **options)
    with suppress(OSError):  # an unwritable home: built again next time
        buffer = io.BytesIO()
        parser.save(buffer)
        atomic_write(kept, buffer.getvalue())
    return parser


def _tables_file(grammar: str, options: dict[str, Any]) -> Path:
    """Where the tables of this grammar (with these options, Lark and Python versions) are
    kept: ``$CLAW_HOME/cache/grammar``."""
    said = f"{grammar}{sorted(options.items())}{lark.__version__}{sys.version_info[:2]}"
    key = hashlib.sha256(said.encode()).hexdigest()[:20]
    return cache_dir("grammar") / f"lalr-{key}.pickle"


@cache
def _keywords() -> dict[str, str]:
    """Each word the grammar spells out, and its terminal's name."""
    terminals = _lark().terminals
    return {t.pattern.value: t.name for t in terminals if isinstance(t.pattern, PatternStr)}


def keywords() -> frozenset[str]:
    """Every word or phrase the grammar spells out (its keywords)."""
    return frozenset(_keywords())


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


@cached
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
        (start == "direction" and not words.spaced[i])  # "(left": no direction (placement:
        # claw.planner.language.places drops a relation that is no whole word)
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
    """True when a relation phrase follows token ``i``, and no word that makes it a side
    precedes it ("the right", "the far right into the box")."""
    following = words.words[i + 1 :]
    return not (i and words.words[i - 1] in _SIDE_MARKS) and any(
        following[: len(p)] == p for p in lexicon.RELATION_WORDS
    )


_SIDE_MARKS = {"the", "far", "very", "extreme", "top", "bottom", "upper", "lower"}


Needs = tuple[tuple[frozenset[str], ...], ...]


Need = frozenset[str] | None  # one of these words is in every parse; None: no word is needed


@cache
def _needs() -> dict[str, Needs]:
    """For each start rule: its alternatives, each as the word sets that every parse of it
    meets (a word of each set is in the text): a parse needs the words its keywords spell."""
    rules = _lark().rules
    found: dict[str, Need] = {"WORD": None, "NUM": None}
    found |= {t.name: frozenset({t.pattern.value}) for t in _lark().terminals
              if isinstance(t.pattern, PatternStr)}  # fmt: skip
    origins = sorted({r.origin.name for r in rules})
    for _ in range(len(rules)):  # to a fixpoint: each round settles what it can
        before = dict(found)
        for origin in origins:
            alternatives = [_need([s.name for s in r.expansion], found)
                            for r in rules if r.origin.name == origin]  # fmt: skip
            if None in alternatives:
                found[origin] = None
            elif "unknown" not in alternatives:
                found[origin] = frozenset().union(*alternatives)  # type: ignore[arg-type]
        if found == before:
            break
    return {
        start: tuple(
            tuple(x for x in (found.get(s.name) for s in rule.expansion) if x)
            for rule in rules
            if rule.origin.name == start
        )
        for start in _STARTS
    }


def _need(symbols: list[str], found: dict[str, Need]) -> Need | Literal["unknown"]:
    """What a sequence of symbols needs: the smallest word set one of them needs; "unknown"
    while none is known to need one and some are not known yet."""
    sets = [need for name in symbols if (need := found.get(name))]
    if sets:
        return min(sets, key=len)
    return None if all(name in found for name in symbols) else "unknown"


def _viable(start: str, words: Words) -> bool:
    """Whether ``words`` hold the keywords some alternative of rule ``start`` needs."""
    present = set(words.words)
    return any(all(need & present for need in alternative) for alternative in _needs()[start])


@dataclass
class ParseStats:
    """How much reading costs: lark searches run (``parses``: each :func:`parse_all` call that
    searches, so each cache miss of :func:`parse_first`), searches skipped (``skipped``: the
    text lacks the words the rule needs), lookups (``lookups``: every :func:`parse_first`
    call, cached or not), parses read within a larger one (``lent``) and the clauses read."""

    parses: int = 0
    lookups: int = 0
    skipped: int = 0  # parses not run: the text lacks the words the rule needs
    lent: int = 0  # parses not run: read within a larger parse (lend)
    clauses: int = 0  # clauses read (claw.planner.language.grammar.parse_instruction)

    def reset(self) -> None:
        """Start counting from zero."""
        self.parses = self.lookups = self.skipped = self.lent = self.clauses = 0


STATS = ParseStats()
"""The process's counts since the last :meth:`ParseStats.reset`."""


_LENT: dict[tuple[str, str], tuple[Parse, ...]] = {}  # parses read within a larger one
_MAX_LENT = 4096


def lend(start: str, text: str, parses: Iterable[Parse]) -> None:
    """Keep ``parses`` (subtrees of a larger parse, over its words, in the order a search finds
    them) as every parse of ``text`` from rule ``start``: :func:`parse_all` reads them back
    without a search of its own (``STATS.lent``)."""
    if len(_LENT) >= _MAX_LENT:
        del _LENT[next(iter(_LENT))]
    _LENT[start, text] = tuple(parses)


def parse_all(start: str, text: str) -> Iterator[Parse]:
    """Every parse of ``text`` from rule ``start`` (counted in ``STATS``), lazily; none, without
    a search, when the text lacks the words every parse of the rule spells; those lent by a
    larger parse (:func:`lend`), without a search."""
    lent = _LENT.get((start, text))
    if lent is not None:
        STATS.lent += 1
        return iter(lent)
    if not _viable(start, tokens(text)):
        STATS.skipped += 1
        return iter(())
    STATS.parses += 1
    return _search(start, text)


def _search(start: str, text: str) -> Iterator[Parse]:
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


def parse_first(start: str, text: str) -> Parse | None:
    """The first parse of ``text`` from rule ``start``, or None (kept: a clause is asked about
    several times while an instruction is read; parses are never changed once made)."""
    STATS.lookups += 1
    return _first(start, text)


@cached
def _first(start: str, text: str) -> Parse | None:
    return next(parse_all(start, text), None)


def span(node: Tree | Token | None, inner: bool = False) -> tuple[int, int]:
    """The token indices (start, end) a subtree covers, or with ``inner`` its children outside
    their ``rest``s (the phrase a rule found); (0, 0) when empty."""
    if isinstance(node, Token):
        return node.start_pos, node.start_pos + 1  # type: ignore[operator, return-value]
    if inner and node is not None:
        node = Tree(
            "", [c for c in node.children if not (isinstance(c, Tree) and c.data == "rest")]
        )
    found = [] if node is None else [t.start_pos for t in node.scan_values(lambda _: True)]
    return (min(found), max(found) + 1) if found else (0, 0)


def part_spans(text: str) -> list[tuple[int, int]]:
    """The token spans (start, end) of a normalised text's parts: what comes between strong
    separators (full stops, "then", "after that")."""
    parse = parse_first("instruction", text)
    children = [] if parse is None else parse[0].children
    return [span(c) for c in children if isinstance(c, Tree) and c.data == "part"]


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
    words = tokens(text)
    gone = _marked(start, words, frozenset(drop))
    if gone is None:
        parse = parse_first(start, text)
        if parse is None:
            return text
        tree, gone = parse[0], set[int]()
        for node in (c for c in tree.children if isinstance(c, Tree) and c.data in drop):
            gone.update(range(*span(node)))
    kept = [i for i in range(len(words.words)) if i not in gone]
    return "".join((" " if k and words.starts[i] > words.ends[kept[k - 1]] else "") + words.words[i]
                   for k, i in enumerate(kept))  # fmt: skip


def _marked(start: str, words: Words, drop: frozenset[str]) -> set[int] | None:
    """The tokens in ``drop``'s subtrees of the first parse of a free sequence (``start`` reads
    any words, and phrases of ``drop`` among them: ``adverbs: (_w | adverb)*``), read from the
    roles alone: where each token's first role there is a plain word or a one-word phrase of
    ``drop``, the first parse gives each token that role. None where a role starts a longer
    phrase ("so that it is"): then only the search knows."""
    phrases = _phrases(drop)
    if phrases is None:
        return None
    (whole, longer), gone = phrases, set[int]()
    for i in range(len(words.words)):
        role = next(r for r in _roles(start, words, i) if r in whole or r in longer or r == "WORD")
        if role in longer:
            return None
        if role != "WORD":
            gone.add(i)
    return gone


@cache
def _phrases(drop: frozenset[str]) -> tuple[frozenset[str], frozenset[str]] | None:
    """The terminals that are a whole alternative of a rule in ``drop`` (a one-word phrase),
    and those that start a longer one; None where an alternative starts with a rule."""
    whole, longer, keywords = set[str](), set[str](), set(_keywords().values())
    for rule in (r for r in _lark().rules if r.origin.name in drop):
        names = [s.name for s in rule.expansion]
        if not names or names[0] not in keywords:
            return None
        (whole if len(names) == 1 else longer).add(names[0])
    return frozenset(whole - longer), frozenset(longer)


def clear_caches() -> None:
    """Forget the texts read so far (for timing a reading from scratch)."""
    for kept in _CACHES:
        kept.cache_clear()
    _LENT.clear()
