"""``claw "INSTRUCTION"``: plan, run on physics, check, replan, report."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from claw.options import (
    DEFAULT_TIMEOUT,
    ApiBase,
    JsonFlag,
    LlmModeOption,
    MaxSteps,
    MaxTokens,
    NoCache,
    PerceptionOption,
    Planner,
    PreferOption,
    Seed,
    SensorNoiseFlag,
    Structured,
    StructuredMode,
    Temperature,
    Timeout,
    model_settings,
)
from claw.output import (
    EXIT_FAILED,
    EXIT_OK,
    INTERRUPTED,
    cassettes,
    error_of,
    error_payload,
    exit_code,
    markup,
    report_error,
    report_help,
    said_already,
    scene_file,
)

if TYPE_CHECKING:
    from claw.envs import TabletopEnv
    from claw.planner.base import Usage
    from claw.runtime import Planner as PlannerType
    from claw.runtime import RunResult, Sensing


READ_BY = {"offline": "read offline", "model": "read by the model"}
"""How the verdict says who read the instruction (``RunResult.reader``)."""


def _exit_code(result: RunResult) -> int:
    if result.error is not None:
        return exit_code(result.error.kind)
    return EXIT_OK if result.success else EXIT_FAILED


def _read_as(plan: Any) -> str:
    """What the reader changed to read the instruction, for the plan line ("" for nothing)."""
    notes = getattr(plan, "reading", None)
    if notes is None:
        return ""
    said = [f"{typed} as {read}" for typed, read in notes.corrected.items()]
    if notes.ignored:
        said.append("ignored " + ", ".join(repr(w) for w in notes.ignored))
    return " " + markup(f"(read {'; '.join(said)})") if said else ""


class LiveView:
    """What a person sees while a run goes: the plan, each step as it ends, the result."""

    def __init__(self) -> None:
        from rich.console import Console

        self.console = Console()
        self.env: TabletopEnv | None = None
        """The run's env, once made: a two-arm plan is shown as its lanes."""
        self.said: list[str] = []
        """The reasons on screen (failed steps', checks'): the verdict's "why" repeats none."""

    def __call__(self, kind: str, payload: Any) -> None:
        if kind in ("plan", "replan"):
            title = "plan" if kind == "plan" else "new plan after the failure"
            goal = markup(", ".join(map(str, payload.goal)) or "(none)")
            self.console.print(f"[bold]{title}[/bold]: goal {goal}{_read_as(payload)}")
            self._steps(payload)
        elif kind == "step" and payload.error is None:  # an error is reported once, at the end
            mark = "[green]✓[/green]" if payload.success else "[red]✗[/red]"
            args = ", ".join(f"{k}={v!r}" for k, v in payload.args.items())
            line = f"{mark} {markup(f'{payload.skill}({args})')}  {payload.sim_seconds:.1f} s"
            reason = "" if payload.success else f"  [red]{markup(payload.reason)}[/red]"
            self.console.print(line + reason)
            self.said += [] if payload.success else [payload.reason]
        elif kind == "goal":
            for item in payload.results:
                mark = "[green]✓[/green]" if item.holds else "[red]✗[/red]"
                self.console.print(f"  {mark} {markup(f'{item.predicate}: {item.reason}')}")
                self.said.append(item.reason)

    def _steps(self, plan: Any) -> None:
        """The plan's numbered steps; where two arms run at the same time, one line per arm."""
        from claw.skills.lanes import ARM_ARG, call_arm, plan_stages

        marks = {w.after: w for w in plan.waypoints}
        steps = plan.steps
        stages = [[i] for i in range(len(steps))]
        if self.env is not None:
            stages = plan_stages(self.env, steps)
        for stage in stages:
            arms = list(dict.fromkeys(call_arm(steps[i].args) for i in stage))
            if len(arms) < 2:
                for i in stage:
                    self.console.print(f"  {i + 1}. {markup(steps[i])}")
            else:
                self.console.print("  at the same time:")
                for arm in arms:
                    for i in (i for i in stage if call_arm(steps[i].args) == arm):
                        args = {k: v for k, v in steps[i].args.items() if k != ARM_ARG}
                        shown = steps[i].model_copy(update={"args": args})
                        self.console.print(f"    {arm:>5} {i + 1}. {markup(shown)}")
            if stage[-1] + 1 in marks:
                waypoint = ", ".join(map(str, marks[stage[-1] + 1].goal))
                self.console.print(f"     then check: {markup(waypoint)}")

    def result(self, result: RunResult) -> None:
        """The verdict on stdout; an error is not repeated here (it goes to stderr once)."""
        if result.error is not None:
            return
        verdict = (
            "[bold green]success[/bold green]" if result.success else "[bold red]failed[/bold red]"
        )
        read = "" if result.reader is None else f"; {READ_BY[result.reader]}"
        self.console.print(
            f"{verdict}: {_count(len(result.steps), 'step')}, {_count(result.replans, 'replan')}, "
            f"{result.sim_seconds:.1f} s simulated in {result.wall_seconds:.1f} s{read}"
        )
        if not result.success and result.reason and not said_already(result.reason, self.said):
            self.console.print(f"  why: {markup(result.reason)}")


