"""Boxes filled to capacity and emptied again, on MuJoCo physics.

``place`` packs a box from a corner; where no finger fits between the block and the walls or
its neighbours it lets go with the block just above the rim and the block drops onto its spot.
``pick`` counts a box's walls as obstacles only where the open fingers would hit them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from claw.envs import TabletopEnv
from claw.skills import get_skill
from claw.skills.base import SkillResult

pytestmark = pytest.mark.slow

MakeEnv = Callable[..., TabletopEnv]

BOX = (0.5, 0.0)
COLORS = ("red", "green", "yellow", "orange", "purple", "pink", "cyan", "brown", "gray")
# Where the blocks wait on the table, clear of a 20 cm box at BOX.
TABLE_SPOTS = (
    (0.36, -0.22),
    (0.36, 0.22),
    (0.62, -0.22),
    (0.62, 0.22),
    (0.36, -0.12),
    (0.36, 0.12),
    (0.64, -0.12),
    (0.64, 0.12),
    (0.50, 0.25),
)
TILTED = math.radians(5)  # a block tilted more than this has not landed flat
LANDING = 0.003  # m: a dropped block settles this close to the spot chosen for it


def run(env: TabletopEnv, skill: str, **args: Any) -> SkillResult:
    return get_skill(skill)(env, **args)


def holds(env: TabletopEnv, predicate: str) -> bool:
    return env.check([predicate]).results[0].holds


def packing_env(make_env: MakeEnv, size: float, blocks: int) -> TabletopEnv:
    objs: list[dict[str, Any]] = [{"type": "box", "color": "blue", "pose": list(BOX), "size": size}]
    objs += [
        {"type": "block", "color": c, "pose": list(xy)}
        for c, xy in zip(COLORS[:blocks], TABLE_SPOTS, strict=False)
    ]
    env = make_env(scene={"name": "packing", "objects": objs})
    env.reset(seed=0)
    return env


def fill(env: TabletopEnv, blocks: int) -> list[SkillResult]:
    """Pick each block and place it in blue_box; every step must succeed."""
    places = []
    for color in COLORS[:blocks]:
        name = f"{color}_block"
        picked = run(env, "pick", object=name)
        assert picked.success, picked.reason
        placed = run(env, "place", target="blue_box", relation="in")
        assert placed.success, f"{name}: {placed.reason}"
        places.append(placed)
    return places


def assert_packed(env: TabletopEnv, blocks: int, places: list[SkillResult]) -> None:
    """Every block in the box, upright, on its floor, near its spot; the box did not move."""
    world = env.world_state()
    box = world.get("blue_box")
    assert np.allclose(box.xy, BOX, atol=0.005)
    for color, placed in zip(COLORS[:blocks], places, strict=True):
        name = f"{color}_block"
        obj = world.get(name)
        assert holds(env, f"in({name}, blue_box)"), name
        assert math.acos(min(1.0, abs(float(obj.rotation[2, 2])))) < TILTED, name
        assert obj.bottom == pytest.approx(box.bottom + 0.008, abs=0.002), name  # on the floor
        assert float(np.linalg.norm(obj.xy - placed.details["spot"])) < LANDING, name


def test_a_12cm_box_takes_four_blocks(make_env: MakeEnv) -> None:
    env = packing_env(make_env, 0.12, 4)
    places = fill(env, 4)
    # The fingers fit beside none of the four (the box leaves 4 cm over two blocks): dropped.
    assert all(p.details["over_rim"] for p in places)
    assert_packed(env, 4, places)
    assert run(env, "home").success


def test_a_20cm_box_takes_nine_blocks(make_env: MakeEnv) -> None:
    env = packing_env(make_env, 0.20, 9)
    places = fill(env, 9)
    assert_packed(env, 9, places)


def test_a_full_box_refuses_one_more(make_env: MakeEnv) -> None:
    env = packing_env(make_env, 0.12, 5)
    fill(env, 4)
    assert run(env, "pick", object="purple_block").success
    refused = run(env, "place", target="blue_box", relation="in")
    assert not refused.success
    assert refused.reason.startswith("no free spot in blue_box: ")
    assert holds(env, "holding(purple_block)")


@pytest.mark.parametrize("offset", [0.0, 0.011])
def test_pick_from_a_box(make_env: MakeEnv, offset: float) -> None:
    """A 4 cm block in a 12 cm box: in its middle (4 cm to every wall), and 2.9 cm from two
    walls (the claw opens narrower there)."""
    x, y = BOX[0] + offset, BOX[1] + offset
    objs = [
        {"type": "box", "color": "blue", "pose": list(BOX)},
        {"type": "block", "color": "red", "pose": [x, y]},
    ]
    env = make_env(scene={"name": "boxed", "objects": objs})
    env.reset(seed=0)
    assert holds(env, "in(red_block, blue_box)")
    picked = run(env, "pick", object="red_block")
    assert picked.success, picked.reason
    assert holds(env, "holding(red_block)")
    assert not holds(env, "in(red_block, blue_box)")


def test_pick_refuses_a_tightly_packed_block(make_env: MakeEnv) -> None:
    """Four blocks packed in a 12 cm box leave about 1 cm to the walls and 2 cm between them:
    no finger fits, and pick says so without moving anything."""
    env = packing_env(make_env, 0.12, 4)
    fill(env, 4)
    assert run(env, "home").success
    before = env.world_state()
    refused = run(env, "pick", object="red_block")
    assert not refused.success
    assert refused.reason.startswith("no room for the fingers around red_block: ")
    assert "blue_box's wall" in refused.reason and refused.reason.endswith("on every side")
    after = env.world_state()
    for name in before.objects:
        assert np.allclose(before.get(name).position, after.get(name).position, atol=1e-3)
