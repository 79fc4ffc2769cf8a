"""``claw bench all``'s perception: the camera perceiver against the truth
(``claw bench perception``, without and with the sensor model), the suites and skills run
through the cameras (``claw eval … --perception camera``, ``claw bench skills --perception
camera``), each judged on the truth, and the replanning steps' latency through them
(``claw bench planner --perception camera``)."""

from __future__ import annotations

from functools import partial
from typing import Any

from claw.bench_plan import Budget, Run, command, shown
from claw.bench_suites import figures

SEEING_SUITES = ("basic", "cap", "benchmarks")
"""The suites run through the cameras, beside their runs on the truth."""
REPLANNING_SUITE = "basic"
"""The suite whose instructions time a replanning step through the cameras."""
SENSINGS = (("camera", False), ("camera", True))
"""(perceiver, sensor model) of each run through the cameras."""


def _label(perception: str, noise: bool) -> str:
    return perception + ("+noise" if noise else "")


def _flags(perception: str, noise: bool) -> list[str]:
    return ["--perception", perception, *(["--sensor-noise"] if noise else [])]


def perception_runs(b: Budget) -> list[Run]:
    """The camera perceiver on randomised layouts, and the suites and skills seen through it."""
    from claw.perception.bench import bench_perception

    # The suites first: their workers are forked, and a process forked after this one has
    # rendered (EGL) hangs; the perceiver benchmarks render here, last.
    runs = [_suite_run(name, p, noise, b) for name in SEEING_SUITES for p, noise in SENSINGS]
    runs.append(_skills_run(b))
    runs += [_replanning_run(p, noise, b) for p, noise in SENSINGS]
    runs += [
        Run(f"perception/{'noise' if noise else 'none'}", "perception",
            command("bench", "perception", "--episodes", b.perception_episodes,
                    *(["--sensor-noise"] if noise else [])),
            partial(bench_perception, None, b.perception_episodes, 0, sensor_noise=noise))
        for noise in (False, True)
    ]  # fmt: skip
    return runs


def _suite_run(name: str, perception: str, noise: bool, b: Budget) -> Run:
    from claw.eval.suite import SUITES_DIR

    path = SUITES_DIR / f"{name}.yaml"
    limit = [] if b.eval_limit is None else ["--limit", b.eval_limit]
    line = command("eval", shown(path), "--planner", "offline", "--workers", b.eval_workers,
                   *limit, *_flags(perception, noise))  # fmt: skip

    def call() -> Any:
        from claw.eval.runner import run_suite
        from claw.eval.selection import select
        from claw.eval.suite import load_suite
        from claw.perception.sensing import Sensing

        suite = load_suite(str(path))
        if b.eval_limit is not None:
            suite = select(suite, None, [], b.eval_limit)[0]
        sensing = Sensing(perception=perception, sensor_noise=noise)
        result = run_suite(suite, "offline", workers=b.eval_workers, sensing=sensing)
        return figures(result, shown(path))

    return Run(f"seeing/{name}/{_label(perception, noise)}", "perception", line, call)


def _skills_run(b: Budget) -> Run:
    from claw.perception.sensing import Sensing
    from claw.skills.bench import bench_skills

    episodes = b.skills_episodes
    line = command("bench", "skills", "--episodes", episodes, "--perception", "camera")
    call = partial(bench_skills, episodes, 0, sensing=Sensing(perception="camera"))
    return Run("skills/camera", "perception", line, call)


def _replanning_run(perception: str, noise: bool, b: Budget) -> Run:
    from claw.eval.bench import bench_planner
    from claw.eval.suite import SUITES_DIR
    from claw.perception.sensing import Sensing

    path = str(SUITES_DIR / f"{REPLANNING_SUITE}.yaml")
    line = command("bench", "planner", "--suite", shown(path), "--repeats", b.planner_repeats,
                   *_flags(perception, noise))  # fmt: skip
    sensing = Sensing(perception=perception, sensor_noise=noise)
    call = partial(bench_planner, [path], b.planner_repeats, sensing)
    return Run(f"replanning/{_label(perception, noise)}", "planner", line, call)
