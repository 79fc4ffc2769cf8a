"""The planner package's own families in the registry: ``offline``, any litellm model (the
default for a name no family takes), ``local`` (``claw llm serve``'s model) and ``offline+MODEL``
(the offline reader, handing what it cannot read to MODEL: :mod:`claw.planner.llm.hybrid`).

Imported by ``claw.planner``, so that they are registered whenever the package is.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from claw.planner.exceptions import InvalidPlannerError
from claw.planner.registry import (
    PlannerContext,
    PlannerSpec,
    family_of,
    make_planner,
    parse_planner,
    planner_names,
    register_planner,
)
from claw.planner.text import clean_text

if TYPE_CHECKING:  # each family's planner is imported when one is made
    from claw.planner.llm.hybrid import HybridPlanner
    from claw.planner.llm.planner import LLMPlanner
    from claw.planner.offline import OfflinePlanner

API_BASE_ENV = "CLAW_API_BASE"
"""The endpoint a model is asked at when ``--api-base`` gives none."""
OFFLINE, MODEL, HYBRID = "offline", "model", "offline+"
"""The names of the offline family, of the models' (the default) and of the hybrid."""
HYBRID_MODE = "goal"
"""How the hybrid's model is asked where ``--llm-mode`` says nothing: it states the goal, claw's
step generator writes the steps (as the offline reader's plans are written)."""


def offline_planner(context: PlannerContext) -> OfflinePlanner:
    """``offline``: the grammar planner (no network)."""
    from claw.planner.offline import OfflinePlanner

    return OfflinePlanner()


def model_planner(context: PlannerContext) -> LLMPlanner:
    """``MODEL``: the LLM planner asking that litellm model."""
    return llm_planner(context, context.spec.argument)


def local_planner(context: PlannerContext) -> LLMPlanner:
    """``local``: the LLM planner asking ``claw llm serve``'s model on 127.0.0.1."""
    from claw.planner.llm.local import LOCAL_API_BASE, LOCAL_API_KEY, LOCAL_MODEL

    return llm_planner(context, LOCAL_MODEL, LOCAL_API_BASE, api_key=LOCAL_API_KEY)


def llm_planner(
    context: PlannerContext, model: str, api_base: str | None = None, api_key: str | None = None
) -> LLMPlanner:
    """The LLM planner asking ``model`` as the context's settings say; its endpoint is
    ``--api-base``, else ``$CLAW_API_BASE``, else ``api_base``; ``api_key`` is sent where given.
    Its first answers are kept and reused (``$CLAW_HOME/cache/answers``) unless the settings
    or ``CLAW_ANSWER_CACHE`` turn the cache off.

    Raises:
        CacheSettingError: ``CLAW_ANSWER_CACHE`` neither on nor off.
    """
    from claw.planner.llm.answer_cache import AnswerCache, cache_enabled
    from claw.planner.llm.planner import LLMPlanner

    settings = context.settings
    client: dict[str, Any] = {} if api_key is None else {"api_key": api_key}
    endpoint = settings.api_base or os.environ.get(API_BASE_ENV) or api_base
    if settings.cache and cache_enabled():
        client["cache"] = AnswerCache()
    return LLMPlanner.asked_as(model, settings, api_base=endpoint, **client)


def check_model_name(spec: PlannerSpec) -> PlannerSpec:
    """A model string has no spaces.

    Raises:
        InvalidPlannerError: it has.
    """
    if any(c.isspace() for c in spec.text):
        raise InvalidPlannerError(f"{spec.text!r} is not a model name; planners: {planner_names()}")
    return spec


def check_hybrid(spec: PlannerSpec) -> PlannerSpec:
    """``offline+MODEL`` names a planner that asks a model (a litellm model, ``local``,
    ``replay:FILE``, ``mock:*``), checked by its own family; the spec hands over to it and reads
    what it reads. A litellm model's name has no colon before its provider's slash: a name like
    ``nonsense:x`` is taken for a family that is not registered (the model is asked only for what
    the reader hands over, perhaps long after the run began, so it is checked now).

    Raises:
        InvalidPlannerError: no model, the offline planner again, or a family not registered.
    """
    examples = "e.g. offline+openai/gpt-4o-mini, offline+local or offline+mock:oracle"
    if not spec.argument.strip():
        raise InvalidPlannerError(f"{spec.text!r} names no model after {HYBRID!r}: {examples}")
    if family_of(spec.argument) == HYBRID:  # refused before it is parsed: no nesting at all
        raise InvalidPlannerError(
            f"{clean_text(spec.text, 80)!r}: {HYBRID} hands over to a model, not to "
            f"{clean_text(spec.argument, 80)!r}: {examples}"
        )
    fallback = parse_planner(spec.argument)
    if fallback.family in (OFFLINE, HYBRID):
        raise InvalidPlannerError(
            f"{spec.text!r}: {HYBRID} hands over to a model, not to {fallback.text!r}: {examples}"
        )
    head, colon, _ = fallback.text.partition(":")
    if fallback.family == MODEL and colon and "/" not in head:
        raise InvalidPlannerError(
            f"{spec.text!r}: no planner family {head + ':'!r}, and {fallback.text!r} is not a "
            f"litellm model (PROVIDER/MODEL); planners: {planner_names()}"
        )
    return spec.model_copy(update={"reads": fallback.reads, "hand_over": fallback})


def hybrid_planner(context: PlannerContext) -> HybridPlanner:
    """``offline+MODEL``: the offline planner, handing what it cannot read to MODEL's planner,
    built as MODEL alone is (with the same env and case), in goal mode unless the settings name
    a mode."""
    spec = context.spec if context.spec.hand_over is not None else check_hybrid(context.spec)
    assert spec.hand_over is not None
    settings = context.settings
    if settings.llm_mode is None:
        settings = settings.model_copy(update={"llm_mode": HYBRID_MODE})
    fallback = make_planner(
        spec.hand_over, env=context.env, ground_truth=context.ground_truth, settings=settings
    )
    from claw.planner.llm.hybrid import HybridPlanner
    from claw.planner.offline import OfflinePlanner

    return HybridPlanner(OfflinePlanner(), fallback)


register_planner(OFFLINE, offline_planner, builtin=True)
register_planner(
    MODEL,
    model_planner,
    usage="a litellm model",
    check=check_model_name,
    default=True,
    builtin=True,
)
register_planner("local", local_planner, usage="local (claw llm serve)", builtin=True)
register_planner(
    HYBRID,
    hybrid_planner,
    usage="offline+MODEL",
    takes_argument=True,
    check=check_hybrid,
    builtin=True,
)
