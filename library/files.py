"""Files the library writes and checks: sha256, old runs removed, the git commit of the code
(atomic writes are :func:`claw.common.files.atomic_write`)."""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import subprocess
import time
from functools import cache
from pathlib import Path


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


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


@cache
def git_commit() -> str | None:
    """The commit of claw's checkout (``None`` outside one), asked of git once per process."""
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
