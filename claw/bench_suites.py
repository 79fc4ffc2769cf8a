"""``claw bench all``'s suites: every shipped suite run as ``claw eval`` runs it, offline and
with the hybrid (``offline+mock:oracle``), and each suite's trust counts from both runs (as
``scripts/trust_table.py`` computes them)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from claw.bench_plan import Budget, Run, command, shown

if TYPE_CHECKING:
    from claw.eval.runner import SuiteResult
    from claw.eval.suite import Suite

PLANNERS = ("offline", "offline+mock:oracle")
HYBRID = PLANNERS[1]


class TagFigures(BaseModel):
    """A tag's cases and their figures."""

    cases: int
    success_rate: float
    read_right: float


class SuiteFigures(BaseModel):
    """What the docs quote of one ``claw eval`` run (the cases themselves are left out)."""

    suite: str
    file: str
    planner: str
    cases: int
    successes: int
    success_rate: float
    read_right: float
    read_right_cases: int
    refused: int
    wrong_reading_ran: int
    trap_planned: int
    read_by_offline: float
    read_by_model: float
    errors: int
    """Cases stopped by an exception (``error`` set in ``claw eval --json``)."""
    failed: list[str]
    """The ids of the cases that did not succeed."""
    per_tag: dict[str, TagFigures]
    wall_seconds: float


def shipped_suites() -> list[Path]:
    """Every suite file shipped with claw (not the word lists of ``claw bench words``)."""
    from claw.eval.suite import SUITES_DIR
    from claw.eval.words import WORD_LISTS

    return sorted(p for p in SUITES_DIR.glob("*.yaml") if not p.match(WORD_LISTS))


def figures(result: SuiteResult, file: str) -> SuiteFigures:
    """The figures of a suite's result."""
    overall = result.overall
    per_tag = {
        tag: TagFigures(cases=int(m["cases"]), success_rate=m["success_rate"],
                        read_right=m["read_right"])
        for tag, m in result.per_tag.items()
    }  # fmt: skip
    return SuiteFigures(
        suite=result.suite,
        file=file,
        planner=result.planner,
        cases=len(result.cases),
        successes=sum(c.success for c in result.cases),
        success_rate=overall["success_rate"],
        read_right=overall["read_right"],
        read_right_cases=int(overall["read_right_cases"]),
        refused=int(overall["refused"]),
        wrong_reading_ran=int(overall["wrong_reading_ran"]),
        trap_planned=int(overall["trap_planned"]),
        read_by_offline=overall["read_by_offline"],
        read_by_model=overall["read_by_model"],
        errors=sum(c.error is not None for c in result.cases),
        failed=[c.id for c in result.cases if not c.success],
        per_tag=per_tag,
        wall_seconds=result.wall_seconds,
    )


def _eval_words(file: str, planner: str, budget: Budget) -> list[object]:
    limit = [] if budget.eval_limit is None else ["--limit", budget.eval_limit]
    return ["eval", file, "--planner", planner, "--workers", budget.eval_workers, *limit]


class _SuiteRuns:
    """A suite's two runs and its trust counts, which read the results the runs keep."""

    def __init__(self, path: Path, budget: Budget) -> None:
        self.path, self.file, self.budget = path, shown(path), budget
        self.name = path.stem
        self.results: dict[str, SuiteResult] = {}

    def suite(self) -> Suite:
        from claw.eval.selection import select
        from claw.eval.suite import load_suite

        loaded = load_suite(str(self.path))
        if self.budget.eval_limit is not None:
            loaded = select(loaded, None, [], self.budget.eval_limit)[0]
        return loaded

    def run(self, planner: str) -> SuiteFigures:
        from claw.eval.runner import run_suite

        result = run_suite(self.suite(), planner, workers=self.budget.eval_workers)
        self.results[planner] = result
        return figures(result, self.file)

    def trust(self) -> BaseModel:
        from claw.eval.tallies import trust_counts

        missing = [p for p in PLANNERS if p not in self.results]
        if missing:
            runs = " and ".join(missing)
            raise RuntimeError(f"needs the {runs} run of {self.name}, which failed")
        offline, hybrid = (self.results.pop(p).cases for p in PLANNERS)  # kept no longer
        return trust_counts(self.name, self.suite(), offline, hybrid)

    def runs(self) -> list[Run]:
        evals = [
            Run(f"eval/{self.name}/{planner}", "eval",
                command(*_eval_words(self.file, planner, self.budget)),
                lambda planner=planner: self.run(planner))  # type: ignore[misc]
            for planner in PLANNERS
        ]  # fmt: skip
        saved = [
            command(*_eval_words(self.file, p, self.budget), "--json", f"{k}.json")
            for k, p in zip(("offline", "hybrid"), PLANNERS, strict=True)
        ]
        script = f"python scripts/trust_table.py {self.file} offline.json hybrid.json"
        return [*evals, Run(f"trust/{self.name}", "eval", " && ".join([*saved, script]),
                            self.trust)]  # fmt: skip


def suite_runs(budget: Budget) -> list[Run]:
    """Each shipped suite's runs, suite after suite."""
    return [run for path in shipped_suites() for run in _SuiteRuns(path, budget).runs()]
