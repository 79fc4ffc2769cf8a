"""``claw bench words``: how well words the lexicon lacks are grounded by meaning.

A word list (``eval/suites/words_*.yaml``) holds ``{word, pos, means}`` entries: the word, where
it stands (a position of :data:`claw.planner.language.meaning.POSITIONS`, or a category) and the
target it means, or ``null`` for a distractor that must be refused. Each word is grounded with
:func:`claw.planner.language.meaning.ground_word`'s mechanism and counted: a right or wrong match, a
refusal of a real word, a distractor refused or matched. Words the lexicon itself knows are counted
apart (they measure nothing). Lookups are timed warm (the model and the prototypes loaded; each word
new), and the first answer of a process (the model and the prototypes loaded) on its own.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Literal, get_args

import numpy as np
from pydantic import BaseModel, ValidationError

from claw.envs.exceptions import PredicateError
from claw.envs.regions import resolve_region
from claw.envs.yamlfile import read_yaml
from claw.eval.exceptions import InvalidSuiteError
from claw.eval.suite import SUITES_DIR, suite_path
from claw.planner.exceptions import PlannerUnavailableError
from claw.planner.language import lexicon
from claw.planner.language.meaning import (
    MARGIN,
    THRESHOLD,
    Candidate,
    Category,
    WordGrounder,
    categories_of,
    grounder,
    prototypes,
)

WORD_LISTS = "words_*.yaml"
"""The shipped word lists in ``eval/suites`` (no suites: ``claw eval`` does not read them)."""
Outcome = Literal["correct", "wrong", "refused", "correct_refusal", "false_match", "known"]
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)


class WordEntry(BaseModel):
    """One word of a list, its position's categories and the target it means (None: none)."""

    word: str
    pos: str
    means: str | None = None
    categories: tuple[Category, ...] = ()
    reachable: bool = True  # its meaning is of a category its position allows


class WordOutcome(BaseModel):
    """How one word was grounded."""

    word: str
    pos: str
    means: str | None
    got: str | None
    score: float | None
    outcome: Outcome
    reachable: bool = True  # its meaning is of a category its position allows


class ListScore(BaseModel):
    """One list's figures; ``known``: words the lexicon has (not counted in the rest);
    ``outside_position``: words whose meaning their position rules out (counted: they can only
    be refused or matched wrongly)."""

    name: str
    n: int
    with_meaning: int
    distractors: int
    correct: int
    wrong: int
    refused: int
    correct_refusals: int
    false_matches: int
    known: int
    outside_position: int  # meant a target of a category their position does not allow
    lookup_p50_ms: float  # the lookups of the unknown words (each new), warm
    lookup_p95_ms: float
    by_pos: dict[str, dict[str, int]]  # each position's outcomes
    mistakes: list[WordOutcome]


class WordBench(BaseModel):
    """The lists' figures, the thresholds they were judged with and the first load's time."""

    threshold: float
    margin: float
    cold_load_s: float
    prototypes_from_disk: bool
    cached_lookup_us: float
    lists: list[ListScore]


@cache
def lexicon_words() -> frozenset[str]:
    """Every word and phrase in the lexicon's tables (the constants of
    ``claw.planner.language.lexicon``), and each word of them: a list's word among them is no
    unknown word."""
    found: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.add(" ".join(value.lower().split()))
            found.update(value.lower().split())
        elif isinstance(value, dict):
            walk(list(value.items()))
        elif isinstance(value, (tuple, list, set, frozenset)):
            for item in value:
                walk(item)

    walk([value for name, value in vars(lexicon).items() if name.isupper()])
    return frozenset(found)


def default_word_lists() -> list[str]:
    """The word lists shipped with claw."""
    return sorted(str(path) for path in SUITES_DIR.glob(WORD_LISTS))


