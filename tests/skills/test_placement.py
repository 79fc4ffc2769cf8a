"""Choosing where ``place`` puts an object: pure geometry on constructed worlds, no MuJoCo."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from claw.envs import geometry
from claw.envs.exceptions import PredicateError, UnknownObjectError
from claw.envs.objects import BOX_FLOOR_THICKNESS
from claw.envs.predicates import AT_RADIUS, evaluate
from claw.envs.regions import PLACE_X, PLACE_Y, REGIONS, in_reach
from claw.envs.relations import relation_names
from claw.envs.state import ObjectState, WorldState
from claw.skills import placement as pl
from claw.skills.exceptions import NoPlacement
from claw.skills.placement import (
    MAX_ROBUSTNESS,
    MIN_ROBUSTNESS,
    Placement,
    find_placement,
)

CLEARANCE = 0.015
HELD = "red_block"


def block(
    name: str, x: float, y: float, z: float = 0.02, yaw: float = 0.0, size: float = 0.04
) -> ObjectState:
    """A block centred at (x, y, z)."""
    return ObjectState.make(name, "block", (x, y, z), yaw=yaw, size=size)


def box(name: str, x: float, y: float, yaw: float = 0.0, size: float = 0.12) -> ObjectState:
    """A box resting on the table."""
    return ObjectState.make(name, "box", (x, y, 0.025), yaw=yaw, size=size)


def scene(
    *extra: ObjectState, held_at: tuple[float, float, float] = (0.5, 0.05, 0.25)
) -> WorldState:
    """The default-like scene (red block held high) plus ``extra`` objects."""
    return WorldState.from_objects(
        [
            block(HELD, *held_at),
            block("green_block", 0.40, 0.10),
            block("blue_block", 0.55, -0.10, yaw=0.3),
            block("yellow_block", 0.45, -0.02),
            box("blue_box", 0.58, 0.18),
            box("red_box", 0.38, -0.20, yaw=0.4),
            *extra,
        ]
    )


def moved(world: WorldState, name: str, x: float, y: float, p: Placement) -> WorldState:
    """``world`` with ``name`` resting upright at (x, y) with the placement's yaw and bottom."""
    old = world.get(name)
    size = 2 * float(old.half_extents[0])
    new = ObjectState.make(name, old.type, (x, y, p.bottom + old.half_extents[2]), p.yaw, size)
    return WorldState(objects={**world.objects, name: new}, table_z=world.table_z)


def fingers(world: WorldState, name: str, p: Placement) -> list[np.ndarray]:
    """The two finger rectangles at release with the default opening."""
    return fingers_at(p, 2 * float(world.get(name).half_extents[1]) + pl.RELEASE_MARGIN)


def failure(world: WorldState, obj: str, relation: str, target: str) -> str:
    """The reason ``find_placement`` gives up."""
    with pytest.raises(NoPlacement) as info:
        find_placement(world, obj, relation, target)
    return str(info.value)


def assert_valid(world: WorldState, relation: str, target: str, p: Placement) -> None:
    """The relation holds there and at 8 landings ``robustness`` away; clear, inside, releasable."""
    assert MIN_ROBUSTNESS <= p.robustness <= MAX_ROBUSTNESS
    pred = f"{relation}({HELD}, {target})"
    for angle in [None, *np.linspace(0, 2 * math.pi, 8, endpoint=False)]:
        dx, dy = (
            (0.0, 0.0)
            if angle is None
            else (p.robustness * math.cos(angle), p.robustness * math.sin(angle))
        )
        result = evaluate(pred, moved(world, HELD, p.x + dx, p.y + dy, p))
        assert result.holds, (angle, result.reason)
    after = moved(world, HELD, p.x, p.y, p)
    mine = after.get(HELD).footprint()
    carried = relation in ("on", "in")
    for other in world.objects.values():
        below = other.top <= p.bottom + pl.HEIGHT_TOLERANCE  # e.g. beside a block it goes on
        if other.name == HELD or (carried and other.name == target) or below:
            continue
        assert geometry.polygon_gap(mine, other.footprint()) >= CLEARANCE - 1e-9, other.name
        for finger in fingers(world, HELD, p):
            assert not geometry.polygons_overlap(finger, other.footprint()), other.name
    if not carried:
        assert p.bottom == pytest.approx(world.table_z)
        lo = np.array([PLACE_X[0], PLACE_Y[0]]) - 1e-9
        hi = np.array([PLACE_X[1], PLACE_Y[1]]) + 1e-9
        assert ((mine >= lo) & (mine <= hi)).all()
        assert in_reach(p.x, p.y)


