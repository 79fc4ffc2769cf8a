"""Referring expressions: parsed into typed references, grounded on a scene as
docs/concepts/planners/references.md defines."""

from __future__ import annotations

import pytest

from claw.envs.exceptions import UnknownObjectError
from claw.envs.state import ObjectState, WorldState
from claw.planner.exceptions import AmbiguousError, UnparseableError, UnsupportedError
from claw.planner.grounding.arrangements import colour_pairs
from claw.planner.grounding.goals import goals_and_pushes
from claw.planner.grounding.references import ground, ground_region
from claw.planner.language.grammar import parse_instruction
from claw.planner.language.reference import parse_reference, parse_region

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


def goal_of(text: str, state: WorldState | None = None) -> list[str]:
    """The goal the offline planner reads from ``text`` on ``state`` (the default scene)."""
    state = state or world()
    return [
        str(p) for p in goals_and_pushes(parse_instruction(text), list(state.objects), state)[0]
    ]


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
        ("the block that is closest to the pink bowl", ["green_block"]),
        ("the block nearest to the robot", ["red_block"]),
        ("the block that is furthest to the right", ["yellow_block"]),
        ("every block that is not red", ["green_block", "blue_block", "yellow_block"]),
        ("the two leftmost blocks", ["red_block", "green_block"]),
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
    with pytest.raises(AmbiguousError, match="the red block or the green block"):
        pick("the block to the left of the blue box", world(scene))
    assert pick("the blocks to the left of the blue box", world(scene)) == [
        "red_block", "green_block"
    ]  # fmt: skip


def test_the_place_of_a_block_named_again_is_one_of_the_others() -> None:
    with pytest.raises(AmbiguousError, match="'the block' could be the red block, the green"):
        goal_of("put the blue block next to the block")  # three others: which?
    scene = {"red_block": (0.40, 0.15), "blue_block": (0.45, -0.1), "blue_box": (0.40, 0.0)}
    assert goal_of("put the red block next to the block", world(scene)) == [
        "next_to(red_block, blue_block)"
    ]  # the only other block
    with pytest.raises(UnparseableError, match="relative to itself"):
        goal_of("put the blue block next to the blue block")


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
        ("the block", AmbiguousError, "the red block, the green block, the blue block or the"),
        ("the white bowl", UnknownObjectError, "no white box"),
        ("the fifth block from the left", AmbiguousError, "only 4"),
        ("five blocks", AmbiguousError, "only 4 match"),
        ("both blocks", AmbiguousError, "names 2, but 4 match"),
        ("the two blocks", AmbiguousError, "names 2, but 4 match"),
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
    with pytest.raises(AmbiguousError, match="their distances are within 1 cm"):
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

    (request,) = parse_instruction("put the block closest to the red bowl in the green box")
    assert [o.text for o in request.objects] == ["the block closest to the red bowl"]
    assert request.relation == "in" and request.target is not None
    assert request.target.text == "the green box"
    (under,) = parse_instruction("put the blue block under the red block into the blue bowl")
    assert under.objects[0].filters[0].inverse and under.relation == "in"
    differs = parse_reference("a bowl whose color differs from its own")
    assert differs.mismatched and differs.type == "box"


def test_a_neighbour_by_compass_and_what_was_named_before() -> None:
    # north is far (+x): green stands north of red; yellow east (-y) of blue
    scene = {"red_block": (0.40, 0.10), "green_block": (0.52, 0.10), "yellow_block": (0.40, -0.1),
             "blue_box": (0.55, -0.22), "pink_box": (0.62, 0.22)}  # fmt: skip
    state = world(scene)
    text = (
        "first put the red block into the blue container then put the object that was "
        "previously at its north into the same container"
    )
    goal = goal_of(text, state)
    assert goal == ["in(red_block, blue_box)", "in(green_block, blue_box)"]
    same = "put all blocks with the same colour as the pink container into it"
    with pytest.raises(UnknownObjectError, match="nothing in the scene is 'all blocks with"):
        goal_of(same, state)


def test_same_colour_as_a_landmark_and_into_it() -> None:
    scene = {"red_block": (0.40, 0.10), "red_block_2": (0.50, -0.10), "blue_block": (0.45, 0.2),
             "red_box": (0.60, 0.20), "blue_box": (0.60, -0.2)}  # fmt: skip
    state = world(scene)
    for text in (
        "put all objects with the same texture as the red container into it",
        "move every block that has the same colour as the red box into that box",
    ):
        goal = goal_of(text, state)
        assert goal == ["in(red_block, red_box)", "in(red_block_2, red_box)"], text


@pytest.mark.parametrize(
    "text",
    [
        "this is a dax red block. this is a zup blue box. put a dax into a zup.",
        "a blicket is the red block and a wug is the blue bowl. put a blicket into a wug.",
        "call the red block a dax and the blue container a zup, then put the dax into the zup.",
    ],
)
def test_words_the_instruction_defines(text: str) -> None:

    goal = goal_of(text)
    assert goal == ["in(red_block, blue_box)"]


