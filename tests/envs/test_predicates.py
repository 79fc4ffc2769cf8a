"""Ground-truth predicates on constructed world states: true, false and boundary cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pydantic import ValidationError

from claw.envs import geometry
from claw.envs.exceptions import PredicateError, UnknownObjectError
from claw.envs.predicates import (
    Predicate,
    check_objects,
    evaluate,
    evaluate_goal,
    on_table,
    parse_goal,
    parse_predicate,
)
from claw.envs.regions import REGIONS
from claw.envs.state import GripperState, ObjectState, WorldState

MM = 0.001
BOX_RIM = 0.05  # box outer height
BOX_OUTER = 0.068  # box outer half width (6 cm inside + 8 mm wall)
BOX_FLOOR = 0.008


def block(
    name: str, x: float = 0.5, y: float = 0.0, z: float | None = None, **kw: float
) -> ObjectState:
    """A block; resting on the table unless ``z`` (its centre) is given."""
    size = kw.pop("size", 0.04)
    return ObjectState.make(name, "block", (x, y, size / 2 if z is None else z), size=size, **kw)


def box(name: str, x: float = 0.5, y: float = 0.0, yaw: float = 0.0) -> ObjectState:
    """A default box resting on the table."""
    return ObjectState.make(name, "box", (x, y, BOX_RIM / 2), yaw=yaw)


def tilted(name: str, x: float, y: float, z: float, angle: float, size: float) -> ObjectState:
    """A block turned by ``angle`` about the world x axis."""
    c, s = math.cos(angle), math.sin(angle)
    h = size / 2
    rotation = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    return ObjectState(name, "block", np.array([x, y, z]), rotation, np.full(3, h))


def world(*objs: ObjectState, gripper: GripperState | None = None) -> WorldState:
    return WorldState.from_objects(objs, gripper=gripper)


def holds(pred: str, w: WorldState) -> bool:
    return evaluate(pred, w).holds


# --- state -------------------------------------------------------------------------------------


def test_make_uses_catalogue_sizes() -> None:
    b, bx = block("a"), box("b")
    assert b.bottom == pytest.approx(0.0) and b.top == pytest.approx(0.04)
    assert bx.inner_half_width == pytest.approx(0.06) and b.inner_half_width is None
    assert bx.rim == pytest.approx(BOX_RIM)
    assert np.allclose(bx.half_extents, [BOX_OUTER, BOX_OUTER, BOX_RIM / 2])
    with pytest.raises(ValueError, match="no inner footprint"):
        b.inner_footprint()
    with pytest.raises(ValueError, match="unknown object type"):
        ObjectState.make("c", "ball", (0, 0, 0))


@pytest.mark.parametrize("yaw", [0.0, 0.3, -1.2, math.pi / 4])
def test_yaw_and_footprint(yaw: float) -> None:
    b = block("a", 0.4, 0.1, yaw=yaw)
    assert b.yaw == pytest.approx(yaw)
    assert np.allclose(b.footprint(), geometry.rect_corners(0.4, 0.1, yaw, 0.02, 0.02))


def test_tilted_bottom_top_and_footprint() -> None:
    t = tilted("a", 0.5, 0.0, 0.1, math.pi / 4, 0.04)
    half = 0.02 * math.sqrt(2)
    assert t.bottom == pytest.approx(0.1 - half) and t.top == pytest.approx(0.1 + half)
    assert t.yaw == pytest.approx(0.0)
    ys = t.footprint()[:, 1]
    assert ys.max() == pytest.approx(half) and ys.min() == pytest.approx(-half)


def test_yaw_when_x_axis_vertical() -> None:
    rotation = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])  # 90° about y
    t = ObjectState("a", "block", np.zeros(3), rotation, np.full(3, 0.02))
    assert t.yaw == pytest.approx(0.0)


def test_world_get_and_settled() -> None:
    w = world(block("a"), box("b", 0.4))
    assert w.get("a").name == "a" and w.names == ["a", "b"]
    with pytest.raises(UnknownObjectError) as err:
        w.get("x")
    assert str(err.value) == "unknown object 'x'; objects: a, b"
    assert w.settled()
    assert world(block("a", velocity=(0.009, 0, 0))).settled()
    assert not world(block("a", velocity=(0, 0, 0.011))).settled()
    with pytest.raises(ValueError, match="duplicate"):
        world(block("a"), block("a"))
    with pytest.raises(ValueError, match="named"):
        WorldState(objects={"x": block("a")})


# --- on / in -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dz", "dx", "expected"),
    [
        (0.0, 0.0, True),
        (0.009, 0.0, True),
        (0.011, 0.0, False),
        (-0.009, 0.0, True),
        (-0.011, 0.0, False),
        (0.0, 0.019, True),
        (0.0, 0.021, False),
    ],
)
def test_on_block(dz: float, dx: float, expected: bool) -> None:
    w = world(block("a", 0.5 + dx, 0.0, 0.06 + dz), block("b"))
    r = evaluate("on(a, b)", w)
    assert r.holds is expected
    assert r.measured["height_offset"] == pytest.approx(dz, abs=1e-6)
    assert r.reason


def test_on_self_is_false() -> None:
    assert not holds("on(a, a)", world(block("a")))


@pytest.mark.parametrize(("yaw", "expected"), [(math.pi / 4, True), (0.0, False)])
def test_on_rotated_footprint(yaw: float, expected: bool) -> None:
    # 2.5 cm off centre: outside an axis-aligned 4 cm block, inside the same block turned 45°.
    w = world(block("a", 0.525, 0.0, 0.06), block("b", yaw=yaw))
    assert holds("on(a, b)", w) is expected


@pytest.mark.parametrize(("z", "expected"), [(0.06 + 0.03 * math.sqrt(2), True), (0.09, False)])
def test_on_tilted_block_uses_its_true_bottom(z: float, expected: bool) -> None:
    # A 6 cm block tipped 45° onto its edge: its bottom is 4.2 cm below its centre, not 3 cm.
    w = world(tilted("a", 0.5, 0.0, z, math.pi / 4, 0.06), block("b", size=0.06))
    assert holds("on(a, b)", w) is expected


@pytest.mark.parametrize(
    ("dx", "bottom", "expected"),
    [
        (0.0, BOX_FLOOR, True),
        (0.059, BOX_FLOOR, True),
        (-0.061, BOX_FLOOR, False),
        (0.0, BOX_RIM - MM, True),
        (0.0, BOX_RIM + MM, False),
    ],
)
def test_in_and_on_box_agree(dx: float, bottom: float, expected: bool) -> None:
    w = world(block("a", 0.5 + dx, 0.0, bottom + 0.02), box("c"))
    assert holds("in(a, c)", w) is expected
    on, inside = evaluate("on(a, c)", w), evaluate("in(a, c)", w)
    assert (on.holds, on.measured, on.reason) == (inside.holds, inside.measured, inside.reason)


@pytest.mark.parametrize(("yaw", "expected"), [(math.pi / 4, True), (0.0, False)])
def test_in_rotated_box(yaw: float, expected: bool) -> None:
    # 7 cm off centre: outside a 12 cm square, inside the same square turned 45° (reach 8.5 cm).
    w = world(block("a", 0.57, 0.0, 0.028), box("c", yaw=yaw))
    assert holds("in(a, c)", w) is expected


def test_in_a_block_is_false_with_reason() -> None:
    r = evaluate("in(a, c)", world(block("a", z=0.06), block("c")))
    assert not r.holds and r.reason == "c is not a box"


def test_in_self_is_false() -> None:
    assert not holds("in(c, c)", world(box("c")))


# --- next_to -----------------------------------------------------------------------------------


def _beside_box(gap: float, yaw: float = 0.0, half: float = 0.02) -> WorldState:
    return world(block("a", 0.5, BOX_OUTER + gap + half, yaw=yaw), box("b"))


@pytest.mark.parametrize(
    ("gap", "expected"), [(0.0, True), (0.03, True), (0.049, True), (0.051, False), (0.1, False)]
)
def test_next_to_gap(gap: float, expected: bool) -> None:
    r = evaluate("next_to(a, b)", _beside_box(gap))
    assert r.holds is expected
    assert r.measured["gap"] == pytest.approx(gap, abs=1e-6)


def test_next_to_reason() -> None:
    assert evaluate("next_to(a, b)", _beside_box(0.031)).reason == "gap 3.1 cm ≤ 5.0 cm"


def test_next_to_rotated_footprint() -> None:
    # A block turned 45° reaches 2.83 cm towards the box instead of 2 cm: the corner decides.
    diagonal = 0.02 * math.sqrt(2)
    turned = _beside_box(0.048, yaw=math.pi / 4, half=diagonal)
    assert evaluate("next_to(a, b)", turned).measured["gap"] == pytest.approx(0.048, abs=1e-6)
    assert holds("next_to(a, b)", turned)
    same_centre_unturned = world(block("a", 0.5, turned.get("a").position[1]), box("b"))
    assert not holds("next_to(a, b)", same_centre_unturned)


def test_next_to_turned_box() -> None:
    # The box's corner points at the block: centre distance alone would say it is far away.
    corner = BOX_OUTER * math.sqrt(2)
    w = world(block("a", 0.5 + corner + 0.03 + 0.02, 0.0), box("b", yaw=math.pi / 4))
    assert evaluate("next_to(a, b)", w).measured["gap"] == pytest.approx(0.03, abs=1e-6)
    assert holds("next_to(a, b)", w)


def test_next_to_false_when_inside() -> None:
    w = world(block("a", z=BOX_FLOOR + 0.02), box("b"))
    assert holds("in(a, b)", w)
    assert not holds("next_to(a, b)", w)
    assert not holds("next_to(b, a)", w)


def test_next_to_false_when_stacked() -> None:
    # a sits on c, right beside b: a is not on the table.
    w = world(block("a", 0.5, 0.0, 0.06), block("c"), block("b", 0.5, 0.05))
    r = evaluate("next_to(a, b)", w)
    assert not r.holds and "on/in c" in r.reason
    # b on a: neither may be on the other.
    w = world(block("a"), block("b", 0.5, 0.0, 0.06))
    assert not holds("next_to(a, b)", w) and not holds("next_to(b, a)", w)


@pytest.mark.parametrize(("lift", "expected"), [(0.009, True), (0.011, False)])
def test_next_to_needs_a_on_table(lift: float, expected: bool) -> None:
    w = world(block("a", 0.5, 0.07, 0.02 + lift), block("b"))
    assert holds("next_to(a, b)", w) is expected
    assert on_table(w.get("a"), w) is expected


def test_next_to_self_is_false() -> None:
    assert not holds("next_to(a, a)", world(block("a")))


# --- left_of / right_of / behind / in_front_of ---------------------------------------------------

_DIRS = {"left_of": (1, 1), "right_of": (1, -1), "behind": (0, 1), "in_front_of": (0, -1)}


@pytest.mark.parametrize("name", list(_DIRS))
@pytest.mark.parametrize(
    ("along", "across", "expected"),
    [
        (0.07, 0.02, True),
        (0.051, 0.0, True),
        (0.049, 0.0, False),
        (0.07, 0.069, True),
        (0.07, -0.071, False),
        (-0.07, 0.0, False),
    ],
)
def test_directions(name: str, along: float, across: float, expected: bool) -> None:
    axis, sign = _DIRS[name]
    offset = np.zeros(2)
    offset[axis], offset[1 - axis] = sign * along, across
    w = world(block("a", 0.45 + offset[0], offset[1]), block("b", 0.45, 0.0))
    r = evaluate(f"{name}(a, b)", w)
    assert r.holds is expected
    along_key, across_key = ("dx", "dy") if axis == 0 else ("dy", "dx")
    assert r.measured[along_key] == pytest.approx(along, abs=1e-6)
    assert r.measured[across_key] == pytest.approx(abs(across), abs=1e-6)


@pytest.mark.parametrize(("bottom", "expected"), [(BOX_FLOOR, False), (BOX_RIM + MM, True)])
def test_direction_false_when_in_b(bottom: float, expected: bool) -> None:
    # 5.5 cm left of the box centre is still inside its 12 cm inner footprint.
    w = world(block("a", 0.5, 0.055, bottom + 0.02), box("b"))
    assert holds("left_of(a, b)", w) is expected


def test_direction_self_is_false() -> None:
    assert not holds("behind(a, a)", world(block("a")))


# --- at ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("region", list(REGIONS))
def test_at_each_region(region: str) -> None:
    x, y = REGIONS[region]
    w = world(block("a", x + 0.03, y - 0.03))
    assert holds(f"at(a, {region})", w)


@pytest.mark.parametrize(("dist", "expected"), [(0.0, True), (0.059, True), (0.061, False)])
def test_at_radius(dist: float, expected: bool) -> None:
    x, y = REGIONS["far left corner"]
    r = evaluate('at(a, "top left corner")', world(block("a", x - dist * 0.6, y + dist * 0.8)))
    assert r.holds is expected
    assert r.measured["distance"] == pytest.approx(dist, abs=1e-6)
    assert r.predicate == "at(a, far left corner)"


def test_at_reason() -> None:
    x, y = REGIONS["far left corner"]
    r = evaluate("at(red_block, far left corner)", world(block("red_block", x - 0.082, y)))
    assert r.reason == "red_block is 8.2 cm from the far left corner anchor (> 6.0 cm)"


# --- stacked -----------------------------------------------------------------------------------


@pytest.mark.parametrize("order", ["a, b, c", "c, a, b", "b, c, a"])
def test_stacked_three_any_order(order: str) -> None:
    w = world(block("c", z=0.10), block("a"), block("b", 0.505, 0.0, 0.06))
    r = evaluate(f"stacked({order})", w)
    assert r.holds and r.measured == {"levels": 2.0, "required": 2.0}


@pytest.mark.parametrize(
    ("top_x", "top_z", "levels"), [(0.5, 0.10 + 0.011, 1), (0.521, 0.10, 1), (0.5, 0.109, 2)]
)
def test_stacked_partial(top_x: float, top_z: float, levels: int) -> None:
    w = world(block("a"), block("b", z=0.06), block("c", top_x, 0.0, top_z))
    r = evaluate("stacked(a, b, c)", w)
    assert r.holds is (levels == 2)
    assert r.measured["levels"] == levels


def test_stacked_false_side_by_side_and_repeated() -> None:
    w = world(block("a"), block("b", 0.5, 0.05))
    assert not holds("stacked(a, b)", w)
    assert not holds("stacked(a, a)", w)


def test_stacked_on_block_in_box() -> None:
    w = world(box("x"), block("a", z=BOX_FLOOR + 0.02), block("b", z=BOX_FLOOR + 0.06))
    assert holds("stacked(b, x, a)", w)


# --- holding -----------------------------------------------------------------------------------


def _grip(
    bottom: float = 0.05,
    contacts: tuple[bool, bool] = (True, True),
    centre_offset: tuple[float, float, float] = (0.0, 0.0, 0.0),
) -> WorldState:
    a = block("a", 0.5, 0.0, bottom + 0.02)
    centre = np.array([0.5, 0.0, bottom + 0.02]) - np.array(centre_offset)
    g = GripperState(
        left_tip=centre + np.array([0.0, 0.02, 0.0]),
        right_tip=centre - np.array([0.0, 0.02, 0.0]),
        left_contacts=frozenset({"a"} if contacts[0] else ()),
        right_contacts=frozenset({"a"} if contacts[1] else ()),
    )
    return world(a, block("b", 0.45, 0.1), gripper=g)


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({}, True),
        ({"contacts": (True, False)}, False),
        ({"contacts": (False, True)}, False),
        ({"contacts": (False, False)}, False),
        ({"bottom": 0.031}, True),
        ({"bottom": 0.029}, False),
        ({"bottom": 0.0}, False),
        ({"centre_offset": (0.0, 0.019, 0.0)}, True),  # along the pads, still between
        ({"centre_offset": (0.0, 0.021, 0.0)}, False),  # beyond the left pad
        ({"centre_offset": (0.029, 0.0, 0.0)}, True),  # off the pad line
        ({"centre_offset": (0.0, 0.0, 0.031)}, False),
    ],
)
def test_holding(kwargs: dict, expected: bool) -> None:
    r = evaluate("holding(a)", _grip(**kwargs))
    assert r.holds is expected
    assert "bottom_height" in r.measured and r.reason


def test_holding_without_gripper_state() -> None:
    r = evaluate("holding(a)", world(block("a", z=0.1)))
    assert not r.holds and r.reason == "no gripper state"


# --- parsing -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("next_to(red_block, blue_box)", "next_to(red_block, blue_box)"),
        ("  NEXT_TO ( red_block ,blue_box )  ", "next_to(red_block, blue_box)"),
        ("next to(a, b)", "next_to(a, b)"),
        ("beside(a, b)", "next_to(a, b)"),
        ("near(a, b)", "next_to(a, b)"),
        ("inside(a, b)", "in(a, b)"),
        ("Inside_Of(a, b)", "in(a, b)"),
        ("in_front(a, b)", "in_front_of(a, b)"),
        ("on_top_of(a, b)", "on(a, b)"),
        ("onto('a', \"b\")", "on(a, b)"),
        ('at(red_block, "far left corner")', "at(red_block, far left corner)"),
        ("at(red_block, top_left)", "at(red_block, far left corner)"),
        ("at(red_block, 'middle')", "at(red_block, center)"),
        ("at(red_block, bottom right corner)", "at(red_block, near right corner)"),
        ("at(red_block, left)", "at(red_block, left side)"),
        ("Holding(red_block)", "holding(red_block)"),
        ("stacked(a, b, c, d)", "stacked(a, b, c, d)"),
    ],
)
def test_parse_canonical(text: str, canonical: str) -> None:
    pred = parse_predicate(text)
    assert str(pred) == canonical
    assert parse_predicate(str(pred)) == pred


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("next_to red_block", r"cannot parse predicate 'next_to red_block': expected name\(arg"),
        ("", "cannot parse predicate"),
        ("next_to(a, b) and more", "cannot parse predicate"),
        ("flying(a, b)", r"unknown predicate 'flying'; allowed: on, in, next_to, .*holding"),
        ("next_to(a)", "next_to takes 2 arguments, got 1"),
        ("holding(a, b, c)", "holding takes 1 or 2 arguments, got 3"),
        ("holding(a, b)", "holding\\(a, b\\): unknown arm 'b'; allowed: left, right"),
        ("holding()", "holding takes 1 or 2 arguments, got 0"),
        ("stacked(a)", "stacked takes at least 2 arguments, got 1"),
        ("next_to(a, )", "empty argument"),
        ("at(a, nowhere)", "unknown region 'nowhere'; allowed: center"),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(PredicateError, match=message) as err:
        parse_predicate(text)
    assert "\n" not in str(err.value)
    assert err.value.kind == "invalid_predicate"


def test_parse_non_string() -> None:
    with pytest.raises(PredicateError, match="cannot parse"):
        parse_predicate(42)  # type: ignore[arg-type]


def test_predicate_model_canonicalises() -> None:
    pred = Predicate(name="beside", args=("a", "b"))
    assert str(pred) == "next_to(a, b)" and pred == parse_predicate("next_to(a, b)")
    assert len({pred, parse_predicate("near(a, b)")}) == 1
    assert str(Predicate(name="holding", args="a")) == "holding(a)"
    assert Predicate.model_validate({"name": "at", "args": ["a", "top"]}).args[1] == "far side"
    with pytest.raises(ValidationError, match="unknown predicate"):
        Predicate(name="flying", args=("a",))


def test_parse_goal() -> None:
    goal = parse_goal(["beside(a, b)", Predicate(name="on", args=("a", "c"))])
    assert [str(p) for p in goal] == ["next_to(a, b)", "on(a, c)"]
    assert [str(p) for p in parse_goal("holding(a)")] == ["holding(a)"]


def test_unknown_object() -> None:
    names = ["red_block", "blue_box"]
    with pytest.raises(UnknownObjectError) as err:
        check_objects(parse_predicate("next_to(purple_block, blue_box)"), names)
    assert str(err.value) == "unknown object 'purple_block'; objects: red_block, blue_box"
    assert err.value.kind == "unknown_object"
    check_objects(parse_predicate("at(red_block, center)"), names)  # the region is no object
    w = world(block("red_block"), box("blue_box", 0.4))
    with pytest.raises(UnknownObjectError, match="purple_block"):
        evaluate("on(red_block, purple_block)", w)
    with pytest.raises(UnknownObjectError, match="purple_block"):
        evaluate_goal(["next_to(red_block, blue_box)", "holding(purple_block)"], w)


# --- evaluate_goal -----------------------------------------------------------------------------


def test_goal_success() -> None:
    w = _beside_box(0.02)
    result = evaluate_goal(["next_to(a, b)", "at(b, center)"], w)
    assert result.success and result.settled and result.gripper_empty
    assert result.recall == 1.0 and [r.predicate for r in result.results] == [
        "next_to(a, b)",
        "at(b, center)",
    ]
    assert result.model_dump_json()


def test_goal_failing_predicate() -> None:
    result = evaluate_goal(["next_to(a, b)", "at(b, far side)"], _beside_box(0.02))
    assert not result.success and result.recall == 0.5
    assert result.reason.startswith("at(b, far side) does not hold: b is 9.0 cm")


def test_goal_unsettled() -> None:
    w = world(block("a", 0.5, BOX_OUTER + 0.04, velocity=(0.02, 0.0, 0.0)), box("b"))
    result = evaluate_goal(["next_to(a, b)"], w)
    assert result.results[0].holds and not result.settled and not result.success
    assert "not settled" in result.reason


def test_goal_held_object() -> None:
    w = _grip()  # a is held above the table, b rests near the centre
    goal = ["left_of(b, a)"]
    result = evaluate_goal(goal, w)
    assert result.results[0].holds and not result.gripper_empty and not result.success
    assert result.reason == "the gripper still holds a"
    assert evaluate_goal([*goal, "holding(a)"], w).success


def test_goal_gripper_open_counts_as_empty() -> None:
    result = evaluate_goal(["left_of(b, a)"], _grip(contacts=(False, False)))
    assert result.gripper_empty and result.success