CASES = [
    ("on", "green_block"),
    ("on", "blue_block"),
    ("on", "red_box"),
    ("in", "blue_box"),
    ("in", "red_box"),
    ("next_to", "blue_box"),
    ("next_to", "yellow_block"),
    ("next_to", "green_block"),
    ("left_of", "yellow_block"),
    ("left_of", "red_box"),
    ("right_of", "green_block"),
    ("right_of", "blue_box"),
    ("behind", "yellow_block"),
    ("behind", "red_box"),
    ("in_front_of", "blue_block"),
    ("in_front_of", "blue_box"),
    ("at", "center"),
    ("at", "left side"),
    ("at", "near left corner"),
    ("at", "far side"),
    ("between", "green_block, blue_box"),  # two targets: target and target2
    ("between", "blue_block, red_box"),
]


def targets(target: str) -> tuple[str, dict[str, str]]:
    """A case's target, and between's second as find_placement's keyword."""
    first, *second = target.split(", ")
    return first, {"target2": second[0]} if second else {}


def test_cases_cover_every_relation() -> None:
    assert {rel for rel, _ in CASES} == set(relation_names())


@pytest.mark.parametrize(("relation", "target"), CASES)
def test_placement_is_valid(relation: str, target: str) -> None:
    world = scene()
    first, kw = targets(target)
    p = find_placement(world, HELD, relation, first, clearance=CLEARANCE, **kw)
    assert_valid(world, relation, target, p)
    assert p == find_placement(world, HELD, relation, first, **kw)  # deterministic


@pytest.mark.parametrize("held_at", [(0.45, 0.04, 0.02), (0.52, 0.1, 0.3), (0.3, 0.0, 0.1)])
def test_where_the_object_is_now_does_not_matter(held_at: tuple[float, float, float]) -> None:
    world = scene(held_at=held_at)
    p = find_placement(world, HELD, "next_to", "yellow_block")
    assert_valid(world, "next_to", "yellow_block", p)


@pytest.mark.parametrize(("target", "yaw"), [("green_block", 0.0), ("tilted_block", 0.5)])
def test_on_a_block_is_centred_and_aligned(target: str, yaw: float) -> None:
    world = scene(block("tilted_block", 0.62, -0.2, yaw=yaw))
    p = find_placement(world, HELD, "on", target)
    t = world.get(target)
    assert (p.x, p.y) == pytest.approx(tuple(t.xy), abs=1e-9)
    assert p.yaw == pytest.approx(yaw) and p.bottom == pytest.approx(t.top)
    assert_valid(world, "on", target, p)


@pytest.mark.parametrize("target", ["blue_box", "red_box"])
def test_in_a_box_is_inside_on_its_floor(target: str) -> None:
    world = scene()
    p = find_placement(world, HELD, "in", target)
    b = world.get(target)
    mine = moved(world, HELD, p.x, p.y, p).get(HELD).footprint()
    assert geometry.polygon_inside(mine, b.inner_footprint())
    assert p.bottom == pytest.approx(b.bottom + BOX_FLOOR_THICKNESS)
    assert p.yaw == pytest.approx(b.yaw) and p.robustness == MAX_ROBUSTNESS


