"""The executor of skill calls (validate all, run in order, stop at the first failure) and the
skill benchmark's smoke run."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError

from claw.envs import TabletopEnv
from claw.envs.relations import relation_names
from claw.skills.base import SkillResult
from claw.skills.bench import bench_skills
from claw.skills.executor import ExecutionResult, execute_calls
from claw.skills.plans import SkillCall

PICK_PLACE_HOME: list[dict[str, Any]] = [
    {"skill": "pick", "args": {"object": "red_block"}},
    {"skill": "place", "args": {"target": "blue_box", "relation": "in"}},
    {"skill": "home"},
]


def assert_untouched(env: TabletopEnv, qpos: np.ndarray, time: float) -> None:
    np.testing.assert_array_equal(env.data.qpos, qpos)
    assert env.data.time == time


@pytest.mark.slow
def test_a_valid_plan_runs_every_step(clear_env: TabletopEnv) -> None:
    result = execute_calls(clear_env, [SkillCall.model_validate(c) for c in PICK_PLACE_HOME])

    assert result.success
    assert result.failed is None
    assert [s.skill for s in result.steps] == ["pick", "place", "home"]
    assert all(s.success and s.error is None and s.reason == "" for s in result.steps)
    assert result.steps[0].args == {"object": "red_block"}
    assert result.steps[1].args == {"target": "blue_box", "relation": "in"}
    assert result.steps[2].args == {}
    assert "red_block" in result.steps[0].touched
    assert all(s.sim_seconds > 0 for s in result.steps)
    assert result.sim_seconds == pytest.approx(sum(s.sim_seconds for s in result.steps))
    assert result.sim_seconds == pytest.approx(clear_env.data.time, abs=0.02)
    assert clear_env.check(["in(red_block, blue_box)"]).success  # measured, not declared


@pytest.mark.slow
def test_calls_may_be_dicts_or_skill_calls(clear_env: TabletopEnv) -> None:
    call = SkillCall(skill="move_to", args={"x": 0.5, "y": 0.0, "z": 0.2})
    assert str(call) == "move_to(x=0.5, y=0.0, z=0.2)"
    result = execute_calls(clear_env, [call, {"skill": "open_gripper"}])
    assert result.success
    assert [s.skill for s in result.steps] == ["move_to", "open_gripper"]
    with pytest.raises(ValidationError):
        SkillCall.model_validate({"skill": "home", "arguments": {}})


def test_validation_happens_before_anything_moves(clear_env: TabletopEnv) -> None:
    env = clear_env
    qpos, time = env.data.qpos.copy(), env.data.time
    plan = [*PICK_PLACE_HOME[:2], {"skill": "pick", "args": {"object": "purple_block"}}]

    result = execute_calls(env, plan)

    assert not result.success
    assert len(result.steps) == 1
    step = result.steps[0]
    assert step.skill == "pick"
    assert step.args == {"object": "purple_block"}
    assert step.error == "unknown_object"
    assert "purple_block" in step.reason
    assert "red_block" in step.reason  # lists the scene's objects
    assert result.failed is step
    assert result.sim_seconds == 0
    assert_untouched(env, qpos, time)


def test_unknown_skill(clear_env: TabletopEnv) -> None:
    qpos, time = clear_env.data.qpos.copy(), clear_env.data.time
    result = execute_calls(clear_env, [PICK_PLACE_HOME[0], {"skill": "juggle", "args": {}}])
    assert not result.success
    [step] = result.steps
    assert step.error == "unknown_skill"
    assert "'juggle'" in step.reason
    assert "pick" in step.reason
    assert_untouched(clear_env, qpos, time)


def test_unknown_region(clear_env: TabletopEnv) -> None:
    plan = [PICK_PLACE_HOME[0], {"skill": "place", "args": {"target": "moon", "relation": "at"}}]
    result = execute_calls(clear_env, plan)
    [step] = result.steps
    assert step.error == "invalid_predicate"
    assert "unknown region 'moon'" in step.reason
    assert "far left corner" in step.reason


def _call(skill: str, **args: Any) -> dict[str, Any]:
    return {"skill": skill, "args": args}


@pytest.mark.parametrize(
    ("call", "field", "message"),
    [
        (_call("pick"), "object", "Field required"),
        (_call("pick", object="red_block", color="red"), "color", "Extra inputs"),
        (_call("place", target="green_block", relation="under"), "relation", "'next_to'"),
        (_call("push", object="red_block", direction="up", distance=0.1), "direction", "'far'"),
        (_call("push", object="red_block", direction="left", distance=0.5), "distance", "0.3"),
        (_call("move_to", x=0.5, y=0.0, z="high"), "z", "number"),
        (_call("home", speed=2), "speed", "Extra inputs"),
    ],
)
def test_invalid_params_name_the_field(
    clear_env: TabletopEnv, call: dict[str, Any], field: str, message: str
) -> None:
    qpos, time = clear_env.data.qpos.copy(), clear_env.data.time
    result = execute_calls(clear_env, [{"skill": "open_gripper"}, call])
    [step] = result.steps
    assert step.error == "invalid_params"
    assert step.reason.startswith(f"{call['skill']}: {field}: ")
    assert message in step.reason
    assert_untouched(clear_env, qpos, time)


@pytest.mark.slow
def test_stops_at_the_first_failure(crowded_env: TabletopEnv) -> None:
    env = crowded_env
    plan = [
        {"skill": "pick", "args": {"object": "red_block"}},
        {"skill": "place", "args": {"target": "pink_block", "relation": "next_to"}},
        {"skill": "home"},
    ]
    result = execute_calls(env, plan)

    assert not result.success
    assert len(result.steps) == 2  # home never ran
    assert result.steps[0].success
    failed = result.failed
    assert isinstance(failed, SkillResult)
    assert failed is result.steps[1]
    assert failed.skill == "place"
    assert failed.error is None  # it validated; the physics said no
    assert "no free spot next to pink_block" in failed.reason
    assert env.check(["holding(red_block)"]).results[0].holds


def test_a_precondition_failing_at_run_time_stops_the_run(clear_env: TabletopEnv) -> None:
    plan = [
        {"skill": "place", "args": {"target": "green_block", "relation": "on"}},
        {"skill": "home"},
    ]
    result = execute_calls(clear_env, plan)
    assert not result.success
    [step] = result.steps
    assert step.error is None
    assert "nothing is held" in step.reason
    assert result.sim_seconds == 0


def test_an_empty_plan_succeeds(clear_env: TabletopEnv) -> None:
    result = execute_calls(clear_env, [])
    assert result == ExecutionResult(steps=[], success=True)
    assert result.failed is None


@pytest.mark.slow
def test_bench_skills_smoke() -> None:
    bench = bench_skills(episodes=1, seed=0, tasks=False)
    assert bench.episodes == 1
    rows = {(r["skill"], r["relation"]): r for r in bench.rows}
    assert {skill for skill, _ in rows} == {"pick", "place", "push"}
    for row in bench.rows:
        assert row["attempts"] >= 1
        assert 0.0 <= row["success_rate"] <= 1.0
        assert row["successes"] <= row["attempts"]
        assert row["mean_sim_seconds"] > 0
    placed = {relation for skill, relation in rows if skill == "place"}
    # Every relation was tried, or its task recorded as infeasible.
    for relation in relation_names():
        assert relation in placed or f"place {relation}" in bench.infeasible_draws
    assert rows[("pick", "")]["attempts"] >= sum(rows[("place", r)]["attempts"] for r in placed)
    assert bench.pick_place_real_time_factor > 0
    assert len(bench.failures) == sum(r["attempts"] - r["successes"] for r in bench.rows)


@pytest.mark.parametrize(
    "raw",
    [
        {"skill": "pick", "arguments": {"object": "red_block"}},
        {"args": {"object": "red_block"}},
        "pick the red block",
        {"skill": "pick", "args": ["red_block"]},
    ],
)
def test_malformed_call_is_a_result_not_an_exception(clear_env: TabletopEnv, raw: Any) -> None:
    result = execute_calls(clear_env, [raw])
    assert not result.success
    assert result.steps[0].error == "invalid_params"
    assert "malformed skill call" in result.steps[0].reason


def test_prefer_picks_an_implementation_where_one_exists(clear_env: TabletopEnv) -> None:
    from claw.skills import base, registry

    class LearnedHome(base.Skill):
        name = "home"
        description = "test double"
        implementation = "learned"

        def execute(self, env: Any, params: base.SkillParams) -> base.SkillResult:
            return base.SkillResult(skill="home", success=True, details={"by": "learned"})

    registry.register_skill(LearnedHome)
    try:
        calls = [{"skill": "home"}, {"skill": "open_gripper"}]
        result = execute_calls(clear_env, calls, prefer="learned")
        assert result.success
        assert result.steps[0].details == {"by": "learned"}  # the preferred one ran
        assert "width" in result.steps[1].details  # no learned open_gripper: the controller ran
        assert "by" not in execute_calls(clear_env, calls).steps[0].details
    finally:
        del registry._REGISTRY["home"]["learned"]
