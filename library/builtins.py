"""The records of the skill classes claw ships: their text, bundled files and measured success."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from claw.library.files import git_commit, sha256_of
from claw.library.manifest import Metrics, Provenance, SkillRecord
from claw.skills.base import Skill


def implementation_ref(cls: type[Skill]) -> str:
    """How the manifest names a skill class: ``module:QualName``."""
    return f"{cls.__module__}:{cls.__qualname__}"


def bundled_artifacts(cls: type[Skill]) -> list[Path]:
    """Files shipped with a skill class (a policy's weights and config), if it has any."""
    bundled = getattr(cls, "bundled_artifacts", None)
    return [p for p in bundled() if p.is_file()] if bundled is not None else []


def bundled_metrics(cls: type[Skill]) -> Metrics | None:
    measured = getattr(cls, "bundled_metrics", None)
    raw = measured() if measured is not None else None
    return Metrics.model_validate(raw) if raw is not None else None


def record_of(cls: type[Skill], version: int, source: str) -> SkillRecord:
    return SkillRecord(
        name=cls.name,
        version=version,
        kind=cls.kind,
        implementation=implementation_ref(cls),
        description=cls.description,
        examples=list(cls.examples),
        params_schema=cls.Params.model_json_schema(),
        provenance=Provenance(source=source, git_commit=git_commit()),  # type: ignore[arg-type]
        tags=["builtin"] if source == "builtin" else [],
        metrics=bundled_metrics(cls),
    )


def builtin_records(records: Iterable[SkillRecord]) -> list[SkillRecord]:
    return [r for r in records if r.provenance.source == "builtin"]


def changed(record: SkillRecord | None, cls: type[Skill]) -> bool:
    if record is None:
        return True
    return (
        record.description != cls.description
        or record.examples != list(cls.examples)
        or record.params_schema != cls.Params.model_json_schema()
        or record.kind != cls.kind
        or sorted(a.sha256 for a in record.artifacts)
        != sorted(sha256_of(p) for p in bundled_artifacts(cls))
    )
