"""Whatever a perceiver believes, runs and benchmarks are judged on the true state."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from claw.envs.predicates import Predicate
from claw.envs.state import WorldState
from claw.perception import Perception, Sensing, attach, register_perceiver, unregister_perceiver
from claw.perception.segment import ColouredPoints
from claw.skills.base import SkillResult
from claw.skills.bench import on_truth, pushed_on_truth
from tests.perception.test_registry import Blind


@pytest.fixture(autouse=True)
def blind() -> None:
    register_perceiver("blind", Blind)
    yield
    unregister_perceiver("blind")


def test_a_claimed_pick_is_judged_on_the_truth(make_env) -> None:
    env = make_env(scene="default")
    env.reset(seed=0)
    claimed = SkillResult(skill="pick", success=True)
    verdict = on_truth(Predicate.of("holding", "red_block"))
    assert verdict(env, claimed).success  # no perceiver: the skill's own check is the truth's
    attach(env, "blind")
    judged = verdict(env, claimed)
    assert not judged.success and "on the truth" in judged.reason


def test_a_claimed_push_is_judged_on_the_truth(make_env) -> None:
    env = make_env(scene="default")
    env.reset(seed=0)
    attach(env, "blind")
    start = env.true_world_state().get("red_block").xy.copy()
    args = {"object": "red_block", "direction": "left", "distance": 0.1}
    judged = pushed_on_truth(args, start)(env, SkillResult(skill="push", success=True))
    assert not judged.success  # it never moved


def test_sensing_checks_its_perceiver_and_turns_the_sensor_model_on() -> None:
    assert Sensing().reset_options() == {}
    options = Sensing(sensor_noise=True).reset_options()
    assert options["randomize"].sensor_noise is True
    from claw.perception import InvalidPerceptionError

    with pytest.raises(InvalidPerceptionError):
        Sensing(perception="sonar").check()


@pytest.mark.slow
def test_bench_skills_through_the_cameras_judges_the_truth() -> None:
    from claw.skills.bench import bench_skills

    result = bench_skills(episodes=1, tasks=False, sensing=Sensing(perception="camera"))
    assert result.sensing.perception == "camera"
    picks = next(r for r in result.rows if r["skill"] == "pick")
    assert picks["attempts"] >= 5 and picks["success_rate"] >= 0.8
    assert np.isfinite(result.wall_seconds)


SIZE_STACK = {
    "objects": [
        {"type": "block", "color": "blue", "size": 0.06, "pose": [0.45, 0.15]},
        {"type": "block", "color": "blue", "size": 0.04, "pose": [0.45, -0.15]},
        {"type": "block", "color": "red", "pose": [0.6, 0.0]},
    ]
}


def test_look_alikes_are_paired_with_the_truths_by_where_they_are(make_env) -> None:
    from claw.perception.link import align

    env = make_env(scene={"objects": [{"type": "block", "color": "red"}] * 3})
    env.reset(seed=0)
    truth = env.true_world_state()
    names = list(truth.objects)
    turned = [names[1], names[2], names[0]]
    swapped = {n: truth.objects[m] for n, m in zip(names, turned, strict=True)}
    believed = WorldState(
        objects={
            n: type(o)(n, o.type, o.position, o.rotation, o.half_extents, color=o.color)
            for n, o in swapped.items()
        }
    )
    assert align(believed, truth) == dict(zip(names, turned, strict=True))
    assert align(truth, truth) == {n: n for n in names}


class SwappedNames:
    """Perfect sight, but the two red blocks' names exchanged: a perceiver cannot tell
    look-alikes apart, so which it calls ``red_block`` is its own affair."""

    name = "swapped"
    SWAP = {"red_block": "red_block_2", "red_block_2": "red_block"}  # noqa: RUF012

    def reset(self, env: object, seed: int | None = None) -> None:
        pass

    def perceive(self, env) -> Perception:
        truth = env.true_world_state()

        def rename(names: frozenset[str]) -> frozenset[str]:
            return frozenset(self.SWAP.get(n, n) for n in names)

        objects = {
            self.SWAP.get(n, n): dataclasses.replace(o, name=self.SWAP.get(n, n))
            for n, o in truth.objects.items()
        }
        grippers = {
            arm: dataclasses.replace(
                g, left_contacts=rename(g.left_contacts), right_contacts=rename(g.right_contacts)
            )
            for arm, g in truth.grippers.items()
        }
        world = WorldState(
            objects=objects, gripper=grippers[truth.arm], grippers=grippers, arm=truth.arm
        )
        return Perception(world, {})

    def close(self) -> None:
        pass


@pytest.mark.slow
def test_a_run_is_judged_by_the_objects_its_perceiver_meant(make_env) -> None:
    """Whichever red block the perceiver calls ``red_block``, the run that moved the one the
    instruction named is judged a success, and on the truth."""
    from claw.runtime import make_planner, run_instruction

    scene = {
        "objects": [
            {"type": "block", "color": "red", "pose": [0.45, 0.2]},
            {"type": "block", "color": "red", "pose": [0.45, -0.2]},
        ]
    }
    env = make_env(scene=scene)
    env.reset(seed=0)
    belief = attach(env, SwappedNames())
    result = run_instruction(
        env, "put the red block on the left in the center", make_planner("offline")
    )
    assert result.success, (result.steps, result.goal)
    assert belief.truth_names == SwappedNames.SWAP
    at_centre = [n for n in ("red_block", "red_block_2") if env.check([f"at({n}, center)"]).success]
    assert len(at_centre) == 1


@pytest.mark.slow
def test_a_smaller_block_on_a_larger_one_of_its_colour_is_seen_as_two(make_env) -> None:
    from claw.skills.executor import execute_calls

    env = make_env(scene=SIZE_STACK)
    env.reset(seed=0)
    ran = execute_calls(
        env,
        [
            {"skill": "pick", "args": {"object": "blue_block_2"}},
            {"skill": "place", "args": {"target": "blue_block", "relation": "on"}},
        ],
    )
    assert ran.success
    attach(env, "camera")
    believed, truth = env.world_state(), env.true_world_state()
    for name in ("blue_block", "blue_block_2"):
        error = np.linalg.norm(believed.get(name).position - truth.get(name).position)
        assert error < 0.006, (name, error)
    assert abs(2 * believed.get("blue_block_2").half_extents[0] - 0.04) < 0.005


def test_a_covered_block_is_as_tall_as_the_gap_it_fills() -> None:
    from claw.perception.estimate import Detection, _covered_heights

    def block(z_top: float, size: float, name: str) -> Detection:
        centre = np.array([0.5, 0.1, z_top - size / 2])
        return Detection(name, "block", size, centre, 0.0, z_top, 100, {})

    # Two 4 cm blocks: the lower one's sides, fused from two views, read 5.6 cm wide.
    lower, upper = block(0.04, 0.056, "red"), block(0.08, 0.04, "blue")
    measured, same = _covered_heights([lower, upper])
    assert abs(measured.size - 0.04) < 1e-9 and abs(measured.centre[2] - 0.02) < 1e-9
    assert same is upper  # nothing on it: its top face gave its size


def _cube_sides(
    centre_xy: tuple[float, float], bottom: float, edge: float, rows: int = 21
) -> np.ndarray:
    """Points on the four side faces of a cube (what the cameras see of a covered block)."""
    along = np.linspace(-edge / 2, edge / 2, 21)
    up = np.linspace(bottom, bottom + edge, rows)
    a, z = np.meshgrid(along, up)
    a, z = a.ravel(), z.ravel()
    half = np.full_like(a, edge / 2)
    faces = [(a, half), (a, -half), (half, a), (-half, a)]
    xy = np.concatenate([np.stack(face, axis=1) for face in faces]) + np.array(centre_xy)
    return np.column_stack([xy, np.tile(z, 4)])


def _points(xyz: np.ndarray) -> ColouredPoints:
    eyes = np.tile(np.array([[1.2, 0.0]], np.float32), (len(xyz), 1))
    return ColouredPoints(
        xyz.astype(np.float32), xyz[:, 2].astype(np.float32), np.zeros(len(xyz), np.int64), eyes
    )


def test_stray_pixels_above_a_height_gap_do_not_raise_a_block() -> None:
    from claw.perception.estimate import detect

    sides = _cube_sides((0.5, 0.1), 0.0, 0.04, rows=5)  # 420 points, as far views see it
    # Pixels of the block above it matched to this colour (lighting noise): 20, about 5 %.
    stray = np.column_stack([np.full(20, 0.5), np.linspace(0.09, 0.11, 20), np.full(20, 0.08)])
    (block,) = detect([_points(np.concatenate([sides, stray]))], ("pink",))
    assert abs(block.top - 0.04) < 0.002 and abs(block.centre[2] - 0.02) < 0.003


def test_two_blocks_of_a_colour_with_another_between_them_are_two() -> None:
    from claw.perception.estimate import detect

    lower, upper = _cube_sides((0.5, 0.1), 0.0, 0.04), _cube_sides((0.5, 0.1), 0.08, 0.04)
    found = detect([_points(np.concatenate([lower, upper]))], ("pink",))
    assert sorted(round(d.top, 3) for d in found) == [0.04, 0.12]
