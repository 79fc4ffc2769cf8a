"""Files the library writes and checks: atomic writes, sha256, the git commit of the code."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


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


def remove_old(files: list[Path], folders: list[Path], age: float) -> list[Path]:
    """Delete the ``files`` and ``folders`` untouched for ``age`` seconds (a folder counts as
    touched when anything in it is); emptied parent folders go too. Returns what was deleted."""
    cutoff = time.time() - age

    def old(path: Path) -> bool:
        try:
            inside = list(path.rglob("*")) if path.is_dir() else []
            return max(p.lstat().st_mtime for p in [path, *inside]) < cutoff
        except OSError:
            return False  # vanished or unreadable: leave it

    removed = []
    for path in files:
        if path.is_file() and old(path):
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed + remove_folders([path for path in folders if old(path)])


def remove_folders(folders: list[Path]) -> list[Path]:
    """Delete the ``folders`` that exist, and their parents left empty. Returns them."""
    removed = []
    for path in folders:
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
            with contextlib.suppress(OSError):
                path.parent.rmdir()  # only if now empty
    return removed


def git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=2,
            cwd=Path(__file__).parent,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None
