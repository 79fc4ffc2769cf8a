"""Reading instructions as people type them: words the grammar cannot place, typos, casual forms.

The clause grammar (:mod:`claw.planner.language.grammar`) reads what it was written for. When it
cannot read an instruction, :func:`read_instruction` reads it again, changed only where a change is
safe, and says what it changed (:class:`Reading`):

1. A word the lexicon lacks, and that is no English word (the MiniLM tokenizer's whole words,
   :func:`claw.library.embedding.english_words`), is **corrected** to the one known word
   nearest it by a typing distance (:func:`typo_distance`: a swapped pair or a doubled letter
   costs half an edit), when exactly one is nearest within the word's allowance (shorter words
   get less); a tie is broken by what the scene has (``scene_words``), else none is taken.
2. Else it is **matched by meaning** (:mod:`claw.planner.language.meaning`, the shipped MiniLM
   embedder) to a colour, type, size, region or relation word, above that module's threshold.
3. Else, when nothing makes it a content word — no content word is within its typing allowance
   and no meaning comes near — it is **ignored** ("yo", "kinda", "um"). A word that could name
   something in the scene is never left out: the instruction is refused, naming the word.
4. If the text still does not read, these are left out in turn: sentences with no content word
   ("hello!", "thanks a lot."); what comes before a sentence's first verb when it holds no
   content word ("hey there, would it be possible to put ..."); a closing "when you get a
   chance" that names nothing, or what follows its last comma when that names nothing; a
   closing "I guess" (a speaker, then only words the lexicon lacks); a heading before a colon;
   the spot a place is said in (:mod:`claw.planner.language.chatter`); the hedges
   (``lexicon.HEDGES``: "like", "basically"). A verbless text that reads as a placement is a place
   ("red block in the blue box"). Then a self-correction, a passive, a causative or a wanted state
   is read as the request it is. Next, one soft word (``lexicon.SOFT_WORDS``: "for me", "if
   possible", a comma), or two side by side, is left out — taken only when every such reading that
   reads means the same. Last, each part (between full stops and "then") is read on its own, in the
   context of those before it.

What is left out is reported (``Reading.ignored``), and so is what was read as another word
(``Reading.corrected``); a reading that changes nothing is the grammar's own.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Iterable
from dataclasses import replace

from claw.common.exceptions import ClawError
from claw.planner.exceptions import AmbiguousError, UnparseableError
from claw.planner.language import lexicon
from claw.planner.language.asking import acting_words, not_asked, stated, verb_slots
from claw.planner.language.audit import (
    PUNCTUATION,
    SPEAKER,
    left_out_content,
    reported_speech,
    says_nothing,
)
from claw.planner.language.chatter import (
    SUBORDINATORS,
    asides,
    but_preambles,
    chatter,
    codas,
    described,
    dismissals,
    has_content,
    headings,
    names,
    preambles,
    purposes,
    spots,
    statement_verbs,
    table_adjuncts,
    tails,
    wish,
)
from claw.planner.language.corrections import corrections
from claw.planner.language.draft import Change, Draft, Reading, casual_words, draft_of
from claw.planner.language.forms import Request
from claw.planner.language.grammar import (
    MAX_INSTRUCTION_CHARS,
    VERBS_ALLOWED,
    normalise,
    parse_instruction,
    split_parts,
)
from claw.planner.language.indirect import (
    CATAPHORS,
    Rewrite,
    active,
    causative,
    fronted,
    headed,
    holder,
    outcome,
    run_on,
    topic,
    unwanted,
    verb_last,
    wanted_state,
)
from claw.planner.language.inflection import verb_forms
from claw.planner.language.places import reads_as_objects
from claw.planner.language.shallow import placements
from claw.planner.language.spelling import (
    content_words,
    typo_distance,
    verb_words,
    vocabulary,
)
from claw.planner.text import clean_text

__all__ = ["Reading", "content_words", "read_instruction", "typo_distance", "vocabulary"]


Check = Callable[[list[Request]], object]
"""Raises a :class:`ClawError` when requests cannot be meant (they do not ground on the scene)."""


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


def _without_soft_words(
    draft: Draft, base: set[int], check: Check | None, lead: str = ""
) -> Reading | None:
    """A reading with one soft word (or hedge), or two side by side, left out, when every
    such reading that reads means the same (else none); ``lead`` ("put ") goes before each."""
    soft = {*lexicon.SOFT_WORDS, *lexicon.HEDGES}
    held = acting_words(draft.words)  # "to the front of the box": "of" relates what follows
    spots = [
        i
        for i, w in enumerate(draft.words)
        if i not in base | draft.unknown and w in soft and not _binding(w, i in held)
    ]
    if len(spots) > MAX_SOFT_SPOTS:  # no casual slip: each try reads the whole text again
        return None
    singles: list[tuple[int, ...]] = [(i,) for i in spots]
    pairs: list[tuple[int, ...]] = [(i, j) for i, j in itertools.pairwise(spots) if j == i + 1]
    for choices in (singles, pairs):
        found: list[tuple[tuple[int, ...], list[Request]]] = []
        for choice in choices:
            requests = _attempt(lead + draft.text({*base, *choice}), check)
            if requests is not None:
                found.append((choice, requests))
        if found:
            meanings = {_meaning_of(r) for _, r in found}
            if len(meanings) > 1:
                return None
            choice, requests = found[0]
            return draft.reading(requests, {*base, *choice})  # None: a word it lacks left out
    return None


def _binding(word: str, acting: bool) -> bool:
    """Whether a soft word carries content where it stands: a condition ("if"), or a
    preposition before the noun phrase it relates ("of the box", "to the table")."""
    return word in SUBORDINATORS or (acting and word in _PREPOSITIONS)


_PREPOSITIONS = {"to", "of", "for", "over", "from", "into", "onto", "in", "on", "at", "by"}


def _meaning_of(requests: list[Request]) -> str:
    """What requests ask for, whatever words said it."""
    return repr([r.model_dump(exclude={"text"}) for r in requests])


def read_instruction(
    instruction: str, scene_words: Collection[str] = (), check: Check | None = None
) -> Reading:
    """The requests of an instruction, read as typed where the grammar can, else with the
    changes of this module's steps, each reported; refused when what a reading left out
    carries content (:func:`claw.planner.language.audit.left_out_content`).

    ``scene_words``: the colours and types the scene has (``red``, ``box``), to choose between
    corrections equally near. ``check``: refuses the requests of a changed reading that cannot
    be meant (the planner grounds them on the scene); the grammar's own reading is not checked.

    Raises:
        UnparseableError: nothing safe makes it read (the grammar's own message, or the word
            that could name something and was not understood), or every reading left out a
            negation, a condition, an object phrase (named).
        AmbiguousError, UnsupportedError: as the grammar raises them.
    """
    return _read(instruction, scene_words, check)


def _read(
    instruction: str, scene_words: Collection[str] = (), check: Check | None = None
) -> Reading:
    """:func:`read_instruction`'s reading, before what it left out is checked."""
    if len(instruction) <= MAX_INSTRUCTION_CHARS:
        words = casual_words(normalise(instruction))
        unasked = not_asked(instruction, words)
        if unasked is not None:
            raise UnparseableError(f"cannot read {clean_text(instruction, 80)!r}: {unasked}")
        early = _adjunct_reading(words, check) or _headed_reading(Draft(words), check, ahead=True)
        if early is not None:
            return early
    try:
        return Reading(parse_instruction(instruction))
    except AmbiguousError:
        raise
    except UnparseableError as exc:
        if len(instruction) > MAX_INSTRUCTION_CHARS:
            raise  # too long to read at all: no second reading either
        refusal = exc
    draft = draft_of(instruction, scene_words)
    _refuse_unknown_verbs(draft, refusal)
    reading = _headed_reading(draft, check)
    if reading is not None:
        return reading
    base: set[int] = set()
    verbless = not set(draft.words) & verb_words()
    frames = (table_adjuncts(draft.words), dismissals(draft.words), purposes(draft.words),
              headings(draft.words), spots(draft.words), but_preambles(draft.words),
              _wish_frame(draft.words) if verbless else set())  # fmt: skip
    draft.framed |= set().union(*frames)  # read as frames: left out, not unread
    stages = (frames[0], chatter(draft.words), frames[1], frames[2], preambles(draft.words),
              codas(draft.words), asides(draft.words, draft.unknown), but_preambles(draft.words),
              frames[3], frames[4], tails(draft.words))  # fmt: skip
    for dropped in stages:
        base |= dropped
        requests = _attempt(draft.text(base), check)
        taken = None if requests is None else draft.reading(requests, base)
        if taken is not None:
            return taken
    hedges = {i for i, w in enumerate(draft.words) if w in lexicon.HEDGES}
    reading = _corrected(draft, base, hedges, check, verbless)
    if reading is not None:
        return reading
    for dropped in (hedges, set(), wish(draft.words) if verbless else set()):
        text = draft.text(base | dropped)
        requests = _attempt(text, check)
        if requests is None and verbless:
            requests = _attempt(f"put {text}", check)  # "red block in the blue box"
        taken = None if requests is None else draft.reading(requests, base | dropped)
        if taken is not None:
            return taken
    reading = (
        _indirect(draft, base, hedges, check)
        or _without_soft_words(draft, base | hedges, check)
        or (_without_soft_words(draft, base | hedges, check, "put ") if verbless else None)
        or _by_parts(draft, scene_words, check)
        or _placements_alone(draft, check)
    )
    if reading is None:
        raise draft.refusal or refusal
    return reading


