"""``claw "INSTRUCTION"``: plan, run on physics, check, replan, report."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from claw.output import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, EXIT_UNAVAILABLE, Prefer

BAD_INPUT_KINDS = {"unknown_object", "unparseable", "unsupported", "invalid_scene", "invalid_input"}


def _exit_code(result: Any) -> int:
    if result.error is not None:
        return EXIT_UNAVAILABLE if result.error["kind"] == "planner_unavailable" else EXIT_BAD_INPUT
    return EXIT_OK if result.success else EXIT_FAILED


class LiveView:
    """What a person sees while a run goes: the plan, each step as it ends, the result."""

    def __init__(self) -> None:
        from rich.console import Console

        self.console = Console()

    def __call__(self, kind: str, payload: Any) -> None:
        if kind in ("plan", "replan"):
            title = "plan" if kind == "plan" else "new plan after the failure"
            self.console.print(f"[bold]{title}[/bold]: goal {', '.join(payload.goal) or '(none)'}")
            for i, call in enumerate(payload.steps, 1):
                self.console.print(f"  {i}. {call}")
        elif kind == "step":
            mark = "[green]✓[/green]" if payload.success else "[red]✗[/red]"
            args = ", ".join(f"{k}={v!r}" for k, v in payload.args.items())
            line = f"{mark} {payload.skill}({args})  {payload.sim_seconds:.1f} s"
            self.console.print(line + ("" if payload.success else f"  [red]{payload.reason}[/red]"))
        elif kind == "goal":
            for item in payload.results:
                mark = "[green]✓[/green]" if item.holds else "[red]✗[/red]"
                self.console.print(f"  {mark} {item.predicate}: {item.reason}")

    def result(self, result: Any) -> None:
        if result.error is not None:
            self.console.print(
                f"[red]error[/red] {result.error['kind']}: {result.error['message']}"
            )
            return
        verdict = (
            "[bold green]success[/bold green]" if result.success else "[bold red]failed[/bold red]"
        )
        self.console.print(
            f"{verdict}: {len(result.steps)} steps, {result.replans} replans, "
            f"{result.sim_seconds:.1f} s simulated in {result.wall_seconds:.1f} s"
        )


def run(
    instruction: Annotated[
        str, typer.Argument(help="What to do, e.g. 'put the red block in the blue box'.")
    ],
    scene: Annotated[str, typer.Option(help="Built-in scene name or YAML file.")] = "default",
    seed: Annotated[int, typer.Option(help="Seed of the scene's sampled poses.")] = 0,
    planner: Annotated[
        str | None, typer.Option(help="'offline' (default) or a litellm model ($CLAW_MODEL).")
    ] = None,
    fallback: Annotated[
        str | None, typer.Option(help="'offline': plan offline if the model is unavailable.")
    ] = None,
    api_base: Annotated[
        str | None, typer.Option(help="An OpenAI-compatible endpoint ($CLAW_API_BASE).")
    ] = None,
    timeout: Annotated[float, typer.Option(min=0.1, help="Seconds per LLM call.")] = 30.0,
    max_replans: Annotated[int, typer.Option(min=0, help="Replans allowed after failures.")] = 3,
    video: Annotated[
        Path | None, typer.Option(help="Record the run to FILE.mp4 or FILE.gif.")
    ] = None,
    viewer: Annotated[bool, typer.Option("--viewer", help="Watch in MuJoCo's viewer.")] = False,
    prefer: Annotated[
        Prefer | None,
        typer.Option(
            help="Where a skill has both, run the learned policy or the controller "
            "(default: the one with the best measured success)."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Run an instruction on the tabletop: plan, execute on physics, check, replan."""
    from claw.planner.loop import RunResult

    result = RunResult(instruction=instruction, success=False)
    view = None if as_json else LiveView()
    chosen = None
    try:
        from claw.planner.llm import make_planner

        chosen = make_planner(planner, fallback, api_base, timeout)
        choice = prefer.value if prefer is not None else None
        result = _run(instruction, scene, seed, chosen, max_replans, video, viewer, choice, view)
    except (ValueError, RuntimeError) as exc:  # invalid scene, video path, no display
        kind = getattr(exc, "kind", "invalid_input")
        result.error = {"kind": kind, "message": str(exc).splitlines()[0]}
    if as_json:
        print(result.model_dump_json())
    else:
        assert view is not None
        view.result(result)
        usage = getattr(getattr(chosen, "first", chosen), "usage", None) if chosen else None
        if usage is not None and usage.attempts:
            tokens = usage.prompt_tokens + usage.completion_tokens
            view.console.print(
                f"LLM: {usage.calls} answers in {usage.attempts} calls, {tokens} tokens, "
                f"${usage.cost_usd:.4f}"
            )
        if result.error is not None:
            print(f"error: {result.error['kind']}: {result.error['message']}", file=sys.stderr)
    raise typer.Exit(_exit_code(result))


def _run(
    instruction: str,
    scene: str,
    seed: int,
    planner: Any,
    max_replans: int,
    video: Path | None,
    viewer: bool,
    prefer: str | None,
    view: LiveView | None,
) -> Any:
    from claw.envs.tabletop import TabletopEnv
    from claw.envs.video import RecordEpisode, check_video_path
    from claw.planner.loop import run_instruction

    if video is not None:
        check_video_path(video)
    render_mode = "human" if viewer else ("rgb_array" if video is not None else None)
    env = TabletopEnv(scene=scene, render_mode=render_mode)
    recorder = RecordEpisode(env, video) if video is not None else None
    try:
        (recorder or env).reset(seed=seed)
        result = run_instruction(
            env,
            instruction,
            planner,
            max_replans=max_replans,
            prefer=prefer,
            on_event=view,
        )
        if recorder is not None and result.error is None:
            recorder.save()
            if view is not None:
                view.console.print(f"video: {video}")
        return result
    finally:
        (recorder or env).close()
