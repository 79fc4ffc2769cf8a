"""Requests said indirectly, read as the direct request they mean: a passive ("can the red block
be put in the blue box?": "put the red block in the blue box"), a causative ("make the red block
go to the right side": "move the red block to the right side"), a place said first ("in the
drawer, pick up the red block"), an object said first ("the blue block, put it next to the red
box"), a box said to hold something ("the red box should hold the green block") and a wanted
state after "make sure", "make it so", "see that" or "the goal is" ("make sure the red block is
in the box": "the red block in the box", a place).

Each rewrite says which typed words it left out; a negation among them ("the block should not be
moved") stops it.

API::

    active(words, names_something)        # Rewrite(words=["put", "the", "red", ...], ...) or None
    causative(words, names_something)     # Rewrite(words=["move", ...], ...) or None
    outcome(words, names_something)       # Rewrite(words=["stack", "the", ...], ...) or None
    run_on(words, verbs)                  # Rewrite(words=[..., "and", "put", ...], ...) or None
    verb_last(words, verbs)               # Rewrite(words=["put", "the", ...], ...) or None
    fronted(words, verbs)                 # Rewrite(words=["pick", "up", ...], ...) or None
    topic(words, verbs, names_something)  # Rewrite(words=["put", "the", "blue", ...]) or None
    holder(words, names_something)        # Rewrite(words=["put", "the", "green", ...]) or None
    unwanted(words, names_something)      # Rewrite(words=["take", "the", "red", ...]) or None
    wanted_state(words, names_something)  # the token indices to leave out, or an empty set
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import cache

from claw.planner.language import lexicon
from claw.planner.language.inflection import verb_forms
from claw.planner.language.lexicon import NEGATIONS

__all__ = ["CATAPHORS", "COPULAS", "NEGATIONS", "STATE_VERBS", "Rewrite", "active", "causative",
           "fronted", "headed", "holder", "outcome", "phrase_start", "run_on", "topic", "unwanted",
           "verb_last", "wanted_state"]  # fmt: skip

AUXILIARIES = {"be", "is", "are", "was", "were", "been", "being", "get", "gets", "got"}
"""The words before a participle that make it passive ("be put", "get moved")."""
MODALS = {"can", "could", "would", "will", "should", "shall", "must", "may", "might", "need",
          "needs", "has", "have", "had", "to", "please", "pls", "plz", "kindly"}  # fmt: skip
"""Words of a passive's frame that ask without naming anything ("could ... be", "needs to be")."""
CAUSATIVES = {"make", "have", "let", "get"}
"""Verbs that have an object do something ("make the red block go ...")."""
MOTIONS = {"go", "goes", "move", "moves", "sit", "sits", "be", "end", "ends", "stand", "rest",
           "land", "lie"}  # fmt: skip
"""What a causative's object is made to do that is a move to where the rest says."""
FRONTED_LEADS = {"in", "inside", "on", "from", "at", "within"}
"""What a place said before the request starts with ("in the drawer, pick up the red block")."""
TOPIC_MARKS = {",", ".", ":", ";", "-", "..."}
"""What closes an object said before the request about it ("the blue block. put it ...")."""
COMPLEMENTS = {"so", "sure", "that"}
"""The words that close a lead-in to a wanted state ("make it so", "make sure", "see that")."""


@cache
def _participles() -> dict[str, str]:
    return verb_forms("participle")


@dataclass(frozen=True)
class Rewrite:
    """A request's words said directly (a passive made active, a correction applied)."""

    words: list[str]
    dropped: set[int]
    """The typed words left out, by token index (of the words rewritten)."""
    participle: int | None = None
    """The token index of the participle, read as its verb (a passive's)."""


def active(words: list[str], names_something: Callable[[str], bool]) -> Rewrite | None:
    """The active request of a passive one; None when ``words`` holds no passive request (or
    says "not").

    The passive is an auxiliary then a participle of a known verb; its subject is what comes
    from the sentence's first word that ``names_something`` (with its article) to the
    auxiliary, less the modal words at its end ("needs to").
    """
    if set(words) & NEGATIONS:
        return None
    found = next(
        (
            k
            for k in range(1, len(words))
            if words[k] in _participles()
            and words[k - 1] in AUXILIARIES
            and not names_something(words[k])  # "left" is a side, not "leave"
        ),
        None,
    )
    if found is None:
        return None
    sentence = max((i + 1 for i in range(found) if words[i] in _BOUNDARIES), default=0)
    first = next((i for i in range(sentence, found) if names_something(words[i])), None)
    if first is None:
        return None
    start = phrase_start(words, first, sentence)
    end = found - 1
    while end > start and words[end - 1] in MODALS:
        end -= 1
    verb = _participles()[words[found]].split()
    rewritten = [*words[:sentence], *verb, *words[start:end], *words[found + 1 :]]
    return Rewrite(rewritten, set(range(sentence, start)) | set(range(end, found)), found)


