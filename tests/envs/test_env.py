"""``claw/Tabletop-v0``: Gymnasium conformance, spaces and observations, reset options, goals,
determinism, domain randomisation, joint control, rendering and the env bench."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import mujoco
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from gymnasium.utils.passive_env_checker import env_render_passive_checker
from pydantic import ValidationError

from claw.envs import TABLETOP_ID, DomainRandomization, SceneSpec, TabletopEnv
from claw.envs.bench import bench_env
from claw.envs.exceptions import PredicateError, UnknownObjectError
from claw.envs.model import ObjectModel, build_model
from claw.envs.objects import BLOCK_DENSITY, BLOCK_SIZE, BOX_MASS
from claw.envs.robot import MAX_HALF_OPENING, PAD_CLEARANCE
from claw.envs.scene import MAX_SCENE_OBJECTS

MakeEnv = Callable[..., TabletopEnv]

# The objects' friction as the MJCF's "object" class sets it (sliding, torsional, rolling).
OBJECT_FRICTION = (0.8, 0.01, 0.001)
DEFAULT_NAMES = ["red_block", "green_block", "blue_block", "yellow_block", "blue_box", "red_box"]
# check_env advises against unbounded Box spaces. Positions and velocities have no natural bound
# (Gymnasium's own MuJoCo envs declare -inf..inf too), so this one piece of advice is let through.
INFINITE_BOUND_WARNING = r".*A Box observation space (minimum|maximum) value is -?infinity"
# A block of the default size next to a box, both fixed: next_to and right_of hold; left_of, in
# do not; the block is 2.5 cm from the "center" anchor, so at(red_block, center) holds.
PAIR_SCENE = {
    "objects": [
        {"type": "block", "color": "red", "pose": [0.45, 0.0]},
        {"type": "box", "color": "blue", "pose": [0.45, 0.12]},
    ]
}
HOLD_STILL = np.array([0.0, 0.0, 0.0, 0.0, -1.0], np.float32)


def _assert_obs_equal(a: dict[str, Any], b: dict[str, Any], where: str = "") -> None:
    assert a.keys() == b.keys(), where
    for key in a:
        if isinstance(a[key], dict):
            _assert_obs_equal(a[key], b[key], f"{where}/{key}")
        else:
            assert a[key].dtype == b[key].dtype, f"{where}/{key}"
            assert np.array_equal(a[key], b[key]), f"{where}/{key} differs"


def _object_geoms(env: TabletopEnv, name: str) -> np.ndarray:
    return np.flatnonzero(env.model.geom_bodyid == env.model.body(name).id)


# --- registration and Gymnasium's checker --------------------------------------------------------


def test_registered_with_time_limit() -> None:
    env = gym.make(TABLETOP_ID)
    try:
        assert env.spec is not None and env.spec.max_episode_steps == 500
        assert isinstance(env.unwrapped, TabletopEnv)
    finally:
        env.close()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("control", "obs_mode"),
    [
        ("ee", "state"),
        ("joint", "state"),
        ("ee", "state+rgb"),
        ("joint", "state+rgb"),
        ("ee", "rgb"),
    ],
)
def test_check_env_passes(control: str, obs_mode: str) -> None:
    """`gymnasium.utils.env_checker.check_env` passes on `claw/Tabletop-v0`.

    Every warning the checker raises fails the test, except the advice on infinite Box bounds.
    check_env's own render check would make the env again for each declared render mode, "human"
    included, which opens a GLFW window and needs a display; the rgb_array mode is checked here
    with the same passive checker instead.
    """
    env = gym.make(
        TABLETOP_ID,
        control=control,
        obs_mode=obs_mode,
        image_size=(24, 32),
        render_mode="rgb_array",
        render_size=(24, 32),
    )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            warnings.filterwarnings("ignore", message=INFINITE_BOUND_WARNING)
            check_env(env.unwrapped, skip_render_check=True)
            env_render_passive_checker(env.unwrapped)
    finally:
        env.close()


@pytest.mark.parametrize(
    "kwargs", [{"control": "cartesian"}, {"obs_mode": "depth"}, {"render_mode": "window"}]
)
def test_bad_constructor_arguments(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        TabletopEnv(**kwargs)


# --- spaces and observations ---------------------------------------------------------------------


@pytest.mark.parametrize(("control", "size"), [("ee", 5), ("joint", 7)])
def test_action_space(make_env: MakeEnv, control: str, size: int) -> None:
    space = make_env(control=control).action_space
    assert isinstance(space, spaces.Box)
    assert space.shape == (size,) and space.dtype == np.float32
    assert np.all(space.low == -1.0) and np.all(space.high == 1.0)


def test_state_observation_layout(make_env: MakeEnv) -> None:
    env = make_env(max_objects=12)  # more rows than a scene may have objects: padding
    obs, info = env.reset(seed=0)
    space = env.observation_space
    assert isinstance(space, spaces.Dict) and set(space) == {"robot", "objects"}
    assert space.contains(obs)
    robot, objects = obs["robot"], obs["objects"]
    shapes = {k: v.shape for k, v in robot.items()}
    assert shapes == {
        "joint_pos": (6,),
        "joint_vel": (6,),
        "tcp_pos": (3,),
        "tcp_yaw": (1,),
        "tcp_quat": (4,),
        "gripper_width": (1,),
    }
    assert objects["pose"].shape == (12, 7) and objects["velocity"].shape == (12, 6)
    assert objects["mask"].tolist() == [1] * 6 + [0] * 6

    # Objects in scene order, the same order as info["object_names"]; padding rows are zero.
    assert info["object_names"] == DEFAULT_NAMES == SceneSpec.load("default").object_names()
    for i, name in enumerate(info["object_names"]):
        body = env.data.body(name)
        np.testing.assert_allclose(objects["pose"][i, :3], body.xpos, atol=1e-12)
        np.testing.assert_allclose(objects["pose"][i, 3:], body.xquat, atol=1e-12)
    assert not objects["pose"][6:].any() and not objects["velocity"].any()

    # The robot at rest: claw pointing down, 30 cm above the table, fingers at the keyframe.
    np.testing.assert_allclose(robot["tcp_pos"], env.data.site("tcp").xpos)
    assert robot["tcp_pos"][2] == pytest.approx(0.30, abs=0.005)
    assert robot["tcp_yaw"][0] == pytest.approx(0.0, abs=1e-6)
    rot = np.empty(9)
    mujoco.mju_quat2Mat(rot, robot["tcp_quat"])
    np.testing.assert_allclose(rot.reshape(3, 3)[:, 2], [0.0, 0.0, -1.0], atol=1e-3)
    assert robot["gripper_width"][0] == pytest.approx(2 * 0.04 + PAD_CLEARANCE)
    assert not robot["joint_vel"].any()


def test_observations_are_fresh_arrays(make_env: MakeEnv) -> None:
    """Observations are copies, not views of MuJoCo's buffers that later steps overwrite."""
    env = make_env()
    obs, _ = env.reset(seed=0)
    before = {k: v.copy() for k, v in obs["robot"].items()}
    pose = obs["objects"]["pose"].copy()
    for _ in range(3):
        env.step(np.array([1.0, 1.0, -1.0, 1.0, 1.0], np.float32))
    _assert_obs_equal(obs["robot"], before)
    assert np.array_equal(obs["objects"]["pose"], pose)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("obs_mode", "keys"), [("rgb", {"rgb"}), ("state+rgb", {"robot", "objects", "rgb"})]
)
def test_image_observations(make_env: MakeEnv, obs_mode: str, keys: set[str]) -> None:
    env = make_env(obs_mode=obs_mode, image_size=(48, 64))
    obs, _ = env.reset(seed=0)
    assert set(obs) == keys and env.observation_space.contains(obs)
    image = obs["rgb"]
    assert image.shape == (48, 64, 3) and image.dtype == np.uint8
    assert image.std() > 10.0 and len(np.unique(image.reshape(-1, 3), axis=0)) > 50
    moved, *_ = env.step(np.array([1.0, 1.0, -1.0, 1.0, 1.0], np.float32))
    assert not np.array_equal(moved["rgb"], image), "the arm moved but the image did not change"


