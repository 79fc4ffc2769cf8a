"""Run a suite on physics: each case planned, executed, judged by its ground truth; metrics."""

from __future__ import annotations

import json
import multiprocessing
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from claw.envs.exceptions import InvalidSceneError
from claw.envs.tabletop import TabletopEnv
from claw.envs.video import check_video_path
from claw.eval.cassette import Cassette, key
from claw.eval.judging import judge, read_right
from claw.eval.mocks import MOCK_MODEL
from claw.eval.selection import Selection
from claw.eval.suite import Case, Suite
from claw.eval.tallies import outcome, tallies
from claw.library import policy_source
from claw.planner.base import READERS, Reader
from claw.planner.llm.completion import ModelSettings
from claw.planner.text import clean_text, redact
from claw.runtime import Planner, RunResult, Session, make_planner, parse_planner, run_instruction


class CaseResult(BaseModel):
    """How one case went."""

    id: str
    tags: list[str]
    success: bool
    reason: str = ""
    read_right: bool = False
    """The planner read the instruction right: its first plan's goal is the case's (and its
    pushes the expected push), or it refused with the expected error — before any physics."""
    refused: bool = False
    """A goal case stopped by a refusal before any step ran (:mod:`claw.eval.tallies`)."""
    wrong_reading_ran: bool = False
    """A goal case whose first plan was not read right, yet a step of it ran."""
    trap_planned: bool = False
    """An ``expect_error`` case for which a plan was made instead of the refusal."""
    goal_recall: float = 0.0
    """Fraction of the ground-truth goal predicates that hold at the end (1.0 for error cases)."""
    executable: float = 0.0
    """Fraction of planned steps that validated and ran successfully."""
    replans: int = 0
    plan_steps: int = 0
    """Steps of the last plan as the planner wrote it (a composite skill's call is one)."""
    reader: Reader | None = None
    """Who read the instruction and planned the case: ``offline`` or ``model`` (``None``: no
    planner was asked, as for a scene that cannot be built)."""
    llm_calls: int = 0
    llm_tokens: int = 0
    """Prompt and completion tokens together (``llm_prompt_tokens + llm_completion_tokens``)."""
    llm_prompt_tokens: int = 0
    llm_completion_tokens: int = 0
    llm_cached: int = 0
    """Model answers taken from the answer cache (no call, no token)."""
    sim_seconds: float = 0.0
    wall_seconds: float = 0.0
    error: str | None = None
    """The kind of the exception that stopped this case (claw's own kind, ``internal_error``
    for any other), with its message in ``reason``; None for a case that ran to its verdict."""
    run: dict[str, Any] = Field(default_factory=dict)


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


_recording: dict[str, str] | None = None  # answers recorded in this process (--record)
VIDEO_FRAME = (240, 320)  # a case's video: height, width
VIDEO_FPS = 10  # frames per simulated second


def case_planner(
    spec: str, case: Case, env: TabletopEnv, settings: ModelSettings | None = None
) -> Planner:
    """The planner a case runs with, recording its model's answers when a recording is on."""
    planner = make_planner(spec, env=env, ground_truth=case, settings=settings)
    recording, model = _recording, planner.model
    if recording is not None and model is not None:

        def remember(messages: list[dict[str, str]], answer: str) -> None:
            recording[key(model, messages)] = answer

        planner.on_answer = remember
    return planner


def run_case(
    suite: Suite,
    index: int,
    planner_spec: str,
    video: Path | None = None,
    prefer: str | None = None,
    settings: ModelSettings | None = None,
) -> CaseResult:
    """Run case ``index`` of ``suite`` on a fresh env and judge it (an LLM asked as
    ``settings`` say).

    With ``video`` (``.gif`` or ``.mp4``) the run is recorded at ``VIDEO_FPS`` frames per
    simulated second (``VIDEO_FRAME``: 240 x 320) and written there once it has been judged;
    no file when the scene cannot be built.
    Any exception of the case (not Ctrl-C) is its result (:func:`crashed`), never the suite's.
    """
    if video is not None:
        check_video_path(video)
    tic = time.perf_counter()
    try:
        return _run_case(suite, index, planner_spec, video, prefer, settings)
    except Exception as exc:  # one case's failure, whatever it is, is that case's result
        return crashed(suite.cases[index], exc, time.perf_counter() - tic)


