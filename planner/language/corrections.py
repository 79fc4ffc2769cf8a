"""Self-corrections, read as the request meant: "put the green block in the blue box... no wait,
the red box" is "put the green block in the red box"; "move it to the left of the yellow block,
sorry, I meant to the right of it" is "move it to the right of the yellow block"; a whole new
request after "actually no," replaces the one before it.

A correction starts at a marker (:data:`MARKERS`: "no", "wait", "sorry", "I meant", "actually",
...) after a comma, a full stop, a dash or an ellipsis (anywhere, for a marker of two words and
"sorry") and ends with its part (at "then", a full stop). It replaces the end of what came
before, from the last word of the same kind as its first (a determiner for a noun phrase, a
relation word for a place); a whole request replaces everything before, its "it" the objects
moved there.

API::

    corrections(words)  # [Rewrite(words=[...], dropped={...}), ...], best first
"""

from __future__ import annotations

from collections.abc import Iterator

from claw.planner.language import lexicon
from claw.planner.language.indirect import Rewrite
from claw.planner.language.parsing import part_spans

__all__ = ["MARKERS", "corrections"]

MARKERS = (("no", "wait"), ("wait", "no"), ("no",), ("wait",), ("sorry",), ("oops",),
           ("i", "meant"), ("i", "mean"), ("actually",), ("rather",), ("or", "rather"),
           ("make", "that"), ("scratch", "that"), ("correction",))  # fmt: skip
"""What starts a correction of what was just said (one after another: "sorry, I meant")."""
_BOUNDARIES = {",", ".", ";", "-", "!", "?", "..."}
_PRONOUNS = {"it", "them"}
_SAID_ALONE = {"sorry", "oops"}
_ARTICLES = lexicon.DEFINITE | lexicon.INDEFINITE


def _kind(word: str) -> str:
    """The kind of phrase a word starts: a noun phrase, a place, or other."""
    if word in _ARTICLES or word in lexicon.UNIVERSAL:
        return "noun"
    if word in lexicon.RELATION_LEADS:
        return "place"
    return word


def _unmistakable(words: list[str], i: int) -> bool:
    """Whether a marker starts at ``i`` that needs no comma before it ("in the blue box no
    wait the red box"): one of two words, or "sorry" / "oops"."""
    return any(
        tuple(words[i : i + len(m)]) == m and (len(m) > 1 or m[0] in _SAID_ALONE) for m in MARKERS
    )


def _marker_end(words: list[str], i: int) -> int | None:
    """Where the markers starting at ``i`` end (after any commas), None when none starts."""
    j = i
    while True:
        found = next((m for m in MARKERS if tuple(words[j : j + len(m)]) == m), None)
        if found is None:
            break
        j += len(found)
        while j < len(words) and words[j] in _BOUNDARIES:
            j += 1
    return j if j > i else None


def _marker_ending_at(words: list[str], end: int) -> tuple[str, ...] | None:
    """The marker that ends right before ``end`` (a word before it), if one does."""
    return next(
        (m for m in MARKERS if end > len(m) and tuple(words[end - len(m) : end]) == m), None
    )


def corrections(words: list[str], verbs: frozenset[str]) -> Iterator[Rewrite]:
    """The readings of ``words`` with its last correction applied, most likely first; none when
    it has no correction. ``verbs``: the verbs that start a whole request."""
    start = next(
        (i for i in reversed(range(1, len(words)))
         if (words[i - 1] in _BOUNDARIES or _unmistakable(words, i))
         and _marker_end(words, i) is not None),
        None,
    )  # fmt: skip
    if start is None:
        return
    while prior := _marker_ending_at(words, start):  # "actually make that ...": both markers
        start -= len(prior)
    end = _marker_end(words, start)
    assert end is not None
    before = list(range(start - 1))
    while before and words[before[-1]] in _BOUNDARIES:
        before.pop()
    later = end + _first_part_end(words[end:])  # what follows the correction's own part
    after = [w for w in words[end:later] if w != "instead"]
    if not after or not before:
        return
    markers = set(range(before[-1] + 1, end)) | {i for i in range(end, later)
                                                 if words[i] == "instead"}  # fmt: skip
    if after[0] in verbs:  # a whole new request: its "it" is what the old one moved
        moved = _objects(words[: before[-1] + 1])
        yield Rewrite([*_with_referent(after, moved), *words[later:]], set(before) | markers)
        return
    alike = [j for j in reversed(before) if _kind(words[j]) == _kind(after[0])]
    meant = _type(after, 0)
    fits = [j for j in alike if _type(words, j) in (meant, None)]  # "the red": of any type
    same = [j for j in fits if words[j] == after[0]]
    for j in dict.fromkeys([*same, *fits, *alike]):
        end = _phrase_end(words, j, before[-1] + 1) if _kind(after[0]) == "noun" else before[-1] + 1
        replaced = words[j:end]
        kept = [*words[:j], *_with_referent(after, _last_noun_phrase(replaced)),
                *words[end : before[-1] + 1], *words[later:]]  # fmt: skip
        yield Rewrite(kept, set(range(j, end)) | markers)


def _first_part_end(words: list[str]) -> int:
    """Where the first part of ``words`` ends: at its strong separator ("then", a full stop),
    which a correction does not reach past; all of them when there is none."""
    spans = part_spans(" ".join(words))
    return spans[0][1] if len(spans) > 1 else len(words)


def _phrase_end(words: list[str], start: int, limit: int) -> int:
    """Where the noun phrase at ``start`` ends: at the next relation word (not one after an
    article: "the right side") or mark."""
    return next((k for k in range(start + 1, limit)
                 if (_kind(words[k]) == "place" and words[k - 1] not in _ARTICLES)
                 or words[k] in _BOUNDARIES), limit)  # fmt: skip


def _type(words: list[str], start: int) -> str | None:
    """The object type the phrase at ``start`` names (its first type word before a relation
    word or a mark), if any: a block is corrected by a block, a box by a box."""
    for word in words[start + 1 :]:
        if word in lexicon.TYPE_WORDS:
            return lexicon.TYPE_WORDS[word]
        if _kind(word) == "place" or word in _BOUNDARIES:
            break
    return None


def _last_noun_phrase(words: list[str]) -> list[str]:
    """The words from the last determiner on ("to the left of the yellow block": "the yellow
    block"); none when there is no determiner."""
    starts = [k for k, w in enumerate(words) if _kind(w) == "noun"]
    return words[starts[-1] :] if starts else []


def _objects(words: list[str]) -> list[str]:
    """The first noun phrase of a request: from its first determiner to the next relation
    word or mark ("put the red block in the blue box": "the red block")."""
    first = next((k for k, w in enumerate(words) if _kind(w) == "noun"), None)
    if first is None:
        return []
    return words[first : _phrase_end(words, first, len(words))]


def _with_referent(after: list[str], phrase: list[str]) -> list[str]:
    """``after`` with "it" / "them" written out as ``phrase`` (unchanged without one)."""
    if not phrase:
        return after
    return [x for w in after for x in (phrase if w in _PRONOUNS else [w])]
