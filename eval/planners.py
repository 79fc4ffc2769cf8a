"""Planners by name, for ``claw "…"`` and ``claw eval``: the one registry of ``--planner``.

=================  ==============================================================================
``offline``        the grammar planner (no network)
``MODEL``          any litellm model string (``gpt-4o-mini``, ``ollama/llama3``, ...)
``replay:FILE``    the LLM planner answered from a cassette recorded with ``claw eval --record``
``mock:oracle``    the LLM planner answered with a case's ground truth (``claw eval`` only)
``mock:literal``   a pick and a place per goal predicate, in order (``claw eval`` only)
``mock:noisy:P``   the oracle, each answer corrupted with probability P (``claw eval`` only)
``mock:faulty:P``  the oracle, each call failing with probability P (``claw eval`` only)
=================  ==============================================================================

A name is checked by :func:`parse_planner` before anything runs; a bad one is an
:class:`InvalidPlannerError` naming what is allowed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from claw.eval import mocks
from claw.eval.cassette import Cassette
from claw.eval.exceptions import InvalidPlannerError
from claw.planner import FallbackPlanner, LLMPlanner, OfflinePlanner
from claw.planner.completion import ModelSettings
from claw.planner.local import LOCAL_API_BASE, LOCAL_API_KEY, LOCAL_MODEL

if TYPE_CHECKING:
    from claw.envs.tabletop import TabletopEnv
    from claw.eval.suite import Case

MODEL_ENV = "CLAW_MODEL"
API_BASE_ENV = "CLAW_API_BASE"
PLANNERS = (
    "offline, a litellm model, local (claw llm serve), replay:FILE, mock:oracle, mock:literal, "
    "mock:noisy:P or mock:faulty:P (P from 0 to 1)"
)
MOCKS = ("oracle", "literal", "noisy", "faulty")


class PlannerSpec(BaseModel):
    """A parsed ``--planner`` value."""

    text: str
    kind: Literal["offline", "model", "replay", "mock"]
    model: str | None = None
    mock: Literal["oracle", "literal", "noisy", "faulty"] | None = None
    probability: float | None = None
    cassette: Path | None = None


def parse_planner(text: str | None) -> PlannerSpec:
    """The planner ``text`` names (``None``: ``$CLAW_MODEL``, else ``offline``)."""
    text = (text if text is not None else os.environ.get(MODEL_ENV) or "offline").strip()
    if not text:
        raise InvalidPlannerError(f"the planner name is empty; planners: {PLANNERS}")
    if text == "offline":
        return PlannerSpec(text=text, kind="offline")
    if text == "local":  # claw llm serve's model
        return PlannerSpec(text=text, kind="model", model=LOCAL_MODEL)
    if text.startswith("replay:"):
        path = Path(text.removeprefix("replay:"))
        if not path.is_file():
            raise InvalidPlannerError(f"replay cassette {str(path)!r} is not a file")
        Cassette(path)  # readable, or a one-line error naming it
        return PlannerSpec(text=text, kind="replay", cassette=path)
    if text.startswith("mock:"):
        return _parse_mock(text)
    if any(c.isspace() for c in text):
        raise InvalidPlannerError(f"{text!r} is not a model name; planners: {PLANNERS}")
    return PlannerSpec(text=text, kind="model", model=text)


def _parse_mock(text: str) -> PlannerSpec:
    name, _, arg = text.removeprefix("mock:").partition(":")
    if name not in MOCKS:
        raise InvalidPlannerError(f"unknown mock {text!r}; planners: {PLANNERS}")
    if name in ("oracle", "literal"):
        if arg:
            raise InvalidPlannerError(f"mock:{name} takes no argument, got {text!r}")
        return PlannerSpec(text=text, kind="mock", mock=name)  # type: ignore[arg-type]
    try:
        p = float(arg)
    except ValueError:
        p = -1.0
    if not 0.0 <= p <= 1.0:
        raise InvalidPlannerError(
            f"{text!r}: mock:{name} takes a probability from 0 to 1, e.g. mock:{name}:0.3"
        )
    return PlannerSpec(text=text, kind="mock", mock=name, probability=p)  # type: ignore[arg-type]


def check_fallback(fallback: str | None) -> None:
    """``--fallback`` may only be ``offline``."""
    if fallback is not None and fallback != "offline":
        raise InvalidPlannerError(f"--fallback must be 'offline', not {fallback!r}")


def make_planner(
    spec: PlannerSpec | str | None,
    *,
    case: Case | None = None,
    env: TabletopEnv | None = None,
    fallback: str | None = None,
    settings: ModelSettings | None = None,
) -> Any:
    """A planner for ``spec``; mocks need the ``case`` and its ``env`` to answer from.

    Args:
        spec: A parsed spec, or a name for :func:`parse_planner`.
        case: The suite case (for ``mock:*``).
        env: The case's env, reset (for ``mock:*``).
        fallback: ``offline`` to plan offline when the model is unavailable.
        settings: How a model is asked (endpoint, default ``$CLAW_API_BASE``; deadline;
            temperature; answer length).
    """
    settings = settings or ModelSettings()
    if not isinstance(spec, PlannerSpec):
        spec = parse_planner(spec)
    check_fallback(fallback)
    planner: Any
    if spec.kind == "offline":
        return OfflinePlanner()
    if spec.kind == "mock":
        if case is None or env is None:
            raise InvalidPlannerError(
                f"{spec.text} answers from a suite case's ground truth: use it with claw eval"
            )
        planner = _mock(spec, case, env)
        planner.mode = settings.llm_mode  # who writes the steps: the mock, or claw from its goal
    elif spec.kind == "replay":
        assert spec.cassette is not None
        cassette = Cassette(spec.cassette)
        planner = LLMPlanner(
            cassette.model,
            mock=cassette.answer,
            backoff=0.0,
            num_retries=0,
            timeout=settings.timeout,
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            structured=settings.structured,
            mode=settings.llm_mode,
        )
    else:
        assert spec.model is not None
        local = spec.text == "local"
        default_base = LOCAL_API_BASE if local else None
        planner = LLMPlanner(
            spec.model,
            timeout=settings.timeout,
            api_base=settings.api_base or os.environ.get(API_BASE_ENV) or default_base,
            **({"api_key": LOCAL_API_KEY} if local else {}),
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            structured=settings.structured,
            mode=settings.llm_mode,
        )
    if fallback is not None:
        planner = FallbackPlanner(planner, OfflinePlanner())
    return planner


def _mock(spec: PlannerSpec, case: Case, env: TabletopEnv) -> Any:
    if spec.mock == "oracle":
        return mocks.oracle_planner(case, env)
    if spec.mock == "literal":
        return mocks.literal_planner(case, env)
    assert spec.probability is not None
    factory = mocks.noisy_planner if spec.mock == "noisy" else mocks.faulty_planner
    return factory(case, env, spec.probability)
