"""Order-aware planning: pushes where they were asked for, bases before towers, towers built
and taken apart, conflicts refused before anything moves — planned, then run on the physics."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from claw.envs import TabletopEnv
from claw.envs.predicates import parse_goal, parse_predicate
from claw.envs.regions import REGIONS
from claw.envs.state import ObjectState, WorldState
from claw.planner.exceptions import UnsupportedError
from claw.planner.grounding.conflicts import supports
from claw.planner.grounding.goals import goals_and_pushes
from claw.planner.language.grammar import parse_instruction
from claw.planner.offline import OfflinePlanner
from claw.planner.steps.room import box_in_region, stack_base
from claw.runtime import run_instruction
from claw.skills.placement import find_placement
from claw.skills.plans import SkillCall

FIVE = ["red", "green", "blue", "yellow", "orange"]
BOX = {"type": "box", "color": "gray"}


def block(color: str, on: str | None = None) -> dict[str, Any]:
    return {"type": "block", "color": color, **({"on": f"{on}_block"} if on else {})}


def tower(*colors: str, extra: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    """A scene with one tower, ``colors`` bottom-up, and ``extra`` objects."""
    below = [None, *colors[:-1]]
    return {"objects": [block(c, b) for c, b in zip(colors, below, strict=True)] + list(extra)}


def flat(*colors: str, extra: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    return {"objects": [block(c) for c in colors] + list(extra)}


def steps_of(calls: list[SkillCall]) -> list[tuple[str, ...]]:
    return [(c.skill, *(str(v) for v in c.args.values())) for c in calls]


def plan_in(make_env: Callable[..., TabletopEnv], scene: dict[str, Any], text: str) -> Any:
    env = make_env(scene=scene)
    env.reset(seed=0)
    return OfflinePlanner().plan(text, env)


# -- plans ---------------------------------------------------------------------------------------


def test_a_push_runs_where_it_was_asked_for(make_env: Callable[..., TabletopEnv]) -> None:
    text = "push the red block 5 cm left, then stack the blue block on the green block"
    plan = plan_in(make_env, flat("red", "green", "blue"), text)
    assert steps_of(plan.steps) == [
        ("push", "red_block", "left", "0.05"),
        ("pick", "blue_block"),
        ("place", "green_block", "on"),
    ]
    text = (
        "stack the blue block on the green block, then push the red block 5 cm left, "
        "then put the yellow block on the blue block"
    )
    plan = plan_in(make_env, flat("red", "green", "blue", "yellow"), text)
    assert steps_of(plan.steps) == [
        ("pick", "blue_block"),
        ("place", "green_block", "on"),
        ("push", "red_block", "left", "0.05"),  # between the two, not at the end
        ("pick", "yellow_block"),
        ("place", "blue_block", "on"),
    ]


def test_a_base_goes_to_its_place_before_its_tower(make_env: Callable[..., TabletopEnv]) -> None:
    text = "put the green block on the red block and put the red block in the box"
    plan = plan_in(make_env, flat("red", "green", extra=(BOX,)), text)
    assert steps_of(plan.steps) == [
        ("pick", "red_block"),
        ("place", "gray_box", "in"),
        ("pick", "green_block"),
        ("place", "red_block", "on"),
    ]


@pytest.mark.parametrize(
    ("scene", "text", "conflict"),
    [
        (
            flat("red", "blue"),
            "put the red block on the blue block and the blue block on the red block",
            "would rest on itself",
        ),
        (
            flat("red", "green", "blue"),
            "stack the red, green and blue blocks and put the blue block on the red block",
            "cannot rest on both",
        ),
        (
            flat("red", extra=(BOX,)),
            "put the red block in the box, then push the red block 5 cm left",
            "would undo",
        ),
        (
            flat("red", "green"),
            "put the green block on the red block, then push the red block left",
            "would undo",
        ),
    ],
)
def test_goals_no_order_reaches_are_refused_before_anything_moves(
    make_env: Callable[..., TabletopEnv], scene: dict[str, Any], text: str, conflict: str
) -> None:
    env = make_env(scene=scene)
    env.reset(seed=0)
    with pytest.raises(UnsupportedError, match=conflict):
        OfflinePlanner().plan(text, env)
    before = env.world_state()
    result = run_instruction(env, text, OfflinePlanner())
    assert not result.success and result.error is not None
    assert result.error.kind == "unsupported" and result.steps == []
    assert all(
        abs(env.world_state().get(n).xy - o.xy).max() < 1e-3 for n, o in before.objects.items()
    )


@pytest.mark.parametrize(
    "text",
    [
        "unstack the tower",
        "unstack the blocks",
        "take the tower apart",
        "dismantle the stack",
        "put every block on the table",
        "put all the blocks back on the table",
        "take the blocks off the red block",
        "take the green and blue blocks off the red block",
    ],
)
def test_unstacking_phrases_take_a_tower_down_top_first(
    make_env: Callable[..., TabletopEnv], text: str
) -> None:
    plan = plan_in(make_env, tower("red", "green", "blue"), text)
    assert [str(p) for p in plan.goal] == [
        "next_to(blue_block, red_block)",
        "next_to(green_block, red_block)",
    ]
    assert steps_of(plan.steps) == [
        ("pick", "blue_block"),
        ("place", "red_block", "next_to"),
        ("pick", "green_block"),
        ("place", "red_block", "next_to"),
    ]


def test_unstacking_reads_without_a_scene_only_as_a_request() -> None:
    requests = parse_instruction("unstack the tower, then put the red block in the box")
    assert [r.action for r in requests] == ["unstack", "place"]
    with pytest.raises(UnsupportedError, match="unstacking needs the scene"):
        goals_and_pushes(requests, ["red_block", "gray_box"])
    # "put the red block down" still names no place
    with pytest.raises(UnsupportedError, match="unnamed spot"):
        goals_and_pushes(parse_instruction("put the red block down"), ["red_block"])


def test_a_block_under_others_is_cleared_top_first(make_env: Callable[..., TabletopEnv]) -> None:
    """Blocks on the one to move go, top first, to free regions (not crowding its sides)."""
    scene = tower("red", "green", "blue", extra=(BOX,))
    plan = plan_in(make_env, scene, "put the red block in the box")
    steps = steps_of(plan.steps)
    assert [s[:2] for s in steps[::2]] == [("pick", "blue_block"), ("pick", "green_block"),
                                           ("pick", "red_block")]  # fmt: skip
    asides = [plan.steps[k].args for k in (1, 3)]
    assert all(a["relation"] == "at" for a in asides)
    assert asides[0]["target"] != asides[1]["target"]
    assert steps[-1] == ("place", "gray_box", "in")
    # the top block is picked straight off the tower
    plan = plan_in(make_env, scene, "put the blue block in the box")
    assert steps_of(plan.steps) == [("pick", "blue_block"), ("place", "gray_box", "in")]
    # the target higher up the mover's own tower comes off with the rest, then the mover goes on
    plan = plan_in(make_env, tower("red", "green", "blue"), "put the red block on the blue block")
    assert [s[:2] for s in steps_of(plan.steps)[::2]] == [
        ("pick", "blue_block"),
        ("pick", "green_block"),
        ("pick", "red_block"),
    ]
    assert steps_of(plan.steps)[-1] == ("place", "blue_block", "on")


# -- on the physics, over seeds ------------------------------------------------------------------

PHYSICS: list[tuple[str, dict[str, Any], str, list[str]]] = [
    ("push-first", flat("red", "green", "blue"),
     "push the red block 5 cm left, then stack the blue block on the green block",
     ["on(blue_block, green_block)"]),
    ("push-between", flat("red", "green", "blue", "yellow"),
     "stack the blue block on the green block, then push the red block 5 cm left, then put the "
     "yellow block on the blue block", ["stacked(green_block, blue_block, yellow_block)"]),
    ("base-first", flat("red", "green", extra=(BOX,)),
     "put the green block on the red block and put the red block in the box",
     ["on(green_block, red_block)", "in(red_block, gray_box)"]),
    ("tower-of-five", flat(*FIVE), "stack all the blocks",
     [f"stacked({', '.join(f'{c}_block' for c in FIVE)})"]),
    ("unstack-five", tower(*FIVE), "put every block on the table",
     [f"next_to({c}_block, red_block)" for c in FIVE[1:]]),
    ("unstack", tower("red", "green", "blue"), "unstack the tower",
     ["next_to(green_block, red_block)", "next_to(blue_block, red_block)"]),
    ("off", tower("red", "green", "blue"), "take the blocks off the red block",
     ["next_to(green_block, red_block)", "next_to(blue_block, red_block)"]),
    ("top-of-stack", tower("red", "green", "blue", extra=(BOX,)), "put the blue block in the box",
     ["in(blue_block, gray_box)", "on(green_block, red_block)"]),
    ("clear-then-move", tower("red", "green", "blue", extra=(BOX,)),
     "put the red block in the box", ["in(red_block, gray_box)"]),
    ("move-a-tower", tower("red", "green", extra=(BOX,)),
     "put the red block in the box and put the green block on the red block",
     ["in(red_block, gray_box)", "on(green_block, red_block)"]),
]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize(("name", "scene", "text", "goal"), PHYSICS, ids=[p[0] for p in PHYSICS])
@pytest.mark.parametrize("seed", [0, 1, 7])
def test_on_physics(
    make_env: Callable[..., TabletopEnv],
    name: str,
    scene: dict[str, Any],
    text: str,
    goal: list[str],
    seed: int,
) -> None:
    env = make_env(scene=scene)
    env.reset(seed=seed)
    start = env.world_state().get("red_block").xy.copy()
    result = run_instruction(env, text, OfflinePlanner())
    assert result.success, (result.error, [s for s in result.steps if not s.success])
    assert result.replans == 0
    assert env.check(goal).success
    if name.startswith("push"):  # the push ran, and moved the red block left (+y)
        assert env.world_state().get("red_block").xy[1] - start[1] > 0.03


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 3])
def test_a_tower_at_a_region_is_built_on_a_base_placed_there(
    make_env: Callable[..., TabletopEnv], seed: int
) -> None:
    """stacked(...) with at(..., R) for every block: the base goes to R, the tower on it."""
    from claw.skills.executor import execute_calls

    env = make_env(scene=flat("red", "green", "blue"))
    env.reset(seed=seed)
    region = "near right corner"
    goal = [
        "stacked(red_block, green_block, blue_block)",
        *(f"at({c}_block, {region})" for c in ("red", "green", "blue")),
    ]
    steps = OfflinePlanner().steps(parse_goal(goal), env.world_state())
    relations = [s.args["relation"] for s in steps if s.skill == "place"]
    assert relations.count("on") == 2  # the tower is built once ...
    assert "at" not in relations[relations.index("on") :]  # ... and nothing carried off it
    assert execute_calls(env, steps).success
    assert env.check(goal).success


@pytest.mark.slow
def test_a_full_region_takes_more_blocks_stacked_on_those_there(
    make_env: Callable[..., TabletopEnv],
) -> None:
    """Six blocks at one region: four fit on the table there; the place that finds no spot says
    so, and the replan stacks the rest on blocks already there (each still at the region)."""
    colors = [*FIVE, "purple"]
    env = make_env(scene=flat(*colors))
    env.reset(seed=3)
    result = run_instruction(env, "put all the blocks at the center", OfflinePlanner())
    assert result.success, (result.error, [s for s in result.steps if not s.success])
    failed = [s for s in result.steps if not s.success]
    assert result.replans == len(failed) == 1 and "no free spot" in failed[0].reason
    assert env.check([f"at({c}_block, center)" for c in colors]).success
    assert len(supports(env.world_state())) == 2  # two blocks, each on one standing there


def test_a_stack_base_is_a_block_there_that_nothing_else_needs() -> None:
    placed: list[ObjectState] = []
    for name in ("red_block", "green_block", "blue_block", "yellow_block"):
        held = ObjectState.make(name, "block", (0.5, -0.3, 0.3), size=0.04)
        p = find_placement(WorldState.from_objects([*placed, held]), name, "at", "center")
        placed.append(ObjectState.make(name, "block", (p.x, p.y, 0.02), yaw=p.yaw, size=0.04))
    orange = ObjectState.make("orange_block", "block", (0.5, -0.3, 0.02), size=0.04)
    world = WorldState.from_objects([*placed, orange])
    goal = parse_goal(f"at({o.name}, center)" for o in [*placed, orange])
    base = stack_base(world, "orange_block", "center", goal, set(), set())
    assert base is not None
    anchor = np.array(REGIONS["center"])
    nearest = min(placed, key=lambda o: float(np.linalg.norm(o.xy - anchor))).name
    assert base == nearest
    assert stack_base(world, "orange_block", "center", goal, set(), {nearest}) not in (
        None,
        nearest,
    )
    busy = [*goal, parse_predicate(f"on(red_block, {nearest})")]  # another goal puts one on it
    assert stack_base(world, "orange_block", "center", busy, set(), set()) != nearest
    assert stack_base(world, "orange_block", "far left corner", goal, set(), set()) is None  # none


@pytest.mark.parametrize(("away", "serves"), [(0.0, True), (0.059, True), (0.14, False)])
def test_a_box_serves_a_region_where_the_block_lands_in_it_at_the_region(
    away: float, serves: bool
) -> None:
    """What counts is where the block lands: a box standing 5.9 cm from the anchor (its centre
    outside a 6 cm radius less a margin) still holds a block within it, one 14 cm away not."""
    x, y = REGIONS["left side"]
    box = ObjectState.make("gray_box", "box", (x + away, y, 0.025))
    held = ObjectState.make("red_block", "block", (0.5, -0.2, 0.3), size=0.04)
    world = WorldState.from_objects([box, held])
    assert box_in_region(world, "red_block", "left side") == ("gray_box" if serves else None)
