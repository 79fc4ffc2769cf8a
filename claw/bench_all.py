"""``claw bench all``: every benchmark the docs quote, in this process (and the workers and
processes the benchmarks start themselves), into one results file (:mod:`claw.results`).

A benchmark that fails is recorded as failed with its one-line error and the others still run.
The file is rewritten after each entry, so a long run that stops keeps what it measured.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from claw import bench_plan as plans
from claw.bench_plan import BENCHES, FULL, QUICK, Budget, Run
from claw.bench_seeing import perception_runs
from claw.bench_suites import suite_runs
from claw.results import Entry, Results, start

Progress = Callable[[int, int, Entry], None]
"""Called after each entry: its number (from 1), how many are planned, the entry."""


def planned(bench: str, budget: Budget) -> list[Run]:
    """The runs of ``bench`` (one of :data:`BENCHES`) at ``budget``."""
    makers: dict[str, Callable[[Budget], list[Run]]] = {
        "env": plans.env_runs, "skills": plans.skills_runs, "planner": plans.planner_runs,
        "words": plans.words_runs, "two-arm": plans.two_arm_runs, "library": plans.library_runs,
        "imitation": plans.imitation_runs, "policy": plans.policy_runs, "eval": suite_runs,
        "perception": perception_runs, "startup": plans.startup_runs,
    }  # fmt: skip
    return makers[bench](budget)


def check_only(names: Sequence[str]) -> list[str]:
    """The benchmarks ``--only`` names, in run order (every one for none).

    Raises:
        ValueError: a name that is no benchmark.
    """
    unknown = [n for n in names if n not in BENCHES]
    if unknown:
        raise ValueError(f"unknown benchmark {unknown[0]!r}; allowed: {', '.join(BENCHES)}")
    return [b for b in BENCHES if not names or b in names]


def one_line(exc: BaseException) -> str:
    """An exception as one line: its type and its message's first line."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _figures(value: Any) -> dict[str, Any]:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return dict(value)


def run_entry(run: Run) -> Entry:
    """Run one benchmark; a failure becomes a failed entry (Ctrl-C still stops everything)."""
    tic = time.perf_counter()
    try:
        result = _figures(run.call())
    except Exception as exc:
        return Entry(name=run.name, bench=run.bench, command=run.command, status="failed",
                     error=one_line(exc), seconds=round(time.perf_counter() - tic, 2))  # fmt: skip
    return Entry(name=run.name, bench=run.bench, command=run.command, status="ok",
                 seconds=round(time.perf_counter() - tic, 2), result=result)  # fmt: skip


def _plan(benches: list[str], quick: bool) -> list[Run]:
    """Every run of ``benches``; a bench that cannot even be set up becomes a run that fails."""
    runs: list[Run] = []
    for bench in benches:
        try:
            runs.extend(planned(bench, QUICK if quick else FULL))
        except Exception as exc:
            error = one_line(exc)

            def failing(error: str = error) -> Any:
                raise RuntimeError(error)

            runs.append(Run(bench, bench, f"claw bench all --only {bench}", failing))
    return runs


def bench_all(
    command: str,
    json_file: Path,
    quick: bool = False,
    only: Sequence[str] = (),
    progress: Progress | None = None,
) -> Results:
    """Run the benchmarks (``only`` those named) and write ``json_file`` after each entry.

    Raises:
        ValueError: an unknown benchmark in ``only``.
        OSError: the file cannot be written.
    """
    from claw.common.files import atomic_write

    benches = check_only(only)
    budget = QUICK if quick else FULL
    results = start(command, quick, budget.model_dump(mode="json"))
    tic = time.perf_counter()

    def save() -> None:
        results.wall_seconds = round(time.perf_counter() - tic, 1)
        atomic_write(json_file, (results.model_dump_json(indent=1) + "\n").encode())

    save()
    runs = _plan(benches, quick)
    for k, run in enumerate(runs, 1):
        entry = run_entry(run)
        results.entries.append(entry)
        save()
        if progress is not None:
            progress(k, len(runs), entry)
    return results