def causative(words: list[str], names_something: Callable[[str], bool]) -> Rewrite | None:
    """ "make the red block go to the right side", "have it sit on the green block": a move
    of what the causative verb's object names; None when ``words`` is not such a request."""
    if set(words) & NEGATIONS:
        return None
    for i, word in enumerate(words):
        at_start = i == 0 or words[i - 1] in _BOUNDARIES | {",", "please", "and"}
        if word not in CAUSATIVES or not at_start:
            continue
        k = next((k for k in range(i + 2, len(words)) if words[k] in MOTIONS), None)
        if k is None or not any(names_something(w) for w in words[i + 1 : k]):
            continue
        after = k + 1 + (words[k + 1 : k + 2] == ["up"])  # "end up"
        return Rewrite(
            [*words[:i], "move", *words[i + 1 : k], *words[after:]], {i, *range(k, after)}
        )
    return None


WANTING = {"want", "wants", "need", "needs", "like", "prefer", "get", "have"}
"""Verbs whose object's participle is the outcome asked for ("I need the blocks stacked")."""


def outcome(words: list[str], names_something: Callable[[str], bool]) -> Rewrite | None:
    """ "I need the blue blocks stacked up", "get the red block moved to the left": the
    participle's verb done to what the wanting verb's object names; None when ``words`` asks
    for no such outcome (or says "not")."""
    if set(words) & NEGATIONS:
        return None
    for k in range(2, len(words)):
        word = words[k]
        if word not in _participles() or names_something(word) or words[k - 1] in AUXILIARIES:
            continue
        lead = next((j for j in reversed(range(k - 1)) if words[j] in WANTING), None)
        between = words[lead + 1 : k] if lead is not None else []
        if lead is None or not any(map(names_something, between)) or set(between) & _BOUNDARIES:
            continue
        sentence = max((i + 1 for i in range(lead) if words[i] in _BOUNDARIES), default=0)
        verb = _participles()[word].split()
        rewritten = [*words[:sentence], *verb, *between, *words[k + 1 :]]
        return Rewrite(rewritten, set(range(sentence, lead + 1)), k)
    return None


def run_on(words: list[str], verbs: Collection[str]) -> Rewrite | None:
    """ "put red block in red box put green block in green box": requests typed one after the
    other with no "and" between them, read with it; None when no verb follows a noun."""
    ends = {*lexicon.TYPE_WORDS, *lexicon.GENERIC_HEADS, "it", "them"}
    starts = [k for k in range(2, len(words)) if words[k] in verbs and words[k - 1] in ends]
    if not starts:
        return None
    rewritten = list(words)
    for k in reversed(starts):
        rewritten.insert(k, "and")
    return Rewrite(rewritten, set())


_PARTICLES = set(lexicon.GRAMMAR_WORDS["updown"])


def verb_last(words: list[str], verbs: Collection[str]) -> Rewrite | None:
    """ "Please the red block in the blue box put.": the one verb said last (a word order other
    languages use), read first; None when the text has another verb or does not end in one."""
    said = [k for k, w in enumerate(words) if w not in _BOUNDARIES and w not in (",", "please")]
    found = [k for k, w in enumerate(words) if w in verbs]
    if len(said) > 1 and words[said[-1]] in _PARTICLES:  # "yellow block pick up"
        said = said[:-1]
    if len(found) != 1 or not said or found[0] != said[-1] or found[0] == said[0]:
        return None
    k = found[0]
    end = k + 1 + (k + 1 < len(words) and words[k + 1] in _PARTICLES)
    return Rewrite([*words[k:end], *words[:k], *words[end:]], set())


_TOWERS = set(lexicon.GRAMMAR_WORDS["_tower_word"])
_TOWER_VERBS = set(lexicon.GRAMMAR_WORDS["tower_verb"])
_STACKING = {w for phrase in lexicon.STACK_VERBS for w in phrase.split()[:1]}


