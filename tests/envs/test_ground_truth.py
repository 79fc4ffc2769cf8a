"""Ground truth the field needs: negated goals, ordered towers on a fixed base, object names
given in the scene spec, several accepted error kinds, and a per-case region radius."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from claw.envs import TabletopEnv
from claw.envs.exceptions import InvalidSceneError, PredicateError
from claw.envs.predicates import (
    AT_RADIUS,
    Predicate,
    evaluate,
    evaluate_goal,
    parse_predicate,
    predicate_signatures,
)
from claw.envs.regions import REGIONS
from claw.envs.scene import SceneSpec
from claw.envs.state import ObjectState, WorldState
from claw.eval.exceptions import InvalidSuiteError
from claw.eval.judging import judge, read_right
from claw.eval.mocks import literal_answer
from claw.eval.suite import Case, load_suite
from claw.planner.exceptions import UnsupportedError
from claw.planner.grounding.conflicts import check_conflicts
from claw.planner.llm.prompting import describe_scene
from claw.planner.offline import OfflinePlanner
from claw.runtime import RunResult
from claw.runtime.loop import RunError

BOX = {"type": "box", "color": "brown", "pose": [0.5, 0.15]}
# A red block in the brown box, two blue blocks told apart by name, a green block.
NAMED_SCENE: dict[str, Any] = {
    "name": "named",
    "objects": [
        BOX,
        {"type": "block", "color": "red", "in": "brown_box"},
        {"type": "block", "color": "blue", "name": "left_cube", "pose": [0.42, 0.02]},
        {"type": "block", "color": "blue", "name": "right_cube", "pose": [0.55, -0.12]},
        {"type": "block", "color": "green", "pose": [0.4, -0.1]},
    ],
}


def block(name: str, xyz: tuple[float, float, float], **kw: Any) -> ObjectState:
    return ObjectState.make(name, "block", xyz, **kw)


def tower_world() -> WorldState:
    """a on the table, b on a, c on b; an empty box x."""
    return WorldState.from_objects([
        block("a", (0.45, 0.0, 0.02)),
        block("b", (0.45, 0.0, 0.06)),
        block("c", (0.45, 0.0, 0.10)),
        ObjectState.make("x", "box", (0.6, 0.2, 0.025)),
    ])  # fmt: skip


# -- negation ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["not(in(red_block, brown_box))", " NOT ( inside(red_block, 'brown_box') ) ",
     "not(into(red_block,brown_box))"],
)  # fmt: skip
def test_a_negation_parses_to_one_canonical_text(text: str) -> None:
    pred = parse_predicate(text)
    assert str(pred) == "not(in(red_block, brown_box))"
    assert pred.name == "not" and pred.inner == Predicate.of("in", "red_block", "brown_box")
    assert pred.objects == ("red_block", "brown_box")
    assert Predicate.model_validate(str(pred)) == pred
    assert Predicate.of("not", "in(red_block, brown_box)") == pred
    assert Predicate.model_validate({"name": "not", "args": ["in(red_block, brown_box)"]}) == pred
    assert pred.model_dump() == "not(in(red_block, brown_box))"
    assert parse_predicate("not(at(a, top left))").objects == ("a",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not()", "not takes one predicate, got 0 arguments"),
        ("not(a, b)", "not(a, b): not takes one predicate; cannot parse predicate 'a, b'"),
        ("not(fly(a))", "unknown predicate 'fly'"),
        ("not(not(on(a, b)))", "double negation; write on(a, b) instead"),
        ("not(on(a))", "on takes 2 arguments"),
    ],
)
def test_a_bad_negation_is_a_one_line_error(text: str, message: str) -> None:
    with pytest.raises(PredicateError, match=r"^[^\n]*$") as err:
        parse_predicate(text)
    assert message in str(err.value)


def test_a_negation_holds_when_its_predicate_does_not() -> None:
    world = tower_world()
    on = evaluate("not(on(b, a))", world)
    assert not on.holds and on.reason.startswith("on(b, a) holds: b rests on a")
    out = evaluate("not(in(a, x))", world)
    assert out.holds and out.reason.startswith("in(a, x) does not hold: a's centre is not")
    assert out.measured == evaluate("in(a, x)", world).measured
    assert evaluate_goal(["not(holding(a))", "on(b, a)", "not(on(a, b))"], world).success
    failed = evaluate_goal(["not(stacked(a, b))"], world)
    assert not failed.success and failed.reason.startswith("not(stacked(a, b)) does not hold: ")


def test_negation_and_tower_stay_out_of_the_prompt() -> None:
    listed = ", ".join(predicate_signatures())
    assert "stacked(a, b, ...)" in listed and "holding(a)" in listed
    assert "not(" not in listed and "tower(" not in listed


# -- tower ---------------------------------------------------------------------------------------


def test_a_tower_is_ordered_bottom_first_on_the_table() -> None:
    world = tower_world()
    good = evaluate("tower(a, b, c)", world)
    assert good.holds and good.measured == {"levels": 2.0, "required": 2.0}
    assert good.reason == "c on b on a on the table"
    assert evaluate("stacked(c, b, a)", world).holds  # stacked takes any order
    upside = evaluate("tower(c, b, a)", world)
    assert not upside.holds and upside.reason == "the base: c is not on the table (it is on/in b)"
    skipped = evaluate("tower(a, c)", world)
    assert not skipped.holds and skipped.reason.startswith("0/1 levels in order; c's bottom")
    assert not evaluate("tower(a, a)", world).holds
    in_box = WorldState.from_objects([
        ObjectState.make("x", "box", (0.6, 0.2, 0.025)),
        block("a", (0.6, 0.2, 0.028)),
        block("b", (0.6, 0.2, 0.068)),
    ])  # fmt: skip
    assert evaluate("stacked(a, b)", in_box).holds and not evaluate("tower(a, b)", in_box).holds
    assert str(parse_predicate("tower(a, b)")) == "tower(a, b)"  # no longer stacked's alias


def test_a_tower_rests_on_one_base_in_the_conflicts() -> None:
    with pytest.raises(UnsupportedError, match="a cannot rest on both the table and x"):
        check_conflicts([Predicate.of("tower", "a", "b"), Predicate.of("in", "a", "x")])
    check_conflicts([Predicate.of("tower", "a", "b", "c"), Predicate.of("at", "a", "center")])


# -- region radius -------------------------------------------------------------------------------


def test_an_at_radius_replaces_the_default_for_at_only() -> None:
    world = WorldState.from_objects([block("a", (0.475 + 0.08, 0.0, 0.02))])  # 8 cm off centre
    assert AT_RADIUS == 0.06
    assert not evaluate("at(a, center)", world).holds
    wide = evaluate("at(a, center)", world, at_radius=0.11)
    assert wide.holds and wide.reason == "a is 8.0 cm from the center anchor (≤ 11.0 cm)"
    assert evaluate_goal(["at(a, center)"], world, at_radius=0.11).success
    assert not evaluate_goal(["at(a, center)"], world).success
    assert not evaluate("not(at(a, center))", world, at_radius=0.11).holds


# -- object names --------------------------------------------------------------------------------


def test_a_given_name_renames_no_other_object() -> None:
    spec = SceneSpec.load({"objects": [
        {"type": "block", "color": "red", "name": "left_cube"},
        {"type": "block", "color": "red"},
        {"type": "box", "color": "brown"},
        {"type": "block", "color": "blue", "on": "left_cube"},
        {"type": "block", "color": "red", "name": "boxed", "in": "brown_box"},
    ]})  # fmt: skip
    names = ["left_cube", "red_block_2", "brown_box", "blue_block", "boxed"]
    assert spec.object_names() == names
    placed = spec.sample(0)
    assert [p.name for p in placed] == names
    assert (placed[0].color, placed[0].type) == ("red", "block")
    assert (placed[3].on, placed[4].container) == ("left_cube", "brown_box")
    plain = [{"type": "block", "color": "red"}] * 2
    assert SceneSpec.load({"objects": plain}).object_names() == ["red_block", "red_block_2"]


@pytest.mark.parametrize(
    ("objects", "message"),
    [
        ([{"name": "Left_Cube"}], "objects[0].name: 'Left_Cube' is not an object name; allowed:"),
        ([{"name": "2cube"}], "'2cube' is not an object name"),
        ([{"name": "left cube"}], "'left cube' is not an object name"),
        ([{"name": "x" * 41}], "is not an object name"),
        ([{"name": 7}], "7 is not an object name"),
        ([{"name": "center"}], "'center' names a table region"),
        ([{"name": "far_left"}], "'far_left' names a table region"),
        ([{"name": "beside"}], "'beside' names a predicate"),
        ([{"name": "tower"}], "'tower' names a predicate"),
        ([{"name": "table"}], "'table' names a part of the robot or the table"),
        ([{"name": "elbow"}], "'elbow' names a part of the robot"),
        ([{"name": "blue_box"}], "objects[0].name (blue_box): reads as a blue box's name"),
        ([{"name": "cube"}, {"color": "blue", "name": "cube"}], "objects[1] is named cube too"),
        ([{"name": "red_block_2"}, {}], "objects[0].name (red_block_2): objects[1] is named"),
    ],
)
def test_a_bad_name_is_a_one_line_invalid_scene(
    objects: list[dict[str, Any]], message: str
) -> None:
    specs = [{"type": "block", "color": "red", **o} for o in objects]
    with pytest.raises(InvalidSceneError, match=r"^[^\n]*$") as err:
        SceneSpec.load({"objects": specs})
    assert message in str(err.value)


def test_named_objects_are_read_by_their_colour_and_type(
    make_env: Callable[..., TabletopEnv],
) -> None:
    env = make_env(scene=NAMED_SCENE)
    env.reset(seed=0)
    assert env.object_names == ["brown_box", "red_block", "left_cube", "right_cube", "green_block"]
    world = env.world_state()
    assert (world.get("left_cube").color, world.get("left_cube").type) == ("blue", "block")
    plan = OfflinePlanner().plan("stack the blue blocks on the green block", env)
    assert [str(g) for g in plan.goal] == ["stacked(green_block, left_cube, right_cube)"]
    lines = describe_scene(env).splitlines()
    assert lines[2].startswith("- left_cube, a blue block (")
    assert lines[1].startswith("- red_block (") and "on/in brown_box" in lines[1]
    assert env.check(["in(red_block, brown_box)", "not(in(left_cube, brown_box))"]).success


# -- the step generator --------------------------------------------------------------------------


def steps_of(env: TabletopEnv, *goal: str) -> list[tuple[str, dict[str, Any]]]:
    calls = OfflinePlanner().steps([parse_predicate(g) for g in goal], env.world_state())
    return [(c.skill, c.args) for c in calls]


def test_negations_are_planned_for_or_refused(make_env: Callable[..., TabletopEnv]) -> None:
    env = make_env(scene=NAMED_SCENE)
    env.reset(seed=0)
    out = [("pick", {"object": "red_block"}),
           ("place", {"target": "brown_box", "relation": "next_to"})]  # fmt: skip
    assert steps_of(env, "not(in(red_block, brown_box))") == out
    assert steps_of(env, "not(on(red_block, brown_box))") == out
    assert steps_of(env, "not(in(left_cube, brown_box))", "not(holding(red_block))") == []
    into = steps_of(env, "not(in(red_block, brown_box))", "at(red_block, far right corner)")
    assert into == [("pick", {"object": "red_block"}),
                    ("place", {"target": "far right corner", "relation": "at"})]  # fmt: skip
    assert steps_of(env, "not(next_to(green_block, brown_box))") == []  # holds already
    apart = steps_of(env, "not(next_to(left_cube, brown_box))")  # 4.2 cm apart: moved away
    assert [skill for skill, _ in apart] == ["pick", "place"]
    region = apart[1][1]["target"]
    assert apart[1][1]["relation"] == "at"
    box = env.world_state().get("brown_box").xy
    assert np.hypot(*(np.array(REGIONS[region]) - box)) == pytest.approx(
        max(np.hypot(*(np.array(xy) - box)) for xy in REGIONS.values())
    )  # the region farthest from the box
    with pytest.raises(UnsupportedError, match=r"^not\(in\(red_block, brown_box\)\) and on\("):
        steps_of(env, "not(in(red_block, brown_box))", "on(red_block, brown_box)")
    literal = json.loads(literal_answer(Case(
        id="c", instruction="x", goal=["not(in(red_block, brown_box))", "not(holding(left_cube))"]
    )))  # fmt: skip
    assert [(s["skill"], s["args"]) for s in literal["steps"]] == out


def test_a_tower_is_built_bottom_up_on_a_base_moved_to_the_table(
    make_env: Callable[..., TabletopEnv],
) -> None:
    env = make_env(scene=NAMED_SCENE)
    env.reset(seed=0)
    steps = steps_of(env, "tower(red_block, left_cube, green_block)")
    assert steps == [
        ("pick", {"object": "red_block"}),
        ("place", {"target": "brown_box", "relation": "next_to"}),
        ("pick", {"object": "left_cube"}),
        ("place", {"target": "red_block", "relation": "on"}),
        ("pick", {"object": "green_block"}),
        ("place", {"target": "left_cube", "relation": "on"}),
    ]


# -- suites --------------------------------------------------------------------------------------


def case(**fields: Any) -> Case:
    return Case.model_validate({"id": "c", "instruction": "x", **fields})


def test_expect_error_may_list_the_kinds_accepted() -> None:
    either = case(expect_error=["ambiguous", "unparseable", "ambiguous"])
    assert either.expected_errors == ("ambiguous", "unparseable")
    assert either.accepts_error("unparseable") and not either.accepts_error("unsupported")
    assert not either.accepts_error(None)
    one = case(expect_error="ambiguous")
    assert one.expected_errors == ("ambiguous",) and case(goal=[]).expected_errors == ()
    for kinds, ok in ((["ambiguous", "unparseable"], True), (["unsupported"], False)):
        for error in ("ambiguous", "unparseable"):
            result = RunResult(instruction="x", success=False,
                               error=RunError(kind=error, message="m"))  # fmt: skip
            assert read_right(case(expect_error=kinds), result) is ok


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"expect_error": []}, "case c: expect_error: an empty list; give one kind or a list"),
        ({"expect_error": ["ambiguous", "bogus"]}, "case c: expect_error: 'bogus' is not an error"),
        ({"expect_error": "bogus"}, "'bogus' is not an error kind; allowed: unknown_object,"),
        ({"goal": ["at(red_block, center)"], "region_radius": 0}, "case c: region_radius"),
        ({"goal": ["at(red_block, center)"], "region_radius": 0.3}, "less than or equal to 0.25"),
        ({"goal": ["at(red_block, center)"], "region_radius": "0.1"}, "case c: region_radius"),
        ({"goal": ["not(not(on(red_block, blue_box)))"]}, "double negation"),
    ],
)
def test_bad_ground_truth_is_a_one_line_suite_error(
    tmp_path: Path, fields: dict[str, Any], message: str
) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({"cases": [{"id": "c", "instruction": "x", **fields}]}))
    with pytest.raises(InvalidSuiteError, match=r"^[^\n]*$") as err:
        load_suite(path)
    assert message in str(err.value)


def test_the_region_radius_judges_the_cases_at_goals(make_env: Callable[..., TabletopEnv]) -> None:
    """The green block stands 8 cm from the centre's anchor: at the case's 11 cm it is there."""
    scene = {"objects": [{"type": "block", "color": "green", "pose": [0.475 + 0.08, 0.0]}]}
    env = make_env(scene=scene)
    env.reset(seed=0)
    before = env.data.qpos.copy()
    done = RunResult(instruction="x", success=True)
    goal = ["at(green_block, center)"]
    assert judge(case(goal=goal, region_radius=0.11), env, done, before)[:2] == (True, "")
    success, reason, recall = judge(case(goal=goal), env, done, before)
    assert not success and recall == 0.0 and "(> 6.0 cm)" in reason
    error = RunError(kind="unsupported", message="m")
    wrong = RunResult(instruction="x", success=False, error=error)
    verdict = judge(case(expect_error=["ambiguous", "unparseable"]), env, wrong, before)
    assert verdict[:2] == (False, "expected error ambiguous or unparseable, got "
                                  "{'kind': 'unsupported', 'message': 'm'}")  # fmt: skip
    np.testing.assert_array_equal(env.data.qpos, before)


@pytest.mark.slow
def test_claw_eval_judges_the_new_ground_truth_on_physics(tmp_path: Path) -> None:
    """A tiny suite through ``claw eval --planner mock:oracle``: the oracle's steps come from the
    step generator, the verdicts from the settled state."""
    suite = {
        "name": "ground-truth",
        "scene": NAMED_SCENE,
        "cases": [
            {"id": "take-out", "instruction": "take the red block out of the brown box",
             "goal": ["not(in(red_block, brown_box))"]},
            {"id": "tower", "instruction": "build a tower of the blue blocks on the green one",
             "goal": ["tower(green_block, left_cube, right_cube)"]},
            {"id": "either", "instruction": "put the block in the box",
             "expect_error": ["ambiguous", "unparseable"]},
        ],
    }  # fmt: skip
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    out = tmp_path / "results.json"
    from claw.cli import main  # in this process: a fresh interpreter adds only imports

    with pytest.raises(SystemExit) as done:
        main(["eval", str(path), "--planner", "mock:oracle", "--json", str(out)])
    assert done.value.code == 0
    cases = {c["id"]: c for c in json.loads(out.read_text())["cases"]}
    assert all(c["success"] and c["read_right"] for c in cases.values()), cases
    assert cases["take-out"]["run"]["plan"] == [
        {"skill": "pick", "args": {"object": "red_block"}},
        {"skill": "place", "args": {"target": "brown_box", "relation": "next_to"}},
    ]
    assert [s["args"].get("object") for s in cases["tower"]["run"]["plan"][::2]] == [
        "left_cube", "right_cube"
    ]  # fmt: skip
