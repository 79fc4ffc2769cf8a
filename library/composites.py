"""Composite skills in the library: learning them from runs, loading them checked, their uses.

A composite is a :class:`~claw.library.manifest.SkillRecord` of kind ``composite``
(implementation ``composite:NAME``) whose steps are its one artifact, ``composite.json``, with
its sha256 in the manifest: a body that differs from what was stored, or that does not validate
as a :class:`~claw.library.composite.CompositeBody`, is refused (``artifact_rejected``) before
anything moves, as a tampered policy is. Its measured success is kept in ``metrics``:
``episodes`` uses, ``conditions`` ``{"uses", "successes", "last_run"}``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from claw.common.exceptions import ClawError
from claw.library.composite import (
    BODY_FILE,
    MAX_BODY_BYTES,
    MAX_NAME,
    CompositeBody,
    abstract,
    canonical,
    composite_name,
    expand,
    generalise,
    structure_key,
    unknown_composite,
)
from claw.library.exceptions import LibraryWriteError
from claw.library.files import git_commit
from claw.library.manifest import Manifest, Metrics, Provenance, SkillRecord
from claw.library.storage import SkillLibrary
from claw.skills.exceptions import ArtifactError, InvalidParamsError, UnknownSkillError
from claw.skills.plans import SkillCall
from claw.skills.registry import skill_names

KIND = "composite"
STRUCTURE_TAG = "structure:"


def is_composite(record: SkillRecord) -> bool:
    return record.kind == KIND


def _usage(record: SkillRecord) -> dict[str, int]:
    conditions = record.metrics.conditions if record.metrics is not None else {}
    return {k: int(conditions.get(k, 0)) for k in ("uses", "successes", "last_run")}


def _set_usage(record: SkillRecord, uses: int, successes: int, last_run: int) -> None:
    record.metrics = Metrics(
        success_rate=successes / uses if uses else 0.0,
        episodes=uses,
        conditions={"uses": uses, "successes": successes, "last_run": last_run},
    )


class Composites:
    """The library's composites, as the executor and the planners use them."""

    def __init__(self, library: SkillLibrary) -> None:
        self.library = library

    def records(self, all_versions: bool = False) -> list[SkillRecord]:
        """Composite records: the latest version of each (or every version)."""
        records = self.library.records() if all_versions else self.library.latest()
        return [r for r in records if is_composite(r)]

    def names(self) -> list[str]:
        return [r.name for r in self.records()]

    def load(self, record: SkillRecord) -> CompositeBody:
        """A composite's body, checked against its sha256 and validated.

        Raises:
            ArtifactError: missing, tampered with, or not a valid composite.
        """
        if not is_composite(record) or len(record.artifacts) != 1:
            raise ArtifactError(f"{record.key} is not a stored composite: refusing to run it")
        path = self.library.artifact_paths(record)[BODY_FILE]
        try:
            if path.stat().st_size > MAX_BODY_BYTES:
                raise ValueError(f"{path.stat().st_size} bytes, more than {MAX_BODY_BYTES}")
            body = CompositeBody.model_validate_json(path.read_bytes())
        except (ValidationError, OSError, ValueError) as exc:
            why = _first_problem(exc)
            message = f"composite {record.key} does not validate ({why}): refusing it"
            raise ArtifactError(message) from None
        if f"{STRUCTURE_TAG}{structure_key(body)[:16]}" not in record.tags:
            raise ArtifactError(f"composite {record.key} differs from its record: refusing it")
        return body

    def choose(
        self, name: str, args: Mapping[str, Any] | None = None, arms: int | None = None
    ) -> SkillRecord:
        """The version of ``name`` to run: of those whose parameters ``args`` fits, the latest
        unless every one has been measured, then the best measured success (ties: the latest).

        Raises:
            UnknownSkillError: no composite has this name (the message lists the composites and
                the skills, those a scene of ``arms`` arms offers where given).
        """
        versions = [r for r in self.records(all_versions=True) if r.name == name]
        if not versions:
            raise unknown_composite(name, self.names(), arms)
        if args is not None:
            fitting = [r for r in versions if set(r.params_schema.get("properties", {})) == {*args}]
            versions = fitting or versions
        measured = [
            (r.metrics.success_rate, r.version, r)
            for r in versions
            if r.metrics is not None and r.metrics.episodes
        ]
        if len(measured) == len(versions):
            return max(measured, key=lambda m: m[:2])[2]
        return max(versions, key=lambda r: r.version)

    def expand_call(
        self, call: SkillCall, object_names: Sequence[str] | None, arms: int | None = None
    ) -> tuple[str, list[SkillCall]]:
        """(the version's ``name@version``, its steps with the call's arguments bound).

        Raises:
            UnknownSkillError, InvalidParamsError, ArtifactError: as the cause says, one line
                (an unknown name: the skills a scene of ``arms`` arms offers, where given).
        """
        record = self.choose(call.skill, call.args, arms)
        return record.key, expand(call.skill, self.load(record), call.args, object_names)

    def expanded_length(self, calls: Sequence[SkillCall]) -> int:
        """How many primitive steps ``calls`` run, a composite counting as its steps (one that
        cannot be expanded counts as one: running it is refused with its own error)."""
        total = 0
        for call in calls:
            if call.skill in skill_names():
                total += 1
                continue
            try:
                total += len(self.load(self.choose(call.skill, call.args)).steps)
            except ClawError:
                total += 1
        return total

    def record_use(self, key: str, success: bool) -> SkillRecord | None:
        """Add one use (and its measured success) to composite ``name@version``, atomically;
        ``None`` where the library cannot be written (said once, in a ``note:`` line)."""
        name, _, version = key.partition("@")
        try:
            with self.library._locked() as manifest:
                record = _find(manifest, name, int(version))
                usage = _usage(record)
                _set_usage(
                    record, usage["uses"] + 1, usage["successes"] + int(success), manifest.runs + 1
                )
        except LibraryWriteError as exc:
            self.library.note_read_only(exc.reason)
            return None
        return record

    def note_run(self, strict: bool = True) -> int | None:
        """Count one run reported to the library; the runs so far. Where the library cannot be
        written: ``LibraryWriteError``, or with ``strict=False`` a ``note:`` line (once) and
        ``None``."""
        try:
            with self.library._locked() as manifest:
                manifest.runs += 1
        except LibraryWriteError as exc:
            if strict:
                raise
            self.library.note_read_only(exc.reason)
            return None
        return manifest.runs


