"""Bad input, as users and adversaries give it: one reported error, the right exit code, nothing
run or lost. Each case here is one row of docs/reference/failure-modes.md."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from claw.cli import expand_args

RUN = "put the red block next to the blue box"
HELP_LINES = ("read: ", "try: ")
TINY_SUITE = {
    "name": "tiny",
    "cases": [{"id": "a", "instruction": RUN, "goal": ["next_to(red_block, blue_box)"]}],
}


def claw(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}
    return subprocess.run(
        [sys.executable, "-m", "claw", *map(str, args)],
        capture_output=True, text=True, timeout=300, cwd=cwd, env=env,
    )  # fmt: skip


def one_error_line(result: subprocess.CompletedProcess[str], kind: str) -> str:
    """The single stderr line of an error, with nothing about it on stdout (a refused
    reading's ``read:`` and ``try:`` lines after it aside)."""
    lines = [line for line in result.stderr.strip().splitlines() if not line.startswith(HELP_LINES)]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {kind}: "), lines[0]
    assert "error" not in result.stdout, result.stdout  # reported once, not twice
    return lines[0]


def json_error(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    return json.loads(result.stdout.strip().splitlines()[-1])["error"]


def write_suite(folder: Path, data: dict[str, Any]) -> Path:
    path = folder / "suite.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


# -- output paths: checked before anything runs, no parents made -----------------------------------


@pytest.mark.slow
def test_video_in_a_missing_folder_is_refused_and_no_folder_is_made(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "run.mp4"
    result = claw(RUN, "--video", missing, "--json")
    assert result.returncode == 2
    out = json.loads(result.stdout)
    assert out["error"]["kind"] == "invalid_output" and "does not exist" in out["error"]["message"]
    assert out["steps"] == [] and out["sim_seconds"] == 0.0  # nothing ran
    assert not missing.parent.exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        (RUN, "--video", "/proc/claw-test.mp4"),
        ("eval", "basic", "--json", "/proc/claw-test.json"),
        ("eval", "basic", "--report", "/proc/claw-test-report"),
        ("eval", "basic", "--record", "/proc/claw-test.yaml"),
        ("scene", "show", "--image", "/proc/claw-test.png"),
        ("train", "reach", "--out", "/proc/claw-run"),
    ],
)
def test_unwritable_outputs_fail_before_the_work(args: tuple[str, ...]) -> None:
    result = claw(*args)
    assert result.returncode == 2
    assert "cannot be written" in one_error_line(result, "invalid_output")


def test_an_interrupted_eval_writes_the_cases_it_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import typer

    from claw import eval_commands
    from claw.eval import runner
    from claw.eval.cases import CaseResult
    from claw.eval.suite import Suite

    suite = Suite.model_validate({**TINY_SUITE, "cases": TINY_SUITE["cases"] * 1})
    done = CaseResult(id="a", tags=[], success=True)

    def interrupted(*args: Any, progress: Any = None, **kwargs: Any) -> Any:
        progress(done)
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_suite", interrupted)
    out = tmp_path / "partial.json"
    with pytest.raises(typer.Exit) as stopped:
        eval_commands._run(suite, "offline", 1, out, None)
    assert stopped.value.exit_code == 130
    saved = json.loads(out.read_text())
    assert saved["interrupted"] is True and [c["id"] for c in saved["cases"]] == ["a"]


# -- seeds: one rule -------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "args", [(RUN, "--seed", "-1"), ("scene", "show", "--seed", "-1"), (RUN, "--seed", "2**40")]
)
def test_a_bad_seed_is_one_line(args: tuple[str, ...]) -> None:
    result = claw(*args)
    assert result.returncode == 2
    one_error_line(result, "invalid_input")


@pytest.mark.slow
def test_a_bad_seed_under_json_is_a_json_error() -> None:
    result = claw(RUN, "--seed", "-1", "--json")
    assert result.returncode == 2 and result.stderr == ""
    assert "0 to 4294967295" in json_error(result)["message"]


