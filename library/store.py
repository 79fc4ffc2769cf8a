"""The library's manifest on disk: read whole, written atomically under the writers' lock.

Writes go to a temporary file that is fsynced and renamed over the old one, so a crash leaves
either the previous manifest or the new one, never a torn file. The artifacts of versions a write
drops are deleted after it, still under the lock; what a killed writer left behind
(temporary files, artifact folders no record names) is removed by the next write once it is
``ORPHAN_AGE`` seconds old.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import ValidationError

from claw.common.files import atomic_write
from claw.library.exceptions import LibraryError, LibraryWriteError
from claw.library.files import remove_folders, remove_old
from claw.library.manifest import Manifest

MANIFEST = "manifest.json"
LOCK = ".lock"
ARTIFACTS = "artifacts"
ORPHAN_AGE = 60.0  # s: a temporary file or unnamed artifact folder this old has no live writer
BUILTINS_CHECKED = "builtins.checked"
"""The fingerprint of the skill classes the built-in records were last checked against, and
of the manifest as that check left it (:meth:`SkillLibrary.sync_builtins`)."""
WRITTEN_FILES = (MANIFEST, "index.faiss", "index.json", "index.centroids.npy", BUILTINS_CHECKED)
"""Files written atomically in the root: their temporaries are ``.NAME.*``."""


class ManifestStore:
    """The manifest of the library in ``root``: reading, locked atomic writes, clean-up."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.manifest_path = root / MANIFEST

    def manifest(self) -> Manifest:
        """The manifest as it is on disk (empty when there is none yet).

        Raises:
            LibraryError: the file is not a valid manifest; the message names it.
        """
        try:
            data = self.manifest_path.read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return Manifest()
        except OSError as exc:
            raise LibraryError(
                f"cannot read library manifest {self.manifest_path} ({exc.strerror or exc})"
            ) from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise LibraryError(
                f"library manifest {self.manifest_path} is damaged (not UTF-8 text at byte "
                f"{exc.start}); restore it from a backup or move it away to start a new library"
            ) from None
        try:
            return Manifest.model_validate_json(text)
        except ValidationError as exc:
            problem = exc.errors()[0]
            where = ".".join(str(p) for p in problem["loc"])
            raise LibraryError(
                f"library manifest {self.manifest_path} is damaged ({where}: {problem['msg']}); "
                "restore it from a backup or move it away to start a new library"
            ) from None

    @contextmanager
    def _locked(self) -> Iterator[Manifest]:
        """Hold the writers' lock; yields the current manifest, saved atomically on exit.

        Raises:
            LibraryWriteError: the folder cannot be written; the message names it.
        """
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            lock = (self.root / LOCK).open("a")
        except OSError as exc:
            raise LibraryWriteError(self.root, exc) from None
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                manifest = self.manifest()
                held = self._version_folders(manifest)
                yield manifest
                data = manifest.model_dump_json(indent=1).encode()
                try:
                    atomic_write(self.manifest_path, data)
                except OSError as exc:
                    raise LibraryWriteError(self.root, exc) from None
                remove_folders(sorted(held - self._version_folders(manifest)))
                self._remove_orphans(manifest)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _version_folders(self, manifest: Manifest) -> set[Path]:
        """``artifacts/NAME/vN`` of each version in ``manifest`` (a version dropped from it
        under the lock has its folder deleted there, after the write, before the lock is let go:
        no other writer can have reused it meanwhile)."""
        return {self.root / ARTIFACTS / r.name / f"v{r.version}" for r in manifest.skills}

    def check_writable(self) -> None:
        """Make sure the library can be written, before work whose result it must store.

        Raises:
            LibraryWriteError: it cannot; the message names the folder.
        """
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            (self.root / LOCK).open("a").close()
            probe = self.root / f".{MANIFEST}.probe-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise LibraryWriteError(self.root, exc) from None

    def _remove_orphans(self, manifest: Manifest, age: float = ORPHAN_AGE) -> list[Path]:
        """Remove what killed writers left (under the lock, after a write): temporary files and
        artifact folders no record names, when older than ``age`` seconds. Returns them."""
        named = {(self.root / a.path).parent for r in manifest.skills for a in r.artifacts}
        temporaries = [t for name in WRITTEN_FILES for t in self.root.glob(f".{name}.*")]
        versions = list((self.root / ARTIFACTS).glob("*/v*"))
        return remove_old(temporaries, [v for v in versions if v not in named], age)
