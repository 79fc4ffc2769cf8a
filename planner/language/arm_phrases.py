"""The words of an instruction that say which arm, read in two-arm scenes before the clause
grammar reads the rest (:func:`read_arm_phrases`).

- **Where the object ends** (:attr:`ArmIntent.to`): "to the other arm", "into your left hand",
  "to the right one" after a handover verb ("hand it off to the right one"), "switch hands".
  The handover verb becomes a pick ("give the red block to the right gripper": pick it up; the
  arm it ends in is the goal), and a handover clause after the pick says nothing more ("pick up
  the red block and pass it to the other arm": pick it up).
- **Which arms work** (:attr:`ArmIntent.using`): "with both arms", "using the left hand", the
  arms spoken to together ("you two", "you both", "both of you"), "lift … together".
- **Held level** (:attr:`ArmIntent.level`): "and keep it level", "hold it flat", "without
  tilting it", "don't let it tip".
- **When**: "at the same time", "simultaneously", "in parallel" are left out: whether two arms'
  steps run at once is the lanes' decision (:mod:`claw.skills.lanes`), not the goal's.

A one-arm scene reads none of them: the text is read as typed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from claw.envs.predicates import held_objects
from claw.envs.state import WorldState
from claw.planner.exceptions import UnparseableError
from claw.planner.language.lexicon import ARM_NOUNS, HANDOVER_VERBS

__all__ = ["ArmIntent", "read_arm_phrases"]

_NOUN = "|".join(ARM_NOUNS)
_HANDING = "|".join(v for v in HANDOVER_VERBS if v not in ("move", "put", "bring"))
"""The verbs that hand something to someone ("hand", "pass", "give"), not those that move it."""
_OWNER = r"(?:the\s+|its\s+|your\s+)?"
_THEN = r"(?:\s*,)?\s+(?:and\s+then|and|then)"
"""What joins a clause to the one before ("…, and then", "… then")."""
_TO_ARM = re.compile(
    rf"\b(?:over\s+)?(?:to|into|in|across\s+to)\s+{_OWNER}(other|left|right)\s+(?:{_NOUN})\b"
)
_TO_ONE = re.compile(r"\b(?:over\s+)?(?:to|into)\s+(?:the\s+|your\s+)?(other|left|right)\s+one\b")
_SWITCH = re.compile(rf"\b(?:switch|swap|change|trade)\s+(?:{_NOUN})\b")
_WITH_ARMS = re.compile(
    rf"\b(?:(?:with|using|by|in)\s+{_OWNER}(both|two|left|right)\s+(?:{_NOUN})"
    rf"|use\s+{_OWNER}(both|two|left|right)\s+(?:{_NOUN})\s+to)\b"
)
_ADDRESSED_BOTH = re.compile(
    r"(?:,\s*)?\b(?:(can|could|would|will)\s+)?(?:you\s+two|you\s+both|both\s+of\s+you)\b(?:\s*,)?"
)
_LIFTED_TOGETHER = re.compile(r"\b(lift|raise|pick\s+up|hold|carry)\b([^,.;!?]*?)\s+together\b")
_LEVEL = re.compile(
    r"(?:,\s*|\s+and\s+|\s+then\s+|\.\s*|^)?"
    r"(?:(?:keep|hold)\s+(?:it|them|that)\s+(?:level|flat|horizontal|steady|straight|even|balanced)"
    r"|without\s+(?:tilting|tipping)(?:\s+(?:it|them))?"
    r"|(?:do\s+not|don't|dont)\s+let\s+(?:it|them)\s+(?:tip|tilt)(?:\s+over)?)\b"
)
_TIMING = re.compile(
    r"(?:,\s*)?\b(?:at\s+the\s+same\s+time|simultaneously|in\s+parallel|concurrently)\b(?:\s*,)?"
)
_HANDOVER_VERB = re.compile(rf"\b(?:{'|'.join(HANDOVER_VERBS)})\b")
_HANDOVER_CLAUSE = re.compile(
    rf"{_THEN}\s+(?:{_HANDING})(?:\s+(?:it|them))?(?:\s+(?:over|off))?"
    r"\s*(?=$|[.,;!?])"
)


@dataclass(frozen=True)
class ArmIntent:
    """What an instruction says of the arms: the arm its objects end in (``to``: left, right or
    other), the arms to use (``using``: left, right or both), and whether what is held is to be
    kept level."""

    to: str | None = None
    using: str | None = None
    level: bool = False


def read_arm_phrases(text: str, arms: tuple[str, ...]) -> tuple[str, ArmIntent]:
    """``text`` without its arm phrases, and what they say; with one arm, ``text`` as it is."""
    if len(arms) < 2:
        return text, ArmIntent()
    said = text.lower()
    said, using = _working_arms(said)  # first: "with the left hand" has no handover verb
    said, to = _ending_arm(said)
    said, level = _cut(_LEVEL, said)
    said, timed = _cut(_TIMING, said)
    if to is None and using is None and not level and not timed:
        return text, ArmIntent()
    said = re.sub(r"\s+([,.;:!?])", r"\1", " ".join(said.split())).strip(" ,")
    return said, ArmIntent(to=to, using=using, level=level)


def check_said(text: str, intent: ArmIntent, world: WorldState) -> None:
    """Refuse an instruction that is arm phrases alone ("switch hands", "with both arms"): it
    says which arm, not what to do.

    Raises:
        UnparseableError: nothing is left to read once the arm phrases are out.
    """
    if re.search(r"\w", text) or intent == ArmIntent():
        return
    held = held_objects(world)
    if intent.to is None:
        problem = "it says how the arms work, not what to do"
    elif not held:
        problem = "nothing is held to switch hands"
    else:
        problem = f"it does not say what to pass ({', '.join(held)} is held)"
    raise UnparseableError(
        f"{problem}; say it with the object, e.g. 'pick up the red block and switch hands' or "
        "'lift the bar with both arms'"
    )


def _ending_arm(said: str) -> tuple[str, str | None]:
    """``said`` without the arm its object ends in, and that arm (``other``, left or right)."""
    found = _TO_ARM.search(said) or _to_one(said)
    if found is not None:
        said, to = said[: found.start()] + said[found.end() :], found.group(1)
    elif (switch := _SWITCH.search(said)) is not None:  # "grab the blue cube and switch hands"
        said, to = said[: switch.start()] + said[switch.end() :], "other"
        said = re.sub(rf"{_THEN}\s*$", "", said.rstrip(" .!"))
    else:
        return said, None
    said = _HANDOVER_CLAUSE.sub("", said, count=1)  # "pick up X and pass it": pick up X
    said = _HANDOVER_VERB.sub("pick up", said, count=1)  # "give X": pick up X
    return re.sub(r"\b(?:over|off)\b", " ", said), to


def _to_one(said: str) -> re.Match[str] | None:
    """ "to the right one" as an arm, where a handover verb comes before it (handed to a
    claw; "put it next to the right one" is an object)."""
    found = _TO_ONE.search(said)
    handing = re.search(rf"\b(?:{_HANDING})\b", said[: found.start()]) if found else None
    return found if handing else None


def _working_arms(said: str) -> tuple[str, str | None]:
    """``said`` without the arms it names to work with, and which (left, right or both)."""
    using: str | None = None
    found = _WITH_ARMS.search(said)
    if found is not None:
        side = found.group(1) or found.group(2)
        using = "both" if side == "two" else side
        said = said[: found.start()] + said[found.end() :]
    said, addressed = _ADDRESSED_BOTH.subn(_addressee, said)
    said, together = _LIFTED_TOGETHER.subn(r"\1\2", said, count=1)  # "raise the beam together"
    if addressed or together:
        using = using or "both"
    return said, using


def _addressee(found: re.Match[str]) -> str:
    """ "you two" left out, "can you both" read as "can you"."""
    return f" {found.group(1)} you " if found.group(1) else " "


def _cut(pattern: re.Pattern[str], said: str) -> tuple[str, bool]:
    """``said`` without ``pattern``'s matches (each replaced by a space), and whether any was."""
    cut, count = pattern.subn(" ", said)
    return cut, count > 0
