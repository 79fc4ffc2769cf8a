"""One case of a suite on physics: planned, executed and judged by its ground truth.

:mod:`claw.eval.runner` runs a suite's cases here, in worker processes or as Ray tasks
(:mod:`claw.eval.ray_runner`); each gives the same :class:`CaseResult` wherever it ran.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from claw.envs.exceptions import InvalidSceneError
from claw.envs.tabletop import TabletopEnv
from claw.envs.video import check_video_path
from claw.eval.cassette import key
from claw.eval.judging import judge, read_right
from claw.eval.suite import Case, Suite
from claw.eval.tallies import outcome
from claw.planner.base import Reader
from claw.planner.llm.completion import ModelSettings
from claw.planner.text import clean_text, redact
from claw.runtime import Planner, Sensing, Session, make_planner, run_instruction


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
    cause: str | None = None
    """Why a failed case failed: ``reading`` (misread or refused), ``perception`` (an object it
    names was not where it was believed to be) or ``acting``; ``None`` on success."""


_recording: dict[str, str] | None = None  # answers recorded in this process (--record)


@contextmanager
def recording(answers: dict[str, str] | None) -> Iterator[None]:
    """Record every model answer of the cases run inside into ``answers`` (``None``: none)."""
    global _recording
    _recording = answers
    try:
        yield
    finally:
        _recording = None


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
    sensing: Sensing | None = None,
) -> CaseResult:
    """Run case ``index`` of ``suite`` on a fresh env and judge it (an LLM asked as
    ``settings`` say, the world seen as ``sensing`` says).

    With ``video`` (``.gif`` or ``.mp4``) the run is recorded at ``VIDEO_FPS`` frames per
    simulated second (``VIDEO_FRAME``: 240 x 320) and written there once it has been judged;
    no file when the scene cannot be built.
    Any exception of the case (not Ctrl-C) is its result (:func:`crashed`), never the suite's.
    """
    if video is not None:
        check_video_path(video)
    tic = time.perf_counter()
    try:
        return _run_case(suite, index, planner_spec, video, prefer, settings, sensing)
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
    sensing: Sensing | None,
) -> CaseResult:
    case = suite.cases[index]
    tic = time.perf_counter()
    try:
        session = Session(
            suite.scene_of(case),
            video=video,
            frame_size=VIDEO_FRAME,
            fps=VIDEO_FPS,
            sensing=sensing,
        )
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
    cause = None if success else ("reading" if not right else result.cause or "acting")
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
        cause=cause,
    )


def worker(
    payload: tuple[str, int, str, bool, str | None, str | None, str | None],
) -> tuple[str, dict[str, str]]:
    """One case in a worker process (or a Ray task), from what can cross a process boundary: the
    suite as JSON, the case's index, the planner, whether to record, the implementation asked
    for, the model settings and the sensing as JSON; its result as JSON and the answers
    recorded."""
    suite_json, index, planner, record, prefer, settings_json, sensing_json = payload
    settings = ModelSettings.model_validate_json(settings_json) if settings_json else None
    sensing = Sensing.model_validate_json(sensing_json) if sensing_json else None
    suite = Suite.model_validate_json(suite_json)
    answers: dict[str, str] = {}
    with recording(answers if record else None):
        result = run_case(suite, index, planner, prefer=prefer, settings=settings, sensing=sensing)
    return result.model_dump_json(), answers
