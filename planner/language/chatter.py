"""What a typed sentence says around its request: greetings, preambles, closing asides, a wish,
headings, the spot a place is said in.

Each function gives the token indices a reading may leave out (:mod:`claw.planner.language.robust`
tries them in turn); none of them leaves out a word that could name something in the scene.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cache

from claw.planner.exceptions import UnparseableError
from claw.planner.language import lexicon
from claw.planner.language.corrections import MARKERS
from claw.planner.language.forms import Reference
from claw.planner.language.indirect import COPULAS, NEGATIONS, STATE_VERBS, phrase_start
from claw.planner.language.inflection import verb_forms
from claw.planner.language.parsing import NUMBER
from claw.planner.language.reference import parse_references
from claw.planner.language.spelling import content_words, verb_words

__all__ = ["SUBORDINATORS", "WISHING", "asides", "chatter", "codas", "dismissals", "has_content",
           "headings",
           "names", "preambles", "purpose", "purposes", "sentences", "spots", "statement_verbs",
           "tails", "wish"]  # fmt: skip

_SENTENCE_END = {".", "!", "?", ";"}
_NEGATIONS = {*NEGATIONS, "except", "but"}
SUBORDINATORS = {"when", "whenever", "if", "once", "while"}
"""Words that open a condition ("if you can", "whenever I clap")."""
_SPEAKERS = {"i", "we"}
_SPOT_NOUNS = {"area", "space", "spot", "place", "region", "gap", "room", "position", "location"}
_SPOT_LEADS = {"in", "into", "at", "to", "on", "onto", "within"}
_NOUNS = {*lexicon.TYPE_WORDS, *lexicon.GENERIC_HEADS}
_OPENERS = {*lexicon.DEFINITE, *lexicon.INDEFINITE, *lexicon.UNIVERSAL, *lexicon.COLOR_WORDS}
"""Words a noun phrase starts with."""
_OBJECT_WORDS = {*lexicon.TYPE_WORDS, *lexicon.COLOR_WORDS, *lexicon.GENERIC_HEADS}
WISHING = {"would", "should", "could", "want", "wanted", "need", "needed", "like", "wish",
           "great", "nice", "love", "prefer", "if", "let's", "lets", "please"}  # fmt: skip
"""Words that make a sentence wish for a state ("it would be great if ...", "I'd love it if")."""
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
        first = next((k for k, i in enumerate(sentence) if _verb_at(words, i, known)), None)
        condition = _addressee_condition(words, sentence, known) if first == 2 else []
        if condition:
            dropped.update(condition)
        elif first and not has_content(words, sentence[:first]):
            dropped.update(sentence[:first])
        elif first and words[sentence[0]] in SUBORDINATORS:  # "if it isn't too much …,"
            comma = next((k for k in range(first) if words[sentence[k]] == ","), None)
            if comma and not any(words[i] in content_words() for i in sentence[:comma]):
                dropped.update(sentence[: comma + 1])
    return dropped


_BE = {*COPULAS, "be", "been", "being"}


def _verb_at(words: list[str], i: int, verbs: Collection[str]) -> bool:
    """Whether the word at ``i`` is a verb of ``verbs`` said as one: not right after a copula
    ("your arm is empty": a state, not "empty it")."""
    return words[i] in verbs and not (i and words[i - 1] in _BE)


def _addressee_condition(
    words: list[str], sentence: list[int], verbs: Collection[str]
) -> list[int]:
    """A sentence's leading condition on the addressee ("when you get a chance put ...",
    "once you have a moment, put ..."): through its comma, else up to the next verb; none
    when it names something."""
    if words[sentence[0]] not in SUBORDINATORS or words[sentence[1]] != "you":
        return []
    end = next((k for k in range(3, len(sentence)) if words[sentence[k]] in {",", *verbs}), None)
    if end is None or any(names(words[i]) for i in sentence[:end]):
        return []
    return sentence[: end + 1] if words[sentence[end]] == "," else sentence[:end]


_PURPOSE_ASKERS = {"what", "whats", "which", "how"}
_PAST_AUXILIARIES = {"did", "was", "were", "had"}


def purpose(words: list[str]) -> int | None:
    """Where the request starts in a question that asks how to do it ("what action should the
    robot take to put …", "what's the best way to stack …", "how do I get you to move …"): the
    verb after its "to", when what comes before names nothing and is not in the past; None
    when it is no such question."""
    if not words or words[0] not in _PURPOSE_ASKERS:
        return None
    known = verb_words()
    for k in range(1, len(words) - 1):
        if words[k] in _SENTENCE_END:
            return None
        if words[k] == "to" and words[k + 1] in known:
            before = words[:k]
            asks = not set(before) & _PAST_AUXILIARIES and not any(map(names, before))
            return k + 1 if asks else None
    return None


def purposes(words: list[str]) -> set[int]:
    """The question before a request it asks how to do (:func:`purpose`), by token index."""
    start = purpose(words)
    return set(range(start)) if start is not None else set()


_DISMISSING = (("forget", "about"), ("forget",), ("never", "mind"), ("never mind",), ("nevermind",),
               ("ignore",), ("disregard",), ("skip",))  # fmt: skip
_CLAUSE_ENDS = {",", ".", ";", "!", "and", "but"}


def dismissals(words: list[str]) -> set[int]:
    """An opening dismissal before a request ("forget the boxes, just put ...", "never mind
    the red one. put ..."): the dismissing words and what they dismiss, through the mark that
    ends them, when a verb of the reader's follows; by token index. Alone ("forget about
    putting the green block on the red block") it dismisses the only request: nothing."""
    lead = next((len(p) for p in _DISMISSING if tuple(words[: len(p)]) == p), 0)
    end = next((k for k in range(lead, len(words)) if words[k] in _CLAUSE_ENDS), None)
    if not lead or end is None or not set(words[end + 1 :]) & verb_words():
        return set()
    return set(range(end + 1))


def codas(words: list[str]) -> set[int]:
    """A sentence's closing "when you get a chance", "if you can": from a subordinating word
    to the sentence's end, when it names nothing, by token index."""
    dropped: set[int] = set()
    for sentence in sentences(words):
        start = next((k for k, i in enumerate(sentence) if words[i] in SUBORDINATORS), None)
        if start:
            tail = [i for i in sentence[start:] if words[i] not in _SENTENCE_END]
            if not has_content(words, tail, verbs=False):
                dropped.update(tail)
    return dropped


_BACK_REFERENCES = {"it", "them", "one", "ones", "this", "that", "these", "those"}


def headings(words: list[str]) -> set[int]:
    """A sentence's heading before a colon ("Set the table:", "Step 1:", "Goal:"), when it asks
    for something, names no object, or comes before a request that names its own objects ("mug
    cleanup: put the blue mug away in the bin"; a heading the request refers back to, "Red
    block: put it ...", is what the request is about), by token index."""
    known = verb_words()
    dropped: set[int] = set()
    for sentence in sentences(words):
        colon = next((k for k, i in enumerate(sentence) if words[i] == ":"), None)
        if not colon or colon == len(sentence) - 1:
            continue
        heading = [words[i] for i in sentence[:colon]]
        if set(heading) & _NEGATIONS:
            continue
        after = {words[i] for i in sentence[colon + 1 :]}
        whole = after & known and after & _OBJECT_WORDS and not after & _BACK_REFERENCES
        if set(heading) & known or not any(w in _OBJECT_WORDS for w in heading) or whole:
            dropped.update(sentence[: colon + 1])  # "mug cleanup: put the blue mug away …"
    return dropped


def spots(words: list[str]) -> set[int]:
    """The spot a place is said in ("in the empty area between the two boxes", "to a free spot
    behind the green block"): from the word before it through its noun, when a relation
    follows (what is left, "between the two boxes", is the place), by token index."""
    dropped: set[int] = set()
    for i in range(1, len(words) - 1):
        if words[i] not in _SPOT_NOUNS or words[i + 1] not in lexicon.PLACE_LEADS:
            continue
        start = next((k for k in reversed(range(i)) if words[k] in _SPOT_LEADS), None)
        between = words[start + 1 : i] if start is not None else []
        if start is not None and not any(w in _OBJECT_WORDS for w in between):
            dropped.update(range(start, i + 1))
    return dropped


_REMARK_STARTS = {",", "please", "thanks"}
"""Where a closing remark may start: a comma, a closing "please" or "thanks" ("stack green on
yellow pls my advisor wants a pic")."""
_RUN_ON = (("it", "is"), ("that", "is"), ("this", "is"), ("it", "was"), ("that", "was"))
"""A remark run on after the request ("take it out of the box its in the way")."""


def tails(words: list[str]) -> set[int]:
    """A sentence's closing words after its last comma, a closing "please" or a run-on "it
    is" when they name nothing ("..., thanks a lot", "..., ok?", "... pls my advisor wants a
    pic", "... its blocking my view"), the mark too, by token index."""
    dropped: set[int] = set()
    for sentence in sentences(words):
        said = [i for i in sentence if words[i] not in _SENTENCE_END]
        marks = [k for k in range(1, len(said) - 1) if words[said[k]] in _REMARK_STARTS]
        marks += [
            k for k in range(2, len(said) - 2) if (words[said[k]], words[said[k + 1]]) in _RUN_ON
        ]
        for mark in sorted(marks, reverse=True):
            if not has_content(words, said[mark + 1 :]):
                dropped.update(said[mark:])
                break
    return dropped


_TABLE_PLACE = ("on", "onto", "upon")
_MODIFIER_MARKS = {*STATE_VERBS, "that", "which"}
"""What makes a place part of a noun phrase ("the block that is next to the box")."""


def table_adjuncts(words: list[str]) -> set[int]:
    """A clause's closing "on the table" after a place said before it, by token index ("place
    the green block left of the blue box on the table", "... between the red box and the blue
    box on the table"): where such a placement happens, not a second place. Read as the place,
    it would make the place before it describe the object. A place marked as the object's
    ("the block that is next to the box") or one before an "and" keeps it."""
    found: set[int] = set()
    for end in range(3, len(words) + 1):
        if end < len(words) and words[end] not in (*_SENTENCE_END, ",", "then"):
            continue
        start = end - 3 if words[end - 2] in lexicon.DEFINITE else end - 2
        if words[start] not in _TABLE_PLACE or words[end - 1] != "table":
            continue
        if _place_before(words, start):
            found.update(range(start, end))
    return found


def _place_before(words: list[str], stop: int) -> bool:
    """Whether a place phrase starts in the clause before ``stop`` (after its verb), not marked
    as a noun phrase's and with no "and" after it (but the one of "between ... and ...")."""
    start = stop
    while start > 1 and words[start - 1] not in (*_SENTENCE_END, ",", "then", *verb_words()):
        start -= 1
    first = next((i for i in range(start, stop) if _place_starts(words, i)), None)
    if first is None or words[first - 1] in _MODIFIER_MARKS:
        return False
    return words[first] == "between" or "and" not in words[first:stop]


def _place_starts(words: list[str], i: int) -> bool:
    return words[i] == "between" or any(
        tuple(words[i : i + len(phrase)]) == phrase for phrase in lexicon.RELATION_WORDS
    )


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
    lacks after it to the sentence's end; its opening "I think (that)", "I guess maybe" before
    what it is about; by token index."""
    dropped: set[int] = set()
    for sentence in sentences(words):
        opening = _opening_aside(words, sentence, unknown)
        dropped.update(opening)
        said = [i for i in sentence if words[i] not in _SENTENCE_END]
        subject = next((k for k in reversed(range(len(said))) if words[said[k]] in _SPEAKERS),
                       None)  # fmt: skip
        rest = said[subject + 1 :] if subject else []  # a first "I" starts the request
        if rest and all(i in unknown for i in rest):
            dropped.update(said[subject:])
    return dropped


def _opening_aside(words: list[str], sentence: list[int], unknown: Collection[int]) -> list[int]:
    """ "I think", "we guess that", "I believe maybe" at a sentence's start (after hedges): the
    speaker and the words the lexicon lacks, hedges and "that" after it, when a noun phrase
    follows; else none."""
    start = next((k for k, i in enumerate(sentence) if words[i] not in lexicon.HEDGES), None)
    if start is None or words[sentence[start]] not in _SPEAKERS:
        return []
    said = tuple(words[i] for i in sentence[start : start + 2])
    if said in MARKERS:  # "I mean the red block": a correction
        return []
    end = start + 1
    while end < len(sentence) and (
        sentence[end] in unknown or words[sentence[end]] in (*lexicon.HEDGES, "that")
    ):
        end += 1
    if end == start + 1 or end == len(sentence) or words[sentence[end]] not in _OPENERS:
        return []
    return sentence[:end]


def but_preambles(words: list[str]) -> set[int]:
    """What a sentence says before a "but" that the request follows, when it names nothing ("not
    sure if this works but can you stack ...": its "not" is not the request's), by token
    index. A "but" that names an exception ("all but the red one") follows a content word."""
    dropped: set[int] = set()
    for sentence in sentences(words):
        at = next((k for k, i in enumerate(sentence) if words[i] == "but"), None)
        if not at or at + 1 == len(sentence):
            continue
        head = sentence[:at]
        if not any(words[i] in content_words() for i in head):
            dropped.update(sentence[: at + 1])
    return dropped


_NARRATORS = (("the", "robotic", "arm"), ("the", "robot", "arm"), ("the", "robot"), ("robot",),
              ("the", "arm"), ("the", "claw"), ("you",))  # fmt: skip
"""Who a sentence that says what the robot does starts with."""


def narrated(words: list[str]) -> tuple[set[int], dict[int, str]]:
    """A sentence that says what the robot does ("The robot arm places the green block inside
    the box", "you take the block out"): its subject, by token index, and its verbs in the third
    person, by token index, to their plain form."""
    third = verb_forms("third")
    subjects: set[int] = set()
    plain: dict[int, str] = {}
    for sentence in sentences(words):
        said = tuple(words[i] for i in sentence)
        size = next((len(n) for n in _NARRATORS if said[: len(n)] == n), 0)
        if not size or size == len(said) or (said[size] not in third and said[0] != "you"):
            continue
        subjects.update(sentence[:size])
        plain.update({i: third[words[i]] for i in sentence[size:] if words[i] in third})
    return subjects, plain


_SEEING = (("there", "is"), ("there", "are"), ("here", "is"), ("here", "are"), ("i", "see"),
           ("i", "can", "see"), ("you", "see"), ("you", "can", "see"), ("i", "have"),
           ("we", "have"), ("you", "have"), ("i", "notice"))  # fmt: skip
"""What a sentence that says what is there starts with ("there's a yellow block ...")."""


def described(words: list[str]) -> list[Reference] | None:
    """What a sentence that only says what is there names first ("there's a yellow block
    sitting by itself", "I see a red box, a blue box and four blocks", "the red block is in the
    gray box right now"), for a later "it"; None when it is no such sentence (a verb, a
    negation, no noun phrase first)."""
    if set(words) & (verb_words() | NEGATIONS):
        return None
    words = words[next((i for i, w in enumerate(words) if w not in lexicon.HEDGES), 0) :]
    lead = next((len(s) for s in _SEEING if tuple(words[: len(s)]) == s), None)
    copula = next((i for i, w in enumerate(words) if w in COPULAS), None)
    said = words[lead:] if lead is not None else words[:copula] if copula else []
    for end in range(len(said), 0, -1):
        try:
            return parse_references(" ".join(said[:end]))
        except UnparseableError:
            continue
    return None


def wish(words: list[str]) -> set[int]:
    """In a text with no verb that wishes ("it would be great if the red block was in the box"):
    the words before the first content word and the copulas, by token index (what is left,
    "the red block in the box", reads as a place)."""
    if not set(words) & WISHING:
        return set()
    first = next((i for i, w in enumerate(words) if has_content(words, [i])), len(words))
    return set(range(phrase_start(words, first))) | {
        i for i, w in enumerate(words) if w in _COPULAS
    }


def names(word: str) -> bool:
    """Whether ``word`` names something (a content word that is not a verb)."""
    return (word in _naming(False) and word not in _NEGATIONS) or NUMBER.fullmatch(word) is not None
