"""Instruction to plan: the offline and LLM planners, what every planner is, and the registry
that names them (``--planner``). The closed loop that runs their plans is ``claw.runtime``'s.

::

    from claw.planner import OfflinePlanner, make_planner

    plan = OfflinePlanner().plan("put the red block in the blue box", env)
    llm = make_planner("gpt-4o-mini", fallback="offline")
"""

from typing import TYPE_CHECKING

from claw.common.lazy import lazy_surface
from claw.planner import families as _families  # noqa: F401  (registers offline, models, local)

if TYPE_CHECKING:
    from claw.planner.base import AnswerHook, BasePlanner, Planner, Usage
    from claw.planner.exceptions import (
        AmbiguousError,
        BodyTooLarge,
        CacheSettingError,
        InvalidInstructionError,
        InvalidPlanError,
        InvalidPlannerError,
        PlannerUnavailableError,
        PlanTooLongError,
        UnparseableError,
        UnsupportedError,
    )
    from claw.planner.families import API_BASE_ENV
    from claw.planner.language.grammar import parse_instruction
    from claw.planner.llm.completion import ModelClient, ModelSettings
    from claw.planner.llm.fallback import FallbackPlanner
    from claw.planner.llm.hybrid import HybridPlanner
    from claw.planner.llm.planner import LLMPlanner
    from claw.planner.offline import OfflinePlanner
    from claw.planner.plan import MAX_PLAN_STEPS, check_plan_length, plan_problems
    from claw.planner.registry import (
        MODEL_ENV,
        PlannerContext,
        PlannerFactory,
        PlannerFamily,
        PlannerSpec,
        make_planner,
        parse_planner,
        planner_names,
        register_planner,
    )
    from claw.planner.text import clean_text
    from claw.skills import Failure, Plan, ReadingNotes, SkillCall, Waypoint, WordMatch

__all__ = [
    "API_BASE_ENV",
    "MAX_PLAN_STEPS",
    "MODEL_ENV",
    "AmbiguousError",
    "AnswerHook",
    "BasePlanner",
    "BodyTooLarge",
    "CacheSettingError",
    "Failure",
    "FallbackPlanner",
    "HybridPlanner",
    "InvalidInstructionError",
    "InvalidPlanError",
    "InvalidPlannerError",
    "LLMPlanner",
    "ModelClient",
    "ModelSettings",
    "OfflinePlanner",
    "Plan",
    "PlanTooLongError",
    "Planner",
    "PlannerContext",
    "PlannerFactory",
    "PlannerFamily",
    "PlannerSpec",
    "PlannerUnavailableError",
    "ReadingNotes",
    "SkillCall",
    "UnparseableError",
    "UnsupportedError",
    "Usage",
    "Waypoint",
    "WordMatch",
    "check_plan_length",
    "clean_text",
    "make_planner",
    "parse_instruction",
    "parse_planner",
    "plan_problems",
    "planner_names",
    "register_planner",
]

__getattr__, __dir__ = lazy_surface(__name__, __file__)
