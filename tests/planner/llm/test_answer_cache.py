"""The answer cache (issue 37): a model's first answer kept on disk by what decides it, so that a
repeated instruction costs no call; and ``CLAW_MODEL`` making ``claw "…"`` the hybrid."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import claw.eval  # noqa: F401  (registers replay:FILE and mock:*)
from claw.envs import TabletopEnv
from claw.envs.exceptions import UnknownObjectError
from claw.eval.cassette import Cassette
from claw.eval.suite import load_suite
from claw.planner.exceptions import InvalidPlanError
from claw.planner.llm import answer_cache
from claw.planner.llm.answer_cache import AnswerCache, CacheSettingError, prompt_version
from claw.planner.llm.completion import ModelSettings
from claw.planner.llm.hybrid import HybridPlanner
from claw.planner.llm.planner import LLMPlanner
from claw.planner.offline import OfflinePlanner
from claw.runtime import make_planner, run_instruction
from tests.fake_server import Script, fake_server

INSTRUCTION = "put the red block next to the blue box"
GOOD = json.dumps(
    {
        "goal": ["next_to(red_block, blue_box)"],
        "steps": [
            {"skill": "pick", "args": {"object": "red_block"}},
            {"skill": "place", "args": {"target": "blue_box", "relation": "next_to"}},
        ],
        "error": None,
    }
)
UNREADABLE = "赤いブロックを青い箱に入れて"  # no English word: the offline reader refuses it
HOLDS = json.dumps({"goal": ["not(on(red_block, blue_box))"], "steps": [], "error": None})
KEY = "sk-test-cache-0123456789abcdef"
ClawRun = Callable[..., subprocess.CompletedProcess[str]]

pytestmark = pytest.mark.usefixtures("library_home")


class Model:
    """A mocked model: ``answers`` in turn, each call counted."""

    def __init__(self, *answers: str) -> None:
        self.answers, self.calls = list(answers), 0

    def __call__(self, messages: list[dict[str, str]]) -> str:
        self.calls += 1
        return self.answers[min(self.calls, len(self.answers)) - 1]


def cached(cache: AnswerCache, *answers: str, **kwargs: Any) -> tuple[LLMPlanner, Model]:
    model = Model(*answers)
    return LLMPlanner("gpt-4o-mini", mock=model, backoff=0.0, cache=cache, **kwargs), model


@pytest.fixture
def cache(tmp_path: Path) -> AnswerCache:
    return AnswerCache(tmp_path / "answers")


@pytest.mark.slow
def test_a_repeated_instruction_costs_no_call(env: TabletopEnv, cache: AnswerCache) -> None:
    first, asked = cached(cache, GOOD)
    planned = first.plan(INSTRUCTION, env)
    assert asked.calls == 1 and first.usage.cached == 0 and len(cache.entries()) == 1
    again, model = cached(cache)  # a model with no answer: a call would fail
    heard: list[str] = []
    again.on_answer = lambda messages, answer: heard.append(answer)  # e.g. --record
    assert again.plan(INSTRUCTION, env) == planned
    assert model.calls == 0 and again.usage.calls == again.usage.attempts == 0
    assert again.usage.cached == 1 and again.usage.prompt_tokens == 0
    assert heard == [GOOD] and again.messages[-1] == {"role": "assistant", "content": GOOD}
    kept = json.loads(cache.entries()[0].read_text())
    assert kept["instruction"] == INSTRUCTION and kept["answer"] == GOOD
    assert kept["prompt_tokens"] > 0  # what asking cost then


def test_the_key_is_what_decides_the_answer(
    make_env: Callable[..., TabletopEnv], cache: AnswerCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env()
    env.reset(seed=1)
    cached(cache, GOOD)[0].plan(INSTRUCTION, env)
    other = make_env()
    other.reset(seed=2)  # the same scene elsewhere: another signature
    variants: list[tuple[str, TabletopEnv, dict[str, Any]]] = [
        ("put the red block beside the blue box", env, {}),
        (INSTRUCTION, other, {}),
        (INSTRUCTION, env, {"mode": "goal"}),
        (INSTRUCTION, env, {"temperature": 0.7}),
        (INSTRUCTION, env, {"api_base": "http://127.0.0.1:1/v1"}),
    ]
    for instruction, where, options in variants:
        planner, model = cached(cache, GOOD, **options)
        planner.plan(instruction, where)
        assert model.calls == 1, (instruction, options)
    monkeypatch.setattr(answer_cache, "prompt_version", lambda: "another-prompt")
    planner, model = cached(cache, GOOD)
    planner.plan(INSTRUCTION, env)
    assert model.calls == 1 and len(cache.entries()) == len(variants) + 2
    other_model = LLMPlanner("gpt-4o", mock=Model(GOOD), backoff=0.0, cache=cache)
    other_model.plan(INSTRUCTION, env)
    assert other_model.usage.calls == 1


def test_the_prompt_version_is_a_hash_of_the_templates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    versions = []
    for text in ("Answer in JSON.", "Answer in JSON only."):
        folder = tmp_path / text.replace(" ", "_")
        folder.mkdir()
        (folder / "system.md").write_text(text)
        (folder / "notes.txt").write_text("not a template")
        monkeypatch.setattr(answer_cache.resources, "files", lambda package, f=folder: f)
        prompt_version.cache_clear()
        versions.append(prompt_version())
    prompt_version.cache_clear()
    assert versions[0] != versions[1] and len(versions[0]) == 16


def test_a_rejected_answer_is_never_kept(env: TabletopEnv, cache: AnswerCache) -> None:
    failing, _ = cached(cache, "not json", "still not", "nor this")
    with pytest.raises(InvalidPlanError):
        failing.plan(INSTRUCTION, env)
    assert cache.entries() == []
    repaired, model = cached(cache, "not json", GOOD)
    repaired.plan(INSTRUCTION, env)
    assert model.calls == 2
    assert json.loads(cache.entries()[0].read_text())["answer"] == GOOD  # the accepted one only
    again, model = cached(cache)
    again.plan(INSTRUCTION, env)
    assert model.calls == 0 and again.usage.cached == 1


@pytest.mark.parametrize(
    "damage",
    [
        b"\xff\xfe not json",
        b'{"format": 1, "key": "another", "model": "m", "instruction": "i", "answer": "a"}',
        b'{"format": 99}',
        b"[" * 5000,
    ],
    ids=["not_utf8", "another_key", "another_format", "deep"],
)
def test_a_damaged_entry_is_ignored_and_replaced(
    env: TabletopEnv, cache: AnswerCache, damage: bytes
) -> None:
    cached(cache, GOOD)[0].plan(INSTRUCTION, env)
    entry = cache.entries()[0]
    entry.write_bytes(damage)
    planner, model = cached(cache, GOOD)
    planner.plan(INSTRUCTION, env)
    assert model.calls == 1
    assert json.loads(entry.read_text())["answer"] == GOOD


def test_a_kept_answer_that_no_longer_validates_is_asked_again(
    env: TabletopEnv, cache: AnswerCache
) -> None:
    cached(cache, GOOD)[0].plan(INSTRUCTION, env)
    entry = cache.entries()[0]
    data = json.loads(entry.read_text())
    data["answer"] = GOOD.replace("red_block", "purple_block")  # not in this scene
    entry.write_text(json.dumps(data))
    planner, model = cached(cache, GOOD)
    planner.plan(INSTRUCTION, env)
    assert model.calls == 1 and planner.usage.cached == 0


def test_a_refusal_is_kept_too(env: TabletopEnv, cache: AnswerCache) -> None:
    refusal = json.dumps({"error": {"kind": "unknown_object", "message": "no such block"}})
    with pytest.raises(UnknownObjectError, match="no such block"):
        cached(cache, refusal)[0].plan(INSTRUCTION, env)
    planner, model = cached(cache)
    with pytest.raises(UnknownObjectError, match="no such block"):
        planner.plan(INSTRUCTION, env)
    assert model.calls == 0 and planner.usage.cached == 1


def test_an_unwritable_cache_keeps_nothing_and_plans(env: TabletopEnv, tmp_path: Path) -> None:
    folder = tmp_path / "blocked"
    folder.mkdir()
    blocker = folder / "a-file"
    blocker.write_text("")
    planner, model = cached(AnswerCache(blocker / "answers"), GOOD)
    assert planner.plan(INSTRUCTION, env).goal
    assert model.calls == 1 and list(folder.iterdir()) == [blocker]


@pytest.mark.slow
def test_the_cache_is_on_for_models_and_off_for_mocks_replays_and_no_cache(
    env: TabletopEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def cache_of(name: str, **settings: Any) -> AnswerCache | None:
        case = load_suite("basic").cases[0]
        planner: Any = make_planner(
            name, env=env, ground_truth=case, settings=ModelSettings(**settings)
        )
        return (planner.fallback if isinstance(planner, HybridPlanner) else planner).cache

    home = Path(str(answer_cache.cache_folder()))
    assert isinstance(cache_of("gpt-4o-mini"), AnswerCache)
    assert cache_of("gpt-4o-mini").folder == home  # type: ignore[union-attr]
    assert isinstance(cache_of("local"), AnswerCache)
    assert isinstance(cache_of("offline+gpt-4o-mini"), AnswerCache)
    assert cache_of("gpt-4o-mini", cache=False) is None
    tape = tmp_path / "tape.json"
    Cassette(tape, model="gpt-4o-mini").save()
    for name in ("mock:oracle", "offline+mock:oracle", f"replay:{tape}", f"offline+replay:{tape}"):
        assert cache_of(name) is None, name
    monkeypatch.setenv("CLAW_ANSWER_CACHE", "off")
    assert cache_of("gpt-4o-mini") is None
    monkeypatch.setenv("CLAW_ANSWER_CACHE", "maybe")
    with pytest.raises(CacheSettingError, match="CLAW_ANSWER_CACHE is on or off"):
        cache_of("gpt-4o-mini")


@pytest.mark.slow
def test_a_run_says_whether_its_answer_came_from_the_cache(
    env: TabletopEnv, cache: AnswerCache
) -> None:
    hybrid = HybridPlanner(OfflinePlanner(), cached(cache, HOLDS)[0])
    first = run_instruction(env, UNREADABLE, hybrid)
    assert (first.reader, first.cached, first.error) == ("model", False, None)
    again = run_instruction(env, UNREADABLE, HybridPlanner(OfflinePlanner(), cached(cache)[0]))
    assert (again.reader, again.cached, again.goal) == ("model", True, first.goal)
    offline = run_instruction(env, INSTRUCTION, HybridPlanner(OfflinePlanner(), cached(cache)[0]))
    assert (offline.reader, offline.cached) == ("offline", None)
    assert json.loads(again.model_dump_json())["cached"] is True


def test_a_bad_cache_setting_is_one_line(claw_in_process: ClawRun) -> None:
    result = claw_in_process(
        INSTRUCTION, "--planner", "gpt-4o-mini", env={"CLAW_ANSWER_CACHE": "maybe"}
    )
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "error: invalid_input: CLAW_ANSWER_CACHE is on or off (1 or 0), not 'maybe'"
    )


@pytest.mark.slow
def test_claw_model_reads_offline_first_and_a_repeat_asks_nothing(
    claw_in_process: ClawRun,
) -> None:
    """The issue's check: ``CLAW_MODEL`` set, a fake OpenAI-compatible server on 127.0.0.1;
    ``claw "…"`` takes the hybrid path, and a second identical call makes no request."""
    script = Script(answers=[HOLDS])
    with fake_server(script) as url:
        env = {"CLAW_MODEL": "openai/test-model", "CLAW_API_BASE": url, "OPENAI_API_KEY": KEY}
        read = claw_in_process(INSTRUCTION, "--json", env=env)
        assert script.requests == []  # read offline: no call
        assert json.loads(read.stdout)["reader"] == "offline", read.stderr[-2000:]
        runs = [json.loads(claw_in_process(UNREADABLE, "--json", env=env).stdout) for _ in "12"]
        assert len(script.requests) == 1  # the repeat made no request
        assert [(r["reader"], r["cached"], r["success"]) for r in runs] == [
            ("model", False, True),
            ("model", True, True),
        ]
        assert "Goal mode:" in script.requests[0]["messages"][0]["content"]  # the hybrid's mode
        text = claw_in_process(UNREADABLE, env=env)
        assert "LLM: 1 answer from the answer cache (no call)" in text.stdout
        fresh = claw_in_process(UNREADABLE, "--json", "--no-cache", env=env)
        assert json.loads(fresh.stdout)["cached"] is False and len(script.requests) == 2


def test_claw_cache_clear_deletes_the_answers(env: TabletopEnv, claw_in_process: ClawRun) -> None:
    cache = AnswerCache()
    cached(cache, GOOD)[0].plan(INSTRUCTION, env)
    info = claw_in_process("cache", "info", "--json")
    assert json.loads(info.stdout)["answers"] == 1
    cleared = claw_in_process("cache", "clear", "--json")
    assert cleared.returncode == 0 and json.loads(cleared.stdout)["answers"] == 1
    assert cache.entries() == []
    assert "0 answers kept" in claw_in_process("cache", "info").stdout
