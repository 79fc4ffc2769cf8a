"""Output paths, checked before any work: the folder exists, is writable, the suffix is right.

Nothing here creates a parent folder: a user who names ``/nowhere/x.mp4`` gets an error, not a
new ``/nowhere``. A folder output (``--report DIR``) may itself be created, inside a parent that
exists. An output may not be one of the command's inputs, nor another of its outputs
(:func:`check_apart`).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from claw.common.exceptions import InvalidOutputError


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


NamedPath = tuple[str, str | os.PathLike[str] | None]
"""A path and how a message names it (``("the suite being read", "S.yaml")``); ``None``: none."""


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether ``a`` and ``b`` are one file: by identity where both exist, else by resolved path."""
    try:
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
        return Path(a).resolve() == Path(b).resolve()
    except (OSError, RuntimeError):  # a symlink loop: not the same as anything else
        return os.path.abspath(a) == os.path.abspath(b)


def check_apart(inputs: Iterable[NamedPath], outputs: Iterable[NamedPath]) -> None:
    """Refuse, with :class:`InvalidOutputError`, an output that is an input or another output.

    Args:
        inputs: The files a command reads, each with its role (``"the suite being read"``).
        outputs: The files it writes, each with its role (``"--json file"``), in option order.
    """
    sources = [(role, path) for role, path in inputs if path is not None]
    written: list[tuple[str, str | os.PathLike[str]]] = []
    for role, path in outputs:
        if path is None:
            continue
        for source_role, source in sources:
            if same_file(path, source):
                raise InvalidOutputError(
                    f"{role} {str(path)!r} is {source_role}; write to another file"
                )
        for other_role, other in written:
            if same_file(path, other):
                raise InvalidOutputError(
                    f"{role} {str(path)!r} is also the {other_role}; name two different files"
                )
        written.append((role, path))
