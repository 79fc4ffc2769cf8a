"""Forms of open language the offline reader reads from the words' meaning and the scene:
emptying a box, the table as a place, approach verbs, exact counts, "another", reciprocal
stacks, a superlative among what the rest of the phrase picks, the middle size, "back", other
names of containers, "the top / stacked / grasped block", removing, a place said first."""

from __future__ import annotations

from typing import Any

import pytest

from claw.envs import TabletopEnv
from claw.planner import OfflinePlanner
from claw.planner.exceptions import AmbiguousError, UnparseableError
from tests.reading import goal_of

BOX_AND_TOWER = {
    "name": "box_and_tower",
    "objects": [
        {"type": "box", "color": "gray", "pose": [0.45, 0.0]},
        {"type": "block", "color": "red", "in": "gray_box"},
        {"type": "block", "color": "yellow", "in": "gray_box"},
        {"type": "block", "color": "green", "pose": [0.45, 0.2]},
        {"type": "block", "color": "blue", "on": "green_block"},
    ],
}
SIZES = {
    "name": "sizes",
    "objects": [
        {"type": "block", "color": "orange", "size": 0.06, "pose": [0.45, -0.15]},
        {"type": "block", "color": "cyan", "size": 0.045, "pose": [0.45, 0.0]},
        {"type": "block", "color": "pink", "size": 0.03, "pose": [0.45, 0.15]},
        {"type": "block", "color": "green", "size": 0.03, "pose": [0.55, -0.05]},
        {"type": "box", "color": "gray", "pose": [0.58, 0.2]},
    ],
}
COUNTED = {
    "name": "counted",
    "objects": [
        *({"type": "block", "color": "red"} for _ in range(3)),
        *({"type": "block", "color": "yellow"} for _ in range(2)),
        {"type": "box", "color": "gray"},
    ],
}


def env_of(scene: dict[str, Any] | str) -> TabletopEnv:
    env = TabletopEnv()
    env.reset(seed=0, options={"scene": scene})
    return env


@pytest.fixture(scope="module")
def scenes() -> dict[str, TabletopEnv]:
    return {
        "box_and_tower": env_of(BOX_AND_TOWER),
        "sizes": env_of(SIZES),
        "counted": env_of(COUNTED),
        "default": env_of("default"),
    }


@pytest.mark.parametrize(
    ("scene", "instruction", "goal"),
    [
        ("box_and_tower", "empty the bin pls",
         ["next_to(red_block, gray_box)", "next_to(yellow_block, gray_box)"]),
        ("box_and_tower", "clear out the gray box",
         ["next_to(red_block, gray_box)", "next_to(yellow_block, gray_box)"]),
        ("box_and_tower", "put the red block on the table", ["next_to(red_block, gray_box)"]),
        ("box_and_tower", "place the red block in the table", ["next_to(red_block, gray_box)"]),
        ("box_and_tower", "move the blue block to the table", ["next_to(blue_block, green_block)"]),
        ("box_and_tower", "pick up the red block from the gray bin", ["holding(red_block)"]),
        ("default", "go towards the yellow block and lift it", ["holding(yellow_block)"]),
        ("default", "find the green block and put it in the red box", ["in(green_block, red_box)"]),
        ("counted", "put all three red blocks in the box",
         ["in(red_block, gray_box)", "in(red_block_2, gray_box)", "in(red_block_3, gray_box)"]),
        ("default", "grab the red cube and place it on top of another cube",
         ["on(red_block, green_block)"]),
        ("counted", "stack the yellow blocks one on top of another",
         ["stacked(yellow_block, yellow_block_2)"]),
        ("sizes", "pick up the small block on the left and put it on the big block",
         ["on(pink_block, orange_block)"]),
        ("sizes", "put the medium sized block in the box", ["in(cyan_block, gray_box)"]),
        ("default", "put the red block back on the green block", ["on(red_block, green_block)"]),
        ("default", "sort the blocks by color into the boxes",
         ["in(red_block, red_box)", "in(blue_block, blue_box)"]),
        ("default", "put the red and blue blocks into the boxes by colour",
         ["in(red_block, red_box)", "in(blue_block, blue_box)"]),
        ("default", "put the red block far from the blue box",
         ["not(next_to(red_block, blue_box))"]),
        ("box_and_tower", "put the green block in the drawer", ["in(green_block, gray_box)"]),
        ("box_and_tower", "place the blue block in the sliding cabinet",
         ["in(blue_block, gray_box)"]),
        ("box_and_tower", "remove the top block", ["next_to(blue_block, green_block)"]),
        ("box_and_tower", "take off the stacked block", ["next_to(blue_block, green_block)"]),
        ("box_and_tower", "take the blue block off", ["next_to(blue_block, green_block)"]),
        ("box_and_tower", "collapse the stacked blocks", ["next_to(blue_block, green_block)"]),
        ("box_and_tower", "remove the red block", ["next_to(red_block, gray_box)"]),
        ("box_and_tower", "unstack the tower", ["next_to(blue_block, green_block)"]),
        ("box_and_tower", "in the drawer pick up the yellow block", ["holding(yellow_block)"]),
        ("box_and_tower", "grasp the green block, then put the grasped block in the bin",
         ["in(green_block, gray_box)"]),
        ("default", "put the top block in the red box", ["in(green_block, red_box)"]),
        ("counted", "theres two yellow blocks, stack one on the other",
         ["stacked(yellow_block, yellow_block_2)"]),
        ("counted", "there's a gray box. put the yellow blocks in it",
         ["in(yellow_block, gray_box)", "in(yellow_block_2, gray_box)"]),
    ],
)  # fmt: skip
def test_open_forms_read_as_meant(
    scenes: dict[str, TabletopEnv], scene: str, instruction: str, goal: list[str]
) -> None:
    assert goal_of(scenes[scene], instruction) == goal


@pytest.mark.parametrize(
    ("scene", "instruction", "error", "match"),
    [
        ("counted", "put all two red blocks in the box", AmbiguousError, "names 2, but 3 match"),
        ("default", "approach the blue box", UnparseableError, "asks for nothing"),
        ("sizes", "put the small block in the box", AmbiguousError, "the same size"),
        ("default", "put the medium block in the red box", AmbiguousError, "0 of them are between"),
    ],
)
def test_what_does_not_say_enough_is_refused(
    scenes: dict[str, TabletopEnv], scene: str, instruction: str, error: type, match: str
) -> None:
    with pytest.raises(error, match=match):
        OfflinePlanner().plan(instruction, scenes[scene])
