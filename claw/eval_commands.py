"""``claw eval [run] SUITE``: run a suite on physics with a planner, judge it, report metrics;
``claw eval compare A.json B.json``: compare two results written by ``--json``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from claw.options import (
    DEFAULT_TIMEOUT,
    ApiBase,
    LlmModeOption,
    MaxTokens,
    NoCache,
    PerceptionOption,
    Planner,
    PreferOption,
    RayOption,
    SensorNoiseFlag,
    Structured,
    StructuredMode,
    Temperature,
    Timeout,
    TrackerOption,
    TrackingUriOption,
    model_settings,
)
from claw.output import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    cassettes,
    error_of,
    errors,
    fail,
    markup,
    report_error,
    suite_files,
)
from claw.sweep_commands import eval_sweep

if TYPE_CHECKING:
    from rich.console import Console

    from claw.eval.compare import Comparison
    from claw.eval.runner import SuiteResult
    from claw.eval.selection import Selection
    from claw.eval.suite import Suite
    from claw.learning.tracking import TrackerSettings
    from claw.planner.llm.completion import ModelSettings
    from claw.runtime import Sensing

EVAL_COMMANDS = ("run", "compare", "sweep")
TAG_DELTAS = {
    "read_right": "read",
    "success_rate": "success",
    "goal_recall": "recall",
    "executability": "exec.",
    "replans": "replans",
}

eval_app = typer.Typer(
    help="Offline evaluation: claw eval SUITE runs a suite (claw eval run SUITE); "
    "claw eval sweep SWEEP.yaml runs planners x suites x seeds; "
    "claw eval compare A.json B.json [...] compares results.",
    no_args_is_help=True,
)
eval_app.command("sweep")(eval_sweep)


@eval_app.command("run")
def eval_run(
    suite: Annotated[
        str, typer.Argument(metavar="SUITE", help="A suite YAML file, or a built-in name (basic).")
    ],
    planner: Planner = None,
    workers: Annotated[int, typer.Option(min=1, help="Processes running cases.")] = 1,
    json_file: Annotated[
        Path | None,
        typer.Option(
            "--json",
            metavar="FILE",
            help="Write the full results (per case, overall, per tag) to this JSON file.",
        ),
    ] = None,
    record: Annotated[
        Path | None,
        typer.Option(
            "--record",
            metavar="FILE",
            help="Save every LLM answer to this cassette; replay it with --planner replay:FILE.",
        ),
    ] = None,
    prefer: PreferOption = None,
    perception: PerceptionOption = "truth",
    sensor_noise: SensorNoiseFlag = False,
    api_base: ApiBase = None,
    timeout: Timeout = DEFAULT_TIMEOUT,
    temperature: Temperature = 0.0,
    max_tokens: MaxTokens = None,
    structured: Structured = StructuredMode.auto,
    llm_mode: LlmModeOption = None,
    no_cache: NoCache = False,
    ray: RayOption = None,
    learn: Annotated[
        bool,
        typer.Option(
            "--learn",
            help="Store each case that succeeds on physics as a composite skill in the library "
            "(claw skills list shows them).",
        ),
    ] = False,
    report: Annotated[
        Path | None,
        typer.Option(
            "--report",
            metavar="DIR",
            help="Write report.md, a self-contained report.html, results.json, PNG plots and a "
            "GIF of every failed case (run again while recording) into this folder.",
        ),
    ] = None,
    keyword: Annotated[
        str | None,
        typer.Option(
            "-k",
            metavar="EXPR",
            help="Run only the cases whose id or tags match EXPR, as pytest's -k: substrings "
            "(any case) joined by and, or, not and parentheses.",
        ),
    ] = None,
    tags: Annotated[
        list[str] | None,
        typer.Option(
            "--tags",
            metavar="T[,T...]",
            help="Run only the cases with any of these tags (comma-separated or repeated).",
        ),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option("--limit", min=1, metavar="N", help="Run only the first N cases selected."),
    ] = None,
    tracker: TrackerOption = None,
    tracking_uri: TrackingUriOption = None,
) -> None:
    """Run every case of a suite and judge it by its ground truth (goal or expected error).

    Exit 0 when every case succeeds, 1 when some fail, 2 for a bad suite, planner or output.
    """
    from claw.common.outputs import check_apart, check_output_dir, check_output_file
    from claw.eval.report import WRITTEN  # importing claw.eval registers its planners
    from claw.eval.selection import select
    from claw.eval.suite import load_suite
    from claw.runtime import parse_planner

    name = planner or "offline"
    selection: Selection | None = None
    with errors():
        loaded = load_suite(suite)
        if keyword is not None or tags or limit is not None:
            loaded, selection = select(loaded, keyword, tags or [], limit)
        parse_planner(name)
        if json_file is not None:
            check_output_file(json_file, what="--json file")
        if record is not None:
            check_output_file(record, what="--record file")
        if report is not None:
            check_output_dir(report, what="--report folder")
        inputs = [*suite_files(suite, loaded), *cassettes([name])]
        check_apart(inputs, [("--json file", json_file), ("--record file", record)])
        check_apart(inputs, [("--report file", report / f) for f in WRITTEN] if report else [])
        from claw.learning.tracking import TrackerSettings

        tracking = TrackerSettings.of(tracker, tracking_uri)
    settings = model_settings(
        api_base, timeout, temperature, max_tokens, structured, llm_mode, not no_cache
    )
    choice = prefer.value if prefer else None
    if learn:
        from claw.library import SkillLibrary

        with errors():
            SkillLibrary().check_writable()
    from claw.runtime import Sensing

    with errors():
        from claw.perception import check_perceiver

        check_perceiver(perception)
    sensing = Sensing(perception=perception, sensor_noise=sensor_noise)
    _run(
        loaded, name, workers, json_file, report, record, choice, settings, ray, learn, selection,
        tracking, sensing,
    )  # fmt: skip


@eval_app.command("compare")
def eval_compare(
    files: Annotated[
        list[Path],
        typer.Argument(
            metavar="A.json B.json [C.json ...]",
            help="Results written by --json (or --report folders); A is the baseline.",
        ),
    ],
    json_file: Annotated[
        Path | None,
        typer.Option("--json", metavar="FILE", help="Also write the comparison to this file."),
    ] = None,
) -> None:
    """Two results: the metric changes from A to B and the cases whose success changed. Three
    or more: their overall metrics side by side."""
    from rich.console import Console

    from claw.common.outputs import check_apart, check_output_file
    from claw.eval.compare import compare_files, compare_many
    from claw.eval.report import RESULTS_FILE

    with errors():
        if len(files) < 2:
            raise ValueError(f"compare needs at least two results, got {len(files)}")
        if json_file is not None:
            check_output_file(json_file, what="--json file")
        read = [(f"result {i + 1} being compared", f / RESULTS_FILE if f.is_dir() else f)
                for i, f in enumerate(files)]  # fmt: skip
        check_apart(read, [("--json file", json_file)])
        if len(files) > 2:
            from claw.sweep_commands import show_rows, write_rows

            rows = compare_many(list(files))
            if json_file is not None:
                write_rows(json_file, rows)
            show_rows(rows, Console(), title=f"{len(rows)} results")
            return
        comparison = compare_files(*files)
        if json_file is not None:
            _write_json(json_file, comparison.model_dump_json(indent=1))
    show_comparison(comparison, Console())


def _write_json(path: Path, text: str) -> None:
    from claw.common.files import atomic_write

    atomic_write(path, text.encode())


def _run(
    suite: Suite,
    planner: str,
    workers: int,
    json_file: Path | None,
    report: Path | None,
    record: Path | None = None,
    prefer: str | None = None,
    settings: ModelSettings | None = None,
    ray: str | None = None,
    learn: bool = False,
    selection: Selection | None = None,
    tracking: TrackerSettings | None = None,
    sensing: Sensing | None = None,
) -> None:
    import time

    from rich.console import Console
    from rich.progress import Progress

    from claw.common.exceptions import ClawError
    from claw.eval.cases import CaseResult
    from claw.eval.runner import run_suite, suite_result

    console = Console()
    done: list[CaseResult] = []

    def advance(case: CaseResult) -> None:
        done.append(case)
        bar.advance(task)

    tic = time.perf_counter()
    with Progress(console=console, transient=True) as bar:
        task = bar.add_task(f"{suite.name} with {planner}", total=len(suite.cases))
        try:
            result = run_suite(
                suite,
                planner,
                workers,
                progress=advance,
                record=record,
                prefer=prefer,
                settings=settings,
                ray=ray,
                learn=learn,
                sensing=sensing,
            )
        except KeyboardInterrupt:
            result = suite_result(
                suite, planner, prefer, done, time.perf_counter() - tic, interrupted=True
            )
        except ClawError as exc:  # e.g. an unreadable library met while running
            fail(*error_of(exc))
    result.selection = selection
    if json_file is not None:  # first: finished results are never lost to a later problem
        with errors():
            _write_json(json_file, result.model_dump_json(indent=1))
    _show_result(result, console)
    if learn and not result.interrupted:
        new, updated = result.learned.get("new", 0), result.learned.get("updated", 0)
        console.print(
            f"learned: {new} new composite(s), {updated} updated with a phrase and a use "
            "(claw skills list)"
        )
    if result.ran_on:
        nodes = ", ".join(f"{n} on {node[:8]}" for node, n in sorted(result.ran_on.items()))
        console.print(f"Ray: {len(result.ran_on)} node(s) ran the cases ({nodes})")
    if result.interrupted:
        saved = f"; {len(done)} finished cases in {json_file}" if json_file else ""
        report_error("interrupted", f"after {len(done)} of {len(suite.cases)} cases{saved}")
        raise typer.Exit(EXIT_INTERRUPTED)
    if report is not None:
        from claw.eval.report import write_report

        failed = sum(not case.success for case in result.cases)
        with Progress(console=console, transient=True) as bar, errors():
            task = bar.add_task(f"recording {failed} failed cases", total=failed)
            written = write_report(
                result, report, suite, progress=lambda c: bar.advance(task), settings=settings
            )
        console.print(f"report: {markup(written.markdown)}, {markup(written.html)}")
    if tracking is not None:
        import shlex
        import sys

        from claw.learning.tracking import track_suite_result

        with errors():
            command = "claw " + shlex.join(sys.argv[1:])
            files = {"results": json_file, "report": report}
            run_id = track_suite_result(tracking, result, command, files)
        console.print(f"MLflow run {run_id} (experiment claw eval {markup(result.suite)})")
    raise typer.Exit(EXIT_OK if result.overall["success_rate"] == 1.0 else EXIT_FAILED)


def _show_result(result: SuiteResult, console: Console) -> None:
    from rich.table import Table

    from claw.eval.tallies import MODEL_TOKENS

    title = f"{result.suite}: {result.planner}, {len(result.cases)} cases"
    table = Table(title=markup(title), title_justify="left")
    columns = (
        "tag", "cases", "read right", "success", "goal recall", "executable", "replans",
        "read by offline / model", "success offline / model",
    )  # fmt: skip
    for column in columns:
        table.add_column(column, justify="left" if column == "tag" else "right")
    rows = [("all", result.overall), *result.per_tag.items()]
    for tag, metrics in rows:
        table.add_row(
            markup(tag),
            f"{metrics['cases']:.0f}",
            f"{100 * metrics.get('read_right', 0.0):.1f} %",
            f"{100 * metrics['success_rate']:.1f} %",
            f"{metrics['goal_recall']:.3f}",
            f"{metrics['executability']:.3f}",
            f"{metrics['replans']:.2f}",
            *_by_reader(metrics),
        )
    console.print(table)
    for case in result.cases:
        if not case.success:
            console.print(f"[red]failed[/red] {markup(case.id)}: {markup(case.reason)}")
    overall = result.overall
    console.print(
        f"read right {overall.get('read_right_cases', 0):.0f}, refused "
        f"{overall.get('refused', 0):.0f}, wrong reading ran "
        f"{overall.get('wrong_reading_ran', 0):.0f}, trap planned "
        f"{overall.get('trap_planned', 0):.0f} (of {len(result.cases)} cases)"
    )
    recovered = int(overall["recovered_by_replanning"])
    console.print(
        f"{recovered} successes recovered by replanning; {overall.get('plan_steps', 0):.2f} "
        f"plan steps per case; {result.wall_seconds} s wall"
    )
    if overall.get("llm_calls") or overall.get("llm_cached"):
        per_model = overall.get(MODEL_TOKENS)
        console.print(
            f"LLM per case: {overall['llm_calls']:.2f} calls, "
            f"{overall.get('llm_prompt_tokens', 0):.0f} prompt + "
            f"{overall.get('llm_completion_tokens', 0):.0f} completion tokens"
            + ("" if per_model is None else f" ({per_model:.0f} per case the model read)")
            + f"; {overall.get('llm_tokens_total', 0):.0f} tokens in all; "
            f"{overall.get('llm_cached', 0):.0f} answers from the answer cache"
        )


def _by_reader(metrics: dict[str, float]) -> tuple[str, str]:
    """The table's per-reader cells: how many cases each reader read, and their success."""
    from claw.eval.tallies import cases_key, success_key
    from claw.planner.base import READERS

    counts = " / ".join(f"{metrics.get(cases_key(who), 0):.0f}" for who in READERS)
    rates = [metrics.get(success_key(who)) for who in READERS]
    shown = " / ".join("-" if rate is None else f"{100 * rate:.1f}" for rate in rates)
    return counts, shown + " %"


