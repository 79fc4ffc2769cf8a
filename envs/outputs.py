"""Output paths, checked before any work: the folder exists, is writable, the suffix is right.

Nothing here creates a parent folder: a user who names ``/nowhere/x.mp4`` gets an error, not a
new ``/nowhere``. A folder output (``--report DIR``) may itself be created, inside a parent that
exists.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from claw.envs.exceptions import InvalidOutputError


def _probe(folder: Path, what: str, path: Path) -> None:
    """Create and remove a file in ``folder``: the one check of writability that root can fail."""
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".claw-probe-")
    except OSError as exc:
        raise InvalidOutputError(
            f"{what} {str(path)!r} cannot be written: {exc.strerror or exc} in {str(folder)!r}"
        ) from None
    os.close(fd)
    os.unlink(probe)


def _existing_folder(folder: Path, what: str, path: Path) -> None:
    if not folder.exists():
        raise InvalidOutputError(
            f"{what} {str(path)!r}: folder {str(folder)!r} does not exist; create it first"
        )
    if not folder.is_dir():
        raise InvalidOutputError(f"{what} {str(path)!r}: {str(folder)!r} is not a folder")


def check_output_file(
    path: str | os.PathLike[str], suffixes: Sequence[str] = (), what: str = "output file"
) -> Path:
    """``path`` as a ``Path`` if a file can be written there; else :class:`InvalidOutputError`.

    Args:
        path: The file to be written (later, by whoever asked).
        suffixes: The allowed suffixes (lower case, with the dot); empty for any.
        what: How the error names the file (``"video file"``, ``"--json file"``).
    """
    path = Path(path)
    if suffixes and path.suffix.lower() not in suffixes:
        raise InvalidOutputError(
            f"{what} {str(path)!r} must end in {' or '.join(suffixes)}, not "
            f"{path.suffix or 'nothing'!r}"
        )
    if path.is_dir():
        raise InvalidOutputError(f"{what} {str(path)!r} is a folder; name a file")
    folder = path.parent
    _existing_folder(folder, what, path)
    _probe(folder, what, path)
    return path


def check_output_dir(path: str | os.PathLike[str], what: str = "output folder") -> Path:
    """``path`` as a ``Path`` if it is (or can be created as) a writable folder."""
    path = Path(path)
    if path.exists():
        _existing_folder(path, what, path)
        _probe(path, what, path)
    else:
        _existing_folder(path.parent, what, path)
        _probe(path.parent, what, path)
    return path