def _a_clause_unread(words: list[str]) -> bool:
    """Whether a part that reads as nothing is a clause of its own ("then feed the fish",
    "scratch that, forget it"), not a label ("out:"), politeness or the speaker's own ("i'm
    off")."""
    said = [w for w in words if w not in PUNCTUATION]
    if left_out_content(words, range(len(words))) is not None:
        return True
    return len(said) > 1 and not says_nothing(said) and said[0] not in SPEAKER


def _wish_frame(words: list[str]) -> set[int]:
    """The words of a wish said before a verbless request ("i'd love it if …"), as a frame;
    none when they report speech ("someone told me you'd stacked …")."""
    wished = wish(words)
    return set() if reported_speech(words, sorted(wished)) else wished


def _refuse_unknown_verbs(draft: Draft, refusal: UnparseableError) -> None:
    """Refuse a text whose verb is a word the lexicon lacks: a statement's ("the red block
    covers the green block": ``refusal``, the grammar's own) or a clause's ("wash the blue
    block, then put it in the box"); a word it lacks that acts on a noun phrase ("cover it")
    is refused where a reading leaves it out (:meth:`Draft.reading`); such a
    word cannot be left out as saying nothing."""
    if draft.unknown & statement_verbs(draft.words):
        raise refusal
    slots = verb_slots(draft.words) - dismissals(draft.words)  # "forget the boxes, just put"
    unknown_verb = min(draft.unknown & slots, default=None)
    if unknown_verb is not None:
        said = draft.words[unknown_verb]
        raise UnparseableError(f"cannot read {said!r}: no action the claws know; {VERBS_ALLOWED}")


