"""Issue 37, hardening round three: goals, skills, envs and readings that an adversarial run broke.

Each test failed on the code before its fix: a goal nested 5,000 deep, NaN in a skill's
arguments, a two-arm skill in a one-arm scene, "the instruction is empty" for text that is not,
duplicated check lines, a NaN action in ``TwoArmReach``, an unbounded ``air_height``, a coerced
``arms``.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import yaml

from claw.envs import TabletopEnv, predicates
from claw.envs.exceptions import InvalidSceneError, PredicateError
from claw.envs.predicates import evaluate_goal, parse_predicate
from claw.envs.scene import SceneSpec
from claw.planner import LLMPlanner
from claw.planner.exceptions import UnparseableError
from claw.planner.offline import OfflinePlanner
from claw.skills.exceptions import InvalidParamsError
from claw.skills.executor import bind, execute_calls
from claw.skills.plans import SkillCall
from tests.cli.test_failure_modes import one_error_line

Claw = Callable[..., subprocess.CompletedProcess[str]]
DEEP = "not(" * 5000 + "in(red_block, blue_box)" + ")" * 5000
PICK = json.dumps({"steps": [{"skill": "pick", "args": {"object": "red_block"}}]})


# -- 5: a goal nested 5,000 deep --------------------------------------------------------------


def test_a_predicate_nested_past_the_cap_is_one_short_error() -> None:
    with pytest.raises(PredicateError) as raised:
        parse_predicate(DEEP)
    message = str(raised.value)
    assert "5,001 deep" in message and f"at most {predicates.MAX_PREDICATE_DEPTH}" in message
    assert len(message) < 300, message
    assert str(parse_predicate("not(in(red_block, blue_box))")) == "not(in(red_block, blue_box))"


def test_a_model_answer_with_a_deep_goal_is_sent_back_for_repair(default_env: TabletopEnv) -> None:
    sent: list[str] = []
    answers = iter([json.dumps({"goal": [DEEP], **json.loads(PICK)}), PICK])

    def answer(messages: list[dict[str, str]]) -> str:
        sent.append(messages[-1]["content"])
        return next(answers)

    plan = LLMPlanner("gpt-4o-mini", mock=answer, backoff=0.0).plan("pick it", default_env)
    assert [call.skill for call in plan.steps] == ["pick"]
    assert len(sent) == 2 and "deep" in sent[1], sent[-1][:500]


def test_a_suite_with_a_deep_goal_is_one_invalid_suite_line(
    tmp_path: Path, claw_in_process: Claw
) -> None:
    suite = tmp_path / "deep.yaml"
    case = {"id": "deep", "instruction": "put the red block in the blue box", "goal": [DEEP]}
    suite.write_text(yaml.safe_dump({"name": "deep", "cases": [case]}, width=10**6))
    result = claw_in_process("eval", suite)
    assert result.returncode == 2
    assert "deep" in one_error_line(result, "invalid_suite")


# -- 8: "the instruction is empty" only for empty text ----------------------------------------


def _refusal(instruction: str, env: TabletopEnv) -> str:
    with pytest.raises(UnparseableError) as raised:
        OfflinePlanner().plan(instruction, env)
    return str(raised.value)


def test_switch_hands_with_nothing_held_says_so(make_env: Callable[..., TabletopEnv]) -> None:
    env = make_env(scene="two_arms")
    env.reset(seed=0)
    message = _refusal("switch hands", env)
    assert "empty" not in message and "nothing is held" in message, message


def test_fullwidth_text_reads_as_its_plain_letters(default_env: TabletopEnv) -> None:
    plan = OfflinePlanner().plan(
        "ｐｕｔ ｔｈｅ ｒｅｄ ｂｌｏｃｋ ｉｎ ｔｈｅ ｂｌｕｅ ｂｏｘ", default_env
    )
    assert [str(p) for p in plan.goal] == ["in(red_block, blue_box)"]


def test_text_with_no_english_says_the_reader_reads_english(default_env: TabletopEnv) -> None:
    message = _refusal("赤いブロックを青い箱に入れて", default_env)
    assert "empty" not in message and "English" in message and "offline+" in message, message
    assert "the instruction is empty" in _refusal(" \t\n", default_env)


# -- 9, 25: skills a scene does not offer -------------------------------------------------------


def test_the_unknown_skill_message_lists_the_scenes_skills(
    library_home: Path, claw_in_process: Claw
) -> None:
    line = one_error_line(claw_in_process("skills", "run", "wave"), "unknown_skill")
    assert "pick" in line and "handover" not in line and "lift_together" not in line, line
    two = claw_in_process("skills", "run", "wave", "--scene", "two_arms")
    assert "handover" in one_error_line(two, "unknown_skill")


def test_a_two_arm_skill_in_a_one_arm_scene_is_refused_before_anything_moves(
    library_home: Path, claw_in_process: Claw
) -> None:
    result = claw_in_process(
        "skills", "run", "handover", "--arg", "object=red_block", "--arg", "to=right"
    )
    assert result.returncode == 2
    assert "needs 2 arms; this scene has 1" in one_error_line(result, "unknown_skill")


# -- 10: NaN and Infinity in a skill's arguments ----------------------------------------------


@pytest.mark.parametrize("value", [float("nan"), float("inf"), "nan", "-Infinity"])
def test_non_finite_arguments_fail_validation(value: object, default_env: TabletopEnv) -> None:
    call = SkillCall(skill="move_to", args={"x": value, "y": 0.0, "z": 0.2})
    with pytest.raises(InvalidParamsError, match="finite"):
        bind(call, default_env.object_names)
    outcome = execute_calls(default_env, [call])
    assert outcome.steps[0].error == "invalid_params" and outcome.steps[0].sim_seconds == 0.0


# -- 15: each check once ------------------------------------------------------------------------


def test_a_repeated_goal_predicate_is_checked_once(default_env: TabletopEnv) -> None:
    goal = ["in(red_block, blue_box)", "inside(red_block, blue_box)", "on(red_block, red_box)"]
    result = evaluate_goal(goal, default_env.world_state())
    assert [str(r.predicate) for r in result.results] == [
        "in(red_block, blue_box)",
        "on(red_block, red_box)",
    ]


# -- 16: TwoArmReach ----------------------------------------------------------------------------


def test_two_arm_reach_refuses_a_nan_action_and_a_step_after_the_end() -> None:
    from claw.envs.multi_agent import TwoArmReach

    env = TwoArmReach(max_steps=2)
    try:
        env.reset(seed=0)
        still = {"left": np.zeros(3), "right": np.zeros(3)}
        with pytest.raises(ValueError, match=r"left.*finite"):
            env.step({**still, "left": np.array([np.nan, 0.0, 0.0])})
        for _ in range(2):
            observations, *_ = env.step(still)
        assert all(np.isfinite(o).all() for o in observations.values())
        assert env.agents == []
        with pytest.raises(RuntimeError, match="reset"):
            env.step(still)
    finally:
        env.close()


# -- 23, 24: fields that are coerced or unbounded ---------------------------------------------


@pytest.mark.parametrize("arms", [True, "2", 2.0])
def test_a_scene_arms_that_is_no_integer_is_refused(arms: object) -> None:
    objects = [{"type": "block", "color": "red", "pose": [0.45, 0.3]}]
    with pytest.raises(InvalidSceneError, match="arms"):
        SceneSpec(arms=arms, objects=objects)
    assert SceneSpec(arms=2, objects=objects).arms == 2


def test_pick_and_place_bounds_air_height_and_a_nan_goal_is_no_success() -> None:
    import gymnasium as gym

    import claw.envs  # noqa: F401  (registers the training envs)

    with pytest.raises(ValueError, match="air_height"):
        gym.make("claw/PickAndPlace-v0", difficulty={"air_height": 5.0})
    with pytest.raises(ValueError, match="air_height"):
        gym.make("claw/PickAndPlace-v0", difficulty={"air_height": float("inf")})
    env = gym.make("claw/PickAndPlace-v0")
    try:
        goal = np.array([0.5, 0.0, 0.02])
        reward = env.unwrapped.compute_reward(np.full(3, np.nan), goal, None)  # type: ignore[attr-defined]
        assert float(reward) == -1.0
        assert float(env.unwrapped.compute_reward(goal, goal, None)) == 0.0  # type: ignore[attr-defined]
    finally:
        env.close()
