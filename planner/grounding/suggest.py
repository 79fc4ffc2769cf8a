"""Refusals that help: instructions the reader does read, closest to one it refused.

:func:`suggest` builds candidates from the words it read — the verb, the objects its colour
and type words name on the live scene (each named as a user would say it, :mod:`naming`),
the relation or region said — reads each back through the offline planner, and keeps the
closest that read, by the words they share with the request.

API::

    suggest("put the shiny red block in the box", world, names, reads)
    # [Suggestion(instruction="put the red block in the blue box", goal=[...]), ...]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict

from claw.common.exceptions import ClawError
from claw.envs.regions import REGIONS
from claw.envs.state import WorldState
from claw.envs.tabletop import TabletopEnv
from claw.planner.grounding.naming import spoken
from claw.planner.language import lexicon
from claw.planner.language.draft import casual_words, draft_of
from claw.planner.language.grammar import MAX_INSTRUCTION_CHARS, normalise

__all__ = ["MAX_SUGGESTIONS", "Suggestion", "help_with", "suggest"]

MAX_SUGGESTIONS = 3
"""The most suggestions a refusal offers."""
MAX_TRIED = 16
"""The most candidates read back for one refusal (each is a whole reading)."""


class Suggestion(BaseModel):
    """An instruction the reader reads on this scene, and the goal it reads it as."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    instruction: str
    goal: list[str]


Reads = Callable[[str], "list[str] | None"]
"""The goal the offline planner reads an instruction as on this scene, or None (refused)."""

_VERBS = {"v_place": "put", "v_pick": "pick up", "v_push": "push", "v_stack": "stack"}
_PHRASES = {"on": "on", "in": "in", "next_to": "next to", "left_of": "to the left of",
            "right_of": "to the right of", "behind": "behind",
            "in_front_of": "in front of"}  # fmt: skip
_DIRECTIONS = {"left": "to the left", "right": "to the right", "forward": "forward",
               "back": "back", "far": "forward", "near": "back"}  # fmt: skip


def help_with(refusal: ClawError, instruction: str, env: TabletopEnv, reads: Reads) -> None:
    """Give ``refusal`` what was read of ``instruction`` (``read``: the verb, the objects and
    the place said, as the reader names them) and :func:`suggest`'s instructions
    (``suggestions``). An instruction with no letters, or over the reader's cap, gets none."""
    if not re.search(r"[A-Za-z]", instruction) or len(instruction) > MAX_INSTRUCTION_CHARS:
        return
    world = env.world_state()
    names = list(env.object_names)
    seen = {s for n in names for s in (world.get(n).color, world.get(n).type) if s}
    try:
        words = draft_of(instruction, seen).words
    except ClawError:  # a word it could not decide between: the words as typed
        words = casual_words(normalise(instruction))
    candidates = getattr(refusal, "candidates", ())
    refusal.suggestions = tuple(suggest(words, world, names, reads, candidates))
    refusal.read = tuple(read_parts(words, world, names))


def read_parts(words: Sequence[str], world: WorldState, names: Sequence[str]) -> list[str]:
    """What of the request's ``words`` the reader read: its verb, the objects its colour
    and type words name, and the places it says."""
    verb = _verb(words) if any(_verb_at(words, i) for i in range(len(words))) else None
    said = [] if verb is None else [verb]
    for i, word in enumerate(words):  # a colour names its objects; a type alone, itself
        kind = lexicon.TYPE_WORDS.get(word)
        if word in lexicon.COLOR_WORDS:
            said += [spoken(n, world, names) for n in _mentioned(words[i : i + 3], world, names)]
        elif kind is not None and not (i and words[i - 1] in lexicon.COLOR_WORDS):
            said.append(f"the {kind}")
    said = list(dict.fromkeys(said))
    said += [_PHRASES[r] for r in _relations(words)] + [f"the {r}" for r in _regions(words)]
    return said


def suggest(
    words: Sequence[str],
    world: WorldState,
    names: Sequence[str],
    reads: Reads,
    candidates: Sequence[str] = (),
) -> list[Suggestion]:
    """Up to :data:`MAX_SUGGESTIONS` instructions close to the request's ``words`` that
    ``reads`` reads on this scene, each with its goal, closest first.

    Args:
        words: The request's words, as the reader tokenised and spelled them.
        names: The scene's objects.
        reads: The offline planner's reading of a text on this scene (its goal, or None).
        candidates: The objects an ambiguous phrase could be (each is tried by name).
    """
    found: list[Suggestion] = []
    for text in _ranked(words, world, names, candidates)[:MAX_TRIED]:
        if len(found) >= MAX_SUGGESTIONS:
            break
        goal = reads(text)
        if goal is not None and all(goal != s.goal for s in found):
            found.append(Suggestion(instruction=text, goal=goal))
    return found


