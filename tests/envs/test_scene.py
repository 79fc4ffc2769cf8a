"""Scene specs: loading, validation messages, naming, fixed layouts and seeded sampling."""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from claw.envs import geometry, objects, regions
from claw.envs.exceptions import InvalidSceneError
from claw.envs.scene import ObjectSpec, PlacedObject, SceneSpec, builtin_scenes

BLOCK = {"type": "block", "color": "red"}
BOX = {"type": "box", "color": "blue"}


def _scene(*objs: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return {"objects": list(objs), **kw}


def _in_workspace(placed: PlacedObject, eps: float = 1e-9) -> bool:
    corners = placed.footprint()
    (x0, x1), (y0, y1) = regions.WORKSPACE_X, regions.WORKSPACE_Y
    return bool(
        (corners[:, 0] >= x0 - eps).all()
        and (corners[:, 0] <= x1 + eps).all()
        and (corners[:, 1] >= y0 - eps).all()
        and (corners[:, 1] <= y1 + eps).all()
    )


# --- loading -------------------------------------------------------------------------------------


def test_builtin_scenes_listed() -> None:
    assert {"default", "dense", "blocks", "stacked"} <= set(builtin_scenes())


def test_default_scene() -> None:
    spec = SceneSpec.load("default")
    assert spec.name == "default"
    assert spec.object_names() == [
        "red_block", "green_block", "blue_block", "yellow_block", "blue_box", "red_box",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "blocks", "boxes"),
    [("default", 4, 2), ("dense", 6, 2), ("blocks", 4, 0), ("stacked", 6, 1)],
)
def test_builtin_contents(name: str, blocks: int, boxes: int) -> None:
    spec = SceneSpec.load(name)
    types = [o.type for o in spec.objects]
    assert (types.count("block"), types.count("box")) == (blocks, boxes)
    assert len({o.color for o in spec.objects if o.type == "block"}) == blocks


def test_load_from_path(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text("objects:\n  - {type: block, color: green, size: 0.05, pose: [0.4, 0.1, 30]}\n")
    for source in (path, str(path)):
        spec = SceneSpec.load(source)
        assert spec.name == "mine"  # the file stem when the file gives no name
        assert spec.objects[0] == ObjectSpec(
            type="block", color="green", size=0.05, pose=(0.4, 0.1, 30)
        )


def test_load_from_mapping_and_spec() -> None:
    spec = SceneSpec.load(_scene(BLOCK, BOX, name="two", min_separation=0.05))
    assert (spec.name, spec.min_separation, spec.object_names()) == (
        "two", 0.05, ["red_block", "blue_box"],
    )  # fmt: skip
    assert SceneSpec.load(spec) is spec
    assert SceneSpec(objects=[BLOCK]).name == "custom"


def test_naming_repeats() -> None:
    spec = SceneSpec.load(_scene(BLOCK, BOX, BLOCK, {"type": "block", "color": "blue"}, BLOCK, BOX))
    assert spec.object_names() == [
        "red_block", "blue_box", "red_block_2", "blue_block", "red_block_3", "blue_box_2",
    ]  # fmt: skip
    assert [p.name for p in spec.sample(0)] == spec.object_names()


def test_defaults_and_normalisation() -> None:
    obj = SceneSpec.load(_scene({"type": " Box ", "color": "RED"})).objects[0]
    assert (obj.type, obj.color, obj.size, obj.pose) == ("box", "red", None, None)
    assert obj.resolved_size() == objects.default_size("box")


# --- invalid input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (_scene(BLOCK, BLOCK, {"type": "block", "color": "purpel"}),
         "objects[2].color: 'purpel' is not a colour; allowed: blue, red,"),
        (_scene({"type": "sphere", "color": "red"}),
         "objects[0].type: 'sphere' is not an object type; allowed: block, box"),
        (_scene(BLOCK, {"type": "box", "color": "red", "size": 0.3}),
         "objects[1].size: 0.3 out of range for box (0.08-0.2 m)"),
        (_scene({"type": "block", "color": "red", "size": 0.01}),
         "objects[0].size: 0.01 out of range for block (0.02-0.06 m)"),
        (_scene({**BLOCK, "colour": "red"}), "objects[0].colour: unknown key; allowed: type,"),
        (_scene(BLOCK, seed=3), "seed: unknown key; allowed: name, objects, min_separation"),
        (_scene(), "objects: empty"),
        ({"name": "x"}, "objects: required but missing"),
        (_scene({"type": "block"}), "objects[0].color: required but missing"),
        (_scene("red block"), "objects[0]: 'red block' is not a mapping"),
        (_scene({**BLOCK, "pose": [0.4]}), "objects[0].pose: [0.4] is not a pose; allowed: [x, y]"),
        (_scene({**BLOCK, "pose": [0.4, "a"]}), "objects[0].pose:"),
        (_scene({**BLOCK, "pose": [0.4, 0.0, 1.0, 2.0]}), "objects[0].pose:"),
        (_scene({**BLOCK, "pose": [0.4, float("nan")]}), "objects[0].pose:"),
        (_scene(BLOCK, min_separation=-0.01), "min_separation: -0.01 is invalid"),
        ("foo",
         "unknown scene 'foo': not a built-in (blocks, default, dense, stacked, two_arms) nor a "
             "YAML file"),
        ("nowhere/x.yaml", "file nowhere/x.yaml: not found"),
        (42, "scene source 'int' not understood"),
    ],
)  # fmt: skip
def test_invalid_spec(source: Any, expected: str) -> None:
    with pytest.raises(InvalidSceneError) as info:
        SceneSpec.load(source)
    message = str(info.value)
    assert expected in message
    assert "\n" not in message
    assert info.value.kind == "invalid_scene"


