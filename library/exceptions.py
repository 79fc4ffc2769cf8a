"""The skill library's errors: a library that cannot be read or written."""

from __future__ import annotations

from pathlib import Path

from claw.common.exceptions import ClawError


class LibraryError(ClawError, RuntimeError):
    """The skill library cannot be read or written (a damaged manifest, a failed write)."""

    kind = "library_error"


class LibraryWriteError(LibraryError):
    """The library's folder cannot be written (read-only, not creatable, not a folder)."""

    def __init__(self, root: Path, exc: OSError) -> None:
        self.reason = exc.strerror or type(exc).__name__
        super().__init__(f"cannot write the skill library at {root} ({self.reason})")