def test_info_right_after_reset(make_env: MakeEnv) -> None:
    env = make_env()
    _, info = env.reset(seed=3)
    assert info["settled"] is True
    assert info["sim_time"] == 0.0
    assert "goal" not in info and "success" not in info and "randomization" not in info
    _, reward, terminated, truncated, info = env.step(HOLD_STILL)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["sim_time"] == pytest.approx(1 / env.control_freq)


# --- reset options -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "scene",
    [
        "dense",
        {"objects": [{"type": "block", "color": "cyan"}, {"type": "box", "color": "gray"}]},
        SceneSpec.load("blocks"),
    ],
    ids=["builtin", "mapping", "spec"],
)
def test_scene_option_switches_scene(make_env: MakeEnv, scene: Any) -> None:
    env = make_env()
    _, info = env.reset(seed=0)
    assert info["object_names"] == DEFAULT_NAMES
    obs, info = env.reset(seed=0, options={"scene": scene})
    expected = SceneSpec.load(scene).object_names()
    assert info["object_names"] == expected != DEFAULT_NAMES
    assert obs["objects"]["mask"].sum() == len(expected)
    for i, name in enumerate(expected):
        np.testing.assert_allclose(obs["objects"]["pose"][i, :3], env.data.body(name).xpos)
    assert env.observation_space.contains(obs)


