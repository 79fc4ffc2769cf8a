"""Two arms on one table: the model, the scene field, arms chosen per call, and lockstep lanes."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

import claw.skills  # noqa: F401  (registers the skills)
from claw.envs.arms import arm_names
from claw.envs.exceptions import InvalidSceneError
from claw.envs.model import ObjectModel, build_model
from claw.envs.predicates import evaluate
from claw.envs.robot import RobotIndex
from claw.envs.scene import SceneSpec
from claw.envs.tabletop import TabletopEnv
from claw.skills.executor import execute_calls
from claw.skills.registry import get_skill

RED = ObjectModel("red_block", "block", "red", 0.04)


def test_one_arm_model_is_unchanged() -> None:
    one = build_model([RED])
    assert one.nu == 7 and one.nkey == 1
    assert arm_names(1) == ("left",)


def test_two_arm_model_stands_both_arms_at_rest() -> None:
    model = build_model([RED], arms=2)
    assert model.nu == 14
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key("rest").id)
    mujoco.mj_forward(model, data)
    for prefix, y in (("", 0.3), ("right/", -0.3)):
        robot = RobotIndex.from_model(model, prefix)
        np.testing.assert_allclose(data.site_xpos[robot.tcp_site], [0.35, y, 0.3], atol=1e-3)
        assert robot.gripper_actuator >= 0 and robot.hand_body >= 0


def test_scene_arms_field() -> None:
    far_right = [{"type": "block", "color": "red", "pose": [0.65, -0.55]}]
    assert SceneSpec(objects=far_right, arms=2).arms == 2
    with pytest.raises(InvalidSceneError, match="out of reach"):
        SceneSpec(objects=far_right)
    with pytest.raises(InvalidSceneError, match="arms"):
        SceneSpec(objects=far_right, arms=3)
    assert SceneSpec.load("two_arms").arms == 2


def _pick_and_place(env: TabletopEnv, obj: str, box: str):  # type: ignore[no-untyped-def]
    pick, place = get_skill("pick"), get_skill("place")

    def run() -> list[bool]:
        picked = pick.run(env, pick.Params(object=obj))
        if not picked.success:
            return [False]
        return [True, place.run(env, place.Params(target=box, relation="in")).success]

    return run


def _parallel_run() -> tuple[TabletopEnv, dict[str, list[bool]]]:
    env = TabletopEnv("two_arms")
    env.reset(seed=0)
    lanes = {
        "left": _pick_and_place(env, "red_block", "brown_box"),
        "right": _pick_and_place(env, "blue_block", "gray_box"),
    }
    return env, env.parallel(lanes)


@pytest.mark.slow
def test_parallel_lanes_do_both_tasks_in_less_simulated_time() -> None:
    env, results = _parallel_run()
    assert results == {"left": [True, True], "right": [True, True]}
    world = env.world_state()
    assert evaluate("in(red_block, brown_box)", world).holds
    assert evaluate("in(blue_block, gray_box)", world).holds
    parallel = env.data.time

    env.reset(seed=0)
    for arm, obj, box in (("left", "red_block", "brown_box"), ("right", "blue_block", "gray_box")):
        env.arms.bind(arm)
        try:
            assert _pick_and_place(env, obj, box)() == [True, True]
        finally:
            env.arms.release()
    assert parallel < 0.75 * env.data.time


@pytest.mark.slow
def test_parallel_lanes_are_deterministic() -> None:
    """One simulation, advanced only while every lane waits: the same run twice, bit for bit."""
    first, _ = _parallel_run()
    again, _ = _parallel_run()
    np.testing.assert_array_equal(first.data.qpos, again.data.qpos)


def test_lane_errors_reach_the_caller_after_every_lane_ends() -> None:
    env = TabletopEnv("two_arms")
    env.reset(seed=0)

    def broken() -> None:
        env.actuate(substeps=5)
        raise RuntimeError("lane failed")

    def waits() -> float:
        env.actuate(substeps=20)
        return float(env.data.time)

    with pytest.raises(RuntimeError, match="lane failed"):
        env.parallel({"left": broken, "right": waits})
    assert env.data.time == pytest.approx(20 * env.model.opt.timestep)
    with pytest.raises(ValueError, match="unknown arm 'middle'"):
        env.parallel({"middle": waits})


@pytest.mark.slow
def test_a_call_names_its_arm() -> None:
    env = TabletopEnv("two_arms")
    env.reset(seed=0)
    call = {"skill": "pick", "args": {"object": "blue_block", "arm": "right"}}
    right = execute_calls(env, [call])
    assert right.success, right.steps[-1].reason
    world = env.world_state()
    held = world.grippers["right"]
    assert "blue_block" in held.left_contacts and "blue_block" in held.right_contacts
    assert not world.grippers["left"].left_contacts
    left = env.robots["left"]
    np.testing.assert_allclose(env.data.qpos[left.arm_qpos], left.rest_qpos, atol=0.01)
    bad = execute_calls(env, [{"skill": "pick", "args": {"object": "red_block", "arm": "middle"}}])
    assert not bad.success and "unknown arm 'middle'; allowed: left, right" in bad.steps[0].reason
