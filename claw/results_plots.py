"""The results page's plots (PNG through matplotlib's Agg backend, no display), each drawn from
figures of the results file alone, and written without a timestamp or version: the same
figures give the same bytes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

PLOTS = ("startup.png", "planner_latency.png", "suites.png", "imitation.png")
"""Every plot the page may have (one it no longer has is removed)."""
Axes = Any  # matplotlib's, imported only when a plot is drawn


def write_plot(
    draw: Callable[[Axes], None], path: Path, size: tuple[float, float] = (7, 3.6)
) -> None:
    """Draw on a fresh figure's axes and save it to ``path`` (no metadata that changes)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=size, dpi=100)
    try:
        draw(axes)
        figure.tight_layout()
        figure.savefig(path, format="png", metadata={"Software": None})
    finally:
        plt.close(figure)


def plot_startup(result: Mapping[str, Any], axes: Axes) -> None:
    """Histogram of the timed processes' wall seconds: the first run, cold runs, the floor."""
    runs = {
        'first claw "…" (fresh home)': result["first_run_seconds"],
        'cold claw "…"': result["cold_seconds"],
        "floor (mujoco + numpy)": result["floor_seconds"],
    }
    everything = [s for seconds in runs.values() for s in seconds]
    bins = _bins(min(everything), max(everything), 30)
    for label, seconds in runs.items():
        axes.hist(seconds, bins=bins, alpha=0.7, label=f"{label} (n={len(seconds)})")
    axes.axvline(result["floor_median"] * result["target_ratio"], color="k", linestyle="--",
                 label=f"target: {result['target_ratio']:g}× the floor")  # fmt: skip
    axes.set_xlabel("wall seconds per process")
    axes.set_ylabel("runs")
    axes.legend(fontsize=8)


def plot_latency(result: Mapping[str, Any], axes: Axes) -> None:
    """Histogram of every instruction's whole-plan time (each its median of the repeats)."""
    times = [ms for suite in result["suites"] for ms in suite.get("plan_ms", [])]
    axes.hist(times, bins=_bins(0.0, max(times, default=1.0), 40))
    axes.set_xlabel("offline planner, whole plan per instruction (ms)")
    axes.set_ylabel("instructions")
    axes.set_title(f"{len(times)} instructions, median of {result['repeats']} timings each",
                   fontsize=9)  # fmt: skip


def plot_suites(by: Mapping[tuple[str, str], Mapping[str, Any]], axes: Axes) -> None:
    """Success rate per suite (rows) and planner (bars)."""
    suites = sorted({suite for suite, _ in by})
    planners = sorted({planner for _, planner in by})
    height = 0.8 / max(len(planners), 1)
    for k, planner in enumerate(planners):
        rates = [
            100 * by[(s, planner)]["success_rate"] if (s, planner) in by else 0 for s in suites
        ]
        axes.barh([i + k * height for i in range(len(suites))], rates, height=height,
                  label=planner)  # fmt: skip
    axes.set_yticks([i + 0.4 - height / 2 for i in range(len(suites))], suites, fontsize=8)
    axes.invert_yaxis()
    axes.set_xlim(0, 100)
    axes.set_xlabel("success (%)")
    axes.legend(fontsize=8, ncol=len(planners), loc="lower center", bbox_to_anchor=(0.5, 1.0),
                frameon=False)  # fmt: skip
    axes.figure.set_size_inches(7, 1.5 + 0.3 * len(suites))


def plot_imitation(result: Mapping[str, Any], axes: Axes) -> None:
    """Validation success after each stage (cloning, then each DAgger round) by env steps."""
    stages = result["stages"]
    steps = [stage["env_steps"] for stage in stages]
    success = [100 * stage["success_rate"] for stage in stages]
    axes.plot(steps, success, marker="o", label="learner, validation episodes")
    for x, y, stage in zip(steps, success, stages, strict=True):
        axes.annotate(stage["stage"], (x, y), textcoords="offset points", xytext=(0, 6),
                      ha="center", fontsize=7)  # fmt: skip
    expert = next((r for r in result["rows"] if r["env_steps"] == 0), None)
    if expert is not None:
        axes.axhline(100 * expert["success_rate"], color="k", linestyle="--",
                     label="expert, fresh episodes")  # fmt: skip
    axes.legend(fontsize=8, loc="lower right")
    axes.set_ylim(0, 105)
    axes.set_xlabel("env steps of training")
    axes.set_ylabel("validation success (%)")


def _bins(low: float, high: float, n: int) -> list[float]:
    """``n`` equal bins over [low, high] (a range of one value widened)."""
    if high <= low:
        low, high = low - 0.5, high + 0.5
    return [low + (high - low) * k / n for k in range(n + 1)]