def test_unknown_reset_option_names_allowed_ones(make_env: MakeEnv) -> None:
    env = make_env()
    with pytest.raises(ValueError, match="colour") as err:
        env.reset(seed=0, options={"colour": "red"})
    for allowed in ("scene", "goal", "randomize"):
        assert allowed in str(err.value)


def test_padding_below_the_scene_limit_is_refused(make_env: MakeEnv) -> None:
    with pytest.raises(ValueError, match=f"allowed: {MAX_SCENE_OBJECTS} or more, got 7"):
        TabletopEnv(scene="dense", max_objects=7)
    mask = make_env(scene="dense").reset(seed=0)[0]["objects"]["mask"]
    assert mask.tolist() == [1] * 8 + [0] * (MAX_SCENE_OBJECTS - 8)


@pytest.mark.parametrize(
    ("control", "shape"),
    [("ee", (4,)), ("ee", (7,)), ("ee", (5, 1)), ("ee", ()), ("joint", (5,)), ("joint", (1, 7))],
)
def test_bad_action_shape(make_env: MakeEnv, control: str, shape: tuple[int, ...]) -> None:
    env = make_env(control=control)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(shape, np.float32))


def test_actions_are_clipped_to_the_box(make_env: MakeEnv) -> None:
    a, b = make_env(), make_env()
    a.reset(seed=1)
    b.reset(seed=1)
    action = np.array([0.7, -1.0, 1.0, -0.4, 1.0], np.float32)
    for _ in range(5):
        obs_a, *_ = a.step(action)
        obs_b, *_ = b.step(action * np.array([1, 5, 3, 1, 9], np.float32))
    _assert_obs_equal(obs_a, obs_b)


# --- goals and reward --------------------------------------------------------------------------


def test_goal_reward_is_fraction_of_predicates_that_hold(make_env: MakeEnv) -> None:
    env = make_env(scene=PAIR_SCENE)
    goal = [
        "next_to(red_block, blue_box)",
        "at(red_block, center)",
        "left_of(red_block, blue_box)",
        "in(red_block, blue_box)",
    ]
    _, info = env.reset(seed=0, options={"goal": goal})
    assert [r.holds for r in info["goal"].results] == [True, True, False, False]
    assert info["success"] is False
    _, reward, terminated, _, info = env.step(HOLD_STILL)
    assert reward == pytest.approx(0.5)
    assert terminated is False and info["success"] is False

    _, info = env.reset(seed=0, options={"goal": [*goal[:2], "right_of(red_block, blue_box)"]})
    _, reward, terminated, _, info = env.step(HOLD_STILL)
    assert reward == 1.0 and terminated is True and info["success"] is True

    # The goal is kept by later resets until replaced or cleared.
    env.reset(seed=0)
    assert env.step(HOLD_STILL)[1] == 1.0
    _, info = env.reset(seed=0, options={"goal": None})
    _, reward, terminated, _, info = env.step(HOLD_STILL)
    assert (reward, terminated) == (0.0, False) and "success" not in info


def test_goal_given_to_the_constructor(make_env: MakeEnv) -> None:
    env = make_env(scene=PAIR_SCENE, goal=["in(red_block, blue_box)", "at(red_block, middle)"])
    env.reset(seed=0)
    assert env.step(HOLD_STILL)[1] == pytest.approx(0.5)


