"""``claw bench startup``: a cold ``claw "…"`` against its floor, measured in one run.

The floor is a Python process that imports MuJoCo and numpy, builds the same scene and runs the
same physics steps as the run, nothing else (:data:`claw.startup_probe.FLOOR`). Each repeat
times, in new processes, a first ``claw "INSTRUCTION"`` (a fresh ``CLAW_HOME``: claw's caches
are built, the built-in skills registered), a cold one (a new process on that home, as every run
after the first starts), and the floor
(the same home) and the floor, the floor first on every other repeat; the figures are medians.
A separate cold run, untimed, counts the modules ``claw`` imports and the processes it starts.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from pydantic import BaseModel

from claw.startup_probe import FLOOR, TRAJECTORY

INSTRUCTION = "put the red block next to the blue box"
TARGET = 2.0
"""The ratio the project holds a cold ``claw "…"`` (a new process, its home as a run left it)
to: at most twice its floor."""


class StartupBench(BaseModel):
    """Wall seconds of each timed process, their medians and ratios, and the census."""

    instruction: str
    scene: str
    seed: int
    repeats: int
    physics_steps: int
    """``mj_step`` calls of the run, which the floor runs too."""
    sim_seconds: float
    run_success: bool
    first_run_seconds: list[float]
    cold_seconds: list[float]
    floor_seconds: list[float]
    first_run_median: float
    cold_median: float
    floor_median: float
    first_run_ratio: float
    """The first ``claw "…"`` on a fresh home over the floor (medians)."""
    cold_ratio: float
    """A cold ``claw "…"`` (a new process) over the floor (medians): the target's."""
    target_ratio: float = TARGET
    modules: int
    """Modules in ``sys.modules`` when ``claw "…"`` exits."""
    from_source: int = 0
    """Of those, modules compiled from source by every process: no up-to-date cached bytecode
    (``PYTHONDONTWRITEBYTECODE`` set and stale ``__pycache__``); ``python -m compileall``
    writes it."""
    subprocesses: int
    """Processes the first ``claw "…"`` starts itself (on a fresh ``CLAW_HOME``)."""
    subprocess_programs: list[str]


def claw_command() -> list[str]:
    """How to start the ``claw`` console script of this Python (``python -m claw`` without one)."""
    script = Path(sys.executable).with_name("claw")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "claw"]


def _environment(home: Path) -> dict[str, str]:
    """The environment a timed process starts in: the user's, with a fresh ``CLAW_HOME`` (and
    without the rendering backend this process chose for itself: a child given
    ``MUJOCO_GL=egl`` loads MuJoCo's EGL bindings at import, which a plain run never does)."""
    from claw import MUJOCO_GL_GIVEN

    env = {k: v for k, v in os.environ.items() if k not in ("CLAW_MODEL", "CLAW_HOME")}
    env.pop("MUJOCO_GL", None)
    if MUJOCO_GL_GIVEN is not None:
        env["MUJOCO_GL"] = MUJOCO_GL_GIVEN
    return {**env, "CLAW_HOME": str(home)}


def _timed(command: list[str], env: dict[str, str]) -> float:
    """Wall seconds of ``command`` run to its end.

    Raises:
        RuntimeError: it exited non-zero (its last line of output said why).
    """
    tic = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - tic
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines() or ["no output"]
        raise RuntimeError(f"{' '.join(command[-2:])} exited {done.returncode}: {lines[-1]}")
    return seconds


def _probe(home: Path, *args: str) -> None:
    _timed([sys.executable, "-m", "claw.startup_probe", *args], _environment(home))


def bench_startup(
    repeats: int = 5, instruction: str = INSTRUCTION, scene: str = "default", seed: int = 0
) -> StartupBench:
    """Time ``claw "instruction"`` first on a fresh home, then cold on that home, against its
    floor, ``repeats`` times each."""
    import numpy as np

    options = [] if (scene, seed) == ("default", 0) else ["--scene", scene, "--seed", str(seed)]
    claw = [*claw_command(), instruction, *options]  # as typed: claw "…"
    with tempfile.TemporaryDirectory(prefix="claw-bench-startup-") as scratch:
        root = Path(scratch)
        run = root / "run"
        run.mkdir()
        _probe(root / "record-home", "record", str(run), instruction, scene, str(seed))
        census_file = root / "census.json"
        _probe(root / "census-home", "census", str(census_file), instruction, *options)
        census = json.loads(census_file.read_text())
        floor_script = root / "floor.py"
        floor_script.write_text(FLOOR)
        floor = [sys.executable, str(floor_script), str(run)]
        first, cold, floors = [], [], []
        for k in range(repeats):
            env = _environment(root / f"home-{k}")
            if k % 2:
                floors.append(_timed(floor, env))
            first.append(_timed(claw, env))
            cold.append(_timed(claw, env))
            if not k % 2:
                floors.append(_timed(floor, env))
        trajectory = np.load(run / TRAJECTORY)
        steps, sim, success = (trajectory[k] for k in ("substeps", "sim_seconds", "success"))
    medians = [statistics.median(times) for times in (first, cold, floors)]
    return StartupBench(
        instruction=instruction,
        scene=scene,
        seed=seed,
        repeats=repeats,
        physics_steps=int(steps.sum()),
        sim_seconds=round(float(sim), 3),
        run_success=bool(success),
        first_run_seconds=[round(s, 4) for s in first],
        cold_seconds=[round(s, 4) for s in cold],
        floor_seconds=[round(s, 4) for s in floors],
        first_run_median=round(medians[0], 4),
        cold_median=round(medians[1], 4),
        floor_median=round(medians[2], 4),
        first_run_ratio=round(medians[0] / medians[2], 3),
        cold_ratio=round(medians[1] / medians[2], 3),
        modules=census["modules"],
        from_source=census["from_source"],
        subprocesses=len(census["starts"]),
        subprocess_programs=census["starts"],
    )


def programs(result: StartupBench) -> str:
    """The programs started, each with its count: ``git x13``."""
    counts = Counter(result.subprocess_programs)
    return ", ".join(f"{name} x{n}" for name, n in sorted(counts.items()))


def _from_source(result: StartupBench) -> str:
    if not result.from_source:
        return "0 (all read from cached bytecode)"
    return f"{result.from_source} (no up-to-date bytecode; python -m compileall writes it)"


def describe(result: StartupBench) -> list[tuple[str, str]]:
    """Rows for the command's table."""
    return [
        ("command", f'claw "{result.instruction}" ({result.scene}, seed {result.seed}, offline)'),
        ("physics", f"{result.physics_steps} mj_step ({result.sim_seconds} s simulated)"),
        ("first claw (fresh CLAW_HOME)", f"{result.first_run_median:.3f} s median"),
        ("cold claw (new process)", f"{result.cold_median:.3f} s median"),
        ("floor (mujoco + numpy)", f"{result.floor_median:.3f} s median"),
        ("cold / floor", f"{result.cold_ratio:.2f}x (target <= {result.target_ratio:g}x)"),
        ("first / floor", f"{result.first_run_ratio:.2f}x"),
        ("modules imported", str(result.modules)),
        ("compiled from source", _from_source(result)),
        ("processes started (first run)", f"{result.subprocesses} ({programs(result) or 'none'})"),
        ("repeats", str(result.repeats)),
    ]
