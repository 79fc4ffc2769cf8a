"""``claw eval``'s split by reader and its four counts of a suite (issue 37): read right,
refused, wrong reading ran, trap planned; tokens per case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from claw.eval.cases import CaseResult
from claw.eval.runner import summarise
from claw.eval.suite import Case
from claw.eval.tallies import outcome
from claw.runtime import RunError, RunResult
from claw.skills.plans import SkillCall

UNREADABLE = "赤いブロックを青い箱に入れて"  # the offline reader refuses it; the oracle reads it
PUSH = "push the red block 5 cm to the left"
SUITE = {
    "name": "readers",
    "scene": "default",
    "cases": [
        {"id": "by-model", "instruction": UNREADABLE, "seed": 0,
         "goal": ["not(on(red_block, blue_box))"]},
        {"id": "refused", "instruction": "put the purple block in the blue box", "seed": 0,
         "goal": ["in(red_block, blue_box)"]},
        {"id": "wrong", "instruction": PUSH, "seed": 0, "goal": ["in(red_block, blue_box)"]},
        {"id": "trap", "instruction": PUSH, "seed": 0, "expect_error": "unsupported"},
        {"id": "caught", "instruction": "put the block in the blue box", "seed": 0,
         "expect_error": "ambiguous"},
    ],
}  # fmt: skip


def _case(**fields: Any) -> Case:
    return Case.model_validate({"id": "c", "instruction": "x", "seed": 0, **fields})


def _run(error: str | None = None, steps: int = 0, goal: bool = False) -> RunResult:
    ran = [{"skill": "push", "args": {}, "success": True}] * steps
    return RunResult.model_validate(
        {
            "instruction": "x",
            "success": False,
            "goal": ["in(red_block, blue_box)"] if goal else [],
            "plan": [SkillCall(skill="push", args={}).model_dump()] * steps,
            "steps": ran,
            "error": None if error is None else RunError(kind=error, message="m").model_dump(),
        }
    )


GOAL_CASE = {"goal": ["in(red_block, blue_box)"]}
TRAP_CASE = {"expect_error": "unsupported"}


@pytest.mark.parametrize(
    ("case", "run", "right", "expected"),
    [
        (GOAL_CASE, _run("unparseable"), False, (True, False, False)),
        (GOAL_CASE, _run("ambiguous"), False, (True, False, False)),
        (GOAL_CASE, _run("planner_unavailable"), False, (False, False, False)),  # no refusal
        (GOAL_CASE, _run("plan_too_long"), False, (False, False, False)),
        (GOAL_CASE, _run(steps=2, goal=True), False, (False, True, False)),
        (GOAL_CASE, _run(steps=2, goal=True), True, (False, False, False)),
        # read otherwise yet the case's goal holds (next_to for not(in)): no wrong reading
        (GOAL_CASE, _run(steps=2, goal=True), "succeeded", (False, False, False)),
        (GOAL_CASE, _run(goal=True), False, (False, False, False)),  # a plan of no step: none ran
        (TRAP_CASE, _run(steps=1), False, (False, False, True)),
        (TRAP_CASE, _run(goal=True), False, (False, False, True)),  # planned, even if none ran
        (TRAP_CASE, _run("unsupported"), True, (False, False, False)),
        (TRAP_CASE, _run("unparseable"), False, (False, False, False)),  # refused, wrong kind
    ],
)
def test_each_count_is_as_defined(
    case: dict[str, Any], run: RunResult, right: bool | str, expected: tuple[bool, bool, bool]
) -> None:
    succeeded = right == "succeeded"  # the case's judgement, where the reading was not right
    counted = outcome(_case(**case), run, right is True, success=succeeded)
    assert tuple(counted) == expected


def test_the_suite_figures_split_by_reader() -> None:
    rows = [
        CaseResult(id="a", tags=[], success=True, reader="offline"),
        CaseResult(id="b", tags=[], success=False, reader="offline", refused=True),
        CaseResult(id="c", tags=[], success=True, reader="model", llm_tokens=900),
        CaseResult(id="d", tags=[], success=False, reader="model", llm_tokens=300, llm_cached=1),
        CaseResult(id="e", tags=[], success=False, reader=None, trap_planned=True),
    ]
    figures = summarise(rows)
    assert {k: figures[k] for k in ("offline_cases", "model_cases", "refused", "trap_planned")} == {
        "offline_cases": 2.0,
        "model_cases": 2.0,
        "refused": 1.0,
        "trap_planned": 1.0,
    }
    assert figures["offline_success_rate"] == figures["model_success_rate"] == 0.5
    assert figures["model_tokens_per_case"] == 600.0  # per case the model read, not per case
    assert figures["llm_tokens"] == 240.0 and figures["llm_cached"] == 1.0
    only_offline = summarise(rows[:2])
    assert only_offline["model_cases"] == 0.0 and "model_success_rate" not in only_offline


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``claw eval`` of the suite above with ``offline+mock:oracle``: output, JSON and report."""
    import contextlib
    import io
    import os
    from unittest import mock

    from claw.cli import main

    folder: Path = tmp_path_factory.mktemp("readers")
    suite, out, report = folder / "readers.yaml", folder / "out.json", folder / "report"
    suite.write_text(yaml.safe_dump(SUITE, allow_unicode=True))
    args = ["eval", str(suite), "--planner", "offline+mock:oracle", "--json", str(out)]
    stdout = io.StringIO()
    with (
        mock.patch.dict(os.environ, {"COLUMNS": "220"}),
        contextlib.redirect_stdout(stdout),
        contextlib.redirect_stderr(io.StringIO()),
        pytest.raises(SystemExit) as exited,
    ):
        main([*args, "--report", str(report)])
    assert exited.value.code == 1  # the wrong reading and the trap fail
    return {
        "stdout": stdout.getvalue(),
        "json": json.loads(out.read_text()),
        "markdown": (report / "report.md").read_text(),
    }