def _headed_reading(draft: Draft, check: Check | None, ahead: bool = False) -> Reading | None:
    """The request whose verb comes before a colon and what it acts on after it, read as one
    (:func:`claw.planner.language.indirect.headed`: "make a tower: red at the bottom, ..."), if any;
    ``ahead``: only where a pronoun before the colon refers to what follows it ("stack them:
    red on the bottom, ..."), which the grammar would read as the objects named before."""
    heading = headed(draft.words, verb_words())
    if heading is None or (ahead and not {draft.words[i] for i in heading.dropped} & CATAPHORS):
        return None
    return _first_reading(draft, set(), check, [(list(range(len(draft.words))), heading)])


def _placements_alone(draft: Draft, check: Check | None) -> Reading | None:
    """The placements the text names, read alone, when they are all it names
    (:mod:`claw.planner.language.shallow`); every other word is reported left out."""
    text = placements(draft.words, draft.unknown)
    requests = _attempt(text, check) if text is not None else None
    if requests is None or text is None:
        return None
    said = set(text.split())
    left_out = {i for i, w in enumerate(draft.words) if i in draft.unknown or w not in said}
    if draft.unread_content(left_out) is not None:  # "if it rains, ...", "yesterday ..."
        return None
    ignored = [draft.words[i] for i in sorted(left_out)]
    return Reading(requests, tuple(ignored), tuple(draft.corrected))


