"""Texts that name a placement's words but ask for nothing: questions about the scene, what
someone did or does, a request quoted, a condition on someone else, a statement of what is, and
an action the claws cannot do said as the verb.

The robust reader (:mod:`claw.planner.language.robust`) refuses these before it leaves out any word:
a reader that skipped "yesterday", "whenever I clap" or "wash" would plan the placement the text
only mentions. Each check is a shape of the sentence, not a phrase: who the subject is, where the
verb stands, which tense it is in.

API::

    not_asked("did you put it in the box?", words)   # "a question about the scene, ..."
    verb_slots(["wash", "the", "blue", "block"])     # {0}: a word where the verb stands
"""

from __future__ import annotations

import itertools
import re

from claw.planner.language import lexicon
from claw.planner.language.chatter import SUBORDINATORS, WISHING, names, purpose
from claw.planner.language.indirect import COPULAS
from claw.planner.language.inflection import verb_forms
from claw.planner.language.spelling import verb_words

__all__ = ["not_asked", "stated", "verb_slots"]

# These words are no part of the vocabulary (:func:`claw.planner.language.spelling.vocabulary`): a
# reading that gets past these checks may still leave them out as words that name nothing.
ADDRESSEES = frozenset({"you", "ya", "ye", "yall"})
"""The robot spoken to ("u" and "ya" are written out as "you" first)."""
SUBJECTS = frozenset({"i", "we", "he", "she", "they", "someone", "somebody", "everyone",
                      "nobody"})  # fmt: skip
"""Subjects other than the addressee: before a verb, a sentence says what they do or did."""
PAST_TIME = frozenset({"yesterday", "earlier", "ago", "previously", "beforehand"})
TIME_ADVERBS = frozenset({*PAST_TIME, "already", "just", "also", "then", "once", "first",
                          "never", "always", "often", "usually", "sometimes"})  # fmt: skip
"""Adverbs that may stand between a subject and its verb ("I already put ...")."""
INTERJECTIONS = frozenset({"um", "umm", "uh", "uhh", "er", "erm", "hmm", "hm", "ah", "oh", "eh",
                           "yo", "hey", "hi", "hello", "yeah", "yes", "yep", "sure", "alright",
                           "wow", "oops", "dude", "bro", "man", "mate", "buddy", "pal", "sir",
                           "lol", "o", "thanks"})  # fmt: skip
"""Words said to nobody in particular: not a verb where a verb would stand ("um the red ...")."""

_ASKING: dict[str, frozenset[str]] = {
    **dict.fromkeys(("is", "are", "does"), frozenset({"you", "u", "ya", "it", "there"})),
    **dict.fromkeys(("was", "were", "did", "where", "why", "which", "who"), frozenset()),
    "what": frozenset({"about", "i", "we"}),
    "how": frozenset({"about", "would", "could", "can", "do", "should"}),  # "how would you …"
}
"""Words a question starts with, and the words after them that make it a request ("is it
possible to …", "are you able to …", "how about …", "what I want is …")."""
_WONDERING = {"would", "will", "should", "might", "may", "shall"}
_ASKED = {*ADDRESSEES, "i", "we", "it", "there", "this", "that", "someone", "somebody"}
"""Subjects after a modal that make a question a request ("would you …", "should we …",
"would it be possible …"); any other ("would the red block fit …?") asks about the scene."""
_PERFECT = {"have", "had", "'ve", "'d"}
_QUOTED = re.compile(r"""(?:^|\s)['"‘“]([^'"’”]*\s[^'"’”]*)['"’”](?=\s|[?.!,]|$)""")
_LEADS = {*lexicon.HEDGES, ",", "hey", "hi", "and", "then", "oh", "um", "uh"}
"""Words before a sentence's subject that say nothing of who does what."""
_ASKING_MARKS = {*WISHING, "let", "can", "must", "have", "has", "?"}
"""Words that make a sentence with no verb ask for something ("I'd like the red block in the
box", "the red block should be in the box")."""
_NO_VERBS = INTERJECTIONS | _ASKING.keys()
"""Words at a clause's start that are no verb: interjections, question words ("how about …")."""
_CLAUSE_STARTS = {",", ".", ";", ":", "!", "?", "then", "and", "to", "please", "first", "now",
                  "also", "next", "finally", *lexicon.HEDGES}  # fmt: skip
