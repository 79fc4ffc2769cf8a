"""The results file of ``claw bench all``: every figure the docs quote, each with the command
that reproduces it, and where, when and from what it was measured (pydantic models).

``docs/results.md`` is rendered from one such file by ``scripts/results_page.py``.
"""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FORMAT = 1
"""The results file's format; a change that breaks old files' reading raises it."""
PACKAGES = {
    "claw": "claw",
    "python": "",
    "mujoco": "mujoco",
    "numpy": "numpy",
    "torch": "torch",
    "gymnasium": "gymnasium",
    "stable-baselines3": "stable-baselines3",
    "litellm": "litellm",
    "lark": "lark",
    "faiss": "faiss-cpu",
}
"""The versions recorded: name in the file -> distribution (read from metadata, not imported;
Python's own from ``platform``)."""
SOURCE = Path(__file__).resolve().parents[1]
"""The checkout claw runs from (an editable install's tree)."""


class Commit(BaseModel):
    """The code measured: ``git rev-parse HEAD`` of the checkout, and whether tracked files
    differed from it (``None``: not a git checkout)."""

    sha: str | None
    dirty: bool | None


class Machine(BaseModel):
    """Where it was measured."""

    cpu: str
    cores: int
    memory_gib: float
    os: str


class Entry(BaseModel):
    """One benchmark run: its figures (``result``, the bench's own ``--json`` object) and the
    command that reproduces them."""

    model_config = ConfigDict(extra="forbid")

    name: str
    """Unique in the file: ``BENCH`` or ``BENCH/PART`` (``env/dense``, ``eval/basic/offline``)."""
    bench: str
    command: str
    status: Literal["ok", "failed"]
    error: str | None = None
    """A failed run's one-line error."""
    seconds: float
    result: dict[str, Any] = Field(default_factory=dict)


class Results(BaseModel):
    """One ``claw bench all`` run."""

    model_config = ConfigDict(extra="forbid")

    format: int = FORMAT
    command: str
    quick: bool
    """Run at ``--quick``'s tiny budgets: its figures are smoke, not results."""
    budget: dict[str, Any]
    commit: Commit
    versions: dict[str, str | None]
    machine: Machine
    date: str
    """When the run started (UTC, ISO 8601)."""
    wall_seconds: float = 0.0
    entries: list[Entry] = Field(default_factory=list)

    def entry(self, name: str) -> Entry | None:
        """The entry called ``name``, if the run has it."""
        return next((e for e in self.entries if e.name == name), None)

    def failed(self) -> list[Entry]:
        """The entries that failed."""
        return [e for e in self.entries if e.status == "failed"]


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(SOURCE), *args], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def commit() -> Commit:
    """The checkout's commit and whether its tracked files were changed."""
    sha = _git("rev-parse", "HEAD")
    status = _git("status", "--porcelain", "--untracked-files=no")
    return Commit(
        sha=sha.strip() if sha else None, dirty=bool(status.strip()) if status is not None else None
    )


def versions() -> dict[str, str | None]:
    """The installed versions of :data:`PACKAGES` (``None``: not installed)."""
    found: dict[str, str | None] = {}
    for name, distribution in PACKAGES.items():
        if not distribution:
            found[name] = platform.python_version()
            continue
        try:
            found[name] = metadata.version(distribution)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> float:
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 0.0
    return round(pages * size / 2**30, 1)


def machine() -> Machine:
    """This machine: CPU model, cores, memory, operating system."""
    cores = os.cpu_count() or 1
    return Machine(cpu=_cpu_model(), cores=cores, memory_gib=_memory_gib(), os=platform.platform())


def start(command: str, quick: bool, budget: dict[str, Any]) -> Results:
    """A results file for a run starting now, with no entry yet."""
    return Results(
        command=command,
        quick=quick,
        budget=budget,
        commit=commit(),
        versions=versions(),
        machine=machine(),
        date=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )


def load_results(path: str | Path) -> Results:
    """Read a results file.

    Raises:
        OSError: it cannot be read.
        ValueError: it is not a results file of this format (pydantic's ValidationError).
    """
    return Results.model_validate_json(Path(path).read_bytes())
