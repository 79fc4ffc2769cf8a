"""The closed loop: plan, execute on physics, check each step, replan on failure, check the goal.

As in Inner Monologue, what happened is fed back: after a failed step the planner gets the
state as it now is and plans again (at most ``max_replans`` times). The run ends with the
ground-truth check of the goal on the settled physics.

Every plan (the first and each replan, from any planner) is refused before any of it runs when
it has more than ``max_steps`` steps, a composite counting as the steps it expands to
(``plan_too_long``). A run whose goal is empty has nothing to check at the end, so it succeeds
only when its steps measure their own success — pushes and motions, each skill saying so by
``Skill.measures_own_success`` — and all of them that ran last succeeded.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field, field_serializer

from claw.common.exceptions import ClawError
from claw.envs import GoalResult
from claw.envs.predicates import Predicate, evaluate_goal
from claw.envs.tabletop import TabletopEnv
from claw.library import policy_source
from claw.library.composites import Composites
from claw.perception.report import Cause, PerceptionReport
from claw.planner.base import Planner, Reader
from claw.planner.exceptions import PlanTooLongError
from claw.planner.grounding.suggest import Suggestion
from claw.planner.language.instruction import check_text, printable
from claw.planner.plan import MAX_PLAN_STEPS, check_plan_length, too_long_message
from claw.runtime.exceptions import InvalidRunError
from claw.runtime.waypoints import WaypointReport, run_pass, unreached
from claw.skills.base import SkillResult
from claw.skills.executor import ExecutionResult, execute_calls
from claw.skills.plans import Failure, Plan, ReadingNotes, SkillCall
from claw.skills.registry import measures_own_success

"""Skills whose result is measured by the skill itself from the state: a push ends where it was
asked to go (within 2 cm), a motion reaches its target. A plan of only these may have no goal."""


class StepReport(BaseModel):
    """One executed step as ``--json`` prints it."""

    skill: str
    args: dict[str, Any]
    success: bool
    reason: str = ""
    implementation: str | None = None
    """Which implementation ran the step (``controller``, ``learned``; none for a composite)."""

    @classmethod
    def of(cls, step: SkillResult) -> StepReport:
        return cls(
            skill=step.skill,
            args=step.args,
            success=step.success,
            reason=step.reason,
            implementation=step.implementation,
        )


class RunError(BaseModel):
    """An error found before anything moved (or a replan that could not be made); a refused
    reading also says what of it was read and what the reader would read instead."""

    kind: str
    message: str
    read: list[str] = Field(default_factory=list)
    """What of a refused instruction was read: its verb, objects and places."""
    suggestions: list[Suggestion] = Field(default_factory=list)
    """Instructions close to the refused one that the reader reads on the scene, with their
    goals (``try:`` lines in the text output)."""

    @classmethod
    def of(cls, exc: ClawError) -> RunError:
        suggested = [s for s in exc.suggestions if isinstance(s, Suggestion)]
        return cls(kind=exc.kind, message=str(exc), read=list(exc.read), suggestions=suggested)


class RunResult(BaseModel):
    """What ``claw "…"`` reports (``--json`` prints exactly this)."""

    instruction: str
    success: bool
    goal: list[Predicate] = Field(default_factory=list)
    plan: list[SkillCall] = Field(default_factory=list)
    steps: list[StepReport] = Field(default_factory=list)
    replans: int = 0
    sim_seconds: float = 0.0
    wall_seconds: float = 0.0
    error: RunError | None = None
    structured: str | None = None
    """How an LLM's answer was constrained (``schema:json_schema``, ``schema:json_object``,
    ``json``, ``off``); ``None`` for planners that ask no model."""
    reader: Reader | None = None
    """Who read the instruction and planned it, replans included: ``offline`` or ``model``
    (``offline+MODEL`` plans with either; a refusal says who refused); ``None`` when no planner
    was asked."""
    cached: bool | None = None
    """Whether the model's first answer (its plan, or its refusal) came from the answer cache,
    with no call (``claw.planner.llm.answer_cache``); ``None`` when no model read the
    instruction."""
    waypoints: list[WaypointReport] = Field(default_factory=list)
    """Goals reached on the way (a sequence's earlier turns, superseded by later ones), each
    with whether it held in its turn; the run succeeds only when every one did."""
    reading: ReadingNotes | None = None
    """What the reader changed to read the instruction (words ignored, words read as others);
    ``None`` when it read it as typed."""
    perception: PerceptionReport | None = None
    """What the perceiver believed against what held, per object, at the end; ``None`` when
    the run saw the truth."""
    cause: Cause | None = None
    """Why a failed run failed: ``reading`` (refused or misread), ``perception`` (an object of
    the plan or the goal was not where it was believed to be) or ``acting``; ``None`` on
    success."""
    reason: str = Field(default="", exclude=True)
    """Why the run failed (the failed step, the goal check, or a goal-less plan); "" on success.
    Shown by ``claw "…"``; not in ``--json``, whose keys are the documented contract (each
    step's own ``reason`` is there)."""

    @field_serializer("instruction")
    def _printable(self, instruction: str) -> str:
        """As typed, but for bytes that are not UTF-8, written as escapes (``\\xff``)."""
        return printable(instruction)


def _library() -> tuple[Any, dict[tuple[str, str], float]]:
    """The skill library, where policy skills get their (sha256-checked) networks, and its
    measured success rates, for choosing between implementations."""
    library = policy_source()
    try:
        return library, library.measured_success()
    except ClawError:  # an unreadable manifest: the controllers run; a policy is refused
        return library, {}


def run_instruction(
    env: TabletopEnv,
    instruction: str,
    planner: Planner,
    max_replans: int = 3,
    prefer: str | None = None,
    on_event: Callable[[str, Any], None] | None = None,
    max_steps: int = MAX_PLAN_STEPS,
) -> RunResult:
    """Plan, run and check an instruction on ``env`` (already reset to its scene).

    ``prefer`` (``learned`` / ``controller``) picks a skill's implementation where it has both;
    without it, the one with the best success measured in the skill library runs.

    ``max_steps`` caps every plan's length (``--max-steps``), a composite counting as its
    steps: a longer plan or replan is refused before any of it runs, with the error
    ``plan_too_long``. The planner is given the same cap (``planner.max_steps``: the LLM
    planner bounds its answers by it).

    Expected problems — an instruction that is not text, unreadable instructions, unknown
    objects, a failed plan — are in the result, with ``error`` set for those found before
    anything moved (and for a replan that cannot be made).
    """
    env = env.unwrapped  # type: ignore[assignment]
    notify = on_event or (lambda kind, payload: None)
    start_wall, start_sim = time.perf_counter(), float(env.data.time)
    result = RunResult(instruction=instruction, success=False)

    def finish() -> RunResult:
        result.sim_seconds = round(float(env.data.time) - start_sim, 3)
        _account(result, env)
        result.wall_seconds = round(time.perf_counter() - start_wall, 3)
        return result

    if max_steps < 1:
        raise InvalidRunError(f"max_steps must be at least 1, not {max_steps}")
    planner.max_steps = max_steps
    try:
        check_text(instruction)  # bytes that are not UTF-8: no planner is asked
        try:
            plan = planner.plan(instruction, env)
        finally:  # a refusal is the reader's too
            result.reader = planner.reader
            usage = planner.usage
            if result.reader == "model" and usage is not None:
                result.cached = usage.cached > 0
        check_plan_length(plan, max_steps)
        library, measured = _library()  # a damaged library stops the run before anything moves
        composites = Composites(library)
        _check_expanded_length(plan, composites, max_steps)
    except ClawError as exc:
        result.error = RunError.of(exc)
        return finish()
    result.goal = list(plan.goal)
    result.reading = plan.reading
    result.structured = planner.structured_as
    result.plan = [call.model_copy(deep=True) for call in plan.steps]
    notify("plan", plan)

    result.waypoints = [WaypointReport(goal=w.goal) for w in plan.waypoints]

    def execute(calls: list[SkillCall]) -> ExecutionResult:
        return execute_calls(
            env, calls, prefer=prefer, measured=measured, policies=library, composites=composites
        )

    while True:
        ran = run_pass(env, plan, result.waypoints, execute)
        outcome = ran.outcome
        for step in outcome.steps:
            result.steps.append(StepReport.of(step))
            notify("step", step)
        failed = outcome.failed
        if failed is not None and failed.error is not None and not result.steps[:-1]:
            result.error = RunError(kind=failed.error, message=failed.reason)
            return finish()
        check: GoalResult | None = None
        if ran.missed is not None:
            failure: Failure | None = ran.missed
        else:
            failure, check = _failure_of(outcome, env, result.goal)
        if failure is None:
            break
        if result.replans >= max_replans:
            break
        result.replans += 1
        try:
            left = plan.model_copy(update={"waypoints": ran.remaining})
            plan = planner.replan(instruction, left, env, failure)
            check_plan_length(plan, max_steps)
            _check_expanded_length(plan, composites, max_steps)
        except ClawError as exc:
            result.error = RunError.of(exc)
            return finish()
        notify("replan", plan)
        if not plan.steps:
            break

    notify("goal", _judge(result, _final(env, check, result.goal)))
    return finish()


def _failure_of(
    outcome: ExecutionResult, env: TabletopEnv, goal: list[Predicate]
) -> tuple[Failure | None, GoalResult | None]:
    """What went wrong in one pass of a plan, for a replan (``None`` when nothing did: every
    step ran and the goal holds, or there is no goal to check), and the goal's check when every
    step ran (``None`` when one failed, and the goal was not checked)."""
    failed = outcome.failed
    if failed is not None:
        call = f"{failed.skill}({failed.args})"
        return Failure(step=len(outcome.steps), call=call, reason=failed.reason), None
    check = evaluate_goal(goal, env.world_state())  # what the robot sees, for the replan
    if check.success or not goal:
        return None, check
    # Every step ran, yet the goal does not hold: say so and plan again.
    reason = f"the goal does not hold: {check.reason}"
    return Failure(step=len(outcome.steps), call="the plan", reason=reason), check


def _final(env: TabletopEnv, check: GoalResult | None, goal: list[Predicate]) -> GoalResult:
    """The goal judged on the final state: the last pass's check where it read the truth (no
    physics ran since), else the truth now (a perceiver's belief is never the judgement; the
    objects the goal names are those the perceiver meant, :attr:`Belief.truth_names`)."""
    if env.perception is not None:
        names = getattr(env.perception, "truth_names", {})
        goal = [Predicate(name=p.name, args=tuple(names.get(a, a) for a in p.args)) for p in goal]
        return env.check(goal)
    if check is None:
        return env.check(goal)
    return check


def _account(result: RunResult, env: TabletopEnv) -> None:
    """Add to a finished run what its perceiver believed against the truth, and why it failed."""
    if env.perception is not None:
        from claw.perception.link import Belief
        from claw.perception.report import report

        if isinstance(env.perception, Belief):
            result.perception = report(env.perception, env)
    result.cause = None if result.success else _cause(result)


def _cause(result: RunResult) -> Cause:
    """Why ``result`` failed: its reading, its perception of the objects it names, or acting."""
    if result.error is not None:
        return "reading"
    if result.perception is not None:
        named = {str(v) for call in result.plan for v in call.args.values()}
        named |= {str(a) for p in result.goal for a in p.args}
        if result.perception.misperceived(named):
            return "perception"
    return "acting"


def _judge(result: RunResult, check: GoalResult) -> GoalResult:
    """Set the run's success and reason from the goal's ``check`` on the final state; the
    check, as reported."""
    last_failed = bool(result.steps) and not result.steps[-1].success
    missed = unreached(result.waypoints)
    result.success = check.success and not last_failed and not missed
    if last_failed:
        result.reason = f"step {result.steps[-1].skill} failed: {result.steps[-1].reason}"
    elif missed:
        result.reason = missed
    elif not check.success:
        result.reason = check.reason
    elif not result.goal:
        result.reason = _goalless_problem(result.steps)
        if result.reason:
            result.success = False
            check = check.model_copy(update={"success": False, "reason": result.reason})
    return check


def _check_expanded_length(plan: Plan, composites: Composites, max_steps: int) -> None:
    """Refuse a plan whose composites expand to more than ``max_steps`` steps in all.

    Raises:
        PlanTooLongError: how many steps it runs, the cap, and how to raise it.
    """
    steps = composites.expanded_length(plan.steps)
    if steps > max_steps:
        message = too_long_message(steps, max_steps)
        raise PlanTooLongError(f"{message}; a composite counts as the steps it runs")


def _measures_itself(name: str) -> bool:
    """Whether skill ``name`` measures its own success (an unknown name does not)."""
    try:
        return measures_own_success(name)
    except ClawError:
        return False


def _goalless_problem(steps: list[StepReport]) -> str:
    """Why a run with an empty goal cannot count as a success ("" when it can)."""
    if not steps:
        return "the plan has no goal and no steps: nothing was done"
    unchecked = sorted({s.skill for s in steps if not _measures_itself(s.skill)})
    if unchecked:
        return (
            f"the plan has no goal to check, and {', '.join(unchecked)} do not measure their own "
            "success (only pushes and motions do)"
        )
    return ""
