"""Goal mode (as in LLM+P): a model states the goal, the symbolic step generator writes the steps.

A model's answer keeps its goal and the steps no predicate states (pushes and motions); its
picks and places (and handovers and joint lifts), if it wrote any, are replaced by the offline
planner's steps for the goal, derived from the scene as it is. Pushes and motions written
before the model's first pick or place run before the derived steps, the others after them.
Replanning derives the steps again from the state, without asking the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import get_args

from claw.common.exceptions import ClawError
from claw.envs.predicates import PREDICATES
from claw.envs.regions import REGIONS
from claw.envs.state import WorldState
from claw.planner.exceptions import InvalidPlanError
from claw.planner.grounding.conflicts import check_conflicts
from claw.planner.llm.completion import LlmMode
from claw.planner.offline import OfflinePlanner
from claw.skills import Plan

LLM_MODES: tuple[str, ...] = get_args(LlmMode)
DERIVED_SKILLS = frozenset({"pick", "place", "handover", "lift_together"})
"""The skills the step generator writes for a goal (the two-arm ones where two arms hold)."""


def uses_goal(mode: str, plan: Plan) -> bool:
    """Whether the steps of ``plan`` are derived from its goal: always in goal mode, in auto
    mode where the answer states a goal."""
    return mode == "goal" or (mode == "auto" and bool(plan.goal))


def goal_problems(plan: Plan) -> list[ClawError]:
    """What a goal-mode answer lacks: its goal, where it wrote steps that claw derives from one
    (they would be dropped, and nothing done)."""
    derived = sorted({step.skill for step in plan.steps if step.skill in DERIVED_SKILLS})
    if plan.goal or not derived:
        return []
    return [
        InvalidPlanError(
            f"goal mode: the answer has {', '.join(derived)} steps and no goal, and claw writes "
            "those steps from the goal: state the goal, the predicates that must hold at the end"
        )
    ]


def derive_steps(plan: Plan, world: WorldState) -> Plan:
    """``plan`` with its picks and places replaced by the steps that reach its goal.

    Raises:
        UnsupportedError: goals that no order reaches (a support cycle, two supports).
    """
    check_conflicts(plan.goal)
    derived = OfflinePlanner().steps(plan.goal, world)
    first = next((i for i, s in enumerate(plan.steps) if s.skill in DERIVED_SKILLS), None)
    kept = [(i, s) for i, s in enumerate(plan.steps) if s.skill not in DERIVED_SKILLS]
    before = [s for i, s in kept if first is None or i < first]
    after = [s for i, s in kept if first is not None and i > first]
    return Plan(goal=plan.goal, steps=[*before, *derived, *after])


def goal_vocabulary(objects: Sequence[str], arms: Sequence[str] = ()) -> list[str]:
    """Every goal predicate over ``objects`` a model may state in goal mode (no ``stacked``: a
    tower is its ``on`` predicates); with two ``arms``, each arm's ``holding`` and ``level``."""
    found = [f"holding({a})" for a in objects]
    if len(arms) > 1:
        found += [f"holding({a}, {arm})" for a in objects for arm in arms]
        found += [f"level({a})" for a in objects]
    found += [f"at({a}, {region})" for a in objects for region in REGIONS]
    binary = [name for name, arity in PREDICATES.items() if arity == (2, 2) and name != "at"]
    found += [f"{name}({a}, {b})" for name in binary for a in objects for b in objects if a != b]
    return found
