"""What is checked of a plan (:class:`~claw.skills.plans.Plan`): its length, its goal read from
text, and every reason it cannot run in a scene."""

from __future__ import annotations

from claw.common.exceptions import ClawError
from claw.envs.predicates import Predicate, check_objects, parse_predicate
from claw.envs.tabletop import TabletopEnv
from claw.planner.exceptions import PlanTooLongError
from claw.skills import CompositeSource, Plan, bind, check_offered, skill_names, unknown_skill

MAX_PLAN_STEPS = 50
"""The most skill calls a plan may have (``run_instruction(max_steps=...)``, ``--max-steps``).

The longest plan the offline planner makes for the project's instruction sets has 8 steps (every
block of a scene moved); 50 leaves room for crowded scenes and clearing, and stops a runaway
plan (a model's 100,000 steps) before anything moves.
"""


MAX_GOAL_PREDICATES = 2 * MAX_PLAN_STEPS
"""The most different predicates a goal may have: every step of the longest plan may reach
two (a place and what it leaves true), and ordering them costs the square of their number."""


def read_goal(texts: list[str], names: list[str]) -> tuple[list[Predicate], list[ClawError]]:
    """A goal given as text (a model's answer): the predicates that parse and name objects of
    the scene, each once, and the problem with each of the others, in the goal's order; a goal
    of more than ``MAX_GOAL_PREDICATES`` different predicates is one problem, read no further."""
    goal: list[Predicate] = []
    problems: list[ClawError] = []
    texts = list(dict.fromkeys(texts))  # a predicate said 3,000 times is one goal
    if len(texts) > MAX_GOAL_PREDICATES:
        return [], [PlanTooLongError(too_many_goals(len(texts)))]
    for text in texts:
        try:
            predicate = parse_predicate(text)
            check_objects(predicate, names)
        except ClawError as exc:
            problems.append(exc)
        else:
            goal.append(predicate)
    return goal, problems


def plan_problems(
    plan: Plan, env: TabletopEnv, composites: CompositeSource | None = None
) -> list[ClawError]:
    """Every reason the plan cannot run in this scene: bad predicates, skills, params, names.

    Each problem is an error with a ``kind`` and a message a planner can act on. With
    ``composites``, a step naming one is expanded and each of its steps checked.
    """
    problems: list[ClawError] = []
    for predicate in plan.goal:
        try:
            check_objects(predicate, env.object_names)
        except ClawError as exc:
            problems.append(exc)
    arms = env.arms.arms
    for call in plan.steps:
        try:
            steps = [call]
            if composites is not None and call.skill not in skill_names():
                steps = composites.expand_call(call, env.object_names, len(arms))[1]
            for step in steps:
                if step.skill not in skill_names():  # listing the skills this scene offers
                    raise unknown_skill(step.skill, len(arms))
                check_offered(step.skill, arms)  # a handover in a one-arm scene: repaired
                bind(step, env.object_names)
        except ClawError as exc:
            problems.append(exc)
    return problems


def check_plan_length(plan: Plan, max_steps: int = MAX_PLAN_STEPS) -> None:
    """Refuse a plan longer than ``max_steps``.

    Raises:
        PlanTooLongError: the plan has more steps; the message says how many, the cap, and how
            to raise it.
    """
    if len(plan.steps) > max_steps:
        raise PlanTooLongError(too_long_message(len(plan.steps), max_steps))


def too_many_goals(count: int) -> str:
    """Why a goal of ``count`` different predicates is refused."""
    return (
        f"the goal has {count:,} different predicates, more than the cap of "
        f"{MAX_GOAL_PREDICATES}; state only what must hold at the end"
    )


def too_long_message(steps: int, max_steps: int) -> str:
    """Why a plan of ``steps`` steps is refused, and how to allow it."""
    return (
        f"the plan has {steps} steps, more than the cap of {max_steps} "
        "(raise it with --max-steps if a plan this long is intended)"
    )