_OBJECT_WORDS = {*lexicon.TYPE_WORDS, *lexicon.GENERIC_HEADS}
_NAMING_LEADS = {"the", "a", "an", "any", "some", "every", "each", "all", "both",
                 *lexicon.COLOR_WORDS}  # fmt: skip
"""Words a noun phrase that names something starts with ("the red block", "a block")."""


def not_asked(text: str, words: list[str]) -> str | None:
    """Why ``text`` (its casual ``words``) asks for nothing to be done, if it does not: a
    question about the scene ("is the red block in the box?", "would the red block fit …"),
    what was or is done ("I have already put …", "earlier I moved …", "you put … yesterday"),
    a request quoted, a condition on someone or something else ("whenever I clap, put …"), a
    statement of what is ("there's a red block left of the box"); None when it may be a
    request ("is it possible to …", "could you …", "if you can, …")."""
    said = [w for w in words if w not in _LEADS]
    first, second = [*said, "", ""][:2]
    if first in _ASKING and second not in _ASKING[first] and purpose(said) is None:
        return "a question about the scene, not a request"
    if first in _WONDERING and second not in _ASKED and text.rstrip().endswith("?"):
        return "a question about the scene, not a request"
    participles = verb_forms("participle")
    if any(w in _PERFECT and after in participles for w, after in itertools.pairwise(words)):
        return "says what was done, not what to do"
    if _narrated(words):
        return "says what someone did or does, not what to do"
    found = _QUOTED.search(text)
    quoted = found.group(1).lower().split() if found is not None else []
    if set(quoted) & verb_words() and _QUOTED.sub(" ", text).strip(" ?.!,"):
        return f"quotes a request ({' '.join(quoted)!r}) without asking for it"
    condition = _condition(words)
    if condition is not None:
        return f"asks only on a condition ({condition!r}), which the planner cannot know"
    if stated(words):
        return "says what is, not what to do"
    return None


def _doing(word: str) -> bool:
    """Whether ``word`` is a verb of the reader's, in any form ("put", "moved", "stacks")."""
    return word in verb_words() or any(word in verb_forms(f) for f in ("participle", "third"))


def _narrated(words: list[str]) -> bool:
    """Whether a sentence says what someone did or does: a subject other than the addressee
    right before a verb of the reader's ("I put …", "earlier we moved …"), or the addressee
    before one in the past ("you moved …", "you put … yesterday")."""
    past = bool(set(words) & PAST_TIME)
    for k, word in enumerate(words):
        if k and words[k - 1] not in _CLAUSE_STARTS | PAST_TIME:
            continue
        rest = list(itertools.dropwhile(TIME_ADVERBS.__contains__, words[k + 1 :]))
        verb = rest[0] if rest else ""
        if word in SUBJECTS and _doing(verb):
            return True
        if word in ADDRESSEES and _doing(verb) and (past or verb not in verb_words()):
            return True
    return False


def _condition(words: list[str]) -> str | None:
    """The condition a sentence puts on someone or something other than the addressee ("when
    I clap", "if the red block is in the box"), if any: a subordinating word, then a subject
    that is neither the addressee nor an empty "it" ("if it is no trouble")."""
    for k, word in enumerate(words[:-1]):
        if word not in SUBORDINATORS or set(words[:k]) & WISHING:
            continue  # "I'd love it if the blue block were in the red box": a wish
        if words[k + 1] in SUBJECTS or words[k + 1] in _NAMING_LEADS:
            end = next((j for j in range(k, len(words)) if words[j] in (",", ".", ";")), k + 3)
            return " ".join(words[k:end])
    return None


def stated(words: list[str]) -> bool:
    """Whether the text only states what is: a copula, no verb of the reader's (but as the
    state after the copula: "is empty") and nothing that asks ("there's a red block left of
    the box", "my favourite is the yellow block")."""
    if not set(words) & COPULAS or set(words) & _ASKING_MARKS:
        return False
    verbs = verb_words()
    state = {k for k in range(1, len(words)) if words[k - 1] in COPULAS and words[k] in verbs}
    return not any(  # a plain verb right after the copula is a state: "your arm is empty"
        (_doing(w) or w in verb_forms("ing")) and not names(w) and k not in state
        for k, w in enumerate(words)
    )


