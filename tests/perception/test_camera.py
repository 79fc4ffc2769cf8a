"""The camera perceiver: what two RGB-D views and the arm's joints show, against the truth."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import mujoco
import numpy as np
import pytest

from claw.envs import TabletopEnv
from claw.envs.predicates import Predicate, evaluate
from claw.perception import attach
from claw.perception.camera import CameraPerceiver
from claw.perception.sensors import SensorReading

ROOT = Path(__file__).resolve().parents[2]
SETTLE = 10


def seen(env: TabletopEnv, seed: int = 0) -> tuple[CameraPerceiver, dict[str, float]]:
    """A camera perceiver's estimate of ``env`` after it settles, and each object's error (m)."""
    for _ in range(SETTLE):
        env.actuate()
    perceiver = CameraPerceiver()
    perceiver.reset(env, seed)
    world = perceiver.perceive(env).world
    truth = env.true_world_state()
    errors = {
        name: float(np.linalg.norm(world.get(name).position - obj.position))
        for name, obj in truth.objects.items()
        if name in world.objects
    }
    return perceiver, errors


@pytest.mark.parametrize("scene", ["default", "dense", "stacked", "two_arms"])
def test_every_object_of_a_built_in_scene_is_seen_where_it_is(scene: str, make_env) -> None:
    env = make_env(scene=scene)
    env.reset(seed=1)
    perceiver, errors = seen(env, 1)
    perceiver.close()
    assert sorted(errors) == sorted(env.object_names)
    assert max(errors.values()) < 0.015, errors  # the middle of a tower is seen on its sides only
    assert float(np.median(list(errors.values()))) < 0.003, errors


def place(env: TabletopEnv, name: str, xyz: tuple[float, float, float]) -> None:
    """Test setup only: put an object somewhere by its joint (no skill ever does this)."""
    address = env.model.joint(name).qposadr[0]
    env.data.qpos[address : address + 3] = xyz
    mujoco.mj_forward(env.model, env.data)


def test_an_object_under_the_table_is_unseen_not_guessed(make_env) -> None:
    env = make_env(scene="default")
    env.reset(seed=0)
    place(env, "red_block", (0.5, 0.0, -0.3))
    perceiver = CameraPerceiver()
    perceiver.reset(env, 0)
    perception = perceiver.perceive(env)
    perceiver.close()
    assert "red_block" in env.true_world_state().objects
    assert perception.unseen == ("red_block",)
    assert "red_block" not in perception.world.objects
    assert perception.world.unseen == ("red_block",)


BOX_CORNER = {  # a 2 cm block in the box's corner nearest both views: both walls hide it
    "name": "hidden",
    "objects": [
        {"type": "box", "color": "gray", "pose": [0.5, 0.1, 0.0]},
        {"type": "block", "color": "red", "size": 0.02, "pose": [0.549, 0.051]},
        {"type": "block", "color": "blue", "pose": [0.4, -0.2]},
    ],
}


def test_an_object_behind_the_box_walls_from_both_views_is_unseen(make_env) -> None:
    env = make_env(scene=BOX_CORNER)
    env.reset(seed=0)
    perceiver, errors = seen(env)
    perceiver.close()
    assert env.true_world_state().get("red_block").bottom < 0.02  # it is there, in the box
    assert "red_block" not in errors
    assert sorted(errors) == ["blue_block", "gray_box"]


def test_the_same_block_in_the_middle_of_the_box_is_seen(make_env) -> None:
    scene = {
        **BOX_CORNER,
        "objects": [BOX_CORNER["objects"][0], {**BOX_CORNER["objects"][1], "pose": [0.5, 0.1]}],
    }
    env = make_env(scene=scene)
    env.reset(seed=0)
    perceiver, errors = seen(env)
    perceiver.close()
    assert errors["red_block"] < 0.005


def test_the_estimate_reads_the_sensor_reading_alone(make_env) -> None:
    """What the camera perceiver estimates comes from the reading: moving every object after
    the capture changes nothing of it."""
    env = make_env(scene="dense")
    env.reset(seed=2)
    perceiver = CameraPerceiver()
    perceiver.reset(env, 2)
    assert perceiver._sensors is not None
    reading = perceiver._sensors.read()
    first = perceiver.estimate(reading).world
    for name in env.object_names:
        place(env, name, (0.2, 0.5, -0.4))
    perceiver.reset(env, 2)
    again = perceiver.estimate(reading).world
    perceiver.close()
    assert first.names == again.names
    for name in first.names:
        assert np.allclose(first.get(name).position, again.get(name).position)


def test_a_sensor_reading_carries_no_object_state() -> None:
    fields = {f.name for f in dataclasses.fields(SensorReading)}
    assert fields == {"frames", "robot", "arms", "acting_arm", "time", "vocabulary", "arm_log"}


FORBIDDEN = {
    "true_world_state", "world_state", "xpos", "xquat", "qpos", "qvel", "geom_bodyid",
    "enable_segmentation_rendering", "object_names", "_placed", "data", "model",
}  # fmt: skip


@pytest.mark.parametrize("module", ["camera", "segment", "estimate", "picture"])
def test_the_estimator_never_reads_the_simulator(module: str) -> None:
    """The estimator's modules import no MuJoCo and touch no simulator state: they see only
    what ``Sensors`` hands them (images, calibration, the arm's readings)."""
    tree = ast.parse((ROOT / "perception" / f"{module}.py").read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not {m for m in imported if m.startswith("mujoco")}
    touched = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert not touched & FORBIDDEN, touched & FORBIDDEN


def test_the_sensors_read_no_object_pose() -> None:
    """``Sensors`` renders the scene and reads the arm; it never reads an object's pose, the
    segmentation render or an object's geoms."""
    source = (ROOT / "perception" / "sensors.py").read_text()
    for name in (
        "xquat",
        "true_world_state",
        "enable_segmentation_rendering",
        "object_names",
        "_placed",
        "_obj_",
    ):
        assert name not in source


def test_a_held_object_is_followed_with_the_claw_and_seen_where_it_is_put(make_env) -> None:
    from claw.skills import get_skill

    env = make_env(scene="default")
    env.reset(seed=0)
    attach(env, "camera")
    pick, place_skill = get_skill("pick"), get_skill("place")
    picked = pick(env, object="red_block")
    assert picked.success, picked.reason
    belief = env.world_state()
    assert evaluate(Predicate.of("holding", "red_block"), belief).holds
    error = np.linalg.norm(
        belief.get("red_block").position - env.true_world_state().get("red_block").position
    )
    assert error < 0.01
    placed = place_skill(env, target="blue_box", relation="in")
    assert placed.success, placed.reason
    assert env.check(["in(red_block, blue_box)"]).success
    after = env.world_state()
    assert not evaluate(Predicate.of("holding", "red_block"), after).holds
    assert (
        np.linalg.norm(
            after.get("red_block").position - env.true_world_state().get("red_block").position
        )
        < 0.005
    )


def test_sensor_noise_is_seeded(make_env) -> None:
    from claw.envs import DomainRandomization

    positions = []
    for _ in range(2):
        env = make_env(scene="default")
        env.reset(seed=4, options={"randomize": DomainRandomization.sensors_only()})
        perceiver, _ = seen(env, 4)
        positions.append(perceiver.last_detections[0].centre)
        perceiver.close()
    assert np.array_equal(positions[0], positions[1])