def test_in_a_box_beside_a_block_already_in_it() -> None:
    world = scene(block("pink_block", 0.58 - 0.035, 0.18 - 0.035, z=0.028))
    assert evaluate("in(pink_block, blue_box)", world).holds
    p = find_placement(world, HELD, "in", "blue_box")
    assert_valid(world, "in", "blue_box", p)


@pytest.mark.parametrize("region", ["center", "left side", "far right corner"])
def test_at_an_occupied_anchor_stays_near_it(region: str) -> None:
    ax, ay = REGIONS[region]
    occupant = block("pink_block", ax + 0.02, ay)
    world = WorldState.from_objects([block(HELD, 0.5, 0.0, 0.3), occupant])
    p = find_placement(world, HELD, "at", region)
    assert_valid(world, "at", region, p)
    assert math.dist((p.x, p.y), (ax, ay)) <= AT_RADIUS - p.robustness


def test_at_an_anchor_covered_by_a_box_has_no_spot() -> None:
    world = WorldState.from_objects(
        [block(HELD, 0.5, 0.0, 0.3), box("gray_box", *REGIONS["center"])]
    )
    reason = "no free spot at the center: gray_box is there"
    assert failure(world, HELD, "at", "middle") == reason


def test_preferred_point_breaks_ties() -> None:
    world = scene()
    t = world.get("yellow_block").xy
    for px, py in [(0.2, 0.0), (0.9, 0.0), (0.45, -0.5)]:
        p = find_placement(world, HELD, "next_to", "yellow_block", preferred=(px, py))
        assert_valid(world, "next_to", "yellow_block", p)
        assert p.robustness == MAX_ROBUSTNESS
        towards = np.array([px, py]) - t
        assert (np.array([p.x, p.y]) - t) @ towards > 0


def test_clearance_and_release_width_are_honoured() -> None:
    world = scene()
    wide = find_placement(
        world, HELD, "left_of", "yellow_block", clearance=0.05, release_width=0.09
    )
    mine = moved(world, HELD, wide.x, wide.y, wide).get(HELD).footprint()
    for other in ("green_block", "blue_block", "yellow_block", "blue_box", "red_box"):
        assert geometry.polygon_gap(mine, world.get(other).footprint()) >= 0.05 - 1e-9


def test_fingers_turn_away_from_close_neighbours() -> None:
    # Blocks 6.5 cm either side of the anchor (along y): the body fits between them, but fingers
    # closing along y would hit them, so the claw turns by 90 degrees and closes along x.
    ax, ay = REGIONS["center"]
    flank = [block(f"flank_{i}", ax, ay + side * 0.065) for i, side in enumerate((1, -1))]
    world = WorldState.from_objects([block(HELD, 0.5, 0.0, 0.3), *flank])
    p = find_placement(world, HELD, "at", "center")
    assert p.y == pytest.approx(ay) and p.yaw == pytest.approx(math.pi / 2)
    assert abs(p.x - ax) <= 0.01 + 1e-9  # off the anchor along x: room for a block beside it
    assert_valid(world, "at", "center", p)


def test_neighbours_below_the_support_top_do_not_block() -> None:
    world = scene(block("pink_block", 0.40, 0.15))  # 1 cm from green_block, as tall
    p = find_placement(world, HELD, "on", "green_block")
    assert (p.x, p.y) == pytest.approx((0.40, 0.10))
    assert_valid(world, "on", "green_block", p)


def test_too_small_a_support() -> None:
    world = scene(block("tiny_block", 0.62, -0.25, z=0.004, size=0.008))
    reason = "no spot on tiny_block where red_block stays if it lands 0.5 cm off"
    assert failure(world, HELD, "on", "tiny_block") == reason


def test_minkowski_gap_matches_polygon_gap() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        a = geometry.rect_corners(0.0, 0.0, rng.uniform(-4, 4), *rng.uniform(0.01, 0.07, 2))
        b = geometry.rect_corners(0.0, 0.0, rng.uniform(-4, 4), *rng.uniform(0.01, 0.07, 2))
        points = rng.uniform(-0.2, 0.2, size=(20, 2))
        fast = np.maximum(pl._signed_distance(points, pl._minkowski(a, b), 1.0), 0.0)
        slow = [geometry.polygon_gap(a, b + p) for p in points]
        assert fast == pytest.approx(slow, abs=1e-12)