@pytest.mark.slow
def test_a_suite_case_with_a_negative_seed_names_the_case(tmp_path: Path) -> None:
    case = {**TINY_SUITE["cases"][0], "seed": -1}
    result = claw("eval", write_suite(tmp_path, {**TINY_SUITE, "cases": [case]}))
    assert result.returncode == 2
    line = one_error_line(result, "invalid_suite")
    assert "seed" in line and "case a" in line and "0 to 4294967295" in line


def test_the_env_and_scene_refuse_a_negative_seed() -> None:
    from claw.common.exceptions import ClawError
    from claw.envs import SceneSpec, TabletopEnv

    with pytest.raises(ClawError, match="0 to 4294967295"):
        SceneSpec.load("default").sample(-1)
    env = TabletopEnv()
    with pytest.raises(ClawError, match="0 to 4294967295"):
        env.reset(seed=-1)
    env.close()


# -- planners by name ------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("planner", "needle"),
    [
        ("mock:what", "unknown mock 'mock:what'"),
        ("mock:noisy:2", "probability from 0 to 1"),
        ("mock:oracle:1", "takes no argument"),
        ("replay:/missing.yaml", "'/missing.yaml' is not a file"),
        ("gpt 4", "is not a model name"),
    ],
)
def test_a_bad_planner_is_refused_before_any_case(planner: str, needle: str) -> None:
    result = claw("eval", "basic", "--planner", planner)
    assert result.returncode == 2
    assert needle in one_error_line(result, "invalid_input")


@pytest.mark.slow
def test_a_mock_planner_outside_eval_says_where_it_belongs() -> None:
    result = claw(RUN, "--planner", "mock:oracle")
    assert result.returncode == 2
    assert "claw eval" in one_error_line(result, "invalid_input")


@pytest.mark.slow
@pytest.mark.parametrize("content", [b"\xff\xfe not utf-8", b"{not json"])
def test_an_unreadable_cassette_is_named(tmp_path: Path, content: bytes) -> None:
    cassette = tmp_path / "tape.json"
    cassette.write_bytes(content)
    result = claw("eval", "basic", "--planner", f"replay:{cassette}")
    assert result.returncode == 2
    assert str(cassette) in one_error_line(result, "invalid_input")


@pytest.mark.slow
def test_a_suite_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_bytes(b"name: x\ncases: \xff\xfe\n")
    result = claw("eval", suite)
    assert result.returncode == 2
    assert "not UTF-8" in one_error_line(result, "invalid_suite")


# -- the command line itself -----------------------------------------------------------------------


@pytest.mark.slow
def test_options_may_come_before_the_instruction() -> None:
    result = claw("--seed", "3", "--json", RUN)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["success"] is True


@pytest.mark.parametrize(
    ("args", "expanded"),
    [
        (["--seed", "2", "x"], ["run", "--seed", "2", "x"]),
        (["x"], ["run", "x"]),
        (["eval", "basic"], ["eval", "run", "basic"]),
        (["eval", "compare", "a", "b"], ["eval", "compare", "a", "b"]),
        (["--help"], ["--help"]),
        (["skills", "list"], ["skills", "list"]),
    ],
)
def test_expand_args(args: list[str], expanded: list[str]) -> None:
    assert expand_args(args) == expanded


@pytest.mark.slow
def test_a_usage_error_is_one_line_or_json() -> None:
    human = claw(RUN, "--bogus")
    assert human.returncode == 2
    assert "No such option: --bogus" in one_error_line(human, "invalid_input")
    as_json = claw(RUN, "--bogus", "--json")
    assert as_json.returncode == 2 and as_json.stderr == ""
    assert json_error(as_json)["kind"] == "invalid_input"


