"""Issue 37's hardening findings on the model's side: a gzip bomb of an answer, the instruction
caps under the hybrid and the LLM planner, a planner name nested without end, an instruction
that is not text, a goal-mode answer with no goal, and what ``register_planner`` accepts."""

from __future__ import annotations

import json
import subprocess
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import claw.eval  # noqa: F401  (registers replay:FILE and mock:*)
from claw.envs import TabletopEnv
from claw.planner import registry
from claw.planner.exceptions import (
    InvalidPlannerError,
    PlannerUnavailableError,
    UnparseableError,
)
from claw.planner.llm.hybrid import HybridPlanner
from claw.planner.llm.planner import LLMPlanner
from claw.planner.offline import OfflinePlanner
from claw.runtime import make_planner, parse_planner, register_planner, run_instruction
from tests.fake_server import Script, completion, fake_server

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


# -- finding 2: a gzip-encoded answer is bounded as it is decoded -------------------------------


def test_a_gzip_bomb_is_cut_off_as_it_is_decoded(env: TabletopEnv) -> None:
    script = Script(answers=[json.dumps(GOAL)])
    with fake_server(script) as url:
        llm = LLMPlanner("openai/test-model", api_base=url, api_key=KEY, max_repairs=0)
        llm.plan(INSTRUCTION, env)  # litellm's lazy imports happen here, outside the measure
        script.bomb = 64 * 2**20  # 64 MiB decoded, 64 KiB on the wire
        tracemalloc.start()
        try:
            with pytest.raises(PlannerUnavailableError, match="over 16 MiB decoded") as caught:
                llm.plan(INSTRUCTION, env)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 32 * 2**20, f"peak {peak / 2**20:.0f} MiB"  # 272 MiB before the bound
    assert len(script.requests) == 2  # the bomb is not asked for again
    assert script.accepted == ["gzip, deflate"] * 2
    assert "gzip" in str(caught.value)


