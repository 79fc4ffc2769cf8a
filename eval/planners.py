"""The evaluation's planner families, offered to the registry beside the planner package's:
cassettes and mocked LLMs.

=================  ==============================================================================
``replay:FILE``    the LLM planner answered from a cassette recorded with ``claw eval --record``
``mock:oracle``    the LLM planner answered with a case's ground truth (``claw eval`` only)
``mock:literal``   a pick and a place per goal predicate, in order (``claw eval`` only)
``mock:noisy:P``   the oracle, each answer corrupted with probability P (``claw eval`` only)
``mock:faulty:P``  the oracle, each call failing with probability P (``claw eval`` only)
=================  ==============================================================================

Each also answers what the offline reader hands over (``offline+mock:oracle``,
``offline+replay:FILE``: :class:`claw.planner.llm.hybrid.HybridPlanner`), given the same case.
Each is an entry point of the ``claw.planners`` group in claw's own package metadata, so the
registry loads this module only when a name asks for one of them (``claw "…"`` offline never
imports ``claw.eval``); the names are checked when they are parsed
(``claw.runtime.parse_planner``), before anything runs.
"""

from __future__ import annotations

from pathlib import Path

from claw.eval import mocks
from claw.eval.cassette import Cassette
from claw.eval.suite import Case
from claw.planner.exceptions import InvalidPlannerError
from claw.planner.llm.planner import LLMPlanner
from claw.planner.registry import PlannerContext, PlannerFamily, PlannerSpec, planner_names

MOCKS = ("oracle", "literal", "noisy", "faulty")
MOCK_USAGE = "mock:oracle, mock:literal, mock:noisy:P or mock:faulty:P (P from 0 to 1)"


def check_replay(spec: PlannerSpec) -> PlannerSpec:
    """``replay:FILE`` names a readable cassette; the spec reads it.

    Raises:
        InvalidPlannerError: no such file.
        CassetteError: a file that is no cassette (named in the message).
    """
    path = Path(spec.argument)
    if not path.is_file():
        raise InvalidPlannerError(f"replay cassette {str(path)!r} is not a file")
    Cassette(path)  # readable, or a one-line error naming it
    return spec.model_copy(update={"reads": path})


def replay_planner(context: PlannerContext) -> LLMPlanner:
    """``replay:FILE``: the LLM planner answered from the cassette, asked as the settings say."""
    cassette = Cassette(Path(context.spec.argument))
    return LLMPlanner.asked_as(
        cassette.model, context.settings, mock=cassette.answer, backoff=0.0, num_retries=0
    )


def check_mock(spec: PlannerSpec) -> PlannerSpec:
    """``mock:NAME`` names a mock, with a probability from 0 to 1 where it takes one.

    Raises:
        InvalidPlannerError: an unknown mock, or a bad argument.
    """
    name, _, arg = spec.argument.partition(":")
    if name not in MOCKS:
        raise InvalidPlannerError(f"unknown mock {spec.text!r}; planners: {planner_names()}")
    if name in ("oracle", "literal"):
        if arg:
            raise InvalidPlannerError(f"mock:{name} takes no argument, got {spec.text!r}")
        return spec
    try:
        p = float(arg)
    except ValueError:
        p = -1.0
    if not 0.0 <= p <= 1.0:
        raise InvalidPlannerError(
            f"{spec.text!r}: mock:{name} takes a probability from 0 to 1, e.g. mock:{name}:0.3"
        )
    return spec


def mock_planner(context: PlannerContext) -> LLMPlanner:
    """``mock:*``: the LLM planner answered from the suite case's ground truth and its env;
    who writes the steps (the mock, or claw from its goal) is the settings' ``llm_mode``, where
    they give one.

    Raises:
        InvalidPlannerError: outside an evaluation (no case, or no env).
    """
    case, env, spec = context.ground_truth, context.env, context.spec
    if not isinstance(case, Case) or env is None:
        raise InvalidPlannerError(
            f"{spec.text} answers from a suite case's ground truth: use it with claw eval"
        )
    name, _, arg = spec.argument.partition(":")
    if name == "oracle":
        planner = mocks.oracle_planner(case, env)
    elif name == "literal":
        planner = mocks.literal_planner(case, env)
    else:
        factory = mocks.noisy_planner if name == "noisy" else mocks.faulty_planner
        planner = factory(case, env, float(arg))
    if context.settings.llm_mode is not None:  # else the LLM planner's own default
        planner.mode = context.settings.llm_mode
    return planner


REPLAY = PlannerFamily(
    "replay", replay_planner, usage="replay:FILE", takes_argument=True, check=check_replay
)
"""``replay:FILE``, offered to the registry as an entry point of ``claw.planners``."""
MOCK = PlannerFamily("mock", mock_planner, usage=MOCK_USAGE, takes_argument=True, check=check_mock)
"""``mock:*``, offered to the registry as an entry point of ``claw.planners``."""
