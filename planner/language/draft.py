"""An instruction's tokens being made readable (:class:`Draft`): chat forms written out, each
word the lexicon lacks corrected, matched by meaning or marked unknown, what was changed kept
for the report; and a :class:`Reading`, the requests read and what was changed to read them.
:mod:`claw.planner.language.robust` reads drafts.

API::

    casual_words("pls put it in teh box")        # ["please", "put", "it", "in", "teh", "box"]
    draft_of("put teh red block in", {"red"})    # Draft(words=[..., "the", ...], corrected=...)
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import NamedTuple

from claw.planner.exceptions import UnparseableError
from claw.planner.language import lexicon
from claw.planner.language.asking import acting_words, subject_verbs
from claw.planner.language.audit import left_out_content, says_which_arms
from claw.planner.language.chatter import narrated
from claw.planner.language.forms import Request
from claw.planner.language.grammar import normalise
from claw.planner.language.parsing import tokens
from claw.planner.language.spelling import heads_a_phrase, read_word, vocabulary

__all__ = ["Change", "Draft", "Reading", "casual_words", "draft_of"]


class Change(NamedTuple):
    """A word read as another: how (``spelling``, ``sound``, ``consonants``, ``meaning`` with
    its ``score``, ``table``: another name of it, ``form``: a verb form made plain)."""

    typed: str
    read: str
    how: str = "form"
    score: float | None = None


@dataclass(frozen=True)
class Reading:
    """An instruction's requests, and what was changed to read it."""

    requests: list[Request]
    ignored: tuple[str, ...] = ()
    """Words left out, in the order typed."""
    corrected: tuple[Change, ...] = ()
    """Each word read as another, and how."""


@dataclass
class Draft:
    """The tokens of an instruction being made readable, and what was changed."""

    words: list[str]
    unknown: set[int] = field(default_factory=set)
    """Words the lexicon lacks that name nothing: always left out."""
    corrected: list[Change] = field(default_factory=list)
    framed: set[int] = field(default_factory=set)
    """Words a step reads as a frame, by token index (the robot said as the subject, a
    dismissal, a heading): left out, but read."""
    refusal: UnparseableError | None = None
    """The first reason found that a reading leaves out what it cannot (:meth:`unread`)."""

    def text(self, dropped: Collection[int] = ()) -> str:
        """The text with the unknown words and those at ``dropped`` left out."""
        left_out = self.unknown | set(dropped)
        kept = [w for i, w in enumerate(self.words) if i not in left_out]
        return re.sub(r" (?=[,.;:!?])", "", " ".join(kept))

    def reading(self, requests: list[Request], dropped: Collection[int] = ()) -> Reading | None:
        """The reading of :meth:`text` with ``dropped`` left out; None when a word the lexicon
        lacks is left out where it acts on what follows it (:meth:`unread`)."""
        if self.unread(dropped) is not None or self.unread_content(dropped) is not None:
            return None
        ignored = [self.words[i] for i in sorted(self.unknown | set(dropped))]
        return Reading(requests, tuple(ignored), tuple(self.corrected))

    def unread_content(self, dropped: Collection[int], framed: Collection[int] = ()) -> str | None:
        """What a reading that leaves out ``dropped`` and the unknown words, less the frames
        (:attr:`framed`, and ``framed``), leaves out that carries content
        (:func:`claw.planner.language.audit.left_out_content`); kept in :attr:`refusal`."""
        left_out = (self.unknown | set(dropped)) - self.framed - set(framed)
        found = left_out_content(self.words, left_out)
        if found is not None and self.refusal is None:
            self.refusal = UnparseableError(
                f"cannot read {found} here: left out, the rest would run without it; say it "
                "as a request of its own, or leave it out"
            )
        return found

    def unread(self, dropped: Collection[int] = ()) -> UnparseableError | None:
        """Why a reading that leaves out ``dropped`` and the unknown words cannot be run: an
        unknown word not in ``dropped`` (a step that leaves out a whole phrase) that acts on
        the noun phrase after it ("and cover it", "the shiny red block"): left out, the rest
        would say something else. Kept in :attr:`refusal` for the instruction's refusal."""
        arms = sorted(i for i in self.unknown | set(dropped) if says_which_arms(self.words, i))
        if arms:  # "both arms hold the red block": which arms, left out
            said = " ".join(self.words[arms[0] - 1 : arms[0] + 1])
            self.refusal = self.refusal or UnparseableError(
                f"cannot read {said!r}: which arms do what is not read here; say it as "
                "'... with both arms', 'use the left hand to ...', or leave it out"
            )
            return self.refusal
        verbs = acting_words(self.words) | subject_verbs(self.words)
        acting = sorted((self.unknown - set(dropped)) & verbs)
        if not acting:
            return None
        i = acting[0]
        said = " ".join(self.words[max(i - 2, 0) : i + 3])
        self.refusal = self.refusal or UnparseableError(
            f"cannot read {self.words[i]!r} in {said!r}: not a word claw knows, and the rest "
            "would mean something else without it"
        )
        return self.refusal


