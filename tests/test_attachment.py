"""Where a phrase belongs and what a frame asks for: a closing "on the table" after a place, "next
to each other", an opening "I think", a "but" after a remark, a wanted outcome ("I need the
blocks stacked"), the middle one of a row, "take out X from Y", and a take-out after a put."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from reading import goal_of

from claw.envs import TabletopEnv
from claw.envs.predicates import parse_predicate
from claw.planner import OfflinePlanner
from claw.planner.chatter import table_adjuncts
from claw.planner.exceptions import AmbiguousError
from claw.planner.robust import _casual
from claw.skills.executor import execute_calls

ROW = {
    "name": "row",
    "objects": [
        {"type": "block", "color": "red", "pose": [0.5, -0.12]},
        {"type": "block", "color": "green", "pose": [0.52, 0.0]},
        {"type": "block", "color": "yellow", "pose": [0.5, 0.12]},
        {"type": "box", "color": "blue", "pose": [0.66, 0.0]},
    ],
}
"""Three blocks in a row from right (-y) to left (+y), the green one in the middle."""
IN_BOX = {
    "name": "in_box",
    "objects": [
        {"type": "box", "color": "blue", "size": 0.16, "pose": [0.5, 0.12]},
        {"type": "block", "color": "red", "in": "blue_box"},
        {"type": "block", "color": "green", "pose": [0.55, -0.12]},
    ],
}


@pytest.fixture(scope="module")
def row() -> Iterator[TabletopEnv]:
    env = TabletopEnv()
    env.reset(seed=0, options={"scene": ROW})
    yield env
    env.close()


@pytest.fixture(scope="module")
def in_box() -> Iterator[TabletopEnv]:
    env = TabletopEnv()
    env.reset(seed=0, options={"scene": IN_BOX})
    yield env
    env.close()


@pytest.mark.parametrize(
    ("instruction", "goal"),
    [
        # a closing "on the table" says where the placement happens, not a second place
        (
            "Place the green block to the left of the blue box on the table.",
            ["left_of(green_block, blue_box)"],
        ),
        (
            "Place the yellow block behind the red block on the table.",
            ["behind(yellow_block, red_block)"],
        ),
        (
            "place the blue block on top of the yellow block on the table",
            ["on(blue_block, yellow_block)"],
        ),
        (
            "Place the yellow block between the red box and the blue box on the table.",
            ["between(yellow_block, red_box, blue_box)"],
        ),
        # reciprocal: the two together, not each next to some other object
        ("put the blue and green blocks next to each other", ["next_to(green_block, blue_block)"]),
        (
            "place the red block and the yellow block beside one another",
            ["next_to(yellow_block, red_block)"],
        ),
        # frames: an opening "I think", a remark before "but", "its" for "it's"
        ("i guess the red block could go in the middle of the table", ["at(red_block, center)"]),
        (
            "i think maybe the green one should go next to the blue box? if thats ok",
            ["next_to(green_block, blue_box)"],
        ),
        (
            "not sure if this works but can you stack the red and yellow blocks",
            ["stacked(red_block, yellow_block)"],
        ),
        (
            "move the blue block so its behind the yellow block",
            ["behind(blue_block, yellow_block)"],
        ),
        # a wanted outcome: the participle's verb done to the object
        ("i need the cool colored blocks stacked up", ["stacked(green_block, blue_block)"]),
        ("get the red block moved next to the blue box", ["next_to(red_block, blue_box)"]),
        # the object said first, the request about "it" without a verb first
        ("ok so the red block, i need it on the left side", ["at(red_block, left side)"]),
        # "w/" typed as one, colours as the head noun
        ("can u make a tower w/ the red and green blocks", ["stacked(red_block, green_block)"]),
        ("stack the warm colors", ["stacked(red_block, yellow_block)"]),
    ],
)
def test_forms_read_as_meant(default_env: TabletopEnv, instruction: str, goal: list[str]) -> None:
    assert goal_of(default_env, instruction) == goal


@pytest.mark.parametrize(
    ("instruction", "kept"),
    [
        ("put the red block in the box and the blue block on the table", True),  # its own place
        ("put the block that is next to the box on the table", True),  # the object's place
        ("take the red block from the box and put it on the table", True),
        ("put the red block on the table", True),
        ("put the red block next to the box on the table", False),
        ("set the cube between the bowl and the plate on the desk.", True),  # not a table word
        ("set the cube between the bowl and the plate on the table.", False),
    ],
)
def test_a_closing_table_is_left_out_only_after_a_place_of_its_own(
    instruction: str, kept: bool
) -> None:
    words = _casual(instruction)
    assert (not table_adjuncts(words)) == kept


def test_the_middle_block_is_the_one_between_the_others_along_the_row(row: TabletopEnv) -> None:
    assert goal_of(row, "move the middle block to the right side") == [
        "at(green_block, right side)"
    ]
    assert goal_of(row, "put the center block in the blue box") == ["in(green_block, blue_box)"]
    assert goal_of(row, "put the red block in the middle of the table") == ["at(red_block, center)"]


def test_an_even_row_has_no_middle(make_env: Any) -> None:
    env = make_env()
    env.reset(seed=0, options={"scene": {**ROW, "objects": ROW["objects"][1:]}})
    with pytest.raises(AmbiguousError, match="no middle"):
        OfflinePlanner().plan("pick up the middle block", env)


@pytest.mark.parametrize(
    "instruction",
    [
        "take out the red block from the blue box",
        "take out the red block",
        "you take the red block out from the box please",
    ],
)
def test_take_out_with_its_particle_first_or_from(in_box: TabletopEnv, instruction: str) -> None:
    assert goal_of(in_box, instruction) == ["next_to(red_block, blue_box)"]


@pytest.mark.parametrize(
    "instruction",
    [
        "put the green block in the blue box, then take it out of the box",
        "put the green block in the blue box, then take it out from the box",
    ],
)
def test_a_take_out_after_a_put_supersedes_it(in_box: TabletopEnv, instruction: str) -> None:
    """Before, the take-out named the box the block was not in yet, and the goal kept it in."""
    assert goal_of(in_box, instruction) == ["next_to(green_block, blue_box)"]


def test_place_left_of_on_the_table_reaches_its_goal_on_physics(make_env: Any) -> None:
    env = make_env()
    env.reset(seed=0, options={"scene": ROW})
    plan = OfflinePlanner().plan(
        "Place the red block to the left of the blue box on the table.", env
    )
    assert [str(p) for p in plan.goal] == ["left_of(red_block, blue_box)"]
    assert execute_calls(env, plan.steps).success
    assert env.check([parse_predicate("left_of(red_block, blue_box)")]).success


def test_the_middle_block_moves_on_physics(make_env: Any) -> None:
    env = make_env()
    env.reset(seed=0, options={"scene": ROW})
    plan = OfflinePlanner().plan("put the middle block in the blue box", env)
    assert execute_calls(env, plan.steps).success
    assert env.check([parse_predicate("in(green_block, blue_box)")]).success


@pytest.mark.parametrize(
    ("instruction", "goal"),
    [
        ("lift the green block off the table", ["holding(green_block)"]),  # a source, not a box
        ("put the green block on table", []),  # no article; it stands on the table already
        ("put the red block on table", ["next_to(red_block, blue_box)"]),
        # a pick then a place of the same object: the place is the goal, not holding it again
        (
            "pick the red block from the blue box and place it on the table",
            ["next_to(red_block, blue_box)"],
        ),
    ],
)
def test_the_table_as_source_and_a_pick_then_a_place(
    in_box: TabletopEnv, instruction: str, goal: list[str]
) -> None:
    assert goal_of(in_box, instruction) == goal
