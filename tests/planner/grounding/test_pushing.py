"""Pushes from geometry (claw.planner.grounding.pushing): the push skill's move towards, away from,
or into a relation with another object, computed on a snapshot and run on MuJoCo physics, where the
relation asked for is judged on the settled state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from claw.envs import TabletopEnv, evaluate, geometry
from claw.envs.exceptions import PredicateError
from claw.planner.exceptions import UnsupportedError
from claw.planner.grounding.pushing import (
    TOWARDS_GAP,
    PushMove,
    push_away,
    push_towards,
    push_until,
)
from claw.skills import get_skill
from claw.skills.push import MAX_DISTANCE, TOLERANCE

MakeEnv = Callable[..., TabletopEnv]


def _scene(*objects: tuple[str, str, float, float, float]) -> dict[str, Any]:
    return {
        "name": "pushing",
        "objects": [
            {"type": kind, "color": color, "pose": [x, y, yaw]}
            for kind, color, x, y, yaw in objects
        ],
    }


def _block(
    color: str, x: float, y: float, yaw: float = 0.0
) -> tuple[str, str, float, float, float]:
    return ("block", color, x, y, yaw)


def _box(color: str, x: float, y: float, yaw: float = 0.0) -> tuple[str, str, float, float, float]:
    return ("box", color, x, y, yaw)


def _pushed(env: TabletopEnv, move: PushMove) -> None:
    """Run the push skill with the move, on physics; it must succeed."""
    outcome = get_skill("push")(env, **move.call().args)
    assert outcome.success, outcome.reason


def _gap(env: TabletopEnv, a: str, b: str) -> float:
    world = env.world_state()
    return geometry.polygon_gap(world.get(a).footprint(), world.get(b).footprint())


# -- push_until: the relation holds afterwards, on physics -----------------------------------------

UNTIL = [
    # scene, relation, reference, the direction the geometry calls for
    (_scene(_block("red", 0.45, -0.10), _block("blue", 0.52, 0.03)), "left_of", "blue_block",
     "left"),
    (_scene(_block("red", 0.45, 0.12, 20), _block("blue", 0.36, -0.02), _box("gray", 0.60, 0.25)),
     "right_of", "blue_block", "right"),
    (_scene(_block("red", 0.40, 0.09), _block("blue", 0.50, 0.0, 30)), "behind", "blue_block",
     "far"),
    (_scene(_block("red", 0.62, -0.05), _block("blue", 0.48, 0.02)), "in_front_of", "blue_block",
     "near"),
    (_scene(_block("red", 0.45, -0.15), _box("blue", 0.47, 0.12)), "next_to", "blue_box", "left"),
    (_scene(_block("red", 0.40, 0.0), _block("blue", 0.55, 0.12), _block("green", 0.55, -0.12)),
     "between", ("blue_block", "green_block"), "far"),
]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize(("scene", "relation", "ref", "direction"), UNTIL)
def test_push_until_makes_the_relation_hold(
    make_env: MakeEnv, scene: dict[str, Any], relation: str, ref: Any, direction: str
) -> None:
    env = make_env(scene=scene)
    env.reset(seed=0)
    refs = (ref,) if isinstance(ref, str) else ref
    goal = f"{relation}(red_block, {', '.join(refs)})"
    assert not evaluate(goal, env.world_state()).holds

    move = push_until(env.world_state(), "red_block", relation, ref)

    assert (move.object, move.direction) == ("red_block", direction)
    assert 0 < move.distance <= MAX_DISTANCE
    assert move.reason.startswith(f"{goal} holds once red_block is pushed")
    _pushed(env, move)
    result = evaluate(goal, env.world_state())
    assert result.holds, result.reason


def test_push_until_is_the_shortest_push_that_holds_with_the_margin(make_env: MakeEnv) -> None:
    """Short of the distance found, the relation fails within the push's tolerance somewhere."""
    env = make_env(scene=UNTIL[0][0])
    env.reset(seed=0)
    world = env.world_state()
    move = push_until(world, "red_block", "left_of", "blue_block")
    red, blue = world.get("red_block"), world.get("blue_block")
    lateral = abs(float(red.xy[0] - blue.xy[0]))
    # left_of asks for the offset along +y to reach the sideways offset: wherever within
    # TOLERANCE the block ends (at worst diagonally, the two change by TOLERANCE / sqrt 2 each),
    # pushed `distance` it does, and one grid step (5 mm) less it does not.
    spare = float(red.xy[1] + move.distance - blue.xy[1]) - lateral
    assert spare >= np.sqrt(2) * TOLERANCE > spare - 0.005


