"""What a model's answer can do to claw (issue 22): nest deeply, be huge, be slow to parse, echo
an API key. Each is a problem of that answer (repaired, then ``invalid_plan``), never a crash,
a lost result, a quadratic parse or a leaked key; and one case's exception is that case's result.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
import typer

from claw.common.exceptions import ClawError
from claw.envs import TabletopEnv
from claw.planner import LLMPlanner
from claw.planner.exceptions import InvalidPlanError

RUN = "put the red block next to the blue box"
DEEP = "[" * 3000 + "]" * 3000
KEY = "sk-proj-h22EchoedKey0123456789abcdef"
TOKEN = "hunter2-claw-test-token-value"  # the value of a *_TOKEN env var: not sk-shaped
OTHER = "sk-live-NotInTheEnv0123456789"  # a key of no env var's: hidden by its shape

pytestmark = pytest.mark.usefixtures("library_home")


def planner(*answers: str, sizes: list[int] | None = None, **kwargs: Any) -> LLMPlanner:
    """An LLM planner whose model gives ``answers`` in turn (litellm's mock_response); the
    characters of each request's messages are appended to ``sizes``."""
    replies = iter(answers)

    def answer(messages: list[dict[str, str]]) -> str:
        if sizes is not None:
            sizes.append(sum(len(m["content"]) for m in messages))
        return next(replies)

    return LLMPlanner("gpt-4o-mini", mock=answer, backoff=0.0, **kwargs)


def claw(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl"), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "claw", *map(str, args)],
        capture_output=True, text=True, timeout=300, env=full,
    )  # fmt: skip


def one_error_line(result: subprocess.CompletedProcess[str], kind: str) -> str:
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr[-2000:]
    assert lines[0].startswith(f"error: {kind}: "), lines[0]
    return lines[0]


class FakeModel(BaseHTTPRequestHandler):
    """An OpenAI-compatible /v1/chat/completions: ``answers`` in turn (the last one again once
    they run out); the size in bytes of each request's body is kept in ``sizes``."""

    answers: ClassVar[list[str]] = []
    sizes: ClassVar[list[int]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).sizes.append(len(body))
        turn = min(len(type(self).sizes), len(type(self).answers)) - 1
        message = {"role": "assistant", "content": type(self).answers[turn]}
        data = json.dumps(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 0,
                "model": "test",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def fake_model() -> Iterator[str]:
    FakeModel.answers, FakeModel.sizes = [], []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeModel)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


ClawRun = Callable[..., subprocess.CompletedProcess[str]]  # claw above, or claw_in_process


def over_http(url: str, *args: str, run: ClawRun = claw) -> subprocess.CompletedProcess[str]:
    """``claw RUN --json`` planned by the fake model, with ``OPENAI_API_KEY`` set to ``KEY``: in
    a fresh interpreter, which shows every write (a library's logging too), unless ``run`` says
    otherwise (``claw_in_process``: no new interpreter to import litellm again, ~11 s)."""
    model = ("--planner", "openai/test-model", "--api-base", url)
    return run(RUN, *model, "--json", *args, env={"OPENAI_API_KEY": KEY})


# -- item 1: deep nesting is a problem of the answer, never a crash --------------------------------


@pytest.mark.parametrize(
    "deep",
    [
        '{"steps": ' + DEEP + "}",
        '{"goal": [], "steps": [{"skill": "pick", "args": {"object": ' + DEEP + "}}]}",
        'Here it is:\n```json\n{"goal": ' + DEEP + "}\n```",
    ],
    ids=["in_steps", "in_args", "fenced"],
)
def test_a_deeply_nested_answer_is_a_problem_sent_back(env: TabletopEnv, deep: str) -> None:
    llm = planner(deep, deep, deep)
    with pytest.raises(InvalidPlanError, match="nested deeper than 32 levels") as raised:
        llm.plan(RUN, env)
    assert "after 2 repairs" in str(raised.value)
    repairs = [m["content"] for m in llm.messages if "cannot be used" in m["content"]]
    assert len(repairs) == 2 and "nested deeper than 32 levels at line" in repairs[0]


def test_claw_run_on_hostile_answers_is_invalid_plan_exit_3(
    fake_model: str, claw_in_process: ClawRun
) -> None:
    """Deep nesting, 1 MB of "```{" and 5 MB of junk, one after another over HTTP: each is
    repaired, the run ends with invalid_plan (exit 3, not the user's invalid_input), and no
    request repeats an answer whole. ``--fallback offline`` is for an unavailable model only:
    an unusable answer is not planned offline."""
    FakeModel.answers = ['{"steps": ' + DEEP + "}", "```{" * 262_144, "junk " * 1_000_000]
    result = over_http(fake_model, "--fallback", "offline", "--timeout", "5", run=claw_in_process)
    assert result.returncode == 3, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    error = json.loads(result.stdout)["error"]
    assert error["kind"] == "invalid_plan" and "after 2 repairs" in error["message"]
    assert "more than the 1,000,000 read" in error["message"]
    assert len(FakeModel.sizes) == 3
    assert max(FakeModel.sizes) < FakeModel.sizes[0] + 50_000, FakeModel.sizes


def _suite(*instructions: str) -> Any:
    from claw.eval.suite import Suite

    cases = [
        {"id": f"c{i}", "instruction": text, "expect_error": "unsupported", "tags": ["t"]}
        for i, text in enumerate(instructions)
    ]
    return Suite.model_validate({"name": "h22", "cases": cases})


@pytest.mark.parametrize("workers", [1, 2])
def test_an_exception_in_one_case_is_that_cases_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    from claw import eval_commands
    from claw.eval import cases

    real = cases.run_instruction

    def sometimes_crashes(env: Any, instruction: str, *args: Any, **kwargs: Any) -> Any:
        if instruction == "boom":
            raise RecursionError("maximum recursion depth exceeded")
        return real(env, instruction, *args, **kwargs)

    monkeypatch.setattr(cases, "run_instruction", sometimes_crashes)
    suite = _suite("rotate the red block", "boom", "rotate the blue box")
    out = tmp_path / "result.json"
    with pytest.raises(typer.Exit) as stopped:
        eval_commands._run(suite, "offline", workers, out, None)
    assert stopped.value.exit_code == 1  # a case failed; the run itself went on
    cases = json.loads(out.read_text())["cases"]
    assert [c["id"] for c in cases] == ["c0", "c1", "c2"]
    assert [c["success"] for c in cases] == [True, False, True]
    assert cases[1]["error"] == "internal_error" and cases[0]["error"] is None
    assert cases[1]["reason"].startswith("internal_error: RecursionError: maximum recursion")


def test_ctrl_c_in_a_case_still_stops_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from claw.eval import cases, runner

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(cases, "run_instruction", interrupted)
    # the crash of a case is caught, an interrupt is not
    assert cases.crashed(_suite("x").cases[0], ValueError("v")).error == "internal_error"
    with pytest.raises(KeyboardInterrupt):
        runner.run_suite(_suite("rotate the red block"), "offline")


def _deep_files(tmp_path: Path) -> dict[str, Path]:
    files = {
        "deep": "[" * 100_000 + "]" * 100_000,
        "deep_inside": '{"suite": "s", "cases": ' + "[" * 5000 + "]" * 5000 + "}",
        "digits": "1" * 5000,
    }
    for name, text in files.items():
        (tmp_path / f"{name}.json").write_text(text)
    return {name: tmp_path / f"{name}.json" for name in files}


@pytest.mark.slow
@pytest.mark.parametrize("name", ["deep", "deep_inside", "digits"])
def test_compare_on_deep_or_garbage_files_is_one_line(tmp_path: Path, name: str) -> None:
    files = _deep_files(tmp_path)
    result = claw("eval", "compare", files[name], files["deep"])
    assert result.returncode == 2, result.stderr[-2000:]
    line = one_error_line(result, "invalid_report")
    assert str(files[name]) in line


@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_json_files_are_read_within_a_bound(tmp_path: Path) -> None:
    """An endless file (a device) as a result to compare or a cassette to replay is refused
    after 64 MiB read, never read whole."""
    files = _deep_files(tmp_path)
    result = claw("eval", "compare", "/dev/zero", files["deep"])
    assert result.returncode == 2, result.stderr[-2000:]
    assert "/dev/zero" in one_error_line(result, "invalid_report")
    result = claw(RUN, "--planner", "replay:/dev/zero")
    assert result.returncode == 2, result.stderr[-2000:]
    assert "/dev/zero" in one_error_line(result, "invalid_input")


@pytest.mark.slow
@pytest.mark.parametrize("command", [(RUN,), ("eval", "SUITE")], ids=["run", "eval"])
def test_replay_of_a_deep_cassette_is_one_line(tmp_path: Path, command: tuple[str, ...]) -> None:
    cassette = tmp_path / "deep.json"
    cassette.write_text('{"model": "gpt-4o-mini", "answers": ' + "[" * 50_000 + "}")
    suite = tmp_path / "suite.yaml"
    suite.write_text(_suite("rotate the red block").model_dump_json())  # JSON is YAML
    args = [str(suite) if arg == "SUITE" else arg for arg in command]
    result = claw(*args, "--planner", f"replay:{cassette}")
    assert result.returncode == 2, result.stderr[-2000:]
    line = one_error_line(result, "invalid_input")
    assert "nested deeper than 32 levels" in line and str(cassette) in line


# -- item 8: parsing an answer is linear in its length ---------------------------------------------


HOSTILE = """
from claw.planner.text import extract_json
n = 200_000
for text in ["```{" * n, "```json\\n{" * n, "{" * 4 * n, '{"a": "' + '\\\\"' * 2 * n,
             '"' + '\\\\"' * 2 * n + "{", '{"' * 2 * n, '{' + '"a":1,' * (n // 2), "`" * 4 * n,
             '{"a":[' + '"x",' * (n // 2), "}" * 4 * n]:
    try:
        extract_json(text)
    except ValueError:
        continue
    raise SystemExit("an answer of junk was read as a plan")
print("ok")
"""


@pytest.mark.slow
def test_extract_json_is_linear_on_hostile_answers() -> None:
    """800,000 characters each, just under the size read; the old fence regex took minutes on
    the first (quadratic backtracking). The timeout is a hang guard, far above the ~1 s taken."""
    done = subprocess.run(
        [sys.executable, "-c", HOSTILE], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_extract_json_keeps_its_reading_and_its_positions() -> None:
    from claw.planner.text import MAX_ANSWER_CHARS, extract_json

    assert extract_json('```json\n{"a": 1}\n```\nand {"b": 2}') == {"a": 1}
    assert extract_json('Plan: {"a": {"b": [2]}} done') == {"a": {"b": [2]}}
    with pytest.raises(ValueError, match=r"invalid JSON at line 2, column 7 \(character 12\)"):
        extract_json('Plan:\n{"a": }')
    with pytest.raises(ValueError, match="more than the 1,000,000 read"):
        extract_json("{}" + " " * MAX_ANSWER_CHARS)
    if hasattr(sys, "get_int_max_str_digits"):  # Python 3.11 on: a limit on int digits
        with pytest.raises(ValueError, match="invalid JSON at line 1"):
            extract_json('{"a": ' + "1" * 5000 + "}")


# -- item 9: a repair quotes a bounded excerpt of the bad answer -----------------------------------


@pytest.mark.slow
def test_repair_requests_quote_a_bounded_excerpt_of_a_huge_answer(env: TabletopEnv) -> None:
    from claw.planner.text import EXCERPT_CHARS

    junk = "lorem ipsum dolor " * (5_000_000 // 18)
    sizes: list[int] = []
    llm = planner(junk, junk, junk, sizes=sizes)
    with pytest.raises(InvalidPlanError, match="4,999,986 characters, more than"):
        llm.plan(RUN, env)
    first = sizes[0]
    assert len(sizes) == 3
    # each repair adds the answer's excerpt and a short request, not 5 MB
    assert sizes[1] < first + EXCERPT_CHARS + 1000, sizes
    assert sizes[2] < first + 2 * (EXCERPT_CHARS + 1000), sizes
    answers = [m["content"] for m in llm.messages if m["role"] == "assistant"]
    assert answers[-1].endswith(f"… ({len(junk) - EXCERPT_CHARS:,} characters cut)")


def test_a_repair_lists_a_bounded_number_of_problems(env: TabletopEnv) -> None:
    steps = [{"skill": f"grab{i}", "args": {}} for i in range(40)]
    bad = json.dumps({"goal": ["holding(red_block)"], "steps": steps})
    llm = planner(bad, bad, bad)
    with pytest.raises(InvalidPlanError):
        llm.plan(RUN, env)
    repair = next(m["content"] for m in llm.messages if "cannot be used" in m["content"])
    assert "and 30 more" in repair and "grab10" not in repair, repair[:500]


# -- item 13: an API key echoed by the model is never shown ----------------------------------------


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("CLAW_H22_TOKEN", TOKEN)


def _leaks(text: str) -> list[str]:
    return [s for s in (KEY, TOKEN, OTHER, KEY[10:], OTHER[10:]) if s in text]


@pytest.mark.usefixtures("secrets")
def test_a_key_echoed_in_a_decline_is_redacted(env: TabletopEnv) -> None:
    said = f"I will not use {KEY}, {OTHER} or {TOKEN}"
    llm = planner(json.dumps({"error": {"kind": "unsupported", "message": said}}))
    with pytest.raises(ClawError) as raised:
        llm.plan(RUN, env)
    assert raised.value.kind == "unsupported"
    assert str(raised.value) == "I will not use ***, sk-*** or ***"
    assert not _leaks(json.dumps(llm.messages))  # nor sent back, nor recorded


@pytest.mark.usefixtures("secrets")
def test_a_key_echoed_in_an_unusable_plan_is_redacted(env: TabletopEnv) -> None:
    steps = [{"skill": "pick", "args": {"object": OTHER}}, {"skill": TOKEN, "args": {}}]
    bad = json.dumps({"goal": [f"holding({KEY})"], "steps": steps})
    llm = planner(bad, bad, bad)
    with pytest.raises(InvalidPlanError) as raised:
        llm.plan(RUN, env)
    message = str(raised.value)
    assert "sk-***" in message and "***" in message and not _leaks(message), message
    assert not _leaks(json.dumps(llm.messages))


@pytest.mark.slow
def test_a_key_echoed_by_the_model_is_not_in_json_output(fake_model: str) -> None:
    said = f"my key is {KEY}, or {OTHER}"
    FakeModel.answers = [json.dumps({"error": {"kind": "unsupported", "message": said}})]
    result = over_http(fake_model)
    assert result.returncode == 2, result.stderr[-2000:]
    error = json.loads(result.stdout)["error"]
    assert (error["kind"], error["message"]) == ("unsupported", "my key is ***, or sk-***")
    assert json.dumps(error).count("sk-") == 1  # the redacted one only
    assert not _leaks(result.stdout + result.stderr)
