"""The robust reader (claw.planner.language.robust) and sequences as ordered subgoals, on the scene
and on physics."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from typer.testing import CliRunner

from claw.cli import app
from claw.envs import TabletopEnv
from claw.planner import OfflinePlanner
from claw.planner.exceptions import UnparseableError
from claw.planner.language.robust import read_instruction, typo_distance
from claw.runtime import run_instruction
from tests.reading import goal_of

MakeEnv = Callable[..., TabletopEnv]


@pytest.mark.parametrize(
    ("instruction", "goal"),
    [
        ("hey robot, can u put the red block in the blue box pls", ["in(red_block, blue_box)"]),
        ("um put like the red block on the green one", ["on(red_block, green_block)"]),
        ("put teh red block in the blue box", ["in(red_block, blue_box)"]),
        ("plz move the gren block next to the red box thanks!", ["next_to(green_block, red_box)"]),
        ("hello! please put the red cube in the blue box. thank you!", ["in(red_block, blue_box)"]),
        (
            "hey there, would it be possible for you to put the yellow block in the red box?",
            ["in(yellow_block, red_box)"],
        ),
        ("could you put the red block in the blue box when you get a chance",
         ["in(red_block, blue_box)"]),
        ("i wanna have the red block in the blue box", ["in(red_block, blue_box)"]),
        ("um so basically i want the red block in the blue box ok", ["in(red_block, blue_box)"]),
        ("red block in blue box", ["in(red_block, blue_box)"]),
        ("put red in blue", ["in(red_block, blue_box)"]),
        # a gerund after the preamble; words typed without the space between them
        ("wud u mind puttin the red blok in da blue box", ["in(red_block, blue_box)"]),
        ("how about putting the green block next to the red box",
         ["next_to(green_block, red_box)"]),
        ("put teh red blcok inthe blue box", ["in(red_block, blue_box)"]),
        ("put the redblock in the bluebox", ["in(red_block, blue_box)"]),
        # a question that asks how to do it; a particle; the verb last; a task's name; no "the"
        ("what would the robot need to do to put the green block in the red box?",
         ["in(green_block, red_box)"]),
        ("In: what's the best way to stack the red block on the blue block?\nOut:",
         ["on(red_block, blue_block)"]),
        ("put away the yellow block in the red box", ["in(yellow_block, red_box)"]),
        ("putting the green block away in the blue box", ["in(green_block, blue_box)"]),
        ("blue block pick up", ["holding(blue_block)"]),
        ("box sorting: put the green block in the red box", ["in(green_block, red_box)"]),
        ("pick green block from desk", ["holding(green_block)"]),
        # a request's verb before a colon, what it acts on after it
        ("build a tower: yellow at the bottom, then blue, then red on top",
         ["stacked(yellow_block, blue_block, red_block)"]),
        ("stack these: blue bottom, then green, yellow top",
         ["stacked(blue_block, green_block, yellow_block)"]),
        ("so I want a tower: green first, then red", ["stacked(green_block, red_block)"]),
        ("the yellows in the blue box pls", ["in(yellow_block, blue_box)"]),  # a colour's ones
        ("assemble in this order: red bottom, then blue, green top",
         ["stacked(red_block, blue_block, green_block)"]),
        ("green in the red box. no wait, the blue box", ["in(green_block, blue_box)"]),
        # a dismissal before a request
        ("forget the red box, just put the green block in the blue box",
         ["in(green_block, blue_box)"]),
        ("never mind the yellow one. stack the red block on the blue block",
         ["on(red_block, blue_block)"]),
        # what is said of the scene, beside the request
        ("my desk is messy. put the red block in the blue box", ["in(red_block, blue_box)"]),
        # the objects to move named together, before where each goes
        ("your goal is to move the blocks. the red block should be on the blue block.",
         ["on(red_block, blue_block)"]),
        # a list's items, each a step
        ("plan:\n- yellow block -> red box\n- green block -> blue box",
         ["in(yellow_block, red_box)", "in(green_block, blue_box)"]),
        ("1) green on red\n2) yellow on green", ["on(green_block, red_block)",
                                                 "on(yellow_block, green_block)"]),
        ("[ ] blue block behind the red box\n[ ] yellow block in the blue box",
         ["behind(blue_block, red_box)", "in(yellow_block, blue_box)"]),
    ],
)  # fmt: skip
def test_casual_forms_read_as_the_request(
    default_env: TabletopEnv, instruction: str, goal: list[str]
) -> None:
    assert goal_of(default_env, instruction) == goal


def test_what_was_left_out_and_corrected_is_reported(default_env: TabletopEnv) -> None:
    plan = OfflinePlanner().plan("yo bot, plz put teh red cube in the blue box thx", default_env)
    assert plan.reading is not None
    assert plan.reading.ignored == ["yo", "bot"]
    assert plan.reading.corrected == {"teh": "the"}
    plain = OfflinePlanner().plan("put the red block in the blue box", default_env)
    assert plain.reading is None


def test_a_word_that_could_name_something_is_not_skipped(default_env: TabletopEnv) -> None:
    # "gree" is as near "green" as "grey" and the scene has neither grey nor ... both unsure:
    # the reading that drops it would move some block; it is refused naming the word
    with pytest.raises(UnparseableError, match="gree"):
        read_instruction("put the gree block in the blue box", scene_words={"green", "gray"})


def test_a_tie_is_broken_by_what_the_scene_has() -> None:
    reading = read_instruction("put the gree block in the blue box", scene_words={"green"})
    assert reading.corrected == (("gree", "green", "spelling", None),)


def test_typing_distance_weighs_slips_lightly() -> None:
    assert typo_distance("teh", "the") == 0.5  # swapped
    assert typo_distance("gren", "green") == 0.5  # a doubled letter typed once
    assert typo_distance("bloock", "block") == 0.5
    assert typo_distance("blok", "block") == 1.0
    assert typo_distance("grey", "green") == 1.5


def test_words_that_are_english_are_not_corrected() -> None:
    # "when" is one edit from "then", but it is a word: left out, not read as "then"
    reading = read_instruction("put the red block in the box when you can")
    assert ("when", "then") not in reading.corrected


def test_gibberish_is_still_refused(default_env: TabletopEnv) -> None:
    with pytest.raises(UnparseableError):
        OfflinePlanner().plan("hello there, how are you today?", default_env)


def test_a_later_turn_supersedes_an_earlier_one(default_env: TabletopEnv) -> None:
    plan = OfflinePlanner().plan(
        "move the green block to the left side, then onto the red block", default_env
    )
    assert [str(p) for p in plan.goal] == ["on(green_block, red_block)"]
    assert [[str(p) for p in w.goal] for w in plan.waypoints] == [["at(green_block, left side)"]]
    assert plan.steps[plan.waypoints[0].after - 1].args["target"] == "left side"


def test_a_conjunction_in_one_turn_is_kept_whole(default_env: TabletopEnv) -> None:
    plan = OfflinePlanner().plan(
        "put the red block next to the blue box and in front of the green block", default_env
    )
    assert not plan.waypoints
    assert len(plan.goal) == 2


@pytest.mark.slow
def test_the_sequence_succeeds_on_physics_without_a_replan(make_env: MakeEnv) -> None:
    env = make_env()
    env.reset(seed=0, options={"scene": "default"})
    result = run_instruction(
        env, "move the green block to the left side, then onto the red block", OfflinePlanner()
    )
    assert result.success, result.reason
    assert result.replans == 0
    assert [w.reached for w in result.waypoints] == [True]
    assert env.check(["on(green_block, red_block)"]).success


def test_contradictory_goals_are_refused_before_anything_moves(make_env: MakeEnv) -> None:
    env = make_env()
    env.reset(seed=1, options={"scene": "default"})
    result = run_instruction(
        env,
        "put the red block on the green block, then put the green block on the red block",
        OfflinePlanner(),
    )
    assert result.error is not None and result.error.kind == "unsupported"
    assert "rest on itself" in result.error.message
    assert not result.steps


def run_json(instruction: str) -> dict[str, object]:
    result = CliRunner().invoke(app, ["run", instruction, "--json"])
    return json.loads(result.stdout)  # type: ignore[no-any-return]


@pytest.mark.slow
def test_json_reports_reading_and_waypoints() -> None:
    data = run_json("move the green block to the left side, then onto the red block")
    assert data["waypoints"] == [{"goal": ["at(green_block, left side)"], "reached": True}]
    assert data["reading"] is None
    data = run_json("yo, put teh red block in the blue box")
    assert data["reading"] == {
        "ignored": ["yo"],
        "corrected": {"teh": "the"},
        "matched": [{"typed": "teh", "read": "the", "how": "spelling", "score": None}],
    }
    assert data["success"] is True


TOWARDS_SCENE = {
    "name": "towards",
    "objects": [
        {"type": "block", "color": "red", "pose": [0.45, 0.10]},
        {"type": "box", "color": "blue", "pose": [0.45, -0.12]},
    ],
}


@pytest.mark.slow
def test_a_push_towards_an_object_ends_next_to_it(make_env: MakeEnv) -> None:
    env = make_env()
    env.reset(seed=0, options={"scene": TOWARDS_SCENE})
    assert not env.check(["next_to(red_block, blue_box)"]).success
    result = run_instruction(env, "push the red block towards the blue box", OfflinePlanner())
    assert result.success, result.reason
    assert [s.skill for s in result.steps] == ["push"]
    assert result.steps[0].args["direction"] == "right"
    assert env.check(["next_to(red_block, blue_box)"]).success


@pytest.mark.slow
def test_a_push_away_moves_it_further_off(make_env: MakeEnv) -> None:
    env = make_env()
    env.reset(seed=0, options={"scene": TOWARDS_SCENE})
    before = env.world_state()
    gap = abs(before.get("red_block").xy[1] - before.get("blue_box").xy[1])
    result = run_instruction(env, "push the red block away from the blue box", OfflinePlanner())
    assert result.success, result.reason
    after = env.world_state()
    assert abs(after.get("red_block").xy[1] - after.get("blue_box").xy[1]) > gap + 0.08


def test_a_tower_then_a_move_of_its_top_makes_the_tower_a_waypoint(
    default_env: TabletopEnv,
) -> None:
    plan = OfflinePlanner().plan(
        "stack the red, green and blue blocks, then put the blue block on the red block",
        default_env,
    )
    assert [str(p) for p in plan.goal] == ["on(blue_block, red_block)"]
    assert [str(p) for w in plan.waypoints for p in w.goal] == [
        "stacked(red_block, green_block, blue_block)"
    ]


@pytest.mark.parametrize(
    "instruction",
    [
        "put the red block between the green and blue blocks",
        "put the red block between the green block and the blue block",
        "place the red cube in between the green block and the blue one",
    ],
)
def test_between_two_objects(default_env: TabletopEnv, instruction: str) -> None:
    assert goal_of(default_env, instruction) == ["between(red_block, green_block, blue_block)"]


def test_between_needs_two_others(default_env: TabletopEnv) -> None:
    with pytest.raises(UnparseableError, match="two other objects"):
        OfflinePlanner().plan("put the red block between the blue box", default_env)


@pytest.mark.slow
def test_a_push_to_a_relation_slides_it_there_on_physics(make_env: MakeEnv) -> None:
    scene = {
        "name": "push-until",
        "objects": [
            {"type": "block", "color": "red", "pose": [0.50, -0.05]},
            {"type": "block", "color": "blue", "pose": [0.45, 0.08]},
        ],
    }
    env = make_env()
    env.reset(seed=0, options={"scene": scene})
    result = run_instruction(env, "push the red block behind the blue block", OfflinePlanner())
    assert result.success, result.reason
    assert [s.skill for s in result.steps] == ["push"]
    assert result.steps[0].args["direction"] == "far"
    assert env.check(["behind(red_block, blue_block)"]).success


def test_put_it_in_then_take_it_out(default_env: TabletopEnv) -> None:
    plan = OfflinePlanner().plan("put the red block in the blue box then take it out", default_env)
    assert [str(p) for p in plan.goal] == ["next_to(red_block, blue_box)"]
    assert [str(p) for w in plan.waypoints for p in w.goal] == ["in(red_block, blue_box)"]


@pytest.mark.parametrize(
    ("instruction", "goal"),
    [
        ("put the red block on the bottom side of the blue box",
         "in_front_of(red_block, blue_box)"),
        ("push the red block between the green and blue blocks",
         "between(red_block, green_block, blue_block)"),
    ],
)  # fmt: skip
def test_sides_and_pushes_between(default_env: TabletopEnv, instruction: str, goal: str) -> None:
    assert goal_of(default_env, instruction) == [goal]
