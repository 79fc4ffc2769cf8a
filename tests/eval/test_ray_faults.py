"""claw on Ray under faults (issue 22): a cluster that does not answer is one line within a
deadline, Ctrl-C and SIGTERM end the connection and the run, a malformed address is bad input,
workers run at the caller's priority, and a case that raises is that case's result."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from claw.cli import main
from claw.eval import load_suite
from claw.eval.cases import CaseResult
from claw.eval.ray_runner import CaseOutcome, check_address, run_cases

ray = pytest.importorskip("ray")

GUARD = 120
"""Seconds after which a command is taken to hang (the deadlines tested are far shorter)."""


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_claw(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """``claw ARGS`` in a session of its own, with Ctrl-C delivered as at a terminal."""
    return subprocess.Popen(
        [sys.executable, "-m", "claw", *map(str, args)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, **(env or {})}, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``proc``; it fails the test if ``proc`` hangs."""
    try:
        out, err = proc.communicate(timeout=GUARD)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"still running after {GUARD} s; stderr: {err[-1500:]}")
    return proc.returncode, out, err


def wait_until(ready: Any, what: str, limit: float = GUARD, must: bool = True) -> None:
    """Wait for ``ready()``; after ``limit`` seconds fail the test, or with ``must`` false go on."""
    deadline = time.monotonic() + limit
    while not ready():
        assert not must or time.monotonic() < deadline, f"never {what}"
        if time.monotonic() > deadline:
            return
        time.sleep(0.2)


def connecting(pid: int) -> bool:
    """Whether process ``pid`` is in claw's Ray block (its native stderr goes to Ray's log)."""
    try:
        return "claw-ray-" in os.readlink(f"/proc/{pid}/fd/2")
    except OSError:
        return False


# -- item 4: a cluster that does not answer, signals, malformed addresses -------------------------


@pytest.mark.slow
def test_nothing_listening_is_one_line_and_exit_2_at_the_deadline(tmp_path: Path) -> None:
    address = f"127.0.0.1:{free_port()}"
    proc = start_claw("eval", "basic", "--ray", address, env={"CLAW_RAY_TIMEOUT": "2"})
    code, _, err = finish(proc)
    assert code == 2, err[-1500:]
    assert err.splitlines() == [err.strip()], err[-1500:]  # one line: none of Ray's own
    assert err.startswith(f"error: ray_unreachable: Ray at '{address}' did not answer within 2 s")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_signal_ends_the_wait_for_a_cluster(tmp_path: Path, sig: signal.Signals) -> None:
    out = tmp_path / "out.json"
    args = ("eval", "basic", "--ray", f"127.0.0.1:{free_port()}", "--json", out)
    proc = start_claw(*args, env={"CLAW_RAY_TIMEOUT": "600"})  # only the signal ends it
    started = lambda: connecting(proc.pid) or proc.poll() is not None  # noqa: E731
    wait_until(started, "connecting", limit=60, must=False)
    time.sleep(0.5)  # in Ray's connection now
    proc.send_signal(sig)
    sent = time.monotonic()
    code, _, err = finish(proc)
    assert code == 130 and time.monotonic() - sent < 30, err[-1500:]  # about 1 s here
    assert err.splitlines() == [err.strip()], err[-1500:]  # none of Ray's log lines
    assert err.startswith("error: interrupted: after 0 of 118 cases")
    assert json.loads(out.read_text())["interrupted"] is True


@pytest.mark.parametrize("address", ["http://x:1", "x:99999", "x:0", "ray://:6379", "a b:1"])
def test_malformed_addresses_are_refused(address: str) -> None:
    with pytest.raises(ValueError, match=r"auto, ray://HOST:PORT or HOST:PORT") as refused:
        check_address(address)
    assert getattr(refused.value, "kind", None) == "invalid_input"