def _first_problem(exc: Exception) -> str:
    """The first problem of a validation error (``steps: List should have at most 50 items``)."""
    if not isinstance(exc, ValidationError):
        return str(exc)
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"{where}: {first['msg']}" if where else first["msg"]


def _find(manifest: Manifest, name: str, version: int) -> SkillRecord:
    for record in manifest.skills:
        if record.name == name and record.version == version and is_composite(record):
            return record
    raise UnknownSkillError(f"the library has no composite {name}@{version}")


def plan_calls(calls: Sequence[SkillCall], composites: Composites) -> tuple[list[SkillCall], bool]:
    """A plan's calls with each composite expanded; whether it had a composite."""
    flat: list[SkillCall] = []
    had = False
    for call in calls:
        if call.skill in skill_names():
            flat.append(call)
        else:
            flat.extend(composites.expand_call(call, None)[1])
            had = True
    return flat, had


def learn_from_run(
    library: SkillLibrary,
    instruction: str,
    result: Any,
    seed: int,
    *,
    scene: str | Mapping[str, Any] | None = None,
    planner: str | None = None,
    success: bool | None = None,
) -> SkillRecord | None:
    """Learn a composite from a run that succeeded on physics (``claw "…" --learn``).

    Counts the run (``Manifest.runs``). A run that failed, stopped on an error, replanned, or
    whose plan is under two steps or is a single composite teaches nothing (``None``). Else its
    plan (composites expanded) is generalised: a body with the structure of a stored composite
    adds the instruction as an example phrase and a measured use to it; else it is stored as a
    new composite, or as a new version of the composite with the same description (a name
    another structure of another description has is made unique with the structure's hash).

    Args:
        library: Where to store it.
        instruction: The run's instruction.
        result: Its ``RunResult`` (``success`` was judged on the settled physics).
        seed: The scene's seed.
        scene: The scene's name or mapping (provenance).
        planner: The planner's name (provenance).
        success: The run's success as the caller judged it on the settled physics (``claw eval``:
            the case's ground truth); ``None``: ``result.success``.

    Returns:
        The record stored or updated, or ``None``.
    """
    composites = Composites(library)
    succeeded = bool(result.success if success is None else success)
    learnable = _learnable(result, composites) if succeeded else None
    if learnable is None:
        composites.note_run()
        return None
    body, values = learnable
    description = abstract(instruction, values)
    key = structure_key(body)
    learned = {
        "instruction": instruction, "seed": seed,
        "scene": scene if isinstance(scene, str | None) else dict(scene),
        "planner": planner, "success": succeeded, "steps": len(result.steps),
        "sim_seconds": float(result.sim_seconds),
        "goal": [str(p) for p in result.goal],
    }  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp, library._locked() as manifest:
        manifest.runs += 1
        tag = STRUCTURE_TAG + key[:16]
        same = [r for r in manifest.skills if is_composite(r) and tag in r.tags]
        if same:
            record = max(same, key=lambda r: r.version)
            if instruction.lower() not in (e.lower() for e in record.examples):
                record.examples.append(instruction)
            usage = _usage(record)
            _set_usage(record, usage["uses"] + 1, usage["successes"] + 1, manifest.runs)
            return record
        name = _new_name(manifest, description, key)
        version = manifest.next_version(name)
        source = Path(tmp) / BODY_FILE
        source.write_bytes(canonical(body))
        record = SkillRecord(
            name=name,
            version=version,
            kind=KIND,
            implementation=f"{KIND}:{name}",
            description=description,
            examples=[instruction],
            params_schema=body.params_schema(),
            artifacts=library._store_artifacts(name, version, [source]),
            provenance=Provenance(source="learned", git_commit=git_commit(), learned_from=learned),
            tags=[KIND, STRUCTURE_TAG + key[:16]],
        )
        _set_usage(record, 1, 1, manifest.runs)
        manifest.skills.append(record)
    return record