def _ranked(
    words: Sequence[str], world: WorldState, names: Sequence[str], candidates: Sequence[str]
) -> list[str]:
    """The candidate instructions, by how many of the objects the request named they keep,
    then by the share of their words the request said."""
    said = set(words)
    named = [spoken(n, world, names) for n in _mentioned(words, world, names)]
    texts = list(dict.fromkeys(_candidates(words, world, names, candidates)))

    def closeness(text: str) -> tuple[int, float]:
        kept = sum(name in text for name in named)
        return -kept, -len(said & set(text.split())) / (1 + len(text.split()))

    return sorted(texts, key=closeness)


def _candidates(
    words: Sequence[str], world: WorldState, names: Sequence[str], candidates: Sequence[str]
) -> list[str]:
    """Every instruction built from the request's verb, objects and place on this scene."""
    said = _mentioned_at(words, world, names)
    place = next((i for i, w in enumerate(words) if w in lexicon.PLACE_LEADS), len(words))
    boxes = [n for n in names if world.get(n).type == "box"]
    blocks = [n for n in names if n not in boxes]
    moved = [n for i, n in said if n in blocks and i < place]  # named before the place
    placed = {n for i, n in said if i >= place}  # named after it: where things go
    movers = [n for n in candidates if n in blocks] or (
        moved or [n for n in blocks if n not in placed] or blocks
    )[:3]
    targets = [n for n in candidates if n not in movers] or [n for _, n in said if n not in movers]
    targets = list(dict.fromkeys([*targets, *boxes[:2], *blocks[:3]]))[:4]
    verb = _verb(words)
    say = {n: spoken(n, world, names) for n in names}
    if verb == "pick up":
        return [f"pick up {say[m]}" for m in movers]
    if verb == "push":
        way = next((_DIRECTIONS[w] for w in words if w in _DIRECTIONS), "to the left")
        return [f"push {say[m]} {way}" for m in movers]
    regions = _regions(words)
    texts = [f"{verb} {say[m]} {_at(r)}" for m in movers for r in regions]
    for relation in [*_relations(words), "in", "on", "next_to"]:
        for m in movers:
            texts += [f"{verb} {say[m]} {_PHRASES[relation]} {say[t]}" for t in targets if t != m]
    return texts + [f"pick up {say[m]}" for m in movers]  # where nothing else is to go by


def _mentioned(words: Sequence[str], world: WorldState, names: Sequence[str]) -> list[str]:
    """The objects the request's colour and type words name, in the order said."""
    return [n for _, n in _mentioned_at(words, world, names)]


def _mentioned_at(
    words: Sequence[str], world: WorldState, names: Sequence[str]
) -> list[tuple[int, str]]:
    """The objects the request's colour and type words name, and where each is first said."""
    found: list[tuple[int, str]] = []
    for i, word in enumerate(words):
        colour = lexicon.COLOR_WORDS.get(word)
        kind = lexicon.TYPE_WORDS.get(word)
        if colour is not None:  # "red", with the type said within two words
            kind = next((lexicon.TYPE_WORDS[w] for w in words[i + 1 : i + 3]
                         if w in lexicon.TYPE_WORDS), None)  # fmt: skip
        elif kind is None or (i and words[i - 1] in lexicon.COLOR_WORDS):
            continue
        seen = {n for _, n in found}
        found += [(i, n) for n in names if _is(world, n, colour, kind) and n not in seen]
    return found


def _is(world: WorldState, name: str, colour: str | None, kind: str | None) -> bool:
    obj = world.get(name)
    return (colour is None or obj.color == colour) and (kind is None or obj.type == kind)


def _verb(words: Sequence[str]) -> str:
    """The request's verb, as the one of its class the reader reads plainest."""
    for i in range(len(words)):
        kind = _verb_at(words, i)
        if kind == "v_pick" and any(w in _PLACE_LEADS for w in words[i:]):
            return "put"  # "take the red block to the box": a place
        if kind is not None:
            return _VERBS.get(kind, "put")
    return "put"


def _verb_at(words: Sequence[str], i: int) -> str | None:
    """The class of the verb the request says at ``i``, if one starts there."""
    for kind, verbs in lexicon.VERB_CLASSES.items():
        if any(tuple(v.split()) == tuple(words[i : i + len(v.split())]) for v in verbs):
            return kind
    return None


_PLACE_LEADS = lexicon.PLACE_LEADS - {"to"}


def _relations(words: Sequence[str]) -> list[str]:
    """The relations the request's phrases name, in the order said."""
    text = f" {' '.join(words)} "
    said = [(text.find(f" {p} "), r) for p, r in lexicon.RELATION_PHRASES if f" {p} " in text]
    return list(dict.fromkeys(r for _, r in sorted(said) if r in _PHRASES))


def _regions(words: Sequence[str]) -> list[str]:
    """The table regions the request names ("the left side", "the far left corner")."""
    text = " ".join(words)
    return [r for r in REGIONS if r in text]


def _at(region: str) -> str:
    return f"at the {region}" if region == "center" else f"on the {region}"
