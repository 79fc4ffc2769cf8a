"""Physics of the tabletop: scenes rest after reset, friction grasps through the ee interface,
and the claw reaches the whole workspace pointing down."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import mujoco
import numpy as np
import pytest

from claw.envs import WORKSPACE_X, WORKSPACE_Y, TabletopEnv
from claw.envs.tool import MAX_TARGET_LEAD, TARGET_HIGH, TARGET_LOW

MakeEnv = Callable[..., TabletopEnv]

MM = 1e-3
REST_STEPS = 250  # physics steps of 2 ms: 0.5 s
OPEN, CLOSED = -1.0, 1.0


def _wrap(angle: float) -> float:
    return float((angle + np.pi) % (2 * np.pi) - np.pi)


def _bodies(env: TabletopEnv) -> np.ndarray:
    return np.array([env.model.body(name).id for name in env.object_names])


def _rest_violations(
    env: TabletopEnv, seed: int, options: dict[str, Any] | None = None
) -> list[str]:
    """Reset with ``seed``, run 0.5 s of raw physics with the controls reset left, and list
    what moved more than 1 mm, sank into the table or interpenetrates."""
    env.reset(seed=seed, options=options)
    model, data = env.model, env.data
    bodies = _bodies(env)
    start = data.xpos[bodies].copy()
    tcp = data.site("tcp").xpos.copy()
    fingers = data.qpos[env.robot.finger_qpos].copy()
    mujoco.mj_step(model, data, nstep=REST_STEPS)
    assert data.time == pytest.approx(0.5)

    problems = []
    moved = np.linalg.norm(data.xpos[bodies] - start, axis=1)
    for name, distance in zip(env.object_names, moved, strict=True):
        if distance > MM:
            problems.append(f"seed {seed}: {name} moved {distance * 1e3:.2f} mm")
    if np.linalg.norm(data.site("tcp").xpos - tcp) > MM:
        problems.append(f"seed {seed}: the claw drifted")
    if np.abs(data.qpos[env.robot.finger_qpos] - fingers).max() > MM:
        problems.append(f"seed {seed}: the fingers moved")
    for obj in env.world_state().objects.values():
        if obj.bottom < -MM:
            problems.append(f"seed {seed}: {obj.name} is {-obj.bottom * 1e3:.2f} mm in the table")

    object_of_body = {int(b): name for b, name in zip(bodies, env.object_names, strict=True)}
    for contact in data.contact[: data.ncon]:
        b1, b2 = (int(model.geom_bodyid[g]) for g in (contact.geom1, contact.geom2))
        names = [object_of_body.get(b1), object_of_body.get(b2)]
        if contact.dist < -MM:
            problems.append(f"seed {seed}: {names} interpenetrate by {-contact.dist * 1e3:.2f} mm")
        if (names[0] is None) != (names[1] is None) and 0 not in (b1, b2):
            problems.append(f"seed {seed}: the robot touches {names[0] or names[1]} at rest")
    return problems


@pytest.fixture(scope="module")
def default_env() -> Any:
    env = TabletopEnv()
    yield env
    env.close()


@pytest.mark.slow
def test_default_scene_rests_for_100_seeds(default_env: TabletopEnv) -> None:
    """After reset nothing moves more than 1 mm over 0.5 s of simulated time (no
    interpenetration) for 100 seeds of the default scene."""
    problems = [p for seed in range(100) for p in _rest_violations(default_env, seed)]
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_dense_scene_rests(make_env: MakeEnv) -> None:
    env = make_env(scene="dense")
    problems = [p for seed in range(20) for p in _rest_violations(env, seed)]
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_randomized_scene_rests(make_env: MakeEnv) -> None:
    """Randomised masses, frictions and arm pose change nothing about resting."""
    env = make_env()
    problems = [p for seed in range(10) for p in _rest_violations(env, seed, {"randomize": True})]
    assert not problems, "\n".join(problems)


def test_block_starting_inside_a_box_rests(make_env: MakeEnv) -> None:
    scene = {
        "objects": [
            {"type": "box", "color": "blue", "pose": [0.5, 0.1, 20]},
            {"type": "block", "color": "red", "pose": [0.51, 0.09]},
            {"type": "block", "color": "green", "pose": [0.4, -0.1, 30]},
        ]
    }
    env = make_env(scene=scene)
    assert not _rest_violations(env, seed=0)
    assert env.check(["in(red_block, blue_box)"]).success


def test_objects_are_free_and_nothing_attaches_them(default_env: TabletopEnv) -> None:
    """Physics is the only truth: no mocap, no welds; the one equality couples the fingers."""
    model = default_env.model
    assert model.nmocap == 0
    assert model.neq == 1 and model.eq_type[0] == mujoco.mjtEq.mjEQ_JOINT
    fingers = {model.joint(n).id for n in ("left_finger", "right_finger")}
    assert {int(model.eq_obj1id[0]), int(model.eq_obj2id[0])} == fingers
    for name in default_env.object_names:
        joint = model.joint(name)
        assert joint.type[0] == mujoco.mjtJoint.mjJNT_FREE


# --- driving the claw through the ee action interface -------------------------------------------


class Claw:
    """Moves the tool point with ee actions.

    An ee action moves the env's IK target (by up to ``max_translation`` m and ``max_rotation``
    rad), not the tool point itself; the target starts at the tool point on reset and stays
    within ``MAX_TARGET_LEAD`` of it. Servoing on the measured tool point would wind the target
    past the goal, so this driver keeps its own copy of the target, walks it straight to the
    goal, then waits for the arm to arrive.
    """

    def __init__(self, env: TabletopEnv, obs: dict[str, Any]) -> None:
        self.env, self.obs = env, obs
        self.target = obs["robot"]["tcp_pos"].copy()
        self.yaw = float(obs["robot"]["tcp_yaw"][0])
        self.info: dict[str, Any] = {}

    @property
    def tcp(self) -> np.ndarray:
        return self.obs["robot"]["tcp_pos"]

    def step(self, action: np.ndarray) -> None:
        action = np.asarray(action, np.float32)
        target = self.target + action[:3].astype(np.float64) * self.env.max_translation
        target = np.clip(target, self.tcp - MAX_TARGET_LEAD, self.tcp + MAX_TARGET_LEAD)
        self.target = np.clip(target, TARGET_LOW, TARGET_HIGH)
        self.yaw = float(
            np.clip(self.yaw + float(action[3]) * self.env.max_rotation, -np.pi, np.pi)
        )
        self.obs, _, _, _, self.info = self.env.step(action)

    def hold(self, grip: float, steps: int) -> list[dict[str, Any]]:
        """Keep the target still for ``steps`` steps; the infos of those steps."""
        infos = []
        for _ in range(steps):
            self.step(np.array([0.0, 0.0, 0.0, 0.0, grip]))
            infos.append(self.info)
        return infos

    def move(
        self, goal: Any, yaw: float, grip: float, max_steps: int = 60, tolerance: float = 0.002
    ) -> None:
        goal = np.asarray(goal, dtype=np.float64)
        for _ in range(max_steps):
            action = np.zeros(5)
            action[:3] = np.clip((goal - self.target) / self.env.max_translation, -1.0, 1.0)
            action[3] = np.clip((yaw - self.yaw) / self.env.max_rotation, -1.0, 1.0)
            action[4] = grip
            self.step(action)
            target_there = np.abs(goal - self.target).max() < 1e-6 and abs(yaw - self.yaw) < 1e-6
            tcp_error = np.linalg.norm(goal - self.tcp)
            yaw_error = abs(_wrap(yaw - self.obs["robot"]["tcp_yaw"][0]))
            if target_there and tcp_error < tolerance and yaw_error < 0.01:
                return


def _tool_z_tilt(obs: dict[str, Any]) -> float:
    """Angle (rad) between the tool's z axis and straight down."""
    rot = np.empty(9)
    mujoco.mju_quat2Mat(rot, obs["robot"]["tcp_quat"])
    return float(np.arccos(np.clip(-rot[8], -1.0, 1.0)))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_friction_grasp_lift_carry_and_drop(make_env: MakeEnv, seed: int) -> None:
    env = make_env()
    obs, _ = env.reset(seed=seed)
    claw = Claw(env, obs)
    block = env.world_state().get("red_block")
    x, y, z = block.position
    yaw = block.yaw  # in [-45, 45) degrees: the fingers close across two faces

    # Above, down to the block, close. The tool point is the pads' centre; 5 mm above the
    # block's centre keeps the pads (4.2 cm tall) off the table.
    claw.move([x, y, 0.12], yaw, OPEN)
    claw.move([x, y, z + 0.005], yaw, OPEN)
    assert np.linalg.norm(claw.tcp - [x, y, z + 0.005]) < 0.003
    claw.hold(CLOSED, 10)
    width = claw.obs["robot"]["gripper_width"][0]
    assert width == pytest.approx(2 * block.half_extents[1], abs=0.003), "pads on the faces"

    # Lift to 0.2 m: held by friction alone.
    claw.move([x, y, 0.2], yaw, CLOSED)
    held = env.check(["holding(red_block)"]).results[0]
    assert held.holds, held.reason
    lifted = env.data.body("red_block").xpos.copy()
    assert lifted[2] > 0.17
    offset = lifted - claw.tcp
    assert np.linalg.norm(offset) < 0.01

    # No slip while it hangs there for a second.
    claw.hold(CLOSED, 20)
    hanging = env.data.body("red_block").xpos - claw.tcp
    assert np.linalg.norm(hanging - offset) < MM

    # Carry it 10 cm sideways: the block follows the claw.
    start = claw.tcp.copy()
    side = -0.1 if y > 0 else 0.1
    claw.move([x, y + side, 0.2], yaw, CLOSED)
    assert abs(claw.tcp[1] - start[1]) > 0.095
    carried = env.data.body("red_block").xpos - claw.tcp
    assert np.linalg.norm(carried - offset) < 0.005, "the block slipped in the claw"
    assert env.check(["holding(red_block)"]).results[0].holds

    # Open: it drops, moves for a while, then comes to rest lower down.
    settled = [info["settled"] for info in claw.hold(OPEN, 40)]
    assert not env.check(["holding(red_block)"]).results[0].holds
    assert settled[0] is False, "the falling block counts as moving"
    assert settled[-1] is True
    final = env.world_state().get("red_block")
    assert final.position[2] < 0.1 and final.bottom > -MM


