"""Sweeps: planners × suites × seeds in one run, one result file per cell, one table over all.

A sweep file (YAML)::

    name: planners-on-basic
    suites: [basic, eval/suites/cap.yaml]
    planners: [offline, mock:oracle, mock:noisy:0.3]
    seeds: [0, 1, 2]      # optional: offsets added to every case's seed (0: the suite's own;
                          # a case with fixed_seed: true keeps its own)
    llm: {timeout: 60}    # optional: how a model is asked (claw eval's LLM options)

Each cell is a suite run as ``claw eval`` runs it (local workers, or Ray tasks) and its result
written as ``--json`` writes it, to ``OUT/SUITE__PLANNER__seedS.json``: SUITE is the suite's
``name``, or, for a suite whose name another suite of the sweep has too, ``NAME-FILESTEM`` (and
``-2``, ``-3``... where that is taken as well), so no two cells share a file. Values are read
strictly (a seed ``true``, ``"5"`` or ``2.0`` is refused, not made an integer), and an entry
listed twice is refused.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from claw.common.files import atomic_write
from claw.envs.yamlfile import YamlLimitError, read_yaml
from claw.eval.cases import CaseResult
from claw.eval.exceptions import InvalidSuiteError
from claw.eval.runner import SuiteResult, run_suite
from claw.eval.suite import Suite, load_suite
from claw.planner.llm.completion import ModelSettings
from claw.runtime import parse_planner

SEED_LIMIT = 2**32


class Sweep(BaseModel):
    """Which suites, planners and seed offsets to run, each with each."""

    model_config = ConfigDict(extra="forbid")

    name: str = "sweep"
    suites: list[str] = Field(min_length=1)
    planners: list[str] = Field(min_length=1)
    seeds: list[int] = Field(default_factory=lambda: [0], min_length=1)
    llm: ModelSettings = Field(default_factory=ModelSettings)

    @field_validator("planners")
    @classmethod
    def _known_planners(cls, planners: list[str]) -> list[str]:
        for planner in planners:
            parse_planner(planner)  # InvalidPlannerError (a ValueError) names what is allowed
        return planners

    @field_validator("seeds", mode="before")
    @classmethod
    def _seed_range(cls, seeds: Any) -> Any:
        for seed in seeds if isinstance(seeds, list) else ():
            if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT:
                raise ValueError(f"a seed offset is an integer from 0 to 2**32-1, not {seed!r}")
        return seeds

    @field_validator("suites", "planners", "seeds")
    @classmethod
    def _each_once(cls, values: list[Any]) -> list[Any]:
        twice = next((v for i, v in enumerate(values) if v in values[:i]), None)
        if twice is not None:
            raise ValueError(f"{twice!r} is listed twice; each cell runs once")
        return values


class Cell(BaseModel):
    """One run of a sweep: a suite, a planner, a seed offset, and where its result goes."""

    suite: str
    planner: str
    seed: int
    path: Path


def load_sweep(path: str | Path) -> Sweep:
    """A sweep from its YAML file.

    Raises:
        InvalidSuiteError: unreadable, not YAML, or a field that does not validate (named).
    """
    path = Path(path)
    try:
        data = read_yaml(path)
    except YamlLimitError as exc:
        raise InvalidSuiteError(f"sweep file {path}: {exc}") from None
    except FileNotFoundError:
        raise InvalidSuiteError(f"sweep file {path} not found") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InvalidSuiteError(f"sweep file {path} cannot be read: {first}") from None
    if not isinstance(data, dict):
        raise InvalidSuiteError(f"sweep file {path}: expected a mapping with suites and planners")
    try:
        return Sweep.model_validate(data, strict=True)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"]) or "sweep"
        message = error["msg"].removeprefix("Value error, ")
        raise InvalidSuiteError(f"sweep file {path}: {where}: {message}") from None


def reseeded(suite: Suite, offset: int) -> Suite:
    """``suite`` with ``offset`` added to every case's seed (modulo 2**32) but those whose ground
    truth holds for their own seed only (``fixed_seed``); itself for 0."""
    if offset == 0:
        return suite
    cases = [
        c if c.fixed_seed else c.model_copy(update={"seed": (c.seed + offset) % SEED_LIMIT})
        for c in suite.cases
    ]
    return suite.model_copy(update={"cases": cases})


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-") or "x"


def _labels(sources: list[str], names: dict[str, str]) -> dict[str, str]:
    """A distinct file label for each source (case aside): its name where no other source has
    it, else ``NAME-STEM`` (the file's stem, unless it is the name), then ``-2``, ``-3``... while
    taken; ``names`` maps each source to its suite's name."""
    shared = Counter(_slug(names[s]).casefold() for s in sources)
    labels: dict[str, str] = {}
    taken: set[str] = set()
    for source in sources:
        label = stem = _slug(names[source])
        if shared[label.casefold()] > 1:
            stem = _slug(Path(source).stem)
        if stem.casefold() != label.casefold():
            label = f"{label}-{stem}"
        unique, k = label, 2
        while unique.casefold() in taken:
            unique, k = f"{label}-{k}", k + 1
        labels[source] = unique
        taken.add(unique.casefold())
    return labels


def cells(sweep: Sweep, out: Path, suites: dict[str, Suite]) -> list[Cell]:
    """Every suite × planner × seed offset, with its result file in ``out`` (one per cell)."""
    suite_labels = _labels(sweep.suites, {s: suites[s].name for s in sweep.suites})
    planner_labels = _labels(sweep.planners, {p: p for p in sweep.planners})
    return [
        Cell(
            suite=name,
            planner=planner,
            seed=seed,
            path=out / f"{suite_labels[name]}__{planner_labels[planner]}__seed{seed}.json",
        )
        for name in sweep.suites
        for planner in sweep.planners
        for seed in sweep.seeds
    ]


def run_sweep(
    sweep: Sweep,
    out: Path,
    workers: int = 1,
    ray: str | None = None,
    on_cell: Callable[[Cell, int], None] | None = None,
    progress: Callable[[CaseResult], None] | None = None,
) -> Iterator[tuple[Cell, SuiteResult]]:
    """Run every cell (with ``ray``, Ray is joined once for all of them); yield each cell and its
    result once its file is written. ``on_cell(cell, cases)`` is called as a cell starts.

    Raises:
        InvalidSuiteError: a suite of the sweep cannot be loaded (before any cell runs).
    """
    suites = {name: load_suite(name) for name in dict.fromkeys(sweep.suites)}
    out.mkdir(parents=True, exist_ok=True)
    if ray is None:
        cluster: AbstractContextManager[None] = nullcontext()
    else:
        from claw.eval.ray_runner import joined

        cluster = joined(ray, num_cpus=workers if workers > 1 else None)
    with cluster:
        for cell in cells(sweep, out, suites):
            suite = reseeded(suites[cell.suite], cell.seed)
            if on_cell is not None:
                on_cell(cell, len(suite.cases))
            result = run_suite(
                suite, cell.planner, workers, progress=progress, settings=sweep.llm, ray=ray
            )
            atomic_write(cell.path, result.model_dump_json(indent=1).encode())
            yield cell, result