def test_direct_construction_raises_invalid_scene() -> None:
    with pytest.raises(InvalidSceneError, match=r"objects\[0\]\.color: 'teal' is not a colour"):
        SceneSpec(objects=[{"type": "block", "color": "teal"}])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("objects: [", "not valid YAML ("),
        ("- a\n- b\n", "expected a mapping of scene keys, got list"),
        ("", "got an empty file"),
    ],
)
def test_invalid_yaml_file(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "bad.yml"
    path.write_text(text)
    with pytest.raises(InvalidSceneError) as info:
        SceneSpec.load(path)
    assert f"file {path}: " in str(info.value)
    assert expected in str(info.value)
    assert "\n" not in str(info.value)


# --- fixed layouts -------------------------------------------------------------------------------


@pytest.mark.parametrize("pose", [(0.9, 0.0), (0.1, 0.0), (0.16, 0.0), (0.5, 0.7)])
def test_out_of_reach(pose: tuple[float, float]) -> None:
    assert not regions.in_reach(*pose)
    with pytest.raises(
        InvalidSceneError, match=r"objects\[1\] \(red_block\) at .* is out of reach"
    ):
        SceneSpec.load(_scene(BOX, {**BLOCK, "pose": list(pose)}))


@pytest.mark.parametrize(
    ("objs", "expected"),
    [
        ([{**BLOCK, "pose": [0.4, 0.0]}, {**BLOCK, "color": "blue", "pose": [0.42, 0.01, 30]}],
         "objects[0] (red_block) overlaps objects[1] (blue_block)"),
        ([{**BOX, "pose": [0.45, 0.0]}, {**BOX, "color": "red", "pose": [0.5, 0.1]}],
         "objects[0] (blue_box) overlaps objects[1] (red_box)"),
        ([{**BOX, "size": 0.2, "pose": [0.45, 0.0]}, {**BOX, "size": 0.08, "pose": [0.45, 0.0]}],
         "objects[0] (blue_box) overlaps objects[1] (blue_box_2)"),
        ([{**BOX, "pose": [0.45, 0.0]}, {**BLOCK, "pose": [0.45, 0.06]}],
         "objects[0] (blue_box) overlaps objects[1] (red_block): a block must lie wholly inside"),
        ([{**BOX, "pose": [0.45, 0]}, {**BLOCK, "pose": [0.45, 0]}, {**BLOCK, "pose": [0.46, 0]}],
         "objects[1] (red_block) overlaps objects[2] (red_block_2)"),
    ],
)  # fmt: skip
def test_overlapping_fixed_poses(objs: list[dict[str, Any]], expected: str) -> None:
    with pytest.raises(InvalidSceneError) as info:
        SceneSpec.load(_scene(*objs))
    assert expected in str(info.value)


def test_touching_fixed_blocks_allowed() -> None:
    spec = SceneSpec.load(_scene({**BLOCK, "pose": [0.4, 0.0]}, {**BLOCK, "pose": [0.44, 0.0]}))
    assert [p.container for p in spec.sample(0)] == [None, None]


@pytest.mark.parametrize("yaw", [0.0, 30.0, -45.0])
def test_block_inside_box(yaw: float) -> None:
    spec = SceneSpec.load(
        _scene(
            {**BLOCK, "pose": [0.45, 0.02, yaw + 10]},
            {**BOX, "pose": [0.45, 0.0, yaw]},
            {**BLOCK, "color": "green", "size": 0.03, "pose": [0.45, -0.03, yaw]},
            {**BLOCK, "color": "yellow"},
        )
    )
    red, box, green, yellow = spec.sample(7)
    assert (red.container, green.container, box.container, yellow.container) == (
        "blue_box", "blue_box", None, None,
    )  # fmt: skip
    assert red.z == pytest.approx(objects.BOX_FLOOR_THICKNESS + 0.02)
    assert green.z == pytest.approx(objects.BOX_FLOOR_THICKNESS + 0.015)
    assert box.z == pytest.approx(objects.BOX_WALL_HEIGHT / 2)
    assert yellow.z == pytest.approx(0.02)
    assert (red.x, red.y, red.yaw) == (0.45, 0.02, pytest.approx(math.radians(yaw + 10)))
    assert geometry.polygon_gap(yellow.footprint(), box.footprint()) >= spec.min_separation


def test_placed_object_geometry() -> None:
    (box,) = SceneSpec.load(_scene({**BOX, "size": 0.1, "pose": [0.5, -0.1, 90]})).sample(0)
    assert box.half_extents == objects.half_extents("box", 0.1)
    np.testing.assert_allclose(
        box.footprint(), geometry.rect_corners(0.5, -0.1, math.pi / 2, 0.058, 0.058)
    )
    inner = box.inner_footprint()
    assert inner is not None
    np.testing.assert_allclose(inner, geometry.rect_corners(0.5, -0.1, math.pi / 2, 0.05, 0.05))


# --- sampling ------------------------------------------------------------------------------------


def test_sampling_deterministic() -> None:
    spec = SceneSpec.load("default")
    assert spec.sample(5) == spec.sample(5)
    assert SceneSpec.load("default").sample(5) == spec.sample(5)
    assert spec.sample(np.random.default_rng(5)) == spec.sample(5)
    layouts = {tuple((p.x, p.y, p.yaw) for p in spec.sample(seed)) for seed in range(10)}
    assert len(layouts) == 10


@pytest.mark.parametrize("name", ["default", "dense", "blocks"])
def test_sampled_layouts_valid(name: str) -> None:
    spec = SceneSpec.load(name)
    for seed in range(100):
        placed = spec.sample(seed)
        assert [p.name for p in placed] == spec.object_names()
        for p in placed:
            assert _in_workspace(p), (seed, p)
            assert regions.in_reach(p.x, p.y)
            assert -math.pi / 4 <= p.yaw < math.pi / 4
            assert p.container is None
            assert p.z == pytest.approx(p.size / 2 if p.type == "block" else 0.025)
        for a, b in itertools.combinations(placed, 2):
            gap = geometry.polygon_gap(a.footprint(), b.footprint())
            assert gap >= spec.min_separation - 1e-9, (seed, a.name, b.name, gap)


def test_sampling_around_fixed_objects() -> None:
    fixed = {**BOX, "size": 0.2, "pose": [0.475, 0.0, 20]}
    spec = SceneSpec.load(_scene(fixed, *[{**BLOCK, "color": c} for c in objects.COLORS[:5]]))
    for seed in range(20):
        box, *blocks = spec.sample(seed)
        assert (box.x, box.y) == (0.475, 0.0)
        for b in blocks:
            assert geometry.polygon_gap(b.footprint(), box.footprint()) >= spec.min_separation


def test_min_separation_respected() -> None:
    spec = SceneSpec.load(_scene(*[BLOCK] * 4, min_separation=0.15))
    for seed in range(10):
        for a, b in itertools.combinations(spec.sample(seed), 2):
            assert geometry.polygon_gap(a.footprint(), b.footprint()) >= 0.15


def test_too_many_objects() -> None:
    spec = SceneSpec.load(_scene(*[BOX] * 10))  # as many as a scene may have; they do not fit
    with pytest.raises(InvalidSceneError, match=r"cannot fit 10 objects .*: more objects than fit"):
        spec.sample(0)
