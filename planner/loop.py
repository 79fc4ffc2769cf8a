"""The closed loop: plan, execute on physics, check each step, replan on failure, check the goal.

As in Inner Monologue, what happened is fed back: after a failed step the planner gets the
state as it now is and plans again (at most ``max_replans`` times). The run ends with the
ground-truth check of the goal on the settled physics.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from pydantic import BaseModel, Field

from claw.envs.errors import ClawError
from claw.envs.tabletop import TabletopEnv
from claw.planner.plan import Plan
from claw.skills.executor import StepResult, execute_calls


class Planner(Protocol):
    name: str

    def plan(self, instruction: str, env: TabletopEnv) -> Plan: ...

    def replan(
        self, instruction: str, plan: Plan, env: TabletopEnv, failure: Any = None
    ) -> Plan: ...


class RunResult(BaseModel):
    """What ``claw "…"`` reports (``--json`` prints exactly this)."""

    instruction: str
    success: bool
    goal: list[str] = Field(default_factory=list)
    plan: list[dict[str, Any]] = Field(default_factory=list)
    steps: list[dict[str, Any]] = Field(default_factory=list)
    replans: int = 0
    sim_seconds: float = 0.0
    wall_seconds: float = 0.0
    error: dict[str, str] | None = None


def _step_json(step: StepResult) -> dict[str, Any]:
    return {"skill": step.skill, "args": step.args, "success": step.success, "reason": step.reason}


def _measured_success() -> dict[tuple[str, str], float]:
    """The library's measured success rates, for choosing between implementations."""
    from claw.library.storage import SkillLibrary

    try:
        return SkillLibrary().measured_success()
    except ClawError:  # an unreadable library: the controllers run
        return {}


def run_instruction(
    env: TabletopEnv,
    instruction: str,
    planner: Planner,
    max_replans: int = 3,
    prefer: str | None = None,
    on_event: Callable[[str, Any], None] | None = None,
) -> RunResult:
    """Plan, run and check an instruction on ``env`` (already reset to its scene).

    ``prefer`` (``learned`` / ``controller``) picks a skill's implementation where it has both;
    without it, the one with the best success measured in the skill library runs.

    Expected problems — unreadable instructions, unknown objects, a failed plan — are in the
    result, with ``error`` set for those found before anything moved.
    """
    env = env.unwrapped  # type: ignore[assignment]
    notify = on_event or (lambda kind, payload: None)
    start_wall, start_sim = time.perf_counter(), float(env.data.time)
    result = RunResult(instruction=instruction, success=False)

    def finish() -> RunResult:
        result.sim_seconds = round(float(env.data.time) - start_sim, 3)
        result.wall_seconds = round(time.perf_counter() - start_wall, 3)
        return result

    try:
        plan = planner.plan(instruction, env)
    except ClawError as exc:
        result.error = {"kind": exc.kind, "message": str(exc)}
        return finish()
    measured = _measured_success() if prefer is None else None
    result.goal = list(plan.goal)
    result.plan = [call.model_dump() for call in plan.steps]
    notify("plan", plan)

    while True:
        outcome = execute_calls(env, plan.steps, prefer=prefer, measured=measured)
        for step in outcome.steps:
            result.steps.append(_step_json(step))
            notify("step", step)
        failed = outcome.failed
        if failed is not None and failed.error is not None and not result.steps[:-1]:
            result.error = {"kind": failed.error, "message": failed.reason}
            return finish()
        if failed is None:
            check = env.check(result.goal)
            if check.success or not result.goal:
                break
            # Every step ran, yet the goal does not hold: say so and plan again.
            failure = (len(outcome.steps), "the plan", f"the goal does not hold: {check.reason}")
        else:
            failure = (len(outcome.steps), f"{failed.skill}({failed.args})", failed.reason)
        if result.replans >= max_replans:
            break
        result.replans += 1
        try:
            plan = planner.replan(instruction, plan, env, failure)
        except ClawError as exc:
            result.error = {"kind": exc.kind, "message": str(exc)}
            return finish()
        notify("replan", plan)
        if not plan.steps:
            break

    check = env.check(result.goal)
    last_failed = bool(result.steps) and not result.steps[-1]["success"]
    result.success = check.success and not last_failed
    notify("goal", check)
    return finish()
