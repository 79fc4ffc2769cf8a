"""Indirect requests (claw.planner.language.indirect): passives and causatives read as active,
wanted states after "make sure" read as places, self-corrections
(claw.planner.language.corrections), words typed without vowels, and the verb forms they rest on
(claw.planner.language.inflection)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from claw.envs import TabletopEnv
from claw.envs.exceptions import UnknownObjectError
from claw.planner import OfflinePlanner
from claw.planner.exceptions import UnparseableError, UnsupportedError
from claw.planner.language.inflection import gerund, participle, verb_forms
from tests.reading import goal_of


@pytest.mark.parametrize(
    ("verb", "ing", "ed"),
    [
        ("put", "putting", "put"),
        ("place", "placing", "placed"),
        ("drop", "dropping", "dropped"),
        ("push", "pushing", "pushed"),
        ("carry", "carrying", "carried"),
        ("bring", "bringing", "brought"),
        ("position", "positioning", "positioned"),
        ("pick up", "picking up", "picked up"),
    ],
)
def test_verb_forms_follow_english_spelling(verb: str, ing: str, ed: str) -> None:
    assert gerund(verb) == ing
    assert participle(verb) == ed


def test_every_verb_of_the_reader_has_its_forms() -> None:
    assert verb_forms("ing")["stacking"] == "stack"
    assert verb_forms("participle")["slid"] == "slide"
    assert verb_forms("participle")["transferred"] == "transfer"


@pytest.mark.parametrize(
    ("instruction", "goal", "ignored"),
    [
        ("can the red block be put in the blue box?", ["in(red_block, blue_box)"], ["can", "be"]),
        (
            "the red block needs to be moved next to the red box",
            ["next_to(red_block, red_box)"],
            ["needs", "to", "be"],
        ),
        (
            "could the green block get stacked on the yellow block",
            ["on(green_block, yellow_block)"],
            ["could", "get"],
        ),
        ("make sure the red block is in the blue box", ["in(red_block, blue_box)"], None),
        (
            "make it so that the green block is on the blue block",
            ["on(green_block, blue_block)"],
            ["make", "it", "so", "that", "is"],
        ),
    ],
)
def test_indirect_requests_read_as_direct(
    default_env: TabletopEnv, instruction: str, goal: list[str], ignored: list[str] | None
) -> None:
    plan = OfflinePlanner().plan(instruction, default_env)
    assert [str(p) for p in plan.goal] == goal
    assert (plan.reading and plan.reading.ignored) == ignored  # None: the grammar's own reading


def test_a_participle_read_as_its_verb_is_reported(default_env: TabletopEnv) -> None:
    plan = OfflinePlanner().plan("can the blue block be placed on the red block", default_env)
    assert plan.reading is not None
    assert plan.reading.corrected == {"placed": "place"}


@pytest.mark.parametrize(
    "instruction",
    [
        "the red block should not be put in the blue box",  # an act forbidden, not a state
        "the red block is left of the blue box",  # a statement: "left" is no participle here
    ],
)
def test_a_negated_or_stated_form_is_not_rewritten(
    default_env: TabletopEnv, instruction: str
) -> None:
    with pytest.raises(UnparseableError):
        OfflinePlanner().plan(instruction, default_env)


@pytest.mark.parametrize(
    ("instruction", "goal"),
    [
        ("put the green block in the blue box... no wait, the red box",
         ["in(green_block, red_box)"]),
        ("put the red block in the blue box, no the green block", ["in(green_block, blue_box)"]),
        ("put the red block on the green block, no, on the yellow block",
         ["on(red_block, yellow_block)"]),
        (
            "move the blue block behind the yellow block, sorry, I meant in front of it",
            ["in_front_of(blue_block, yellow_block)"],
        ),
        (
            "put the red block in the blue box. actually no, put it next to the red box instead",
            ["next_to(red_block, red_box)"],
        ),
    ],
)  # fmt: skip
def test_a_self_correction_replaces_what_it_corrects(
    default_env: TabletopEnv, instruction: str, goal: list[str]
) -> None:
    plan = OfflinePlanner().plan(instruction, default_env)
    assert [str(p) for p in plan.goal] == goal
    assert not plan.waypoints  # the corrected request is dropped, not reached on the way


@pytest.mark.parametrize(
    ("instruction", "goal"),
    [
        ("make red block go to right side, thanks you", ["at(red_block, right side)"]),
        ("have the green block sit on the red block", ["on(green_block, red_block)"]),
        ("pls mv grn blk nxt to the red bx", ["next_to(green_block, red_box)"]),
        ("plc the ylw blk on the grn one", ["on(yellow_block, green_block)"]),
        ("red block -> blue box", ["in(red_block, blue_box)"]),
        ("put red block to blue box", ["in(red_block, blue_box)"]),
        ("move the red block to the center, then put the green block on top",
         ["at(red_block, center)", "on(green_block, red_block)"]),
        ("if it isn't too much trouble, would you place the blue block in the red box?",
         ["in(blue_block, red_box)"]),
    ],
)  # fmt: skip
def test_casual_forms_of_a_request(
    default_env: TabletopEnv, instruction: str, goal: list[str]
) -> None:
    assert goal_of(default_env, instruction) == goal


def test_nothing_goes_in_a_block(default_env: TabletopEnv) -> None:
    with pytest.raises(UnsupportedError, match="nothing goes in green_block: it is a block"):
        OfflinePlanner().plan("put the red block in the green block", default_env)


def test_a_source_names_what_the_object_is_in(make_env: Callable[..., TabletopEnv]) -> None:
    env = make_env()
    env.reset(seed=0, options={"scene": IN_BOX})
    plan = OfflinePlanner().plan("pick up the red block from the gray bin", env)
    assert [str(p) for p in plan.goal] == ["holding(red_block)"]
    with pytest.raises(UnknownObjectError, match="from the gray bin"):
        OfflinePlanner().plan("pick up the green block from the gray bin", env)


IN_BOX = {
    "name": "in_box",
    "objects": [
        {"type": "box", "color": "gray", "pose": [0.45, 0.0]},
        {"type": "block", "color": "red", "in": "gray_box"},
        {"type": "block", "color": "green", "pose": [0.45, 0.2]},
    ],
}