def test_a_definition_alone_asks_for_nothing_and_known_words_are_not_redefined() -> None:

    with pytest.raises(UnparseableError, match="defines words but asks for nothing"):
        parse_instruction("this is a dax red block.")
    with pytest.raises(UnparseableError):
        parse_instruction("this is a red block. put a red into the box.")


def test_lightness_parity_and_size_classes() -> None:
    scene = {"yellow_block": (0.40, 0.10), "blue_block": (0.50, -0.10), "red_block": (0.45, 0.2),
             "red_block_2": (0.55, 0.2), "red_box": (0.62, -0.2)}  # fmt: skip
    state = world(scene)
    assert pick("the light colored block", state) == ["yellow_block"]  # luminance 0.82
    with pytest.raises(AmbiguousError, match="the near red block or the far red block: their"):
        pick("the darkest block", state)
    assert pick("the blocks of an even number", state) == ["red_block", "red_block_2"]
    assert pick("the blocks of an odd number", state) == ["yellow_block", "blue_block"]


def test_the_smaller_blocks_are_those_below_the_widest_gap_in_size() -> None:
    objects = [
        ObjectState.make("red_block", "block", (0.40, 0.10, 0.03), size=0.06),
        ObjectState.make("red_block_2", "block", (0.50, 0.10, 0.02), size=0.04),
        ObjectState.make("blue_block", "block", (0.40, -0.10, 0.03), size=0.06),
        ObjectState.make("blue_block_2", "block", (0.50, -0.10, 0.02), size=0.04),
    ]
    state = WorldState.from_objects(objects)
    assert sorted(pick("all the smaller blocks", state)) == ["blue_block_2", "red_block_2"]
    assert sorted(pick("the bigger blocks", state)) == ["blue_block", "red_block"]

    text = "stack all the smaller blocks over the bigger blocks of the same color"
    goal = goal_of(text, state)
    assert goal == ["on(red_block_2, red_block)", "on(blue_block_2, blue_block)"]


def test_a_statement_says_what_it_is_and_asks_for_nothing() -> None:

    state = world(green_block="red_block")
    text = "the red block is hidden under the green block: move it into the blue bowl"
    goal = goal_of(text, state)
    assert goal == ["in(red_block, blue_box)"]
    with pytest.raises(UnparseableError, match="says where things are but asks for nothing"):
        parse_instruction("the red block is next to the box")
    swap = "swap the blocks so that each one sits in the bowl of the other color"
    pairs = {"pink_block": (0.4, 0.1), "cyan_block": (0.4, -0.1), "cyan_box": (0.6, 0.2),
             "pink_box": (0.6, -0.2)}  # fmt: skip
    goal = goal_of(swap, world(pairs))
    assert goal == ["in(pink_block, cyan_box)", "in(cyan_block, pink_box)"]


@pytest.mark.parametrize(
    ("text", "goal"),
    [
        ("group the blue objects together", ["in(blue_block, blue_box)"]),
        ("put the red and green blocks together", ["next_to(green_block, red_block)"]),
        ("gather the blue things into one group by putting the blue block in the pink bowl",
         ["in(blue_block, pink_box)"]),
        ("put the red block on the bottom of the green block",
         ["in_front_of(red_block, green_block)"]),
    ],
)  # fmt: skip
def test_together_and_means(text: str, goal: list[str]) -> None:

    assert goal_of(text) == goal


def test_together_in_one_of_two_boxes_is_ambiguous() -> None:

    with pytest.raises(AmbiguousError, match="blue_box, pink_box"):
        goal_of("put all the objects together")


def test_it_in_a_target_is_the_object_carried_when_nothing_came_before() -> None:

    text = "put the green block into the box closest to it one by one"
    goal = goal_of(text)
    assert goal == ["in(green_block, blue_box)"]


@pytest.mark.parametrize(
    ("text", "goal"),
    [
        ("build a tower with the red block at the bottom, then the green block, then the "
         "yellow block", ["stacked(red_block, green_block, yellow_block)"]),
        ("stack the yellow block on top, the red block at the bottom and then the green block",
         ["stacked(red_block, green_block, yellow_block)"]),
        ("put all the blocks in the boxes",
         ["in(red_block, blue_box)", "in(green_block, pink_box)", "in(blue_block, blue_box)",
          "in(yellow_block, pink_box)"]),
    ],
)  # fmt: skip
def test_ordered_towers_and_blocks_spread_over_boxes(text: str, goal: list[str]) -> None:

    assert goal_of(text) == goal


