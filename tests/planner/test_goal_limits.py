"""Issue 37's round-three findings 1, 11, 12 and 13: a goal said thousands of times, and what
two arms (or one) can hold and push, refused before anything moves."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from claw.common.exceptions import ClawError
from claw.envs import TabletopEnv
from claw.planner import OfflinePlanner
from claw.planner.exceptions import PlanTooLongError, UnparseableError, UnsupportedError
from claw.planner.plan import MAX_GOAL_PREDICATES, read_goal
from claw.planner.steps.ordering import order_goals
from claw.runtime import Session, run_instruction


def test_a_predicate_said_thousands_of_times_is_one_goal(default_env: TabletopEnv) -> None:
    # finding 1: 3,000 copies of one predicate (80 KB) ordered in O(n^3) ran past 150 s
    goal, problems = read_goal(["in(red_block, blue_box)"] * 3000, default_env.object_names)
    assert [str(g) for g in goal] == ["in(red_block, blue_box)"] and problems == []
    ordered = order_goals(goal * 3000, default_env.world_state())
    assert [str(g) for g in ordered] == ["in(red_block, blue_box)"]


def test_a_goal_of_more_predicates_than_the_cap_is_one_problem(default_env: TabletopEnv) -> None:
    names = default_env.object_names
    said = [
        f"{relation}({a}, {b})"
        for relation in ("left_of", "right_of", "behind", "in_front_of")
        for a, b in itertools.permutations(names, 2)
    ]
    assert len(said) > MAX_GOAL_PREDICATES
    goal, problems = read_goal(said, names)
    assert goal == [] and len(problems) == 1 and isinstance(problems[0], PlanTooLongError)
    assert "cap of 100" in str(problems[0])
    goal, problems = read_goal(said[:MAX_GOAL_PREDICATES], names)
    assert len(goal) == MAX_GOAL_PREDICATES and problems == []


@pytest.fixture(scope="module")
def two_arms() -> Iterator[TabletopEnv]:
    env = TabletopEnv()
    env.reset(seed=0, options={"scene": "two_arms"})
    yield env
    env.close()


@pytest.mark.parametrize(
    ("instruction", "error", "match"),
    [
        # finding 11: planned as pick + handover and run, then failed
        ("lift the red block with both arms", UnsupportedError, "one claw holds it"),
        ("both arms hold the red block", UnparseableError, "'both arms'"),  # was: one arm
        # finding 12: the arm phrase was dropped and one arm pushed
        ("push the bar forward with both arms", UnsupportedError, "two claws do not push"),
    ],
)
def test_what_two_arms_cannot_do_together_is_refused_before_anything_moves(
    two_arms: TabletopEnv, instruction: str, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        OfflinePlanner().plan(instruction, two_arms)


def test_a_goal_holding_a_short_object_in_both_claws_is_refused(two_arms: TabletopEnv) -> None:
    # a model's goal in goal mode reaches the step generator, not the reader
    world = two_arms.world_state()
    goal = ["holding(red_block, left)", "holding(red_block, right)"]
    with pytest.raises(UnsupportedError, match="red_block is 4 cm long"):
        OfflinePlanner().steps([*read_goal(goal, two_arms.object_names)[0]], world)


BAR_SCENE = {
    "name": "one_arm_bar",
    "objects": [
        {"type": "block", "color": "red", "pose": [0.45, 0.15]},
        {"type": "bar", "color": "yellow", "pose": [0.55, 0.0, 90]},
    ],
}


def test_a_bar_in_a_one_arm_scene_is_refused_before_anything_moves() -> None:
    # finding 13: planned, refused at the step, replanned three times the same way, and the
    # message offered lift_together, which a one-arm scene lacks
    with Session(BAR_SCENE) as session:
        session.reset(0)
        before = session.env.data.qpos.copy()
        for text in ("pick up the bar", "put the yellow bar next to the red block"):
            result = run_instruction(session.env, text, OfflinePlanner())
            assert result.error is not None and result.error.kind == "unsupported"
            assert "this scene has one arm" in result.error.message
            assert result.steps == [] and result.replans == 0
            assert (session.env.data.qpos == before).all()
        world = session.env.world_state()  # a model's goal, in goal mode, likewise
        with pytest.raises(UnsupportedError, match="one arm"):
            OfflinePlanner().steps(read_goal(["holding(yellow_bar)"], ["yellow_bar"])[0], world)


def test_a_models_two_arm_step_in_a_one_arm_scene_is_a_problem_to_repair(
    default_env: TabletopEnv,
) -> None:
    # it was refused at the step (exit 2), but never sent back to the model as a problem
    from claw.planner.plan import plan_problems
    from claw.skills.plans import Plan

    plan = Plan(
        goal=["holding(red_block)"],
        steps=[
            {"skill": "pick", "args": {"object": "red_block"}},
            {"skill": "handover", "args": {"object": "red_block", "to": "right"}},
        ],
    )
    problems = plan_problems(plan, default_env)
    assert len(problems) == 1 and "handover needs 2 arms" in str(problems[0])


def test_a_models_unknown_skill_is_answered_with_the_scenes_skills(
    default_env: TabletopEnv, library_home: object
) -> None:
    # the repair listed "with two arms: handover, lift_together" in a one-arm scene
    import json

    from claw.planner import LLMPlanner

    bad = json.dumps({"goal": [], "steps": [{"skill": "rm_rf", "args": {}}], "error": None})
    answers = iter([bad] * 3)
    llm = LLMPlanner("gpt-4o-mini", mock=lambda messages: next(answers), backoff=0.01)
    with pytest.raises(ClawError) as failed:
        llm.plan("put the green block next to the blue box", default_env)
    repair = llm.messages[-2]["content"]
    assert "unknown skill 'rm_rf'" in repair and "handover" not in repair
    assert "handover" not in str(failed.value) and "lift_together" not in str(failed.value)