@pytest.mark.slow
def test_an_error_is_printed_once() -> None:
    result = claw("put the purple block in the blue box")
    assert result.returncode == 2
    one_error_line(result, "unknown_object")
    assert result.stdout == ""


def test_markup_and_escapes_in_messages_are_shown_as_text() -> None:
    from rich.console import Console

    from claw.output import markup, one_line

    hostile = "move to [0.1, 0.2] [red]now[/red]\x1b[31m\nsecond line\x07"
    assert one_line(hostile) == "move to [0.1, 0.2] [red]now[/red] second line"
    console = Console(record=True, width=200)
    console.print(markup(hostile))
    assert console.export_text().strip() == "move to [0.1, 0.2] [red]now[/red] second line"


@pytest.mark.slow
def test_a_hostile_instruction_is_echoed_safely() -> None:
    result = claw("put the [bold]red block[/bold]\x1b[2J in the box\nrm -rf /")
    assert result.returncode == 2
    line = one_error_line(result, result.stderr.split(":")[1].strip())
    assert "\x1b" not in result.stderr and "\x1b" not in result.stdout
    assert len(line) < 1100


# -- an evaluation path whose steps are not the offline planner's ----------------------------------


def test_the_literal_mock_writes_its_own_steps() -> None:
    from claw.envs import TabletopEnv
    from claw.eval.mocks import literal_answer, oracle_answer
    from claw.eval.suite import Case

    case = Case(id="t", instruction="stack", goal=["stacked(red_block, green_block, blue_block)"])
    literal = json.loads(literal_answer(case))["steps"]
    assert literal == [
        {"skill": "pick", "args": {"object": "green_block"}},
        {"skill": "place", "args": {"target": "red_block", "relation": "on"}},
        {"skill": "pick", "args": {"object": "blue_block"}},
        {"skill": "place", "args": {"target": "green_block", "relation": "on"}},
    ]
    env = TabletopEnv()
    env.reset(seed=0)
    assert json.loads(oracle_answer(case, env))["goal"] == [str(p) for p in case.goal or []]
    env.close()


@pytest.mark.slow
def test_eval_with_the_literal_mock(tmp_path: Path) -> None:
    """In this process (``claw.cli.main``, as the console script): a new one would import
    litellm, for the mock's answers, again (seconds)."""
    from claw.cli import main

    out = tmp_path / "r.json"
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", str(write_suite(tmp_path, TINY_SUITE)), "--planner", "mock:literal",
              "--json", str(out)])  # fmt: skip
    assert exit_info.value.code == 0
    saved = json.loads(out.read_text())
    assert saved["planner"] == "mock:literal" and saved["overall"]["success_rate"] == 1.0


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [("train", "reach", "--steps", "10", "--register"), ("bench", "skills", "--record")],
)
def test_commands_that_must_write_the_library_refuse_before_the_work(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    env = {**os.environ, "CLAW_HOME": "/sys/claw-test-home"}
    result = subprocess.run(
        [sys.executable, "-m", "claw", *args],
        capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "/sys/claw-test-home" in errors[0], result.stderr
    assert not (tmp_path / "runs").exists()  # no training was started


def test_a_damaged_library_stops_a_run_before_anything_moves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import numpy as np

    from claw.envs import TabletopEnv
    from claw.planner import OfflinePlanner
    from claw.runtime import run_instruction

    (tmp_path / "library").mkdir()
    (tmp_path / "library" / "manifest.json").write_bytes(b"\xff\xfe{")
    monkeypatch.setenv("CLAW_HOME", str(tmp_path))
    env = TabletopEnv()
    env.reset(seed=0)
    before = env.data.qpos.copy()
    result = run_instruction(env, RUN, OfflinePlanner())
    assert result.error is not None and result.error.kind == "library_error"
    assert "manifest.json" in result.error.message and "not UTF-8" in result.error.message
    assert np.array_equal(env.data.qpos, before) and result.steps == []
    env.close()
