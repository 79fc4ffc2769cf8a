"""``between(a, b, c)``: the predicate's geometry on snapshots, the relation of two targets in the
registry, the prompt and the plan schema, and ``place`` putting a block between two others on
MuJoCo physics (judged by the predicate on the settled state)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError

from claw.envs import TabletopEnv, evaluate
from claw.envs.exceptions import PredicateError
from claw.envs.predicates import PREDICATES, parse_predicate, predicate_signatures
from claw.envs.relations import Placing, Relation, register_relation, relation
from claw.envs.spatial import BETWEEN_MARGIN, band, between
from claw.envs.state import ObjectState, WorldState
from claw.eval.mocks import literal_answer
from claw.eval.suite import Case
from claw.planner.llm.prompting import template
from claw.planner.llm.schema import plan_schema
from claw.planner.offline import OfflinePlanner
from claw.skills.executor import execute_calls
from claw.skills.place import PlaceParams
from claw.skills.placement import find_placement, holds_with_margin

MakeEnv = Callable[..., TabletopEnv]
GOAL = "between(red_block, blue_block, green_block)"


def _block(name: str, x: float, y: float, z: float = 0.02, yaw: float = 0.0) -> ObjectState:
    return ObjectState.make(name, "block", (x, y, z), yaw=yaw, size=0.04)


def _world(red: tuple[float, float], red_z: float = 0.02) -> WorldState:
    """Blue and green blocks 30 cm apart along y at x = 0.45, and the red block at ``red``."""
    return WorldState.from_objects([
        _block("red_block", *red, z=red_z),
        _block("blue_block", 0.45, 0.15),
        _block("green_block", 0.45, -0.15),
    ])  # fmt: skip


# -- the predicate ---------------------------------------------------------------------------------


def test_between_holds_in_the_band_and_says_so() -> None:
    result = evaluate(GOAL, _world((0.46, 0.02)))
    assert result.holds
    assert result.reason == (
        "red_block is 1.0 cm off the line from blue_block to green_block (≤ 5.0 cm), "
        "11.0 cm past blue_block's edge and 15.0 cm short of green_block's"
    )
    assert result.measured["lateral_limit"] == pytest.approx(0.02 + BETWEEN_MARGIN)
    # The order of the two references does not matter.
    assert evaluate("between(red_block, green_block, blue_block)", _world((0.46, 0.02))).holds


@pytest.mark.parametrize(
    ("red", "why"),
    [
        ((0.51, 0.0), "red_block is 6.0 cm off the line from blue_block to green_block (> 5.0 cm)"),
        ((0.45, 0.30), "red_block's centre is 17.0 cm short of blue_block's edge facing "
                       "green_block"),
        ((0.45, -0.14), "red_block's centre is 1.0 cm past green_block's edge facing blue_block"),
    ],
)  # fmt: skip
def test_between_fails_outside_the_band(red: tuple[float, float], why: str) -> None:
    result = evaluate(GOAL, _world(red))
    assert not result.holds
    assert result.reason == why


def test_between_asks_for_the_table_and_three_objects() -> None:
    on_blue = evaluate(GOAL, _world((0.45, 0.15), red_z=0.06))
    assert not on_blue.holds and on_blue.reason == "red_block is on/in blue_block"
    lifted = evaluate(GOAL, _world((0.45, 0.0), red_z=0.10))
    assert not lifted.holds and "not on the table" in lifted.reason
    world = _world((0.45, 0.0))
    same = between(world, world.get("red_block"), world.get("blue_block"), world.get("blue_block"))
    assert not same.holds and "three different objects" in same.reason


def test_touching_references_leave_no_room() -> None:
    world = WorldState.from_objects([
        _block("red_block", 0.45, 0.0), _block("blue_block", 0.45, 0.02),
        _block("green_block", 0.45, -0.02),
    ])  # fmt: skip
    assert evaluate(GOAL, world).reason == "blue_block and green_block leave no room between them"


def test_a_wrong_arity_is_a_one_line_error() -> None:
    with pytest.raises(PredicateError) as error:
        parse_predicate("between(red_block, blue_block)")
    assert str(error.value) == "between takes 3 arguments, got 2: between(red_block, blue_block)"
    assert "\n" not in str(error.value)
    assert PREDICATES["between"] == (3, 3)
    assert str(parse_predicate("in between(red_block, blue_block, green_block)")) == GOAL


# -- the registry, the prompt and the schema -----------------------------------------------------


def test_a_relation_of_two_targets_reaches_the_prompt_and_the_schema() -> None:
    assert relation("between").arity == 3
    assert "between(a, b, c)" in predicate_signatures()
    assert "between(a, b, c)" in template("system")
    schema = plan_schema(["place"], ["red_block", "blue_block", "green_block"], 4)
    args = schema["properties"]["steps"]["items"]["anyOf"][0]["properties"]["args"]["properties"]
    assert "between" in args["relation"]["enum"]
    assert {"type": "string", "enum": ["red_block", "blue_block", "green_block"]} in args[
        "target2"
    ]["anyOf"]


def test_place_params_ask_for_two_targets_exactly_for_between() -> None:
    params = PlaceParams(target="blue_block", relation="between", target2="green_block")
    assert params.object_names() == ["green_block"]
    assert PlaceParams(target="blue_block", relation="on").object_names() == []
    with pytest.raises(ValidationError, match="between takes two targets: target and target2"):
        PlaceParams(target="blue_block", relation="between")
    with pytest.raises(ValidationError, match="on takes one target; target2 is for between only"):
        PlaceParams(target="blue_block", relation="on", target2="green_block")


@pytest.mark.parametrize(
    "declared",
    [
        Relation("amid", between, Placing("between"), targets=2),  # one name in argument
        Relation("amid", between, Placing("between"), argument="b, c", targets=3),
        Relation("amid", between, Placing("adjacent"), argument="b, c", targets=2),
        Relation("amid", between, Placing("between")),  # a between placing of one target
    ],
)
def test_a_badly_declared_relation_of_two_targets_is_refused(declared: Relation) -> None:
    with pytest.raises(PredicateError):
        register_relation(declared)


def test_the_searchs_mirror_agrees_with_the_predicate() -> None:
    world = WorldState.from_objects([
        _block("red_block", 0.3, 0.3), _block("blue_block", 0.40, 0.12, yaw=0.4),
        _block("green_block", 0.55, -0.10, yaw=-0.3),
    ])  # fmt: skip
    points = np.random.default_rng(0).uniform((0.3, -0.2), (0.65, 0.2), size=(400, 2))
    mirror = holds_with_margin(
        world, "red_block", "between", "blue_block", points, 0.0, target2="green_block"
    )
    red = world.get("red_block")
    real = [evaluate(GOAL, _moved(world, red, p)).holds for p in points]
    assert mirror.tolist() == real
    assert 20 < sum(real) < 380  # both answers are well represented
    assert band(world.get("blue_block"), world.get("green_block")).contains(points).sum() >= sum(
        real
    )


def _moved(world: WorldState, obj: ObjectState, xy: Any) -> WorldState:
    placed = ObjectState.make(obj.name, obj.type, (xy[0], xy[1], 0.02), yaw=obj.yaw, size=0.04)
    return WorldState({**world.objects, obj.name: placed}, None, world.table_z)


def test_placement_refuses_a_pair_with_no_room() -> None:
    world = WorldState.from_objects([
        _block("red_block", 0.3, 0.3), _block("blue_block", 0.45, 0.03),
        _block("green_block", 0.45, -0.03),
    ])  # fmt: skip
    with pytest.raises(Exception, match="no free spot between blue_block and green_block"):
        find_placement(world, "red_block", "between", "blue_block", target2="green_block")
    with pytest.raises(PredicateError, match="between takes two targets"):
        find_placement(world, "red_block", "between", "blue_block")


# -- on physics ------------------------------------------------------------------------------------

PAIR_SCENE: dict[str, Any] = {
    "name": "pair",
    "objects": [
        {"type": "block", "color": "red", "pose": [0.35, 0.25]},
        {"type": "block", "color": "blue", "pose": [0.42, 0.10, 25]},
        {"type": "block", "color": "green", "pose": [0.60, -0.12, -40]},
        {"type": "box", "color": "gray", "pose": [0.55, 0.20]},
    ],
}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scene", "seed"), [("default", 0), ("default", 2), ("default", 3), (PAIR_SCENE, 0)]
)
def test_place_puts_the_red_block_between_the_blue_and_green_ones(
    make_env: MakeEnv, scene: Any, seed: int
) -> None:
    env = make_env(scene=scene)
    env.reset(seed=seed)
    assert not evaluate(GOAL, env.world_state()).holds
    calls = [
        {"skill": "pick", "args": {"object": "red_block"}},
        {
            "skill": "place",
            "args": {"target": "blue_block", "relation": "between", "target2": "green_block"},
        },
    ]
    result = execute_calls(env, calls)
    assert result.success, [s.reason for s in result.steps]
    assert env.check([GOAL]).success  # holds, at rest, the claw empty


@pytest.mark.slow
def test_a_between_goal_plans_and_reaches_on_physics(make_env: MakeEnv) -> None:
    env = make_env(scene=PAIR_SCENE)
    env.reset(seed=0)
    goal = [parse_predicate(GOAL)]
    steps = OfflinePlanner().steps(goal, env.world_state())
    assert [(s.skill, s.args) for s in steps] == [
        ("pick", {"object": "red_block"}),
        ("place", {"target": "blue_block", "relation": "between", "target2": "green_block"}),
    ]
    assert execute_calls(env, steps).success
    assert env.check([GOAL]).success


def test_a_place_between_without_its_second_target_moves_nothing(make_env: MakeEnv) -> None:
    env = make_env(scene=PAIR_SCENE)
    env.reset(seed=0)
    before = env.world_state().get("red_block").xy.copy()
    calls = [
        {"skill": "pick", "args": {"object": "red_block"}},
        {"skill": "place", "args": {"target": "blue_block", "relation": "between"}},
    ]
    result = execute_calls(env, calls)
    assert not result.success
    assert result.steps[-1].error == "invalid_params"
    assert "between takes two targets" in result.steps[-1].reason
    assert np.allclose(env.world_state().get("red_block").xy, before)


def test_the_literal_mock_places_between_both_targets() -> None:
    answer = json.loads(literal_answer(Case(id="c", instruction="x", goal=[GOAL])))
    assert answer["steps"][1]["args"] == {
        "target": "blue_block", "relation": "between", "target2": "green_block"
    }  # fmt: skip