def verb_slots(words: list[str]) -> set[int]:
    """Where a clause's verb stands when the clause acts on a named object but names no place
    ("wash the blue block, then put it in the box", "paint the red block") or governs another
    verb ("forget about putting ..."), by token index. A word the lexicon lacks there is an
    action the claws cannot do, not a word to leave out: no placement is said without a place.
    Interjections ("um the red block in the box") are no verbs."""
    gerunds = verb_forms("ing")
    found: set[int] = set()
    for i, word in enumerate(words[:-1]):
        if (i and words[i - 1] not in _CLAUSE_STARTS) or word in _NO_VERBS:
            continue
        after = words[i + 1 : i + 3]
        if after[0] in gerunds or after[-1] in gerunds:
            found.add(i)
        elif after[0] in _NAMING_LEADS:
            clause = list(itertools.takewhile(_in_clause, words[i + 1 :]))
            if set(clause) & _OBJECT_WORDS and not set(clause) & lexicon.PLACE_LEADS:
                found.add(i)
    return found


def acting_words(words: list[str]) -> set[int]:
    """Where a word stands right before a noun phrase it acts on or relates to ("cover it",
    "spin the green block", "the block atop the box"), by token index: a verb's or a
    preposition's place, not a modifier's inside a phrase ("the shallow bin", "a ceramic
    plate"). A word the lexicon lacks there carries content (an action, a place) and cannot be
    left out as saying nothing. Interjections ("um the red block ...") and marks do not act."""
    found: set[int] = set()
    for i, (word, after) in enumerate(itertools.pairwise(words)):
        if word in _NO_VERBS or word in _POSSESSIVES or not word.isalpha():
            continue
        inside = i > 0 and words[i - 1] in _PHRASE_WORDS  # "the shallow bin"
        if after in _PHRASE_STARTS or after.isdigit() or (after in _HEADS and not inside):
            found.add(i)
    return found


def subject_verbs(words: list[str]) -> set[int]:
    """Where a clause's verb stands after its subject: a word right after a noun phrase's head
    and right before a place ("could the red block fit in the box", "the blue block sits
    behind the box"), with no verb of the reader's before it in its clause, by token index. A
    word the lexicon lacks there is what the clause says of its subject, not a word to skip."""
    found: set[int] = set()
    for i in range(1, len(words) - 1):
        subject = words[i - 1] in _OBJECT_WORDS or (  # "the blue block is sitting on …"
            words[i - 1] in COPULAS and i > 1 and words[i - 2] in _OBJECT_WORDS
        )
        place = words[i + 1] in lexicon.PLACE_LEADS or words[i + 1] in _PARTICLES
        if not subject or not place:  # "ended up in", "sits to the left of"
            continue
        start = i - sum(1 for _ in itertools.takewhile(_in_clause, reversed(words[:i])))
        if start == 0 or words[start - 1] not in verb_words():  # no verb before it
            found.add(i)
    return found


_PARTICLES = {"up", "down", "over", "back", "to"}
"""Words between a verb and its place ("ended up in", "sits to the left of")."""
_POSSESSIVES = {"my", "your", "our", "his", "her"}
_PHRASE_STARTS = {*_NAMING_LEADS, *lexicon.NUMBER_WORDS, "it", "them"} - {*lexicon.COLOR_WORDS}
"""Words a noun phrase that something is done to starts with."""
_HEADS = {*lexicon.COLOR_WORDS, *lexicon.TYPE_WORDS}
"""Words a noun phrase may start with, which may also go on a phrase begun before them."""
_PHRASE_WORDS = {*lexicon.DEFINITE, *lexicon.INDEFINITE, *lexicon.UNIVERSAL, *_POSSESSIVES,
                 *lexicon.COLOR_WORDS, *lexicon.SIZE_WORDS, *lexicon.SIDE_WORDS,
                 *lexicon.EXTREME_WORDS, *lexicon.ORDINAL_WORDS, *lexicon.NUMBER_WORDS}  # fmt: skip
"""Words a noun phrase goes on after: a word the lexicon lacks after one is a modifier."""


def _in_clause(word: str) -> bool:
    """Whether ``word`` may stand inside a clause after its verb (not a clause's end, nor the
    next clause's verb)."""
    return word not in (",", ".", ";", "!", "?", "then") and word not in verb_words()
