"""Suite cases as Ray tasks: the same cases, seeds and scenes as local workers, on a cluster.

Cases run in tasks of one CPU, a few cases each, at the caller's niceness. Results come back as
tasks finish; a case whose worker or node dies is retried once by Ray and reported as failed if
it dies again, and a case that raises is that case's result. Joining Ray (addresses, deadline,
logs, signals) is :mod:`claw.eval.ray_connect`'s, whose names are here too.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from contextlib import closing
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from claw.eval.cases import CaseResult, crashed, worker
from claw.eval.ray_connect import (
    LOCAL,
    check_address,
    connect,
    joined,
    match_niceness,
    niceness,
    ray_module,
    with_bare_ray_flag,
)
from claw.eval.suite import Case, Suite
from claw.planner.text import clean_text

if TYPE_CHECKING:
    from claw.planner.llm.completion import ModelSettings

# joining Ray is ray_connect's; its names stay importable from here too
__all__ = ["LOCAL", "check_address", "connect", "joined", "ray_module", "with_bare_ray_flag"]

RETRIES = 1
"""How often a case lost with its worker or node is run again before it is reported."""


class CaseOutcome(BaseModel):
    """What a case's task sent back: its result as local workers give it, and where it ran."""

    index: int
    result_json: str | None = None
    answers: dict[str, str] = Field(default_factory=dict)
    node: str = ""
    lost: str = ""
    """Why the case has no result (its worker or node died twice); empty when it ran."""


def cluster_cpus() -> int:
    """The CPUs the connected cluster has, all nodes together."""
    return int(ray_module().cluster_resources().get("CPU", 0))


def _run_case(
    suite_json: str,
    index: int,
    planner: str,
    record: bool,
    prefer: str | None,
    settings_json: str | None,
) -> CaseOutcome:
    """One case in a Ray worker, exactly as a local worker runs it."""
    text, answers = worker((suite_json, index, planner, record, prefer, settings_json, None))
    return CaseOutcome(index=index, result_json=text, answers=answers, node=_node_id())


CASES_PER_TASK = 4
"""The most cases one task runs: Ray's dispatch costs a worker 10–20 ms between tasks here (a
0.2 s case), so a few cases share a task while every CPU still gets several tasks."""


def chunks(count: int, cpus: int) -> list[list[int]]:
    """Case indices in runs of at most ``CASES_PER_TASK``, at least four tasks per CPU."""
    size = max(1, min(CASES_PER_TASK, count // max(1, 4 * cpus)))
    return [list(range(i, min(i + size, count))) for i in range(0, count, size)]


def _run_chunk(
    case_fn: Callable[..., CaseOutcome],
    suite_json: str,
    indices: list[int],
    nice: int | None,
    *args: Any,
) -> list[CaseOutcome]:
    """Cases ``indices``, one after another in this worker at the caller's niceness ``nice``; a
    case that raises is that case's result (:func:`claw.eval.cases.crashed`)."""
    if nice is not None:
        match_niceness(nice)
    outcomes = []
    for index in indices:
        try:
            outcomes.append(case_fn(suite_json, index, *args))
        except Exception as exc:  # the case's own failure, never its neighbours' or the run's
            case = Suite.model_validate_json(suite_json).cases[index]
            text = crashed(case, exc).model_dump_json()
            outcomes.append(CaseOutcome(index=index, result_json=text, node=_node_id()))
    return outcomes


def _node_id() -> str:
    import ray

    return str(ray.get_runtime_context().get_node_id())


def run_cases(
    suite_json: str,
    cases: list[Case],
    planner: str,
    record: bool,
    prefer: str | None,
    settings_json: str | None,
    case_fn: Callable[..., CaseOutcome] = _run_case,
) -> Generator[CaseOutcome, None, None]:
    """Every case of the suite run by ``case_fn`` in Ray tasks (a few cases each, see
    :func:`chunks`) where Ray places them, at this process's niceness; outcomes as their tasks
    finish.

    Ctrl-C (or leaving the loop early) cancels the cases not yet finished.
    """
    ray = ray_module()
    task = ray.remote(num_cpus=1, max_retries=RETRIES)(_run_chunk)
    suite_ref = ray.put(suite_json)
    args = (niceness(), planner, record, prefer, settings_json)
    pending: dict[Any, list[int]] = {
        task.remote(case_fn, suite_ref, indices, *args): indices
        for indices in chunks(len(cases), cluster_cpus())
    }
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                yield from _outcomes(ray, ref, [(i, cases[i]) for i in pending.pop(ref)])
    finally:
        _cancel(ray, list(pending))


CANCEL_TRIES = 5
"""How often the tasks left are cancelled again: a cancel that lands while its task is being
placed on a worker is lost, and the task would run to its end."""


def _cancel(ray: Any, refs: list[Any]) -> None:
    """Cancel ``refs`` (force: their workers are stopped), again for those that do not end."""
    for _ in range(CANCEL_TRIES):
        for ref in refs:
            ray.cancel(ref, force=True)
        if not refs:
            return
        _, refs = ray.wait(refs, num_returns=len(refs), timeout=2.0)


def _outcomes(ray: Any, ref: Any, cases: list[tuple[int, Case]]) -> list[CaseOutcome]:
    """A finished task's outcomes (index, case): a task that raised gives each of its cases
    that error as its result, one lost with its worker or node (after the retry) lost ones."""

    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as exc:  # Ray's text has a traceback and colours
        cause = exc.cause if isinstance(exc.cause, BaseException) else exc
        return [
            CaseOutcome(index=i, result_json=crashed(case, cause).model_dump_json())
            for i, case in cases
        ]
    except ray.exceptions.RayError as exc:  # worker crashed, node died, object lost ...
        first = next((line for line in str(exc).splitlines() if line.strip()), "")
        why = f"{type(exc).__name__}: {clean_text(first, 300)}" if first else type(exc).__name__
        lost = f"lost twice with its worker or node ({why})"
        return [CaseOutcome(index=i, lost=lost) for i, _ in cases]


def run_suite_cases(
    suite: Suite,
    planner: str,
    workers: int,
    record: bool,
    prefer: str | None,
    settings: ModelSettings | None,
    address: str,
    results: list[CaseResult | None],
    recorded: dict[str, str],
    ran_on: dict[str, int],
    progress: Callable[[CaseResult], None] | None,
) -> None:
    """:func:`claw.eval.runner.run_suite`'s cases as Ray tasks, filling ``results`` (by case),
    ``recorded`` (the answers) and ``ran_on`` (cases per node) as they finish."""
    from claw.library import policy_source

    policy_source()  # synced here once, before any worker opens it
    model = settings.model_dump_json() if settings is not None else None
    with (
        joined(address, num_cpus=workers if workers > 1 else None),
        closing(
            run_cases(suite.model_dump_json(), suite.cases, planner, record, prefer, model)
        ) as outcomes,  # closed early (Ctrl-C), the cases not yet finished are cancelled
    ):
        for outcome in outcomes:
            case = suite.cases[outcome.index]
            if outcome.result_json is None:
                result = CaseResult(id=case.id, tags=case.tags, success=False, reason=outcome.lost)
            else:
                result = CaseResult.model_validate_json(outcome.result_json)
            if outcome.node:  # where a task ran to its end
                ran_on[outcome.node] = ran_on.get(outcome.node, 0) + 1
            results[outcome.index] = result
            recorded.update(outcome.answers)
            if progress is not None:
                progress(result)
