"""The command line under Ctrl-C, outputs named as inputs, and an empty ``CLAW_HOME`` (issue 22,
items 11, 12 and 17)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from claw.common.exceptions import InvalidOutputError
from claw.eval.runner import suite_result
from claw.eval.suite import Suite
from claw.library.storage import default_root

LONG_RUN = (
    "put the red block left of the blue box, then put the green block right of the blue box, then "
    "put the red block in front of the blue box, then put the green block behind the blue box, "
    "then put the red block right of the blue box, then put the green block left of the blue box, "
    "then put the yellow block in front of the blue box, then put the red block behind the blue "
    "box, then put the yellow block in the blue box"
)
"""18 steps, about 4 s of wall time on physics after the library opens (3 steps gave 1.7 s, which
a loaded machine's late poll could miss: the run ended before its Ctrl-C). Never run to its end."""
QUICK_FAIL = {"id": "q", "instruction": "put the purple block in the blue box", "goal": []}
"""A case that fails before anything moves (no purple block): no physics to wait for."""
HANG_GUARD = 300  # s: only against a hang; never a pass criterion


def environ(home: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "CLAW_HOME": str(home), "CLAW_EMBEDDER": "hash", **extra}


def claw(
    *args: str | Path, home: Path, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "claw", *map(str, args)],
        capture_output=True, text=True, timeout=HANG_GUARD, cwd=cwd, env=environ(home),
    )  # fmt: skip


def write_yaml(path: Path, data: Any) -> Path:
    path.write_text(yaml.safe_dump(data))
    return path


# -- item 11: Ctrl-C ------------------------------------------------------------------------------