def _adjunct_reading(words: list[str], check: Check | None) -> Reading | None:
    """The reading of an instruction's casual ``words`` with a closing "on the table" left out
    (:func:`table_adjuncts`), where it has one and that reads; else ``None``."""
    adjunct = table_adjuncts(words)
    if not adjunct:
        return None
    draft = Draft(words, framed=set(adjunct))
    requests = _attempt(draft.text(adjunct), check)
    return None if requests is None else draft.reading(requests, adjunct)


def _by_parts(draft: Draft, scene_words: Collection[str], check: Check | None) -> Reading | None:
    """Each part (between full stops, "then", "after that") read on its own, when there are
    several: "can the red block be moved into the box, then stack the green one on it". A part
    is read in the context of those before it ("it"); one that does not read is left out when
    it names nothing, read with the next when it is only objects ("the blue block. put it next
    to the red box"); None when another does not read."""
    text = draft.text()
    parts = split_parts(text) if text else []
    if not 2 <= len(parts) <= MAX_PARTS_ALONE or draft.unread_content(set()) is not None:
        return None  # the words it lacks are left out of every part: "scratch that"
    requests: list[Request] = []
    ignored: list[str] = [draft.words[i] for i in sorted(draft.unknown)]
    corrected: list[Change] = list(draft.corrected)
    turn, joined = 0, -1  # the part a part that did not read was joined to
    for k, part in enumerate(parts):
        try:
            reading = read_instruction(part, scene_words, _in_context(check, list(requests)))
        except UnparseableError:
            words = casual_words(part)
            empty = not has_content(words, range(len(words)))
            if empty and _a_clause_unread(words):
                return None  # "..., then feed the fish", "... scratch that": a part of its own
            if empty or (k + 1 < len(parts) and _collective_heading(words)):
                ignored.extend(words)
            elif k + 1 < len(parts) and k != joined and reads_as_objects(part):  # "the blue
                parts[k + 1], joined = f"{part} , {parts[k + 1]}", k + 1  # block. put it …"
            elif k + 1 < len(parts) and (seen := described(words)):  # "there's a red block."
                requests.append(Request(action="note", objects=seen, text=part, turn=turn))
            elif stated(words):  # "your arm is empty.": the scene says what is
                ignored.extend(words)
            else:
                return None
            continue
        requests += [r.model_copy(update={"turn": turn}) for r in reading.requests]
        turn += 1
        ignored.extend(reading.ignored)
        corrected.extend(reading.corrected)
    asked = any(r.action != "note" for r in requests)  # each part's reading was checked
    return Reading(requests, tuple(ignored), tuple(corrected)) if asked else None


_COLLECTIVE = {"them", "everything", *(w for w in lexicon.GENERIC_HEADS if w.endswith("s")),
               *(w + "s" for w in lexicon.TYPE_WORDS)}  # fmt: skip


def _collective_heading(words: list[str]) -> bool:
    """Whether a part asks to move objects named together without saying where, before parts
    that do ("your goal is to move the blocks. the blue block should be on the red block."):
    the heading of what follows."""
    verbs = verb_words()
    after = [*words[1:], ""]
    said = {w for w, nxt in zip(words, after, strict=True) if (w, nxt in verbs) != ("to", True)}
    placeless = not said & {*lexicon.PLACE_LEADS, *lexicon.COLOR_WORDS, *lexicon.NEGATIONS}
    return placeless and bool(said & _COLLECTIVE) and bool(said & verbs)  # "to move": no place


MAX_SOFT_SPOTS = 16
"""The most soft words a text may have for one (or two side by side) to be tried left out."""
MAX_PARTS_ALONE = 6
"""The most parts an instruction that does not read whole is read in, part by part (each part
is a whole reading of its own: more would let one instruction cost seconds)."""