class SoFar:
    """Passes a run's events on to the live view and keeps its plan and finished steps: the
    result so far of a run stopped with Ctrl-C."""

    def __init__(self, instruction: str, view: LiveView | None) -> None:
        from claw.runtime import RunResult

        self.view = view
        self.result = RunResult(instruction=instruction, success=False)
        self._start, self._sim = time.perf_counter(), 0.0

    def __call__(self, kind: str, payload: Any) -> None:
        from claw.runtime import StepReport

        if kind == "plan":
            self.result.goal = list(payload.goal)
            self.result.plan = [call.model_copy(deep=True) for call in payload.steps]
        elif kind == "replan":
            self.result.replans += 1
        elif kind == "step":
            self.result.steps.append(StepReport.of(payload))
            self._sim += payload.sim_seconds
        if self.view is not None:
            self.view(kind, payload)

    def interrupted(self) -> RunResult:
        """The result so far, its error ``interrupted``."""
        from claw.runtime import RunError

        self.result.sim_seconds = round(self._sim, 3)
        self.result.wall_seconds = round(time.perf_counter() - self._start, 3)
        self.result.error = RunError(kind=INTERRUPTED, message="stopped by the user")
        return self.result


def run(
    instruction: Annotated[
        str, typer.Argument(help="What to do, e.g. 'put the red block in the blue box'.")
    ],
    scene: Annotated[str, typer.Option(help="Built-in scene name or YAML file.")] = "default",
    seed: Seed = 0,
    planner: Planner = None,
    fallback: Annotated[
        str | None, typer.Option(help="'offline': plan offline if the model is unavailable.")
    ] = None,
    api_base: ApiBase = None,
    timeout: Timeout = DEFAULT_TIMEOUT,
    temperature: Temperature = 0.0,
    max_tokens: MaxTokens = None,
    structured: Structured = StructuredMode.auto,
    llm_mode: LlmModeOption = None,
    no_cache: NoCache = False,
    max_replans: Annotated[int, typer.Option(min=0, help="Replans allowed after failures.")] = 3,
    max_steps: MaxSteps = None,
    video: Annotated[
        Path | None, typer.Option(help="Record the run to FILE.mp4 or FILE.gif.")
    ] = None,
    viewer: Annotated[bool, typer.Option("--viewer", help="Watch in MuJoCo's viewer.")] = False,
    prefer: PreferOption = None,
    perception: PerceptionOption = "truth",
    sensor_noise: SensorNoiseFlag = False,
    learn: Annotated[
        bool,
        typer.Option(
            "--learn",
            help="After a success on physics, store the plan as a composite skill in the library.",
        ),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Run an instruction on the tabletop: plan, execute on physics, check, replan."""
    from claw.common.exceptions import ClawError
    from claw.runtime import RunError, RunResult

    result = RunResult(instruction=instruction, success=False)
    view = None if as_json else LiveView()
    events = SoFar(instruction, view)
    chosen: PlannerType | None = None
    try:
        from claw.common.outputs import check_apart
        from claw.envs.video import check_video_path
        from claw.planner.language.instruction import check_text
        from claw.runtime import make_planner

        check_text(instruction)  # before anything is built: bytes that are not UTF-8
        if video is not None:
            check_video_path(video)
            check_apart([scene_file(scene), *cassettes([planner])], [("video file", video)])
        if learn:
            from claw.library import SkillLibrary

            SkillLibrary().check_writable()
        settings = model_settings(
            api_base, timeout, temperature, max_tokens, structured, llm_mode, not no_cache
        )
        chosen = make_planner(planner, fallback=fallback, settings=settings)
        choice = prefer.value if prefer is not None else None
        from claw.runtime import Sensing

        sensing = Sensing(perception=perception, sensor_noise=sensor_noise)
        result = _run(
            instruction,
            scene,
            seed,
            chosen,
            max_replans,
            max_steps,
            video,
            viewer,
            choice,
            events,
            sensing,
        )
        if learn and result.error is None:
            _learn(instruction, result, seed, scene, chosen.name, view)
    except (ClawError, ValueError, OSError, RuntimeError) as exc:  # scene, video, no display
        kind, message = error_of(exc)
        result.error = RunError(kind=kind, message=message)
    except KeyboardInterrupt:  # the result so far, reported as any error is
        result = events.interrupted()
    if result.error is not None:  # one safe line, whichever layer found it
        safe = error_payload(result.error.kind, result.error.message)
        result.error = result.error.model_copy(update=safe)
    if as_json:
        print(result.model_dump_json())
    else:
        assert view is not None
        view.result(result)
        line = _usage_line(chosen.usage if chosen is not None else None)
        if line:
            view.console.print(line)
        if result.error is not None:
            report_error(result.error.kind, result.error.message)
            report_help(result.error.read, [s.instruction for s in result.error.suggestions])
    raise typer.Exit(_exit_code(result))


def _run(
    instruction: str,
    scene: str,
    seed: int,
    planner: PlannerType,
    max_replans: int,
    max_steps: int | None,
    video: Path | None,
    viewer: bool,
    prefer: str | None,
    events: SoFar,
    sensing: Sensing,
) -> RunResult:
    from claw.planner import MAX_PLAN_STEPS
    from claw.runtime import Session, run_instruction

    with Session(scene, video=video, viewer=viewer, sensing=sensing) as session:
        session.reset(seed)
        if events.view is not None:
            events.view.env = session.env
        result = run_instruction(
            session.env,
            instruction,
            planner,
            max_replans=max_replans,
            prefer=prefer,
            on_event=events,
            max_steps=MAX_PLAN_STEPS if max_steps is None else max_steps,
        )
        if result.error is None and session.save_video() is not None and events.view is not None:
            events.view.console.print(f"video: {markup(video)}")
        return result


def _learn(
    instruction: str, result: RunResult, seed: int, scene: str, planner: str, view: LiveView | None
) -> None:
    """Store the run's plan as a composite (``--learn``); say what was stored, on stderr with
    ``--json`` (stdout keeps the documented result)."""
    import sys

    from claw.library import SkillLibrary
    from claw.library.composites import learn_from_run

    record = learn_from_run(SkillLibrary(), instruction, result, seed, scene=scene, planner=planner)
    if record is None:
        line = "learned nothing (only a success of 2 or more steps, unreplanned, is learned)"
    else:
        uses = record.metrics.episodes if record.metrics is not None else 0
        line = f"learned: composite {record.key} — {record.description} ({_count(uses, 'use')})"
    if view is not None:
        view.console.print(markup(line))
    else:
        print(line, file=sys.stderr)


def _usage_line(usage: Usage | None) -> str:
    """What the model cost the run, one line ("" where no model answered)."""
    if usage is None or not (usage.attempts or usage.cached):
        return ""
    tokens = usage.prompt_tokens + usage.completion_tokens
    asked = (
        f"{_count(usage.calls, 'answer')} in {_count(usage.attempts, 'call')}, {tokens} tokens, "
        f"${usage.cost_usd:.4f}"
    )
    kept = f"{_count(usage.cached, 'answer')} from the answer cache (no call)"
    if not usage.attempts:
        return f"LLM: {kept}"
    return f"LLM: {asked}; {kept}" if usage.cached else f"LLM: {asked}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