def _default_sigint() -> None:
    """Ctrl-C's default in the command, as a terminal gives it: a test run started in the
    background of a non-interactive shell ignores SIGINT, and its children would inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Interrupted:
    """A claw command sent SIGINT, as a terminal's Ctrl-C sends it (to its process group), once
    ``started()`` says it is at work."""

    def __init__(self, args: list[str | Path], home: Path, started: Callable[[], bool]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "claw", *map(str, args)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environ(home),
            start_new_session=True, preexec_fn=_default_sigint,
        )  # fmt: skip
        self.stdout = ""
        self.started = started
        self.signalled = False

    def run(self) -> Interrupted:
        end = time.monotonic() + HANG_GUARD
        while not self.started() and self.process.poll() is None and time.monotonic() < end:
            time.sleep(0.02)
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
            self.signalled = True
        assert self.process.stdout is not None and self.process.stderr is not None
        self.stdout += self.process.stdout.read()
        self.stderr = self.process.stderr.read()
        self.returncode = self.process.wait(timeout=HANG_GUARD)
        assert self.signalled, (  # it must still be at work when the sign of work appears
            f"the command ended (exit {self.returncode}) before it could be stopped: "
            f"{self.stderr[-500:]}"
        )
        return self

    def first_line(self) -> str:
        """Wait for the first stdout line (read here, so none is lost)."""
        assert self.process.stdout is not None
        self.stdout = self.process.stdout.readline()
        return self.stdout


def library_opened(home: Path) -> Callable[[], bool]:
    """A sign the command is past its start: the fresh library it opened is on disk."""
    return (home / "library" / "manifest.json").exists


@pytest.mark.slow
def test_ctrl_c_during_a_run_under_json_prints_the_result_so_far(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run = Interrupted([LONG_RUN, "--json"], home, library_opened(home)).run()
    assert run.returncode == 130, run.stdout + run.stderr
    lines = run.stdout.strip().splitlines()
    assert len(lines) == 1, run.stdout  # one JSON object, the whole result
    result = json.loads(lines[0])
    error = result["error"]
    assert (error["kind"], error["message"]) == ("interrupted", "stopped by the user")
    assert error["suggestions"] == []
    assert result["instruction"] == LONG_RUN and result["success"] is False
    assert run.stderr == "", run.stderr  # under --json the error is reported once, on stdout


@pytest.mark.slow
def test_ctrl_c_during_a_run_says_interrupted_on_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run = Interrupted([LONG_RUN], home, lambda: True)
    assert run.first_line().startswith("plan: ")  # planned; the steps run on physics now
    run.run()
    assert run.returncode == 130, run.stdout + run.stderr
    assert run.stderr == "error: interrupted: stopped by the user\n"


@pytest.mark.slow
def test_ctrl_c_during_skills_run_under_json_prints_one_error_object(tmp_path: Path) -> None:
    home = tmp_path / "home"
    args = ["skills", "run", "pick", "--arg", "object=red_block", "--json"]
    run = Interrupted(args, home, library_opened(home)).run()
    assert run.returncode == 130, run.stdout + run.stderr
    assert json.loads(run.stdout) == {
        "error": {"kind": "interrupted", "message": "stopped by the user"}
    }
    assert run.stderr == ""


@pytest.mark.slow
def test_ctrl_c_while_eval_writes_its_report_says_so_and_keeps_the_results(
    tmp_path: Path,
) -> None:
    """The results are written to --json before the report (whose GIFs run cases again)."""
    home, results = tmp_path / "home", tmp_path / "results.json"
    suite = write_yaml(tmp_path / "suite.yaml", {"name": "quick", "cases": [QUICK_FAIL]})
    args = ["eval", suite, "--json", results, "--report", tmp_path / "report"]
    run = Interrupted(args, home, results.exists).run()
    assert run.returncode == 130, run.stdout + run.stderr
    assert run.stderr.splitlines() == ["error: interrupted: stopped by the user"]
    assert [case["id"] for case in json.loads(results.read_text())["cases"]] == ["q"]


# -- item 12: an output is never an input, nor another output --------------------------------------


def refused(result: subprocess.CompletedProcess[str], *words: str) -> str:
    """The one ``invalid_output`` line of a refusal before anything ran, naming ``words``."""
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: invalid_output: "), result.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    return write_yaml(tmp_path / "suite.yaml", {"name": "quick", "cases": [QUICK_FAIL]})


@pytest.mark.slow
def test_eval_json_onto_its_suite_is_refused(tmp_path: Path, suite_file: Path) -> None:
    before = suite_file.read_bytes()
    line = refused(claw("eval", suite_file, "--json", suite_file, home=tmp_path / "h"))
    assert f"--json file '{suite_file}' is the suite being read" in line
    link = tmp_path / "link.yaml"
    link.symlink_to(suite_file)  # another name of the same file
    refused(claw("eval", suite_file, "--json", link, home=tmp_path / "h"), "the suite being read")
    assert suite_file.read_bytes() == before


@pytest.mark.slow
def test_eval_json_and_record_on_one_file_is_refused(tmp_path: Path, suite_file: Path) -> None:
    out = tmp_path / "out.json"
    result = claw("eval", suite_file, "--json", out, "--record", f"./{out.name}",
                  home=tmp_path / "h", cwd=tmp_path)  # fmt: skip
    refused(result, "--record file 'out.json' is also the --json file")
    assert not out.exists()


@pytest.mark.slow
def test_eval_record_onto_its_replay_cassette_is_refused(tmp_path: Path, suite_file: Path) -> None:
    cassette = tmp_path / "cassette.json"
    cassette.write_text(json.dumps({"model": "m", "answers": {}}))
    before = cassette.read_bytes()
    result = claw("eval", suite_file, "--planner", f"replay:{cassette}", "--record", cassette,
                  home=tmp_path / "h")  # fmt: skip
    refused(result, "--record file", "the replay cassette being read")
    assert cassette.read_bytes() == before


@pytest.mark.slow
def test_eval_report_over_its_suite_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    suite = folder / "results.json"  # a suite may be JSON; the report writes results.json
    suite.write_text(json.dumps({"name": "quick", "cases": [QUICK_FAIL]}))
    before = suite.read_bytes()
    refused(claw("eval", suite, "--report", folder, home=tmp_path / "h"),
            "--report file", "the suite being read")  # fmt: skip
    assert suite.read_bytes() == before


@pytest.mark.slow
def test_eval_compare_json_onto_a_result_compared_is_refused(tmp_path: Path) -> None:
    suite = Suite.model_validate({"name": "s", "cases": [QUICK_FAIL]})
    empty = suite_result(suite, "offline", None, [], 0.0).model_dump_json()  # no case run yet
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(empty)
    b.write_text(empty)
    refused(claw("eval", "compare", a, b, "--json", a, home=tmp_path / "h"),
            f"--json file '{a}' is result 1 being compared")  # fmt: skip
    report = tmp_path / "report"
    report.mkdir()
    (report / "results.json").write_text(empty)
    refused(claw("eval", "compare", report, b, "--json", report / "results.json",
                 home=tmp_path / "h"), "result 1 being compared")  # fmt: skip
    assert a.read_text() == empty


@pytest.mark.slow
def test_sweep_out_over_its_sweep_file_is_refused(tmp_path: Path, suite_file: Path) -> None:
    out = tmp_path / "sweep"
    out.mkdir()
    sweep = out / "table.json"  # the table the sweep writes last
    sweep.write_text(json.dumps({"suites": [str(suite_file)], "planners": ["offline"]}))
    before = sweep.read_bytes()
    refused(claw("eval", "sweep", sweep, "--out", out, home=tmp_path / "h"),
            "--out file", "the sweep file being read")  # fmt: skip
    assert sweep.read_bytes() == before


@pytest.mark.slow
def test_scene_image_onto_its_scene_is_refused(tmp_path: Path) -> None:
    scene = tmp_path / "scene.png"  # a scene file is read whatever its name
    scene.write_text(yaml.safe_dump({"name": "s", "objects": [{"type": "block", "color": "red"}]}))
    before = scene.read_bytes()
    refused(claw("scene", "show", scene, "--image", scene, home=tmp_path / "h"),
            "image file", "the scene being read")  # fmt: skip
    assert scene.read_bytes() == before


@pytest.mark.slow
def test_run_video_onto_its_scene_is_refused(tmp_path: Path) -> None:
    scene = tmp_path / "scene.mp4"
    scene.write_text(yaml.safe_dump({"name": "s", "objects": [{"type": "block", "color": "red"}]}))
    before = scene.read_bytes()
    result = claw("pick up the red block", "--scene", scene, "--video", scene, "--json",
                  home=tmp_path / "h")  # fmt: skip
    assert result.returncode == 2, result.stdout + result.stderr
    error = json.loads(result.stdout)["error"]
    assert error["kind"] == "invalid_output" and "the scene being read" in error["message"]
    assert scene.read_bytes() == before


def test_same_file_is_by_identity_where_both_exist(tmp_path: Path) -> None:
    from claw.common.outputs import check_apart, same_file  # (new in issue 22)

    a = tmp_path / "a.txt"
    a.write_text("x")
    os.link(a, tmp_path / "hard.txt")
    assert same_file(a, tmp_path / "hard.txt")  # two names, one file
    assert same_file(tmp_path / "sub" / ".." / "new.json", tmp_path / "new.json")  # neither exists
    assert not same_file(a, tmp_path / "new.json")
    check_apart([("the suite being read", a)], [("--json file", tmp_path / "b"), ("x", None)])
    with pytest.raises(InvalidOutputError, match=r"'.*b' is also the --json file"):
        check_apart([], [("--json file", tmp_path / "b"), ("--record file", tmp_path / "b")])


# -- item 17: an empty CLAW_HOME is the default ---------------------------------------------------


@pytest.mark.slow
def test_an_empty_claw_home_means_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAW_HOME", "")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert default_root() == tmp_path / "user" / ".claw" / "library"
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    env = {**os.environ, "CLAW_HOME": "", "HOME": str(tmp_path / "user"), "CLAW_EMBEDDER": "hash"}
    result = subprocess.run(
        [sys.executable, "-m", "claw", "skills", "list", "--json"],
        capture_output=True, text=True, timeout=HANG_GUARD, cwd=cwd, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert list(cwd.iterdir()) == []  # no ./library
    assert (tmp_path / "user" / ".claw" / "library" / "manifest.json").is_file()


@pytest.mark.slow
def test_a_tune_storage_that_cannot_be_opened_is_one_line(tmp_path: Path) -> None:
    """A --storage URL Optuna cannot open is bad input, named, before any trial."""
    result = subprocess.run(
        [sys.executable, "-m", "claw", "tune", "reach", "--trials", "1", "--steps", "10",
         "--storage", "bogus://x", "--study-dir", str(tmp_path / "study")],
        capture_output=True, text=True, timeout=HANG_GUARD, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: invalid_config: --storage 'bogus://x'")
    assert not list((tmp_path / "study").glob("trial*"))
