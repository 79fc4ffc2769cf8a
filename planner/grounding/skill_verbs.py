"""Skills said by their own verbs: a registered skill that declares ``verbs`` (a plugin's, most
often) is read offline from ``"VERB"`` (a skill of no parameters) or ``"VERB the red block"``
(a skill whose one parameter names an object), and planned as that one call.

The reading is strict, so that it is sure or silent: the whole instruction is the verb and at
most one noun phrase (``please`` aside), the phrase names exactly one object of the scene, and
a verb the grammar already reads as one of claw's own (``put``, ``push``, ``pick up`` …) stays
the grammar's; a verb the grammar reads only to refuse it (``wave``, ``rotate``) is the skill's.
Installed packages' skills are looked up only for a first word the grammar has no verb for.
"""

from __future__ import annotations

import re
from functools import cache

from claw.envs.state import WorldState
from claw.planner.exceptions import AmbiguousError, UnparseableError
from claw.planner.grounding.references import ground
from claw.planner.language.grammar import MAX_INSTRUCTION_CHARS
from claw.planner.language.lexicon import VERB_CLASSES
from claw.planner.language.reference import parse_reference
from claw.skills import ObjectRef, SkillCall, skill_implementations, skill_names

_POLITE = re.compile(r"^(?:please\s+)?(?P<text>.*?)(?:[\s,]+please)?[\s.!]*$")


@cache
def _own_verbs() -> frozenset[str]:
    """The verbs the grammar reads as a request (those it reads only to refuse left out)."""
    return frozenset(
        verb for name, verbs in VERB_CLASSES.items() if name != "v_unsupported" for verb in verbs
    )


def said_verbs() -> dict[str, str]:
    """Each verb a registered skill declares, and the skill's name (a verb two skills declare:
    the first by name)."""
    verbs: dict[str, str] = {}
    for name in skill_names():
        for cls in skill_implementations(name).values():
            for verb in cls.verbs:
                verbs.setdefault(" ".join(verb.lower().split()), name)
    return verbs


def _object_field(name: str) -> str | bool | None:
    """The one parameter of skill ``name`` that names an object; ``None`` for a skill of no
    parameters; ``False`` for any other."""
    fields = next(iter(skill_implementations(name).values())).Params.model_fields
    if not fields:
        return None
    if len(fields) != 1:
        return False
    field_name, info = next(iter(fields.items()))
    return field_name if any(isinstance(m, ObjectRef) for m in info.metadata) else False


def skill_verb_call(instruction: str, names: list[str], world: WorldState) -> SkillCall | None:
    """The call ``instruction`` asks for by a skill's own verb, or ``None`` where it does not.

    Raises:
        UnknownObjectError: its phrase names nothing in the scene.
        AmbiguousError: its phrase names several objects.
    """
    if len(instruction) > MAX_INSTRUCTION_CHARS:  # refused as too long by the grammar's reading
        return None
    match = _POLITE.fullmatch(" ".join(instruction.lower().split()))
    text = match.group("text") if match else ""
    words = text.split()
    if not words or any(" ".join(words[:n]) in _own_verbs() for n in (1, 2)):
        return None
    verbs = said_verbs()
    said = next((v for v in sorted(verbs, key=len, reverse=True) if f"{text} ".startswith(f"{v} ")),
                None)  # fmt: skip
    if said is None:
        return None
    skill, rest = verbs[said], text[len(said) :].strip()
    field = _object_field(skill)
    if field is None and not rest:
        return SkillCall(skill=skill)
    if not isinstance(field, str) or not rest:
        return None
    try:
        reference = parse_reference(rest)
    except UnparseableError:  # not one noun phrase: not this reading
        return None
    if reference.every or reference.pronoun:
        return None
    found = ground(reference, names, world)
    if len(found) != 1:
        raise AmbiguousError(f"{reference.text or rest!r} could be {' or '.join(found)}")
    return SkillCall(skill=skill, args={field: found[0]})
