"""``Plan``: a planner's reading of the goal, and the skill calls that should reach it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from claw.envs.errors import ClawError
from claw.envs.predicates import check_objects, parse_predicate
from claw.envs.tabletop import TabletopEnv
from claw.skills.executor import SkillCall, bind


class Plan(BaseModel):
    """Goal predicates (ground truth to check at the end) and an ordered list of skill calls."""

    model_config = ConfigDict(extra="forbid")

    goal: list[str] = Field(default_factory=list)
    """Predicates such as ``next_to(red_block, blue_box)`` that must all hold at the end."""
    steps: list[SkillCall] = Field(default_factory=list)


def plan_problems(plan: Plan, env: TabletopEnv) -> list[ClawError]:
    """Every reason the plan cannot run in this scene: bad predicates, skills, params, names.

    Each problem is an error with a ``kind`` and a message a planner can act on.
    """
    problems: list[ClawError] = []
    for text in plan.goal:
        try:
            check_objects(parse_predicate(text), env.object_names)
        except ClawError as exc:
            problems.append(exc)
    for call in plan.steps:
        try:
            bind(call, env.object_names)
        except ClawError as exc:
            problems.append(exc)
    return problems