def test_goal_with_unknown_object(make_env: MakeEnv) -> None:
    env = make_env()
    with pytest.raises(UnknownObjectError, match="purple_block") as err:
        env.reset(seed=0, options={"goal": ["next_to(purple_block, blue_box)"]})
    assert "red_block" in str(err.value)  # the message lists the scene's objects
    with pytest.raises(PredicateError):
        env.reset(seed=0, options={"goal": ["levitating(red_block)"]})
    # Neither rejected goal is kept: a plain reset works and has no goal.
    _, info = env.reset(seed=0)
    assert "goal" not in info
    # A goal checked against the scene that comes with it, in one reset.
    _, info = env.reset(
        seed=0, options={"scene": "dense", "goal": ["next_to(orange_block, gray_box)"]}
    )
    assert "goal" in info


def test_check_evaluates_predicates_on_the_physics(make_env: MakeEnv) -> None:
    env = make_env(scene=PAIR_SCENE)
    env.reset(seed=0)
    result = env.check(["next_to(red_block, blue_box)", "holding(red_block)"])
    assert [r.holds for r in result.results] == [True, False]
    with pytest.raises(UnknownObjectError):
        env.check(["holding(green_block)"])


# --- determinism -------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("control", "options"),
    [("ee", None), ("joint", None), ("ee", {"randomize": True})],
    ids=["ee", "joint", "ee-randomized"],
)
def test_same_seed_and_actions_give_identical_observations(
    make_env: MakeEnv, control: str, options: dict[str, Any] | None
) -> None:
    """same seed and actions ⇒ identical observations, bit for bit, at every step."""
    a, b = make_env(control=control), make_env(control=control)
    actions = np.random.default_rng(7).uniform(-1, 1, size=(50, a.action_space.shape[0]))
    actions = actions.astype(np.float32)

    def rollout(env: TabletopEnv) -> list[tuple[Any, ...]]:
        obs, info = env.reset(seed=11, options=options)
        out: list[tuple[Any, ...]] = [(obs, info.get("randomization"))]
        for action in actions:
            obs, reward, terminated, truncated, info = env.step(action)
            out.append((obs, reward, terminated, truncated, info["settled"]))
        return out

    first, second = rollout(a), rollout(b)
    again = rollout(a)  # the same env, reset with the same seed after it has run
    for step, (x, y, z) in enumerate(zip(first, second, again, strict=True)):
        _assert_obs_equal(x[0], y[0], f"step {step}")
        _assert_obs_equal(x[0], z[0], f"step {step} (second run)")
        assert x[1:] == y[1:] == z[1:], f"step {step}"
    # The actions did something.
    assert not np.array_equal(first[0][0]["robot"]["joint_pos"], first[-1][0]["robot"]["joint_pos"])


def test_different_seed_gives_different_layout(make_env: MakeEnv) -> None:
    env = make_env()
    layouts = [env.reset(seed=seed)[0]["objects"]["pose"][:6, :2] for seed in range(4)]
    for i in range(4):
        for j in range(i):
            assert np.abs(layouts[i] - layouts[j]).max() > 0.02, (i, j)
    assert np.array_equal(layouts[2], env.reset(seed=2)[0]["objects"]["pose"][:6, :2])


# --- domain randomisation ----------------------------------------------------------------------


def _assert_nominal_object_values(env: TabletopEnv) -> None:
    for name in env.object_names:
        geoms, body = _object_geoms(env, name), env.model.body(name).id
        np.testing.assert_array_equal(
            env.model.geom_friction[geoms], [OBJECT_FRICTION] * len(geoms)
        )
        expected = BLOCK_DENSITY * BLOCK_SIZE**3 if name.endswith("block") else BOX_MASS
        assert env.model.body_mass[body] == pytest.approx(expected)


def test_randomization_off_by_default(make_env: MakeEnv) -> None:
    env = make_env()
    obs, info = env.reset(seed=0)
    assert "randomization" not in info
    _assert_nominal_object_values(env)
    # No observation noise: observed positions are the simulator's.
    np.testing.assert_array_equal(obs["robot"]["tcp_pos"], env.data.site("tcp").xpos)
    np.testing.assert_array_equal(obs["robot"]["joint_pos"], env.robot.rest_qpos)


