"""Reading instructions as people type them: words the grammar cannot place, typos, casual forms.

The clause grammar (:mod:`claw.planner.grammar`) reads what it was written for. When it cannot
read an instruction, :func:`read_instruction` reads it again, changed only where a change is
safe, and says what it changed (:class:`Reading`):

1. A word the lexicon lacks, and that is no English word (the MiniLM tokenizer's whole words,
   :func:`claw.library.embedding.english_words`), is **corrected** to the one known word
   nearest it by a typing distance (:func:`typo_distance`: a swapped pair or a doubled letter
   costs half an edit), when exactly one is nearest within the word's allowance (shorter words
   get less); a tie is broken by what the scene has (``scene_words``), else none is taken.
2. Else it is **matched by meaning** (:mod:`claw.planner.meaning`, the shipped MiniLM embedder)
   to a colour, type, size, region or relation word, above that module's threshold.
3. Else, when nothing makes it a content word — no content word is within its typing allowance
   and no meaning comes near — it is **ignored** ("yo", "kinda", "um"). A word that could name
   something in the scene is never left out: the instruction is refused, naming the word.
4. If the text still does not read, these are left out in turn: sentences with no content word
   ("hello!", "thanks a lot."); what comes before a sentence's first verb when it holds no
   content word ("hey there, would it be possible to put ..."); a closing "when you get a
   chance" that names nothing; the hedges (``lexicon.HEDGES``: "like", "basically"). A verbless
   text that reads as a placement is a place ("red block in the blue box"). Last, one soft word
   (``lexicon.SOFT_WORDS``: "for me", "if possible"), or two side by side, is left out — taken
   only when every such reading that reads means the same.

What is left out is reported (``Reading.ignored``), and so is what was read as another word
(``Reading.corrected``); a reading that changes nothing is the grammar's own.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from claw.common.exceptions import ClawError
from claw.library.embedding import english_words
from claw.planner import lexicon
from claw.planner.exceptions import AmbiguousError, UnparseableError
from claw.planner.forms import Request
from claw.planner.grammar import MAX_INSTRUCTION_CHARS, normalise, parse_instruction
from claw.planner.parsing import NUMBER, keywords, tokens

if TYPE_CHECKING:
    from claw.planner.meaning import WordMatch

__all__ = ["Reading", "content_words", "read_instruction", "typo_distance", "vocabulary"]

_SENTENCE_END = {".", "!", "?", ";"}
_LONGEST_WORD = 20  # letters: longer than any word of the lexicon (13)
_NEGATIONS = {"not", "no", "never", "without", "except", "but", "nothing", "none"}
_SUBORDINATORS = {"when", "whenever", "if", "once", "while"}
_WISHING = {"would", "should", "could", "want", "wanted", "need", "needed", "like", "wish",
            "great", "nice", "love", "prefer", "if", "let's", "lets", "please"}  # fmt: skip
_COPULAS = {"is", "are", "was", "were", "be", "being", "been", "to"}


@dataclass(frozen=True)
class Reading:
    """An instruction's requests, and what was changed to read it."""

    requests: list[Request]
    ignored: tuple[str, ...] = ()
    """Words left out, in the order typed."""
    corrected: tuple[tuple[str, str], ...] = ()
    """``(typed, read as)`` for each word read as another."""


@dataclass
class _Draft:
    """The tokens of an instruction being made readable, and what was changed."""

    words: list[str]
    unknown: set[int] = field(default_factory=set)
    """Words the lexicon lacks that name nothing: always left out."""
    corrected: list[tuple[str, str]] = field(default_factory=list)

    def text(self, dropped: Collection[int] = ()) -> str:
        """The text with the unknown words and those at ``dropped`` left out."""
        left_out = self.unknown | set(dropped)
        kept = [w for i, w in enumerate(self.words) if i not in left_out]
        return re.sub(r" (?=[,.;:!?])", "", " ".join(kept))

    def reading(self, requests: list[Request], dropped: Collection[int] = ()) -> Reading:
        """The reading of :meth:`text` with ``dropped`` left out."""
        ignored = [self.words[i] for i in sorted(self.unknown | set(dropped))]
        return Reading(requests, tuple(ignored), tuple(self.corrected))


def _words_of(value: object) -> Iterator[str]:
    """Every plain word in a lexicon table (strings, and those in tuples, sets and mappings)."""
    if isinstance(value, str):
        if re.fullmatch(r"[a-z0-9' ]+", value):
            yield from value.split()
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _words_of(key)
            yield from _words_of(item)
    elif isinstance(value, tuple | list | set | frozenset):
        for item in value:
            yield from _words_of(item)


