"""What a typed sentence says around its request: greetings, preambles, closing asides, a wish,
headings, the spot a place is said in.

Each function gives the token indices a reading may leave out (:mod:`claw.planner.robust`
tries them in turn); none of them leaves out a word that could name something in the scene.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cache

from claw.planner import lexicon
from claw.planner.indirect import NEGATIONS, STATE_VERBS, phrase_start
from claw.planner.inflection import verb_forms
from claw.planner.parsing import NUMBER
from claw.planner.spelling import content_words, verb_words

__all__ = ["asides", "chatter", "codas", "has_content", "headings", "names", "preambles",
           "sentences", "spots", "statement_verbs", "tails", "wish"]  # fmt: skip

_SENTENCE_END = {".", "!", "?", ";"}
_NEGATIONS = {*NEGATIONS, "except", "but"}
_SUBORDINATORS = {"when", "whenever", "if", "once", "while"}
_SPEAKERS = {"i", "we"}
_SPOT_NOUNS = {"area", "space", "spot", "place", "region", "gap", "room", "position", "location"}
_SPOT_LEADS = {"in", "into", "at", "to", "on", "onto", "within"}
_SPOT_PLACES = {*lexicon.RELATION_LEADS, "between"}
"""What starts the place a spot is said in ("the area behind X", "the space between ...")."""
_NOUNS = {*lexicon.TYPE_WORDS, *lexicon.GENERIC_HEADS}
_OPENERS = {*lexicon.DEFINITE, *lexicon.INDEFINITE, *lexicon.UNIVERSAL, *lexicon.COLOR_WORDS}
"""Words a noun phrase starts with."""
_OBJECT_WORDS = {*lexicon.TYPE_WORDS, *lexicon.COLOR_WORDS, *lexicon.GENERIC_HEADS}
_WISHING = {"would", "should", "could", "want", "wanted", "need", "needed", "like", "wish",
            "great", "nice", "love", "prefer", "if", "let's", "lets", "please"}  # fmt: skip
_COPULAS = {*STATE_VERBS, "to"}
"""What a wished state's verbs are ("was", "sitting", "placed"): left out, it reads as a place."""


def sentences(words: list[str]) -> list[list[int]]:
    """The token indices of each sentence (its end mark included)."""
    found: list[list[int]] = [[]]
    for i, word in enumerate(words):
        found[-1].append(i)
        if word in _SENTENCE_END:
            found.append([])
    return [s for s in found if s]


def has_content(words: list[str], indices: Collection[int], verbs: bool = True) -> bool:
    """Whether any of the words at ``indices`` is a content word (a verb only with ``verbs``)."""
    named = _naming(verbs)
    return any(words[i] in named or NUMBER.fullmatch(words[i]) for i in indices)


@cache
def _naming(verbs: bool) -> frozenset[str]:
    """The content words and negations, with or without the verbs."""
    named = content_words() | _NEGATIONS
    return named if verbs else named - verb_words()


def chatter(words: list[str]) -> set[int]:
    """Sentences with no content word ("hello!", "thanks a lot."), by token index."""
    return {i for s in sentences(words) if not has_content(words, s) for i in s}


def preambles(words: list[str]) -> set[int]:
    """What comes before a sentence's first verb when it names nothing ("hey, could it be
    possible to put ..."; "would you mind putting ..."; a leading "if you don't mind," may say
    "not"), by token index."""
    known = verb_words() | set(verb_forms("ing"))
    dropped: set[int] = set()
    for sentence in sentences(words):
        first = next((k for k, i in enumerate(sentence) if words[i] in known), None)
        if first and not has_content(words, sentence[:first]):
            dropped.update(sentence[:first])
        elif first and words[sentence[0]] in _SUBORDINATORS:  # "if it isn't too much trouble,"
            comma = next((k for k in range(first) if words[sentence[k]] == ","), None)
            if comma and not any(words[i] in content_words() for i in sentence[:comma]):
                dropped.update(sentence[: comma + 1])
    return dropped