@pytest.mark.parametrize("command", [["eval", "basic"], ["tune", "reach"], ["eval", "sweep", "s"]])
def test_a_url_as_address_is_bad_input_exit_2(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*command, "--ray", "http://x:1"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.splitlines() == [err.strip()], err[-1500:]
    assert "error: invalid_input:" in err and "'http://x:1' is no Ray address" in err


@pytest.mark.parametrize("value", ["abc", "0", "-5", "nan", "1e9"])
def test_a_bad_connection_deadline_is_bad_input(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from claw.eval.exceptions import InvalidRayOptionError
    from claw.eval.ray_connect import connect_timeout

    monkeypatch.setenv("CLAW_RAY_TIMEOUT", value)
    with pytest.raises(InvalidRayOptionError, match="CLAW_RAY_TIMEOUT"):
        connect_timeout()


@pytest.mark.slow
def test_sigterm_during_a_run_cancels_it_and_writes_the_cases_done(
    local_ray: str, tmp_path: Path
) -> None:
    out = tmp_path / "out.json"
    proc = start_claw("eval", "basic", "--ray", local_ray, "--json", out)
    busy = lambda: ray.available_resources().get("CPU", 0) < 2 or proc.poll() is not None  # noqa: E731
    wait_until(busy, "ran a case")
    proc.send_signal(signal.SIGTERM)
    code, _, err = finish(proc)
    assert code == 130, err[-1500:]
    assert err.strip().splitlines()[-1].startswith("error: interrupted: after "), err[-1500:]
    assert json.loads(out.read_text())["interrupted"] is True
    wait_until(lambda: ray.available_resources().get("CPU", 0) == 2, "freed the CPUs")


# -- item 20: workers at the caller's priority -----------------------------------------------------


@pytest.mark.slow
def test_a_local_rays_workers_run_at_the_callers_niceness(local_ray: str) -> None:
    @ray.remote(num_cpus=1)
    def worker_niceness() -> int:
        return os.getpriority(os.PRIO_PROCESS, 0)

    assert ray.get(worker_niceness.remote()) == os.getpriority(os.PRIO_PROCESS, 0)


NICER_DRIVER = """
import json, os, sys
from claw.cli import main
from claw.eval import load_suite
from claw.eval.ray_runner import CaseOutcome, joined, run_cases

def niceness(suite_json, index, *rest):
    return CaseOutcome(index=index, result_json=json.dumps(os.getpriority(os.PRIO_PROCESS, 0)))

suite = load_suite("basic")
with joined(sys.argv[1]):
    args = (suite.model_dump_json(), suite.cases[:4], "offline", False, None, None)
    print(json.dumps([json.loads(o.result_json) for o in run_cases(*args, case_fn=niceness)]))
"""


@pytest.mark.slow
def test_case_tasks_run_at_their_callers_niceness_on_a_joined_cluster(local_ray: str) -> None:
    caller = min(19, os.getpriority(os.PRIO_PROCESS, 0) + 5)  # a raise: no privilege needed
    command = ["nice", "-n", "5", sys.executable, "-c", NICER_DRIVER, local_ray]
    done = subprocess.run(command, capture_output=True, text=True, timeout=GUARD)
    assert done.returncode == 0, done.stderr[-1500:]
    assert json.loads(done.stdout) == [caller] * 4


# -- item 1, on Ray: a case that raises is that case's result --------------------------------------


@pytest.mark.slow
def test_a_case_that_raises_in_a_task_is_that_cases_result(local_ray: str) -> None:
    suite = load_suite("basic")  # 16 cases on 2 CPUs: two cases a task

    def second_raises(suite_json: str, index: int, *rest: Any) -> CaseOutcome:
        if index == 1:
            raise RuntimeError("\x1b[31mboom\x1b[0m\nTraceback (most recent call last):")
        return CaseOutcome(index=index, result_json="{}")

    args = (suite.model_dump_json(), suite.cases[:16], "offline", False, None, None)
    outcomes = {o.index: o for o in run_cases(*args, case_fn=second_raises)}
    assert sorted(outcomes) == list(range(16))
    assert all(outcomes[i].result_json == "{}" for i in range(16) if i != 1)  # its neighbour too
    crashed = CaseResult.model_validate_json(outcomes[1].result_json or "")
    assert (crashed.id, crashed.success) == (suite.cases[1].id, False)
    assert crashed.error == "internal_error"
    assert "boom" in crashed.reason and "\x1b" not in crashed.reason and "\n" not in crashed.reason
