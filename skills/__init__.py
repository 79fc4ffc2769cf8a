"""Low-level skills ("claws"): IK/PID controllers and trained policies behind one protocol.

Importing this package registers the built-in skills::

    from claw.skills import get_skill

    result = get_skill("pick")(env.unwrapped, object="red_block")
"""

from claw.skills import (  # noqa: F401  (register)
    basic,
    handover,
    learned,
    learned_grasp,
    lift,
    pick,
    place,
    push,
)
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
from claw.skills.exceptions import ArtifactError, InvalidParamsError, NoPlacement, UnknownSkillError
from claw.skills.executor import ExecutionResult, SkillCall, execute_calls
from claw.skills.learned import PolicySource, ShippedPolicies

__all__ = [
    "ArtifactError",
    "ExecutionResult",
    "InvalidParamsError",
    "NoPlacement",
    "ObjectName",
    "PolicySource",
    "ShippedPolicies",
    "Skill",
    "SkillCall",
    "SkillParams",
    "SkillResult",
    "UnknownSkillError",
    "execute_calls",
    "get_skill",
    "register_skill",
    "skill_implementations",
    "skill_names",
]
