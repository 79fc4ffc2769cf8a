"""Low-level skills ("claws"): IK/PID controllers and trained policies behind one protocol.

Importing this package registers the built-in skills::

    from claw.skills import get_skill

    result = get_skill("pick")(env.unwrapped, object="red_block")
"""

from claw.skills import basic, learned, pick, place, push  # noqa: F401  (register the skills)
from claw.skills.base import (
    ObjectName,
    Skill,
    SkillParams,
    SkillResult,
    get_skill,
    register_skill,
    skill_implementations,
    skill_names,
)

__all__ = [
    "ObjectName",
    "Skill",
    "SkillParams",
    "SkillResult",
    "get_skill",
    "register_skill",
    "skill_implementations",
    "skill_names",
]