def _new_name(manifest: Manifest, description: str, key: str) -> str:
    """The name of a new structure: its description's words (cut at ``MAX_NAME``). Where that
    name is taken by anything but composites of the same description (the same task, done
    another way: a new version of it), the structure's hash makes it unique."""
    base = composite_name(description, skill_names())
    same_task = description.casefold()
    for name in (base, *(f"{base[: MAX_NAME - n - 1].rstrip('_')}_{key[:n]}" for n in (8, 16))):
        others = [r for r in manifest.skills if r.name == name]
        if all(is_composite(r) and r.description.casefold() == same_task for r in others):
            return name
    return f"composite_{key}"


def _learnable(result: Any, composites: Composites) -> tuple[CompositeBody, dict[str, str]] | None:
    """The generalised plan of a run worth learning from, or ``None``."""
    if result.error is not None or result.replans:
        return None
    if not result.steps or not all(s.success for s in result.steps):
        return None
    if len(result.plan) == 1 and result.plan[0].skill not in skill_names():
        return None  # already a single composite
    try:
        flat, _ = plan_calls(result.plan, composites)
        if len(flat) < 2:
            return None
        return generalise(flat)
    except (InvalidParamsError, UnknownSkillError, ArtifactError, ValidationError):
        return None


def prune(
    library: SkillLibrary,
    min_success: float | None = None,
    unused_runs: int | None = None,
    dry_run: bool = False,
) -> list[SkillRecord]:
    """Remove composite versions measured below ``min_success`` or unused for ``unused_runs``
    runs; with ``dry_run``, only say which. Returns them.

    Raises:
        InvalidParamsError: neither criterion given, or one out of range.
    """
    if min_success is None and unused_runs is None:
        raise InvalidParamsError("give --min-success X (0 to 1) and/or --unused-runs N (N ≥ 1)")
    if min_success is not None and not 0.0 <= min_success <= 1.0:
        raise InvalidParamsError(f"--min-success must be between 0 and 1, got {min_success}")
    if unused_runs is not None and unused_runs < 1:
        raise InvalidParamsError(f"--unused-runs must be at least 1, got {unused_runs}")

    def doomed(record: SkillRecord, runs: int) -> bool:
        usage = _usage(record)
        rate = record.metrics.success_rate if record.metrics is not None else 0.0
        low = min_success is not None and rate < min_success
        idle = unused_runs is not None and runs - usage["last_run"] >= unused_runs
        return is_composite(record) and (low or idle)

    if dry_run:
        manifest = library.manifest()
        return [r for r in manifest.skills if doomed(r, manifest.runs)]
    # Their artifacts are deleted by the locked write, before another writer can take the lock.
    with library._locked() as manifest:
        removed = [r for r in manifest.skills if doomed(r, manifest.runs)]
        manifest.skills = [r for r in manifest.skills if not doomed(r, manifest.runs)]
        for record in removed:
            manifest.pruned[record.name] = max(manifest.pruned.get(record.name, 0), record.version)
    return removed