def _in_context(check: Check | None, before: list[Request]) -> Check | None:
    """``check`` of requests read after ``before`` (which name what their "it" means)."""
    return None if check is None else lambda found: check([*before, *found])


def _corrected(
    draft: Draft, base: set[int], hedges: set[int], check: Check | None, verbless: bool = False
) -> Reading | None:
    """The last self-correction applied (:mod:`claw.planner.language.corrections`: "put it in the
    blue box, no wait, the red box"), if one reads; its markers may be unknown words or hedges. A
    ``verbless`` text is a placement ("yellow in the blue box. no wait, the red box")."""
    said = [i for i in range(len(draft.words)) if i not in base]
    found = corrections([draft.words[i] for i in said], verb_words())
    if verbless:
        found = (replace(r, words=["put", *r.words]) for r in found)
    skipped = {draft.words[i] for i in draft.unknown | hedges}
    return _first_reading(draft, base | hedges, check, ((said, r) for r in found), skipped)


def _indirect(
    draft: Draft, base: set[int], hedges: set[int], check: Check | None
) -> Reading | None:
    """A passive or causative read as the direct request, else a wanted state after "make
    sure" read as a place (:mod:`claw.planner.language.indirect`); None when none reads. Hedges are
    left out of the passive; a wanted state's "so" may be one ("make it so")."""
    participles = verb_forms("participle")
    unknown = {i for i in draft.unknown if draft.words[i] not in participles}
    kept = [i for i in range(len(draft.words)) if i not in unknown | base | hedges]
    words = [draft.words[i] for i in kept]
    rewrites = (
        active(words, names),
        causative(words, names),
        outcome(words, names),
        fronted(words, verb_words()),
        topic(words, verb_words(), names),
        holder(words, names),
        unwanted(words, names),
        run_on(words, verb_words()),
        verb_last(words, verb_words()),
    )
    found = ((kept, r) for r in rewrites if r)
    reading = _first_reading(draft, base | hedges, check, found)
    if reading is not None:
        return reading
    kept = [i for i in range(len(draft.words)) if i not in draft.unknown | base]
    state = {kept[i] for i in wanted_state([draft.words[i] for i in kept], names)}
    if state:
        requests = _attempt(f"put {draft.text(base | hedges | state)}", check)
        if requests is not None:
            return draft.reading(requests, base | hedges | state)
    return None


def _first_reading(
    draft: Draft,
    dropped: set[int],
    check: Check | None,
    rewrites: Iterable[tuple[list[int], Rewrite]],
    skipped: Collection[str] = (),
) -> Reading | None:
    """The reading of the first rewrite that reads (as it is, or with soft words left out),
    reported against the typed words: ``dropped`` and the rewrite's own left out, a participle
    read as its verb. ``skipped``: words to leave out of the rewritten text."""
    participles = verb_forms("participle")
    for indices, rewrite in rewrites:
        rewritten = Draft([w for w in rewrite.words if w not in skipped])
        requests = _attempt(rewritten.text(), check)
        also: tuple[str, ...] = ()
        if requests is None:  # "make red block go to the right side, thanks you"
            soft = _without_soft_words(rewritten, set(), check)
            if soft is None:
                continue
            requests, also = soft.requests, soft.ignored
        framed = {indices[i] for i in rewrite.dropped}  # the rewrite's frame: read
        left_out = draft.unknown | dropped | framed
        if draft.unread(dropped | framed) or draft.unread_content(dropped, framed):
            continue  # a word it lacks that acts, or content, left out
        corrected = list(draft.corrected)
        if rewrite.participle is not None:  # read as its verb
            left_out.discard(indices[rewrite.participle])
            typed = draft.words[indices[rewrite.participle]]
            corrected = [c for c in corrected if c[0] != typed]
            corrected += [] if participles[typed] == typed else [Change(typed, participles[typed])]
        ignored = [draft.words[i] for i in sorted(left_out)]
        return Reading(requests, (*ignored, *also), tuple(corrected))
    return None
