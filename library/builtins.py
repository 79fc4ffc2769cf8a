"""The records of the skill classes claw ships: their text, bundled files and measured success."""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from claw.library.files import git_commit, sha256_of
from claw.library.manifest import Metrics, Provenance, SkillRecord
from claw.skills.base import Skill


def implementation_ref(cls: type[Skill]) -> str:
    """How the manifest names a skill class: ``module:QualName``."""
    return f"{cls.__module__}:{cls.__qualname__}"


def bundled_artifacts(cls: type[Skill]) -> list[Path]:
    """The files shipped with a skill class that are there (a policy's weights and config)."""
    return [p for p in cls.bundled_artifacts() if p.is_file()]


def policy_metrics(cls: type[Skill], evaluation: Mapping[str, Any]) -> Metrics:
    """A policy's measured success as its skill judges it, from ``evaluate_policy``'s figures.

    The success rate is the share of episodes ending within the skill's tolerance
    (``conditions["tolerance"]``), which is what the controller's figure means too; the training
    env's own threshold and rate are kept as ``env_threshold`` and ``env_success_rate``. Figures
    measured at no such distance keep the env's rate, its threshold named as the tolerance.
    """
    tolerance = cls.tolerance()
    within = evaluation.get("success_within") or {}
    conditions = {
        **evaluation,
        "env_threshold": evaluation["threshold"],
        "env_success_rate": evaluation["success_rate"],
    }
    if tolerance is not None and f"{tolerance:g}" in within:
        rate = float(within[f"{tolerance:g}"])
    else:
        tolerance, rate = float(evaluation["threshold"]), float(evaluation["success_rate"])
    conditions.update(success_rate=rate, threshold=tolerance, tolerance=tolerance)
    return Metrics(success_rate=rate, episodes=evaluation["episodes"], conditions=conditions)


def bundled_metrics(cls: type[Skill]) -> Metrics | None:
    """A skill's shipped measured success, as the library records it."""
    raw = cls.bundled_metrics()
    if raw is None:
        return None
    if "success_within" in raw.get("conditions", {}):  # a policy's evaluation: at the skill's
        return policy_metrics(cls, raw["conditions"])
    return Metrics.model_validate(raw)


def record_of(cls: type[Skill], version: int, source: str) -> SkillRecord:
    return SkillRecord(
        name=cls.name,
        version=version,
        kind=cls.kind,
        implementation=implementation_ref(cls),
        description=cls.description,
        examples=list(cls.examples),
        params_schema=cls.Params.model_json_schema(),
        provenance=Provenance(source=source, git_commit=git_commit()),
        tags=["builtin"] if source == "builtin" else [],
        metrics=bundled_metrics(cls),
    )


def fingerprint(classes: Iterable[type[Skill]]) -> str:
    """What the built-in records are checked against, cheaply: claw's version, and each class's
    name, text, source file and shipped files as they stand on disk (size and modification
    time), so that an edited checkout or a new policy is checked again."""
    from claw import __version__

    said = [__version__]
    for cls in sorted(classes, key=implementation_ref):
        files = [inspect.getsourcefile(cls) or "", *map(str, cls.bundled_artifacts())]
        said += [implementation_ref(cls), cls.kind, cls.description, *cls.examples]
        for name in files:
            with contextlib.suppress(OSError):
                stat = os.stat(name)
                said.append(f"{name}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(said).encode()).hexdigest()


def builtin_records(records: Iterable[SkillRecord]) -> list[SkillRecord]:
    return [r for r in records if r.provenance.source == "builtin"]


def changed(record: SkillRecord | None, cls: type[Skill]) -> bool:
    if record is None:
        return True
    shipped = bundled_metrics(cls)
    # A record of shipped figures at another tolerance (from before they were measured as the
    # skill judges) is replaced; figures recorded later at the same tolerance are kept.
    recorded = record.metrics.conditions.get("tolerance") if record.metrics else None
    return (
        record.description != cls.description
        or record.examples != list(cls.examples)
        or record.params_schema != cls.Params.model_json_schema()
        or record.kind != cls.kind
        or sorted(a.sha256 for a in record.artifacts)
        != sorted(sha256_of(p) for p in bundled_artifacts(cls))
        or (shipped is not None and recorded != shipped.conditions.get("tolerance"))
    )