@pytest.mark.parametrize(
    ("obj", "relation", "target", "reason"),
    [
        (HELD, "on", HELD, "red_block cannot be placed on itself"),
        (HELD, "left_of", HELD, "red_block cannot be placed left of itself"),
        (HELD, "in", "green_block", "green_block is not a box; only boxes hold things"),
        ("blue_box", "on", "green_block", "boxes go on the table only: blue_box cannot go on"),
        ("blue_box", "in", "red_box", "boxes go on the table only: blue_box cannot go in red_box"),
        (
            "big_block",
            "in",
            "small_box",
            "big_block (10.0 cm) does not fit in small_box (8.0 cm inside)",
        ),
    ],
)
def test_impossible_requests(obj: str, relation: str, target: str, reason: str) -> None:
    world = scene(
        block("big_block", 0.6, -0.25, size=0.1), block("wide_block", 0.62, 0.0, size=0.06)
    )
    world = WorldState.from_objects(
        [*world.objects.values(), box("small_box", 0.35, 0.2, size=0.08)]
    )
    assert failure(world, obj, relation, target).startswith(reason)


def test_a_box_too_narrow_for_the_fingers_is_filled_from_above_its_rim() -> None:
    """A 6 cm block in an 8 cm box leaves 1 cm a side: no finger fits, so it is dropped in."""
    world = WorldState.from_objects(
        [*scene().objects.values(), box("small_box", 0.35, 0.2, size=0.08)]
    )
    world = WorldState.from_objects(
        [block(HELD, 0.5, 0.05, 0.25, size=0.06), *list(world.objects.values())[1:]]
    )
    p = find_placement(world, HELD, "in", "small_box")
    assert p.over_rim
    assert (p.x, p.y) == pytest.approx((0.35, 0.2), abs=1e-9)  # the only spot: its middle
    assert evaluate(f"in({HELD}, small_box)", moved(world, HELD, p.x, p.y, p)).holds


def box_with(*spots: tuple[float, float], size: float = 0.12) -> WorldState:
    """The scene with ``pink_block``, ``pink_block_2``, ... resting in blue_box at these offsets
    from its centre (its floor at the box's floor)."""
    bx, by = 0.58, 0.18
    floor = BOX_FLOOR_THICKNESS + 0.02
    residents = [
        block("pink_block" + ("" if i == 0 else f"_{i + 1}"), bx + dx, by + dy, z=floor)
        for i, (dx, dy) in enumerate(spots)
    ]
    world = scene(*residents)
    objs = {**world.objects, "blue_box": box("blue_box", bx, by, size=size)}
    return WorldState(objects=objs, table_z=world.table_z)


def assert_dropped_clear(world: WorldState, p: Placement) -> None:
    """An over-the-rim spot: the object inside the walls and clear of the box's residents by
    the drop's clearance; the relation holds at the spot and ``robustness`` around it."""
    assert p.over_rim and MAX_ROBUSTNESS >= p.robustness >= pl.DROP_SPREAD
    for angle in np.linspace(0, 2 * math.pi, 8, endpoint=False):
        dx, dy = p.robustness * math.cos(angle), p.robustness * math.sin(angle)
        assert evaluate(f"in({HELD}, blue_box)", moved(world, HELD, p.x + dx, p.y + dy, p)).holds
    mine = moved(world, HELD, p.x, p.y, p).get(HELD).footprint()
    inner = world.get("blue_box").inner_footprint()
    assert geometry.polygon_inside(mine, inner, tol=-(pl.DROP_CLEARANCE - 1e-9))
    for other in world.objects.values():
        if other.name.startswith("pink_block"):
            gap = geometry.polygon_gap(mine, other.footprint())
            assert gap >= pl.DROP_CLEARANCE - 1e-9, other.name


