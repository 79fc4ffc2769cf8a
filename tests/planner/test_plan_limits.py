"""The plan length cap: every plan and replan, from any planner, is refused before it runs."""

from __future__ import annotations

import inspect
import json

import pytest

from claw.envs import TabletopEnv
from claw.planner.exceptions import InvalidPlanError, PlanTooLongError
from claw.planner.llm.planner import LLMPlanner
from claw.planner.offline import OfflinePlanner
from claw.planner.plan import MAX_PLAN_STEPS, check_plan_length
from claw.runtime import BasePlanner, run_instruction
from claw.skills.plans import Failure, Plan, SkillCall
from tests.planner.llm.test_llm_planner import (  # the plan the LLM tests answer with
    GOOD,
    INSTRUCTION,
)

HUGE = json.dumps({"goal": [], "steps": [{"skill": "home", "args": {}}] * 20_000, "error": None})


pytestmark = pytest.mark.usefixtures("library_home")


def scripted(*answers: str) -> LLMPlanner:
    replies = iter(answers)
    return LLMPlanner("gpt-4o-mini", mock=lambda messages: next(replies), backoff=0.01)


def test_the_default_cap_is_documented_and_used() -> None:
    assert MAX_PLAN_STEPS == 50
    assert inspect.signature(run_instruction).parameters["max_steps"].default == MAX_PLAN_STEPS
    check_plan_length(Plan(steps=[SkillCall(skill="home")] * MAX_PLAN_STEPS))
    with pytest.raises(PlanTooLongError) as caught:
        check_plan_length(Plan(steps=[SkillCall(skill="home")] * (MAX_PLAN_STEPS + 1)))
    assert caught.value.kind == "plan_too_long"


def test_an_offline_plan_over_the_cap_is_refused_before_anything_moves(env: TabletopEnv) -> None:
    before = env.data.qpos.copy()
    result = run_instruction(env, INSTRUCTION, OfflinePlanner(), max_steps=1)
    assert result.error is not None and result.error.kind == "plan_too_long"
    message = result.error.message
    assert "2 steps" in message and "cap of 1" in message and "--max-steps" in message
    assert not result.steps and not result.success and (env.data.qpos == before).all()


class ReplansLong(BasePlanner):
    """A first plan whose step fails without moving; then a replan of 60 steps."""

    name = "stub"

    def plan(self, instruction: str, env: TabletopEnv) -> Plan:
        place = SkillCall(skill="place", args={"target": "blue_box", "relation": "next_to"})
        return Plan(goal=["next_to(red_block, blue_box)"], steps=[place])

    def replan(
        self, instruction: str, plan: Plan, env: TabletopEnv, failure: Failure | None = None
    ) -> Plan:
        return Plan(goal=plan.goal, steps=[SkillCall(skill="home")] * 60)


def test_a_replan_over_the_cap_is_refused(env: TabletopEnv) -> None:
    result = run_instruction(env, INSTRUCTION, ReplansLong())
    assert result.error is not None and result.error.kind == "plan_too_long"
    assert "60 steps" in result.error.message
    assert [s.skill for s in result.steps] == ["place"]  # none of the replan ran


@pytest.mark.slow
def test_a_huge_model_plan_is_not_repaired_for_ever(env: TabletopEnv) -> None:
    before = env.data.qpos.copy()
    llm = scripted(HUGE, HUGE, json.dumps(GOOD))
    result = run_instruction(env, INSTRUCTION, llm)
    assert result.error is not None and result.error.kind == "invalid_plan"
    assert "20000 steps" in result.error.message and "cap of 50" in result.error.message
    assert llm.usage.calls == 2  # asked once to shorten it, then given up
    assert max(len(m["content"]) for m in llm.messages) < 20_000  # not echoed back in full
    assert not result.steps and (env.data.qpos == before).all()


@pytest.mark.slow
def test_a_model_may_shorten_a_plan_once(env: TabletopEnv) -> None:
    llm = scripted(HUGE, json.dumps(GOOD))
    result = run_instruction(env, INSTRUCTION, llm)
    assert result.success, result
    assert "20000 steps" in llm.messages[-2]["content"]


def test_the_llm_planner_is_given_the_runs_cap(env: TabletopEnv) -> None:
    llm = scripted(json.dumps(GOOD), json.dumps(GOOD))
    result = run_instruction(env, INSTRUCTION, llm, max_steps=1)
    assert llm.max_steps == 1
    assert result.error is not None and result.error.kind == "invalid_plan"
    alone = LLMPlanner("gpt-4o-mini", mock=lambda m: json.dumps(GOOD), max_steps=1)
    with pytest.raises(InvalidPlanError, match="cap of 1"):
        alone.plan(INSTRUCTION, env)
