"""claw eval sweep (planners × suites × seeds, a JSON per cell, one table) and claw eval compare
over many results."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from claw.cli import app
from claw.eval import load_suite, run_suite
from claw.eval.exceptions import InvalidSuiteError
from claw.eval.runner import SuiteResult
from claw.eval.sweep import Sweep, load_sweep, reseeded, run_sweep

runner = CliRunner()


@pytest.fixture
def small_suite(tmp_path: Path) -> Path:
    """Three cases of the basic suite, one of them an expected error."""
    basic = load_suite("basic")
    picked = [*basic.cases[:2], next(c for c in basic.cases if c.expect_error is not None)]
    data = json.loads(basic.model_copy(update={"name": "small", "cases": picked}).model_dump_json())
    path = tmp_path / "small.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def write_sweep(tmp_path: Path, **fields: object) -> Path:
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(fields))
    return path


@pytest.mark.slow
def test_a_sweep_runs_every_cell_and_writes_its_result(
    tmp_path: Path, small_suite: Path, comparable: Callable[[SuiteResult], list[dict[str, Any]]]
) -> None:
    sweep = Sweep(suites=[str(small_suite)], planners=["offline", "mock:oracle"], seeds=[0, 7])
    out = tmp_path / "out"
    done = list(run_sweep(sweep, out))
    assert [(c.planner, c.seed) for c, _ in done] == [
        ("offline", 0), ("offline", 7), ("mock:oracle", 0), ("mock:oracle", 7)
    ]  # fmt: skip
    assert sorted(p.name for p in out.iterdir()) == sorted(c.path.name for c, _ in done)
    suite = load_suite(small_suite)
    for cell, result in done:  # each cell is the suite, its seeds moved, run as claw eval runs it
        assert json.loads(cell.path.read_text())["planner"] == cell.planner
        alone = run_suite(reseeded(suite, cell.seed), cell.planner)
        assert comparable(result) == comparable(alone)
    shifted = reseeded(suite, 7)
    assert [c.seed for c in shifted.cases] == [(c.seed + 7) % 2**32 for c in suite.cases]


@pytest.mark.slow
def test_the_sweep_command_writes_files_and_a_table(tmp_path: Path, small_suite: Path) -> None:
    sweep = write_sweep(tmp_path, name="tiny", suites=[str(small_suite)], planners=["offline"])
    out = tmp_path / "out"
    result = runner.invoke(app, ["eval", "sweep", str(sweep), "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = json.loads((out / "table.json").read_text())
    assert [r["planner"] for r in rows] == ["offline"] and rows[0]["metrics"]["success_rate"] == 1
    assert "tiny" in result.output and "small__offline__seed0" in result.output


@pytest.mark.slow
def test_compare_over_many_results_is_one_table(tmp_path: Path, small_suite: Path) -> None:
    sweep = Sweep(suites=[str(small_suite)], planners=["offline", "mock:oracle", "mock:literal"])
    files = [str(cell.path) for cell, _ in run_sweep(sweep, tmp_path / "out")]
    table = tmp_path / "table.json"
    wide = {"COLUMNS": "160"}
    result = runner.invoke(app, ["eval", "compare", *files, "--json", str(table)], env=wide)
    assert result.exit_code == 0, result.output
    assert [r["planner"] for r in json.loads(table.read_text())] == [
        "offline", "mock:oracle", "mock:literal"
    ]  # fmt: skip
    assert "mock:literal" in result.output and "success" in result.output


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"suites": ["basic"], "planners": ["mock:nonsense"]}, "planners"),
        ({"suites": ["basic"], "planners": ["mock:oracle"], "seeds": [-1]}, "seeds"),
        ({"suites": [], "planners": ["offline"]}, "suites"),
        ({"suites": ["basic"], "planners": ["offline"], "colour": 1}, "colour"),
        ({"suites": ["basic"], "planners": ["offline"], "llm": {"timeout": 0}}, "llm.timeout"),
    ],
)
def test_a_bad_sweep_is_one_line_naming_the_field(
    tmp_path: Path, fields: dict[str, object], message: str
) -> None:
    path = write_sweep(tmp_path, **fields)
    with pytest.raises(InvalidSuiteError, match=message):
        load_sweep(path)
    result = runner.invoke(app, ["eval", "sweep", str(path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1


def test_a_sweep_naming_a_missing_suite_fails_before_any_cell(tmp_path: Path) -> None:
    sweep = Sweep(suites=["basic", "nowhere.yaml"], planners=["offline"])
    with pytest.raises(InvalidSuiteError, match=r"nowhere\.yaml"):
        next(run_sweep(sweep, tmp_path / "out"))
    assert not any((tmp_path / "out").glob("*.json"))
