"""Shared test setup: headless MuJoCo rendering, and envs that are closed after each test."""

from __future__ import annotations

import os

# Before anything imports mujoco: it picks its OpenGL backend at import time.
os.environ.setdefault("MUJOCO_GL", "egl")

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
