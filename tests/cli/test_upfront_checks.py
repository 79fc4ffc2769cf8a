"""Issue 37, hardening round three: what the commands print and check up front.

Each test failed on the code before its fix: a tracking store that cannot be used (minutes of
MLflow's retries, then a traceback and a password), MLflow's INFO lines, a ``-k`` near its cap,
seeds past 2**32 - 1, Minari's warnings, a run folder made before the checks, lines said twice.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from claw.envs import TabletopEnv
from claw.envs.predicates import evaluate_goal
from claw.skills.base import SkillResult
from tests.cli.test_failure_modes import one_error_line

Claw = Callable[..., subprocess.CompletedProcess[str]]
PASSWORD = "s3cr3t-claw-test-pw"


def claw(
    *args: str | Path, cwd: str | Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``claw ARGS`` in a process of its own (Python's own warnings reach its stderr), bounded:
    a command that hangs fails the test rather than the suite."""
    full = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl"), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "claw", *map(str, args)],
        capture_output=True, text=True, timeout=90, env=full, cwd=cwd,
    )  # fmt: skip


# -- 3, 20: MLflow ------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "uri",
    [f"http://alice:{PASSWORD}@127.0.0.1:1", "sqlite:////proc/x.db", "::bad::", None],
    ids=["unreachable-server", "unwritable-sqlite", "a-path", "default-store-in-/proc"],
)
def test_a_tracking_store_that_cannot_be_used_is_one_line_before_anything(
    uri: str | None, tmp_path: Path
) -> None:
    """The store is probed up front (the server within CLAW_MLFLOW_PROBE_TIMEOUT, no retries):
    exit 2, one line, no password, no run folder (MLflow retried for 100-250 s, then raised)."""
    given = ("--tracking-uri", uri) if uri is not None else ()
    result = claw(
        "train", "reach", "--tracker", "mlflow", *given, "--runs-dir", tmp_path / "runs",
        cwd="/proc" if uri is None else tmp_path,
        env={"CLAW_MLFLOW_PROBE_TIMEOUT": "2", "MLFLOW_TRACKING_URI": ""},
    )  # fmt: skip
    assert result.returncode == 2
    line = one_error_line(result, "tracking_unavailable")
    assert PASSWORD not in result.stdout + result.stderr
    assert not (tmp_path / "runs").exists()
    assert ("alice:***@" in line) if uri is not None and "alice" in uri else True


@pytest.mark.slow
def test_a_server_that_answers_but_is_no_mlflow_store_is_refused_up_front() -> None:
    # it was taken for a store: the cases ran, and the run ended tracking_unavailable after them
    import http.server
    import threading

    from claw.learning.exceptions import TrackingUnavailableError
    from claw.learning.tracking_store import probe_store

    class Chat(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = b'{"choices": [{"message": {"content": "{}"}}]}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Chat)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(TrackingUnavailableError, match="not an MLflow tracking server"):
            probe_store(f"http://127.0.0.1:{server.server_port}/v1", timeout=5)
    finally:
        server.shutdown()


@pytest.mark.slow
def test_mlflow_says_nothing_below_warning(tmp_path: Path, claw_in_process: Claw) -> None:
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    result = claw_in_process(
        "eval", "basic", "--limit", "1", "--tracker", "mlflow", "--tracking-uri", uri
    )
    assert result.returncode == 0, result.stderr
    assert "INFO" not in result.stderr and "alembic" not in result.stderr, result.stderr


# -- 15: each reason once -----------------------------------------------------------------------


def test_the_verdict_does_not_repeat_a_reason_shown(
    default_env: TabletopEnv, capsys: pytest.CaptureFixture[str]
) -> None:
    from claw.run_command import LiveView
    from claw.runtime import RunResult

    view = LiveView()
    reason = "green_block is in the way of pushing red_block left"
    view("step", SkillResult(skill="push", success=False, reason=reason))
    view.result(RunResult(instruction="x", success=False, reason=f"step push failed: {reason}"))
    check = evaluate_goal(["in(red_block, blue_box)"], default_env.world_state())
    view("goal", check)
    view.result(RunResult(instruction="x", success=False, reason=check.reason))
    view.result(RunResult(instruction="x", success=False, reason="the gripper still holds a"))
    out = " ".join(capsys.readouterr().out.split())
    assert out.count("in the way of pushing") == 1, out
    assert out.count(check.results[0].reason) == 1, out
    assert out.count("why:") == 1 and "why: the gripper still holds a" in out, out


def test_a_failed_skill_run_says_its_reason_once(library_home: Path, claw_in_process: Claw) -> None:
    result = claw_in_process("skills", "run", "move_to", "--arg", "x=0.95", "--arg", "y=0",
                             "--arg", "z=0.2")  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    out = " ".join(result.stdout.split())
    assert out.count("out of reach") == 1, out


# -- 17: seeds past 2**32 - 1 -------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [("demos", "record", "reach"), ("bench", "two-arm"), ("bench", "skills", "--no-tasks")],
)
def test_seeds_that_pass_the_range_are_refused_up_front(
    command: tuple[str, ...], tmp_path: Path, claw_in_process: Claw
) -> None:
    result = claw_in_process(
        *command, "--seed", "4294967295", "--episodes", "2",
        env={"MINARI_DATASETS_PATH": str(tmp_path)},
    )  # fmt: skip
    assert result.returncode == 2
    line = one_error_line(result, "invalid_input")
    assert "4294967295 … 4294967296" in line and "at most 4294967294" in line, line
    assert result.stdout == "" and not list(tmp_path.iterdir())


# -- 18: Minari's warnings ----------------------------------------------------------------------


@pytest.mark.slow
def test_a_damaged_dataset_is_a_note_not_minaris_warnings(tmp_path: Path) -> None:
    folder = tmp_path / "claw" / "reach" / "bad-v0" / "data"
    folder.mkdir(parents=True)
    (folder / "metadata.json").write_text("{not json")
    env = {"MINARI_DATASETS_PATH": str(tmp_path)}
    listed = claw("demos", "list", env=env)
    assert listed.returncode == 0 and "no local datasets" in listed.stdout
    lines = listed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("note: "), listed.stderr
    assert "claw/reach/bad-v0" in lines[0] and "UserWarning" not in listed.stderr
    shown = claw("demos", "show", "bad", env=env)
    assert shown.returncode == 2
    assert "damaged" in one_error_line(shown, "invalid_config")


# -- 19: no run folder before the checks --------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [("pick", "--demos", "nosuch"), ("reach", "--hyperparams", "env_kwargs.bogus=1")],
    ids=["missing-demos", "env-setting"],
)
def test_train_checks_before_it_makes_a_run_folder(
    args: tuple[str, ...], tmp_path: Path, claw_in_process: Claw
) -> None:
    result = claw_in_process(
        "train", *args, "--runs-dir", tmp_path / "runs", "--steps", "10",
        env={"MINARI_DATASETS_PATH": str(tmp_path / "minari")},
    )  # fmt: skip
    assert result.returncode == 2
    one_error_line(result, "invalid_config")
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())


# -- 21: -k near its cap ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expression", ["a " * 495 + "and", "z" * 995], ids=["malformed", "selects-none"]
)
def test_a_long_k_expression_keeps_the_reason_on_the_line(
    expression: str, claw_in_process: Claw
) -> None:
    result = claw_in_process("eval", "basic", "-k", expression)
    assert result.returncode == 2
    line = one_error_line(result, "invalid_input")
    assert len(line) < 400, line
    assert line.endswith(("parentheses", "cases of suite basic")), line
