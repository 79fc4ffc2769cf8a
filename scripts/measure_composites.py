"""Steps per plan of ``mock:oracle`` before and after learning composites, at equal success.

Run: ``python scripts/measure_composites.py [SUITE] [--held-out]``.

Pass 1 runs every case with an empty library (no composite is offered) and learns a composite
from each case it judged a success (``learn_from_run`` with the case's verdict) into a second
library; pass 2 runs the cases again planning with that library, where the oracle writes a run
of steps an offered composite does as one call of it. With ``--held-out`` composites are learned
from the even cases and both passes are measured on the odd ones. Libraries live in temporary
folders; ``CLAW_HOME`` is set for the run.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any

from claw.eval.cases import CaseResult, run_case
from claw.eval.suite import load_suite
from claw.library import SkillLibrary
from claw.library.composites import Composites, learn_from_run
from claw.runtime import RunResult
from claw.skills.registry import skill_names


def run(suite: Any, cases: list[int], learn_into: SkillLibrary | None) -> list[CaseResult]:
    rows = []
    for i in cases:
        row = run_case(suite, i, "mock:oracle")
        rows.append(row)
        case = suite.cases[i]
        if learn_into is not None and case.goal is not None and row.run:
            learn_from_run(
                learn_into,
                case.instruction,
                RunResult.model_validate(row.run),
                case.seed,
                scene=str(suite.scene_of(case)),
                planner="mock:oracle",
                success=row.success,
            )
    return rows


def stats(rows: list[CaseResult]) -> dict[str, float]:
    plans = [r.run["plan"] for r in rows if r.run and r.run.get("plan")]
    steps = sum(len(p) for p in plans)
    composite = sum(1 for p in plans for s in p if s["skill"] not in skill_names())
    return {
        "success": sum(r.success for r in rows) / len(rows),
        "plans": len(plans),
        "steps": steps,
        "steps_per_plan": round(steps / len(plans), 3),
        "composite_steps": composite,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", nargs="?", default="basic")
    parser.add_argument("--held-out", action="store_true")
    args = parser.parse_args()
    suite = load_suite(args.suite)
    everything = list(range(len(suite.cases)))
    learn_on = everything[::2] if args.held_out else everything
    measure_on = everything[1::2] if args.held_out else everything
    with tempfile.TemporaryDirectory() as empty, tempfile.TemporaryDirectory() as learned:
        os.environ["CLAW_HOME"] = empty
        library = SkillLibrary(Path(learned) / "library")
        before = run(suite, learn_on, library)
        if args.held_out:
            before = run(suite, measure_on, None)
        composites = Composites(library).records()
        phrases = sum(len(r.examples) for r in composites)
        print(f"learned {len(composites)} composites ({phrases} example phrases)")
        os.environ["CLAW_HOME"] = learned
        after = run(suite, measure_on, None)
    a, b = stats(before), stats(after)
    print("before", a)
    print("after ", b)
    print(f"steps per plan, after / before: {b['steps_per_plan'] / a['steps_per_plan']:.3f}")
    changed = [x.id for x, y in zip(before, after, strict=True) if x.success != y.success]
    print("cases whose success changed:", ", ".join(changed) or "none")


if __name__ == "__main__":
    main()
