"""The planner package's own families in the registry: ``offline``, any litellm model (the
default for a name no family takes) and ``local`` (``claw llm serve``'s model).

Imported by ``claw.planner``, so that they are registered whenever the package is.
"""

from __future__ import annotations

import os
from typing import Any

from claw.planner.exceptions import InvalidPlannerError
from claw.planner.llm import LLMPlanner
from claw.planner.local import LOCAL_API_BASE, LOCAL_API_KEY, LOCAL_MODEL
from claw.planner.offline import OfflinePlanner
from claw.planner.registry import PlannerContext, PlannerSpec, planner_names, register_planner

API_BASE_ENV = "CLAW_API_BASE"
"""The endpoint a model is asked at when ``--api-base`` gives none."""


def offline_planner(context: PlannerContext) -> OfflinePlanner:
    """``offline``: the grammar planner (no network)."""
    return OfflinePlanner()


def model_planner(context: PlannerContext) -> LLMPlanner:
    """``MODEL``: the LLM planner asking that litellm model."""
    return llm_planner(context, context.spec.argument)


def local_planner(context: PlannerContext) -> LLMPlanner:
    """``local``: the LLM planner asking ``claw llm serve``'s model on 127.0.0.1."""
    return llm_planner(context, LOCAL_MODEL, LOCAL_API_BASE, api_key=LOCAL_API_KEY)


def llm_planner(
    context: PlannerContext, model: str, api_base: str | None = None, api_key: str | None = None
) -> LLMPlanner:
    """The LLM planner asking ``model`` as the context's settings say; its endpoint is
    ``--api-base``, else ``$CLAW_API_BASE``, else ``api_base``; ``api_key`` is sent where given."""
    settings = context.settings
    client: dict[str, Any] = {} if api_key is None else {"api_key": api_key}
    endpoint = settings.api_base or os.environ.get(API_BASE_ENV) or api_base
    return LLMPlanner.asked_as(model, settings, api_base=endpoint, **client)


def check_model_name(spec: PlannerSpec) -> PlannerSpec:
    """A model string has no spaces.

    Raises:
        InvalidPlannerError: it has.
    """
    if any(c.isspace() for c in spec.text):
        raise InvalidPlannerError(f"{spec.text!r} is not a model name; planners: {planner_names()}")
    return spec


register_planner("offline", offline_planner)
register_planner(
    "model", model_planner, usage="a litellm model", check=check_model_name, default=True
)
register_planner("local", local_planner, usage="local (claw llm serve)")
