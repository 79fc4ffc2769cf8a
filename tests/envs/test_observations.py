"""Observation modes of the training envs: image keys shaped for SB3, no object state in the
image-only modes, frame stacks, the wrist camera, the tool-centred crop and the sensor model."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from claw.envs import PICK_PLACE_ID, REACH_ID, TabletopEnv
from claw.envs.cameras import CameraRig, same_assets
from claw.envs.goal import GoalEnv, TaskEnv
from claw.envs.model import camera_names
from claw.envs.observations import OBS_MODES, PROPRIO_SIZE, View, depth_levels
from claw.envs.randomization import SensorNoise

IMAGE = (48, 48)
EXPECTED_KEYS = {
    "state": {"observation", "achieved_goal", "desired_goal"},
    "depth": {"depth", "proprio", "desired_goal"},
    "rgbd": {"rgb", "depth", "proprio", "desired_goal"},
    "state+depth": {"observation", "achieved_goal", "desired_goal", "depth", "proprio"},
    "state+rgbd": {"observation", "achieved_goal", "desired_goal", "rgb", "depth", "proprio"},
}
LATENCY_ONLY = SensorNoise(
    depth_noise=0.0,
    depth_step=0.0,
    edge_dropout=0.0,
    rgb_noise=0.0,
    lighting=0.0,
    extrinsics_position=0.0,
    extrinsics_rotation=0.0,
    latency_steps=2,
    action_noise=0.0,
)


def make(mode: str, **kwargs: object) -> TaskEnv:
    env = gym.make(PICK_PLACE_ID, obs_mode=mode, image_size=IMAGE, **kwargs).unwrapped
    assert isinstance(env, TaskEnv)
    return env


@pytest.mark.parametrize("mode", OBS_MODES)
def test_each_mode_passes_both_env_checkers_with_channel_first_uint8_images(mode: str) -> None:
    env = make(mode, frame_stack=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unbounded state boxes are Fetch's convention
        check_env(env, skip_render_check=True)
        sb3_check_env(env)
    space = env.observation_space
    assert isinstance(space, gym.spaces.Dict)
    assert set(space.spaces) == EXPECTED_KEYS[mode]
    views = 2  # wrist and front@tool
    if "depth" in space.spaces:
        assert space["depth"].shape == (2 * views, *IMAGE) and space["depth"].dtype == np.uint8
        assert space["proprio"].shape == (PROPRIO_SIZE,)
    if "rgb" in space.spaces:
        assert space["rgb"].shape == (3 * 2 * views, *IMAGE) and space["rgb"].dtype == np.uint8
    obs, _ = env.reset(seed=3)
    assert space.contains(obs)
    env.close()


def test_image_only_modes_hold_no_object_state_and_are_no_goal_env() -> None:
    env = make("depth")
    assert not hasattr(env, "compute_reward")  # SB3 and HER would relabel with object state
    obs, info = env.reset(seed=0)
    assert set(obs) == {"depth", "proprio", "desired_goal"}
    _, reward, *_ = env.step(np.zeros(5, np.float32))
    assert reward in (-1.0, 0.0) and "distance" in info
    with pytest.raises(ValueError, match="not a GoalEnv"):
        GoalEnv("pick_place", obs_mode="depth")
    assert isinstance(gym.make(REACH_ID).unwrapped, GoalEnv)
    env.close()


@pytest.mark.slow
def test_a_policy_of_sb3_trains_on_the_image_keys() -> None:
    from stable_baselines3 import PPO

    env = gym.make(PICK_PLACE_ID, obs_mode="depth", max_episode_steps=8)
    model = PPO("MultiInputPolicy", env, n_steps=8, batch_size=8, n_epochs=1, seed=0)
    model.learn(8)
    assert "depth" in model.policy.features_extractor.extractors  # a CNN on the depth key
    env.close()


def test_frame_stack_holds_the_last_frames_oldest_first() -> None:
    env = make("depth", frame_stack=3)
    obs, _ = env.reset(seed=1)
    views = 2
    assert all((obs["depth"][i] == obs["depth"][i % views]).all() for i in range(3 * views))
    action = np.array([0.0, 0.0, -1.0, 0.0, -1.0], np.float32)
    moved, *_ = env.step(action)
    assert (moved["depth"][: 2 * views] == obs["depth"][views:]).all()
    assert not (moved["depth"][2 * views :] == obs["depth"][2 * views :]).all()
    env.close()


def test_frames_arrive_as_many_steps_late_as_the_sensor_model_says() -> None:
    actions = [np.array([0.0, 0.5, -1.0, 0.0, -1.0], np.float32)] * 4
    prompt, late = make("depth"), make("depth", sensor_noise=LATENCY_ONLY)
    seen_now = [prompt.reset(seed=2)[0]["depth"]]
    seen_late = [late.reset(seed=2)[0]["depth"]]
    for action in actions:
        seen_now.append(prompt.step(action)[0]["depth"])
        seen_late.append(late.step(action)[0]["depth"])
    assert not (seen_now[4] == seen_now[2]).all()  # the claw moved
    assert (seen_late[4] == seen_now[2]).all() and (seen_late[1] == seen_now[0]).all()
    prompt.close(), late.close()


def test_the_sensor_model_puts_holes_and_noise_in_depth() -> None:
    clean, noisy = make("depth"), make("depth", sensor_noise=True)
    exact, rough = clean.reset(seed=4)[0]["depth"], noisy.reset(seed=4)[0]["depth"]
    assert (rough == 0).sum() > (exact == 0).sum()  # holes at edges
    assert (rough != exact).mean() > 0.05
    clean.close(), noisy.close()


def test_the_wrist_camera_rides_on_the_claw_and_the_crop_follows_the_tool_point() -> None:
    env = make("depth")
    first = env.reset(seed=5)[0]["depth"]
    for _ in range(6):
        obs = env.step(np.array([1.0, 1.0, 0.0, 0.0, -1.0], np.float32))[0]
    wrist, crop = obs["depth"]
    assert not (wrist == first[0]).all()
    # The claw is nearer the camera than anything else in the crop: it stays in the middle.
    for image in (first[1], crop):
        rows, cols = np.nonzero((image > 0) & (image < 128))
        assert rows.size > 20
        assert abs(cols.mean() - IMAGE[1] / 2) < IMAGE[1] / 5
    env.close()


def test_every_arm_carries_a_wrist_camera() -> None:
    assert "wrist" in camera_names(TabletopEnv("default").model)
    assert {"wrist", "right/wrist"} <= set(camera_names(TabletopEnv("two_arms").model))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"obs_mode": "pixels"}, "unknown obs_mode 'pixels'; allowed: state, depth"),
        ({"obs_mode": "depth", "views": ("front@hand",)}, "bad view 'front@hand'"),
        ({"obs_mode": "depth", "views": ()}, "at least one view"),
        ({"obs_mode": "depth", "frame_stack": 0}, "frame_stack must be at least 1"),
        ({"obs_mode": "depth", "image_size": (8, 8)}, "at least 16 x 16"),
        ({"obs_mode": "depth", "sensor_noise": {"latency": 2}}, "latency"),
    ],
)
def test_bad_arguments_name_what_is_allowed(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        gym.make(PICK_PLACE_ID, **kwargs)


def test_an_unknown_camera_is_named_with_the_scenes_cameras() -> None:
    with pytest.raises(ValueError, match=r"unknown camera\(s\) \['ceiling'\]; allowed: .*wrist"):
        make("depth", views=("ceiling",))


def test_depth_levels_keep_zero_for_no_reading_and_clip_the_range() -> None:
    depth = np.array([0.0, 0.1, 0.5, 1.0, 9.0], np.float32)
    assert list(depth_levels(depth, 0.5, 1.0)) == [0, 1, 1, 255, 255]
    assert View.parse("front@tool").tool_centred and View.parse("wrist").name == "wrist"


def test_a_rig_moved_to_a_rebuilt_model_renders_what_a_new_rig_would() -> None:
    small = TabletopEnv({"objects": [{"type": "block", "color": "red", "size": 0.03}]})
    large = TabletopEnv({"objects": [{"type": "block", "color": "red", "size": 0.05}]})
    small.reset(seed=0), large.reset(seed=0)
    assert same_assets(small.model, large.model)
    moved, fresh = (
        CameraRig(small.model, ("front",), IMAGE),
        CameraRig(large.model, ("front",), IMAGE),
    )
    moved.retarget(large.model)
    for rig in (moved, fresh):
        rig.reset(0, None)
    images = [rig.capture("front", rig.state(large.data.qpos)) for rig in (moved, fresh)]
    assert (images[0][0] == images[1][0]).all() and (images[0][1] == images[1][1]).all()
    moved.close(), fresh.close()
