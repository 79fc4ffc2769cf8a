"""The skill protocol's typing and its one step result (issue 23): ``Skill[P]`` takes its
``Params`` from the type argument, a call's result names its arguments, and the world queries
that skills and planners ask live in ``claw.envs``."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from claw.envs import TabletopEnv, held_object, supported_by
from claw.skills import SkillResult, execute_calls, get_skill
from claw.skills.base import NoParams, Skill
from claw.skills.pick import PickParams
from claw.skills.push import PushParams


def test_the_type_argument_is_the_params_model() -> None:
    assert get_skill("pick").Params is PickParams
    assert get_skill("push", "learned").Params is PushParams  # inherited from the controller
    assert get_skill("home").Params is NoParams


def test_a_params_other_than_the_type_argument_is_refused() -> None:
    with pytest.raises(TypeError, match="type argument"):

        class Muddled(Skill[PickParams]):
            Params = PushParams

            def execute(self, env: TabletopEnv, params: PickParams) -> SkillResult:
                raise NotImplementedError


def test_a_result_names_its_call(make_env: Callable[..., TabletopEnv]) -> None:
    env = make_env(scene="stacked")
    env.reset(seed=0)
    direct = get_skill("pick")(env, object="red_block")  # refused: a tower stands on it
    assert not direct.success and direct.args == {"object": "red_block"}
    assert "green_block is on red_block" in direct.reason
    run = execute_calls(env, [{"skill": "pick", "args": {"object": "no_such_block"}}])
    (step,) = run.steps
    assert isinstance(step, SkillResult)
    assert (step.skill, step.args, step.error) == (
        "pick",
        {"object": "no_such_block"},
        "unknown_object",
    )


def test_world_queries_are_the_envs(make_env: Callable[..., TabletopEnv]) -> None:
    env = make_env(scene="stacked")
    env.reset(seed=0)
    world = env.world_state()
    assert held_object(world) is None
    assert supported_by(world, "red_block") == ["green_block"]
    assert sorted(supported_by(world, "gray_box")) == ["orange_block", "yellow_block"]
    assert supported_by(world, "blue_block") == []
