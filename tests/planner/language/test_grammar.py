"""The clause grammar (``grammar.lark``, read by claw.planner.language.parsing and
claw.planner.language.grammar): one case per construction."""

from __future__ import annotations

import pytest

from claw.planner.exceptions import UnparseableError, UnsupportedError
from claw.planner.language import grammar, parsing, places
from claw.planner.language.forms import Request


def summary(request: Request) -> tuple[object, ...]:
    """What a request says, in short: action, objects, and each field that is set."""
    said = {
        "relation": request.relation,
        "target": request.target.text if request.target else None,
        "region": request.region,
        "levels": request.levels,
        "direction": request.direction,
        "distance": request.distance,
        "bottom": request.bottom,
    }
    extra = tuple(f"{k}={v}" for k, v in said.items() if v is not None)
    return (request.action, tuple(o.text for o in request.objects), *extra)


PUT_RED = ("place", ("the red block",), "relation=in", "target=the blue box")
CASES: list[tuple[str, str, list[tuple[object, ...]]]] = [
    # Strong separators: a full stop, a semicolon, "then", "after that"
    ("stop", "put the red block in the blue box. stack the green block on the red block",
     [PUT_RED, ("stack", ("the green block",), "relation=on", "target=the red block")]),
    ("semicolon", "pick up the red block; put it in the blue box",
     [("pick", ("the red block",)), ("place", ("it",), "relation=in", "target=the blue box")]),
    ("and then", "pick up the red block, and then put it in the blue box",
     [("pick", ("the red block",)), ("place", ("it",), "relation=in", "target=the blue box")]),
    ("after that", "pick up the red block after that, put it in the blue box",
     [("pick", ("the red block",)), ("place", ("it",), "relation=in", "target=the blue box")]),
    # Weak separators: a new request where a verb follows, or where both sides say where
    ("and + verb", "pick up the red block and put it in the blue box",
     [("pick", ("the red block",)), ("place", ("it",), "relation=in", "target=the blue box")]),
    ("comma, both say where", "put the red block in the blue box, the green block in the red box",
     [PUT_RED, ("place", ("the green block",), "relation=in", "target=the red box")]),
    ("list of objects", "put the red, green and blue blocks in the box",
     [("place", ("the red , green and blue blocks",), "relation=in", "target=the box")]),
    # Sequence words and filler
    ("sequence words", "first, pick up the red block. finally, put it in the blue box",
     [("pick", ("the red block",)), ("place", ("it",), "relation=in", "target=the blue box")]),
    ("politeness", "please could you put the red block in the blue box, thanks", [PUT_RED]),
    ("gerund", "would you mind putting the red block in the blue box?", [PUT_RED]),
    ("means", "gather the blue things by putting the red block in the blue box", [PUT_RED]),
    # Verb classes
    ("pick", "grab the red block", [("pick", ("the red block",))]),
    ("pick up ... up", "pick the red block up", [("pick", ("the red block",))]),
    ("pick to a place", "take the red block to the blue box", [PUT_RED]),
    ("stack", "stack the red block on the blue block",
     [("stack", ("the red block",), "relation=on", "target=the blue block")]),
    ("sort into", "sort the red block into the blue box", [PUT_RED]),
    # Towers, with levels
    ("tower", "make a tall tower out of the red and blue blocks",
     [("stack", ("the red and blue blocks",))]),
    ("tower levels", "stack the yellow block on top, the red block at the bottom",
     [("stack", ("the yellow block", "the red block"), "levels=['top', 'bottom']")]),
    # Unstacking, off, on the table
    ("unstack", "unstack the tower", [("unstack", ("the tower",))]),
    ("take apart", "take the tower apart", [("unstack", ("the tower",))]),
    ("off", "take the blocks off the red block",
     [("unstack", ("the blocks",), "target=the red block")]),
    ("on the table", "put every block back on the table",
     [("unstack", ("every block",), "relation=table")]),
    # Together, each other
    ("together", "put the blue objects together",
     [("place", ("the blue objects",), "relation=together")]),
    ("each other", "stack the red, green and blue blocks on top of each other",
     [("stack", ("the red , green and blue blocks",))]),
    # So that, adverbs, sides, regions, an elided preposition
    ("so that", "move the red block so it is inside the blue box", [
        ("place", ("the red block",), "relation=in", "target=the blue box")]),
    ("adverb", "put the red block right next to the blue box",
     [("place", ("the red block",), "relation=next_to", "target=the blue box")]),
    ("ambiguous split", "put the block closest to the red bowl in the green box",
     [("place", ("the block closest to the red bowl",), "relation=in", "target=the green box")]),
    ("side of", "put the red block at the left of the blue box",
     [("place", ("the red block",), "relation=left_of", "target=the blue box")]),
    ("region", "put the red block in the far left corner",
     [("place", ("the red block",), "relation=at", "region=far left corner")]),
    ("elided", "put the yellow one the green thing",
     [("place", ("the yellow one",), "relation=to", "target=the green thing")]),
    # Pushes: distance and direction
    ("push", "push the red block 10 cm to the left",
     [("push", ("the red block",), "direction=left", "distance=0.1")]),
    ("push a bit", "slide the green block forward a bit",
     [("push", ("the green block",), "direction=far", "distance=0.05")]),
    ("place verb as push", "move the red block two inches towards the robot",
     [("push", ("the red block",), "direction=near", "distance=0.0508")]),
    ("push verb until a relation", "slide the red block next to the blue box",
     [("push", ("the red block",), "relation=next_to", "target=the blue box")]),
    # Definitions, statements, a fronted quantifier
    ("definition", "this is a dax red block. put the dax in the blue box", [PUT_RED]),
    ("call", "call the red block a dax and the blue box a zup, then put the dax into the zup",
     [("place", ("the red block",), "relation=in", "target=the blue box")]),
    ("statement", "the purple block is hidden under the orange block. put it in the blue box",
     [("note", ("the purple block",)), ("place", ("it",), "relation=in", "target=the blue box")]),
    # A tower by size: which end goes at the bottom
    ("from to", "stack the blocks from the biggest to the smallest",
     [("stack", ("the blocks",), "bottom=big")]),
    ("by size", "build a tower of the red blocks in order of size",
     [("stack", ("the red blocks",), "bottom=big")]),
    ("small on top", "stack the blocks with the smallest one on top",
     [("stack", ("the blocks",), "bottom=big")]),
    ("small at bottom", "stack the blocks, with the smallest at the bottom",
     [("stack", ("the blocks",), "bottom=small")]),
    # Out of a box: what holds it is the target
    ("out of", "take the red block out of the blue box",
     [("unstack", ("the red block",), "target=the blue box")]),
    ("remove from", "remove the red block from the blue box",
     [("unstack", ("the red block",), "target=the blue box")]),
    # Two objects trade places (a relation instead is a place: LoHoRavens' "swap the blocks so
    # that each one sits in the bowl of the other color")
    ("swap", "swap the red block and the blue box", [("swap", ("the red block", "the blue box"))]),
    ("exchange with", "exchange the red block with the green one",
     [("swap", ("the red block", "the green one"))]),
    ("switch places", "switch the places of the red and green blocks",
     [("swap", ("the red and green blocks",))]),
    # A state asked for is reached by a place
    ("wish", "i'd like the red block to end up inside the blue box", [PUT_RED]),
    ("make sure", "please make sure that the red block is in the blue box", [PUT_RED]),
    ("i want", "i want the red block in the blue box", [PUT_RED]),
    ("should be", "the red block should be in the blue box", [PUT_RED]),
    ("needs to go", "the red block needs to go into the blue box", [PUT_RED]),
    ("participle", "i need the red block placed in the blue box", [PUT_RED]),
    # Words written out before reading
    ("contraction", "put every block that isn't red in the blue box",
     [("place", ("every block that is not red",), "relation=in", "target=the blue box")]),
    ("everything", "put everything in the blue box",
     [("place", ("all the objects",), "relation=in", "target=the blue box")]),
    ("its side", "put the green block to its right",
     [("place", ("the green block",), "relation=right_of", "target=it")]),
    ("for each", "for each color that has an even number of blocks, put them in the red box",
     [("place", ("the blocks whose color appears an even number of times",), "relation=in",
       "target=the red box")]),
]  # fmt: skip