def test_randomization_draws_are_reported_applied_and_seeded(make_env: MakeEnv) -> None:
    env = make_env()
    nominal_obs, _ = env.reset(seed=5)
    obs, info = env.reset(seed=5, options={"randomize": True})
    drawn = info["randomization"]
    config = DomainRandomization()
    assert set(drawn) == {"objects", "arm_jitter", "observation_noise"}
    assert list(drawn["objects"]) == DEFAULT_NAMES
    for name, values in drawn["objects"].items():
        geoms, body = _object_geoms(env, name), env.model.body(name).id
        assert set(values) == {"friction", "mass", "rgb"}
        # The model really carries the drawn values, within the configured ranges.
        assert np.all(env.model.geom_friction[geoms, 0] == values["friction"])
        assert env.model.body_mass[body] == values["mass"]
        np.testing.assert_allclose(env.model.geom_rgba[geoms[0], :3], values["rgb"], atol=1e-4)
        low, high = config.friction_scale
        assert low * OBJECT_FRICTION[0] <= values["friction"] <= high * OBJECT_FRICTION[0]
        nominal_mass = BLOCK_DENSITY * BLOCK_SIZE**3 if name.endswith("block") else BOX_MASS
        low, high = config.mass_scale
        assert low * nominal_mass <= values["mass"] <= high * nominal_mass
    frictions = [v["friction"] for v in drawn["objects"].values()]
    assert len(set(frictions)) == len(frictions), "each object gets its own draw"

    # The layout is the seed's; the arm starts at rest plus the reported jitter.
    jitter = np.array(drawn["arm_jitter"])
    assert jitter.shape == (6,) and np.abs(jitter).max() <= config.arm_jitter and jitter.any()
    q = env.data.qpos[env.robot.arm_qpos]
    np.testing.assert_allclose(q, env.robot.rest_qpos + jitter, atol=1e-5)
    for i, name in enumerate(DEFAULT_NAMES):
        np.testing.assert_array_equal(
            env.data.body(name).xpos, nominal_obs["objects"]["pose"][i, :3]
        )
    noise = obs["objects"]["pose"][:6, :3] - nominal_obs["objects"]["pose"][:6, :3]
    assert drawn["observation_noise"] == config.observation_noise
    assert 0.0 < np.abs(noise).max() < 10 * config.observation_noise
    tcp_noise = obs["robot"]["tcp_pos"] - env.data.site("tcp").xpos
    assert 0.0 < np.abs(tcp_noise).max() < 10 * config.observation_noise
    assert not obs["objects"]["pose"][6:].any(), "padding rows stay zero"

    # Deterministic for a seed, different for another.
    _, again = env.reset(seed=5, options={"randomize": True})
    assert again["randomization"] == drawn
    _, other = env.reset(seed=6, options={"randomize": True})
    assert other["randomization"]["objects"] != drawn["objects"]


@pytest.mark.slow
def test_randomization_off_again_restores_nominal_model(make_env: MakeEnv) -> None:
    env, fresh = make_env(), make_env()
    env.reset(seed=2, options={"randomize": {"mass_scale": [0.5, 2.0]}})
    obs, info = env.reset(seed=2, options={"randomize": False})
    fresh_obs, _ = fresh.reset(seed=2)
    assert "randomization" not in info
    _assert_nominal_object_values(env)
    # Every parameter of the model is back, derived ones (inverse weights, subtree masses) too.
    for field in dir(env.model):
        value = getattr(env.model, field)
        if isinstance(value, np.ndarray) and value.dtype.kind == "f":
            assert np.array_equal(value, getattr(fresh.model, field)), field
    # ... so the env behaves exactly as one that was never randomised.
    _assert_obs_equal(obs, fresh_obs)
    for action in np.random.default_rng(0).uniform(-1, 1, size=(20, 5)).astype(np.float32):
        _assert_obs_equal(env.step(action)[0], fresh.step(action)[0])


def test_randomization_stays_inside_its_env(make_env: MakeEnv) -> None:
    """Models with the same objects come from one compiled model: copies, never shared."""
    a, b = make_env(), make_env()
    a.reset(seed=0, options={"randomize": True})
    b.reset(seed=0)
    _assert_nominal_object_values(b)
    placed = SceneSpec.load("default").sample(0)
    reference = build_model(ObjectModel(p.name, p.type, p.color, p.size) for p in placed)
    np.testing.assert_array_equal(reference.body_mass, b.model.body_mass)
    np.testing.assert_array_equal(reference.geom_friction, b.model.geom_friction)


