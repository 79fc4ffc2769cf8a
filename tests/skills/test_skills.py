"""The built-in skills on MuJoCo physics: registry, pick, place, push, move_to, the gripper, home.

Every outcome is read back from the simulation (positions, predicates), never from the skill's
own word alone; refusals are checked for reasons a planner can act on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import mujoco
import numpy as np
import pytest

from claw.envs import TabletopEnv, evaluate
from claw.envs.relations import relation_names
from claw.envs.robot import PAD_CLEARANCE
from claw.skills import (
    Skill,
    SkillParams,
    SkillResult,
    get_skill,
    register_skill,
    skill_implementations,
    skill_names,
)
from claw.skills import registry as skills_registry
from claw.skills.basic import OPEN_WIDTH
from claw.skills.exceptions import NoPlacement, UnknownSkillError
from claw.skills.learned import LearnedMoveTo
from claw.skills.placement import find_placement
from claw.skills.push import push_outcome
from tests.witness import PhysicsWitness

MakeEnv = Callable[..., TabletopEnv]

BUILTIN = ("pick", "place", "push", "move_to", "open_gripper", "close_gripper", "home")
LIFTED = 0.03  # m: holding() asks for the bottom this far above the table
ON_TABLE = 0.01  # m: a pushed object's bottom stays below this
PUSH_TOLERANCE = 0.02  # m


def run(env: TabletopEnv, skill: str, **args: Any) -> SkillResult:
    return get_skill(skill)(env, **args)


def holds(env: TabletopEnv, predicate: str) -> bool:
    return env.check([predicate]).results[0].holds


def xy(env: TabletopEnv, name: str) -> np.ndarray:
    return env.world_state().get(name).xy.copy()


def bottom(env: TabletopEnv, name: str) -> float:
    return env.world_state().get(name).bottom


def blocks(env: TabletopEnv) -> list[str]:
    return [n for n in env.object_names if n.endswith("_block")]


def tcp(env: TabletopEnv) -> np.ndarray:
    return env.data.site_xpos[env.robot.tcp_site].copy()


def stack(env: TabletopEnv, top: str, below: str) -> None:
    """Put ``top`` on ``below`` with the skills (scene specs cannot start stacked)."""
    assert run(env, "pick", object=top).success
    placed = run(env, "place", target=below, relation="on")
    assert placed.success, placed.reason
    assert holds(env, f"on({top}, {below})")


# -- registry -------------------------------------------------------------------------------------


def test_builtin_skills_are_registered() -> None:
    assert set(BUILTIN) <= set(skill_names())
    assert skill_names() == sorted(skill_names())


@pytest.mark.parametrize("name", BUILTIN)
def test_each_skill_is_described_with_strict_params(name: str) -> None:
    skill = get_skill(name)
    assert skill.name == name
    assert skill.kind == "controller"
    assert skill.description.strip()
    assert issubclass(skill.Params, SkillParams)
    assert skill.Params.model_config.get("extra") == "forbid"
    with pytest.raises(ValueError, match="Extra inputs"):
        skill.Params.model_validate({"no_such_parameter": 1})


def test_unknown_skill_lists_the_registered_ones() -> None:
    with pytest.raises(UnknownSkillError) as info:
        get_skill("juggle")
    message = str(info.value)
    assert "'juggle'" in message
    assert all(name in message for name in BUILTIN)
    assert info.value.kind == "unknown_skill"


class _ScriptedPick(Skill):
    name = "pick"
    description = "A scripted stand-in for pick, registered only by this test."
    implementation = "scripted_test"
    Params = get_skill("pick").Params

    def execute(self, env: TabletopEnv, params: SkillParams) -> SkillResult:
        return SkillResult(skill=self.name, success=False, reason="scripted")


@pytest.fixture
def scripted_pick() -> Iterator[type[Skill]]:
    register_skill(_ScriptedPick)
    yield _ScriptedPick
    skills_registry._REGISTRY["pick"].pop(_ScriptedPick.implementation, None)


def test_a_second_implementation_is_selectable(scripted_pick: type[Skill]) -> None:
    assert set(skill_implementations("pick")) == {"controller", "learned", "scripted_test"}
    assert isinstance(get_skill("pick", "scripted_test"), scripted_pick)
    assert not isinstance(get_skill("pick"), scripted_pick)  # the controller stays the default
    assert get_skill("pick").implementation == "controller"
    with pytest.raises(UnknownSkillError, match="controller, learned, scripted_test"):
        get_skill("pick", "teleoperated")

    class Clash(_ScriptedPick):
        pass

    with pytest.raises(ValueError, match="already has an implementation 'scripted_test'"):
        register_skill(Clash)


def test_registry_is_clean_after_the_fixture() -> None:
    assert set(skill_implementations("pick")) == {"controller", "learned"}


# -- real physics guard ---------------------------------------------------------------------------


@pytest.mark.slow
def test_skills_act_only_through_the_actuators(clear_env: TabletopEnv) -> None:
    env = clear_env
    model = env.model
    # No mocap body, no weld: the only equality couples the two finger joints.
    assert model.nmocap == 0
    assert model.neq == 1
    assert model.eq_type[0] == mujoco.mjtEq.mjEQ_JOINT
    fingers = {model.joint(n).id for n in ("left_finger", "right_finger")}
    assert {int(model.eq_obj1id[0]), int(model.eq_obj2id[0])} == fingers

    witness = PhysicsWitness(env)
    env.step_callbacks.append(witness)
    try:
        assert run(env, "pick", object="red_block").success
        assert run(env, "place", target="blue_box", relation="in").success
        assert run(env, "push", object="green_block", direction="left", distance=0.05).success
        assert run(env, "home").success
    finally:
        env.step_callbacks.remove(witness)
    witness.check(env)  # nothing written after the last step either
    assert witness.periods > 500  # every 50 Hz control period of four skills was witnessed
    assert witness.mismatches == []


@pytest.mark.slow
def test_new_motions_act_only_through_the_actuators(make_env: MakeEnv) -> None:
    """Off a tower, out of a box, two blocks at one region, a drop into a box: witnessed."""
    env = make_env(scene="stacked")
    env.reset(seed=0)
    witness = PhysicsWitness(env)
    env.step_callbacks.append(witness)
    try:
        assert run(env, "pick", object="blue_block").success  # the top of a tower
        assert run(env, "place", target="far right corner", relation="at").success
        assert run(env, "pick", object="purple_block").success
        assert run(env, "place", target="far right corner", relation="at").success
        assert run(env, "pick", object="green_block").success
        assert run(env, "place", target="gray_box", relation="in").success  # its third block
    finally:
        env.step_callbacks.remove(witness)
    witness.check(env)
    assert witness.periods > 300
    assert witness.mismatches == []


def test_the_witness_catches_a_teleport(clear_env: TabletopEnv) -> None:
    """The guard above can fail: a qpos write between steps is seen."""
    env = clear_env
    witness = PhysicsWitness(env)
    env.step_callbacks.append(witness)
    env.actuate()
    adr = env.model.joint("red_block").qposadr[0]
    env.data.qpos[adr + 2] += 0.05  # lift the block by hand
    env.actuate()
    env.step_callbacks.remove(witness)
    assert len(witness.mismatches) == 1


# -- pick -----------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("scene", "seed"), [("default", 0), ("default", 1), ("dense", 2)])
def test_pick_in_seeded_scenes(make_env: MakeEnv, scene: str, seed: int) -> None:
    env = make_env(scene=scene)
    env.reset(seed=seed)
    name = blocks(env)[seed % len(blocks(env))]
    others = {n: xy(env, n) for n in env.object_names if n != name}

    outcome = run(env, "pick", object=name)

    assert outcome.success, outcome.reason
    assert outcome.reason == ""
    assert outcome.skill == "pick"
    assert outcome.sim_seconds > 0
    assert name in outcome.touched
    assert holds(env, f"holding({name})")
    assert bottom(env, name) >= LIFTED
    for other, start in others.items():  # the neighbours were not disturbed
        assert np.linalg.norm(xy(env, other) - start) < 0.002, other


def test_pick_an_unknown_object(clear_env: TabletopEnv) -> None:
    outcome = run(clear_env, "pick", object="purple_block")
    assert not outcome.success
    assert "purple_block" in outcome.reason
    assert all(name in outcome.reason for name in clear_env.object_names)
    assert outcome.sim_seconds == 0


def test_pick_refuses_a_box(clear_env: TabletopEnv) -> None:
    start = clear_env.data.qpos.copy()
    outcome = run(clear_env, "pick", object="blue_box")
    assert not outcome.success
    assert "blue_box is too wide" in outcome.reason
    np.testing.assert_array_equal(clear_env.data.qpos, start)


@pytest.mark.slow
def test_pick_refuses_a_block_under_another(clear_env: TabletopEnv) -> None:
    env = clear_env
    stack(env, "red_block", "green_block")
    outcome = run(env, "pick", object="green_block")
    assert not outcome.success
    assert outcome.reason == "red_block is on green_block; move it first"
    assert holds(env, "on(red_block, green_block)")


@pytest.mark.slow
def test_pick_while_holding(clear_env: TabletopEnv) -> None:
    env = clear_env
    assert run(env, "pick", object="red_block").success
    outcome = run(env, "pick", object="green_block")
    assert not outcome.success
    assert "already holds red_block" in outcome.reason
    again = run(env, "pick", object="red_block")
    assert not again.success
    assert "already held" in again.reason
    assert holds(env, "holding(red_block)")


# -- place ----------------------------------------------------------------------------------------

PLACE_TARGETS = {
    "on": "green_block",
    "in": "blue_box",
    "next_to": "green_block",
    "left_of": "green_block",
    "right_of": "yellow_block",
    "behind": "green_block",
    "in_front_of": "yellow_block",
    "at": "top left corner",  # an alias of the far left corner
    "between": "green_block",
}
SECOND_TARGETS = {"between": "orange_block"}  # a relation of two targets: its target2


def test_place_targets_cover_every_relation() -> None:
    assert set(PLACE_TARGETS) == set(relation_names())


@pytest.mark.slow
@pytest.mark.parametrize("relation", relation_names())
def test_place_every_relation(clear_env: TabletopEnv, relation: str) -> None:
    env = clear_env
    target, second = PLACE_TARGETS[relation], SECOND_TARGETS.get(relation)
    targets = ["far left corner" if relation == "at" else target, *([second] if second else [])]
    goal = f"{relation}(red_block, {', '.join(targets)})"
    assert not holds(env, goal)
    assert run(env, "pick", object="red_block").success

    extra = {"target2": second} if second else {}
    outcome = run(env, "place", target=target, relation=relation, **extra)

    assert outcome.success, outcome.reason
    assert outcome.sim_seconds > 0
    assert "red_block" in outcome.touched
    world = env.world_state()
    assert evaluate(goal, world).holds
    assert world.settled()
    assert not evaluate("holding(red_block)", world).holds
    assert env.check([goal]).success  # holds, at rest, the gripper empty
    # Released for real: the arm goes home and the object stays where it was put.
    rest = xy(env, "red_block")
    assert run(env, "home").success
    assert np.linalg.norm(xy(env, "red_block") - rest) < 0.002
    assert holds(env, goal)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scene", "seed", "relation"), [("default", 0, "in"), ("dense", 1, "next_to")]
)
def test_place_in_seeded_scenes(make_env: MakeEnv, scene: str, seed: int, relation: str) -> None:
    env = make_env(scene=scene)
    env.reset(seed=seed)
    world = env.world_state()
    kind = "_box" if relation == "in" else "_block"
    name = blocks(env)[0]
    candidates = [n for n in env.object_names if n.endswith(kind) and n != name]
    feasible = []
    for target in candidates:
        try:
            find_placement(world, name, relation, target)
        except NoPlacement:
            continue
        feasible.append(target)
    assert feasible, f"no feasible {relation} target in {scene} seed {seed}"
    target = feasible[0]
    assert run(env, "pick", object=name).success

    outcome = run(env, "place", target=target, relation=relation)

    assert outcome.success, outcome.reason
    assert env.check([f"{relation}({name}, {target})"]).success


def test_place_with_nothing_held(clear_env: TabletopEnv) -> None:
    outcome = run(clear_env, "place", target="green_block", relation="on")
    assert not outcome.success
    assert "nothing is held" in outcome.reason


@pytest.mark.slow
def test_place_on_an_occupied_block(clear_env: TabletopEnv) -> None:
    env = clear_env
    stack(env, "red_block", "green_block")
    assert run(env, "pick", object="yellow_block").success
    outcome = run(env, "place", target="green_block", relation="on")
    assert not outcome.success
    assert outcome.reason == "no free spot on green_block: red_block is on it"
    assert holds(env, "holding(yellow_block)")


@pytest.mark.slow
def test_place_without_a_free_spot_keeps_holding(crowded_env: TabletopEnv) -> None:
    env = crowded_env
    assert run(env, "pick", object="red_block").success
    before = env.data.qpos.copy()

    outcome = run(env, "place", target="pink_block", relation="next_to")

    assert not outcome.success
    assert outcome.reason == "no free spot next to pink_block clear of the other objects"
    assert holds(env, "holding(red_block)")  # nothing was dropped
    assert bottom(env, "red_block") >= LIFTED
    np.testing.assert_array_equal(env.data.qpos, before)  # refused before moving


@pytest.mark.slow
def test_place_relative_to_an_unknown_target_or_region(clear_env: TabletopEnv) -> None:
    env = clear_env
    assert run(env, "pick", object="red_block").success
    unknown = run(env, "place", target="purple_box", relation="in")
    assert not unknown.success
    assert "unknown object 'purple_box'" in unknown.reason
    region = run(env, "place", target="the moon", relation="at")
    assert not region.success
    assert "unknown region 'the moon'" in region.reason
    assert "far left corner" in region.reason
    itself = run(env, "place", target="red_block", relation="next_to")
    assert not itself.success
    assert "relative to itself" in itself.reason
    assert holds(env, "holding(red_block)")


# -- push -----------------------------------------------------------------------------------------

PUSH_DIRECTIONS = {"left": (0.0, 1.0), "right": (0.0, -1.0), "far": (1.0, 0.0), "near": (-1.0, 0.0)}


@pytest.mark.slow
@pytest.mark.parametrize("direction", list(PUSH_DIRECTIONS))
def test_push_each_direction(clear_env: TabletopEnv, direction: str) -> None:
    env = clear_env
    distance = 0.08
    start = xy(env, "green_block")
    goal = start + distance * np.array(PUSH_DIRECTIONS[direction])

    outcome = run(env, "push", object="green_block", direction=direction, distance=distance)

    assert outcome.success, outcome.reason
    assert "green_block" in outcome.touched
    assert np.linalg.norm(xy(env, "green_block") - goal) <= PUSH_TOLERANCE
    assert bottom(env, "green_block") < ON_TABLE  # slid, never left on top of anything
    assert not holds(env, "holding(green_block)")
    assert env.world_state().settled()


@pytest.mark.slow
def test_push_never_lifts(clear_env: TabletopEnv) -> None:
    env = clear_env
    heights: list[float] = []

    def record(e: TabletopEnv) -> None:
        heights.append(bottom(e, "green_block"))

    env.step_callbacks.append(record)
    outcome = run(env, "push", object="green_block", direction="near", distance=0.06)
    env.step_callbacks.remove(record)
    assert outcome.success, outcome.reason
    assert len(heights) > 100
    assert max(heights) < 0.005


@pytest.mark.slow
@pytest.mark.parametrize(("scene", "seed"), [("default", 3), ("dense", 4)])
def test_push_in_seeded_scenes(make_env: MakeEnv, scene: str, seed: int) -> None:
    env = make_env(scene=scene)
    env.reset(seed=seed)
    push = get_skill("push")
    distance = 0.07
    feasible = [
        (name, direction)
        for name in blocks(env)
        for direction in PUSH_DIRECTIONS
        if not push.preconditions(
            env, push.Params(object=name, direction=direction, distance=distance)
        )
    ]
    assert feasible
    name, direction = feasible[seed % len(feasible)]
    start = xy(env, name)

    outcome = run(env, "push", object=name, direction=direction, distance=distance)

    assert outcome.success, outcome.reason
    goal = start + distance * np.array(PUSH_DIRECTIONS[direction])
    assert np.linalg.norm(xy(env, name) - goal) <= PUSH_TOLERANCE
    assert bottom(env, name) < ON_TABLE


def test_push_blocked_by_another_object(clear_env: TabletopEnv) -> None:
    start = clear_env.data.qpos.copy()
    outcome = run(clear_env, "push", object="red_block", direction="left", distance=0.2)
    assert not outcome.success
    assert outcome.reason == "green_block is in the way of pushing red_block left"
    np.testing.assert_array_equal(clear_env.data.qpos, start)


def test_push_out_of_reach(clear_env: TabletopEnv) -> None:
    assert xy(clear_env, "orange_block")[0] == pytest.approx(0.6, abs=1e-3)
    outcome = run(clear_env, "push", object="orange_block", direction="far", distance=0.3)
    assert not outcome.success
    assert "out of reach" in outcome.reason
    assert "orange_block" in outcome.reason


@pytest.mark.slow
def test_push_while_holding(clear_env: TabletopEnv) -> None:
    env = clear_env
    assert run(env, "pick", object="red_block").success
    outcome = run(env, "push", object="green_block", direction="left", distance=0.05)
    assert not outcome.success
    assert outcome.reason == "the claw holds red_block; place it before pushing"
    assert holds(env, "holding(red_block)")


# -- move_to, the gripper, home -------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("target", [(0.5, 0.1, 0.15), (0.35, -0.2, 0.08)])
def test_move_to_arrives(clear_env: TabletopEnv, target: tuple[float, float, float]) -> None:
    outcome = run(clear_env, "move_to", x=target[0], y=target[1], z=target[2])
    assert outcome.success, outcome.reason
    assert np.linalg.norm(tcp(clear_env) - np.array(target)) <= 0.005
    assert outcome.sim_seconds > 0


def test_move_to_refuses_the_unreachable(clear_env: TabletopEnv) -> None:
    start = clear_env.data.qpos.copy()
    far = run(clear_env, "move_to", x=1.2, y=0.0, z=0.2)
    assert not far.success
    assert "out of reach" in far.reason
    low = run(clear_env, "move_to", x=0.5, y=0.0, z=0.01)
    assert not low.success
    assert "below the lowest tool height" in low.reason
    np.testing.assert_array_equal(clear_env.data.qpos, start)


def test_gripper_opens_and_closes(clear_env: TabletopEnv) -> None:
    env = clear_env
    closed = run(env, "close_gripper")
    assert closed.success
    assert env.robot.gripper_width(env.data) == pytest.approx(PAD_CLEARANCE, abs=0.002)
    assert closed.details["holding"] == []
    opened = run(env, "open_gripper")
    assert opened.success, opened.reason
    assert env.robot.gripper_width(env.data) >= OPEN_WIDTH - 0.005
    assert opened.details["width"] == pytest.approx(env.robot.gripper_width(env.data))


@pytest.mark.slow
def test_close_gripper_reports_what_it_holds(clear_env: TabletopEnv) -> None:
    env = clear_env
    assert run(env, "pick", object="red_block").success
    closed = run(env, "close_gripper")
    assert closed.details["holding"] == ["red_block"]
    assert env.robot.gripper_width(env.data) > 0.03  # stopped on the block
    opened = run(env, "open_gripper")
    assert opened.success
    run(env, "home")
    assert not holds(env, "holding(red_block)")


@pytest.mark.slow
def test_home_returns_to_rest(clear_env: TabletopEnv) -> None:
    env = clear_env
    assert run(env, "move_to", x=0.35, y=-0.2, z=0.1).success
    assert np.abs(env.data.qpos[env.robot.arm_qpos] - env.robot.rest_qpos).max() > 0.1
    outcome = run(env, "home")
    assert outcome.success, outcome.reason
    np.testing.assert_allclose(env.data.qpos[env.robot.arm_qpos], env.robot.rest_qpos, atol=0.005)


# -- every skill judges at rest -------------------------------------------------------------------

ARM_STILL = 0.02  # rad/s: the claw's joints count as still below this


def arm_speed(env: TabletopEnv) -> float:
    return float(np.abs(env.data.qvel[env.robot.arm_dofs]).max())


def never_at_rest(env: TabletopEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every object read as moving at 5 cm/s (a scene that never comes to rest)."""
    measured = env.object_speeds
    monkeypatch.setattr(env, "object_speeds", lambda: measured() + 0.05)


