"""Words as people type them: what the offline reader knows (:func:`vocabulary`), what names
something (:func:`content_words`), a typing distance (:func:`typo_distance`), and what an unknown
word is read as (:func:`read_word`): the one known word nearest it, else its meaning by the
shipped embedder (:mod:`claw.planner.language.meaning`), else nothing (it may be left out)."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from functools import cache, lru_cache
from typing import TYPE_CHECKING, NamedTuple

from claw.library import english_words
from claw.planner.exceptions import UnparseableError
from claw.planner.language import lexicon
from claw.planner.language.inflection import verb_forms
from claw.planner.language.parsing import keywords

if TYPE_CHECKING:
    from claw.planner.language.meaning import WordMatch

__all__ = [
    "WordRead",
    "abbreviated",
    "allowance",
    "content_words",
    "heads_a_phrase",
    "joined",
    "nearest_words",
    "read_word",
    "typo_distance",
    "verb_words",
    "vocabulary",
]

_LONGEST_WORD = 20  # letters: longer than any word of the lexicon (13)


@cache
def verb_words() -> frozenset[str]:
    """The one-word verbs of the verb classes and the tower verbs."""
    phrases = [p for table in lexicon.VERB_CLASSES.values() for p in table]
    return frozenset([*(p for p in phrases if " " not in p), *lexicon.GRAMMAR_WORDS["tower_verb"]])


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
    words.update(verb_forms("ing"))
    return frozenset(words)


@cache
def content_words() -> frozenset[str]:
    """Words that name something a scene could have or something to do: colours, types,
    sizes, sides, regions, extremes, ordinals, numbers, verbs and relation words."""
    tables = (
        lexicon.COLOR_WORDS, lexicon.OTHER_COLORS, lexicon.TYPE_WORDS, lexicon.GENERIC_HEADS,
        lexicon.SIZE_WORDS, lexicon.LIGHTNESS_WORDS, lexicon.EXTREME_WORDS, lexicon.SIDE_WORDS,
        lexicon.MIDDLE_WORDS,
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


_PHRASE_ENDS = {"", ",", ".", "!", "?", ";", ":", "and", "then"}


def _position(before: str, after: str) -> str:
    """Where an unknown word stands, for what it may mean: before a head noun an adjective,
    before a region's head a region word, between a phrase and a determiner a preposition,
    else a noun."""
    heads = {*lexicon.TYPE_WORDS, *lexicon.GENERIC_HEADS}
    if after in heads or after in lexicon.COLOR_WORDS or after in lexicon.SIZE_WORDS:
        return "adjective"
    if after in lexicon.REGION_HEADS:
        return "region"
    if after in (*lexicon.DEFINITE, *lexicon.INDEFINITE) and before not in verb_words():
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


def _by_meaning(typed: str, before: str, after: str) -> tuple[WordRead | None, str]:
    """The known word(s) an unknown word means by the embedder (``None`` when none), and, when
    none is sure but one is near, the refusal's note on the nearest ("" when none is near)."""
    from claw.planner.language import meaning

    position = _position(before, after)
    match = meaning.ground_word(typed, position)
    if match is not None and position == "noun":  # "the kitchen": an object, guessed, is no
        return None, f"{match.target} {match.score:.2f}"  # reading: refused with the nearest
    if match is not None:
        return WordRead(_as_word(match, typed, after), "meaning", round(match.score, 3)), ""
    near = meaning.nearest(typed, position, k=2)
    if near and near[0][1] >= meaning.THRESHOLD:  # near one, but not sure which
        return None, ", ".join(f"{target} {score:.2f}" for target, score in near)
    return None, ""


def _skeleton(word: str) -> str:
    """A word's first letter and its consonants after it ("green": "grn")."""
    return word[:1] + re.sub(r"[aeiou]", "", word[1:])


@cache
def _skeletons() -> dict[str, tuple[str, ...]]:
    """The content words by their first and last letters (for :func:`abbreviated`)."""
    ends: dict[str, list[str]] = {}
    for word in content_words():
        if word.isalpha() and len(word) > 2:
            skeleton = _skeleton(word)
            ends.setdefault(skeleton[0] + skeleton[-1], []).append(word)
    return {k: tuple(sorted(v)) for k, v in ends.items()}


def abbreviated(typed: str) -> tuple[str, ...]:
    """The content words that ``typed``, written without vowels ("grn", "blk", "mv", "bx"),
    may stand for: its letters in order among the word's first letter and consonants, with the
    same first and last; those whose consonants it is exactly, if any."""
    if len(typed) < 2 or not typed.isalpha() or re.search(r"[aeiou]", typed[1:]):
        return ()
    found = []
    for word in _skeletons().get(typed[0] + typed[-1], ()):
        letters = iter(_skeleton(word))
        if all(c in letters for c in typed):
            found.append(word)
    exact = tuple(w for w in found if _skeleton(w) == typed)
    return exact or tuple(found)


