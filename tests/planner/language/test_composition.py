"""The reader's forms composed: each part of an instruction read on its own when the whole does
not read, a self-correction that ends with its part, markers without a comma, a comma too
many, a closing "I guess", and the corner or side nearest the speaker."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from claw.envs import TabletopEnv
from claw.planner import OfflinePlanner
from claw.planner.exceptions import UnparseableError
from claw.planner.language.parsing import part_spans
from claw.planner.language.robust import read_instruction
from tests.reading import goal_of

SCENE_WORDS = {"red", "green", "blue", "yellow", "block", "box"}


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("put it in the box", [(0, 5)]),
        ("put it in the box . then lift it", [(0, 5), (7, 9)]),
        ("pick it up , then , put it down", [(0, 3), (5, 9)]),  # a part may start at a comma
    ],
)
def test_part_spans_split_at_strong_separators(text: str, spans: list[tuple[int, int]]) -> None:
    assert part_spans(text) == spans


@pytest.mark.parametrize(
    ("instruction", "goal"),
    [
        # a passive in the first part, an ellipsis in the second
        (
            "can the green block be moved into the red box, then the yellow block be put on it",
            ["in(green_block, red_box)", "on(yellow_block, green_block)"],
        ),
        # a correction in the first part; "it" of the second is the block moved
        (
            "put the red block in the blue box, no wait the red box, then stack the green one "
            "on it",
            ["in(red_block, red_box)", "on(green_block, red_block)"],
        ),
        (
            "put the red block in the blue box no wait the red box, then stack the green one on it",
            ["in(red_block, red_box)", "on(green_block, red_block)"],
        ),
        ("put the green block in the blue box sorry the red box", ["in(green_block, red_box)"]),
        (
            "put the green block i mean the yellow block in the red box",
            ["in(yellow_block, red_box)"],
        ),
        (
            "move both red things... i mean the red block, to the blue box",
            ["in(red_block, blue_box)"],
        ),
        ("move the red block, to the blue box", ["in(red_block, blue_box)"]),
        ("hmm ok um put the red block in the blue box i guess", ["in(red_block, blue_box)"]),
        ("put the green block on the red one we reckon", ["on(green_block, red_block)"]),
        (
            "put the blue block in the corner nearest to me on the right",
            ["at(blue_block, near right corner)"],
        ),
        (
            "move the yellow block to the corner nearest me on the left",
            ["at(yellow_block, near left corner)"],
        ),
        (
            "put the red block in the corner farthest from you on the left",
            ["at(red_block, far left corner)"],
        ),
        # "there": the place the last request named
        (
            "put the red block in the blue box and put the green block there too",
            ["in(red_block, blue_box)", "in(green_block, blue_box)"],
        ),
        (
            "put the red block next to the blue box. put the yellow block there as well",
            ["next_to(red_block, blue_box)", "next_to(yellow_block, blue_box)"],
        ),
    ],
)
def test_composed_forms_read_as_meant(
    default_env: TabletopEnv, instruction: str, goal: list[str]
) -> None:
    assert goal_of(default_env, instruction) == goal


def test_a_correction_does_not_reach_past_its_part() -> None:
    """ "it" after "then" is not what the correction replaced (it was read as the blue box)."""
    reading = read_instruction(
        "put the red block in the blue box, no wait the red box, then stack the green one on it",
        SCENE_WORDS,
    )
    later = reading.requests[1]
    assert (later.target and later.target.quantity, later.turn) == ("pronoun", 1)
    assert reading.ignored == ("the", "blue", "box", ",", "no", "wait")


def test_parts_read_alone_report_what_each_left_out(default_env: TabletopEnv) -> None:
    plan = OfflinePlanner().plan(
        "can the green block be moved into the red box, then the yellow block be put on it",
        default_env,
    )
    assert plan.reading is not None
    assert plan.reading.ignored == ["can", "be", "be"]
    assert plan.reading.corrected == {"moved": "move"}


@pytest.mark.parametrize(
    "instruction",
    [
        # a part that names something and does not read refuses the whole
        "put the red block in the blue box, then flurb the green block glorpily",
        # the corner nearest the speaker, with no side said: two corners are as near
        "put the red block in the corner nearest to me",
        # "I" then words the lexicon knows is no aside
        "put the red block in the box i want",
        # "there" with no place named before
        "put the green block there",
    ],
)
def test_what_still_does_not_read_is_refused(default_env: TabletopEnv, instruction: str) -> None:
    with pytest.raises(UnparseableError):
        OfflinePlanner().plan(instruction, default_env)


SEQUENCE_SCENE = {
    "name": "blue_yellow_box",
    "objects": [
        {"type": "block", "color": "blue", "pose": [0.4, 0.15]},
        {"type": "block", "color": "yellow", "pose": [0.4, -0.15]},
        {"type": "box", "color": "red", "pose": [0.55, 0.0]},
    ],
}


@pytest.mark.parametrize(
    ("instruction", "goal"),
    [
        # the table after an earlier turn put the block somewhere: off what that turn put it on
        ("put the blue block in the red box then put it back on the table",
         ["next_to(blue_block, red_box)"]),
        ("put the blue block on the yellow block then put it on the table",
         ["next_to(blue_block, yellow_block)"]),
        ("put the blue block in the red box, then take it back out and place it on the yellow "
         "block", ["on(blue_block, yellow_block)"]),
    ],
)  # fmt: skip
def test_a_later_turn_takes_off_what_an_earlier_one_put(
    make_env: Callable[..., TabletopEnv], instruction: str, goal: list[str]
) -> None:
    env = make_env()
    env.reset(seed=0, options={"scene": SEQUENCE_SCENE})
    plan = OfflinePlanner().plan(instruction, env)
    assert [str(p) for p in plan.goal] == goal
    assert plan.waypoints and len(plan.steps) == 4  # the earlier place is reached on the way


@pytest.mark.parametrize(
    "instruction",
    [
        "flurb the red block glorp. " * 36,  # 36 parts, none of which reads
        "the red block. " * 60,  # 60 parts that are only objects
        ("the red block, " * 60)[:990],  # 60 commas, each a soft word
        "put the red block in the blue box, no wait, " * 22,  # 22 corrections
    ],
)
def test_a_long_instruction_that_does_not_read_costs_a_bounded_reading(
    default_env: TabletopEnv, instruction: str
) -> None:
    """Reading part by part and leaving out soft words are bounded (``MAX_PARTS_ALONE``,
    ``MAX_SOFT_SPOTS``): a first version of the part-by-part reading took 35-90 s here on
    such text, through thousands of parses. Counted in parser lookups, not seconds."""
    from claw.planner.language.parsing import STATS, clear_caches

    clear_caches()
    STATS.reset()
    with pytest.raises(UnparseableError):
        OfflinePlanner().plan(instruction[:1000], default_env)
    assert STATS.lookups < 2000
