"""Sure or silent: what a clause's reading leaves out of the clause, and whether that carries
content.

The grammar reads a clause into a :class:`~claw.planner.language.forms.Request`: its noun phrases
(:class:`~claw.planner.language.forms.Reference`, each with the words it was read from), the verb,
and the place, push or tower it asks for. :func:`unread_part` takes the noun phrases' words out of
the clause and looks at what is left for content that no field of the request holds: an object
phrase, a place phrase where the request has no place ("stack them on top of each other in the blue
box"), a negation or a condition. Such a reading is refused (the grammar raises ``unparseable``
naming the part), so that a reader that keeps only part of a clause is never run.

:func:`left_out_content` does the same for what a whole reading left out (the words a step
dropped that no step read as a frame): a negation, a condition or a time, a hypothetical or a
prohibition, a withdrawal, a clause of its own after "then", reported speech, the arms or a
robot, an object's colour or type, a statement's verb — unless all it left out is politeness
("if you can", "when you get a chance", "if it's not too much trouble").

API::

    unread_part(request)   # None, or "the place 'in the blue box'"
    left_out_content(["if", "it", "rains", "put", "it"], {0, 1, 2})   # "the condition ... 'if'"
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from claw.planner.language import lexicon
from claw.planner.language.asking import subject_verbs
from claw.planner.language.chatter import SUBORDINATORS
from claw.planner.language.forms import Reference, Request
from claw.planner.language.parsing import tokens
from claw.planner.language.spelling import verb_words, vocabulary

__all__ = [
    "CONDITIONS",
    "PUNCTUATION",
    "SPEAKER",
    "left_out_content",
    "reported_speech",
    "says_nothing",
    "says_which_arms",
    "unread_part",
]

CONDITIONS = frozenset({*SUBORDINATORS, "unless", "until", "till"})
"""Words that make what follows them a condition on the request."""
_WHEN = frozenset({*CONDITIONS, "after", "before", "soon", "yesterday", "earlier", "ago",
                   "previously", "beforehand", "tomorrow", "later", "tonight", "provided",
                   "providing", "assuming", "supposing", "whilst", "lest"})  # fmt: skip
"""Words that say when: a condition, an order, a time ("as soon as", "yesterday")."""
_SAYING = frozenset({"said", "says", "told", "tells", "asked", "asks", "mentioned", "claimed",
                     "claims", "wrote", "suggested", "promised", "reported"})  # fmt: skip
"""Verbs of reported speech: a request said to have been said is not one made."""
_WITHDRAWING = frozenset({"forget", "cancel", "scratch", "nevermind", "nvm", "disregard", "ignore",
                          "jk", "kidding", "joking", "wrong", "mistake"})  # fmt: skip
_TIMES = frozenset({"hour", "hours", "hourly", "day", "days", "daily", "week", "weekly",
                    "weekend", "morning", "afternoon", "evening", "night", "tonight", "noon",
                    "midnight", "oclock", "o'clock", "pm", "monday", "tuesday", "wednesday",
                    "thursday", "friday", "saturday", "sunday"})  # fmt: skip
"""Words that name a time ("every hour", "at noon"): a time the request is for, not now."""
_INSTANTS = frozenset({"moment", "minute", "second", "instant"})
"""Nouns that say when after "the" ("the moment the doorbell rings")."""
_NOT_SO = frozenset({"imagine", "suppose", "pretend", "hypothetically", "theoretically",
                     "forbidden", "prohibited", "banned", "disallowed"})  # fmt: skip
"""Words that say a request is not meant now: a hypothetical or a prohibition."""
_NEXT = frozenset({"then", "afterwards", "afterward"})
"""Words that start a clause of its own after another ("…, then feed the fish")."""
_OWN_STEP_FIRST = frozenset({"after", "once", "when"})
_SUBJECTS = frozenset({"you", "i", "we", "they", "he", "she"})
SPEAKER = frozenset({"i", "we", "im"})
_AGENTS = frozenset({*lexicon.ARM_NOUNS, "robot", "robots"})
_ORDINALS = frozenset({"second", "third", "fourth", "2nd", "3rd", "4th", "another", "other"})
"""Subjects of a clause about the speaker ("then i'm off"), which asks the robot nothing."""
_POLITE = frozenset({
    "you", "your", "can", "could", "would", "will", "it", "is", "are", "too", "much", "trouble",
    "hard", "possible", "mind", "do", "does", "get", "have", "has", "a", "an", "the", "chance",
    "moment", "minute", "sec", "second", "time", "free", "ready", "able", "ok", "okay",
    "alright", "fine", "with", "for", "me", "us", "that", "this", "be", "like", "kindly",
    "please", "thanks", "thank", "sure", "i", "we", "want", "wish", "need", "sorry", "bother",
    "if", "when", "whenever", "once", "got", "any", "bit", "of", "to", "and", "so", "just",
    "should", "thats", "ur", "kind", "problem", "rush", "hurry", "worries",
    ",", ".", "!", "?", ";", ":",
})  # fmt: skip
"""Words of a politeness frame ("if you can", "when you get a chance", "if it's not too much
trouble", "once you have a moment", "if you would be so good")."""
_NO_BOTHER = frozenset({"trouble", "problem", "bother", "rush", "hurry", "worries", "mind"})
"""What a politeness frame may say there is none of ("if it's no trouble", "if you don't
mind")."""
_SAYS_NOTHING = _POLITE | set(lexicon.HEDGES) | set(lexicon.SOFT_WORDS) | {
    "ok", "done", "finished", "good", "kind", "appreciate", "grateful", "please", "dear",
    "there", "hello", "hi", "hey", "cheers", "great", "awesome",
}  # fmt: skip
_OBJECT_WORDS = {*lexicon.TYPE_WORDS, *lexicon.COLOR_WORDS}
"""Words that name an object (a generic head, "one", is as often a pronoun or a reciprocal:
"one on top of another")."""
_SIZES = set(lexicon.SIZE_WORDS)
_OPENERS = {*lexicon.DEFINITE, *lexicon.INDEFINITE, *lexicon.UNIVERSAL, *lexicon.COLOR_WORDS,
            *lexicon.TYPE_WORDS, "it", "them"}  # fmt: skip
"""Words a noun phrase may start with."""


def unread_part(request: Request, said: str | None = None) -> str | None:
    """What of the words ``said`` (the clause ``request`` was read from, without its filler
    and a means' lead-in; by default ``request.text``) no part of the request was read from
    and that carries content (described: "the place 'in the blue box'"), or None when the
    rest is verbs, fillers and words of the place or push the request holds."""
    if request.action == "note":
        return None
    said = request.text if said is None else said
    rest = _without_phrases(list(tokens(said).words), _phrases(request))
    for i, word in enumerate(rest):
        after = rest[i + 1] if i + 1 < len(rest) else ""
        if word in lexicon.NEGATIONS:
            return f"the negation {_span(rest, i)!r}"
        if word in CONDITIONS:
            return f"the condition {_span(rest, i)!r}"
        sized = request.bottom is not None and set(rest[max(i - 2, 0) : i]) & _SIZES
        if word in _OBJECT_WORDS and not sized:  # not "with the largest block on top"
            return f"the object phrase {_span(rest, max(i - 2, 0))!r}"
        placed = word in lexicon.PLACE_LEADS and after in _OPENERS and not _has_place(request)
        if placed and not _says_no_place(rest[i + 1 : i + 3]):
            return f"the place {_span(rest, i)!r}"
    return None


_NO_PLACES = {"table", "other", "another", *lexicon.GRAMMAR_WORDS["_tower_word"]}


def _says_no_place(words: list[str]) -> bool:
    """Whether a place's first words name no place of their own: the table (where everything
    stands anyway), the others of a reciprocal ("stack one on the other"), or the stack being
    made ("in a stack", "into one tower")."""
    return bool(set(words) & _NO_PLACES)


def left_out_content(words: Sequence[str], left_out: Collection[int]) -> str | None:
    """What of ``words`` a reading left out (``left_out``, by token index: the words a step
    dropped that no step read as a frame) carries content, described ("the condition or time
    'if'"); None when nothing does. Each run of words left out side by side, between
    punctuation, is judged on its own: politeness ("if you can", "when you get a chance", "if
    it's not too much trouble") and "after you" before the robot's own first step say nothing;
    a negation, a condition or a time, a hypothetical or a prohibition, a withdrawal, a clause
    after "then", an object's colour or type, the arms or a robot said by which or by number,
    reported speech, or a verb the lexicon lacks after its subject (a statement), do."""
    if not left_out:
        return None
    verbs = subject_verbs(list(words))
    for run in _runs(words, sorted(left_out)):
        said = [words[i] for i in run]
        stated = [i for i in run if i in verbs and words[i] not in vocabulary()]
        if stated:  # "the orange block ended up in the gray box": a statement
            return f"the verb {words[stated[0]]!r} of a statement"
        if says_nothing(said) or _own_step_first(words, run):
            continue
        found = _content_of(said) or _arms_of(words, run) or reported_speech(words, run)
        if found is not None:
            return found
    return None


def _own_step_first(words: Sequence[str], run: list[int]) -> bool:
    """Whether a run is "after you" / "once you" before a verb of the reader's: the robot's
    own first step ("after you pick up the blue block, set it …"), which is read."""
    said = [words[i] for i in run]
    first = said[0] in _OWN_STEP_FIRST and set(said[1:]) <= {"you", "have"}
    return first and _after(words, run) in verb_words()


def _arms_of(words: Sequence[str], run: list[int]) -> str | None:
    """The arms a run says, left out ("the middle arm": "middle" read, "arm" left out; "arm
    number 3"), described, or None."""
    for i in run:
        if says_which_arms(words, i):
            return f"the arms {' '.join(words[i - 1 : i + 1])!r}"
        if words[i] not in _AGENTS:
            continue
        k = i + 2 if words[i + 1 : i + 2] in (["number"], ["no"], ["#"]) else i + 1
        if k < len(words) and words[k].isdigit():
            return f"the arms {' '.join(words[i : k + 1])!r}"
        if i and words[i - 1] in _ORDINALS:  # "second robot: ..."
            return f"the arms {' '.join(words[i - 1 : i + 1])!r}"
    return None


def reported_speech(words: Sequence[str], run: list[int]) -> str | None:
    """Reported speech in a run ("my colleague said you would", "someone told me you'd
    stacked"): a verb of saying with a clause of its own after it, described, or None."""
    said = [words[i] for i in run]
    saying = [k for k, w in enumerate(said) if w in _SAYING]
    if not saying:
        return None
    subject = set(said[saying[0] + 1 :]) & _SUBJECTS
    clause = subject or _after(words, run) in verb_words()
    return f"what was said {_span(said, 0)!r}" if clause else None


def _after(words: Sequence[str], run: list[int]) -> str:
    """The word right after a run ("." at the end)."""
    return words[run[-1] + 1] if run[-1] + 1 < len(words) else "."


def says_which_arms(words: Sequence[str], i: int) -> bool:
    """Whether the word at ``i`` is an arm noun said with which arms ("both arms", "the left
    hand", "the middle arm"; not "the robot arm")."""
    return i > 0 and words[i] in lexicon.ARM_NOUNS and words[i - 1] in lexicon.WHICH_ARMS


def says_nothing(said: Sequence[str]) -> bool:
    """Whether words left out are politeness only: a negation in them only of a bother ("if
    it's not too much trouble", "no rush")."""
    words = set(said)
    negated = words & lexicon.NEGATIONS
    return words - negated <= _SAYS_NOTHING and (not negated or bool(words & _NO_BOTHER))


def _runs(words: Sequence[str], indices: list[int]) -> list[list[int]]:
    """``indices`` cut where they are not side by side and at punctuation (left out)."""
    runs: list[list[int]] = []
    for i in indices:
        if words[i] in PUNCTUATION:
            runs.append([])
        elif runs and runs[-1] and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return [run for run in runs if run]


PUNCTUATION = frozenset({",", ".", "!", "?", ";", ":"})
"""Marks that end a run of words left out."""


def _content_of(said: list[str]) -> str | None:
    """The content of one run of words left out, described, or None."""
    objects = [w for w in said if w in _OBJECT_WORDS]
    for k, word in enumerate(said):
        before = said[k - 1] if k else ""
        if word in lexicon.NEGATIONS:
            return f"the negation {_span(said, k)!r}"
        if (word in _WHEN and not (word == "once" and before == "at")) or (  # "at once"
            (word in _TIMES and before != "good") or (word == "case" and before == "in")
        ):
            return f"the condition or time {_span(said, max(k - 1, 0))!r}"
        if (word == "long" and before in {"as", "so"}) or (word in _INSTANTS and before == "the"):
            return f"the condition or time {_span(said, k - 1)!r}"  # "as long as", "the moment"
        if word in _WITHDRAWING:
            return f"the withdrawal {_span(said, k)!r}"
        if word in _NOT_SO:
            return f"the hypothetical or prohibition {_span(said, k)!r}"
        if word in _NEXT and said[k + 1 : k + 2] and said[k + 1] not in SPEAKER:
            return f"the clause {_span(said, k)!r}"  # "then feed the fish", not "then i'm off"
    if objects:
        return f"the object phrase {_span(said, said.index(objects[0]))!r}"
    return None


def _phrases(request: Request) -> list[Reference]:
    """The noun phrases the request was read with."""
    found = [*request.objects, request.target, request.target2]
    if request.region_ref is not None and request.region_ref.target is not None:
        found.append(request.region_ref.target)
    return [ref for ref in found if ref is not None]


def _has_place(request: Request) -> bool:
    """Whether the request holds a place (a relation, a region, a push's way) or an order
    (tower levels, by size: "from the biggest to the smallest")."""
    said = (request.relation, request.region, request.region_ref, request.direction, request.bottom)
    return any(value is not None for value in said) or bool(request.levels)


def _without_phrases(words: list[str], phrases: list[Reference]) -> list[str]:
    """``words`` with each phrase's words taken out (where it stands whole, else word by
    word), and the region named outright ("the left side") with them."""
    for ref in phrases:
        said = list(tokens(ref.text).words)
        n = len(said)
        at = next((i for i in range(len(words) - n + 1) if words[i : i + n] == said), None)
        if n and at is not None:
            words = words[:at] + words[at + n :]
        else:
            for word in said:
                if word in words:
                    words.remove(word)
    return words


def _span(words: list[str], start: int, size: int = 5) -> str:
    """A few words from ``start``, as a user would quote them."""
    return " ".join(words[start : start + size])