@pytest.mark.slow
@pytest.mark.parametrize("yaw", [0.0, 0.7])
def test_claw_reaches_workspace_corners_pointing_down(make_env: MakeEnv, yaw: float) -> None:
    """The arm reaches every corner of the workspace at z = 0.03 and 0.25 m, within 5 mm, with
    the claw pointing down within 3 degrees."""
    env = make_env(scene={"objects": [{"type": "block", "color": "red", "pose": [0.475, 0.0]}]})
    misses = []
    for x, y in itertools.product(WORKSPACE_X, WORKSPACE_Y):
        obs, _ = env.reset(seed=0)
        claw = Claw(env, obs)
        for z in (0.25, 0.03):
            claw.move([x, y, z], yaw, OPEN, max_steps=80, tolerance=0.001)
            claw.hold(OPEN, 3)  # and it stays there
            error = np.linalg.norm(claw.tcp - [x, y, z])
            tilt = np.degrees(_tool_z_tilt(claw.obs))
            turn = abs(_wrap(claw.obs["robot"]["tcp_yaw"][0] - yaw))
            if error > 0.005 or tilt > 3.0 or turn > 0.05:
                misses.append(f"({x}, {y}, {z}): {error * 1e3:.1f} mm, tilt {tilt:.1f} deg")
    assert not misses, "\n".join(misses)
