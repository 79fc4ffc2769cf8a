"""``claw "INSTRUCTION"`` as a user runs it: a subprocess, its JSON, exit codes, stderr, video.

Exit codes (docs/reference/failure-modes.md): 0 success, 1 attempted and failed, 2 bad input (one
line on stderr), 3 planner unavailable or unusable.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import yaml

RESULT_KEYS = {"instruction", "success", "goal", "plan", "steps", "replans", "sim_seconds",
               "wall_seconds", "error", "structured", "reader", "cached", "waypoints",
               "reading", "perception", "cause"}  # fmt: skip
DEFAULT_COMMAND = "put the red block next to the blue box"
COLD_START_LIMIT = 6.0  # CPU s, for the default command from a fresh interpreter
HEAVY = ("litellm", "torch", "stable_baselines3")


def claw(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}
    return subprocess.run(
        [sys.executable, "-m", "claw", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
    )


@pytest.mark.slow
def test_default_command_json_has_the_design_keys() -> None:
    result = claw(DEFAULT_COMMAND, "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert set(out) == RESULT_KEYS
    assert out["instruction"] == DEFAULT_COMMAND and out["success"] is True
    assert out["goal"] == ["next_to(red_block, blue_box)"] and out["error"] is None
    assert all(set(call) == {"skill", "args"} for call in out["plan"])
    step_keys = {"skill", "args", "success", "reason", "implementation"}
    assert all(set(step) == step_keys for step in out["steps"])
    assert [s["skill"] for s in out["steps"]] == ["pick", "place"]
    assert [s["implementation"] for s in out["steps"]] == ["controller", "controller"]
    assert out["replans"] == 0 and out["sim_seconds"] > 0 and out["wall_seconds"] > 0
    assert out["reader"] == "offline" and out["structured"] is None and out["cached"] is None


@pytest.mark.slow
@pytest.mark.parametrize("seed", [7, 19])
def test_default_command_on_other_seeds(
    seed: int, claw_in_process: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    # in this process (seconds less): the seed is what is tested; the user's process, above
    result = claw_in_process(DEFAULT_COMMAND, "--seed", str(seed), "--json")
    assert result.returncode == 0, result.stdout
    assert json.loads(result.stdout)["success"] is True


@pytest.mark.slow
def test_human_output_succeeds_quietly_on_stderr() -> None:
    result = claw(DEFAULT_COMMAND)
    assert result.returncode == 0
    assert "success" in result.stdout and result.stderr == ""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "kind"),
    [
        (("put the purple block in the blue box",), "unknown_object"),
        (("asdf qwerty",), "unparseable"),
        (("",), "unparseable"),
        (("rotate the red block 90 degrees",), "unsupported"),
        ((DEFAULT_COMMAND, "--scene", "nowhere"), "invalid_scene"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    args: tuple[str, ...],
    kind: str,
    claw_in_process: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    human = claw(*args)
    assert human.returncode == 2
    lines = human.stderr.strip().splitlines()
    assert lines[0].startswith(f"error: {kind}: "), human.stderr
    helped = [line for line in lines[1:] if line.startswith("try: ")]
    assert len(lines) == 1 + (lines[1].startswith("read: ") if helped else 0) + len(helped)
    assert bool(helped) == (kind in ("unknown_object", "unparseable") and args[0] != ""), lines
    # the same input under --json in this process: the document is the process's (seconds less)
    as_json = claw_in_process(*args, "--json")
    assert as_json.returncode == 2
    out = json.loads(as_json.stdout)
    assert set(out) == RESULT_KEYS and out["error"]["kind"] == kind and out["steps"] == []
    offered = [s["instruction"] for s in out["error"]["suggestions"]]
    assert offered == [line.removeprefix("try: ") for line in helped]


@pytest.mark.slow
def test_invalid_scene_file_exits_2(tmp_path: Path) -> None:
    scene = tmp_path / "overlap.yaml"
    scene.write_text(
        yaml.safe_dump(
            {
                "objects": [
                    {"type": "block", "color": "red", "pose": [0.45, 0.0]},
                    {"type": "block", "color": "blue", "pose": [0.46, 0.0]},
                ]
            }
        )
    )
    result = claw(DEFAULT_COMMAND, "--scene", str(scene), "--json")
    assert result.returncode == 2
    assert json.loads(result.stdout)["error"]["kind"] == "invalid_scene"


def test_unavailable_planner_exits_3(
    claw_in_process: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    """In this process: a new one would import litellm (~11 s); test_llm_planner.py's slow reply
    exits 3 from a process of its own."""
    keyless: dict[str, str | None] = {k: None for k in os.environ if k.endswith("_API_KEY")}
    result = claw_in_process(
        DEFAULT_COMMAND, "--planner", "some-model", "--json", env={**keyless, "CLAW_API_BASE": ""}
    )
    assert result.returncode == 3, result.stdout + result.stderr
    out = json.loads(result.stdout)
    assert out["error"]["kind"] == "planner_unavailable" and out["steps"] == []


@pytest.mark.slow
def test_a_task_that_reads_but_fails_exits_1(
    tmp_path: Path, claw_in_process: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """The green block sits in the way of pushing the red one left: attempted, failed."""
    scene = tmp_path / "blocked.yaml"
    scene.write_text(
        yaml.safe_dump(
            {
                "objects": [
                    {"type": "block", "color": "red", "pose": [0.45, 0.0]},
                    {"type": "block", "color": "green", "pose": [0.45, 0.08]},
                    {"type": "box", "color": "blue", "pose": [0.6, -0.2]},
                ]
            }
        )
    )
    # the JSON in this process (seconds less); the human output below from a user's process
    result = claw_in_process("push the red block 10 cm to the left", "--scene", scene, "--json")
    assert result.returncode == 1, result.stdout
    out = json.loads(result.stdout)
    assert out["success"] is False and out["error"] is None
    assert out["steps"] and not out["steps"][-1]["success"]
    assert "green_block" in out["steps"][-1]["reason"]
    human = claw("push the red block 10 cm to the left", "--scene", str(scene))
    assert human.returncode == 1 and "failed" in human.stdout
    assert " ".join(human.stdout.split()).count("green_block is in the way") == 1
    assert human.stderr == ""
    assert "why:" not in human.stdout  # the failed step's line said it (issue 37 finding 15)


@pytest.mark.slow
def test_video_gif_is_playable(
    tmp_path: Path, claw_in_process: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    import imageio.v3 as iio

    path = tmp_path / "x.gif"
    # a short task: writing a GIF costs about 0.08 s a frame; in this process (the file is
    # what is tested; a new process adds seconds of imports)
    result = claw_in_process("pick up the red block", "--video", path, "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    frames = iio.imread(path, index=None)
    assert frames.ndim == 4 and frames.shape[0] > 10 and frames.shape[-1] in (3, 4)
    assert float(np.abs(frames[-1].astype(int) - frames[0].astype(int)).mean()) > 0.1  # it moves


@pytest.mark.slow
def test_cold_start_is_fast_and_light() -> None:
    """A fresh interpreter runs the default command in time, importing no heavy library.

    Time is the child's CPU time, which a loaded machine does not stretch as it does the wall.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "claw", DEFAULT_COMMAND, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    elapsed = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert result.returncode == 0, result.stderr[-2000:]
    imported = {
        line.split("|")[-1].strip().split(".")[0]
        for line in result.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert not imported & set(HEAVY), imported & set(HEAVY)
    assert elapsed < COLD_START_LIMIT, f"{elapsed:.2f} CPU s"


NOT_RUN = (
    "claw.eval",  # the mock: and replay: families are entry points, read when named
    "claw.learning",
    "claw.planner.llm.planner",  # a model's planner, its prompts, schema and answer cache
    "claw.planner.llm.hybrid",
    "claw.planner.llm.prompting",
    "claw.planner.llm.schema",
    "claw.planner.llm.answer_cache",
    "claw.planner.llm.local",
    "claw.eval_commands",  # the other commands of the CLI
    "claw.bench_commands",
    "claw.train_commands",
    "claw.skills_commands",
    "OpenGL",  # a run that films nothing renders nothing
    "claw.envs.observations",  # a training env's images, and OpenCV, for camera policies only
    "cv2",
)


@pytest.mark.slow
def test_an_offline_run_imports_only_what_it_runs() -> None:
    code = textwrap.dedent(
        f"""
        import atexit, runpy, sys
        seen = lambda: sorted(m for m in sys.modules if m.startswith({NOT_RUN!r}))
        atexit.register(lambda: print(seen(), file=sys.stderr))  # the console script's exit
        sys.argv = ["claw", {DEFAULT_COMMAND!r}, "--json"]
        runpy.run_module("claw", run_name="__main__")
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "MUJOCO_GL"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stderr.strip().splitlines()[-1] == "[]"


@pytest.mark.slow
def test_in_process_run_imports_no_heavy_library() -> None:
    """The typer app run in-process (as the console script does) leaves these out of sys.modules."""
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from claw.cli import app\n"
        f"r = CliRunner().invoke(app, ['run', {DEFAULT_COMMAND!r}, '--json'])\n"
        "assert r.exit_code == 0, r.output\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == "[]"