@cache
def vocabulary() -> frozenset[str]:
    """Every word the offline reader knows: the lexicon's tables and the grammar's keywords."""
    tables = (getattr(lexicon, name) for name in dir(lexicon) if name.isupper())
    words = {w for table in tables for w in _words_of(table)}
    words.update(w for keyword in keywords() for w in keyword.split())
    return frozenset(words)


@cache
def content_words() -> frozenset[str]:
    """Words that name something a scene could have or something to do: colours, types,
    sizes, sides, regions, extremes, ordinals, numbers, verbs and relation words."""
    tables = (
        lexicon.COLOR_WORDS, lexicon.OTHER_COLORS, lexicon.TYPE_WORDS, lexicon.GENERIC_HEADS,
        lexicon.SIZE_WORDS, lexicon.LIGHTNESS_WORDS, lexicon.EXTREME_WORDS, lexicon.SIDE_WORDS,
        lexicon.REGION_HEADS, lexicon.REGION_ALIASES, lexicon.ORDINAL_WORDS,
        lexicon.COLOR_FAMILIES, lexicon.VERB_CLASSES, lexicon.GRAMMAR_WORDS["tower_verb"],
        lexicon.GRAMMAR_WORDS["unstack"], lexicon.RELATION_PHRASES, lexicon.DIRECTION_WORDS,
        tuple(w for w in lexicon.NUMBER_WORDS if w != "a"), ("table",),
    )  # fmt: skip
    words = {w for table in tables for w in _words_of(table)}
    named = {*lexicon.TYPE_WORDS, *lexicon.COLOR_WORDS, *lexicon.NUMBER_WORDS} - {"a"}
    addressed = set(_words_of((lexicon.ROBOT, lexicon.GRAMMAR_WORDS["_address"])))
    return frozenset(w for w in words - addressed if len(w) > 3 or w in named)


def typo_distance(typed: str, word: str) -> float:
    """Edits from ``typed`` to ``word``: a substitution, insertion or deletion costs 1, a
    swap of neighbours or a doubled (or undoubled) letter 0.5 — the slips of typing."""
    rows = [[0.0] * (len(word) + 1) for _ in range(len(typed) + 1)]
    for i in range(len(typed) + 1):
        rows[i][0] = float(i)
    for j in range(len(word) + 1):
        rows[0][j] = float(j)
    for i in range(1, len(typed) + 1):
        for j in range(1, len(word) + 1):
            a, b = typed[i - 1], word[j - 1]
            drop = 0.5 if i > 1 and typed[i - 2] == a else 1.0  # "bloock": one o too many
            add = 0.5 if j > 1 and word[j - 2] == b else 1.0  # "gren": one e too few
            best = min(rows[i - 1][j] + drop, rows[i][j - 1] + add, rows[i - 1][j - 1] + (a != b))
            if i > 1 and j > 1 and a == word[j - 2] and typed[i - 2] == b:
                best = min(best, rows[i - 2][j - 2] + 0.5)
            rows[i][j] = best
    return rows[-1][-1]


def allowance(word: str) -> float:
    """How far a typed word may be from the word meant: a slip for 3 letters or fewer, one edit
    for 4 or 5, two from 6."""
    return 0.5 if len(word) <= 3 else 1.0 if len(word) <= 5 else 2.0


@lru_cache(maxsize=4096)
def nearest_words(typed: str) -> tuple[float, tuple[str, ...]]:
    """The known words nearest ``typed`` within its allowance, and their distance (none for a
    "word" longer than any the lexicon has, plus its allowance)."""
    limit, best, found = allowance(typed), float("inf"), []
    if len(typed) > _LONGEST_WORD + limit:
        return best, ()
    for word in vocabulary():
        if abs(len(word) - len(typed)) > limit or word[:1].isdigit():
            continue
        distance = typo_distance(typed, word)
        if distance < best:
            best, found = distance, [word]
        elif distance == best:
            found.append(word)
    return (best, tuple(sorted(found))) if best <= limit else (best, ())


def _scene_has(word: str, scene_words: Collection[str]) -> bool:
    canonical = lexicon.COLOR_WORDS.get(word) or lexicon.TYPE_WORDS.get(word) or word
    return canonical in scene_words


def _position(before: str, after: str) -> str:
    """Where an unknown word stands, for what it may mean: before a head noun an adjective,
    before a region's head a region word, between a phrase and a determiner a preposition,
    else a noun."""
    heads = {*lexicon.TYPE_WORDS, *lexicon.GENERIC_HEADS}
    if after in heads or after in lexicon.COLOR_WORDS or after in lexicon.SIZE_WORDS:
        return "adjective"
    if after in lexicon.REGION_HEADS:
        return "region"
    if after in (*lexicon.DEFINITE, *lexicon.INDEFINITE) and before not in _verbs():
        return "preposition"
    return "noun"


