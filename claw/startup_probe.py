"""What runs inside the processes ``claw bench startup`` starts (never in the measured ones).

- :func:`census`: ``claw ARGS`` as the console script runs it, counting the modules in
  ``sys.modules`` at exit and the processes it starts (audit events), written to a JSON file;
- :func:`record`: the same instruction run in process, its scene's MJCF, start state and every
  control with its physics steps saved for the floor (:data:`FLOOR`) to replay.

This module imports only the standard library at its top, so the census counts claw's own.
"""

from __future__ import annotations

import atexit
import json
import os
import runpy
import sys
from pathlib import Path
from typing import Any

STARTS = ("subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.system")
"""Audit events that start a process (``os.exec`` replaces this one instead)."""
SCENE, TRAJECTORY = "scene.xml", "trajectory.npz"

FLOOR = """\
import sys
import mujoco
import numpy as np

folder = sys.argv[1]
with open(folder + "/scene.xml") as f:
    model = mujoco.MjModel.from_xml_string(f.read())
data = mujoco.MjData(model)
run = np.load(folder + "/trajectory.npz")
data.qpos[:], data.qvel[:], data.ctrl[:] = run["qpos"], run["qvel"], run["ctrl"]
data.time = float(run["time"])
mujoco.mj_forward(model, data)
for ctrl, substeps in zip(run["controls"], run["substeps"]):
    data.ctrl[:] = ctrl
    mujoco.mj_step(model, data, nstep=int(substeps))
print(f"{data.time:.3f} s simulated")
"""
"""The floor: MuJoCo and numpy build the scene and run the same physics steps, nothing else."""


def _program(event: str, args: tuple[Any, ...]) -> str:
    """The name of the program an audit event starts (``fork`` for a bare fork)."""
    if event == "subprocess.Popen":
        executable, argv = args[0], args[1]
        first = executable or (argv if isinstance(argv, str | bytes) else argv[0])
        return os.path.basename(os.fsdecode(first).split()[0])
    if event in ("os.posix_spawn", "os.system"):
        return os.path.basename(os.fsdecode(args[0]).split()[0])
    if event == "os.spawn":
        return os.path.basename(os.fsdecode(args[1]))
    return event.removeprefix("os.")


def _from_source() -> int:
    """Modules in ``sys.modules`` loaded from a source file without up-to-date cached bytecode
    (none written, e.g. under ``PYTHONDONTWRITEBYTECODE``): every process compiles them again."""
    count = 0
    for module in list(sys.modules.values()):
        spec = getattr(module, "__spec__", None)
        source, cached = getattr(spec, "origin", None), getattr(spec, "cached", None)
        if not (source and cached and source.endswith(".py")):
            continue
        try:
            count += os.stat(cached).st_mtime < os.stat(source).st_mtime
        except OSError:  # no cached bytecode at all
            count += 1
    return count


def census(out: str, argv: list[str]) -> None:
    """Run ``claw argv``; at exit write ``{"modules": N, "from_source": M, "starts": [program,
    ...]}`` to ``out``."""
    starts: list[str] = []
    pid = os.getpid()

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in STARTS and os.getpid() == pid:
            starts.append(_program(event, args))

    def write() -> None:
        if os.getpid() == pid:  # a forked child exiting normally writes nothing
            said = {"modules": len(sys.modules), "from_source": _from_source(), "starts": starts}
            Path(out).write_text(json.dumps(said))

    sys.addaudithook(hook)
    atexit.register(write)
    sys.argv = ["claw", *argv]
    runpy.run_module("claw", run_name="__main__")  # the program, as `python -m claw` runs it


def record(folder: str, instruction: str, scene: str, seed: int) -> None:
    """Run ``instruction`` as ``claw`` does (offline planner) and save what the floor replays:
    :data:`SCENE` and :data:`TRAJECTORY` (the start state, each physics advance's controls and
    steps, the simulated seconds and whether the run succeeded)."""
    import numpy as np

    from claw.envs.tabletop import TabletopEnv
    from claw.runtime import Session, make_planner, run_instruction

    controls: list[np.ndarray] = []
    substeps: list[int] = []
    with Session(scene) as session:
        session.reset(seed)
        env = session.env
        data, timestep = env.data, env.model.opt.timestep
        Path(folder, SCENE).write_text(env.model_xml())
        start = {"qpos": data.qpos.copy(), "qvel": data.qvel.copy(), "ctrl": data.ctrl.copy()}
        start_time = last = float(data.time)

        def keep(env: TabletopEnv) -> None:
            nonlocal last
            controls.append(env.data.ctrl.copy())
            substeps.append(round((float(env.data.time) - last) / timestep))
            last = float(env.data.time)

        env.step_callbacks.append(keep)
        result = run_instruction(env, instruction, make_planner("offline"))
    np.savez(
        Path(folder, TRAJECTORY),
        **start,
        time=start_time,
        controls=np.array(controls).reshape(len(controls), -1),
        substeps=np.array(substeps, dtype=np.int64),
        sim_seconds=last - start_time,
        success=result.success,
    )


if __name__ == "__main__":  # python -m claw.startup_probe census OUT ARGS... | record ...
    if sys.argv[1] == "census":
        census(sys.argv[2], sys.argv[3:])
    else:
        record(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
