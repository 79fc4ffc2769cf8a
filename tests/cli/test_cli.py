"""The ``claw`` command line, run as a user runs it: a subprocess, exit codes, stdout/stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import imageio.v3 as iio
import pytest

pytestmark = pytest.mark.slow


def claw(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "claw", *args], capture_output=True, text=True, timeout=120
    )


def test_help_lists_commands() -> None:
    result = claw("--help")
    assert result.returncode == 0
    assert "bench" in result.stdout and "scene" in result.stdout


def test_bench_observations_json_prices_each_mode_against_state() -> None:
    result = claw("bench", "observations", "--steps", "10", "--size", "32", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    modes = {m["obs_mode"]: m for m in figures["modes"]}
    assert list(modes) == ["state", "depth", "rgbd", "state+depth", "state+rgbd"]
    assert modes["state"]["overhead_ms"] == 0.0 and modes["depth"]["step_ms"] > 0
    # depth: two 32 x 32 uint8 views beside the proprio and goal vectors; rgbd adds 3 planes each
    assert modes["depth"]["observation_bytes"] == 2 * 32 * 32 + 8 * (15 + 3)
    assert modes["rgbd"]["observation_bytes"] == 4 * 2 * 32 * 32 + 8 * (15 + 3)


def test_bench_env_json() -> None:
    result = claw("bench", "env", "--steps", "50", "--repeats", "1", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["substeps_per_env_step"] == 25
    assert figures["raw_steps_per_second"] > 0 and figures["env_physics_steps_per_second"] > 0
    assert 0 < figures["ratio"] < 1.5
    assert figures["env_real_time_factor"] > 1


def test_scene_show_json_matches_env_layout() -> None:
    from claw.envs.tabletop import TabletopEnv

    result = claw("scene", "show", "default", "--seed", "7", "--json")
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)["objects"]
    env = TabletopEnv()
    env.reset(seed=7)
    state = env.world_state()
    for row in shown:
        position = state.objects[row["name"]].position
        assert position[:2] == pytest.approx([row["x"], row["y"]], abs=1e-3)


def test_scene_show_renders_png(tmp_path: Path) -> None:
    out = tmp_path / "scene.png"
    result = claw("scene", "show", "dense", "--seed", "1", "--image", str(out), "--camera", "top")
    assert result.returncode == 0, result.stderr
    image = iio.imread(out)
    assert image.ndim == 3 and image.shape[2] == 3 and image.std() > 10


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("scene", "show", "nowhere"), "unknown scene 'nowhere'"),
        (("scene", "show", "default", "--image", "x.jpg"), "must end in .png"),
        (("scene", "show", "default", "--image", "x.png", "--camera", "moon"), "unknown camera"),
        (("bench", "env", "--scene", "nowhere"), "unknown scene"),
        (("bench", "observations", "--task", "dance"), "unknown task 'dance'; allowed: reach"),
        (("bench", "observations", "--views", "ceiling"), "unknown camera(s) ['ceiling']"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], needle: str) -> None:
    result = claw(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and lines[0].startswith("error: ")


def test_invalid_scene_file_names_the_problem(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("objects:\n  - {type: sphere, color: red}\n")
    result = claw("scene", "show", str(bad), "--json")
    assert result.returncode == 2
    error = json.loads(result.stdout)["error"]
    assert error["kind"] == "invalid_scene" and "sphere" in error["message"]


def test_scene_show_says_what_each_object_starts_on_or_in() -> None:
    result = claw("scene", "show", "stacked", "--json")
    assert result.returncode == 0, result.stderr
    rows = {row["name"]: row for row in json.loads(result.stdout)["objects"]}
    assert rows["green_block"]["on"] == "red_block" and rows["red_block"]["on"] is None
    assert rows["yellow_block"]["in"] == "gray_box"