@pytest.mark.slow
def test_eval_counts_each_outcome_once(evaluated: dict[str, Any]) -> None:
    cases = {c["id"]: c for c in evaluated["json"]["cases"]}
    flags = ("read_right", "refused", "wrong_reading_ran", "trap_planned")
    assert {i: tuple(c[f] for f in flags) for i, c in cases.items()} == {
        "by-model": (True, False, False, False),
        "refused": (False, True, False, False),
        "wrong": (False, False, True, False),
        "trap": (False, False, False, True),
        "caught": (True, False, False, False),  # handed to the model, which refused it
    }
    overall = evaluated["json"]["overall"]
    assert (overall["read_right_cases"], overall["refused"]) == (2.0, 1.0)
    assert (overall["wrong_reading_ran"], overall["trap_planned"]) == (1.0, 1.0)
    assert (overall["offline_cases"], overall["model_cases"]) == (3.0, 2.0)
    assert (overall["offline_success_rate"], overall["model_success_rate"]) == (0.0, 1.0)
    assert overall["model_tokens_per_case"] == cases["by-model"]["llm_tokens"] / 2 + (
        cases["caught"]["llm_tokens"] / 2
    )
    assert cases["by-model"]["llm_tokens"] > 0 and cases["wrong"]["llm_tokens"] == 0


@pytest.mark.slow
def test_the_summary_and_the_report_show_the_split(evaluated: dict[str, Any]) -> None:
    stdout = evaluated["stdout"]
    all_row = next(line for line in stdout.splitlines() if line.startswith("│ all"))
    assert [cell.strip() for cell in all_row.split("│")[-3:-1]] == ["3 / 2", "0.0 / 100.0 %"]
    assert "read right 2, refused 1, wrong reading ran 1, trap planned 1 (of 5 cases)" in stdout
    assert "per case the model read" in stdout
    markdown = evaluated["markdown"]
    for line in (
        "| refused (goal cases) | 1 |",
        "| wrong reading ran | 1 |",
        "| trap planned (error cases) | 1 |",
        "| cases read by the model | 2 |",
        "| success of those read by offline | 0.0 % |",
    ):
        assert line in markdown
    assert "| read by | tokens | sim s |" in markdown
