"""Sure or silent: what a clause's reading leaves out of the clause, and whether that carries
content.

The grammar reads a clause into a :class:`~claw.planner.forms.Request`: its noun phrases
(:class:`~claw.planner.forms.Reference`, each with the words it was read from), the verb, and
the place, push or tower it asks for. :func:`unread_part` takes the noun phrases' words out of
the clause and looks at what is left for content that no field of the request holds: an
object phrase, a place phrase where the request has no place ("stack them on top of each other
in the blue box"), a negation or a condition. Such a reading is refused (the grammar raises
``unparseable`` naming the part), so that a reader that keeps only part of a clause is never
run.

API::

    unread_part(request)   # None, or "the place 'in the blue box'"
"""

from __future__ import annotations

from claw.planner import lexicon
from claw.planner.chatter import SUBORDINATORS
from claw.planner.forms import Reference, Request
from claw.planner.parsing import tokens

__all__ = ["CONDITIONS", "unread_part"]

CONDITIONS = frozenset({*SUBORDINATORS, "unless", "until"})
"""Words that make what follows them a condition on the request."""
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
