"""Where claw keeps what it writes, and how: its home folder, caches, atomic writes."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

HOME_ENV = "CLAW_HOME"
"""The folder claw keeps its skill library and caches in (``~/.claw`` where unset or empty)."""


def claw_home() -> Path:
    """``$CLAW_HOME``, or ``~/.claw`` where it is unset or empty."""
    return Path(os.environ.get(HOME_ENV) or "~/.claw").expanduser()


def cache_dir(name: str) -> Path:
    """``$CLAW_HOME/cache/NAME``: what is kept to save work, and can be deleted at any time."""
    return claw_home() / "cache" / name


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` all at once: temporary file, fsync, rename, fsync dir."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
