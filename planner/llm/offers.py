"""What a model's prompt offers for an instruction: the skills of its catalogue and the learned
composites closest to it."""

from __future__ import annotations

from claw.common.exceptions import ClawError
from claw.library import CompositeBody, Composites, SkillLibrary
from claw.skills import skill_names

Offered = list[tuple[str, str, CompositeBody]]
"""Composites offered: (name, description, body)."""


def catalogue(instruction: str, arms: int, top_k: int) -> list[str]:
    """The skills the prompt lists: all of them, in the registry's order, while there are at
    most ``top_k`` (then the system prompt is the same for every instruction, and a provider's
    prompt cache applies); else the ``top_k`` the library retrieves for it."""
    names = skill_names(arms)
    if len(names) <= top_k:
        return names
    try:
        hits = SkillLibrary().search(instruction, k=top_k, kind="controller")
    except ClawError:
        return names
    return [h.record.name for h in hits if h.record.name in names] or names


def offer_composites(instruction: str, k: int) -> tuple[Offered, Composites | None]:
    """The ``k`` learned composites closest to the instruction, and the library's composites
    they come from (none where it has none); one that fails its check is left out."""
    if k < 1:
        return [], None
    try:
        library = SkillLibrary()
        composites = Composites(library)
        if not composites.records():
            return [], None
        hits = library.search(instruction, k=k, kind="composite")
    except ClawError:
        return [], None
    offered = []
    for hit in hits:
        try:
            offered.append((hit.record.name, hit.record.description, composites.load(hit.record)))
        except ClawError:
            continue
    return offered, composites