def _as_word(match: WordMatch, typed: str, after: str) -> str:
    """The known word(s) a matched word is read as, in its place."""
    target = match.target
    if match.category == "type" and typed.endswith("s") and target != "table":
        return "boxes" if target == "box" else f"{target}s"
    if match.category == "relation":
        return target.replace("_", " ")
    if match.category == "region" and target.split()[-1] == after:
        return " ".join(target.split()[:-1])  # "the western side": "the left side"
    return target


def _by_meaning(typed: str, before: str, after: str) -> tuple[str | None, str]:
    """The known word(s) an unknown word means by the embedder (``None`` when none), and, when
    none is sure but one is near, the refusal's note on the nearest ("" when none is near)."""
    from claw.planner import meaning

    position = _position(before, after)
    match = meaning.ground_word(typed, position)
    if match is not None:
        return _as_word(match, typed, after), ""
    near = meaning.nearest(typed, position, k=2)
    if near and near[0][1] >= meaning.THRESHOLD:  # near one, but not sure which
        return None, ", ".join(f"{target} {score:.2f}" for target, score in near)
    return None, ""


def _fix_word(draft: _Draft, i: int, scene_words: Collection[str]) -> None:
    """Correct, match or leave out the unknown word at ``i``; refuse one that could matter."""
    typed = draft.words[i]
    _, near = (0.0, ()) if typed in english_words() else nearest_words(typed)  # no slip
    if len(near) > 1:
        in_scene = [w for w in near if _scene_has(w, scene_words)]
        near = tuple(in_scene) if len(in_scene) == 1 else near
    if len(near) == 1:
        draft.words[i] = near[0]
        draft.corrected.append((typed, near[0]))
        return
    content = [w for w in near if w in content_words()]
    if content:
        raise UnparseableError(
            f"{typed!r} is not a word claw knows; it could be {' or '.join(content)}: say which"
        )
    before = draft.words[i - 1] if i else ""
    after = draft.words[i + 1] if i + 1 < len(draft.words) else ""
    meant, nearest = _by_meaning(typed, before, after)
    if meant is not None:
        draft.words[i] = meant
        draft.corrected.append((typed, meant))
    elif nearest:
        raise UnparseableError(f"{typed!r} is not a word claw knows; nearest: {nearest}")
    else:
        draft.unknown.add(i)


def _casual(text: str) -> list[str]:
    """The tokens of a normalised text, chat abbreviations and apostrophe-less contractions
    written out."""
    words: list[str] = []
    for word in tokens(text).words:
        full = lexicon.ABBREVIATIONS.get(word) or lexicon.CONTRACTIONS.get(word) or word
        words.extend(full.split())
    return words


def _sentences(words: list[str]) -> list[list[int]]:
    """The token indices of each sentence (its end mark included)."""
    found: list[list[int]] = [[]]
    for i, word in enumerate(words):
        found[-1].append(i)
        if word in _SENTENCE_END:
            found.append([])
    return [s for s in found if s]


def _has_content(words: list[str], indices: Collection[int], verbs: bool = True) -> bool:
    """Whether any of the words at ``indices`` is a content word (a verb only with ``verbs``)."""
    named = _naming(verbs)
    return any(words[i] in named or NUMBER.fullmatch(words[i]) for i in indices)


@cache
def _naming(verbs: bool) -> frozenset[str]:
    """The content words and negations, with or without the verbs."""
    named = content_words() | _NEGATIONS
    return named if verbs else named - _verbs()


@cache
def _verbs() -> frozenset[str]:
    """The one-word verbs of the verb classes and the tower verbs."""
    phrases = [p for table in lexicon.VERB_CLASSES.values() for p in table]
    return frozenset([*(p for p in phrases if " " not in p), *lexicon.GRAMMAR_WORDS["tower_verb"]])


def _chatter(words: list[str]) -> set[int]:
    """Sentences with no content word ("hello!", "thanks a lot."), by token index."""
    return {i for s in _sentences(words) if not _has_content(words, s) for i in s}


def _preambles(words: list[str]) -> set[int]:
    """What comes before a sentence's first verb when it names nothing ("hey, could it be
    possible to put ..."), by token index."""
    verbs = _verbs()
    dropped: set[int] = set()
    for sentence in _sentences(words):
        first = next((k for k, i in enumerate(sentence) if words[i] in verbs), None)
        if first and not _has_content(words, sentence[:first]):
            dropped.update(sentence[:first])
    return dropped


