"""Issue 37's hardening findings on the model's side: a gzip bomb of an answer, the instruction
caps under the hybrid and the LLM planner, a planner name nested without end, an instruction
that is not text, a goal-mode answer with no goal, and what ``register_planner`` accepts."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import claw.eval  # noqa: F401  (registers replay:FILE and mock:*)
from claw.envs import TabletopEnv
from claw.planner import registry
from claw.planner.exceptions import (
    InvalidPlannerError,
)
from claw.planner.llm import LLMPlanner
from claw.planner.offline import OfflinePlanner
from claw.runtime import make_planner, parse_planner, register_planner

INSTRUCTION = "put the red block in the blue box"
GOAL = {"goal": ["in(red_block, blue_box)"], "steps": [], "error": None}
KEY = "sk-test-round3-0123456789abcdef"
ClawRun = Callable[..., subprocess.CompletedProcess[str]]

pytestmark = pytest.mark.usefixtures("library_home")


def counted(*answers: str) -> tuple[LLMPlanner, list[int]]:
    """A mocked LLM planner answering ``answers`` in turn, and the list its calls go into."""
    calls: list[int] = []
    replies = iter(answers)

    def answer(messages: list[dict[str, str]]) -> str:
        calls.append(len(calls))
        return next(replies)

    return LLMPlanner("gpt-4o-mini", mock=answer, backoff=0.0), calls


def one_line(result: subprocess.CompletedProcess[str], kind: str) -> str:
    assert "Traceback" not in result.stderr + result.stdout, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {kind}: "), result.stderr[-2000:]
    return lines[0]


@pytest.fixture
def own_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Families registered in a test are gone after it."""
    monkeypatch.setattr(registry, "_families", dict(registry._families))
    yield


# -- finding 6: a planner name nested without end -----------------------------------------------


def test_a_hybrid_nested_a_thousand_times_is_one_line(claw_in_process: ClawRun) -> None:
    name = "offline+" * 1000 + "gpt-4o-mini"
    with pytest.raises(
        InvalidPlannerError, match=r"hands over to a model, not to 'offline\+offline\+"
    ):
        parse_planner(name)
    result = claw_in_process("eval", "basic", "--planner", name, "--limit", "1")
    assert result.returncode == 2
    assert len(one_line(result, "invalid_input")) < 400


# -- finding 14: a goal-mode answer with no goal is repaired ------------------------------------


def test_a_goal_mode_answer_of_picks_and_places_without_a_goal_is_repaired(
    env: TabletopEnv,
) -> None:
    goalless = {
        "goal": [],
        "steps": [
            {"skill": "pick", "args": {"object": "red_block"}},
            {"skill": "place", "args": {"target": "blue_box", "relation": "in"}},
        ],
        "error": None,
    }
    llm, calls = counted(json.dumps(goalless), json.dumps(GOAL))
    llm.mode = "goal"
    plan = llm.plan(INSTRUCTION, env)
    assert [str(p) for p in plan.goal] == GOAL["goal"] and plan.steps
    assert len(calls) == 2
    repair = llm.messages[-2]["content"]
    assert "goal mode" in repair and "pick" in repair


# -- finding 22: what register_planner accepts --------------------------------------------------


def _nothing(context: Any) -> Any:
    return None


@pytest.mark.usefixtures("own_registry")
@pytest.mark.parametrize("name", ["offline", "model", "local", "offline+", "replay", "mock"])
def test_claws_own_families_cannot_be_replaced(name: str) -> None:
    with pytest.raises(ValueError, match="claw's own"):
        register_planner(name, _nothing, takes_argument=name in ("offline+", "replay", "mock"))
    assert isinstance(make_planner("offline"), OfflinePlanner)


@pytest.mark.usefixtures("own_registry")
@pytest.mark.parametrize("name", ["\x1b[31mred", "echo\x07", "Echo Two", "é", "x" * 41, "a+b"])
def test_a_family_name_is_a_plain_word(name: str) -> None:
    with pytest.raises(ValueError, match="a planner family's name") as caught:
        register_planner(name, _nothing)
    assert "\x1b" not in str(caught.value) and "\x07" not in str(caught.value)


@pytest.mark.usefixtures("own_registry")
def test_a_familys_usage_has_no_control_characters() -> None:
    with pytest.raises(ValueError, match="usage"):
        register_planner("echo", _nothing, usage="echo\x1b[2J")


@pytest.mark.usefixtures("own_registry")
def test_a_factory_that_builds_no_planner_is_one_line(claw_in_process: ClawRun) -> None:
    with pytest.raises(TypeError, match="callable"):
        register_planner("broken", "not a function")  # type: ignore[arg-type]
    register_planner("nothing", _nothing)
    with pytest.raises(InvalidPlannerError, match="'nothing' built no planner"):
        make_planner("nothing")
    result = claw_in_process(INSTRUCTION, "--planner", "nothing")
    assert result.returncode == 2 and "built no planner" in one_line(result, "invalid_input")


def test_a_family_may_register_itself_again(own_registry: None) -> None:
    register_planner("twice", _nothing)
    register_planner("twice", lambda context: OfflinePlanner(), usage="twice")
    assert isinstance(make_planner("twice"), OfflinePlanner)