def _target(means: str) -> tuple[str, Category]:
    """The target ``means`` names and its category ("next to", "grey", "top left corner" read as
    the lexicon reads them).

    Raises:
        ValueError: no target; the message lists them.
    """
    key = " ".join(means.lower().replace("_", " ").split())
    for category, targets in prototypes().items():
        for target, words in targets.items():
            if key == target.replace("_", " ") or key in words:
                return target, category
    try:
        return resolve_region(key), "region"
    except PredicateError:
        allowed = ", ".join(t for targets in prototypes().values() for t in targets)
        raise ValueError(f"means {means!r} is no target; allowed: {allowed} or null") from None


def load_word_list(source: str | Path) -> tuple[str, list[WordEntry]]:
    """A word list's name and entries, each with its categories and its target resolved.

    Raises:
        InvalidSuiteError: unreadable, not YAML, or an entry with no word, an unknown position
            or a meaning that is no target of its position; the message names the entry.
    """
    path = suite_path(source)
    try:
        data = read_yaml(path)
    except Exception as exc:
        raise InvalidSuiteError(f"word list {path} cannot be read: {exc}".splitlines()[0]) from None
    rows = data.get("words") if isinstance(data, dict) else data
    if not isinstance(rows, list):
        raise InvalidSuiteError(f"word list {path}: expected a list of words (or 'words:')")
    entries = []
    for i, row in enumerate(rows):
        try:
            entry = WordEntry.model_validate(row)
            entry.categories = categories_of(entry.pos)
            if entry.means is not None:
                entry.means, category = _target(entry.means)
                entry.reachable = category in entry.categories
        except (ValidationError, ValueError) as exc:
            problem = str(exc).splitlines()[-1 if isinstance(exc, ValidationError) else 0]
            raise InvalidSuiteError(f"word list {path}: entry {i + 1}: {problem}") from None
        entries.append(entry)
    name = data.get("name") if isinstance(data, dict) else None
    return str(name or path.stem), entries


def judge_word(
    entry: WordEntry, found: Sequence[Candidate], threshold: float, margin: float
) -> WordOutcome:
    """The outcome of one entry given its scored targets."""
    best = found[0] if found else None
    lead = best.score - (found[1].score if len(found) > 1 else 0.0) if best else 0.0
    got = best.target if best and best.score >= threshold and lead >= margin else None
    outcome: Outcome
    if " ".join(entry.word.lower().split()) in lexicon_words():
        outcome = "known"
    elif entry.means is None:
        outcome = "false_match" if got else "correct_refusal"
    else:
        outcome = "refused" if got is None else "correct" if got == entry.means else "wrong"
    return WordOutcome(
        word=entry.word,
        pos=entry.pos,
        means=entry.means,
        got=got,
        score=best.score if best else None,
        outcome=outcome,
        reachable=entry.reachable,
    )


def _counts(outcomes: Iterable[WordOutcome]) -> dict[str, int]:
    """How many words had each outcome."""
    done = [w.outcome for w in outcomes]
    return {o: done.count(o) for o in OUTCOMES}


def score_list(
    name: str, outcomes: Iterable[WordOutcome], times_ms: Sequence[float] = ()
) -> ListScore:
    """A list's counts from its words' outcomes."""
    done = list(outcomes)
    count = _counts(done)
    judged = [w for w in done if w.outcome != "known"]
    return ListScore(
        name=name,
        n=len(judged),
        with_meaning=sum(1 for w in judged if w.means is not None),
        distractors=sum(1 for w in judged if w.means is None),
        correct=count["correct"],
        wrong=count["wrong"],
        refused=count["refused"],
        correct_refusals=count["correct_refusal"],
        false_matches=count["false_match"],
        known=count["known"],
        outside_position=sum(1 for w in judged if not w.reachable),
        lookup_p50_ms=round(float(np.percentile(times_ms, 50)), 2) if times_ms else 0.0,
        lookup_p95_ms=round(float(np.percentile(times_ms, 95)), 2) if times_ms else 0.0,
        by_pos={
            pos: {o: n for o, n in _counts(w for w in judged if w.pos == pos).items() if n}
            for pos in dict.fromkeys(w.pos for w in judged)
        },
        mistakes=[w for w in done if w.outcome in ("wrong", "false_match")],
    )


