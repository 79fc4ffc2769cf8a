"""``claw bench planner``: the offline planner's latency over suites, refusals counted apart."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from claw.eval.bench import PHASES, bench_planner, default_suites

SUITE = """
name: tiny
scene: default
cases:
  - id: place
    instruction: put the red block next to the blue box
    goal: ["next_to(red_block, blue_box)"]
  - id: region
    instruction: put the green block in the far left corner
    goal: ["at(green_block, far left corner)"]
  - id: unknown
    instruction: put the purple block in the blue box
    expect_error: unknown_object
  - id: bad-scene
    instruction: put the red block on the green block
    scene: {objects: [{type: sphere, color: red}]}
    expect_error: invalid_scene
"""


def write_suite(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(SUITE)
    return path


def test_every_instruction_is_timed_and_refusals_are_counted(tmp_path: Path) -> None:
    result = bench_planner([str(write_suite(tmp_path))], repeats=2)
    (suite,) = result.suites
    assert suite.suite == "tiny" and suite.instructions == 3 and suite.refused == 1  # no scene: 1
    for phase in PHASES:
        times = suite.phases[phase]
        assert 0 < times.p50_ms <= times.p95_ms <= times.max_ms
    assert result.overall.instructions == 3 and result.first_plan_ms > 0
    assert {case for case, _ in result.slowest} == {"tiny/place", "tiny/region", "tiny/unknown"}
    assert suite.clauses == 3 and 0 < suite.parses_per_clause < 15  # lark searches per clause


def test_the_shipped_suites_are_the_default() -> None:
    assert {Path(p).stem for p in default_suites()} >= {"basic", "cap"}
    assert not any(Path(p).stem.startswith("heldout") for p in default_suites())


@pytest.mark.slow
def test_cli_json_and_a_missing_suite(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "claw", "bench", "planner", "--repeats", "1"]
    ok = subprocess.run(
        [*run, "--suite", str(write_suite(tmp_path)), "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    figures = json.loads(ok.stdout)
    assert figures["overall"]["instructions"] == 3
    assert set(figures["overall"]["phases"]) == set(PHASES)
    assert figures["overall"]["parses_per_clause"] > 0
    missing = subprocess.run(
        [*run, "--suite", str(tmp_path / "none.yaml")], capture_output=True, text=True, timeout=120
    )
    assert missing.returncode == 2
    assert (
        missing.stderr.strip() == f"error: invalid_suite: suite file {tmp_path}/none.yaml not found"
    )


def test_a_replanning_step_perceives_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from claw.perception.camera import CameraPerceiver
    from claw.perception.sensing import Sensing

    estimates: list[float] = []
    perceive = CameraPerceiver.perceive

    def counted(self: CameraPerceiver, env: object) -> object:
        estimates.append(env.data.time)  # type: ignore[attr-defined]
        return perceive(self, env)  # type: ignore[arg-type]

    monkeypatch.setattr(CameraPerceiver, "perceive", counted)
    sensing = Sensing(perception="camera")
    result = bench_planner([str(write_suite(tmp_path))], repeats=2, sensing=sensing)
    assert result.perception == "camera" and not result.sensor_noise
    # each case: the world as reset, then one estimate per replanning step, a control period
    # later each (the first case once more: the process's first plan); planning again at the
    # same instant estimates nothing new
    periods = [round(t / estimates[1]) for t in estimates]
    assert periods == [0, 1, 2, 3, 0, 1, 2, 0, 1, 2]