class WordRead(NamedTuple):
    """How a word the lexicon lacks was read: the known word(s), and by what — ``spelling`` (a
    slip, or two words typed as one), ``sound`` (a dictated homophone), ``consonants`` (typed
    without vowels) or ``meaning`` (the embedder, with its ``score``)."""

    word: str
    how: str
    score: float | None = None


def read_word(
    typed: str, before: str, after: str, scene_words: Collection[str] = ()
) -> WordRead | None:
    """The known word(s) an unknown word ``typed`` is read as, between ``before`` and
    ``after``, and how: the one known word nearest by :func:`typo_distance` (ties broken by
    what the scene has; an English word is no slip), else the embedder's match; None when it
    names nothing and may be left out.

    Raises:
        UnparseableError: it is near a content word, or a meaning, but not sure which.
    """
    english = typed in english_words()
    heard = sounds_like(typed, before, after, scene_words) if english else None
    if heard is not None:
        return WordRead(heard, "sound")
    _, near = (0.0, ()) if english else nearest_words(typed)  # no slip
    how = "spelling"
    if not near and (near := abbreviated(typed)):
        how = "consonants"
    near = near or (() if english else joined(typed))
    if len(near) > 1:
        in_scene = [w for w in near if _scene_has(w, scene_words)]
        near = tuple(in_scene) if len(in_scene) == 1 else near
    if len(near) > 1:  # a verb where a clause starts, else no verb
        starts = before in ("", ",", ".", "!", "?", ";", "and", "then", "please")
        placed = [w for w in near if (w in verb_words()) == starts]
        near = tuple(placed) if len(placed) == 1 else near
    if len(near) == 1:
        return WordRead(near[0], how)
    content = [w for w in near if w in content_words()]
    if content:
        raise UnparseableError(
            f"{typed!r} is not a word claw knows; it could be {' or '.join(content)}: say which"
        )
    meant, nearest = _by_meaning(typed, before, after)
    if meant is None and nearest:
        raise UnparseableError(f"{typed!r} is not a word claw knows; nearest: {nearest}")
    return meant


def sounds_like(
    typed: str, before: str, after: str, scene_words: Collection[str] = ()
) -> str | None:
    """The colour (before a noun), side (in "the ... of") or negation (after an auxiliary) an
    English word the lexicon lacks sounds like, when just one does: a dictated homophone ("the
    read block": red, "to the write of": right, "should knot be": not). A colour must be one
    the scene has."""
    if after == "of" and before in lexicon.DEFINITE:
        candidates = list(lexicon.SIDE_WORDS)
    elif before in lexicon.AUXILIARIES:  # "should knot be": not
        candidates = ["not"]
    elif _position(before, after) == "adjective":
        candidates = [w for w in lexicon.COLOR_WORDS if _scene_has(w, scene_words)]
    else:
        return None
    key = sound_key(typed)
    found = [w for w in candidates if sound_key(w) == key]
    return found[0] if len(found) == 1 else None


_SILENT = ((r"^wr", "r"), (r"^kn", "n"), (r"^wh", "w"), (r"ph", "f"), (r"gh(?=t|$)", ""))
_SOUND_CLASSES = {c: str(d) for d, cs in enumerate(("bfpv", "cgjkqsxz", "dt", "l", "mn", "r"), 1)
                  for c in cs}  # fmt: skip


@cache
def sound_key(word: str) -> str:
    """American Soundex of ``word`` after its silent letters go ("write", "right": r300)."""
    for pattern, sound in _SILENT:
        word = re.sub(pattern, sound, word.lower())
    digits, last = [], _SOUND_CLASSES.get(word[:1])
    for letter in word[1:]:
        digit = _SOUND_CLASSES.get(letter)
        if digit is not None and digit != last:
            digits.append(digit)
        if letter not in "hw":
            last = digit
    return (word[:1] + "".join(digits) + "000")[:4]


def joined(typed: str) -> tuple[str, ...]:
    """The two known words a word typed without the space between them is ("inthe": "in the",
    "redblock": "red block"), when only one such pair is."""
    known = vocabulary()
    pairs = [f"{typed[:k]} {typed[k:]}" for k in range(2, len(typed) - 1)
             if typed[:k] in known and typed[k:] in known]  # fmt: skip
    return tuple(pairs) if len(pairs) == 1 else ()


def heads_a_phrase(before: str, after: str, earlier: str = "") -> bool:
    """Whether a word between ``before`` and ``after`` is the noun of a noun phrase: after a
    determiner, or a colour or size after one (``earlier``: "the red ring" is not the red
    block), and not before a word the phrase could go on with."""
    determiners = {*lexicon.DEFINITE, *lexicon.INDEFINITE} - {"that", "this"}
    described = before in (*lexicon.COLOR_WORDS, *lexicon.SIZE_WORDS) and earlier in determiners
    return (before in determiners or described) and (
        after in _PHRASE_ENDS or after in lexicon.RELATION_LEADS
    )
