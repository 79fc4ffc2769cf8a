"""Compare two suite results (``claw eval --json`` files): metric deltas and cases that changed."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError

from claw.eval.exceptions import InvalidReportError
from claw.eval.report import METRICS, RESULTS_FILE, format_metric
from claw.eval.runner import SuiteResult
from claw.planner.text import read_json_file


def load_report(path: str | Path) -> SuiteResult:
    """A suite result from a ``--json`` file, or from a ``--report`` folder's ``results.json``."""
    path = Path(path)
    if path.is_dir():
        path = path / RESULTS_FILE
    try:
        data = read_json_file(path)
    except FileNotFoundError:
        raise InvalidReportError(f"report {path} not found") from None
    except (OSError, ValueError) as exc:  # not UTF-8, not JSON, nested too deep
        raise InvalidReportError(f"report {path} is not a JSON file: {exc}") from None
    try:
        return SuiteResult.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"]) or "report"
        raise InvalidReportError(
            f"report {path} is not a claw eval --json report: {where}: {error['msg']}"
        ) from None


class Delta(BaseModel):
    """One metric in A and B; None where a side lacks it (a tag only one report has)."""

    a: float | None
    b: float | None
    delta: float | None


class ReportInfo(BaseModel):
    path: str
    suite: str
    planner: str
    cases: int


class CaseChange(BaseModel):
    """A case whose success differs between A and B."""

    id: str
    change: Literal["fixed", "broken"]
    a: bool
    b: bool
    reason_a: str
    reason_b: str


class Comparison(BaseModel):
    """B against A (A is the baseline): ``delta`` = B − A."""

    a: ReportInfo
    b: ReportInfo
    overall: dict[str, Delta]
    per_tag: dict[str, dict[str, Delta]]
    changed: list[CaseChange]
    only_in_a: list[str]
    only_in_b: list[str]

    @property
    def fixed(self) -> list[CaseChange]:
        return [c for c in self.changed if c.change == "fixed"]

    @property
    def broken(self) -> list[CaseChange]:
        return [c for c in self.changed if c.change == "broken"]


def _deltas(a: dict[str, float] | None, b: dict[str, float] | None) -> dict[str, Delta]:
    a, b = a or {}, b or {}
    keys = [k for k, _, _ in METRICS if k in a or k in b]
    keys += sorted((set(a) | set(b)) - set(keys))
    out = {}
    for key in keys:
        va, vb = a.get(key), b.get(key)
        delta = None if va is None or vb is None else round(vb - va, 6)
        out[key] = Delta(a=va, b=vb, delta=delta)
    return out


def compare(
    a: SuiteResult, b: SuiteResult, a_path: str | Path = "A", b_path: str | Path = "B"
) -> Comparison:
    """Overall and per-tag metric deltas (B − A) and the cases (by id) whose success changed."""
    tags = sorted(set(a.per_tag) | set(b.per_tag))
    cases_a = {c.id: c for c in a.cases}
    cases_b = {c.id: c for c in b.cases}
    changed = [
        CaseChange(
            id=case.id,
            change="fixed" if cases_b[case.id].success else "broken",
            a=case.success,
            b=cases_b[case.id].success,
            reason_a=case.reason,
            reason_b=cases_b[case.id].reason,
        )
        for case in a.cases
        if case.id in cases_b and cases_b[case.id].success != case.success
    ]
    return Comparison(
        a=ReportInfo(path=str(a_path), suite=a.suite, planner=a.planner, cases=len(a.cases)),
        b=ReportInfo(path=str(b_path), suite=b.suite, planner=b.planner, cases=len(b.cases)),
        overall=_deltas(a.overall, b.overall),
        per_tag={tag: _deltas(a.per_tag.get(tag), b.per_tag.get(tag)) for tag in tags},
        changed=changed,
        only_in_a=[c.id for c in a.cases if c.id not in cases_b],
        only_in_b=[c.id for c in b.cases if c.id not in cases_a],
    )


def compare_files(a: str | Path, b: str | Path) -> Comparison:
    """``compare`` of two ``--json`` files (or ``--report`` folders)."""
    return compare(load_report(a), load_report(b), a, b)


def format_delta(key: str, delta: float | None) -> str:
    """A signed delta as the reports show metric ``key`` (success rate in percentage points)."""
    if delta is None:
        return "-"
    sign = "+" if delta > 0 else "-" if delta < 0 else ""
    if key in ("success_rate", "read_right") or key.endswith("_success_rate"):
        return f"{sign}{100 * abs(delta):.1f} pp"
    return sign + format_metric(key, abs(delta))


TABLE_METRICS = (
    "success_rate", "read_right", "goal_recall", "replans", "plan_steps", "llm_tokens",
    "wall_seconds",
)  # fmt: skip
"""The metrics a table over many results shows, in its column order."""


class ResultRow(BaseModel):
    """One result of many compared side by side."""

    path: str
    suite: str
    planner: str
    cases: int
    interrupted: bool = False
    metrics: dict[str, float]


def result_row(result: SuiteResult, path: str | Path) -> ResultRow:
    """``result``'s overall metrics as a row of a table over many."""
    return ResultRow(
        path=str(path),
        suite=result.suite,
        planner=result.planner,
        cases=len(result.cases),
        interrupted=result.interrupted,
        metrics={k: result.overall[k] for k in TABLE_METRICS if k in result.overall},
    )


def compare_many(paths: list[str | Path]) -> list[ResultRow]:
    """The overall metrics of many ``--json`` files (or ``--report`` folders), one row each."""
    return [result_row(load_report(path), path) for path in paths]
