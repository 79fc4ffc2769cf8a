"""Perceivers by name: the built-in ones, a user's own (object or reference), clear errors."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from claw.envs import TabletopEnv
from claw.perception import (
    InvalidPerceptionError,
    Perceiver,
    Perception,
    attach,
    make_perceiver,
    perceiver_names,
    register_perceiver,
    unregister_perceiver,
)
from claw.perception.truth import TruthPerceiver


class Blind:
    """A user's perceiver that sees nothing at all."""

    name = "blind"

    def reset(self, env: TabletopEnv, seed: int | None = None) -> None:
        self.resets = getattr(self, "resets", 0) + 1

    def perceive(self, env: TabletopEnv) -> Perception:
        truth = env.true_world_state()
        world = type(truth)(objects={}, gripper=truth.gripper, unseen=tuple(truth.objects))
        return Perception(world, {}, tuple(truth.objects))

    def close(self) -> None:
        pass


@pytest.fixture
def blind() -> Iterator[str]:
    register_perceiver("blind", Blind)
    yield "blind"
    unregister_perceiver("blind")


def test_the_built_in_perceivers_are_listed_first() -> None:
    assert perceiver_names()[:2] == ["truth", "camera"]


def test_an_unknown_perceiver_names_those_there_are() -> None:
    with pytest.raises(
        InvalidPerceptionError, match=r"unknown perceiver 'lidar'; allowed: truth, camera"
    ):
        make_perceiver("lidar")


def test_a_factory_that_makes_no_perceiver_is_refused() -> None:
    register_perceiver("number", lambda: 42)
    try:
        with pytest.raises(InvalidPerceptionError, match="not a Perceiver"):
            make_perceiver("number")
    finally:
        unregister_perceiver("number")


def test_options_the_factory_does_not_take_are_refused() -> None:
    with pytest.raises(InvalidPerceptionError, match="does not take"):
        make_perceiver("truth", cameras=("front",))


@pytest.mark.parametrize("factory", [Blind, "tests.perception.test_registry:Blind"])
def test_a_users_perceiver_plugs_in_by_name(factory: object, make_env) -> None:
    register_perceiver("mine", factory)  # type: ignore[arg-type]
    try:
        made = make_perceiver("mine")
        assert isinstance(made, Perceiver) and made.name == "blind"
        env = make_env(scene="default")
        env.reset(seed=0)
        belief = attach(env, "mine")
        assert env.world_state().objects == {}
        assert env.world_state().unseen == tuple(env.object_names)
        assert env.check(["not(holding(red_block))"]).success  # judged on the truth
        belief.detach()
        assert env.world_state().names == env.object_names
    finally:
        unregister_perceiver("mine")


def test_truth_is_the_simulators_state(make_env) -> None:
    env = make_env(scene="stacked")
    env.reset(seed=3)
    perception = TruthPerceiver().perceive(env)
    truth = env.true_world_state()
    assert perception.unseen == ()
    for name, obj in truth.objects.items():
        assert (perception.world.get(name).position == obj.position).all()


def test_a_perceiver_restarts_at_each_episode(make_env, blind: str) -> None:
    env = make_env(scene="default")
    env.reset(seed=0)
    belief = attach(env, blind)
    env.world_state()
    env.world_state()  # no time passed: the same estimate
    env.reset(seed=1)
    env.world_state()
    assert belief.perceiver.resets == 2  # type: ignore[attr-defined]
    assert len(belief.seconds) == 2