def test_a_12cm_box_takes_a_fourth_block_dropped_over_its_rim() -> None:
    """Three 4 cm blocks in three corners of a 12 cm box: the fourth corner is left, too tight
    for a finger beside the block, so the spot is released over the rim."""
    world = box_with((-0.03, -0.03), (-0.03, 0.03), (0.03, -0.03))
    p = find_placement(world, HELD, "in", "blue_box", clearance=0.008, release_width=0.054)
    assert_dropped_clear(world, p)
    assert p.x > 0.58 and p.y > 0.18  # the free corner


def test_a_12cm_box_with_four_blocks_is_full() -> None:
    world = box_with((-0.03, -0.03), (-0.03, 0.03), (0.03, -0.03), (0.03, 0.03))
    reason = failure(world, HELD, "in", "blue_box")
    assert reason.startswith("no free spot in blue_box: pink_block, pink_block_2, pink_block_3")


def test_a_20cm_box_takes_a_ninth_block() -> None:
    grid = [(dx, dy) for dx in (-0.065, 0.0, 0.065) for dy in (-0.065, 0.0, 0.065)]
    world = box_with(*grid[:-1], size=0.20)
    p = find_placement(world, HELD, "in", "blue_box", clearance=0.008, release_width=0.054)
    assert_dropped_clear(world, p)
    assert p.x - 0.58 > 0.03 and p.y - 0.18 > 0.03  # in the one free cell
    full = box_with(*grid, size=0.20)
    assert failure(full, HELD, "in", "blue_box").startswith("no free spot in blue_box")


def test_over_the_rim_the_fingers_still_avoid_what_stands_taller_than_the_rim() -> None:
    """A 6 cm block in the box stands 1.8 cm above its rim: released above the rim, the open
    fingers must still pass beside it."""
    tall = ObjectState.make(
        "pink_block", "block", (0.58 - 0.03, 0.18 - 0.03, BOX_FLOOR_THICKNESS + 0.03), size=0.06
    )
    world = box_with()
    world = WorldState(objects={**world.objects, "pink_block": tall}, table_z=0.0)
    dropped = 0
    for cx, cy in ((-1, 1), (1, -1), (1, 1), (0, 0)):  # pack from each corner in turn
        corner = (0.58 + cx * 0.06, 0.18 + cy * 0.06)
        p = find_placement(
            world, HELD, "in", "blue_box", clearance=0.008, release_width=0.054, preferred=corner
        )
        dropped += p.over_rim
        for finger in fingers_at(p, 0.054):
            assert geometry.polygon_gap(finger, tall.footprint()) >= pl.FINGER_GAP - 1e-9
    assert dropped


def fingers_at(p: Placement, width: float) -> list[np.ndarray]:
    """The two finger rectangles at release with this opening."""
    half = width / 2 + pl.FINGER_THICKNESS / 2
    axis = np.array([-math.sin(p.yaw), math.cos(p.yaw)])
    return [
        geometry.rect_corners(
            p.x + side * half * axis[0],
            p.y + side * half * axis[1],
            p.yaw,
            pl.FINGER_LENGTH / 2,
            pl.FINGER_THICKNESS / 2,
        )
        for side in (1, -1)
    ]


def test_occupied_block() -> None:
    world = scene(block("pink_block", 0.40, 0.10, z=0.06))
    reason = "no free spot on green_block: pink_block is on it"
    assert failure(world, HELD, "on", "green_block") == reason


def test_full_box() -> None:
    world = scene(block("pink_block", 0.58, 0.18, z=0.028))
    reason = "no free spot in blue_box: pink_block is in it"
    assert failure(world, HELD, "in", "blue_box") == reason


def test_nothing_left_of_an_object_at_the_left_edge() -> None:
    world = scene(block("pink_block", 0.5, PLACE_Y[1] - 0.03))
    reason = "no free spot left of pink_block within reach"
    assert failure(world, HELD, "left_of", "pink_block") == reason


