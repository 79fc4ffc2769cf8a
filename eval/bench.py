"""``claw bench planner``: how long the offline planner takes to read, ground and plan.

Every case of the suites is set up as ``claw eval`` sets it up (its scene, reset to its seed);
each instruction is then read (``parse_instruction``), grounded on the scene
(``goals_and_pushes``, on the requests read once; an instruction refused while reading has no
grounding time) and planned whole (``OfflinePlanner.plan``, which does both and then writes the
steps), each timed ``repeats`` times; one more reading from scratch counts its lark searches
(``parses per clause``). A replanning step (``replan``) is timed as the loop takes one: a
control period of physics passes (the arm holding still), then the instruction is planned
again on the world perceived afresh; seen through the cameras (``sensing``), that is a new
capture and estimate, the calibration having been checked at the episode's first. An
instruction's time is the median of its repeats; the figures are percentiles over
instructions. Instructions the planner refuses (unparseable, unknown objects, ...) are timed to
the refusal and counted apart. Nothing moves but for the replanning steps' physics.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import Any

import numpy as np
from pydantic import BaseModel, Field, computed_field

from claw.common.exceptions import ClawError
from claw.envs.exceptions import InvalidSceneError
from claw.envs.tabletop import TabletopEnv
from claw.eval.suite import SUITES_DIR, load_suite
from claw.perception.sensing import TRUTH, Sensing
from claw.planner.grounding.goals import goals_and_pushes
from claw.planner.language.grammar import parse_instruction
from claw.planner.language.parsing import STATS, clear_caches
from claw.planner.offline import OfflinePlanner
from claw.runtime.session import Session

PHASES = ("parse", "ground", "plan", "replan")
SLOWEST = 5  # instructions listed by name, slowest first


class PhaseTimes(BaseModel):
    """Percentiles (ms) of one phase over the instructions."""

    p50_ms: float
    p95_ms: float
    max_ms: float


class SuiteTimes(BaseModel):
    """One suite's figures: ``plan`` is the whole call, reading and grounding included;
    ``parses_per_clause`` is the lark searches one reading from scratch runs, per clause read
    (cached lookups and searches skipped for lack of their keywords not counted)."""

    suite: str
    instructions: int
    refused: int
    phases: dict[str, PhaseTimes]
    clauses: int = 0
    parses: int = 0
    plan_ms: list[float] = Field(default_factory=list)
    """Each instruction's whole-plan time (its median), in case order: the histogram's data."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def parses_per_clause(self) -> float:
        """Lark searches per clause read."""
        return round(self.parses / self.clauses, 2) if self.clauses else 0.0


class PlannerBench(BaseModel):
    """Every suite's figures, all instructions together, the first plan of the process (imports
    and caches cold), and the slowest instructions."""

    repeats: int
    perception: str = TRUTH.perception
    sensor_noise: bool = TRUTH.sensor_noise
    suites: list[SuiteTimes]
    overall: SuiteTimes
    first_plan_ms: float
    slowest: list[tuple[str, float]]  # (suite/case, plan ms), slowest first


HELD_OUT = "heldout*.yaml"
"""Held-out suites: run once, on purpose (``--suite FILE``), never by default."""


def default_suites() -> list[str]:
    """The development suites shipped with claw (not the held-out suites, nor the word lists
    of ``claw bench words``)."""
    from claw.eval.words import WORD_LISTS

    return sorted(
        str(p)
        for p in SUITES_DIR.glob("*.yaml")
        if not p.match(WORD_LISTS) and not p.match(HELD_OUT)
    )


def _timed(
    call: Callable[[], Any], repeats: int, before: Callable[[], Any] | None = None
) -> tuple[float, bool]:
    """Median wall time (ms) of ``call`` over ``repeats`` runs, and whether it was refused; each
    run reads from scratch (the parser's caches of texts read are cleared first), after
    ``before`` (untimed)."""
    times, refused = [], False
    for _ in range(repeats):
        if before is not None:
            before()
        clear_caches()
        tic = time.perf_counter()
        try:
            call()
        except ClawError:
            refused = True
        times.append((time.perf_counter() - tic) * 1000)
    return statistics.median(times), refused


