"""Benchmark figures into the library: the measured success the executor chooses by."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claw.library.builtins import implementation_ref
from claw.library.manifest import Metrics
from claw.library.storage import SkillLibrary
from claw.skills.registry import skill_implementations, skill_names

if TYPE_CHECKING:
    from claw.skills.bench import SkillBench


def record_controller_metrics(
    result: SkillBench, command: str, library: SkillLibrary | None = None
) -> list[str]:
    """Store each benchmarked controller's success rate in the skill library; the keys set.

    Only single skill calls count; the multi-step task rows (skill ``task``) measure several.
    """
    totals: dict[str, list[int]] = {}
    for row in result.rows:
        if row["skill"] not in skill_names():
            continue
        attempts, successes = totals.setdefault(row["skill"], [0, 0])
        totals[row["skill"]] = [attempts + row["attempts"], successes + row["successes"]]
    library, recorded = library or SkillLibrary(), []
    for name, (attempts, successes) in sorted(totals.items()):
        if not attempts:
            continue
        metrics = Metrics(
            success_rate=successes / attempts,
            episodes=attempts,
            conditions={"command": command, "episodes": result.episodes, "seed": result.seed},
        )
        controller = skill_implementations(name)["controller"]
        record = library.record_metrics(name, implementation_ref(controller), metrics)
        recorded.append(record.key)
    return recorded
