"""Run a suite on physics: its cases (:mod:`claw.eval.cases`) in this process, in worker
processes or as Ray tasks (:mod:`claw.eval.ray_runner`), in case order; metrics."""

from __future__ import annotations

import multiprocessing
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from pydantic import BaseModel, Field

from claw.eval.cases import CaseResult, crashed, recording, run_case, worker
from claw.eval.cassette import Cassette
from claw.eval.mocks import MOCK_MODEL
from claw.eval.selection import Selection
from claw.eval.suite import Suite
from claw.eval.tallies import tallies
from claw.library import policy_source
from claw.planner.base import READERS, Reader
from claw.planner.llm.completion import ModelSettings
from claw.runtime import InvalidRunError, RunResult, Sensing, parse_planner


class SuiteResult(BaseModel):
    suite: str
    planner: str
    prefer: str | None = None
    """The skill implementation asked for (``learned`` / ``controller``), if any."""
    cases: list[CaseResult]
    overall: dict[str, float]
    per_tag: dict[str, dict[str, float]]
    wall_seconds: float
    interrupted: bool = False
    """True when the run was stopped early: only the cases done are here."""
    selection: Selection | None = None
    """The cases asked for (``claw eval -k/--tags/--limit``); ``None``: all of the suite's."""
    learned: dict[str, int] = Field(default_factory=dict, exclude=True)
    """With ``learn``: composites ``new`` and ``updated`` (same structure: a phrase and a use)
    from the successful cases (not written: the cases' results do not depend on it)."""
    ran_on: dict[str, int] = Field(default_factory=dict, exclude=True)
    """Cases per Ray node of a ``ray`` run (not written: a case's result is the same wherever
    it ran)."""


def share_key(reader: Reader) -> str:
    """The metric of the cases ``reader`` read, a fraction (``read_by_offline``,
    ``read_by_model``)."""
    return f"read_by_{reader}"


def summarise(results: list[CaseResult]) -> dict[str, float]:
    n = max(len(results), 1)
    return {
        "cases": float(len(results)),
        "success_rate": round(sum(r.success for r in results) / n, 4),
        "read_right": round(sum(r.read_right for r in results) / n, 4),
        "goal_recall": round(sum(r.goal_recall for r in results) / n, 4),
        "executability": round(sum(r.executable for r in results) / n, 4),
        "replans": round(sum(r.replans for r in results) / n, 4),
        "recovered_by_replanning": float(sum(r.success and r.replans > 0 for r in results)),
        "plan_steps": round(sum(r.plan_steps for r in results) / n, 4),
        **{share_key(who): round(sum(r.reader == who for r in results) / n, 4) for who in READERS},
        "llm_calls": round(sum(r.llm_calls for r in results) / n, 4),
        "llm_tokens": round(sum(r.llm_tokens for r in results) / n, 2),
        "llm_prompt_tokens": round(sum(r.llm_prompt_tokens for r in results) / n, 2),
        "llm_completion_tokens": round(sum(r.llm_completion_tokens for r in results) / n, 2),
        "llm_tokens_total": float(sum(r.llm_tokens for r in results)),
        "sim_seconds": round(sum(r.sim_seconds for r in results) / n, 3),
        "wall_seconds": round(sum(r.wall_seconds for r in results) / n, 3),
        **tallies(results),
        **{
            f"failed_{cause}": float(sum(r.cause == cause for r in results))
            for cause in ("reading", "perception", "acting")
        },
    }