def codas(words: list[str]) -> set[int]:
    """A sentence's closing "when you get a chance", "if you can": from a subordinating word
    to the sentence's end, when it names nothing, by token index."""
    dropped: set[int] = set()
    for sentence in sentences(words):
        start = next((k for k, i in enumerate(sentence) if words[i] in _SUBORDINATORS), None)
        if start:
            tail = [i for i in sentence[start:] if words[i] not in _SENTENCE_END]
            if not has_content(words, tail, verbs=False):
                dropped.update(tail)
    return dropped


def headings(words: list[str]) -> set[int]:
    """A sentence's heading before a colon ("Set the table:", "Step 1:", "Goal:"), when it asks
    for something or names no object (a heading that names one, "Red block: put it ...", is
    what the request is about), by token index."""
    known = verb_words()
    dropped: set[int] = set()
    for sentence in sentences(words):
        colon = next((k for k, i in enumerate(sentence) if words[i] == ":"), None)
        if not colon or colon == len(sentence) - 1:
            continue
        heading = [words[i] for i in sentence[:colon]]
        if set(heading) & _NEGATIONS:
            continue
        if set(heading) & known or not any(w in _OBJECT_WORDS for w in heading):
            dropped.update(sentence[: colon + 1])
    return dropped


def spots(words: list[str]) -> set[int]:
    """The spot a place is said in ("in the empty area between the two boxes", "to a free spot
    behind the green block"): from the word before it through its noun, when a relation
    follows (what is left, "between the two boxes", is the place), by token index."""
    dropped: set[int] = set()
    for i in range(1, len(words) - 1):
        if words[i] not in _SPOT_NOUNS or words[i + 1] not in _SPOT_PLACES:
            continue
        start = next((k for k in reversed(range(i)) if words[k] in _SPOT_LEADS), None)
        between = words[start + 1 : i] if start is not None else []
        if start is not None and not any(w in _OBJECT_WORDS for w in between):
            dropped.update(range(start, i + 1))
    return dropped


def tails(words: list[str]) -> set[int]:
    """A sentence's closing words after its last comma when they name nothing ("..., thanks a
    lot", "..., ok?"), the comma too, by token index."""
    dropped: set[int] = set()
    for sentence in sentences(words):
        said = [i for i in sentence if words[i] not in _SENTENCE_END]
        comma = next((k for k in reversed(range(len(said))) if words[said[k]] == ","), None)
        if comma and comma < len(said) - 1 and not has_content(words, said[comma + 1 :]):
            dropped.update(said[comma:])
    return dropped


def statement_verbs(words: list[str]) -> set[int]:
    """Where a statement's verb stands ("the red block covers the green block"): a word right
    after a noun and right before a determiner or a colour, with no verb before it in its
    sentence, by token index. Such a word cannot be left out as saying nothing."""
    known = verb_words()
    found: set[int] = set()
    for sentence in sentences(words):
        said = [words[i] for i in sentence]
        for k, word in enumerate(said[:-1]):
            if word in known:
                break
            if k and said[k - 1] in _NOUNS and (said[k + 1] in _OPENERS):
                found.add(sentence[k])
    return found


def asides(words: list[str], unknown: Collection[int]) -> set[int]:
    """A sentence's closing "I guess", "we think": "I" or "we" and only words the lexicon
    lacks after it to the sentence's end, by token index."""
    dropped: set[int] = set()
    for sentence in sentences(words):
        said = [i for i in sentence if words[i] not in _SENTENCE_END]
        subject = next((k for k in reversed(range(len(said))) if words[said[k]] in _SPEAKERS),
                       None)  # fmt: skip
        rest = said[subject + 1 :] if subject else []  # a first "I" starts the request
        if rest and all(i in unknown for i in rest):
            dropped.update(said[subject:])
    return dropped


def wish(words: list[str]) -> set[int]:
    """In a text with no verb that wishes ("it would be great if the red block was in the box"):
    the words before the first content word and the copulas, by token index (what is left,
    "the red block in the box", reads as a place)."""
    if not set(words) & _WISHING:
        return set()
    first = next((i for i, w in enumerate(words) if has_content(words, [i])), len(words))
    return set(range(phrase_start(words, first))) | {
        i for i, w in enumerate(words) if w in _COPULAS
    }


def names(word: str) -> bool:
    """Whether ``word`` names something (a content word that is not a verb)."""
    return (word in _naming(False) and word not in _NEGATIONS) or NUMBER.fullmatch(word) is not None