def test_a_plain_answer_over_the_body_cap_is_refused_too(
    env: TabletopEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    from claw.planner.llm import bodies

    monkeypatch.setattr(bodies, "MAX_BODY_BYTES", 4096)
    script = Script(answers=[json.dumps({**GOAL, "pad": "x" * 8000})])
    with fake_server(script) as url:
        llm = LLMPlanner("openai/test-model", api_base=url, api_key=KEY)
        with pytest.raises(PlannerUnavailableError, match="over 4 KiB decoded"):
            llm.plan(INSTRUCTION, env)
    assert len(script.requests) == 1


def test_an_encoding_that_cannot_be_bounded_is_refused(env: TabletopEnv) -> None:
    script = Script(answers=[json.dumps(GOAL)], encoding="br")
    with fake_server(script) as url:
        llm = LLMPlanner("openai/test-model", api_base=url, api_key=KEY)
        with pytest.raises(PlannerUnavailableError, match="Content-Encoding 'br' is not read"):
            llm.plan(INSTRUCTION, env)
    assert len(script.requests) == 1


@pytest.mark.parametrize("wbits", [zlib.MAX_WBITS, -zlib.MAX_WBITS], ids=["zlib", "raw"])
def test_deflate_bodies_are_decoded_within_the_cap(wbits: int) -> None:
    from claw.planner.llm.bodies import BodyLimit, BodyTooLarge, BoundedDecoder

    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    data = packer.compress(b"b" * 5000) + packer.flush()
    decoded = b"".join(BoundedDecoder("deflate", BodyLimit(5000)).decode(data))
    assert decoded == b"b" * 5000
    with pytest.raises(BodyTooLarge, match="over 4 KiB decoded"):
        list(BoundedDecoder("deflate", BodyLimit(4096)).decode(data))


def test_bodies_outside_a_model_call_are_not_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx

    from claw.planner.llm import bodies

    monkeypatch.setattr(bodies, "MAX_BODY_BYTES", 16)
    bodies.install()
    script = Script(answers=["x" * 100])
    with fake_server(script) as url:
        response = httpx.post(f"{url}/chat/completions", json={})
    assert len(response.content) == len(completion("x" * 100))


# -- finding 4: the instruction caps hold for every planner ------------------------------------

LONG = (INSTRUCTION + " ") * 3500  # 119 KB


def test_an_instruction_over_the_cap_is_not_sent_to_a_model(env: TabletopEnv) -> None:
    llm, calls = counted(json.dumps(GOAL))
    with pytest.raises(UnparseableError, match="over the cap of 1,000"):
        llm.plan(LONG, env)
    hybrid = HybridPlanner(OfflinePlanner(), counted(json.dumps(GOAL))[0])
    with pytest.raises(UnparseableError, match="over the cap of 1,000"):
        hybrid.plan(LONG, env)
    assert hybrid.reader == "offline" and hybrid.usage is not None and hybrid.usage.attempts == 0
    assert calls == []


def test_claw_sends_no_request_for_an_instruction_over_the_cap(claw_in_process: ClawRun) -> None:
    script = Script(answers=[json.dumps(GOAL)])
    with fake_server(script) as url:
        result = claw_in_process(
            LONG, "--planner", "offline+openai/test-model", "--api-base", url,
            env={"OPENAI_API_KEY": KEY},
        )  # fmt: skip
    assert result.returncode == 2
    assert "over the cap of 1,000" in one_line(result, "unparseable")
    assert script.requests == []


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


# -- finding 7: an instruction that is not text -------------------------------------------------

NOT_TEXT = "put the red block\udcff in the blue box"  # the byte 0xff, as the shell passes it


def test_bytes_that_are_not_utf8_are_one_json_error(claw_in_process: ClawRun) -> None:
    result = claw_in_process(NOT_TEXT, "--json")
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    data = json.loads(result.stdout)
    assert data["error"]["kind"] == "invalid_input"
    assert "character 18 is the byte 0xff" in data["error"]["message"]
    assert data["instruction"] == "put the red block\\xff in the blue box"
    text = claw_in_process(NOT_TEXT)
    assert text.returncode == 2 and "character 18" in one_line(text, "invalid_input")


def test_bytes_that_are_not_utf8_never_reach_the_model(claw_in_process: ClawRun) -> None:
    script = Script(answers=[json.dumps(GOAL)])
    with fake_server(script) as url:
        result = claw_in_process(
            "赤いブロック\udcffを青い箱に入れて", "--planner", "offline+openai/test-model",
            "--api-base", url, "--json", env={"OPENAI_API_KEY": KEY},
        )  # fmt: skip
    assert result.returncode == 2
    assert json.loads(result.stdout)["error"]["kind"] == "invalid_input"
    assert script.requests == []


def test_a_lone_surrogate_is_refused_by_the_loop(env: TabletopEnv) -> None:
    llm, calls = counted(json.dumps(GOAL))
    result = run_instruction(env, "put the red block \ud800 in the blue box", llm)
    assert result.error is not None and result.error.kind == "invalid_input"
    assert "character 19 is U+D800" in result.error.message
    assert calls == [] and json.loads(result.model_dump_json())["instruction"].count("\\ud800")


def test_a_suite_case_that_is_not_text_is_refused_when_loaded(
    tmp_path: Path, claw_in_process: ClawRun
) -> None:
    suite = tmp_path / "bytes.yaml"
    suite.write_text(
        'name: bytes\nscene: default\ncases:\n  - id: bad\n    instruction: "put the red block'
        '\\udcff in the blue box"\n    seed: 0\n    goal: ["in(red_block, blue_box)"]\n'
    )
    result = claw_in_process("eval", str(suite), "--planner", "offline")
    assert result.returncode == 2
    line = one_line(result, "invalid_suite")
    assert "bad" in line and "instruction" in line and "character 18" in line


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
