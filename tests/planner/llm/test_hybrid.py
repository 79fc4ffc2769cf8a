"""The hybrid planner ``offline+MODEL``: the offline reader plans what it reads, the model what it
cannot read or finds ambiguous; ``--json`` and ``claw eval`` say who read each case."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
from typing import Any
from unittest import mock

import pytest
import yaml

from claw.common.exceptions import ClawError
from claw.envs import TabletopEnv
from claw.envs.exceptions import UnknownObjectError
from claw.eval.mocks import MOCK_MODEL  # importing claw.eval registers replay:FILE and mock:*
from claw.planner import ModelSettings
from claw.planner.exceptions import (
    AmbiguousError,
    InvalidPlannerError,
    UnparseableError,
    UnsupportedError,
)
from claw.planner.llm.hybrid import HybridPlanner
from claw.planner.llm.planner import LLMPlanner
from claw.planner.offline import OfflinePlanner
from claw.runtime import BasePlanner, make_planner, parse_planner
from claw.runtime.loop import run_instruction
from claw.skills.plans import Failure, Plan

# No English word in it: no offline reader of English can read it, a model can.
UNREADABLE = "赤いブロックを青い箱に入れて"  # "put the red block in the blue box"
READABLE = "put the red block in the blue box"
TINY = {
    "name": "tiny-hybrid",
    "scene": "default",
    "cases": [
        {"id": "unreadable", "instruction": UNREADABLE, "seed": 0,
         "goal": ["in(red_block, blue_box)"]},
        {"id": "readable", "instruction": READABLE, "seed": 0,
         "goal": ["in(red_block, blue_box)"]},
        {"id": "ambiguous", "instruction": "put the block in the blue box", "seed": 0,
         "expect_error": "ambiguous"},
        {"id": "unknown", "instruction": "put the purple block in the blue box", "seed": 0,
         "expect_error": "unknown_object"},
    ],
}  # fmt: skip


def claw(*args: str) -> subprocess.CompletedProcess[str]:
    """``claw ARGS`` in this process, as the console script runs it (``claw.cli.main``): its exit
    code and what it wrote (a fresh interpreter would add only litellm's import, seconds)."""
    from claw.cli import main

    out, err = io.StringIO(), io.StringIO()
    with (
        mock.patch.dict(os.environ, {"COLUMNS": "200"}),  # the eval table one line per row
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


class Refusing(BasePlanner):
    """Refuses every instruction with ``error``; counts its calls."""

    name = "refusing"

    def __init__(self, error: ClawError) -> None:
        self.error, self.calls = error, 0

    def plan(self, instruction: str, env: TabletopEnv) -> Plan:
        self.calls += 1
        raise self.error

    def replan(
        self, instruction: str, plan: Plan, env: TabletopEnv, failure: Failure | None = None
    ) -> Plan:
        self.calls += 1
        return Plan()


class Model(Refusing):
    """Plans every instruction (an empty plan) as a model would; counts its calls."""

    name = "model"

    def __init__(self) -> None:
        super().__init__(ClawError("unused"))

    @property
    def reader(self) -> Any:
        return "model"

    def plan(self, instruction: str, env: TabletopEnv) -> Plan:
        self.calls += 1
        return Plan()


@pytest.mark.parametrize(
    ("error", "handed"),
    [
        (UnparseableError("cannot read it"), True),
        (AmbiguousError("which block?"), True),
        (UnsupportedError("no skill throws"), False),
        (UnknownObjectError("no purple block"), False),
    ],
)
def test_only_what_the_reader_cannot_read_goes_to_the_model(error: ClawError, handed: bool) -> None:
    first, model = Refusing(error), Model()
    planner = HybridPlanner(first, model)
    env: Any = None  # neither planner looks at it
    if not handed:
        with pytest.raises(type(error)):
            planner.plan("do it", env)
        assert (planner.reader, model.calls, planner.handed_over) == ("offline", 0, None)
        return
    planner.plan("do it", env)
    assert (planner.reader, model.calls, planner.handed_over) == ("model", 1, error)
    planner.replan("do it", Plan(), env)  # a case handed over stays with the model
    assert (model.calls, first.calls) == (2, 1)


def test_an_empty_instruction_is_refused_offline() -> None:
    model = Model()
    with pytest.raises(UnparseableError):
        HybridPlanner(Refusing(UnparseableError("empty")), model).plan("   ", None)  # type: ignore[arg-type]
    assert model.calls == 0


def test_the_hybrid_is_the_whole_protocol() -> None:
    planner = make_planner("offline+gpt-4o-mini")
    assert isinstance(planner, HybridPlanner) and isinstance(planner.first, OfflinePlanner)
    assert isinstance(planner.fallback, LLMPlanner) and planner.fallback.mode == "goal"
    assert planner.model == "gpt-4o-mini" and planner.usage is planner.fallback.usage
    assert planner.reader == "offline" and planner.structured_as is None
    planner.max_steps = 7
    assert planner.first.max_steps == planner.fallback.max_steps == 7

    def hook(messages: list[dict[str, str]], answer: str) -> None:
        pass

    planner.on_answer = hook
    assert planner.fallback.on_answer is hook and planner.on_answer is hook
    steps = make_planner("offline+gpt-4o-mini", settings=ModelSettings(llm_mode="steps"))
    assert isinstance(steps, HybridPlanner) and isinstance(steps.fallback, LLMPlanner)
    assert steps.fallback.mode == "steps"  # --llm-mode given wins
    alone = make_planner("gpt-4o-mini")
    assert isinstance(alone, LLMPlanner) and alone.mode == "steps"  # a model alone: steps


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("offline+openai/gpt-4o-mini", "model"),
        ("offline+gpt-4o-mini", "model"),
        ("offline+ollama/llama3:8b", "model"),
        ("offline+local", "local"),
        ("offline+mock:oracle", "mock"),
        ("offline+mock:noisy:0.3", "mock"),
    ],
)
def test_a_hybrid_name_hands_over_to_its_models_family(text: str, family: str) -> None:
    spec = parse_planner(text)
    assert spec.family == "offline+" and spec.hand_over is not None
    assert (spec.hand_over.family, spec.hand_over.text) == (family, text.removeprefix("offline+"))


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("offline+", "names no model after 'offline+'"),
        ("offline+offline", "hands over to a model, not to 'offline'"),
        ("offline+offline+gpt-4o-mini", "not to 'offline+gpt-4o-mini'"),
        ("offline+nonsense:x", "no planner family 'nonsense:'"),
        ("offline+mock:psychic", "unknown mock"),
        ("offline+replay:/no/such/tape.json", "is not a file"),
        ("offline+gpt 4", "is not a model name"),
    ],
)
def test_a_bad_hybrid_name_is_refused_when_parsed(text: str, needle: str) -> None:
    with pytest.raises(InvalidPlannerError, match=re.escape(needle)):
        parse_planner(text)