def test_boxed_in_target_has_no_neighbour_spot() -> None:
    ring = [
        box(f"box_{i}", 0.475 + dx, dy)
        for i, (dx, dy) in enumerate([(0.1, 0.0), (0.0, 0.1), (-0.1, 0.0), (0.0, -0.1)])
    ]
    world = WorldState.from_objects(
        [block(HELD, 0.5, 0.0, 0.3), block("pink_block", 0.475, 0.0), *ring]
    )
    reason = "no free spot next to pink_block clear of the other objects"
    assert failure(world, HELD, "next_to", "pink_block") == reason


@pytest.mark.parametrize(
    ("relation", "target_xy", "axis", "wall"),
    [
        # A wall of boxes close beyond the target, leaving no room before it nor behind it
        # within the reachable place area.
        ("left_of", (0.475, 0.30), 1, 0.39),
        ("right_of", (0.475, -0.30), 1, -0.39),
        ("behind", (0.55, 0.0), 0, 0.64),
        ("in_front_of", (0.40, 0.0), 0, 0.31),
    ],
)
def test_walled_off_direction(
    relation: str, target_xy: tuple[float, float], axis: int, wall: float
) -> None:
    walls = []
    for i, shift in enumerate((-0.29, -0.145, 0.0, 0.145, 0.29)):
        xy = [wall, target_xy[1] + shift] if axis == 0 else [target_xy[0] + shift, wall]
        walls.append(box(f"box_{i}", *xy))
    world = WorldState.from_objects(
        [block(HELD, 0.5, 0.0, 0.3), block("pink_block", *target_xy), *walls]
    )
    words = relation.replace("_", " ")
    reason = f"no free spot {words} pink_block clear of the other objects"
    assert failure(world, HELD, relation, "pink_block") == reason
    free = WorldState.from_objects([world.get(HELD), world.get("pink_block")])
    assert_valid(free, relation, "pink_block", find_placement(free, HELD, relation, "pink_block"))


def test_unknown_names() -> None:
    world = scene()
    with pytest.raises(UnknownObjectError):
        find_placement(world, "purple_block", "on", "green_block")
    with pytest.raises(UnknownObjectError):
        find_placement(world, HELD, "next_to", "purple_box")
    with pytest.raises(PredicateError):
        find_placement(world, HELD, "at", "the moon")
    with pytest.raises(PredicateError):
        find_placement(world, HELD, "under", "green_block")


@pytest.mark.parametrize(("relation", "target"), CASES)
def test_fast_mirror_agrees_with_the_predicates(relation: str, target: str) -> None:
    world = scene(block("pink_block", 0.6, -0.22, z=0.06), block("cyan_block", 0.60, -0.22))
    first, kw = targets(target)
    task = pl._task(world, HELD, relation, first, None, *kw.values())
    rng = np.random.default_rng(0)
    centre = task.anchor
    points = np.concatenate(
        [
            rng.uniform([0.25, -0.35], [0.7, 0.35], size=(150, 2)),
            centre + rng.normal(scale=0.06, size=(150, 2)),
        ]
    )
    for yaw in task.yaws:
        fast = pl._fast_holds(task, points, yaw)
        real = np.array([task.holds(x, y, yaw) for x, y in points])
        assert (fast == real).all(), points[fast != real]
        assert real.any()


def test_timing() -> None:
    """Each search's CPU time (not the wall clock, which a loaded machine stretches)."""
    dense = scene(block("orange_block", 0.33, 0.25), block("purple_block", 0.62, -0.25))
    for world, limit in ((scene(), 0.3), (dense, 0.3)):
        worst = 0.0
        for relation, target in CASES:
            start = time.process_time()
            first, kw = targets(target)
            find_placement(world, HELD, relation, first, **kw)
            worst = max(worst, time.process_time() - start)
        print(f"{len(world.objects)} objects: worst {worst * 1000:.1f} ms")
        assert worst < limit
