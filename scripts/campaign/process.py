"""Running one command: its process tree watched for memory and deadlines, killed whole by id."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .limits import AFTER_SIGINT, MEMORY_CAP_BYTES


def _proc_table() -> dict[int, tuple[int, int, int]]:
    """pid -> (ppid, starttime, rss bytes) for every process visible in /proc."""
    table: dict[int, tuple[int, int, int]] = {}
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read().decode(errors="replace")
            fields = stat[stat.rindex(")") + 2 :].split()
            # fields[0] is state; ppid is fields[1]; starttime fields[19]; rss pages fields[21]
            table[int(entry)] = (int(fields[1]), int(fields[19]), int(fields[21]) * page)
        except (OSError, ValueError, IndexError):
            continue
    return table


class Tree:
    """Every descendant of one root process seen while it ran, so none escapes a kill."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.seen: dict[int, int] = {}  # pid -> starttime

    def scan(self) -> int:
        """Refresh the descendants; return the tree's resident memory in bytes."""
        table = _proc_table()
        children: dict[int, list[int]] = {}
        for pid, (ppid, _start, _rss) in table.items():
            children.setdefault(ppid, []).append(pid)
        total, stack = 0, [self.root]
        for _ in range(100_000):  # bounded walk
            if not stack:
                break
            pid = stack.pop()
            if pid in table:
                total += table[pid][2]
                if pid != self.root:
                    self.seen.setdefault(pid, table[pid][1])
            stack.extend(children.get(pid, []))
        return total

    def alive(self) -> list[int]:
        """The descendants seen that still run (the same pid and start time)."""
        table = _proc_table()
        return [pid for pid, start in self.seen.items() if pid in table and table[pid][1] == start]

    def kill(self) -> None:
        """SIGKILL the root's process group and every descendant seen."""
        with contextlib.suppress(OSError):
            os.killpg(self.root, signal.SIGKILL)
        for pid in self.alive():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


@dataclass
class Run:
    """What one command did: its exit, its output and how it ended."""

    argv: list[str]
    rc: int | None
    stdout: str
    stderr: str
    seconds: float
    hung: bool = False
    memory: bool = False
    signalled: bool = False
    orphans: int = 0


@dataclass
class Watch:
    """How long a command may run, and when it is sent a signal (None: never)."""

    deadline: float
    signum: int | None = None
    #: (started, now) -> whether the signal is due now.
    signal_due: Callable[[float, float], bool] = lambda started, now: False


def run_watched(
    argv: list[str], shown: list[str], cwd: Path, env: dict[str, str], output: Path, watch: Watch
) -> Run:
    """Run `argv` in a session of its own, its output in files beside `output`, under `watch`.

    `shown` is the argument list the Run records (as the case wrote it, expanded).
    """
    out_path, err_path = output.with_suffix(".stdout"), output.with_suffix(".stderr")
    started = time.monotonic()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        tree = Tree(proc.pid)
        hung = memory = signalled = False
        signal_at: float | None = None
        last_scan = 0.0
        while proc.poll() is None:
            time.sleep(0.2)
            now = time.monotonic()
            if now - last_scan >= 1.0:
                last_scan = now
                if tree.scan() > MEMORY_CAP_BYTES:
                    memory = True
                    tree.kill()
                    break
            if watch.signum is not None and signal_at is None and watch.signal_due(started, now):
                tree.scan()
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, watch.signum)
                signalled, signal_at = True, now
            if now - started > watch.deadline or (
                signal_at is not None and now - signal_at > AFTER_SIGINT
            ):
                hung = True
                tree.scan()
                tree.kill()
                break
        rc = proc.wait()
    seconds = time.monotonic() - started
    orphans = 0
    if not hung and not memory:
        for _ in range(25):  # up to 5 s for children to finish exiting
            if not tree.alive():
                break
            time.sleep(0.2)
        orphans = len(tree.alive())
    tree.kill()
    result = Run(
        argv=shown,
        rc=rc,
        stdout=_read(out_path),
        stderr=_read(err_path),
        seconds=seconds,
        hung=hung,
        memory=memory,
        signalled=signalled,
        orphans=orphans,
    )
    out_path.unlink(missing_ok=True)
    err_path.unlink(missing_ok=True)
    return result


def _read(path: Path) -> str:
    with open(path, "rb") as handle:
        return handle.read(16 * 1024 * 1024).decode("utf-8", errors="replace")
