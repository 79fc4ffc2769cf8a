"""What became of each case's reading, and the suite's figures split by who read each case.

Four counts of a suite (overall and per tag), each case in at most one of the last three:

- **read right** — the first plan's goal is the case's (and its pushes the expected push), or it
  refused with the expected error kind (:func:`claw.eval.judging.read_right`);
- **refused** — a goal case (one with ``goal`` or ``expect_push``) whose run stopped with a
  refusal (``REFUSALS``: the kinds a reader or a model declines an instruction with) before
  any step ran;
- **wrong reading ran** — a goal case whose first plan was not read right, whose steps ran
  (at least one), and whose goal does not hold at the end: the robot did something other than
  what was asked (a reading other than the case's that reaches its goal, ``next_to(a, box)``
  for ``not(in(a, box))``, is no wrong reading);
- **trap planned** — an ``expect_error`` case for which a plan was made (the run has a goal or
  planned steps) instead of the expected refusal, whether or not it ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol, get_args

from pydantic import BaseModel

from claw.eval.suite import Case, Suite
from claw.planner.base import READERS, Reader
from claw.planner.llm.prompting import PlanError
from claw.runtime import RunResult

REFUSALS: tuple[str, ...] = get_args(PlanError.model_fields["kind"].annotation)
"""The error kinds of a refusal: ``unknown_object``, ``unsupported``, ``unparseable``,
``ambiguous``."""
COUNTS = ("refused", "wrong_reading_ran", "trap_planned")


class Tallied(Protocol):
    """What the tallies read of a case's result (``claw.eval.runner.CaseResult``)."""

    success: bool
    read_right: bool
    refused: bool
    wrong_reading_ran: bool
    trap_planned: bool
    reader: Reader | None
    llm_tokens: int
    llm_cached: int


class Outcome(NamedTuple):
    """Which of the three counts a case is in (at most one)."""

    refused: bool
    wrong_reading_ran: bool
    trap_planned: bool


def outcome(case: Case, result: RunResult, read_right: bool, success: bool) -> Outcome:
    """Whether the case was refused, ran a wrong reading or planned a trap, as this module
    defines them (``success``: the case's judgement)."""
    goal_case = case.expect_error is None
    kind = None if result.error is None or result.steps else result.error.kind
    return Outcome(
        refused=goal_case and kind in REFUSALS,
        wrong_reading_ran=goal_case and not read_right and bool(result.steps) and not success,
        trap_planned=not goal_case and bool(result.goal or result.plan),
    )


def cases_key(reader: Reader) -> str:
    """The metric of how many cases ``reader`` read (``offline_cases``, ``model_cases``)."""
    return f"{reader}_cases"


def success_key(reader: Reader) -> str:
    """The success rate of the cases ``reader`` read (``offline_success_rate``, ...)."""
    return f"{reader}_success_rate"


MODEL_TOKENS = "model_tokens_per_case"
"""Tokens (prompt and completion) per case the model read."""


def tallies(results: Sequence[Tallied]) -> dict[str, float]:
    """The counts above, and per reader its cases and their success rate (only for a reader
    that read some), the tokens per case the model read and the answers from the cache."""
    figures = {"read_right_cases": float(sum(r.read_right for r in results))}
    figures.update({name: float(sum(getattr(r, name) for r in results)) for name in COUNTS})
    for reader in READERS:
        read = [r for r in results if r.reader == reader]
        figures[cases_key(reader)] = float(len(read))
        if read:
            figures[success_key(reader)] = round(sum(r.success for r in read) / len(read), 4)
    by_model = [r for r in results if r.reader == "model"]
    if by_model:
        figures[MODEL_TOKENS] = round(sum(r.llm_tokens for r in by_model) / len(by_model), 2)
    figures["llm_cached"] = float(sum(r.llm_cached for r in results))
    return figures


class TrustCounts(BaseModel):
    """A suite's four counts offline and the hybrid's success (the README's trust table)."""

    suite: str
    cases: int
    read_right: int
    refused: int
    wrong_reading_ran: int
    trap_planned: int
    traps: int
    """The suite's ``expect_error`` cases."""
    offline_success: int
    hybrid_success_rate: float
    """Percent of the hybrid's cases that succeeded."""

    def row(self) -> str:
        """The table's markdown row."""
        return (
            f"| {self.suite} ({self.cases}) | {self.read_right} | {self.refused} | "
            f"{self.wrong_reading_ran} | {self.trap_planned} / {self.traps} | "
            f"{self.offline_success} ({100 * self.offline_success / self.cases:.1f} %) | "
            f"{self.hybrid_success_rate:.1f} % |"
        )


def trust_counts(
    name: str, suite: Suite, offline: Sequence[Tallied], hybrid: Sequence[Tallied]
) -> TrustCounts:
    """The counts of ``offline``'s cases, the traps of ``suite``, and ``hybrid``'s success."""
    return TrustCounts(
        suite=name,
        cases=len(offline),
        read_right=sum(bool(r.read_right) for r in offline),
        refused=sum(bool(r.refused) for r in offline),
        wrong_reading_ran=sum(bool(r.wrong_reading_ran) for r in offline),
        trap_planned=sum(bool(r.trap_planned) for r in offline),
        traps=sum(case.expect_error is not None for case in suite.cases),
        offline_success=sum(bool(r.success) for r in offline),
        hybrid_success_rate=100 * sum(bool(r.success) for r in hybrid) / max(len(hybrid), 1),
    )
