"""The last reading of an instruction nothing else reads: its placements alone.

An instruction is read as the placements it names in order — a noun phrase, a relation phrase,
then the noun phrase or table place it relates to ("mise en place: red block into the blue box,
green block into the red box" is ``put red block into the blue box, then put green block into
the red box``) — when they are all it names: every other word names nothing. Not when it says
"not", "except", a condition ("if", "unless", "when", ...) or an order ("after", "before",
"first"), nor "is" or "are" (a statement of where things are); not
when a word the lexicon lacks stands where a verb would (before a noun phrase: "cook the yellow
block and put it in the bin") or a noun would ("the red ring"), nor when a kept word is one
the lexicon lacks ("the ball"); not when a verb other than a plain placement's is said ("push",
"turn", "swap"), nor a content word outside the placements ("left" in "I left my block on the
plate"). A relation phrase ends the noun phrase before it: "X next to Y" is a placement, never
"the X that is next to Y".

The placements are written as the grammar reads them ("put X REL Y, then put Z REL W") and read
by it, so that their meaning is the grammar's.

API::

    placements(words, unknown)  # "put the red block into the blue box" or None
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cache

from claw.planner.language import lexicon
from claw.planner.language.audit import CONDITIONS
from claw.planner.language.places import reads_as_objects
from claw.planner.language.reference import parse_region
from claw.planner.language.spelling import content_words, vocabulary

__all__ = ["placements"]

MAX_PHRASE = 10
"""The most words a noun phrase is looked for in."""
_BLOCKERS = {*lexicon.NEGATIONS, *CONDITIONS, "except", "but", "instead", "is", "are", "was",
             "were", "after", "before", "first"}  # fmt: skip
"""Words that stop it: a negation, an exception, a condition, a statement of what is, an order
said ("after you move ...": left out, the placements would run in another order)."""
_OPENERS = {*lexicon.DEFINITE, *lexicon.INDEFINITE, *lexicon.UNIVERSAL, *lexicon.COLOR_WORDS,
            "me", "it", "them"}  # fmt: skip
"""Words after which a word the lexicon lacks would be a verb ("cook the block", "pass me ...")."""
_NOUN_LEADS = {*lexicon.DEFINITE, *lexicon.INDEFINITE, *lexicon.UNIVERSAL, *lexicon.COLOR_WORDS,
               *lexicon.SIZE_WORDS, "of"}  # fmt: skip
"""Words after which a word the lexicon lacks would be a noun ("the red ring", "of the stand")."""
_PRONOUNS = {"it", "them"}


_OWN_MEANING = {*lexicon.GRAMMAR_WORDS["_swap_verb"], "gather", "group", "cluster", "arrange",
                "rearrange"}  # fmt: skip
"""Placement verbs that mean more than a placement ("swap X and Y between ...")."""


@cache
def _placing_words() -> frozenset[str]:
    """The words of the verbs a placement may be asked with (put, place, move, stack, pick
    up, take, ...; not those of :data:`_OWN_MEANING`)."""
    verbs = (*lexicon.PLACE_VERBS, *lexicon.STACK_VERBS, *lexicon.PICK_VERBS)
    return frozenset(w for phrase in verbs for w in phrase.split()) - _OWN_MEANING


_RELATIONS = (*lexicon.RELATION_WORDS, ("between",))
"""The relation phrases as words, longest first ("between" is one of a kind)."""


def _relation_sizes(words: list[str]) -> list[int]:
    """How many words the relation phrase at each token has (0: none starts there)."""
    return [
        next((len(p) for p in _RELATIONS if tuple(words[i : i + len(p)]) == p), 0)
        for i in range(len(words))
    ]


def _phrase_at(words: list[str], relations: list[int], i: int, target: bool) -> int:
    """How many words the longest noun phrase (or, as a ``target``, table place) at ``i`` has,
    ending before any relation phrase (``relations``: :func:`_relation_sizes`; 0: none starts
    there)."""
    stop = next((k for k in range(i + 1, len(words)) if relations[k]), len(words))
    for j in range(min(stop, i + MAX_PHRASE), i, -1):
        text = " ".join(words[i:j])
        if any(w in (",", ".", ";", "then") for w in words[i:j]):
            continue
        if reads_as_objects(text) or (target and parse_region(text) is not None):
            return j - i
    return 0


def _spans(words: list[str]) -> list[tuple[str, int, int]] | None:
    """The noun phrases and relation phrases of ``words`` in order, as (kind, start, end); None
    when a content word is outside them (but a placement's verb)."""
    spans: list[tuple[str, int, int]] = []
    relations = _relation_sizes(words)
    i = 0
    while i < len(words):
        size = relations[i]
        if size:
            spans.append(("rel", i, i + size))
            i += size
            continue
        size = _phrase_at(words, relations, i, target=bool(spans) and spans[-1][0] == "rel")
        if size:
            spans.append(("np", i, i + size))
            i += size
            continue
        word = words[i]
        if word in content_words() and word not in _placing_words():
            return None
        i += 1
    return spans


def placements(words: list[str], unknown: Collection[int]) -> str | None:
    """The placements ``words`` names, written as the grammar reads them, when they are all it
    names (this module's rules); None otherwise. ``unknown``: the indices of the words the
    lexicon lacks that were left out."""
    if set(words) & _BLOCKERS:
        return None
    for i in unknown:  # a verb it lacks ("cook the yellow block"), a noun ("the red ring")
        if i + 1 < len(words) and words[i + 1] in _OPENERS:
            return None
        if i and words[i - 1] in _NOUN_LEADS:
            return None
    kept = [w for i, w in enumerate(words) if i not in unknown]
    known = vocabulary()
    if any(w.isalpha() and w not in known for w in kept):  # "the ball": a noun it lacks
        return None
    spans = _spans(kept)
    if not spans:
        return None
    said: list[str] = []
    k = 0
    while k < len(spans):
        kinds = [kind for kind, _, _ in spans[k : k + 4]]
        text = [" ".join(kept[a:b]) for _, a, b in spans[k : k + 4]]
        if kinds[:4] == ["np", "np", "rel", "np"] and text[1] in _PRONOUNS:
            said.append(f"put {text[0]} {text[2]} {text[3]}")  # "the red block, put it in …"
            k += 4
        elif kinds[:3] == ["np", "rel", "np"]:
            said.append(f"put {text[0]} {text[1]} {text[2]}")
            k += 3
        else:
            return None
    return " , then ".join(said)
