"""``--perception`` and ``--sensor-noise`` as a user gives them, and ``claw bench perception``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_run_cli import claw


@pytest.mark.slow
def test_a_run_through_the_cameras_reports_belief_and_truth() -> None:
    result = claw("put the red block in the blue box", "--perception", "camera", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["success"] is True and out["cause"] is None
    report = out["perception"]
    assert report["perceiver"] == "camera" and report["estimates"] >= 2
    names = {o["name"] for o in report["objects"]}
    assert {"red_block", "blue_box"} <= names
    for seen in report["objects"]:
        assert seen["seen"] and seen["error_mm"] < 10, seen


def test_a_run_that_sees_the_truth_reports_no_perception() -> None:
    result = claw("put the red block in the blue box", "--json", "--max-steps", "1")
    out = json.loads(result.stdout)
    assert out["perception"] is None


def test_an_unknown_perceiver_is_one_line_and_exit_2() -> None:
    result = claw("put the red block in the blue box", "--perception", "lidar")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown perceiver 'lidar'; allowed: truth, camera" in lines[0]


def test_eval_refuses_an_unknown_perceiver_before_any_case() -> None:
    result = claw("eval", "basic", "--perception", "lidar")
    assert result.returncode == 2
    assert "unknown perceiver 'lidar'" in result.stderr


def test_bench_perception_prints_its_figures_and_a_picture(tmp_path: Path) -> None:
    picture = tmp_path / "seen.png"
    result = claw(
        "bench", "perception", "--episodes", "2", "--scenes", "stacked", "--image", str(picture),
        "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["episodes"] == 2 and out["scenes"] == ["stacked"]
    assert out["overall"]["objects"] == 14
    assert out["overall"]["recall"] >= 0.9 and out["overall"]["precision"] >= 0.9
    assert out["estimate_ms"]["p50"] > 0
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bench_perception_refuses_an_image_that_is_not_a_png(tmp_path: Path) -> None:
    result = claw("bench", "perception", "--image", str(tmp_path / "seen.jpg"))
    assert result.returncode == 2
    assert ".png" in result.stderr
