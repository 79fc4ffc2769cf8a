"""Several objects ``at`` one region: ``place`` packs them inside ``at``'s 6 cm radius."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from claw.envs import TabletopEnv, geometry
from claw.envs.predicates import AT_RADIUS, evaluate
from claw.envs.regions import REGIONS
from claw.envs.robot import HAND_HALF_EXTENTS
from claw.envs.state import ObjectState, WorldState
from claw.skills import get_skill
from claw.skills import pick as pick_mod
from claw.skills import placement as pl
from claw.skills.exceptions import NoPlacement
from claw.skills.placement import find_placement

NAMES = ("red_block", "green_block", "blue_block", "yellow_block", "orange_block")


def block(name: str, x: float, y: float, z: float = 0.02, yaw: float = 0.0) -> ObjectState:
    return ObjectState.make(name, "block", (x, y, z), yaw=yaw, size=0.04)


def release_fingers(x: float, y: float, yaw: float) -> list[Any]:
    """The open fingers releasing a 4 cm block at (x, y, yaw), default opening."""
    half = 0.02 + pl.RELEASE_MARGIN / 2 + pl.FINGER_THICKNESS / 2
    ax, ay = -math.sin(yaw), math.cos(yaw)
    return [
        geometry.rect_corners(
            x + s * half * ax, y + s * half * ay, yaw, pl.FINGER_LENGTH / 2, pl.FINGER_THICKNESS / 2
        )
        for s in (1, -1)
    ]


@pytest.mark.parametrize("region", ["center", "far left corner", "near right corner"])
def test_four_blocks_fit_at_one_region_and_a_fifth_is_refused(region: str) -> None:
    ax, ay = REGIONS[region]
    placed: list[ObjectState] = []
    for i, name in enumerate(NAMES[:4]):
        held = block(name, 0.5, 0.0, z=0.3, yaw=0.2 * i)
        p = find_placement(WorldState.from_objects([*placed, held]), name, "at", region)
        assert math.dist((p.x, p.y), (ax, ay)) <= AT_RADIUS - p.robustness + 1e-9
        new = block(name, p.x, p.y, yaw=p.yaw)
        for other in placed:  # clear of the earlier blocks, and the fingers open beside them
            assert geometry.polygon_gap(new.footprint(), other.footprint()) >= 0.015 - 1e-9
            for finger in release_fingers(p.x, p.y, p.yaw):
                assert geometry.polygon_gap(finger, other.footprint()) >= pl.FINGER_GAP - 1e-9
        placed.append(new)
    assert len({(round(o.xy[0], 4), round(o.xy[1], 4)) for o in placed}) == 4
    world = WorldState.from_objects([*placed, block(NAMES[4], 0.5, 0.0, z=0.3)])
    with pytest.raises(NoPlacement) as info:
        find_placement(world, NAMES[4], "at", region)
    there = "red_block, green_block, blue_block, yellow_block are there"
    assert str(info.value) == f"no free spot at the {region}: {there}"


@pytest.mark.slow
def test_three_blocks_placed_at_a_region_on_physics(
    make_env: Callable[..., TabletopEnv],
) -> None:
    spots = ((0.36, -0.22), (0.36, 0.0), (0.60, -0.22))
    objs = [
        {"type": "block", "color": c, "pose": list(xy)}
        for c, xy in zip(("red", "green", "blue"), spots, strict=True)
    ]
    env = make_env(scene={"name": "three-at-a-corner", "objects": objs})
    env.reset(seed=0)
    names = [f"{c}_block" for c in ("red", "green", "blue")]
    for name in names:
        picked = get_skill("pick")(env, object=name)
        assert picked.success, picked.reason
        placed = get_skill("place")(env, target="top left corner", relation="at")
        assert placed.success, f"{name}: {placed.reason}"
    check = env.check([f"at({n}, far left corner)" for n in names])
    assert check.success, check.reason


def tower_at(x: float, y: float, height: int) -> list[ObjectState]:
    colors = ("gray", "pink", "cyan", "white", "black")
    return [block(f"{c}_block", x, y, z=0.02 + 0.04 * k) for k, c in enumerate(colors[:height])]


@pytest.mark.parametrize("height", [1, 4])
def test_the_hand_keeps_clear_of_a_tower_beside_the_spot(height: int) -> None:
    """Released on the table, the palm is ~10 cm up: a 16 cm tower beside the spot is in its way,
    a single block is not."""
    ax, ay = REGIONS["center"]
    held = block("red_block", 0.5, -0.3, z=0.3)
    world = WorldState.from_objects([*tower_at(ax, ay + 0.07, height), held])
    p = find_placement(world, "red_block", "at", "center")
    hand = geometry.rect_corners(p.x, p.y, p.yaw, *HAND_HALF_EXTENTS)
    gap = geometry.polygon_gap(hand, world.get("gray_block").footprint())
    if height == 1:
        assert gap < pl.HAND_GAP  # the hand passes over it: the spot need not avoid it
    else:
        assert gap >= pl.HAND_GAP - 1e-9


@pytest.mark.slow
def test_a_grasp_turns_so_that_the_hand_clears_a_tower(
    make_env: Callable[..., TabletopEnv],
) -> None:
    """Beside a four-block tower, the claw grasps with its palm's long side away from it, and the
    tower still stands after the pick."""
    objs = [{"type": "block", "color": "red", "pose": [0.5, 0.0, 0.0]}]
    objs += [{"type": "block", "color": "green", "pose": [0.5, 0.075, 0.0]}]
    objs += [
        {"type": "block", "color": c, "on": f"{b}_block"}
        for b, c in (("green", "blue"), ("blue", "yellow"), ("yellow", "orange"))
    ]
    env = make_env(scene={"name": "beside-a-tower", "objects": objs})
    env.reset(seed=0)
    world = env.world_state()
    red = world.get("red_block")
    assert pick_mod.grasp_collisions(world, red, 0.0, 0.054) == ["yellow_block", "orange_block"]
    assert abs(pick_mod.grasp_yaw(world, red, 0.054, 0.0) or 0.0) == pytest.approx(math.pi / 2)
    assert get_skill("pick")(env, object="red_block").success
    tower = "stacked(green_block, blue_block, yellow_block, orange_block)"
    assert evaluate(tower, env.world_state()).holds


def test_a_sliver_of_a_region_beside_a_box_is_found(make_env: Callable[..., TabletopEnv]) -> None:
    """A box covers most of the near left corner (CaP's unseen scene, seed 562): the 1 cm grid
    has no node in the strip left free, the 5 mm one does."""
    objs = [{"type": t, "color": c} for t, c in (("block", "pink"), ("block", "purple"))]
    objs += [{"type": "box", "color": c} for c in ("gray", "cyan")]
    env = make_env(scene={"name": "unseen-two-boxes", "objects": objs})
    env.reset(seed=562)
    world = env.world_state()
    p = find_placement(world, "purple_block", "at", "near left corner", release_width=0.054)
    ax, ay = REGIONS["near left corner"]
    assert math.dist((p.x, p.y), (ax, ay)) <= AT_RADIUS - p.robustness + 1e-9
    gap = geometry.polygon_gap(block("purple_block", p.x, p.y, yaw=p.yaw).footprint(),
                               world.get("gray_box").footprint())  # fmt: skip
    assert gap >= 0.015 - 1e-9