def bench_words(
    lists: Sequence[str] | None = None, word_grounder: WordGrounder | None = None
) -> WordBench:
    """Every list's figures with the shipped thresholds (default lists: those shipped).

    Raises:
        InvalidSuiteError: a list that cannot be read (see :func:`load_word_list`).
        PlannerUnavailableError: the embedder cannot be loaded (its package missing).
    """
    loaded = [load_word_list(source) for source in (lists or default_word_lists())]
    used = word_grounder or grounder()
    start = time.perf_counter()  # to the first word's answer: the model, the prototypes
    if not used.load():
        raise PlannerUnavailableError(
            f"grounding words by meaning is unavailable: {used.unavailable}"
        )
    used.candidates("zyxwv", "noun")
    cold = time.perf_counter() - start
    scores, cached = [], []
    for name, entries in loaded:
        used.forget()  # each list's words looked up anew
        outcomes, times = [], []
        for entry in entries:
            start = time.perf_counter()
            found = used.candidates(entry.word, entry.categories)
            took = (time.perf_counter() - start) * 1000
            start = time.perf_counter()
            used.candidates(entry.word, entry.categories)
            cached.append((time.perf_counter() - start) * 1e6)
            outcomes.append(judge_word(entry, found, THRESHOLD, MARGIN))
            if outcomes[-1].outcome != "known":  # an unknown word: the lookups timed
                times.append(took)
        scores.append(score_list(name, outcomes, times))
    return WordBench(
        threshold=THRESHOLD,
        margin=MARGIN,
        cold_load_s=round(cold, 2),
        prototypes_from_disk=used.prototypes_from_disk,
        cached_lookup_us=round(float(np.median(cached)), 1) if cached else 0.0,
        lists=scores,
    )


class ThresholdChoice(BaseModel):
    """The thresholds a sweep chose, the objective they reach and their counts."""

    threshold: float
    margin: float
    objective: float
    counts: dict[str, int]


WRONG_COST = 2.0
"""A wrong or false match costs this many right ones: a wrong plan is worse than a refusal."""


def sweep_thresholds(
    judged: Sequence[tuple[WordEntry, Sequence[Candidate]]],
    thresholds: Sequence[float] = tuple(np.round(np.arange(0.30, 0.901, 0.005), 3)),
    margins: Sequence[float] = tuple(np.round(np.arange(0.0, 0.201, 0.005), 3)),
) -> ThresholdChoice:
    """The threshold and margin that maximise right matches minus :data:`WRONG_COST` times
    wrong and false ones; of the pairs that tie, the median threshold, then the median margin
    among the best at that threshold (the middle of the plateau, not its edge)."""
    base = [judge_word(e, f, 0.0, 0.0) for e, f in judged]
    kept = [(e, f) for (e, f), o in zip(judged, base, strict=True) if o.outcome != "known" and f]
    score = np.array([f[0].score for _, f in kept])
    lead = np.array([f[0].score - (f[1].score if len(f) > 1 else 0.0) for _, f in kept])
    real = np.array([e.means is not None for e, _ in kept])
    right = np.array([f[0].target == e.means for e, f in kept])
    grid: dict[tuple[float, float], dict[str, int]] = {}
    for threshold, margin in itertools.product(thresholds, margins):
        taken = (score >= threshold) & (lead >= margin)
        grid[(threshold, margin)] = {
            "correct": int((taken & right).sum()),
            "wrong": int((taken & real & ~right).sum()),
            "refused": int((~taken & real).sum()),
            "correct_refusal": int((~taken & ~real).sum()),
            "false_match": int((taken & ~real).sum()),
        }

    def value(counts: dict[str, int]) -> float:
        return counts["correct"] - WRONG_COST * (counts["wrong"] + counts["false_match"])

    top = max(value(counts) for counts in grid.values())
    best = sorted(pair for pair, counts in grid.items() if value(counts) == top)
    levels = sorted({t for t, _ in best})
    threshold = levels[(len(levels) - 1) // 2]
    at = [m for t, m in best if t == threshold]
    margin = at[(len(at) - 1) // 2]
    return ThresholdChoice(
        threshold=threshold, margin=margin, objective=top, counts=grid[(threshold, margin)]
    )
