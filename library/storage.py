"""The skill library on disk: a JSON manifest, artifact files, atomic writes under a lock.

Layout under ``$CLAW_HOME/library`` (default ``~/.claw/library``)::

    manifest.json           every version of every skill (``Manifest``)
    artifacts/NAME/vN/...   files a version needs (weights, configs), sha256 in the manifest
    index.faiss, index.json the retrieval index and what it was built from (derived; rebuilt)
    .lock                   writers hold an exclusive lock on it

Writes are atomic and locked (:class:`~claw.library.store.ManifestStore`). Nothing is ever
unpickled.

A library that cannot be written (a read-only or missing-and-uncreatable folder) is read as it
is: the built-in skills it lacks are held in memory (their shipped files read in place), the
index is not saved, and a note says so once on stderr. Writing to it (``register``,
``record_metrics``) is a :class:`LibraryWriteError` naming the folder.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from claw.common.files import atomic_write, claw_home
from claw.library.builtins import (
    builtin_records,
    bundled_artifacts,
    changed,
    fingerprint,
    implementation_ref,
    record_of,
)
from claw.library.embedding import Embedder, make_embedder
from claw.library.exceptions import LibraryWriteError
from claw.library.files import git_commit, sha256_of
from claw.library.index import SearchHit, SkillIndex
from claw.library.manifest import Artifact, Metrics, Provenance, SkillRecord
from claw.library.store import ARTIFACTS, BUILTINS_CHECKED, ManifestStore
from claw.skills.base import Skill
from claw.skills.exceptions import ArtifactError, UnknownSkillError
from claw.skills.policy import WEIGHTS_FILE, PolicyNetwork
from claw.skills.registry import skill_implementations, skill_names

logger = logging.getLogger(__name__)
_noted_read_only: set[Path] = set()  # libraries this process has said it cannot write


def default_root() -> Path:
    """``$CLAW_HOME/library``, or ``~/.claw/library`` where ``CLAW_HOME`` is unset or empty."""
    return claw_home() / "library"


class SkillLibrary(ManifestStore):
    """Persistent, versioned skills with retrieval.

    Args:
        root: The library folder (default ``$CLAW_HOME/library``).
        register_builtins: Register the built-in skills on first use (and a new version when
            one's description, examples or parameters change).
    """

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        register_builtins: bool = True,
        embedder: Embedder | str | None = None,
    ):
        super().__init__(Path(root) if root is not None else default_root())
        self._embedder = embedder
        self._index: SkillIndex | None = None
        self.read_only: str | None = None
        """Why the library cannot be written, once a write failed (``None``: writable)."""
        self._in_memory: list[SkillRecord] = []  # built-ins a read-only library lacks
        if register_builtins:
            self.sync_builtins()

    # -- retrieval -------------------------------------------------------------------------------

    @property
    def embedder(self) -> Embedder:
        """The text embedder (``CLAW_EMBEDDER`` or the default unless one was given)."""
        if self._embedder is None or isinstance(self._embedder, str):
            self._embedder = make_embedder(self._embedder)
        return self._embedder

    def index(self) -> SkillIndex:
        """The retrieval index, loaded or rebuilt so that it matches the manifest."""
        if self._index is None:
            self._index = SkillIndex(self.root, self.embedder)
        self._index.ensure(self.latest())
        if self._index.save_error is not None:  # searched in memory, not saved
            self.note_read_only(self._index.save_error.strerror or "not writable")
        return self._index

    def search(
        self,
        query: str,
        k: int = 5,
        kind: str | None = None,
        tags: Iterable[str] = (),
    ) -> list[SearchHit]:
        """The ``k`` skills (latest versions) whose texts are closest to ``query``.

        Args:
            query: What a person or planner asked for, in words.
            k: How many skills.
            kind: Only ``controller`` or only ``policy`` skills.
            tags: Only skills carrying all of these tags.
        """
        records = self.latest()
        index = self.index()
        wanted = set(tags)
        # A skill may have several implementations (a controller and a policy): it matches a
        # kind when one of them is of that kind, and that one is returned.
        of_kind: dict[str, SkillRecord] = {}
        if kind is not None:
            for record in self.latest_by_implementation():
                held = of_kind.get(record.name)
                if record.kind == kind and (held is None or record.version > held.version):
                    of_kind[record.name] = record
        by_key = {r.key: of_kind.get(r.name, r) if kind is not None else r for r in records}
        allowed = None
        if kind is not None or wanted:
            allowed = {
                r.key
                for r in records
                if (kind is None or r.name in of_kind) and wanted <= set(by_key[r.key].tags)
            }
        return [
            SearchHit(by_key[key], score, text)
            for key, score, text in index.search(query, k, allowed)
        ]

    # -- reading ---------------------------------------------------------------------------------

    def records(self) -> list[SkillRecord]:
        """Every version of every skill (with the built-ins held in memory, if read-only)."""
        return self.manifest().skills + self._in_memory

    def latest(self, records: Iterable[SkillRecord] | None = None) -> list[SkillRecord]:
        """The latest version of each skill, by name."""
        newest: dict[str, SkillRecord] = {}
        for record in self.records() if records is None else records:
            if record.name not in newest or record.version > newest[record.name].version:
                newest[record.name] = record
        return sorted(newest.values(), key=lambda r: r.name)

    def get(self, name: str, version: int | None = None) -> SkillRecord:
        """A skill's latest version, or the version asked for.

        Raises:
            UnknownSkillError: no such skill or version; the message lists what there is.
        """
        versions = [r for r in self.records() if r.name == name]
        if not versions:
            known = ", ".join(r.name for r in self.latest()) or "none"
            raise UnknownSkillError(f"unknown skill {name!r}; the library has: {known}")
        if version is None:
            return max(versions, key=lambda r: r.version)
        for record in versions:
            if record.version == version:
                return record
        have = ", ".join(str(r.version) for r in sorted(versions, key=lambda r: r.version))
        raise UnknownSkillError(f"{name} has no version {version}; versions: {have}")

    # -- writing ---------------------------------------------------------------------------------

    def note_read_only(self, reason: str) -> None:
        """Go on without writing; say so once per process and library (one ``note:`` line)."""
        self.read_only = reason
        if self.root not in _noted_read_only:
            _noted_read_only.add(self.root)
            logger.warning(
                "note: the skill library at %s is read-only (%s); using it without saving",
                self.root,
                reason,
            )

    def register(
        self,
        name: str,
        *,
        kind: str,
        implementation: str,
        description: str,
        examples: Iterable[str] = (),
        params_schema: dict[str, Any] | None = None,
        artifacts: Iterable[str | os.PathLike[str]] = (),
        metrics: Metrics | None = None,
        provenance: Provenance | None = None,
        tags: Iterable[str] = (),
        observation: str = "state",
    ) -> SkillRecord:
        """Add a skill, or a new version of one; artifact files are copied in with their sha256.

        Returns:
            The record written (its ``version`` is one past any the name has had).
        """
        with self._locked() as manifest:
            version = manifest.next_version(name)
            stored = self._store_artifacts(name, version, [Path(a) for a in artifacts])
            record = SkillRecord(
                name=name,
                version=version,
                kind=kind,
                implementation=implementation,
                description=description,
                examples=list(examples),
                params_schema=params_schema or {},
                artifacts=stored,
                metrics=metrics,
                provenance=provenance or Provenance(git_commit=git_commit()),
                tags=list(tags),
                observation=observation,
            )
            manifest.skills.append(record)
        return record

    def record_metrics(self, name: str, implementation: str, metrics: Metrics) -> SkillRecord:
        """Set the measured metrics of the latest record of ``name`` with ``implementation``.

        Raises:
            UnknownSkillError: no such record.
        """
        with self._locked() as manifest:
            matching = [
                r for r in manifest.skills if r.name == name and r.implementation == implementation
            ]
            if not matching:
                raise UnknownSkillError(
                    f"the library has no {name} implemented by {implementation}"
                )
            record = max(matching, key=lambda r: r.version)
            record.metrics = metrics
        return record

    def measured_success(self) -> dict[tuple[str, str], float]:
        """Measured success rates by (skill name, implementation name), where measured."""
        refs = {
            implementation_ref(cls): (name, implementation)
            for name in skill_names()
            for implementation, cls in skill_implementations(name).items()
        }
        return {
            refs[r.implementation]: r.metrics.success_rate
            for r in self.latest_by_implementation()
            if r.metrics is not None and r.implementation in refs
        }

    def _store_artifacts(self, name: str, version: int, files: list[Path]) -> list[Artifact]:
        folder = self.root / ARTIFACTS / name / f"v{version}"
        stored = []
        for source in files:
            if not source.is_file():
                raise ArtifactError(f"artifact {source} is not a file")
            target = folder / source.name
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)
            except OSError as exc:
                raise LibraryWriteError(self.root, exc) from None
            stored.append(
                Artifact(
                    path=str(target.relative_to(self.root)),
                    sha256=sha256_of(target),
                    bytes=target.stat().st_size,
                )
            )
        return stored

    def sync_builtins(self) -> list[SkillRecord]:
        """Register the registered skill classes the library lacks, or whose text changed.

        A class that ships files (a trained policy) is registered with copies of them; a policy
        the user trained and registered later is newer and is not replaced. When the library
        cannot be written, they are held in memory for this process (their shipped files read
        where they are) and a note says so once. The check is made once per claw version and
        set of skill classes (and again whenever the manifest changed since): its outcome is
        kept as a fingerprint (:data:`~claw.library.store.BUILTINS_CHECKED`).
        """
        classes = [cls for name in skill_names() for cls in skill_implementations(name).values()]
        checked = fingerprint(classes)
        stamp = self._builtins_stamp(checked)
        if stamp is not None and stamp == self._read_stamp():
            return []
        current = {
            r.implementation: r
            for r in self.latest_by_implementation(builtin_records(self.records()))
        }
        stale = [cls for cls in classes if changed(current.get(implementation_ref(cls)), cls)]
        added: list[SkillRecord] = []
        if stale and self.read_only is None:
            try:
                added = self._write_builtins(stale)
            except LibraryWriteError as exc:
                self.note_read_only(exc.reason)
        if stale and self.read_only is not None:
            return self._hold_builtins(stale)
        stamp = self._builtins_stamp(checked)
        if stamp is not None:
            with contextlib.suppress(OSError):  # unkept: checked again next time
                atomic_write(self.root / BUILTINS_CHECKED, stamp.encode())
        return added

    def _builtins_stamp(self, checked: str) -> str | None:
        """The fingerprint with the manifest as it is now (``None``: there is no manifest)."""
        try:
            stat = self.manifest_path.stat()
        except OSError:
            return None
        return f"{checked} {stat.st_size} {stat.st_mtime_ns}"

    def _read_stamp(self) -> str | None:
        try:
            return (self.root / BUILTINS_CHECKED).read_text()
        except (OSError, UnicodeDecodeError):
            return None

    def _hold_builtins(self, stale: list[type[Skill]]) -> list[SkillRecord]:
        """The stale built-ins as records in memory, their artifacts the shipped files."""
        held = []
        for cls in stale:
            version = 1 + max((r.version for r in self.records() if r.name == cls.name), default=0)
            record = record_of(cls, version, "builtin")
            record.artifacts = [
                Artifact(path=str(p.resolve()), sha256=sha256_of(p), bytes=p.stat().st_size)
                for p in bundled_artifacts(cls)
            ]
            self._in_memory.append(record)
            held.append(record)
        return held

    def _write_builtins(self, stale: list[type[Skill]]) -> list[SkillRecord]:
        added = []
        with self._locked() as manifest:
            builtins = builtin_records(manifest.skills)
            latest = {r.implementation: r for r in self.latest_by_implementation(builtins)}
            for cls in stale:
                if not changed(latest.get(implementation_ref(cls)), cls):
                    continue  # another process registered it meanwhile
                version = manifest.next_version(cls.name)
                record = record_of(cls, version, "builtin")
                record.artifacts = self._store_artifacts(cls.name, version, bundled_artifacts(cls))
                manifest.skills.append(record)
                added.append(record)
        return added

    def latest_by_implementation(
        self, records: Iterable[SkillRecord] | None = None
    ) -> list[SkillRecord]:
        """The latest record of each implementation."""
        newest: dict[str, SkillRecord] = {}
        for record in self.records() if records is None else records:
            held = newest.get(record.implementation)
            if held is None or record.version > held.version:
                newest[record.implementation] = record
        return list(newest.values())

    # -- artifacts and code ----------------------------------------------------------------------

    def artifact_paths(self, record: SkillRecord) -> dict[str, Path]:
        """The record's artifact files by name, each checked against its sha256.

        Raises:
            ArtifactError: a file is missing or differs from what was registered.
        """
        paths = {}
        for artifact in record.artifacts:
            path = self.root / artifact.path  # absolute for built-ins held in memory
            if not path.is_file():
                raise ArtifactError(f"artifact {path} of {record.key} is missing")
            digest = sha256_of(path)
            if digest != artifact.sha256:
                raise ArtifactError(
                    f"artifact {path} of {record.key} has sha256 {digest[:12]}…, the manifest "
                    f"says {artifact.sha256[:12]}…: refusing to load it"
                )
            paths[Path(artifact.path).name] = path
        return paths

    def policy(self, cls: type[Skill]) -> PolicyNetwork:
        """The latest registered policy of a policy skill class, its weights checked.

        Raises:
            ArtifactError: no policy is registered for it, or its files are missing or differ
                from what the manifest records.
        """
        ref = implementation_ref(cls)
        records = [r for r in self.latest_by_implementation() if r.implementation == ref]
        if not records or not records[0].artifacts:
            raise ArtifactError(f"the library has no trained policy for {cls.name}")
        record = records[0]
        paths = self.artifact_paths(record)
        weights = next(a.sha256 for a in record.artifacts if a.path.endswith(WEIGHTS_FILE))
        return _load_policy(paths[WEIGHTS_FILE].parent, weights)

    def skill_class(self, record: SkillRecord) -> type[Skill]:
        """The registered ``Skill`` class a record names (never imported from the manifest).

        Raises:
            UnknownSkillError: no registered class matches the record's implementation.
        """
        for cls in skill_implementations(record.name).values():
            if implementation_ref(cls) == record.implementation:
                return cls
        raise UnknownSkillError(
            f"{record.key} names implementation {record.implementation!r}, which is not a "
            "registered skill in this process"
        )


@functools.lru_cache(maxsize=16)
def _load_policy(folder: Path, weights_sha256: str) -> PolicyNetwork:
    return PolicyNetwork.load(folder, expected_sha256=weights_sha256)