def _codas(words: list[str]) -> set[int]:
    """A sentence's closing "when you get a chance", "if you can": from a subordinating word
    to the sentence's end, when it names nothing, by token index."""
    dropped: set[int] = set()
    for sentence in _sentences(words):
        start = next((k for k, i in enumerate(sentence) if words[i] in _SUBORDINATORS), None)
        if start:
            tail = [i for i in sentence[start:] if words[i] not in _SENTENCE_END]
            if not _has_content(words, tail, verbs=False):
                dropped.update(tail)
    return dropped


Check = Callable[[list[Request]], object]
"""Raises a :class:`ClawError` when requests cannot be meant (they do not ground on the scene)."""


def _wish(words: list[str]) -> set[int]:
    """In a text with no verb that wishes ("it would be great if the red block was in the box"):
    the words before the first content word and the copulas, by token index (what is left,
    "the red block in the box", reads as a place)."""
    if not set(words) & _WISHING:
        return set()
    first = next((i for i, w in enumerate(words) if _has_content(words, [i])), len(words))
    start = first - (first > 0 and words[first - 1] in ("the", "a", "an", "all", "every"))
    return set(range(start)) | {i for i, w in enumerate(words) if w in _COPULAS}


def _attempt(text: str, check: Check | None = None) -> list[Request] | None:
    """The requests of ``text``, or ``None`` when it does not read (or ``check`` refuses them)."""
    try:
        requests = parse_instruction(text)
        if check is not None:
            check(requests)
    except AmbiguousError:
        raise
    except ClawError:
        return None
    return requests


def _without_soft_words(draft: _Draft, base: set[int], check: Check | None) -> Reading | None:
    """A reading with one soft word (or hedge), or two side by side, left out, when every
    such reading that reads means the same (else none)."""
    soft = {*lexicon.SOFT_WORDS, *lexicon.HEDGES}
    spots = [i for i, w in enumerate(draft.words) if i not in base | draft.unknown and w in soft]
    singles: list[tuple[int, ...]] = [(i,) for i in spots]
    pairs: list[tuple[int, ...]] = [(i, j) for i, j in itertools.pairwise(spots) if j == i + 1]
    for choices in (singles, pairs):
        found: list[tuple[tuple[int, ...], list[Request]]] = []
        for choice in choices:
            requests = _attempt(draft.text({*base, *choice}), check)
            if requests is not None:
                found.append((choice, requests))
        if found:
            meanings = {_meaning_of(r) for _, r in found}
            if len(meanings) > 1:
                return None
            choice, requests = found[0]
            return draft.reading(requests, {*base, *choice})
    return None


def _meaning_of(requests: list[Request]) -> str:
    """What requests ask for, whatever words said it."""
    return repr([r.model_dump(exclude={"text"}) for r in requests])


def read_instruction(
    instruction: str, scene_words: Collection[str] = (), check: Check | None = None
) -> Reading:
    """The requests of an instruction, read as typed where the grammar can, else with the
    changes of this module's steps, each reported.

    ``scene_words``: the colours and types the scene has (``red``, ``box``), to choose between
    corrections equally near. ``check``: refuses the requests of a changed reading that cannot
    be meant (the planner grounds them on the scene); the grammar's own reading is not checked.

    Raises:
        UnparseableError: nothing safe makes it read (the grammar's own message, or the word
            that could name something and was not understood).
        AmbiguousError, UnsupportedError: as the grammar raises them.
    """
    try:
        return Reading(parse_instruction(instruction))
    except AmbiguousError:
        raise
    except UnparseableError as exc:
        if len(instruction) > MAX_INSTRUCTION_CHARS:
            raise  # too long to read at all: no second reading either
        refusal = exc
    draft = _Draft(_casual(normalise(instruction)))
    known = vocabulary()
    for i, word in enumerate(draft.words):
        if word not in known and re.fullmatch(r"[a-z][a-z']*", word):
            _fix_word(draft, i, scene_words)
        elif not re.fullmatch(r"[\w',.;:!?&]+", word):
            draft.unknown.add(i)  # ":)", "->": marks that say nothing here
    base: set[int] = set()
    for dropped in (set(), _chatter(draft.words), _preambles(draft.words), _codas(draft.words)):
        base |= dropped
        requests = _attempt(draft.text(base), check)
        if requests is not None:
            return draft.reading(requests, base)
    hedges = {i for i, w in enumerate(draft.words) if w in lexicon.HEDGES}
    verbless = not set(draft.words) & _verbs()
    for dropped in (hedges, set(), _wish(draft.words) if verbless else set()):
        text = draft.text(base | dropped)
        requests = _attempt(text, check)
        if requests is None and verbless:
            requests = _attempt(f"put {text}", check)  # "red block in the blue box"
        if requests is not None:
            return draft.reading(requests, base | dropped)
    reading = _without_soft_words(draft, base | hedges, check)
    if reading is None:
        raise refusal
    return reading
