"""One case's folder, environment and commands; `Ctx.run` runs one command and checks it."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

from .fake_llm import FakeLLM
from .fixtures import Fixtures, base_env
from .limits import API_KEY
from .model import Case, Cmd, Interrupt, Problem
from .process import Run, Watch, run_watched
from .verdicts import Verdicts, digest

READ_ONLY_WRAP = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (now)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Ctx(Verdicts):
    """One case's folder, environment and checks."""

    def __init__(self, case: Case, root: Path, server: FakeLLM, fixtures: Fixtures) -> None:
        self.case = case
        self.dir = root / re.sub(r"[^A-Za-z0-9_.-]", "_", case.id)
        self.dir.mkdir(parents=True)
        self.home = self.dir / "home"
        self.claw_home = self.dir / "claw_home"
        self.server = server
        self.fixtures = fixtures
        self.token = re.sub(r"[^A-Za-z0-9_-]", "_", case.id)
        self.problems: list[Problem] = []
        self.runs: list[Run] = []
        self.counter = itertools.count()
        self.free = free_port()
        self.inputs: dict[Path, str] = {}

    # -- setup ---------------------------------------------------------------------------------

    def setup(self) -> None:
        """Write the case's files and links, copy the library if asked, note every input's hash."""
        if self.case.library and self.fixtures.library is not None:
            shutil.copytree(self.fixtures.library, self.claw_home / "library")
        for name, content in self.case.files.items():
            path = self.dir / name
            path.parent.mkdir(parents=True, exist_ok=True)
            data = content(self.fixtures) if callable(content) else content
            path.write_bytes(data.encode() if isinstance(data, str) else data)
        for how, target, name in self.case.links:  # the same file by another name
            if how == "sym":
                (self.dir / name).symlink_to(self.dir / target)
            else:
                os.link(self.dir / target, self.dir / name)
        for path in self._files():
            self.inputs[path] = digest(path)

    def _files(self) -> Iterator[Path]:
        for path in self.dir.rglob("*"):
            if path.is_file() and not path.is_symlink():
                yield path

    # -- helpers for scripts -------------------------------------------------------------------

    def expand(self, arg: str) -> str:
        """`arg` with {API:behaviour}, {DIR}, {HOME}, {CLAW_HOME} and {FREE} put in."""

        def api(match: re.Match[str]) -> str:
            return self.server.base(match.group(1), self.token)

        arg = re.sub(r"\{API:([a-z0-9_]+)\}", api, arg)
        return (
            arg.replace("{DIR}", str(self.dir))
            .replace("{HOME}", str(self.home))
            .replace("{CLAW_HOME}", str(self.claw_home))
            .replace("{FREE}", str(self.free))
        )

    def composites(self) -> list[dict[str, object]]:
        """The composite records of this case's library, read from the manifest file."""
        manifest = self.claw_home / "library" / "manifest.json"
        try:
            data = json.loads(manifest.read_bytes())
        except (OSError, ValueError):
            return []
        return [
            r
            for r in data.get("skills", [])
            if isinstance(r, dict) and r.get("kind") == "composite"
        ]

    # -- running -------------------------------------------------------------------------------

    def run(self, cmd: Cmd) -> Run:
        """Run one command in the case's folder and environment, then check it."""
        args = [self.expand(a) for a in cmd.args]
        argv = [sys.executable, *args] if cmd.python else [sys.executable, "-m", "claw", *args]
        if cmd.read_only_home:
            self.claw_home.mkdir(parents=True, exist_ok=True)
            wrap = ["unshare", "-m", "--propagation", "private", "sh", "-c", READ_ONLY_WRAP]
            argv = [*wrap, "sh", str(self.claw_home), *argv]
        env = base_env(self.home, self.claw_home)
        for key, value in cmd.env.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = self.expand(value)
        cwd = self.dir / cmd.cwd
        cwd.mkdir(parents=True, exist_ok=True)
        watch = Watch(cmd.deadline)
        interrupt = cmd.interrupt
        if interrupt is not None:
            watch.signum = interrupt.signum
            watch.signal_due = lambda started, now: self._interrupt_due(interrupt, started, now)
        n = next(self.counter)  # unique even when a script runs commands side by side
        result = run_watched(argv, args, cwd, env, self.dir / f".run{n}", watch)
        self.runs.append(result)
        self.check(cmd, result)
        return result

    def _interrupt_due(self, interrupt: Interrupt, started: float, now: float) -> bool:
        if not interrupt.wait_request:
            return now - started >= interrupt.after_s
        log = self.server.log(self.token)
        if log:
            return now - log[0].at >= interrupt.after_s
        return now - started >= 90.0  # no request came: interrupt anyway, bounded

    # -- after the case ------------------------------------------------------------------------

    def final_checks(self) -> None:
        """Inputs unchanged, paths absent, no key or raw escape written, the server's check."""
        for name in self.case.unchanged:
            path = self.dir / name
            before = self.inputs.get(path)
            if before is None or not path.exists() or digest(path) != before:
                self.fail("side-effect", f"input {name} was changed or removed")
        for name in self.case.absent:
            if (self.dir / name).exists() or (self.dir / name).is_symlink():
                self.fail("side-effect", f"{name} exists and must not")
        self._scan_written()
        if self.case.server_check:
            problem = self.case.server_check(self.server.log(self.token))
            if problem:
                self.fail("wrong-output", problem)

    def _scan_written(self) -> None:
        """Files the case wrote: never the API key; no raw escape in what is shown as text."""
        raw = {self.dir / name for name in self.case.raw_outputs}
        storage = (self.claw_home, self.home)  # claw's own library and caches: stored, not shown
        for path in self._files():
            if self.inputs.get(path) == digest(path) or path.stat().st_size > 64 * 1024 * 1024:
                continue  # an unchanged input, or too big to scan
            data = path.read_bytes()
            rel = path.relative_to(self.dir)
            if API_KEY.encode() in data:
                self.fail("leak", f"the API key was written to {rel}")
            stored = any(path.is_relative_to(folder) for folder in storage)
            suffix = path.suffix in (".json", ".md", ".html", ".txt", ".yaml")
            if path in raw or stored or not suffix:
                continue
            if b"\x1b" in data:
                self.fail("ansi", f"a raw escape character was written to {rel}")
            elif b"\\u001b" in data.lower():  # JSON-escaped: harmless bytes, kept file text
                self.fail("note", f"{rel} keeps an escape character of its input, JSON-escaped")
