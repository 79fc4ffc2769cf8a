"""What ``claw bench all`` runs: the budgets (full and ``--quick``) and, for each benchmark the
docs quote, its runs — a name, the command that reproduces it, and the function it calls (the
same function the command calls)."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from claw.results import SOURCE

BENCHES = (
    "env", "library", "skills", "planner", "words", "two-arm", "imitation", "policy", "eval",
    "perception", "startup",
)  # fmt: skip
"""What ``--only`` names, in the order they run (``eval`` includes the trust table;
``perception``, the camera perceiver and the suites and skills seen through it). The library
runs early: its peak memory is the process's (``ru_maxrss``), which later benchmarks raise."""
POLICIES = ("reach", "push", "pick_place")


class Budget(BaseModel):
    """How much each benchmark runs (recorded in the results file)."""

    env_steps: int = 2000
    env_repeats: int = 3
    env_scenes: list[str] = Field(default_factory=lambda: ["default", "dense"])
    skills_episodes: int = 40
    planner_repeats: int = 3
    planner_suites: list[str] = Field(default_factory=list)
    """Empty: the shipped development suites (``claw bench planner``'s default)."""
    word_lists: list[str] = Field(default_factory=list)
    """Empty: the shipped word lists."""
    two_arm_episodes: int = 40
    library_skills: int = 10_000
    library_queries: int = 200
    imitation_demos: int = 200
    imitation_dagger: int = 8
    imitation_episodes: int = 200
    imitation_hyperparams: list[str] = Field(default_factory=list)
    policy_episodes: int = 200
    eval_limit: int | None = None
    """Cases run of each suite (``claw eval --limit``); ``None``: all."""
    eval_workers: int = 2
    perception_episodes: int = 200
    startup_repeats: int = 5


FULL = Budget()
QUICK = Budget(
    env_steps=200,
    env_repeats=1,
    skills_episodes=2,
    planner_repeats=1,
    planner_suites=["eval/suites/two_arms.yaml"],
    word_lists=["eval/suites/words_dev.yaml"],
    two_arm_episodes=1,
    library_skills=100,
    library_queries=20,
    imitation_demos=4,
    imitation_dagger=1,
    imitation_episodes=2,
    imitation_hyperparams=[
        f"imitation.{k}=2" for k in ("epochs", "dagger_epochs", "dagger_episodes", "eval_episodes")
    ],
    policy_episodes=2,
    eval_limit=2,
    perception_episodes=2,
    startup_repeats=1,
)


@dataclass(frozen=True)
class Run:
    """One entry of the results file: ``call`` returns its figures."""

    name: str
    bench: str
    command: str
    call: Callable[[], Any]


def shown(path: str | Path) -> str:
    """A file as a command names it: relative to the checkout where it lies inside it."""
    full = Path(path).resolve()
    return os.path.relpath(full, SOURCE) if full.is_relative_to(SOURCE) else str(full)


def source(path: str) -> str:
    """A checkout-relative file as the functions read it, wherever the process runs."""
    return str(SOURCE / path) if not Path(path).is_absolute() else path


def command(*words: object) -> str:
    """``claw WORDS…`` as a shell line."""
    return "claw " + shlex.join(str(w) for w in words)


def _repeated(option: str, values: list[str]) -> list[str]:
    return [word for value in values for word in (option, value)]


def env_runs(b: Budget) -> list[Run]:
    """``claw bench env`` on each scene."""
    from claw.envs.bench import bench_env

    def run(scene: str) -> Run:
        line = command("bench", "env", "--scene", scene, "--steps", b.env_steps,
                       "--repeats", b.env_repeats)  # fmt: skip
        call = partial(bench_env, steps=b.env_steps, scene=scene, repeats=b.env_repeats)
        return Run(f"env/{scene}", "env", line, call)

    return [run(scene) for scene in b.env_scenes]


def skills_runs(b: Budget) -> list[Run]:
    """``claw bench skills``, the controllers and the learned claws."""
    from claw.library import policy_source
    from claw.skills.bench import bench_skills

    episodes = b.skills_episodes

    def learned() -> Any:
        return bench_skills(episodes, 0, prefer="learned", policies=policy_source())

    return [
        Run("skills/controller", "skills", command("bench", "skills", "--episodes", episodes),
            partial(bench_skills, episodes, 0)),
        Run("skills/learned", "skills",
            command("bench", "skills", "--prefer", "learned", "--episodes", episodes), learned),
    ]  # fmt: skip


def planner_runs(b: Budget) -> list[Run]:
    """``claw bench planner``."""
    from claw.eval.bench import bench_planner

    suites = [source(s) for s in b.planner_suites] or None
    line = command("bench", "planner", "--repeats", b.planner_repeats,
                   *_repeated("--suite", b.planner_suites))  # fmt: skip
    return [Run("planner", "planner", line, partial(bench_planner, suites, b.planner_repeats))]


def words_runs(b: Budget) -> list[Run]:
    """``claw bench words``."""
    from claw.eval.words import bench_words

    lists = [source(s) for s in b.word_lists] or None
    line = command("bench", "words", *_repeated("--list", b.word_lists))
    return [Run("words", "words", line, partial(bench_words, lists))]


def two_arm_runs(b: Budget) -> list[Run]:
    """``claw bench two-arm``."""
    from claw.runtime.bench_two_arms import bench_two_arms

    line = command("bench", "two-arm", "--episodes", b.two_arm_episodes)
    return [Run("two-arm", "two-arm", line, partial(bench_two_arms, b.two_arm_episodes, 0))]


def library_runs(b: Budget) -> list[Run]:
    """``claw bench library``."""
    from claw.library.bench import bench_library

    line = command("bench", "library", "--skills", b.library_skills, "--queries", b.library_queries)
    call = partial(bench_library, skills=b.library_skills, queries=b.library_queries)
    return [Run("library", "library", line, call)]


def imitation_runs(b: Budget) -> list[Run]:
    """``claw bench imitation`` (its stages are the learning curve)."""
    from claw.learning.bench import bench_imitation

    line = command("bench", "imitation", "--demos", b.imitation_demos, "--dagger",
                   b.imitation_dagger, "--episodes", b.imitation_episodes, "--seed", 0,
                   *_repeated("--hyperparams", b.imitation_hyperparams))  # fmt: skip
    call = partial(bench_imitation, b.imitation_demos, b.imitation_dagger,
                   b.imitation_episodes, 0, b.imitation_hyperparams)  # fmt: skip
    return [Run("imitation", "imitation", line, call)]


def policy_runs(b: Budget) -> list[Run]:
    """``claw bench policy`` for each shipped policy."""
    from claw.learning.evaluate import bench_policy

    def run(policy: str) -> Run:
        line = command("bench", "policy", policy, "--episodes", b.policy_episodes)
        return Run(f"policy/{policy}", "policy", line,
                   partial(bench_policy, policy, b.policy_episodes))  # fmt: skip

    return [run(policy) for policy in POLICIES]


def startup_runs(b: Budget) -> list[Run]:
    """``claw bench startup``."""
    from claw.bench_startup import bench_startup

    line = command("bench", "startup", "--repeats", b.startup_repeats)
    return [Run("startup", "startup", line, partial(bench_startup, b.startup_repeats))]