def test_the_reader_refuses_the_unreadable_case_today() -> None:
    """The premise of the suite below: the offline reader cannot read it."""
    env = TabletopEnv(scene="default")
    try:
        env.reset(seed=0)
        with pytest.raises(UnparseableError):
            OfflinePlanner().plan(UNREADABLE, env)
        result = run_instruction(env, "put the purple block in the blue box", OfflinePlanner())
        assert result.error is not None and result.error.kind == "unknown_object"
        assert result.reader == "offline"
    finally:
        env.close()


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``claw eval`` of the tiny suite with ``offline+mock:oracle``: its output, JSON, report
    and the cassette it recorded."""
    folder = tmp_path_factory.mktemp("hybrid")
    suite = folder / "tiny.yaml"
    suite.write_text(yaml.safe_dump(TINY, allow_unicode=True))
    tape, out, report = folder / "tape.json", folder / "out.json", folder / "report"
    run = claw(
        "eval", str(suite), "--planner", "offline+mock:oracle", "--record", str(tape),
        "--json", str(out), "--report", str(report),
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    return {
        "stdout": run.stdout,
        "json": json.loads(out.read_text()),
        "markdown": (report / "report.md").read_text(),
        "tape": tape,
    }


@pytest.mark.slow
def test_the_model_plans_what_the_reader_cannot_read_on_physics(evaluated: dict[str, Any]) -> None:
    cases = {case["id"]: case for case in evaluated["json"]["cases"]}
    assert all(case["success"] for case in cases.values())
    assert cases["unreadable"]["run"]["goal"] == ["in(red_block, blue_box)"]
    readers = {name: (case["reader"], case["llm_calls"]) for name, case in cases.items()}
    assert readers == {
        "unreadable": ("model", 1),
        "readable": ("offline", 0),  # read offline: no model call
        "ambiguous": ("model", 1),  # the model refuses it, as the case expects
        "unknown": ("offline", 0),  # a refusal stays the reader's
    }
    assert cases["unreadable"]["run"]["reader"] == "model"


@pytest.mark.slow
def test_eval_reports_both_shares(evaluated: dict[str, Any]) -> None:
    overall = evaluated["json"]["overall"]
    assert (overall["read_by_offline"], overall["read_by_model"]) == (0.5, 0.5)
    header, all_row = (
        next(line for line in evaluated["stdout"].splitlines() if line.startswith(start))
        for start in ("┃ tag", "│ all")
    )
    assert [cell.strip() for cell in header.split("┃")[-3:-1]] == [
        "read by offline / model",
        "success offline / model",
    ]
    assert [cell.strip() for cell in all_row.split("│")[-3:-1]] == ["2 / 2", "100.0 / 100.0 %"]
    markdown = evaluated["markdown"]
    assert "| read by offline | 50.0 % |" in markdown
    assert "| read by the model | 50.0 % |" in markdown


@pytest.mark.slow
def test_a_recorded_hybrid_replays_from_the_command_line(evaluated: dict[str, Any]) -> None:
    tape = evaluated["tape"]
    assert json.loads(tape.read_text())["model"] == MOCK_MODEL  # the model's answers, by its name
    replayed = claw(UNREADABLE, "--planner", f"offline+replay:{tape}", "--json")
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    out = json.loads(replayed.stdout)
    assert (
        out["success"] and out["reader"] == "model" and out["goal"] == ["in(red_block, blue_box)"]
    )
    offline = claw(READABLE, "--planner", f"offline+replay:{tape}", "--json")
    assert offline.returncode == 0, offline.stdout + offline.stderr
    out = json.loads(offline.stdout)
    assert out["success"] and out["reader"] == "offline" and out["structured"] is None


@pytest.mark.parametrize("name", ["offline+", "offline+nonsense:x"])
def test_a_bad_hybrid_name_is_one_line_and_exit_2(name: str) -> None:
    result = claw(READABLE, "--planner", name)
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: invalid_input: ") and name in lines[0]