def headed(words: list[str], verbs: Collection[str]) -> Rewrite | None:
    """ "make a tower: red at the bottom, then green, then blue on top", "stack them: ...": a
    request's verb before a colon and what it acts on after it, read as one ("make a tower
    with red at the bottom, ..."; a tower's levels follow "with"); None when ``words`` does
    not start with a verb and a colon."""
    colon = next((i for i, w in enumerate(words) if w == ":"), None)
    if not colon or colon + 1 == len(words) or set(words[:colon]) & {*NEGATIONS, ",", "."}:
        return None
    lead, rest = words[:colon], words[colon + 1 :]
    verb = next((i for i, w in enumerate(lead) if w in verbs), None)
    tower = any(w in _TOWERS for k, w in enumerate(lead) if k != verb)  # "make a tower"
    levels = set(lead) & _TOWER_VERBS and set(rest) & _LEVEL_WORDS.keys()  # "build order: …"
    if not tower and not levels and not set(lead) & _STACKING:
        return Rewrite([*lead, *rest], {colon}) if verb == 0 else None
    rest = [w for k, w in enumerate(rest) for w in _level(rest, k)]
    if verb is None or (levels and not tower):  # "a tower: …", "I want a tower: …"
        return Rewrite(["make", "a", "tower", "with", *rest], set(range(colon + 1)))
    said = {k for k, w in enumerate(lead) if w not in _LEAD_LEFT_OUT}  # "stack them: red at the …"
    joint = ["with"] if tower else []  # "build a tower with red at the bottom"
    dropped = set(range(colon + 1)) - said
    return Rewrite([*(lead[k] for k in sorted(said)), *joint, *rest], dropped)


CATAPHORS = {"them", "it", "those", "these"}
"""Pronouns before a colon that refer to what follows it ("stack them: red, green, blue")."""
_LEAD_LEFT_OUT = {*CATAPHORS, "up"}  # and the particle: "stack em up: ..."
_LEVEL_WORDS = {"bottom": ("at", "the", "bottom"), "top": ("on", "top")}


def _level(words: list[str], k: int) -> tuple[str, ...]:
    """The word at ``k`` of a tower's levels, a level said without its preposition written
    out ("green bottom": green at the bottom; "red top": red on top)."""
    word = words[k]
    if word in _LEVEL_WORDS and k and words[k - 1] not in {"the", "on", "at", "to", "of"}:
        return _LEVEL_WORDS[word]
    return (word,)


def fronted(words: list[str], verbs: Collection[str]) -> Rewrite | None:
    """ "in the drawer, pick up the red block": the place said first, read after the request
    ("pick up the red block in the drawer"); None when ``words`` does not start so."""
    if not words or words[0] not in FRONTED_LEADS:
        return None
    v = next((i for i in range(2, len(words)) if words[i] in verbs), None)
    if v is None:
        return None
    lead = words[:v]
    while lead and lead[-1] in (",", "then"):
        lead = lead[:-1]
    return Rewrite([*words[v:], *lead], set(range(len(lead), v)))


def topic(
    words: list[str], verbs: Collection[str], names_something: Callable[[str], bool]
) -> Rewrite | None:
    """ "the blue block, put it next to the red box", "green cube: place on the yellow cube":
    the object said first, then the request about it — read as its "it", else right after its
    verb. None when ``words`` does not start with a noun phrase (no verb, no place, no "not")
    and a mark, then a verb or words with an "it"."""
    start = next((i for i, w in enumerate(words) if w not in TOPIC_MARKS), len(words))
    end = next((i for i in range(start, len(words)) if words[i] in TOPIC_MARKS), None)
    if end is None or end == start:
        return None
    lead = words[start:end]
    if (set(lead) & {*verbs, *NEGATIONS, *FRONTED_LEADS} or lead[0] in FRONTED_LEADS
            or not any(names_something(w) for w in lead)):  # fmt: skip
        return None
    v = next((i for i in range(end, len(words)) if words[i] not in TOPIC_MARKS), len(words))
    said = words[v:]
    pronoun = next((k for k, w in enumerate(said) if w in ("it", "them")), None)
    if not said or NEGATIONS & set(said) or (said[0] not in verbs and pronoun is None):
        return None  # "the red block, I need it on the left": its "it" says what it is about
    marks = set(range(start)) | set(range(end, v))
    if pronoun is not None:
        return Rewrite([*said[:pronoun], *lead, *said[pronoun + 1 :]], marks | {v + pronoun})
    verb = 2 if " ".join(said[:2]) in verbs else 1  # "pick up"
    return Rewrite([*said[:verb], *lead, *said[verb:]], marks)


