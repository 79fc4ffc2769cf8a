"""Low-level skills ("claws"): IK/PID controllers and trained policies behind one protocol.

Importing this package registers the built-in skills::

    from claw.skills import get_skill

    result = get_skill("pick")(env.unwrapped, object="red_block")

What a planner needs of a skill it asks of the skill's class: ``Pick.max_length``,
``Push.directions``, ``Push.problem(...)``, ``Handover.meeting_point(...)``,
``Place.find_placement(...)``.
"""

from claw.skills import basic, learned, learned_grasp, lift  # noqa: F401  (register)
from claw.skills.base import ObjectName, ObjectRef, RegionRef, Skill, SkillParams, SkillResult
from claw.skills.exceptions import ArtifactError, InvalidParamsError, NoPlacement, UnknownSkillError
from claw.skills.executor import CompositeSource, ExecutionResult, bind, execute_calls
from claw.skills.handover import Handover
from claw.skills.lanes import LANE_CLEARANCE
from claw.skills.learned import PolicySource, ShippedPolicies
from claw.skills.pick import Pick
from claw.skills.place import Place
from claw.skills.plans import (
    ARM_ARG,
    Failure,
    Plan,
    ReadingNotes,
    SkillCall,
    Waypoint,
    WordMatch,
)
from claw.skills.push import Direction, Push
from claw.skills.registry import (
    check_offered,
    get_skill,
    is_skill,
    measures_own_success,
    register_skill,
    register_skill_reference,
    skill_implementations,
    skill_names,
    unknown_skill,
)

__all__ = [
    "ARM_ARG",
    "LANE_CLEARANCE",
    "ArtifactError",
    "CompositeSource",
    "Direction",
    "ExecutionResult",
    "Failure",
    "Handover",
    "InvalidParamsError",
    "NoPlacement",
    "ObjectName",
    "ObjectRef",
    "Pick",
    "Place",
    "Plan",
    "PolicySource",
    "Push",
    "ReadingNotes",
    "RegionRef",
    "ShippedPolicies",
    "Skill",
    "SkillCall",
    "SkillParams",
    "SkillResult",
    "UnknownSkillError",
    "Waypoint",
    "WordMatch",
    "bind",
    "check_offered",
    "execute_calls",
    "get_skill",
    "is_skill",
    "measures_own_success",
    "register_skill",
    "register_skill_reference",
    "skill_implementations",
    "skill_names",
    "unknown_skill",
]