REFUSED: list[tuple[str, type[Exception], str]] = [
    ("rotate the red block", UnsupportedError, "'rotate' is not something"),
    ("put the red block under the blue block", UnsupportedError, "under another"),
    ("put the red block down", UnsupportedError, "unnamed spot"),
    ("", UnparseableError, "empty"),
    ("the blue box", UnparseableError, "start with put"),
    ("put the red block", UnparseableError, "where to put things"),
    ("push the red block", UnparseableError, "which way to push"),
    ("this is a dax red block", UnparseableError, "defines words but asks for nothing"),
    ("the red block is in the blue box", UnparseableError, "says where things are"),
]


@pytest.mark.parametrize(
    ("instruction", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_construction(instruction: str, expected: list[tuple[object, ...]]) -> None:
    requests = grammar.parse_instruction(instruction)
    assert [summary(r) for r in requests] == expected


@pytest.mark.parametrize(("instruction", "error", "says"), REFUSED)
def test_refused(instruction: str, error: type[Exception], says: str) -> None:
    with pytest.raises(error, match=says):
        grammar.parse_instruction(instruction)


def test_ambiguous_relation_keeps_first_reading_parse() -> None:
    """Of the splits OBJECTS RELATION TARGET, the first whose two sides read."""
    assert places.find_relation("the block closest to the red bowl in the green box") == (
        "the block closest to the red bowl", "in", "the green box",
    )  # fmt: skip


def test_keyword_may_be_a_plain_word() -> None:
    """ "right" is an adverb only before a relation, and never after "the"."""
    assert parsing.without("it right next to the box", "adverbs", {"adverb"}) == (
        "it next to the box"
    )
    assert parsing.without("the right one", "adverbs", {"adverb"}) == "the right one"
