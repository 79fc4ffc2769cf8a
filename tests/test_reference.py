"""Referring expressions: parsed into typed references, grounded on a scene as README defines."""

from __future__ import annotations

import pytest

from claw.envs.exceptions import UnknownObjectError
from claw.envs.state import ObjectState, WorldState
from claw.planner.exceptions import AmbiguousError, UnparseableError
from claw.planner.offline import colour_pairs
from claw.planner.reference import ground, ground_region, parse_reference, parse_region

# left = +y, far (top) = +x; the table's centre is x = 0.475.
SCENE = {
    "red_block": (0.40, 0.15),
    "green_block": (0.50, 0.05),
    "blue_block": (0.60, -0.10),
    "yellow_block": (0.45, -0.20),
    "blue_box": (0.40, 0.00),
    "pink_box": (0.60, 0.20),
}


def world(scene: dict[str, tuple[float, float]] = SCENE, **on: str) -> WorldState:
    objects = []
    for name, (x, y) in scene.items():
        kind = name.split("_")[1]
        size = 0.12 if kind == "box" else 0.04
        z = 0.025 if kind == "box" else 0.02
        if name in on:  # resting on another block
            x, y = scene[on[name]]
            z = 0.06
        objects.append(ObjectState.make(name, kind, (x, y, z), size=size))
    return WorldState.from_objects(objects)


def pick(text: str, state: WorldState | None = None, **kwargs: object) -> list[str]:
    state = state or world()
    return ground(parse_reference(text), list(state.objects), state, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the red block", ["red_block"]),
        ("the crimson cube", ["red_block"]),
        ("the azure bucket", ["blue_box"]),
        ("the block to the left of the blue box", ["red_block"]),
        ("the block closest to the pink bowl", ["green_block"]),
        ("the block farthest from the pink bowl", ["yellow_block"]),
        ("the leftmost block", ["red_block"]),
        ("the rightmost block", ["yellow_block"]),
        ("the first block from the left", ["red_block"]),
        ("the second block from the left", ["green_block"]),
        ("the third block from the right", ["green_block"]),
        ("the last block from the top", ["red_block"]),
        ("the block in the far right corner", ["blue_block"]),
        ("the blocks on the left side", ["red_block", "green_block"]),
        ("all blocks except the green one", ["red_block", "blue_block", "yellow_block"]),
        ("the warm colored blocks", ["red_block", "yellow_block"]),
        ("the blocks of cool colours", ["green_block", "blue_block"]),
        ("the yellow, blue and red blocks", ["yellow_block", "blue_block", "red_block"]),
        ("two blocks", ["red_block", "green_block"]),
        ("a blue object", ["blue_block"]),
        ("the blue one", ["blue_block"]),
        ("the boxes", ["blue_box", "pink_box"]),
        ("any blocks", ["red_block", "green_block", "blue_block", "yellow_block"]),
    ],
)
def test_a_reference_picks_what_readme_says(text: str, expected: list[str]) -> None:
    assert pick(text, default_type="block") == expected


def test_two_blocks_to_the_left_of_a_box_are_ambiguous_for_the_block() -> None:
    scene = {"red_block": (0.40, 0.15), "green_block": (0.42, 0.25), "blue_box": (0.40, 0.0)}
    with pytest.raises(AmbiguousError, match="red_block, green_block"):
        pick("the block to the left of the blue box", world(scene))
    assert pick("the blocks to the left of the blue box", world(scene)) == [
        "red_block", "green_block"
    ]  # fmt: skip


def test_support_and_containment_name_objects() -> None:
    state = world(green_block="red_block")
    assert pick("the block on top of the red block", state) == ["green_block"]
    assert pick("the blocks on the table", state) == ["red_block", "blue_block", "yellow_block"]
    assert pick("the block under the green block", state) == ["red_block"]
    assert pick("the blocks not on the red block", state) == [
        "red_block", "blue_block", "yellow_block"
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "error", "needle"),
    [
        ("the block", AmbiguousError, "red_block, green_block, blue_block, yellow_block"),
        ("the white bowl", UnknownObjectError, "no white box"),
        ("the fifth block from the left", AmbiguousError, "only 4"),
        ("five blocks", AmbiguousError, "only 4 match"),
        ("the purple block", UnknownObjectError, "no purple block"),
    ],
)
def test_no_unique_answer_is_an_error_that_names_the_candidates(
    text: str, error: type[Exception], needle: str
) -> None:
    with pytest.raises(error, match=needle):
        pick(text)


def test_a_tie_is_ambiguous_not_guessed() -> None:
    scene = {"red_block": (0.45, 0.10), "green_block": (0.45, -0.10), "blue_box": (0.60, 0.0)}
    with pytest.raises(AmbiguousError, match="within 1 cm"):
        pick("the block closest to the blue box", world(scene))


@pytest.mark.parametrize(
    "text", ["the red block of the", "blocks blocks", "the block closest", "the second from"]
)
def test_what_is_not_a_noun_phrase_is_unparseable(text: str) -> None:
    with pytest.raises(UnparseableError):
        parse_reference(text)


def test_a_region_named_by_an_extreme() -> None:
    region = parse_region("the corner farthest from the pink bowl")
    assert region is not None and region.region is None
    state = world()
    assert ground_region(region, list(state.objects), state) == "near right corner"
    named = parse_region("the bottom left area of the table")
    assert named is not None and named.region == "near left corner"
    assert parse_region("the blue box") is None


def test_colour_pairs_match_or_mismatch() -> None:
    blocks, boxes = ["pink_block", "cyan_block"], ["cyan_box", "pink_box"]
    assert colour_pairs(blocks, boxes, same=True) == [
        ("pink_block", "pink_box"), ("cyan_block", "cyan_box")
    ]  # fmt: skip
    assert colour_pairs(blocks, boxes, same=False) == [
        ("pink_block", "cyan_box"), ("cyan_block", "pink_box")
    ]  # fmt: skip


def test_a_clause_splits_where_both_sides_read() -> None:
    from claw.planner.grammar import parse_instruction

    (request,) = parse_instruction("put the block closest to the red bowl in the green box")
    assert [o.text for o in request.objects] == ["the block closest to the red bowl"]
    assert request.relation == "in" and request.target is not None
    assert request.target.text == "the green box"
    (under,) = parse_instruction("put the blue block under the red block into the blue bowl")
    assert under.objects[0].filters[0].inverse and under.relation == "in"
    differs = parse_reference("a bowl whose color differs from its own")
    assert differs.mismatched and differs.type == "box"
