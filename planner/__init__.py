"""Instruction to plan: the offline and LLM planners and the closed loop that runs their plans.

::

    from claw.planner import OfflinePlanner, run_instruction

    result = run_instruction(env, "put the red block in the blue box", OfflinePlanner())
"""

from claw.planner.completion import ModelClient, Usage
from claw.planner.exceptions import (
    AmbiguousError,
    InvalidPlanError,
    PlannerUnavailableError,
    PlanTooLongError,
    UnparseableError,
    UnsupportedError,
)
from claw.planner.grammar import parse_instruction
from claw.planner.llm import FallbackPlanner, LLMPlanner
from claw.planner.loop import Planner, RunError, RunResult, StepReport, run_instruction
from claw.planner.offline import OfflinePlanner
from claw.planner.plan import MAX_PLAN_STEPS, Failure, Plan, check_plan_length, plan_problems
from claw.planner.text import clean_text

__all__ = [
    "MAX_PLAN_STEPS",
    "AmbiguousError",
    "Failure",
    "FallbackPlanner",
    "InvalidPlanError",
    "LLMPlanner",
    "ModelClient",
    "OfflinePlanner",
    "Plan",
    "PlanTooLongError",
    "Planner",
    "PlannerUnavailableError",
    "RunError",
    "RunResult",
    "StepReport",
    "UnparseableError",
    "UnsupportedError",
    "Usage",
    "check_plan_length",
    "clean_text",
    "parse_instruction",
    "plan_problems",
    "run_instruction",
]
