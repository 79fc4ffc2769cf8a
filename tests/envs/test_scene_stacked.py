"""Scenes that start where tasks start: blocks ``on`` blocks (towers) and ``in`` boxes.

Validation messages, sampled geometry, determinism, and the physics: after reset the objects rest
and the ground-truth predicates (``on``, ``stacked``, ``in``) hold.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import mujoco
import numpy as np
import pytest
import yaml

from claw.envs import TabletopEnv, geometry, objects
from claw.envs.exceptions import InvalidSceneError
from claw.envs.scene import BOX_CLEARANCE, MAX_TOWER_TOP, PlacedObject, SceneSpec

MM = 1e-3
REST_STEPS = 250  # physics steps of 2 ms: 0.5 s
TOWER_COLORS = ("red", "green", "blue", "yellow", "orange")


def block(color: str, **kw: Any) -> dict[str, Any]:
    return {"type": "block", "color": color, **kw}


def box(color: str = "gray", **kw: Any) -> dict[str, Any]:
    return {"type": "box", "color": color, **kw}


def inside(box_name: str, **kw: Any) -> dict[str, Any]:
    return {"in": box_name, **kw}


def tower(colors: tuple[str, ...] = TOWER_COLORS, **kw: Any) -> list[dict[str, Any]]:
    """Blocks of ``colors``, each on the one before."""
    first, *rest = colors
    below = [f"{c}_block" for c in colors[:-1]]
    return [block(first, **kw)] + [
        block(c, on=b, **{k: v for k, v in kw.items() if k == "size"})
        for c, b in zip(rest, below, strict=True)
    ]


TOWER = {"name": "tower", "objects": [*tower(), block("purple"), box("blue")]}
FULL_BOX = {
    "name": "full-box",
    "objects": [box()]
    + [block(c, **inside("gray_box")) for c in TOWER_COLORS[:4]]
    + [block("purple"), block("pink")],
}


# --- validation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("objs", "expected"),
    [
        ([block("blue"), block("red", on="green_block")],
         "objects[1].on (red_block): 'green_block' is not an object listed before red_block; "
         "allowed: blue_block"),
        ([block("red", on="blue_block"), block("blue")],
         "objects[0].on (red_block): blue_block is listed after red_block; list the block first; "
         "allowed: none (no block is listed before)"),
        ([block("red", on="red_block")],
         "objects[0].on (red_block): red_block cannot start on itself"),
        ([box(), block("blue"), block("red", **inside("gray_box_2"))],
         "objects[2].in (red_block): 'gray_box_2' is not an object listed before red_block; "
         "allowed: gray_box"),
        ([box(), block("red", on="gray_box")],
         "objects[1].on (red_block): gray_box is a box; on takes a block (use in: gray_box)"),
        ([block("blue"), block("red", **inside("blue_block"))],
         "objects[1].in (red_block): blue_block is a block; in takes a box (use on: blue_block)"),
        ([box(), block("blue"), block("red", on="blue_block", **inside("gray_box"))],
         "objects[2] (red_block): both on and in given; allowed: one of them"),
        ([block("blue"), block("red", on="blue_block", pose=[0.4, 0.0])],
         "objects[1].pose (red_block): not allowed with on: blue_block"),
        ([box(), block("red", pose=[0.4, 0.0, 10], **inside("gray_box"))],
         "objects[1].pose (red_block): not allowed with in: gray_box"),
        ([block("blue"), box("red", on="blue_block")],
         "objects[1].on (red_box): a box cannot start on or in another object; only blocks"),
        ([box(), box("red", **inside("gray_box"))],
         "objects[1].in (red_box): a box cannot start on or in another object"),
        ([block("blue"), block("red", size=0.05, on="blue_block")],
         "objects[1].on (red_block): red_block (5 cm) is wider than blue_block (4 cm); allowed: a "
         "block at most as wide as the block it rests on"),
        ([block("blue"), block("red", on="blue_block"), block("green", on="blue_block")],
         "objects[2].on (green_block): blue_block already carries red_block (objects[1]); allowed: "
         "one block on a block"),
        ([box()] + [block(c, **inside("gray_box")) for c in TOWER_COLORS],
         "objects[5].in (orange_block): gray_box (12 cm inside) fits 4 of the 5 blocks listed in "
         "it, 2 mm from its walls and from one another"),
        ([box(size=0.08), block("red", size=0.06, **inside("gray_box")),
          block("blue", size=0.02, **inside("gray_box"))],
         "objects[2].in (blue_block): gray_box (8 cm inside) fits 1 of the 2 blocks"),
        (tower(size=0.06),
         "objects[4].on (orange_block): its top would be 0.300 m above the table; allowed: towers "
         "up to 0.25 m"),
        ([block("blue"), block("red", on=5)],
         "objects[1].on: 5 is not an object name; allowed: blue_block"),
        ([box(), block("red", **inside(""))], "objects[1].in: '' is not an object name"),
        ([block("red", inside="gray_box")],
         "objects[0].inside: unknown key; allowed: type, color, size, pose, on, in"),
        ([box(pose=[0.45, 0.0]), block("red", pose=[0.45, 0.0]),
          block("blue", **inside("gray_box"))],
         "objects[1] (red_block) starts inside gray_box by its pose, and other blocks are listed "
         "'in: gray_box'; give red_block 'in: gray_box' instead of a pose"),
    ],
)  # fmt: skip
def test_invalid_support(objs: list[dict[str, Any]], expected: str) -> None:
    with pytest.raises(InvalidSceneError) as info:
        SceneSpec.load({"objects": objs})
    message = str(info.value)
    assert expected in message
    assert "\n" not in message
    assert info.value.kind == "invalid_scene"


def test_names_are_normalised_and_python_names_work() -> None:
    spec = SceneSpec.load({"objects": [box(), block("blue", **inside(" Gray_Box "))]})
    assert spec.objects[1].in_ == "gray_box"
    assert spec.objects[1].support() == ("in", "gray_box")
    direct = SceneSpec(objects=[box(), {"type": "block", "color": "blue", "in_": "gray_box"}])
    assert direct.sample(3) == spec.sample(3)


def test_tallest_tower_allowed() -> None:
    six = ("red", "green", "blue", "yellow", "orange", "purple")
    top = SceneSpec.load({"objects": tower(six)}).sample(0)[-1]
    assert top.z + top.size / 2 == pytest.approx(0.24)
    assert top.z + top.size / 2 <= MAX_TOWER_TOP
    with pytest.raises(InvalidSceneError, match=r"objects\[6\]\.on \(pink_block\): its top"):
        SceneSpec.load({"objects": tower((*six, "pink"))})


def test_box_capacity() -> None:
    """Rows of 2 mm gaps: a 12 cm box holds 2x2 blocks of 4 cm, a 20 cm box 3x3 of 6 cm."""
    four = [box()] + [block(c, **inside("gray_box")) for c in TOWER_COLORS[:4]]
    assert len(SceneSpec.load({"objects": four}).sample(0)) == 5
    nine = [box(size=0.2)] + [block("red", size=0.06, **inside("gray_box")) for _ in range(9)]
    assert len(SceneSpec.load({"objects": nine}).sample(0)) == 10
    with pytest.raises(  # a tenth block would make 11 objects, over the scene limit
        InvalidSceneError, match=r"gray_box \(18 cm inside\) fits 4 of the 9 blocks"
    ):
        SceneSpec.load({"objects": [box(size=0.18), *nine[1:]]})


def test_yaml_file_on_and_in_keys(tmp_path: Path) -> None:
    """A bare ``on:`` is a key in scene files (YAML 1.1 would read it as ``true``)."""
    text = (
        "objects:\n"
        "  - {type: block, color: red}\n"
        "  - {type: block, color: blue, on: red_block}\n"
        "  - {type: box, color: gray}\n"
        "  - {type: block, color: green, in: gray_box}\n"
    )
    path = tmp_path / "stack.yaml"
    path.write_text(text)
    spec = SceneSpec.load(path)
    assert [o.support() for o in spec.objects] == [
        None, ("on", "red_block"), None, ("in", "gray_box"),
    ]  # fmt: skip
    # A mapping loaded elsewhere with yaml.safe_load has the key True for on: still understood.
    assert SceneSpec.load(yaml.safe_load(text)).objects == spec.objects


def test_builtin_stacked_scene() -> None:
    red, green, blue, gray, yellow, orange, purple = SceneSpec.load("stacked").sample(4)
    assert (green.on, blue.on, yellow.container, orange.container) == (
        "red_block", "green_block", "gray_box", "gray_box",
    )  # fmt: skip
    assert (red.on, red.container, purple.on, purple.container, gray.container) == (None,) * 5


# --- sampling geometry ---------------------------------------------------------------------------


def _by_name(placed: list[PlacedObject]) -> dict[str, PlacedObject]:
    return {p.name: p for p in placed}


@pytest.mark.parametrize("seed", range(10))
def test_tower_geometry(seed: int) -> None:
    spec = SceneSpec.load(TOWER)
    placed = _by_name(spec.sample(seed))
    names = [f"{c}_block" for c in TOWER_COLORS]
    base = placed[names[0]]
    assert (base.on, base.container, base.z) == (None, None, pytest.approx(0.02))
    for k, (lower, upper) in enumerate(itertools.pairwise(names), start=1):
        p = placed[upper]
        assert p.on == lower and p.container is None
        assert (p.x, p.y, p.yaw) == (base.x, base.y, base.yaw)
        assert p.z == pytest.approx(0.02 + 0.04 * k)
        assert p.z - p.size / 2 == pytest.approx(placed[lower].z + placed[lower].size / 2)
    # min_separation applies to the tower's base, not within the tower.
    for other in ("purple_block", "blue_box"):
        gap = geometry.polygon_gap(base.footprint(), placed[other].footprint())
        assert gap >= spec.min_separation - 1e-9


def test_tower_on_a_fixed_base_of_mixed_sizes() -> None:
    objs = [block("red", size=0.06, pose=[0.5, 0.1, 30]), block("blue", size=0.05, on="red_block"),
            block("green", size=0.02, on="blue_block")]  # fmt: skip
    _, blue, green = SceneSpec.load({"objects": objs}).sample(0)
    assert (blue.x, blue.y, blue.yaw) == (0.5, 0.1, pytest.approx(math.radians(30)))
    assert blue.z == pytest.approx(0.06 + 0.025)
    assert green.z == pytest.approx(0.06 + 0.05 + 0.01)


def _check_contents(box_obj: PlacedObject, contents: list[PlacedObject]) -> None:
    inner_half = box_obj.size / 2 - BOX_CLEARANCE
    room = geometry.rect_corners(box_obj.x, box_obj.y, box_obj.yaw, inner_half, inner_half)
    for p in contents:
        assert p.container == box_obj.name and p.on is None
        assert p.yaw == box_obj.yaw
        assert p.z == pytest.approx(objects.BOX_FLOOR_THICKNESS + p.size / 2)
        assert geometry.polygon_inside(p.footprint(), room, 1e-9), p
    for a, b in itertools.combinations(contents, 2):
        assert geometry.polygon_gap(a.footprint(), b.footprint()) >= BOX_CLEARANCE - 1e-9


@pytest.mark.parametrize("seed", range(20))
def test_box_contents_geometry(seed: int) -> None:
    spec = SceneSpec.load(FULL_BOX)
    placed = spec.sample(seed)
    gray, *blocks, purple, pink = placed
    _check_contents(gray, blocks)
    for free in (purple, pink):
        assert free.container is None
        gap = geometry.polygon_gap(gray.footprint(), free.footprint())
        assert gap >= spec.min_separation - 1e-9


@pytest.mark.parametrize("seed", range(20))
def test_mixed_contents_and_a_tower_in_a_box(seed: int) -> None:
    objs = [
        box(size=0.16, pose=[0.5, -0.1, -20]),
        block("red", size=0.06, **inside("gray_box")),
        block("blue", size=0.03, **inside("gray_box")),
        block("green", size=0.05, **inside("gray_box")),
        block("yellow", size=0.02, **inside("gray_box")),
        block("orange", size=0.04, on="red_block"),
    ]
    gray, red, blue, green, yellow, orange = SceneSpec.load({"objects": objs}).sample(seed)
    _check_contents(gray, [red, blue, green, yellow])
    assert (orange.x, orange.y, orange.on, orange.container) == (red.x, red.y, "red_block", None)
    assert orange.z == pytest.approx(objects.BOX_FLOOR_THICKNESS + 0.06 + 0.02)


def test_single_block_spreads_over_the_box() -> None:
    spec = SceneSpec.load({"objects": [box(pose=[0.5, 0.0]), block("red", **inside("gray_box"))]})
    xs, ys = zip(*((p.x, p.y) for _, p in (spec.sample(seed) for seed in range(200))), strict=True)
    limit = 0.06 - BOX_CLEARANCE - 0.02
    for values, centre in ((xs, 0.5), (ys, 0.0)):
        offsets = np.array(values) - centre
        assert np.abs(offsets).max() <= limit + 1e-9
        assert offsets.min() < -limit / 2 and offsets.max() > limit / 2  # not stuck in a corner


def test_sampling_deterministic_and_others_unmoved() -> None:
    spec = SceneSpec.load(FULL_BOX)
    assert spec.sample(5) == SceneSpec.load(FULL_BOX).sample(5)
    assert spec.sample(np.random.default_rng(5)) == spec.sample(5)
    layouts = {tuple((p.x, p.y) for p in spec.sample(seed)[1:5]) for seed in range(10)}
    assert len(layouts) == 10
    # Objects on or in others are placed after the rest: they do not move the others.
    for full, bare in ((FULL_BOX, [0, 5, 6]), (TOWER, [0, 5, 6])):
        plain = SceneSpec.load({"objects": [full["objects"][i] for i in bare]})
        for seed in range(5):
            with_supported = SceneSpec.load(full).sample(seed)
            assert [with_supported[i] for i in bare] == plain.sample(seed)


# --- physics: at rest, predicates hold -----------------------------------------------------------


def _settle(env: TabletopEnv, seed: int, options: dict[str, Any] | None = None) -> float:
    """Reset, run 0.5 s of physics with no action; the largest object displacement (m)."""
    env.reset(seed=seed, options=options)
    bodies = np.array([env.model.body(name).id for name in env.object_names])
    start = env.data.xpos[bodies].copy()
    mujoco.mj_step(env.model, env.data, nstep=REST_STEPS)
    contacts = env.data.contact[: env.data.ncon]
    assert all(c.dist > -MM for c in contacts), "interpenetration at rest"
    return float(np.linalg.norm(env.data.xpos[bodies] - start, axis=1).max())


STACKED_GOAL = [
    "stacked(red_block, green_block, blue_block, yellow_block, orange_block)",
    "on(green_block, red_block)",
    "on(orange_block, yellow_block)",
]
BOX_GOAL = [f"in({c}_block, gray_box)" for c in TOWER_COLORS[:4]]


BUILTIN_GOAL = [
    "stacked(red_block, green_block, blue_block)",
    "in(yellow_block, gray_box)",
    "in(orange_block, gray_box)",
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scene", "goal"),
    [(TOWER, STACKED_GOAL), (FULL_BOX, BOX_GOAL), ("stacked", BUILTIN_GOAL)],
    ids=["tower-of-five", "full-box", "builtin-stacked"],
)
def test_starts_at_rest_with_predicates_holding(
    make_env: Any, scene: dict[str, Any] | str, goal: list[str]
) -> None:
    env = make_env(scene=scene)
    for seed in range(10):
        env.reset(seed=seed)
        result = env.check(goal)
        assert result.success, [r.reason for r in result.results if not r.holds]
        assert _settle(env, seed) < MM, seed
        assert env.check(goal).success  # still after 0.5 s


def test_reset_places_objects_as_sampled(make_env: Any) -> None:
    env = make_env(scene=FULL_BOX)
    env.reset(seed=3)
    state = env.world_state()
    for p in SceneSpec.load(FULL_BOX).sample(3):
        assert state.objects[p.name].position == pytest.approx([p.x, p.y, p.z], abs=1e-9)


@pytest.mark.slow
def test_tower_rests_with_randomised_physics(make_env: Any) -> None:
    env = make_env(scene=TOWER)
    for seed in range(5):
        assert _settle(env, seed, {"randomize": True}) < MM, seed