def run_suite(
    suite: Suite,
    planner: str = "offline",
    workers: int = 1,
    progress: Callable[[CaseResult], None] | None = None,
    record: Path | None = None,
    prefer: str | None = None,
    settings: ModelSettings | None = None,
    ray: str | None = None,
    learn: bool = False,
    sensing: Sensing | None = None,
) -> SuiteResult:
    """Every case of ``suite``, in ``workers`` processes or as Ray tasks; results in case order
    whatever ran them.

    With ``record``, every LLM answer is saved to that cassette (replay it with
    ``planner="replay:FILE"``). ``prefer`` picks the skill implementations as ``claw --prefer``;
    ``settings`` say how a model is asked (endpoint, deadline, temperature, answer length).
    ``ray`` is a Ray address (:func:`claw.eval.ray_runner.check_address`; ``local`` starts Ray
    here with ``workers`` CPUs, or all of them when ``workers`` is 1). With ``learn``, each case
    that succeeded on physics is learned as a composite skill once all have run, in case order
    (:func:`claw.library.learn_from_run`), whatever ran them. ``sensing`` says how the planner
    and the skills see the world (the truth, or a perceiver; judged on the truth either way).
    """
    spec = parse_planner(planner)  # a bad name fails here, before any case runs
    if ray is not None and sensing is not None and sensing != Sensing():
        raise InvalidRunError(
            "--perception and --sensor-noise run locally (with --workers); on Ray cases see "
            "the truth: drop --ray"
        )
    tic = time.perf_counter()
    results: list[CaseResult | None] = [None] * len(suite.cases)
    recorded: dict[str, str] = {}
    ran_on: dict[str, int] = {}
    if ray is not None:
        from claw.eval import ray_runner

        ray_runner.run_suite_cases(
            suite,
            planner,
            workers,
            record is not None,
            prefer,
            settings,
            ray,
            results,
            recorded,
            ran_on,
            progress,
        )
    elif workers <= 1:
        with recording(recorded if record is not None else None):
            for i in range(len(suite.cases)):
                results[i] = run_case(
                    suite, i, planner, prefer=prefer, settings=settings, sensing=sensing
                )
                if progress is not None:
                    progress(results[i])  # type: ignore[arg-type]
    else:
        policy_source()  # opened once here: workers inherit it synced (and any note said once)
        payload = suite.model_dump_json()
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            model = settings.model_dump_json() if settings is not None else None
            seeing = sensing.model_dump_json() if sensing is not None else None
            jobs = [
                pool.submit(
                    worker, (payload, i, planner, record is not None, prefer, model, seeing)
                )
                for i in range(len(suite.cases))
            ]
            for i, job in enumerate(jobs):
                try:
                    text, answers = job.result()
                except Exception as exc:  # its worker process died (BrokenProcessPool) ...
                    results[i] = crashed(suite.cases[i], exc)
                else:
                    results[i] = CaseResult.model_validate_json(text)
                    recorded.update(answers)
                if progress is not None:
                    progress(results[i])  # type: ignore[arg-type]
    if record is not None:
        asked = spec.hand_over or spec  # offline+MODEL records MODEL's answers
        cassette = Cassette(record, model=MOCK_MODEL if asked.family == "mock" else asked.text)
        cassette.answers.update(recorded)
        cassette.save()
    done = [r for r in results if r is not None]
    result = suite_result(suite, planner, prefer, done, time.perf_counter() - tic)
    result.ran_on = ran_on
    if learn:
        result.learned = learn_from_cases(suite, planner, done)
    return result


def learn_from_cases(suite: Suite, planner: str, cases: list[CaseResult]) -> dict[str, int]:
    """Learn composites from the cases that succeeded on physics; how many are new, updated."""
    from claw.library import SkillLibrary, learn_from_run

    library = SkillLibrary()
    by_id = {case.id: case for case in suite.cases}
    counts = {"new": 0, "updated": 0}
    for row in cases:
        case = by_id[row.id]
        if not row.run:  # a case whose scene could not be built has no run
            continue
        run = RunResult.model_validate(row.run)
        record = learn_from_run(
            library, case.instruction, run, case.seed, scene=suite.scene_of(case),
            planner=planner, success=row.success,
        )  # fmt: skip
        if record is not None:
            uses = record.metrics.episodes if record.metrics is not None else 0
            counts["new" if uses == 1 else "updated"] += 1
    return counts


def suite_result(
    suite: Suite,
    planner: str,
    prefer: str | None,
    cases: list[CaseResult],
    wall_seconds: float,
    interrupted: bool = False,
) -> SuiteResult:
    """The metrics of ``cases`` (all of the suite's, or those done before an interruption)."""
    by_tag: dict[str, list[CaseResult]] = defaultdict(list)
    for result in cases:
        for tag in result.tags:
            by_tag[tag].append(result)
    return SuiteResult(
        suite=suite.name,
        planner=planner,
        prefer=prefer,
        cases=cases,
        overall=summarise(cases),
        per_tag={tag: summarise(rs) for tag, rs in sorted(by_tag.items())},
        wall_seconds=round(wall_seconds, 2),
        interrupted=interrupted,
    )
