"""Requests in a frame: a heading before a colon, the object said first, the spot a place is
said in, a box said to hold something, a goal stated with a copula; and references the scene
settles: "from the box" among two boxes, "the box" named before, the edge nearest the speaker."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from claw.envs import TabletopEnv
from claw.envs.exceptions import UnknownObjectError
from claw.planner import OfflinePlanner
from claw.planner.exceptions import AmbiguousError, UnparseableError
from claw.planner.language.indirect import holder, topic
from tests.reading import goal_of, scene_env

TWO_BOXES = {
    "name": "two_boxes",
    "objects": [
        {"type": "box", "color": "gray", "size": 0.16, "pose": [0.45, 0.15]},
        {"type": "block", "color": "blue", "in": "gray_box"},
        {"type": "box", "color": "brown", "pose": [0.45, -0.15]},
        {"type": "block", "color": "yellow", "pose": [0.6, 0.0]},
    ],
}


@pytest.fixture(scope="module")
def two_boxes() -> Iterator[TabletopEnv]:
    yield from scene_env(TWO_BOXES)


@pytest.mark.parametrize(
    ("instruction", "goal"),
    [
        # headings: one that asks for something, one that names nothing, numbered steps
        (
            "Sort the blocks by colour: the red block goes in the red box and the blue block in "
            "the blue box.",
            ["in(red_block, red_box)", "in(blue_block, blue_box)"],
        ),
        ("Goal: red block in the blue box", ["in(red_block, blue_box)"]),
        (
            "Step 1: move the green block next to the blue box. Step 2: stack the yellow block "
            "on top of the green block.",
            ["next_to(green_block, blue_box)", "on(yellow_block, green_block)"],
        ),
        (
            "Deliverable: red block and green block both in the red box. Thanks team.",
            ["in(red_block, red_box)", "in(green_block, red_box)"],
        ),
        # the object said first: as the request's "it", or after its verb; across a full stop
        ("Red block: put it in the blue box", ["in(red_block, blue_box)"]),
        ("green cube, place on top of yellow cube", ["on(green_block, yellow_block)"]),
        (
            "ok ok ok just. the blue block. put it next to the red box. please.",
            ["next_to(blue_block, red_box)"],
        ),
        # the spot a place is said in
        ("move the yellow block to the vacant area behind the green block",
         ["behind(yellow_block, green_block)"]),
        ("place the green cube in the empty space between the two boxes",
         ["between(green_block, blue_box, red_box)"]),
        ("set the green block down in the open spot near the red box",
         ["next_to(green_block, red_box)"]),
        # a box said to hold something
        ("the red box should end up holding the green block", ["in(green_block, red_box)"]),
        ("can you make the blue box hold the red block please", ["in(red_block, blue_box)"]),
        ("the blue box should contain the red block and the green block",
         ["in(red_block, blue_box)", "in(green_block, blue_box)"]),
        # a goal stated with a copula
        ("the target state is the blue block stacked on the yellow block",
         ["on(blue_block, yellow_block)"]),
        ("what i want is the green block on the red block", ["on(green_block, red_block)"]),
        ("I want that the green block stays in the red box", ["in(green_block, red_box)"]),
        # the edge nearest the speaker, pushed or placed; "mid"; punctuation said aloud
        ("slide the blue block over to the edge nearest me", ["at(blue_block, near side)"]),
        ("move green cube to mid", ["at(green_block, center)"]),
        ("put the red block in the blue box period then put the green block on it",
         ["in(red_block, blue_box)", "on(green_block, red_block)"]),
        # a closing remark after a comma; "such that"; "nearest X"; "on the far left"
        ("lift the green block and place it onto the yellow block, thanks a lot",
         ["on(green_block, yellow_block)"]),
        ("place the red block such that it sits inside the blue box", ["in(red_block, blue_box)"]),
        ("put the block nearest the blue box in the red box", ["in(green_block, red_box)"]),
        ("put the block on the far left in the red box", ["in(yellow_block, red_box)"]),
        # counts and quantifiers said with a noun or a pronoun; colour families; "closer to"
        ("put a couple of blocks in the red box",
         ["in(red_block, red_box)", "in(green_block, red_box)"]),
        ("pick up the red block and the green block and put all of them in the red box",
         ["in(red_block, red_box)", "in(green_block, red_box)"]),
        ("put the primary colored blocks in the red box",
         ["in(red_block, red_box)", "in(blue_block, red_box)", "in(yellow_block, red_box)"]),
        ("bring the blue block closer to the yellow block", ["next_to(blue_block, yellow_block)"]),
        # sides of an object: far / near; the compass as a place; "slightly" before it
        ("put the red block on the far side of the blue box", ["behind(red_block, blue_box)"]),
        ("put the red block on the near side of the blue box",
         ["in_front_of(red_block, blue_box)"]),
        ("put the red block to the north of the green block", ["behind(red_block, green_block)"]),
        ("put the red block east of the blue box", ["right_of(red_block, blue_box)"]),
        ("put the red block slightly behind the green block", ["behind(red_block, green_block)"]),
    ],
)  # fmt: skip
def test_framed_requests_read_as_meant(
    default_env: TabletopEnv, instruction: str, goal: list[str]
) -> None:
    assert goal_of(default_env, instruction) == goal


@pytest.mark.parametrize(
    "instruction",
    [
        "the red block is in the blue box",  # a statement, asks for nothing
        "the red block holds the green block",  # a block holds nothing
        "the red box should not hold the green block",  # "not" stops the rewrite
        # a statement's verb the lexicon lacks is not left out (it was read as "… to the …")
        "the red block covers the green block",
        "the red block likes the blue box",
    ],
)
def test_frames_that_are_no_such_request(default_env: TabletopEnv, instruction: str) -> None:
    with pytest.raises(UnparseableError):
        OfflinePlanner().plan(instruction, default_env)


def test_a_bare_side_after_a_push_is_its_direction(default_env: TabletopEnv) -> None:
    plan = OfflinePlanner().plan("push the red block to the right", default_env)
    assert not plan.goal and [s.args["direction"] for s in plan.steps] == ["right"]


def test_topic_and_holder_say_what_they_left_out() -> None:
    def names(word: str) -> bool:
        return word in {"red", "blue", "green", "block", "box"}

    def words(text: str) -> list[str]:
        return text.split(" ")

    said = topic(words("the blue block , put it in the box"), {"put"}, names)
    assert said is not None and said.words == words("put the blue block in the box")
    assert said.dropped == {3, 5}  # the comma and "it"
    held = holder(words("can the red box hold the green block"), names)
    assert held is not None and held.words == words("put the green block in the red box")
    assert held.dropped == {0, 4}
    assert topic(words("in the box , put it"), {"put"}, names) is None  # a place first


def test_from_the_box_is_the_box_that_holds_it(two_boxes: TabletopEnv) -> None:
    """Two boxes; "from the box" is the one the blue block is in, and the later "the box" the
    one named before."""
    assert goal_of(
        two_boxes,
        "move the blue block from the box to the table, then move the yellow block into the box",
    ) == ["next_to(blue_block, gray_box)", "in(yellow_block, gray_box)"]


def test_the_box_named_by_nothing_before_stays_ambiguous(two_boxes: TabletopEnv) -> None:
    with pytest.raises(AmbiguousError, match="the gray box or the brown box"):
        OfflinePlanner().plan("put the yellow block in the box", two_boxes)
    with pytest.raises(AmbiguousError):  # the yellow block is in neither
        OfflinePlanner().plan("take the yellow block from the box", two_boxes)


FULL_BOX = {
    "name": "full_box",
    "objects": [
        {"type": "box", "color": "blue", "size": 0.16, "pose": [0.45, 0.0]},
        {"type": "block", "color": "red", "in": "blue_box"},
        {"type": "block", "color": "green", "in": "blue_box"},
        {"type": "block", "color": "yellow", "pose": [0.6, 0.2]},
    ],
}


@pytest.mark.parametrize(
    ("instruction", "goal"),
    [
        ("i dont want anything in the blue box",
         ["next_to(red_block, blue_box)", "next_to(green_block, blue_box)"]),
        ("nothing should be in the blue box",
         ["next_to(red_block, blue_box)", "next_to(green_block, blue_box)"]),
        ("the red block should not be in the blue box", ["next_to(red_block, blue_box)"]),
        ("make sure the red block is not in the blue box", ["next_to(red_block, blue_box)"]),
        ("make sure nothing is in the blue box",
         ["next_to(red_block, blue_box)", "next_to(green_block, blue_box)"]),
        ("I do not want the green block in the blue box anymore",
         ["next_to(green_block, blue_box)"]),
    ],
)  # fmt: skip
def test_what_is_not_wanted_in_a_box_is_taken_out(
    make_env: Callable[..., TabletopEnv], instruction: str, goal: list[str]
) -> None:
    env = make_env()
    env.reset(seed=0, options={"scene": FULL_BOX})
    assert goal_of(env, instruction) == goal


def test_other_names_of_the_table_are_the_table(make_env: Callable[..., TabletopEnv]) -> None:
    env = make_env()
    env.reset(seed=0, options={"scene": FULL_BOX})
    plan = OfflinePlanner().plan("put the red block on the countertop", env)
    assert [str(p) for p in plan.goal] == ["next_to(red_block, blue_box)"]
    assert plan.reading is not None and plan.reading.corrected == {"countertop": "table"}


@pytest.mark.parametrize(
    "instruction",
    ["move the red block out of the way", "put the red block next to the lamp"],
)
def test_a_noun_the_lexicon_lacks_is_not_left_out(
    default_env: TabletopEnv, instruction: str
) -> None:
    """ "the way" names something ("move the red block out" was planned: nothing moved)."""
    with pytest.raises(UnparseableError, match=r"cannot read 'the (way|lamp)'"):
        OfflinePlanner().plan(instruction, default_env)


def test_a_negation_is_never_left_out_as_saying_nothing() -> None:
    from claw.planner.language.spelling import vocabulary

    assert {"no", "nothing", "none", "never", "without"} <= vocabulary()


RIGHT_HALF = {
    "name": "right_half",
    "objects": [
        {"type": "block", "color": "red", "pose": [0.45, -0.05]},
        {"type": "block", "color": "green", "pose": [0.45, -0.2]},
        {"type": "box", "color": "blue", "pose": [0.5, 0.2]},
    ],
}


def test_the_one_on_a_side_is_the_extreme_when_that_half_holds_none(
    make_env: Callable[..., TabletopEnv],
) -> None:
    """Both blocks stand in the right half: "the block on the left" is the leftmost of them
    (it was unknown_object: no block in the left half), "on the right" the rightmost."""
    env = make_env()
    env.reset(seed=0, options={"scene": RIGHT_HALF})
    assert goal_of(env, "put the block on the left in the blue box") == ["in(red_block, blue_box)"]
    assert goal_of(env, "put the block on the right in the blue box") == [
        "in(green_block, blue_box)"
    ]
    with pytest.raises(UnknownObjectError):  # a plural keeps the half: none there
        OfflinePlanner().plan("put the blocks on the left in the blue box", env)