def _percentiles(values: Sequence[float]) -> PhaseTimes:
    p50, p95 = np.percentile(values, [50, 95]) if values else (0.0, 0.0)
    top = max(values, default=0.0)
    return PhaseTimes(
        p50_ms=round(float(p50), 3), p95_ms=round(float(p95), 3), max_ms=round(top, 3)
    )


def _summary(name: str, rows: list[dict[str, float]], refused: int) -> SuiteTimes:
    phases = {phase: _percentiles([row[phase] for row in rows if phase in row]) for phase in PHASES}
    clauses, parses = (int(sum(row[k] for row in rows)) for k in ("clauses", "parses"))
    plan_ms = [round(row["plan"], 3) for row in rows]
    return SuiteTimes(suite=name, instructions=len(rows), refused=refused, phases=phases,
                      clauses=clauses, parses=parses, plan_ms=plan_ms)  # fmt: skip


def _parses(text: str) -> dict[str, float]:
    """The clauses of one reading from scratch, and the lark searches it runs."""
    clear_caches()
    STATS.reset()
    with suppress(ClawError):
        parse_instruction(text)
    return {"clauses": STATS.clauses, "parses": STATS.parses}


def _time_case(
    planner: OfflinePlanner, text: str, env: TabletopEnv, repeats: int
) -> tuple[dict[str, float], bool]:
    """One instruction's median time per phase on the env as it is, and whether it is refused."""
    world = env.world_state()
    row = {"parse": _timed(lambda: parse_instruction(text), repeats)[0], **_parses(text)}
    try:
        requests = parse_instruction(text)
    except ClawError:
        requests = None  # refused while reading: nothing to ground
    if requests is not None:
        row["ground"] = _timed(
            lambda: goals_and_pushes(requests, env.object_names, world), repeats
        )[0]
    row["plan"], refused = _timed(lambda: planner.plan(text, env), repeats)
    row["replan"] = _timed(lambda: planner.plan(text, env), repeats, before=env.actuate)[0]
    return row, refused


def bench_planner(
    suites: Sequence[str] | None = None, repeats: int = 5, sensing: Sensing = TRUTH
) -> PlannerBench:
    """Time the offline planner on every case of ``suites`` (default: those shipped), seeing
    the world as ``sensing`` says.

    Raises:
        InvalidSuiteError: a suite that does not load.
        InvalidPerceptionError: an unknown perceiver.
    """
    sensing = sensing.check()
    planner = OfflinePlanner()
    first_plan_ms: float | None = None
    results: list[SuiteTimes] = []
    every: list[dict[str, float]] = []
    slowest: list[tuple[float, str]] = []
    for source in suites or default_suites():
        suite = load_suite(source)
        rows: list[dict[str, float]] = []
        refused = 0
        for case in suite.cases:
            try:
                session = Session(suite.scene_of(case), sensing=sensing)
            except InvalidSceneError:
                continue  # a bad-scene case: nothing to plan on
            with session:
                session.reset(case.seed)
                env = session.env
                if first_plan_ms is None:
                    first_plan_ms = _time_case(planner, case.instruction, env, 1)[0]["plan"]
                row, was_refused = _time_case(planner, case.instruction, env, repeats)
            rows.append(row)
            refused += was_refused
            slowest.append((row["plan"], f"{suite.name}/{case.id}"))
        results.append(_summary(suite.name, rows, refused))
        every.extend(rows)
    return PlannerBench(
        repeats=repeats,
        perception=sensing.perception,
        sensor_noise=sensing.sensor_noise,
        suites=results,
        overall=_summary("all", every, sum(r.refused for r in results)),
        first_plan_ms=round(first_plan_ms or 0.0, 3),
        slowest=[(case, round(ms, 3)) for ms, case in sorted(slowest, reverse=True)[:SLOWEST]],
    )
