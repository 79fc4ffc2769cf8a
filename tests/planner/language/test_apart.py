"""Objects set apart ("separate the green block from the red one": ``not(next_to(…))``,
reached by a place at the table region farthest away) and exclusions said after the place
("put all blocks in the box except the green one"), on the scene and on physics."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from claw.envs import TabletopEnv
from claw.planner import OfflinePlanner
from claw.planner.exceptions import AmbiguousError
from claw.runtime import run_instruction
from tests.reading import goal_of

MakeEnv = Callable[..., TabletopEnv]

SIDE_BY_SIDE = {
    "name": "side_by_side",
    "objects": [
        {"type": "block", "color": "red", "pose": [0.48, 0.0]},
        {"type": "block", "color": "green", "pose": [0.48, 0.05]},
        {"type": "box", "color": "blue", "pose": [0.40, -0.2]},
    ],
}
APART = "not(next_to(green_block, red_block))"


@pytest.fixture(scope="module")
def side_by_side() -> TabletopEnv:
    env = TabletopEnv()
    env.reset(seed=0, options={"scene": SIDE_BY_SIDE})
    return env


@pytest.mark.parametrize(
    "instruction",
    [
        "separate the green block from the red block",
        "separate the green and red blocks",
        "move the green block apart from the red one",
        "pull the green block and the red block apart",
    ],
)
def test_apart_reads_as_not_next_to(side_by_side: TabletopEnv, instruction: str) -> None:
    plan = OfflinePlanner().plan(instruction, side_by_side)
    assert [str(g) for g in plan.goal] == [APART]
    assert [s.skill for s in plan.steps] == ["pick", "place"]
    assert plan.steps[1].args["relation"] == "at"  # a table region, far from the red block


def test_apart_needs_two_objects(side_by_side: TabletopEnv) -> None:
    with pytest.raises(AmbiguousError, match="name two objects"):
        OfflinePlanner().plan("separate the green block", side_by_side)


def test_apart_already_needs_no_step(default_env: TabletopEnv) -> None:
    assert not default_env.check(["next_to(green_block, red_block)"]).success
    plan = OfflinePlanner().plan("separate the green block from the red block", default_env)
    assert [str(g) for g in plan.goal] == [APART]
    assert plan.steps == []


@pytest.mark.parametrize(
    "instruction",
    [
        "put all blocks in the red box except the green block",
        "put all the blocks in the red box, except the green one",
        "put every block in the red box but not the green one",
        "put all the blocks, except the green one, in the red box",
        "put all the blocks except the green one in the red box",
    ],
)
def test_an_exclusion_anywhere_leaves_that_object_out(
    default_env: TabletopEnv, instruction: str
) -> None:
    assert goal_of(default_env, instruction) == [
        "in(red_block, red_box)",
        "in(blue_block, red_box)",
        "in(yellow_block, red_box)",
    ]


def test_an_exclusion_of_the_target_itself_still_reads_as_before(
    default_env: TabletopEnv,
) -> None:
    # an exclusion inside one named target with several of its kind ("the box except the red
    # one") keeps narrowing the target
    assert goal_of(default_env, "put the green block in the box except the red one") == [
        "in(green_block, blue_box)"
    ]


@pytest.mark.slow
def test_separating_two_blocks_succeeds_on_physics(make_env: MakeEnv) -> None:
    env = make_env()
    env.reset(seed=0, options={"scene": SIDE_BY_SIDE})
    assert env.check(["next_to(green_block, red_block)"]).success
    result = run_instruction(env, "separate the green block from the red block", OfflinePlanner())
    assert result.success, result.reason
    assert result.replans == 0
    assert not env.check(["next_to(green_block, red_block)"]).success