def show_comparison(comparison: Comparison, console: Console) -> None:
    """Tables of the metric deltas and the list of cases that changed."""
    from rich import box
    from rich.table import Table

    from claw.eval.compare import Delta, format_delta
    from claw.eval.report import format_metric, metric_label

    a, b = comparison.a, comparison.b
    for side, info in (("A", a), ("B", b)):
        console.print(
            markup(f"{side}: {info.path} ({info.suite}, {info.planner}, {info.cases} cases)")
        )
    overall = Table(title="overall (Δ = B − A)", title_justify="left")
    for column in ("metric", "A", "B", "Δ"):
        overall.add_column(column, justify="left" if column == "metric" else "right")
    for key, d in comparison.overall.items():
        overall.add_row(
            metric_label(key),
            format_metric(key, d.a),
            format_metric(key, d.b),
            _colored(key, d.delta, format_delta(key, d.delta)),
        )
    console.print(overall)
    if comparison.per_tag:
        tags = Table(title="per tag (Δ = B − A)", title_justify="left", box=box.SIMPLE_HEAD)
        columns = ["tag", "cases", "success", *(f"Δ {label}" for label in TAG_DELTAS.values())]
        for column in columns:
            tags.add_column(
                column,
                justify="left" if column == "tag" else "right",
                no_wrap=column in ("tag", "success"),
            )
        missing = Delta(a=None, b=None, delta=None)
        for tag, deltas in comparison.per_tag.items():
            cases, success = deltas.get("cases", missing), deltas.get("success_rate", missing)
            tags.add_row(
                markup(tag),
                f"{format_metric('cases', cases.a)} → {format_metric('cases', cases.b)}",
                f"{format_metric('success_rate', success.a)} → "
                f"{format_metric('success_rate', success.b)}",
                *(
                    _colored(key, d.delta, format_delta(key, d.delta))
                    for d, key in ((deltas.get(k, missing), k) for k in TAG_DELTAS)
                ),
            )
        console.print(tags)
    if not comparison.changed:
        console.print("no case changed its success")
    for change in comparison.changed:
        if change.change == "fixed":
            console.print(
                f"[green]fixed[/green]  {markup(change.id)} (A: {markup(change.reason_a)})"
            )
        else:
            console.print(f"[red]broken[/red] {markup(change.id)}: {markup(change.reason_b)}")
    for label, ids in (("only in A", comparison.only_in_a), ("only in B", comparison.only_in_b)):
        if ids:
            console.print(markup(f"{label}: {', '.join(ids)}"))


def _colored(key: str, delta: float | None, text: str) -> str:
    """Green for a change for the better, red for the worse (higher is better for rates)."""
    if not delta or key not in ("read_right", "success_rate", "goal_recall", "executability"):
        return text
    return f"[green]{text}[/green]" if delta > 0 else f"[red]{text}[/red]"
