"""Shared test setup: headless MuJoCo rendering, and envs that are closed after each test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

# Before anything imports mujoco: it picks its OpenGL backend at import time.
os.environ.setdefault("MUJOCO_GL", "egl")
# Tests (and the commands they start) never touch the user's ~/.claw.
os.environ["CLAW_HOME"] = tempfile.mkdtemp(prefix="claw-tests-")
# ... nor the user's Minari datasets (~/.minari/datasets).
os.environ["MINARI_DATASETS_PATH"] = tempfile.mkdtemp(prefix="claw-tests-minari-")

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from claw.envs import TabletopEnv


@pytest.fixture
def make_env() -> Iterator[Callable[..., TabletopEnv]]:
    """A factory of ``TabletopEnv`` (same arguments); every env it made is closed afterwards."""
    made: list[TabletopEnv] = []

    def make(**kwargs: Any) -> TabletopEnv:
        env = TabletopEnv(**kwargs)
        made.append(env)
        return env

    yield make
    for env in made:
        env.close()


@pytest.fixture(scope="module")
def default_env() -> Iterator[TabletopEnv]:
    """The default scene at seed 0, shared by a module's tests that only plan on it."""
    env = TabletopEnv()
    env.reset(seed=0, options={"scene": "default"})
    yield env
    env.close()


@pytest.fixture
def claw_in_process(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``claw ARGS`` in this process, as the console script runs it (``claw.cli.main``): its exit
    code and what it wrote to stdout and stderr (file descriptors 1 and 2). A fresh interpreter
    adds only imports, seconds each (litellm's alone ~11 s on 2 cores). ``env`` sets variables
    for the rest of the test (``None`` unsets one). Not for a run that abandons a model call at
    its deadline: claw ends those with ``os._exit``, which would end the tests too."""

    def run(
        *args: str | os.PathLike[str], env: dict[str, str | None] | None = None
    ) -> subprocess.CompletedProcess[str]:
        from claw.cli import main

        for name, value in (env or {}).items():
            if value is None:
                monkeypatch.delenv(name, raising=False)
            else:
                monkeypatch.setenv(name, value)
        capfd.readouterr()
        monkeypatch.setattr(sys, "argv", ["claw", *map(str, args)])  # as the script sees it
        try:
            main([str(arg) for arg in args])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        out, err = capfd.readouterr()
        return subprocess.CompletedProcess([str(arg) for arg in args], code, out, err)

    return run


@pytest.fixture(scope="session")
def _ray_of_the_session() -> Iterator[None]:
    """Shuts down, once every test has run, the local Ray that ``local_ray`` keeps up."""
    yield
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        ray.shutdown()


@pytest.fixture
def local_ray(_ray_of_the_session: None) -> str:
    """A local Ray of 2 CPUs that claw started (``connect``: its workers at this process's
    priority), this process its driver; its address. Started once and kept up for every test on
    Ray after (a start and its workers' first imports take ~10 s), or again after a test that
    shut it down."""
    ray = pytest.importorskip("ray")
    from claw.eval.ray_runner import connect

    if ray.is_initialized():
        assert not connect("local", num_cpus=2)  # connected already: nothing to start
    else:
        assert connect("local", num_cpus=2)  # started, for its caller to shut down
    return str(ray.get_runtime_context().gcs_address)


@pytest.fixture
def library_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A skill library of the test's own, with hashed embeddings (no model to load)."""
    home = tmp_path / "home"
    monkeypatch.setenv("CLAW_HOME", str(home))
    monkeypatch.setenv("CLAW_EMBEDDER", "hash")
    return home


@pytest.fixture
def env(make_env: Callable[..., TabletopEnv]) -> TabletopEnv:
    """The default scene, reset at seed 1."""
    env = make_env()
    env.reset(seed=1)
    return env


# Fixed-pose scenes for skill tests (seed-independent layouts).
CLEAR_SCENE: dict[str, Any] = {
    "name": "clear",
    "objects": [
        {"type": "block", "color": "red", "pose": [0.45, 0.0]},
        {"type": "block", "color": "green", "pose": [0.45, 0.15]},
        {"type": "block", "color": "yellow", "pose": [0.38, -0.12]},
        {"type": "block", "color": "orange", "pose": [0.6, -0.02]},
        {"type": "box", "color": "blue", "pose": [0.55, -0.18]},
    ],
}
RING = 0.09  # m: the boxes of the crowded scene sit this far (x and y) from the pink block
CROWDED_SCENE: dict[str, Any] = {
    "name": "crowded",
    "objects": [
        {"type": "block", "color": "red", "pose": [0.36, 0.25]},
        {"type": "block", "color": "pink", "pose": [0.475, 0.0]},
        *(
            {"type": "box", "color": color, "pose": [0.475 + sx * RING, sy * RING]}
            for color, (sx, sy) in zip(
                ("blue", "gray", "brown", "cyan"), ((1, 1), (1, -1), (-1, 1), (-1, -1)), strict=True
            )
        ),
    ],
}


@pytest.fixture
def clear_env(make_env: Callable[..., TabletopEnv]) -> TabletopEnv:
    """Four blocks and a box at fixed poses with room around them, reset (seed 0).

    red (0.45, 0), green (0.45, 0.15), yellow (0.38, -0.12), orange (0.60, -0.02) blocks;
    blue box at (0.55, -0.18).
    """
    env = make_env(scene=CLEAR_SCENE)
    env.reset(seed=0)
    return env


@pytest.fixture
def crowded_env(make_env: Callable[..., TabletopEnv]) -> TabletopEnv:
    """A pink block hemmed in by four boxes (nothing fits next to it), and a free red block."""
    env = make_env(scene=CROWDED_SCENE)
    env.reset(seed=0)
    return env


@pytest.fixture
def comparable() -> Callable[[Any], list[dict[str, Any]]]:
    """A suite result's cases as ``--json`` writes them, less the wall-clock times: what must
    not change with how the cases were run."""

    def cases(result: Any) -> list[dict[str, Any]]:
        rows = json.loads(result.model_dump_json())["cases"]
        for row in rows:
            row.pop("wall_seconds")
            row["run"].pop("wall_seconds", None)
        return rows

    return cases
