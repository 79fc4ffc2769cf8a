"""Waypoints: goals a plan reaches on the way ("move it to the left side, then onto the red
block"), each checked on the state once the steps before it ran.

A pass of a plan runs its steps a stretch at a time, up to each waypoint in turn; a waypoint
that does not hold then is a failure to replan from (the planner is given the waypoints not yet
reached). The run succeeds only when every waypoint was reached in its turn and the goal holds
at the end.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, Field

from claw.envs.predicates import Predicate
from claw.envs.tabletop import TabletopEnv
from claw.skills.base import SkillResult
from claw.skills.executor import ExecutionResult
from claw.skills.plans import Failure, Plan, SkillCall, Waypoint

Execute = Callable[[list[SkillCall]], ExecutionResult]
"""Runs skill calls on the env (``execute_calls`` with the run's settings)."""


class WaypointReport(BaseModel):
    """A waypoint as ``--json`` prints it: its goal, and whether it held in its turn."""

    goal: list[Predicate]
    reached: bool = False


class Pass(BaseModel):
    """One pass of a plan: the steps that ran, the waypoint missed (as a failure to replan
    from), and the waypoints not reached."""

    outcome: ExecutionResult
    missed: Failure | None = None
    remaining: list[Waypoint] = Field(default_factory=list)


def run_pass(env: TabletopEnv, plan: Plan, reports: list[WaypointReport], execute: Execute) -> Pass:
    """Run ``plan``'s steps, checking each waypoint once the steps before it ran; mark the
    first unreached ``reports`` reached as their waypoints hold."""
    pending = [r for r in reports if not r.reached]
    ran: list[SkillResult] = []
    start = 0
    for k, (waypoint, report) in enumerate(zip(plan.waypoints, pending, strict=False)):
        part = execute(plan.steps[start : waypoint.after])
        ran.extend(part.steps)
        if part.failed is not None:
            return Pass(outcome=ExecutionResult(steps=ran, success=False),
                        remaining=plan.waypoints[k:])  # fmt: skip
        check = env.check(waypoint.goal)
        if not check.success:
            reason = (
                f"the waypoint {', '.join(map(str, waypoint.goal))} does not hold: {check.reason}"
            )
            missed = Failure(step=len(ran), call="the plan", reason=reason)
            return Pass(outcome=ExecutionResult(steps=ran, success=True), missed=missed,
                        remaining=plan.waypoints[k:])  # fmt: skip
        report.reached = True
        start = waypoint.after
    rest = execute(plan.steps[start:])
    ran.extend(rest.steps)
    return Pass(outcome=ExecutionResult(steps=ran, success=rest.success))


def unreached(reports: list[WaypointReport]) -> str:
    """Why the waypoints fail a run ("" when every one was reached)."""
    missed = [", ".join(map(str, r.goal)) for r in reports if not r.reached]
    return f"waypoint not reached in its turn: {'; '.join(missed)}" if missed else ""