@pytest.mark.parametrize(
    "option",
    [
        {"mass_scale": [2.0, 1.0]},
        {"friction_scale": [0.0, 1.0]},
        {"observation_noise": -0.1},
        {"arm_jitter": 5.0},
        {"gravity": 1.0},
    ],
)
def test_invalid_randomization_is_rejected(make_env: MakeEnv, option: dict[str, Any]) -> None:
    env = make_env()
    with pytest.raises(ValidationError):
        env.reset(seed=0, options={"randomize": option})
    assert issubclass(ValidationError, ValueError)
    assert "randomization" not in env.reset(seed=0)[1], "a rejected option is not kept"


def test_randomization_mapping_is_used(make_env: MakeEnv) -> None:
    env = make_env()
    option = {"mass_scale": [2.0, 2.0], "arm_jitter": 0.0, "observation_noise": 0.0}
    obs, info = env.reset(seed=0, options={"randomize": option})
    assert info["randomization"]["arm_jitter"] == [0.0] * 6
    assert info["randomization"]["observation_noise"] == 0.0
    for name, values in info["randomization"]["objects"].items():
        nominal_mass = BLOCK_DENSITY * BLOCK_SIZE**3 if name.endswith("block") else BOX_MASS
        assert values["mass"] == pytest.approx(2 * nominal_mass)
    np.testing.assert_array_equal(obs["robot"]["tcp_pos"], env.data.site("tcp").xpos)


# --- joint and gripper control -------------------------------------------------------------------


def test_joint_actions_map_to_joint_ranges(make_env: MakeEnv) -> None:
    env = make_env(control="joint")
    env.reset(seed=0)
    low, high = env.robot.joint_low, env.robot.joint_high
    arm = env.robot.arm_actuators
    for value, expected in ((-1.0, low), (1.0, high), (0.0, (low + high) / 2)):
        env.reset(seed=0)
        env.step(np.full(7, value, np.float32))
        np.testing.assert_allclose(env.data.ctrl[arm], expected, atol=1e-12)


@pytest.mark.slow
def test_joints_reach_commanded_targets(make_env: MakeEnv) -> None:
    env = make_env(control="joint")
    obs, _ = env.reset(seed=0)
    low, high = env.robot.joint_low, env.robot.joint_high
    target = env.robot.rest_qpos + np.array([0.3, -0.2, 0.2, 0.3, -0.2, 0.4])
    action = np.append(2 * (target - low) / (high - low) - 1, 1.0).astype(np.float32)
    errors = []
    for _ in range(30):  # 1.5 s
        obs, *_ = env.step(action)
        errors.append(np.abs(obs["robot"]["joint_pos"] - target).max())
    assert errors[0] > 0.05, "the joints started away from the target"
    assert errors[-1] < 2e-3, errors
    assert np.abs(obs["robot"]["joint_vel"]).max() < 0.01
    assert obs["robot"]["gripper_width"][0] == pytest.approx(PAD_CLEARANCE, abs=5e-4)


@pytest.mark.slow
@pytest.mark.parametrize("control", ["ee", "joint"])
def test_gripper_command(make_env: MakeEnv, control: str) -> None:
    env = make_env(control=control)
    env.reset(seed=0)
    n = env.action_space.shape[0]
    hold = np.zeros(n, np.float32)
    if control == "joint":
        hold[:6] = (
            2
            * (env.robot.rest_qpos - env.robot.joint_low)
            / (env.robot.joint_high - env.robot.joint_low)
            - 1
        )
    for command, half_opening in (
        (-1.0, MAX_HALF_OPENING),
        (0.0, MAX_HALF_OPENING / 2),
        (1.0, 0.0),
    ):
        hold[-1] = command
        for _ in range(10):
            obs, *_ = env.step(hold)
        assert env.data.ctrl[env.robot.gripper_actuator] == pytest.approx(half_opening)
        width = obs["robot"]["gripper_width"][0]
        assert width == pytest.approx(2 * half_opening + PAD_CLEARANCE, abs=1e-3)


