"""``Plan``: a planner's reading of the goal, and the skill calls that should reach it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from claw.common.exceptions import ClawError
from claw.envs.predicates import Predicate, check_objects, parse_predicate
from claw.envs.tabletop import TabletopEnv
from claw.planner.exceptions import PlanTooLongError
from claw.skills.base import check_offered, skill_names, unknown_skill
from claw.skills.executor import CompositeSource, SkillCall, bind

MAX_PLAN_STEPS = 50
"""The most skill calls a plan may have (``run_instruction(max_steps=...)``, ``--max-steps``).

The longest plan the offline planner makes for the project's instruction sets has 8 steps (every
block of a scene moved); 50 leaves room for crowded scenes and clearing, and stops a runaway
plan (a model's 100,000 steps) before anything moves.
"""


class WordMatch(BaseModel):
    """A word read as another, and how: ``spelling`` (a slip, or two words typed as one),
    ``sound`` (a dictated homophone), ``consonants`` (typed without vowels), ``meaning`` (the
    embedder's match, with its cosine ``score``), ``table`` (another name of the table) or
    ``form`` (a verb form made plain: "placed", "the robot places")."""

    model_config = ConfigDict(extra="forbid")

    typed: str
    read: str
    how: Literal["spelling", "sound", "consonants", "meaning", "table", "form"]
    score: float | None = None


MAX_GOAL_PREDICATES = 2 * MAX_PLAN_STEPS
"""The most different predicates a goal may have: every step of the longest plan may reach
two (a place and what it leaves true), and ordering them costs the square of their number."""


class ReadingNotes(BaseModel):
    """What a reader changed to read an instruction: words left out, words read as others
    (every other word was read as typed)."""

    model_config = ConfigDict(extra="forbid")

    ignored: list[str] = Field(default_factory=list)
    corrected: dict[str, str] = Field(default_factory=dict)
    """Each word typed, and the word it was read as (a typo, or a word matched by meaning)."""
    matched: list[WordMatch] = Field(default_factory=list)
    """How each corrected word was matched."""


class Waypoint(BaseModel):
    """A goal reached on the way: it must hold once the plan's first ``after`` steps ran (a
    sequence's earlier turn, superseded by a later one), and need not hold at the end."""

    model_config = ConfigDict(extra="forbid")

    goal: list[Predicate]
    after: int = Field(ge=0)


class Plan(BaseModel):
    """Goal predicates (ground truth to check at the end) and an ordered list of skill calls."""

    model_config = ConfigDict(extra="forbid")

    reading: ReadingNotes | None = None
    """What the reader changed to read the instruction (``None``: read as typed)."""

    goal: list[Predicate] = Field(default_factory=list)
    """Predicates such as ``next_to(red_block, blue_box)`` that must all hold at the end (given
    as text, they are parsed; they serialise as their canonical text)."""
    steps: list[SkillCall] = Field(default_factory=list)
    waypoints: list[Waypoint] = Field(default_factory=list)
    """Goals to reach on the way, in order (``after`` not decreasing); the run checks each once
    its steps ran, and replans from the first not reached."""


class Failure(BaseModel):
    """What went wrong in a run, for ``Planner.replan``: how many steps ran (the failed one
    included), the call that failed (or ``the plan``, when every step ran yet the goal does not
    hold), and why."""

    model_config = ConfigDict(frozen=True)

    step: int
    call: str
    reason: str


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