def test_push_until_says_when_nothing_is_to_be_pushed(make_env: MakeEnv) -> None:
    env = make_env(scene=_scene(_block("red", 0.45, 0.20), _block("blue", 0.45, -0.05)))
    env.reset(seed=0)
    move = push_until(env.world_state(), "red_block", "left_of", "blue_block")
    assert not move.needed and move.distance == 0.0
    assert move.reason.startswith("left_of(red_block, blue_block) holds already: ")
    with pytest.raises(ValueError, match="nothing to push"):
        move.call()


def test_push_until_refuses_what_a_push_cannot_reach(make_env: MakeEnv) -> None:
    env = make_env(scene=_scene(_block("red", 0.45, -0.10), _block("blue", 0.45, 0.05)))
    env.reset(seed=0)
    world = env.world_state()
    # Straight through blue_block: the only push that would make it hold is blocked.
    with pytest.raises(UnsupportedError) as blocked:
        push_until(world, "red_block", "left_of", "blue_block")
    assert str(blocked.value) == (
        "cannot push red_block until left_of(red_block, blue_block): "
        "blue_block is in the way of pushing red_block left"
    )
    with pytest.raises(UnsupportedError, match="cannot make on\\(red_block, blue_block\\) hold"):
        push_until(world, "red_block", "on", "blue_block")
    with pytest.raises(PredicateError, match="between takes 3 arguments, got 2"):
        push_until(world, "red_block", "between", "blue_block")
    with pytest.raises(PredicateError, match="unknown relation 'under'"):
        push_until(world, "red_block", "under", "blue_block")


# -- push_towards and push_away ------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "scene",
    [
        _scene(_block("red", 0.45, -0.15), _box("blue", 0.47, 0.12)),
        _scene(_block("red", 0.35, 0.05, 30), _box("blue", 0.60, 0.02)),
    ],
)
def test_push_towards_ends_next_to_the_reference(make_env: MakeEnv, scene: dict[str, Any]) -> None:
    env = make_env(scene=scene)
    env.reset(seed=0)
    move = push_towards(env.world_state(), "red_block", "blue_box")
    assert move.reason.endswith(f"ends {TOWARDS_GAP * 100:.1f} cm from blue_box")
    _pushed(env, move)
    assert abs(_gap(env, "red_block", "blue_box") - TOWARDS_GAP) <= TOLERANCE
    assert evaluate("next_to(red_block, blue_box)", env.world_state()).holds


def test_push_towards_refuses_a_reference_off_to_the_side(make_env: MakeEnv) -> None:
    env = make_env(scene=_scene(_block("red", 0.40, -0.20), _block("blue", 0.55, 0.02)))
    env.reset(seed=0)
    with pytest.raises(UnsupportedError) as refused:
        push_towards(env.world_state(), "red_block", "blue_block")
    message = str(refused.value)
    assert message.startswith("pushing red_block left brings it no nearer than ")
    assert message.endswith(
        "to blue_block (next to is 5.0 cm): blue_block is 15.0 cm off to the side"
    )


@pytest.mark.slow
def test_push_away_moves_it_farther(make_env: MakeEnv) -> None:
    env = make_env(scene=_scene(_block("red", 0.45, 0.0), _block("blue", 0.47, 0.14)))
    env.reset(seed=0)
    before = _gap(env, "red_block", "blue_block")
    move = push_away(env.world_state(), "red_block", "blue_block", distance=0.1)
    assert (move.direction, move.distance) == ("right", 0.1)
    _pushed(env, move)
    assert _gap(env, "red_block", "blue_block") == pytest.approx(before + 0.1, abs=TOLERANCE)


@pytest.mark.slow
def test_push_away_takes_the_other_axis_when_the_first_is_blocked(make_env: MakeEnv) -> None:
    # Away from blue is far (+x), but the gray box stands there: pushed left instead.
    env = make_env(
        scene=_scene(_block("red", 0.50, 0.0), _block("blue", 0.40, -0.05), _box("gray", 0.66, 0.0))
    )
    env.reset(seed=0)
    move = push_away(env.world_state(), "red_block", "blue_block", distance=0.08)
    assert move.direction == "left"
    _pushed(env, move)
    moved = env.world_state().get("red_block").xy
    assert np.linalg.norm(moved - np.array([0.50, 0.08])) <= TOLERANCE


def test_push_away_refuses_a_bad_distance_and_itself(make_env: MakeEnv) -> None:
    env = make_env(scene=_scene(_block("red", 0.45, 0.0), _block("blue", 0.47, 0.14)))
    env.reset(seed=0)
    world = env.world_state()
    with pytest.raises(UnsupportedError, match=r"at most 30\.0 cm, not 40\.0 cm"):
        push_away(world, "red_block", "blue_block", distance=0.4)
    with pytest.raises(UnsupportedError, match="relative to itself"):
        push_towards(world, "red_block", "red_block")