def test_a_fronted_for_each_names_the_set_of_the_clause() -> None:
    scene = {"blue_block": (0.50, -0.10), "red_block": (0.45, 0.2), "red_block_2": (0.55, 0.2),
             "red_box": (0.62, -0.2), "blue_box": (0.35, -0.2)}  # fmt: skip
    state = world(scene)
    wanted = ["in(red_block, red_box)", "in(red_block_2, red_box)"]
    text = (
        "for each color that has an even number of blocks, put those blocks in the same color box"
    )
    assert goal_of(text, state) == wanted
    text = "for each color that has an even number of blocks, put those in the box of that color"
    assert goal_of(text, state) == wanted
    text = "for every colour with an odd number of blocks, put them in the box of that colour"
    assert goal_of(text, state) == ["in(blue_block, blue_box)"]


@pytest.mark.parametrize(
    ("text", "goal"),
    [
        ("put the yellow block the blue box", ["in(yellow_block, blue_box)"]),  # no preposition
        ("move the yellow block to the pink thing", ["in(yellow_block, pink_box)"]),
        ("put the red block on the top of the green block", ["behind(red_block, green_block)"]),
        ("put the red block on top of the green block", ["on(red_block, green_block)"]),
        ("put the red block onto the top of the green block", ["on(red_block, green_block)"]),
    ],
)  # fmt: skip
def test_elided_and_top_down_relations(text: str, goal: list[str]) -> None:
    assert goal_of(text) == goal


@pytest.mark.parametrize(
    "text", ["put the yellow block the red block", "move the yellow block to the red block"]
)
def test_to_a_block_is_on_it_or_next_to_it(text: str) -> None:
    with pytest.raises(AmbiguousError, match="could put it on the red block or next to it"):
        goal_of(text)


def test_taken_out_of_a_box_goes_next_to_it_unless_a_later_request_says_where() -> None:
    objects = [
        ObjectState.make("blue_box", "box", (0.40, 0.00, 0.025), size=0.12, color="blue"),
        ObjectState.make("red_block", "block", (0.40, 0.00, 0.028), color="red"),
        ObjectState.make("green_block", "block", (0.55, 0.15, 0.02), color="green"),
    ]
    state = WorldState.from_objects(objects)
    assert goal_of("take the red block out of the blue box", state) == [
        "next_to(red_block, blue_box)"
    ]
    assert goal_of("take the green block out of the box", state) == []  # it is not in it
    text = "remove the red block from the box and put it on the green block"
    assert goal_of(text, state) == ["on(red_block, green_block)"]


def test_a_swap_trades_what_holds_each_and_refuses_the_table() -> None:
    objects = [
        ObjectState.make("green_block", "block", (0.40, 0.10, 0.02), color="green"),
        ObjectState.make("orange_block", "block", (0.50, -0.10, 0.02), color="orange"),
        ObjectState.make("red_block", "block", (0.40, 0.10, 0.06), color="red"),
        ObjectState.make("blue_block", "block", (0.50, -0.10, 0.06), color="blue"),
    ]
    state = WorldState.from_objects(objects)
    assert goal_of("swap the red block and the blue block", state) == [
        "on(red_block, orange_block)",
        "on(blue_block, green_block)",
    ]
    with pytest.raises(UnsupportedError, match="green_block rests on the table"):
        goal_of("swap the green block and the red block", state)
    with pytest.raises(UnparseableError, match="a swap takes two objects"):
        goal_of("swap the red block", state)


@pytest.mark.parametrize(
    ("text", "goal"),
    [
        ("put everything that is not a box into the pink box",
         ["in(red_block, pink_box)", "in(green_block, pink_box)", "in(blue_block, pink_box)",
          "in(yellow_block, pink_box)"]),
        ("put the two blocks closest to the blue box in it",  # "it": the landmark
         ["in(red_block, blue_box)", "in(green_block, blue_box)"]),
        ("put the red block behind the blue block and the green block to its right",
         ["behind(red_block, blue_block)", "right_of(green_block, red_block)"]),
    ],
)  # fmt: skip
def test_what_is_written_out_and_named_along_the_way(text: str, goal: list[str]) -> None:
    assert sorted(goal_of(text)) == sorted(goal)


@pytest.mark.parametrize(
    ("text", "tower"),
    [
        ("stack the blocks from the largest to the smallest", "red_block, green_block, blue_block"),
        ("stack the blocks from small to big", "blue_block, green_block, red_block"),
        ("stack the blocks by size", "red_block, green_block, blue_block"),
        ("stack the blocks with the smallest on top", "red_block, green_block, blue_block"),
        ("stack the blocks with the largest block on top", "blue_block, green_block, red_block"),
    ],
)
def test_a_tower_by_size_goes_bottom_up_from_the_end_asked(text: str, tower: str) -> None:
    objects = [
        ObjectState.make("green_block", "block", (0.40, 0.10, 0.02), size=0.04, color="green"),
        ObjectState.make("red_block", "block", (0.50, -0.10, 0.025), size=0.05, color="red"),
        ObjectState.make("blue_block", "block", (0.55, 0.10, 0.015), size=0.03, color="blue"),
    ]
    assert goal_of(text, WorldState.from_objects(objects)) == [f"stacked({tower})"]
