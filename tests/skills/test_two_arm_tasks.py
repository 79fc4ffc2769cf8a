"""Two-arm tasks on physics: the handover, the joint lift of a bar, their predicates, arms
assigned by the planners, and calls of the two arms run as lanes."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import claw.skills  # noqa: F401  (registers the skills)
from claw.envs.exceptions import PredicateError
from claw.envs.predicates import evaluate, parse_predicate
from claw.envs.state import GripperState, ObjectState, WorldState
from claw.envs.tabletop import TabletopEnv
from claw.planner.language.arm_phrases import read_arm_phrases
from claw.planner.offline import OfflinePlanner
from claw.skills.executor import execute_calls
from claw.skills.lanes import plan_stages, stages
from claw.skills.plans import SkillCall
from claw.skills.registry import get_skill, skill_names


@pytest.fixture(scope="module")
def env() -> TabletopEnv:
    made = TabletopEnv(scene="two_arms")
    yield made
    made.close()


def _run(env: TabletopEnv, calls: list[dict]) -> list[tuple[str, bool, str]]:
    ran = execute_calls(env, calls)
    return [(s.skill, s.success, s.reason) for s in ran.steps]


# -- skills on physics ------------------------------------------------------------------------


@pytest.mark.slow
def test_a_handover_passes_the_block_to_the_other_claw_and_back(env: TabletopEnv) -> None:
    env.reset(seed=0, options={"scene": "two_arms"})
    calls = [
        {"skill": "pick", "args": {"object": "red_block", "arm": "left"}},
        {"skill": "handover", "args": {"object": "red_block", "to": "right"}},
    ]
    assert _run(env, calls) == [("pick", True, ""), ("handover", True, "")]
    world = env.world_state()
    assert evaluate("holding(red_block, right)", world).holds
    assert not evaluate("holding(red_block, left)", world).holds
    assert world.get("red_block").bottom > 0.15  # in the air: no table under it
    back = [{"skill": "handover", "args": {"object": "red_block", "to": "left"}}]
    assert _run(env, back) == [("handover", True, "")]
    assert evaluate("holding(red_block, left)", env.world_state()).holds
    # the receiver can place it: its claw points down again
    place = [{"skill": "place", "args": {"target": "brown_box", "relation": "in", "arm": "left"}}]
    assert _run(env, place) == [("place", True, "")]
    assert env.check(["in(red_block, brown_box)"]).success


@pytest.mark.slow
@pytest.mark.parametrize(
    ("calls", "reason"),
    [
        ([], "red_block is in no claw; pick it up first"),
        ([("pick", "red_block", "right")], "the right arm already holds red_block"),
        ([("pick", "red_block", "left"), ("pick", "blue_block", "right")],
         "the right claw already holds blue_block; place it first"),
    ],
)  # fmt: skip
def test_a_handover_refuses_before_anything_moves(
    env: TabletopEnv, calls: list[tuple[str, str, str]], reason: str
) -> None:
    env.reset(seed=0, options={"scene": {"arms": 2, "objects": [
        {"type": "block", "color": "red", "pose": [0.45, 0.0]},
        {"type": "block", "color": "blue", "pose": [0.45, -0.35]}]}})  # fmt: skip
    steps = [{"skill": s, "args": {"object": o, "arm": a}} for s, o, a in calls]
    assert all(ok for _, ok, _ in _run(env, steps))
    before = env.data.time
    result = get_skill("handover")(env, object="red_block", to="right")
    assert not result.success and result.reason == reason and env.data.time == before


@pytest.mark.slow
def test_a_bar_is_lifted_level_by_both_claws_and_refused_by_one(env: TabletopEnv) -> None:
    env.reset(seed=0, options={"scene": "two_arms"})
    one = get_skill("pick")(env, object="yellow_bar")
    assert not one.success and "lift it with both arms (lift_together)" in one.reason
    result = get_skill("lift_together")(env, object="yellow_bar")
    assert result.success, result.reason
    world = env.world_state()
    assert evaluate("holding(yellow_bar, left)", world).holds
    assert evaluate("holding(yellow_bar, right)", world).holds
    assert evaluate("level(yellow_bar)", world).measured["tilt_deg"] < 1.0
    assert world.get("yellow_bar").bottom == pytest.approx(0.10, abs=0.01)
    assert env.check(["holding(yellow_bar, left)", "level(yellow_bar)"]).success


def test_two_arm_skills_are_not_offered_with_one_arm() -> None:
    assert {"handover", "lift_together"} <= set(skill_names(2))
    assert not {"handover", "lift_together"} & set(skill_names(1))
    env = TabletopEnv()
    env.reset(seed=0)
    result = get_skill("handover")(env, object="red_block", to="right")
    assert not result.success and result.reason == "the scene has no right arm (its arms: left)"


# -- predicates -------------------------------------------------------------------------------


def _claw(name: str | None) -> GripperState:
    touching = frozenset({name} if name else ())
    return GripperState(
        left_tip=np.array([0.5, -0.02, 0.1]), right_tip=np.array([0.5, 0.02, 0.1]),
        left_contacts=touching, right_contacts=touching,
    )  # fmt: skip


def test_holding_names_an_arm_and_level_measures_the_tilt() -> None:
    block = ObjectState.make("a", "block", (0.5, 0.0, 0.1))
    claws = {"left": _claw(None), "right": _claw("a")}
    world = WorldState(objects={"a": block}, gripper=claws["left"], grippers=claws)
    assert evaluate("holding(a)", world).holds  # some claw holds it
    assert evaluate("holding(a, right)", world).holds
    assert (
        evaluate("holding(a, left)", world).reason == "a does not touch the left and right finger"
    )
    one_arm = WorldState(objects={"a": block}, gripper=_claw("a"), grippers={"left": _claw("a")})
    assert (
        evaluate("holding(a, right)", one_arm).reason
        == "the scene has no right arm (its arms: left)"
    )
    with pytest.raises(PredicateError, match="unknown arm 'middle'; allowed: left, right"):
        parse_predicate("holding(a, middle)")
    assert parse_predicate("holding(a, right)").objects == ("a",)
    tilt = np.radians(5.0)
    rotation = np.array(
        [[1, 0, 0], [0, np.cos(tilt), -np.sin(tilt)], [0, np.sin(tilt), np.cos(tilt)]]
    )
    tilted = dataclasses.replace(block, rotation=rotation)
    check = evaluate("level(a)", WorldState(objects={"a": tilted}))
    assert not check.holds and check.measured["tilt_deg"] == pytest.approx(5.0, abs=1e-3)
    assert evaluate("level(a)", world).holds


# -- planning ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("instruction", "goal", "steps"),
    [
        ("hand the red block to the other arm", ["holding(red_block, right)"],
         ["pick(object='red_block', arm='left')", "handover(object='red_block', to='right')"]),
        ("pass the blue block to the left hand", ["holding(blue_block, left)"],
         ["pick(object='blue_block', arm='right')", "handover(object='blue_block', to='left')"]),
        ("lift the bar with both arms",
         ["holding(yellow_bar, left)", "holding(yellow_bar, right)", "level(yellow_bar)"],
         ["lift_together(object='yellow_bar')"]),
        ("put the red block in the brown box and the blue block in the gray box",
         ["in(red_block, brown_box)", "in(blue_block, gray_box)"],
         ["pick(object='red_block', arm='left')",
          "place(target='brown_box', relation='in', arm='left')",
          "pick(object='blue_block', arm='right')",
          "place(target='gray_box', relation='in', arm='right')"]),
    ],
)  # fmt: skip
def test_the_offline_planner_assigns_arms(
    env: TabletopEnv, instruction: str, goal: list[str], steps: list[str]
) -> None:
    env.reset(seed=0, options={"scene": "two_arms"})
    plan = OfflinePlanner().plan(instruction, env)
    assert [str(g) for g in plan.goal] == goal
    assert [str(c) for c in plan.steps] == steps


@pytest.mark.slow
def test_an_object_beyond_one_arm_goes_through_a_handover() -> None:
    """The red block is within the left arm's reach only, the gray box the right arm's."""
    env = TabletopEnv(scene={"arms": 2, "objects": [
        {"type": "block", "color": "red", "pose": [0.30, 0.55]},
        {"type": "box", "color": "gray", "pose": [0.35, -0.50]}]})  # fmt: skip
    env.reset(seed=0)
    plan = OfflinePlanner().plan("put the red block in the gray box", env)
    assert [str(c) for c in plan.steps] == [
        "pick(object='red_block', arm='left')",
        "handover(object='red_block', to='right')",
        "place(target='gray_box', relation='in', arm='right')",
    ]
    assert execute_calls(env, plan.steps).success and env.check(plan.goal).success


def test_arm_phrases_are_read_in_two_arm_scenes_only() -> None:
    arms = ("left", "right")
    assert read_arm_phrases("hand the red block over to the right hand", arms)[0] == (
        "pick up the red block"
    )
    text, intent = read_arm_phrases("lift the bar using both arms", arms)
    assert text == "lift the bar" and intent.using == "both"
    assert read_arm_phrases("lift the bar with both arms", ("left",))[0] == (
        "lift the bar with both arms"
    )


def test_calls_of_the_two_arms_share_no_object_within_a_stage(env: TabletopEnv) -> None:
    calls = [
        {"object": "red_block", "arm": "left"},
        {"target": "brown_box", "relation": "in", "arm": "left"},
        {"object": "blue_block", "arm": "right"},
        {"target": "red_block", "relation": "on", "arm": "right"},  # the left lane's block
        {"object": "yellow_bar"},
    ]
    assert stages(env, calls, [False, False, False, False, True]) == [[0, 1, 2], [3], [4]]


# -- the must-show runs, through the CLI --------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("instruction", "skills"),
    [
        ("hand the red block to the other arm", ["pick", "handover"]),
        ("lift the bar with both arms", ["lift_together"]),
    ],
)
def test_two_arm_instructions_succeed_on_physics(
    instruction: str,
    skills: list[str],
    tmp_path: Path,
    claw_in_process: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    done = claw_in_process(
        instruction, "--scene", "two_arms", "--json", env={"CLAW_HOME": str(tmp_path)}
    )
    result = json.loads(done.stdout)
    assert done.returncode == 0 and result["success"], result
    assert [s["skill"] for s in result["steps"]] == skills and result["replans"] == 0


def test_the_llm_schema_offers_the_arms_and_its_steps_get_arms(env: TabletopEnv) -> None:
    from claw.planner.llm.planner import LLMPlanner

    answer = {"goal": ["in(blue_block, gray_box)"],
              "steps": [{"skill": "pick", "args": {"object": "blue_block"}},
                        {"skill": "place", "args": {"target": "gray_box", "relation": "in"}}],
              "error": None}  # fmt: skip
    env.reset(seed=0, options={"scene": "two_arms"})
    llm = LLMPlanner("gpt-4o-mini", mock=lambda messages: json.dumps(answer), mode="steps")
    plan = llm.plan("put the blue block in the gray box", env)
    assert [c.args.get("arm") for c in plan.steps] == ["right", "right"]
    branches = llm.schema["properties"]["steps"]["items"]["anyOf"]
    pick = next(b for b in branches if b["properties"]["skill"]["enum"] == ["pick"])
    arm = pick["properties"]["args"]["properties"]["arm"]
    assert arm == {"anyOf": [{"type": "string", "enum": ["left", "right"]}, {"type": "null"}]}
    assert any("Two arms stand at the near edge" in m["content"] for m in llm.messages)
    assert all(isinstance(c, SkillCall) for c in plan.steps)


def test_a_handover_asked_for_is_planned_where_both_arms_reach() -> None:
    """A block in the middle: either arm reaches it, so "to the right arm" is a pick by the left
    and a handover; the goal alone (holding by the right arm) is a pick by the right."""
    env = TabletopEnv(scene={"arms": 2, "objects": [
        {"type": "block", "color": "red", "pose": [0.45, 0.02]}]})  # fmt: skip
    env.reset(seed=0)
    plan = OfflinePlanner().plan("give the red block to the right arm", env)
    assert [c.skill for c in plan.steps] == ["pick", "handover"]
    assert plan.steps[0].args["arm"] == "left"
    direct = OfflinePlanner().steps(
        [parse_predicate("holding(red_block, right)")], env.world_state()
    )
    assert [str(c) for c in direct] == ["pick(object='red_block', arm='right')"]


@pytest.mark.slow
def test_a_replan_goes_on_with_the_claw_that_holds_the_object(env: TabletopEnv) -> None:
    """The right claw holds the red block (a handover that ran, then a failed step): the
    replan places it with that claw rather than picking it again."""
    env.reset(seed=0, options={"scene": "two_arms"})
    calls = [
        {"skill": "pick", "args": {"object": "red_block", "arm": "left"}},
        {"skill": "handover", "args": {"object": "red_block", "to": "right"}},
    ]
    assert execute_calls(env, calls).success
    steps = OfflinePlanner().steps([parse_predicate("in(red_block, gray_box)")], env.world_state())
    assert [str(c) for c in steps] == ["place(target='gray_box', relation='in', arm='right')"]


@pytest.mark.slow
def test_arms_whose_work_crosses_the_table_take_turns(env: TabletopEnv) -> None:
    """Each block into the box on the other side: the lanes' bands of the table overlap, so the
    right arm's place waits its turn, and the left arm, idle over the gray box by then, goes home
    first (else the right arm meets it over the middle); both blocks arrive."""
    env.reset(seed=0, options={"scene": "two_arms"})
    plan = OfflinePlanner().plan(
        "put the red block in the gray box and the blue block in the brown box", env
    )
    assert [str(c) for c in plan.steps] == [
        "pick(object='red_block', arm='left')",
        "place(target='gray_box', relation='in', arm='left')",
        "home(arm='left')",
        "pick(object='blue_block', arm='right')",
        "place(target='brown_box', relation='in', arm='right')",
    ]
    assert plan_stages(env, plan.steps) == [[0, 1, 2, 3], [4]]
    assert execute_calls(env, plan.steps).success and env.check(plan.goal).success


def test_goal_mode_replaces_a_models_handover_with_the_derived_one(env: TabletopEnv) -> None:
    """A model's own pick and handover (with a goal) are the step generator's to write: once."""
    from claw.planner.llm.planner import LLMPlanner

    answer = {"goal": ["holding(red_block, right)"],
              "steps": [{"skill": "pick", "args": {"object": "red_block", "arm": "left"}},
                        {"skill": "handover", "args": {"object": "red_block", "to": "right"}}],
              "error": None}  # fmt: skip
    env.reset(seed=0, options={"scene": "two_arms"})
    llm = LLMPlanner("gpt-4o-mini", mock=lambda messages: json.dumps(answer), mode="auto")
    plan = llm.plan("pass the red block across", env)
    assert [c.skill for c in plan.steps] == ["pick", "handover"]


@pytest.mark.slow
def test_the_two_arm_bench_measures_every_row() -> None:
    from claw.runtime.bench_two_arms import bench_two_arms, describe

    result = bench_two_arms(episodes=2, seed=0)
    assert [row.task for row in result.rows] == [
        "handover", "joint lift", "2 pick-and-places, parallel", "2 pick-and-places, in turn",
    ]  # fmt: skip
    assert all(row.successes == 2 for row in result.rows)
    assert result.parallel_sim_saving > 0.3  # claw bench two-arm --episodes 40 measures it
    assert describe(result)[-1][0] == "parallel vs in turn"


def test_an_elongated_object_is_held_away_from_its_centre_a_block_is_not() -> None:
    """The pads 10 cm from a bar's centre hold it (the point between them inside the bar); a
    block whose centre is beyond the pads is not held, as before."""
    bar = ObjectState.make("b", "bar", (0.5, 0.10, 0.1), size=0.30, yaw=np.pi / 2)
    touching = frozenset({"b"})
    claw = GripperState(  # pads on the bar's two long faces, 10 cm from its centre
        left_tip=np.array([0.48, 0.0, 0.1]), right_tip=np.array([0.52, 0.0, 0.1]),
        left_contacts=touching, right_contacts=touching,
    )  # fmt: skip
    assert evaluate("holding(b)", WorldState(objects={"b": bar}, gripper=claw)).holds
    block = ObjectState.make("a", "block", (0.5, 0.045, 0.1))
    off = WorldState(objects={"a": block}, gripper=_claw("a"))
    assert not evaluate("holding(a)", off).holds


@pytest.mark.slow
def test_a_block_narrower_than_a_finger_is_not_handed_over() -> None:
    """A 2 cm block: the receiving fingers would close on the giver's (2.2 cm wide); refused
    before anything moves. 2.5 cm is handed over."""
    for size, handed in ((0.02, False), (0.025, True)):
        env = TabletopEnv(scene={"arms": 2, "objects": [
            {"type": "block", "color": "red", "size": size, "pose": [0.45, 0.35]}]})  # fmt: skip
        env.reset(seed=0)
        assert get_skill("pick")(env, object="red_block").success
        before = env.data.time
        result = get_skill("handover")(env, object="red_block", to="right")
        assert result.success is handed, result.reason
        if not handed:
            assert "too narrow to hand over (2.0 cm)" in result.reason
            assert env.data.time == before


def test_a_joint_lift_is_refused_where_a_block_stands_at_the_bar_end() -> None:
    env = TabletopEnv(
        scene={
            "arms": 2,
            "objects": [
                {"type": "bar", "color": "yellow", "pose": [0.62, 0.0, 90]},
                {"type": "block", "color": "red", "pose": [0.68, 0.11]},
            ],
        }
    )  # fmt: skip  beside its end
    env.reset(seed=0)
    result = get_skill("lift_together")(env, object="yellow_bar")
    assert result.reason == "no room for the left claw's fingers at yellow_bar's end: red_block"
    assert env.data.time == 0.0


@pytest.mark.slow
@pytest.mark.parametrize("planner", ["mock:oracle", "mock:literal"])
def test_the_mock_planners_do_the_two_arm_suite(planner: str) -> None:
    """The LLM path with two arms: the oracle's plans and the literal mock's (its own steps,
    one pick per holding goal, no arms): arms assigned, a bar lifted once, every case a success."""
    from claw.eval.runner import run_suite
    from claw.eval.suite import SUITES_DIR, load_suite

    suite = load_suite(SUITES_DIR / "two_arms.yaml")
    report = run_suite(suite, planner=planner)
    failed = [(c.id, c.reason) for c in report.cases if not c.success]
    assert not failed
