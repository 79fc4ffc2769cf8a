"""Whatever a perceiver believes, runs and benchmarks are judged on the true state."""

from __future__ import annotations

import numpy as np
import pytest

from claw.envs.predicates import Predicate
from claw.perception import Sensing, attach, register_perceiver, unregister_perceiver
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
