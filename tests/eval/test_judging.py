"""``claw eval`` judges a push from the object's measured displacement, not the skill's report.

Each test builds a real env state (reset, nothing run) and a synthetic ``RunResult``; where the
object should have moved, the *start* (``before``, the qpos at reset) is shifted instead, which
is the same displacement without running a skill.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from claw.envs import TabletopEnv
from claw.eval.judging import judge, judge_push, start_xy
from claw.eval.suite import Case, ExpectedPush
from claw.runtime import RunResult
from claw.skills.push import DIRECTIONS, TOLERANCE

OBJECT, DIRECTION, DISTANCE = "green_block", "left", 0.05


@pytest.fixture
def env(make_env: Callable[..., TabletopEnv]) -> TabletopEnv:
    env = make_env(scene="default")
    env.reset(seed=0)
    return env


def push_case(goal: list[str] | None = None) -> Case:
    return Case(
        id="push",
        instruction="push the green block 5 cm to the left",
        goal=goal or [],
        expect_push=ExpectedPush(object=OBJECT, direction=DIRECTION, distance=DISTANCE),
    )


def push_step(distance: float = DISTANCE, success: bool = True, **extra: Any) -> dict[str, Any]:
    args = {"object": OBJECT, "direction": DIRECTION, "distance": distance, **extra}
    return {"skill": "push", "args": args, "success": success, "reason": "" if success else "no"}


def run_result(*steps: dict[str, Any]) -> RunResult:
    return RunResult(
        instruction="push", success=all(s["success"] for s in steps), steps=list(steps)
    )


def moved_from(env: TabletopEnv, displacement: np.ndarray) -> np.ndarray:
    """A ``before`` qpos in which ``OBJECT`` stood ``displacement`` (x, y) short of where it is."""
    before = env.data.qpos.copy()
    adr = int(env.model.jnt_qposadr[env.model.body(OBJECT).jntadr[0]])
    before[adr : adr + 2] -= displacement
    return before


def along(amount: float, direction: str = DIRECTION) -> np.ndarray:
    return amount * np.array(DIRECTIONS[direction])


def test_start_is_read_from_the_reset_qpos(env: TabletopEnv) -> None:
    before = env.data.qpos.copy()
    np.testing.assert_allclose(start_xy(env, OBJECT, before), env.world_state().get(OBJECT).xy)


def test_a_claimed_push_whose_object_did_not_move_fails(env: TabletopEnv) -> None:
    before = env.data.qpos.copy()  # the object is still where it was at reset
    success, reason, recall = judge(push_case(), env, run_result(push_step()), before)
    assert not success
    assert "green_block moved 0.0 cm left" in reason and "5.0 cm from where" in reason
    assert recall == 0.0  # the push is the case's one condition, and it does not hold


def test_a_push_that_moved_the_object_passes(env: TabletopEnv) -> None:
    before = moved_from(env, along(DISTANCE))
    assert judge(push_case(), env, run_result(push_step()), before) == (True, "", 1.0)


def test_a_push_recovered_in_two_steps_passes(env: TabletopEnv) -> None:
    """A replanned push (3 cm, then 2 cm more) reaches the case's 5 cm: judged by the state."""
    before = moved_from(env, along(DISTANCE))
    result = run_result(push_step(0.03), push_step(0.02))
    assert judge(push_case(), env, result, before) == (True, "", 1.0)


def test_the_direction_is_the_push_skills(env: TabletopEnv) -> None:
    for direction in DIRECTIONS:
        before = moved_from(env, along(DISTANCE, direction))
        success, reason, _ = judge(push_case(), env, run_result(push_step()), before)
        assert success == (direction == DIRECTION), (direction, reason)


@pytest.mark.parametrize(("miss", "ok"), [(TOLERANCE - 0.001, True), (TOLERANCE + 0.001, False)])
def test_the_tolerance_is_the_push_skills(env: TabletopEnv, miss: float, ok: bool) -> None:
    sideways = np.array([DIRECTIONS[DIRECTION][1], -DIRECTIONS[DIRECTION][0]])
    for off in (along(miss), -along(miss), miss * sideways):
        before = moved_from(env, along(DISTANCE) + off)
        pushed, reason, details = judge_push(push_case().expect_push, env, before)  # type: ignore[arg-type]
        assert pushed == ok, reason
        assert details["miss"] == pytest.approx(miss, abs=1e-4)
        assert details["tolerance"] == TOLERANCE


def test_a_failed_run_fails_even_when_the_object_got_there(env: TabletopEnv) -> None:
    """The state says the push happened; the run's own failure is still reported, and fails."""
    before = moved_from(env, along(DISTANCE))
    home = {"skill": "home", "args": {}, "success": False, "reason": "3 degrees from rest pose"}
    result = run_result(push_step(), home)
    success, reason, recall = judge(push_case(), env, result, before)
    assert not success and recall == 1.0
    assert "the goal holds but the run reported failure" in reason and "rest pose" in reason


def test_push_and_goal_both_count_in_recall(env: TabletopEnv) -> None:
    case = push_case(goal=["left_of(green_block, red_block)"])
    holds = env.check(case.goal or []).success
    before = env.data.qpos.copy()  # not pushed
    success, reason, recall = judge(case, env, run_result(push_step()), before)
    assert not success and "push green_block left 0.05 m" in reason
    assert recall == (0.5 if holds else 0.0)


def test_a_push_case_without_a_push_step_is_judged_by_the_state(env: TabletopEnv) -> None:
    """The object ended where asked without any push step (moved by pick and place, say)."""
    before = moved_from(env, along(DISTANCE))
    result = run_result({"skill": "pick", "args": {"object": OBJECT}, "success": True})
    assert judge(push_case(), env, result, before)[0]