# --- rendering -----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("camera", ["operator", "front", "top", "side"])
def test_render_returns_non_blank_image_headless(make_env: MakeEnv, camera: str) -> None:
    """`env.render()` returns a non-blank image headless."""
    env = make_env(render_mode="rgb_array", render_size=(60, 80), camera=camera)
    env.reset(seed=0)
    image = env.render()
    assert isinstance(image, np.ndarray)
    assert image.shape == (60, 80, 3) and image.dtype == np.uint8
    assert image.std() > 10.0
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 50


@pytest.mark.slow
def test_cameras_see_different_views(make_env: MakeEnv) -> None:
    images = {}
    for camera in ("operator", "top"):
        env = make_env(render_mode="rgb_array", render_size=(30, 40), camera=camera)
        env.reset(seed=0)
        images[camera] = env.render()
    assert np.abs(images["operator"].astype(int) - images["top"]).mean() > 10


def test_unknown_camera_is_rejected() -> None:
    with pytest.raises(ValueError, match="operator"):
        TabletopEnv(render_mode="rgb_array", camera="ceiling")


def test_render_without_render_mode_returns_none(make_env: MakeEnv) -> None:
    env = make_env()
    env.reset(seed=0)
    assert env.render() is None


# --- bench ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_bench_env_smoke() -> None:
    result = bench_env(steps=50, repeats=1)
    assert result.env_steps == 50 and result.substeps_per_env_step == 25
    assert result.raw_steps_per_second > 0 and result.env_physics_steps_per_second > 0
    assert result.raw_real_time_factor > 0 and result.env_real_time_factor > 0
    assert 0.0 < result.ratio < 1.5
    assert result.ratio == pytest.approx(
        result.env_physics_steps_per_second / result.raw_steps_per_second
    )


def test_human_render_mode_needs_a_display(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(ValueError, match="needs a display"):
        TabletopEnv(render_mode="human")


def test_info_reports_the_ee_target(make_env: MakeEnv) -> None:
    env = make_env()
    _, info = env.reset(seed=0)
    start = info["tcp_target"].copy()
    _, _, _, _, info = env.step(np.array([1.0, 0.0, -0.5, 1.0, 0.0]))
    assert info["tcp_target"] == pytest.approx(start + np.array([0.02, 0.0, -0.01]))
    assert info["yaw_target"] == pytest.approx(0.15)
    joint_env = make_env(control="joint")
    _, info = joint_env.reset(seed=0)
    assert "tcp_target" not in info


@pytest.mark.slow
def test_actuate_drives_the_arm_and_ee_control_steers_on_from_there(make_env: MakeEnv) -> None:
    env = make_env()
    env.reset(seed=0)
    target = env.data.qpos[env.robot.arm_qpos].copy()
    target[0] += 0.3  # turn the shoulder
    for _ in range(150):
        env.actuate(target, gripper=0.0, substeps=5)
    reached = env.data.qpos[env.robot.arm_qpos].copy()
    np.testing.assert_allclose(reached, target, atol=2e-3)
    assert env.data.qpos[env.robot.finger_qpos].sum() < 0.002  # closed
    tcp = env.data.site_xpos[env.robot.tcp_site].copy()
    _, _, _, _, info = env.step(np.zeros(5, np.float32))
    assert info["tcp_target"] == pytest.approx(tcp, abs=2e-3)  # no jump back to the old target
    for _ in range(10):
        env.step(np.zeros(5, np.float32))
    assert env.data.site_xpos[env.robot.tcp_site] == pytest.approx(tcp, abs=3e-3)


def test_world_state_objects_carry_colour_type_and_size(
    make_env: Callable[..., TabletopEnv],
) -> None:
    """The planner reads what an object is from its fields, never from its name."""
    spec = {"objects": [{"type": "block", "color": "red", "size": 0.05},
                        {"type": "box", "color": "gray", "size": 0.16}]}  # fmt: skip
    env = make_env(scene=spec)
    env.reset(seed=0)
    world = env.world_state()
    block, box = world.get("red_block"), world.get("gray_box")
    assert (block.type, block.color, block.size) == ("block", "red", pytest.approx(0.05))
    assert (box.type, box.color, box.size) == ("box", "gray", pytest.approx(0.16))
