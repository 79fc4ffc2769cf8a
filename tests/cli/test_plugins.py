"""Plugins the Python way: a distribution of its own (``tests/data/claw_echo``: one module, two
entry points) is installed, and its skill and its planner family run through ``claw`` — the
skill read offline by its own verbs and planned by a model's planner, the family named by
``--planner``. Nothing of claw is edited."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

DIST = Path(__file__).parents[1] / "data" / "claw_echo"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder the plugin distribution is installed into (on no other test's path)."""
    target, source = tmp_path_factory.mktemp("site"), tmp_path_factory.mktemp("dist")
    shutil.copytree(DIST, source, dirs_exist_ok=True)  # a build writes beside its source
    built = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--target", str(target), str(source)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert built.returncode == 0, f"the plugin did not install: {built.stderr[-1500:]}"
    return target


def run(site: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python`` with the plugin installed (``PYTHONPATH``) and a fresh ``CLAW_HOME``."""
    env = {**os.environ, "PYTHONPATH": str(site), "CLAW_HOME": str(home), "MUJOCO_GL": "egl"}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, timeout=300
    )


def test_the_plugins_skill_is_read_offline_by_its_verbs(site: Path, tmp_path: Path) -> None:
    done = run(site, tmp_path, "-m", "claw", "wave at the red block", "--json")
    result = json.loads(done.stdout)
    assert done.returncode == 0, done.stderr
    assert result["plan"] == [{"skill": "wave", "args": {"object": "red_block"}}]
    assert result["success"] and result["steps"][0]["success"]
    assert result["reader"] == "offline"


def test_the_plugins_planner_family_is_named_by_planner(site: Path, tmp_path: Path) -> None:
    done = run(site, tmp_path, "-m", "claw", "the blue box", "--planner", "echo", "--json")
    result = json.loads(done.stdout)
    assert done.returncode == 0, done.stderr
    assert [s["skill"] for s in result["steps"]] == ["wave"] and result["success"]
    listed = run(site, tmp_path, "-m", "claw", "x", "--planner", "no such planner", "--json")
    assert "echo (waves at the objects named)" in json.loads(listed.stdout)["error"]["message"]


def test_a_models_planner_sees_and_runs_the_plugins_skill(site: Path, tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import json
        from claw.planner import LLMPlanner
        from claw.runtime import Session, run_instruction

        asked = []
        def model(messages):
            asked.append(messages)
            return json.dumps({"goal": [], "steps": [
                {"skill": "wave", "args": {"object": "green_block"}}]})

        with Session("default") as session:
            session.reset(seed=0)
            planner = LLMPlanner("openai/mock-model", mock=model)
            result = run_instruction(session.env, "greet the green block", planner)
        print(json.dumps({"success": result.success, "offered": "wave" in str(asked[0]),
                          "schema": "wave" in json.dumps(planner.schema)}))
        """
    )
    done = run(site, tmp_path, "-c", script)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == {
        "success": True,
        "offered": True,
        "schema": True,
    }


def test_a_plugin_that_does_not_load_is_one_line(site: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    info = broken / "claw_broken-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: claw-broken\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[claw.planners]\nbroken = claw_broken:FAMILY\n")
    env = {**os.environ, "PYTHONPATH": f"{site}{os.pathsep}{broken}", "CLAW_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "claw", "wave at the red block", "--planner", "broken"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == 2
    (line,) = [x for x in done.stderr.splitlines() if x.startswith("error:")]
    assert "plugin_error" in line and "claw_broken" in line and "Traceback" not in done.stderr