def holder(words: list[str], names_something: Callable[[str], bool]) -> Rewrite | None:
    """ "the red box should end up holding the green block", "can you make the box hold it": a
    box said to hold something, read as putting it in the box ("put the green block in the red
    box"). None when ``words`` is not a box (after words that ask), words that name nothing, a
    verb of holding and what it holds."""
    box = next((i for i, w in enumerate(words) if lexicon.TYPE_WORDS.get(w) == "box"), None)
    verb = next((i for i, w in enumerate(words) if w in lexicon.HOLDING_VERBS), None)
    if box is None or verb is None or not box < verb < len(words) - 1 or NEGATIONS & set(words):
        return None
    first = next(i for i, w in enumerate(words) if names_something(w) or i == box)
    start = phrase_start(words, first)
    asking = set(words[:start]) <= {*MODALS, *CAUSATIVES, "you"}  # "can you make the box hold"
    if not asking or any(names_something(w) for w in words[box + 1 : verb]):
        return None
    held = words[verb + 1 :]
    return Rewrite(
        ["put", *held, "in", *words[start : box + 1]], {*range(start), *range(box + 1, verb + 1)}
    )


def unwanted(words: list[str], names_something: Callable[[str], bool]) -> Rewrite | None:
    """ "I don't want anything in the blue box", "the red block should not be on the green
    one", "make sure nothing is in the bin": what is not wanted in (or on) something, taken out
    of (or off) it. None when ``words`` is not such a wish: a negation, what it is about, "in"
    or "on" and what holds it, last (not an act forbidden: "should not be put in")."""
    negation = next((i for i, w in enumerate(words) if w in NEGATIONS), None)
    place = next((i for i in reversed(range(len(words))) if words[i] in _HOLDERS), None)
    if negation is None or place is None or not any(map(names_something, words[place + 1 :])):
        return None
    if set(words[negation:place]) & set(_participles()):  # "should not be put in": an act
        return None
    if set(words[negation:place]) & {*TOPIC_MARKS, "if", "when"}:  # "if it is no trouble, into"
        return None  # the negation is another clause's
    wish = next((i for i in range(negation, place) if words[i] in _UNWANTING), None)
    if wish is not None:  # "I do not want X in Y"
        what = list(range(wish + 1, place))
    elif words[negation] in ("nothing", "no"):  # "nothing should be in Y", "no blocks in Y"
        what = list(range(negation, place))
    else:  # "(make sure) X is not in Y"
        lead = max((i + 1 for i in range(negation) if words[i] in COMPLEMENTS), default=0)
        what = list(range(lead, negation))
    what = [k for k in what if words[k] not in _STATE_FRAME]
    said = [words[k] for k in what]
    if said[:1] in (["nothing"], ["any"], ["no"]):  # "anything": any object
        said = ["all", "the", *(said[1:] or ["objects"])]
    if not any(map(names_something, said)):
        return None
    way = ["out", "of"] if words[place] in ("in", "inside", "into") else ["off"]
    return Rewrite(["take", *said, *way, *words[place + 1 :]], set(range(place + 1)) - set(what))


def wanted_state(words: list[str], names_something: Callable[[str], bool]) -> set[int]:
    """In "make sure the red block is in the box", "the goal is the red block in the box" (a
    lead-in that names nothing, closed by "so", "sure", "that" or a copula): the lead-in and
    the copulas, by token index — what is left reads as a place. Empty when ``words`` is not
    such a request (or says "not")."""
    first = next((i for i, w in enumerate(words) if names_something(w)), None)
    if first is None or set(words) & NEGATIONS:
        return set()
    start = phrase_start(words, first)
    closed = start and words[start - 1] in _COPULAS  # "the goal is", "what I want is"
    if not (set(words[:start]) & COMPLEMENTS or closed):
        return set()
    return set(range(start)) | {i for i in range(start, len(words)) if words[i] in STATE_VERBS}


def phrase_start(words: list[str], first: int, floor: int = 0) -> int:
    """Where the noun phrase whose first naming word is at ``first`` starts: at its article or
    quantifier just before, if any (not before ``floor``)."""
    return first - (first > floor and words[first - 1] in _ARTICLES)


_ARTICLES = {"the", "a", "an", "all", "every"}
_HOLDERS = {"in", "inside", "into", "on", "onto"}
_UNWANTING = {"want", "need", "like", "wish"}
_STATE_FRAME = {*MODALS, *AUXILIARIES, "stay", "stays", "remain", "remains", "left", "more",
                "longer", "anymore", "there", "do", "does", "not", "i", "we"}  # fmt: skip
_BOUNDARIES = {".", "!", "?", ";", "then"}
COPULAS = frozenset({"is", "are", "was", "were"})
"""The finite copulas: what says what is ("the red block is in the box")."""
_COPULAS = {*COPULAS, "be"}
STATE_VERBS = {*_COPULAS, "being", "been", "stay", "stays", "remain", "remains",
               *(w for w in lexicon.BE if w.endswith(("ing", "ed")))}  # fmt: skip
"""What a wanted state's verbs are ("that the green block stays in the box", "was sitting",
"placed"): left out, what is left reads as a place."""