def crashed(case: Case, exc: BaseException, wall_seconds: float = 0.0) -> CaseResult:
    """The result of a case that raised ``exc``: failed, with its kind and one-line message."""
    kind = str(getattr(exc, "kind", "") or "internal_error")
    message = clean_text(redact(str(exc)), 200) or "no message"
    return CaseResult(
        id=case.id,
        tags=case.tags,
        success=False,
        reason=f"{kind}: {type(exc).__name__}: {message}",
        error=kind,
        wall_seconds=round(wall_seconds, 3),
    )


def _run_case(
    suite: Suite,
    index: int,
    planner_spec: str,
    video: Path | None,
    prefer: str | None,
    settings: ModelSettings | None,
) -> CaseResult:
    case = suite.cases[index]
    tic = time.perf_counter()
    try:
        session = Session(suite.scene_of(case), video=video, frame_size=VIDEO_FRAME, fps=VIDEO_FPS)
    except InvalidSceneError as exc:
        ok = case.accepts_error("invalid_scene")
        return CaseResult(
            id=case.id,
            tags=case.tags,
            success=ok,
            read_right=ok,
            reason="" if ok else f"invalid scene: {exc}",
            goal_recall=1.0 if ok else 0.0,
            wall_seconds=round(time.perf_counter() - tic, 3),
        )
    with session:
        session.reset(case.seed)
        env = session.env
        before = env.data.qpos.copy()
        planner = case_planner(planner_spec, case, env, settings)
        result = run_instruction(env, case.instruction, planner, prefer=prefer)
        success, reason, recall = judge(case, env, result, before)
        session.save_video()
    planned = max(len(result.plan), len(result.steps))
    usage = planner.usage
    right = read_right(case, result)
    counted = outcome(case, result, right, success)
    return CaseResult(
        id=case.id,
        tags=case.tags,
        success=success,
        reason=reason,
        read_right=right,
        refused=counted.refused,
        wrong_reading_ran=counted.wrong_reading_ran,
        trap_planned=counted.trap_planned,
        goal_recall=round(recall, 4),
        executable=round(sum(s.success for s in result.steps) / planned, 4) if planned else 1.0,
        replans=result.replans,
        plan_steps=len(result.plan),
        reader=result.reader,
        llm_calls=0 if usage is None else usage.calls,
        llm_tokens=0 if usage is None else usage.prompt_tokens + usage.completion_tokens,
        llm_prompt_tokens=0 if usage is None else usage.prompt_tokens,
        llm_completion_tokens=0 if usage is None else usage.completion_tokens,
        llm_cached=0 if usage is None else usage.cached,
        sim_seconds=result.sim_seconds,
        wall_seconds=round(time.perf_counter() - tic, 3),
        run=json.loads(result.model_dump_json()),
    )


def _worker(
    payload: tuple[str, int, str, bool, str | None, str | None],
) -> tuple[str, dict[str, str]]:
    global _recording
    suite_json, index, planner, record, prefer, settings_json = payload
    _recording = {} if record else None
    settings = ModelSettings.model_validate_json(settings_json) if settings_json else None
    suite = Suite.model_validate_json(suite_json)
    result = run_case(suite, index, planner, prefer=prefer, settings=settings)
    return result.model_dump_json(), _recording or {}


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
) -> SuiteResult:
    """Every case of ``suite``, in ``workers`` processes or as Ray tasks; results in case order
    whatever ran them.

    With ``record``, every LLM answer is saved to that cassette (replay it with
    ``planner="replay:FILE"``). ``prefer`` picks the skill implementations as ``claw --prefer``;
    ``settings`` say how a model is asked (endpoint, deadline, temperature, answer length).
    ``ray`` is a Ray address (:func:`claw.eval.ray_runner.check_address`; ``local`` starts Ray
    here with ``workers`` CPUs, or all of them when ``workers`` is 1). With ``learn``, each case
    that succeeded on physics is learned as a composite skill once all have run, in case order
    (:func:`claw.library.learn_from_run`), whatever ran them.
    """
    global _recording
    spec = parse_planner(planner)  # a bad name fails here, before any case runs
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
        _recording = recorded if record is not None else None
        try:
            for i in range(len(suite.cases)):
                results[i] = run_case(suite, i, planner, prefer=prefer, settings=settings)
                if progress is not None:
                    progress(results[i])  # type: ignore[arg-type]
        finally:
            _recording = None
    else:
        policy_source()  # opened once here: workers inherit it synced (and any note said once)
        payload = suite.model_dump_json()
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            model = settings.model_dump_json() if settings is not None else None
            jobs = [
                pool.submit(_worker, (payload, i, planner, record is not None, prefer, model))
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