def _fix_word(draft: Draft, i: int, scene_words: Collection[str]) -> None:
    """Correct, match or leave out the unknown word at ``i``; refuse one that could matter."""
    typed = draft.words[i]
    before = draft.words[i - 1] if i else ""
    after = draft.words[i + 1] if i + 1 < len(draft.words) else ""
    meant = read_word(typed, before, after, scene_words)
    earlier = draft.words[i - 2] if i > 1 else ""
    heads = heads_a_phrase(before, after, earlier)
    if heads and meant is not None and meant.word.split()[-1] not in _HEADS:
        meant = None  # "the blue stapler" is no "blue smaller": a noun is read as a noun
    if meant is None and heads:  # "out of the way": a thing
        return  # kept: only a step that leaves out its whole phrase ("when you get a chance")
    if meant is None:
        draft.unknown.add(i)
    else:
        draft.words[i] = meant.word
        draft.corrected.append(Change(typed, meant.word, meant.how, meant.score))


def draft_of(instruction: str, scene_words: Collection[str]) -> Draft:
    """The instruction's tokens, each word the lexicon lacks corrected, matched or marked
    unknown (:func:`_fix_word`), other names of the table read as "table"."""
    draft = Draft(casual_words(normalise(instruction)))
    subject, plain = narrated(draft.words)  # "the robot arm places ...": "place ..."
    draft.unknown |= subject
    draft.framed |= subject
    for i, verb in plain.items():
        draft.corrected.append(Change(draft.words[i], verb))
        draft.words[i] = verb
    known = vocabulary()
    for i, word in enumerate(draft.words):
        if word in lexicon.TABLE_NAMES:  # "on the countertop": the table
            draft.words[i] = "table"
            draft.corrected.append(Change(word, "table", "table"))
        elif word not in known and re.fullmatch(r"[a-z][a-z']*", word):
            _fix_word(draft, i, scene_words)
        elif not re.fullmatch(r"[\w',.;:!?&]+", word):
            draft.unknown.add(i)  # ":)", "->": marks that say nothing here
    return draft


def casual_words(text: str) -> list[str]:
    """The tokens of a normalised text, chat abbreviations and apostrophe-less contractions
    written out ("its" too, before a place), "the" before a table said without it ("from
    desk"), a colour said as a plural noun as its ones ("the reds")."""
    said = list(tokens(text).words)
    words: list[str] = []
    while said:
        word = said.pop(0)
        if said and word + said[0] in lexicon.ABBREVIATIONS:  # "w/": read as typed
            word += said.pop(0)
        full = (
            lexicon.ABBREVIATIONS.get(word)
            or lexicon.CONTRACTIONS.get(word.replace("'", ""))
            or _negated(word)
        )
        if word == "its" and said[:1] and said[0] in lexicon.PLACE_LEADS:  # "so its behind the box"
            full = "it is"
        if _contracted_is(word, said[:4]):  # "the green block's on the box": it is, not its
            full = f"{word[:-2]} is"
        if words and words[-1] in _TABLE_PREPOSITIONS and word in _TABLES:  # "pick X from desk"
            full = f"the {full}"
        if word.endswith("s") and word[:-1] in lexicon.COLOR_WORDS:  # "both reds": red ones
            full = f"{word[:-1]} ones"
        words.extend(full.split())
    return words


def _contracted_is(word: str, after: list[str]) -> bool:
    """Whether ``word`` is a noun with a contracted "is" before a place ("block's on top of"),
    not a possessive ("the box's left side", "the block's left")."""
    if not word.endswith("'s") or word[:-2] not in _NOUNS or not after:
        return False
    while after and after[0] in _STILL:  # "the block's already in the box"
        after = after[1:]
    if not after:
        return False
    possessed = after[0] in lexicon.SIDE_WORDS and (after[1:2] or [""])[0] != "of"
    return after[0] in lexicon.PLACE_LEADS and not possessed


_NOUNS = {*lexicon.TYPE_WORDS, *lexicon.GENERIC_HEADS}
_HEADS = {*_NOUNS, *lexicon.REGION_HEADS, *lexicon.SIDE_WORDS, "table", *lexicon.TABLE_NAMES,
          *lexicon.ARM_NOUNS}  # fmt: skip
"""What a word typed where a noun phrase's noun stands may be corrected to."""
_STILL = {"already", "still", "now", "just", "also", "not"}


def _negated(word: str) -> str:
    """A negative contraction written out, with its apostrophe or without ("shouldn't",
    "mustnt": must not; "won't": will not), any auxiliary's; another word as it is."""
    base = word[:-3] if word.endswith("n't") else word[:-2] if word.endswith("nt") else ""
    base = _IRREGULAR_NEGATIVES.get(base, base)
    return f"{base} not" if base in lexicon.AUXILIARIES else word


_IRREGULAR_NEGATIVES = {"wo": "will", "ca": "can", "sha": "shall", "ai": "is"}
_TABLE_PREPOSITIONS = {"on", "onto", "from", "off", "of", "to", "across", "along"}
_TABLES = {"table", *lexicon.TABLE_NAMES}