@pytest.mark.slow
def test_push_fails_when_the_scene_does_not_come_to_rest(
    clear_env: TabletopEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    never_at_rest(clear_env, monkeypatch)
    outcome = run(clear_env, "push", object="green_block", direction="left", distance=0.05)
    assert not outcome.success
    assert outcome.reason == "the scene did not come to rest after pushing green_block"
    assert outcome.details["miss"] <= PUSH_TOLERANCE  # it got there, but was not judged at rest


@pytest.mark.slow
@pytest.mark.parametrize(
    ("skill", "args", "reason"),
    [
        ("pick", {"object": "red_block"}, "the scene did not come to rest after lifting red_block"),
        ("open_gripper", {}, "the scene did not come to rest after opening"),
        ("close_gripper", {}, "the claw and the scene did not come to rest after closing"),
    ],
)
def test_skills_fail_when_the_scene_does_not_come_to_rest(
    clear_env: TabletopEnv,
    monkeypatch: pytest.MonkeyPatch,
    skill: str,
    args: dict[str, Any],
    reason: str,
) -> None:
    never_at_rest(clear_env, monkeypatch)
    outcome = run(clear_env, skill, **args)
    assert not outcome.success
    assert outcome.reason == reason


def disable_gripper_motor(env: TabletopEnv) -> None:
    """A failed finger motor: the gripper actuator exerts no force."""
    actuator = env.robot.gripper_actuator
    env.model.actuator_gainprm[actuator, 0] = 0.0
    env.model.actuator_biasprm[actuator, 1:3] = 0.0


def test_close_gripper_fails_when_the_fingers_do_not_close(clear_env: TabletopEnv) -> None:
    env = clear_env
    assert env.robot.gripper_width(env.data) > 0.05  # the claw starts open
    disable_gripper_motor(env)
    closed = run(env, "close_gripper")
    assert not closed.success
    assert "could not close" in closed.reason
    assert closed.details["holding"] == []
    assert closed.details["width"] == pytest.approx(env.robot.gripper_width(env.data), abs=1e-4)
    assert env.robot.gripper_width(env.data) > 0.05


@pytest.mark.slow
def test_close_gripper_succeeds_on_a_held_object_and_on_nothing(clear_env: TabletopEnv) -> None:
    env = clear_env
    closed = run(env, "close_gripper")
    assert closed.success and closed.details["holding"] == []
    assert arm_speed(env) < ARM_STILL
    assert run(env, "open_gripper").success
    assert run(env, "pick", object="red_block").success
    again = run(env, "close_gripper")
    assert again.success and again.details["holding"] == ["red_block"]
    assert env.world_state().settled()


class ScriptedPolicy:
    """Stands in for a policy network: still for most of the horizon, then full speed along +x."""

    config = SimpleNamespace(residual_scale=None, env_kwargs={})

    def __init__(self, horizon: int, moving: int) -> None:
        self.calls, self.start_moving = 0, horizon - moving

    def act(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        self.calls += 1
        return np.array([1.0, 0.0, 0.0]) if self.calls > self.start_moving else np.zeros(3)


@pytest.mark.slow
def test_learned_move_to_judges_once_the_claw_is_still(clear_env: TabletopEnv) -> None:
    """A policy still moving when its horizon ends is measured where the claw comes to rest."""
    env = clear_env
    goal = tcp(env) + np.array([0.09, 0.0, 0.0])
    skill = LearnedMoveTo(ScriptedPolicy(LearnedMoveTo.horizon, 3))  # type: ignore[arg-type]
    outcome = skill(env, x=goal[0], y=goal[1], z=goal[2])
    assert outcome.details["policy_steps"] == LearnedMoveTo.horizon
    assert arm_speed(env) < ARM_STILL
    error = float(np.linalg.norm(tcp(env) - goal))
    assert outcome.details["error"] == pytest.approx(error, abs=1e-4)
    assert outcome.success == (error <= outcome.details["tolerance"])


@pytest.mark.slow
def test_learned_push_judges_once_the_scene_is_still(make_env: MakeEnv) -> None:
    env = make_env(scene="default")
    env.reset(seed=1)  # here the claw was still rising when the push used to be judged
    start = xy(env, "blue_block")
    outcome = get_skill("push", "learned")(
        env, object="blue_block", direction="left", distance=0.08
    )
    assert arm_speed(env) < ARM_STILL
    assert env.world_state().settled()
    miss = float(np.linalg.norm(xy(env, "blue_block") - (start + np.array([0.0, 0.08]))))
    assert outcome.details["miss"] == pytest.approx(miss, abs=1e-4)
    assert outcome.success == (miss <= PUSH_TOLERANCE), outcome.reason


@pytest.mark.slow
def test_learned_push_fails_when_the_scene_does_not_come_to_rest(
    clear_env: TabletopEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    never_at_rest(clear_env, monkeypatch)
    push = get_skill("push", "learned")
    outcome = push(clear_env, object="green_block", direction="left", distance=0.05)
    assert not outcome.success
    assert outcome.reason == "the scene did not come to rest after pushing green_block"


@pytest.mark.parametrize("miss", [0.0, 0.019, 0.021, 0.04])
def test_learned_push_judges_with_the_controllers_tolerance(
    clear_env: TabletopEnv, miss: float
) -> None:
    """2 cm, as the controller push, not the training task's 5 cm."""
    from claw.envs.tasks import PushTask

    assert PUSH_TOLERANCE < 0.04 <= PushTask.threshold
    skill = get_skill("push", "learned")
    params = skill.Params(object="green_block", direction="left", distance=0.05)
    task, _ = skill.goal(clear_env, params)  # type: ignore[attr-defined]
    final = task.achieved(clear_env)
    start = final - np.array([0.0, 0.05])
    goal = final + np.array([miss, 0.0])  # the object ended ``miss`` short of its goal
    success, reason, details = skill.judge(clear_env, params, task, start, goal, True)  # type: ignore[attr-defined]
    assert success == (miss <= PUSH_TOLERANCE), reason
    assert details["tolerance"] == PUSH_TOLERANCE
    controller = push_outcome("green_block", "left", start, final, goal)
    assert (success, reason, details) == controller


# -- determinism ----------------------------------------------------------------------------------


TRACE: list[tuple[str, dict[str, Any]]] = [
    ("pick", {"object": "red_block"}),
    ("place", {"target": "blue_box", "relation": "in"}),
    ("push", {"object": "green_block", "direction": "far", "distance": 0.05}),
]


@pytest.mark.slow
def test_same_seed_same_physics_bit_for_bit(make_env: MakeEnv) -> None:
    finals, results = [], []
    for _ in range(2):
        env = make_env(scene="default")
        env.reset(seed=5)
        results.append([run(env, skill, **args).model_dump() for skill, args in TRACE])
        finals.append((env.data.qpos.copy(), env.data.qvel.copy(), env.data.time))
    assert results[0] == results[1]
    assert all(r["success"] for r in results[0]), results[0]
    np.testing.assert_array_equal(finals[0][0], finals[1][0])
    np.testing.assert_array_equal(finals[0][1], finals[1][1])
    assert finals[0][2] == finals[1][2]


@pytest.mark.slow
def test_place_in_a_block_is_a_result_not_a_crash(clear_env: TabletopEnv) -> None:
    """A plan asking to put a block 'in' another block (an LLM's slip) fails with a reason."""
    assert run(clear_env, "pick", object="red_block").success
    result = run(clear_env, "place", target="green_block", relation="in")
    assert not result.success and "not a box" in result.reason
