"""What an LLM may answer, narrowed by construction: a plan's JSON schema for one scene, and the
form each provider takes it in.

The schema is built from the skill registry and the live scene: a step is one branch per skill
(``skill`` a one-value enum, its ``args`` that skill's parameters), parameters that name objects
are an enum of the scene's objects, a place's target one of its objects or regions, directions
and relations the skill's own enums, numbers bounded as the skill bounds them. Every key is
required (optional ones may be ``null``) and no other keys are allowed, as OpenAI's strict mode
asks. The schema narrows what a model can say; the validator still judges every answer.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, get_args

from claw.envs.regions import REGIONS
from claw.library import object_type
from claw.planner.llm.completion import ModelSettings
from claw.planner.llm.prompting import PlanError
from claw.skills import ARM_ARG, ObjectRef, RegionRef, get_skill

MAX_MESSAGE = 300
"""The longest reason a model may give for declining (a bound a grammar can enforce)."""
GRID_VALUES = 100
"""A bounded number sent to a grammar-constrained server is one of at most about this many
values (a power-of-ten step across its range): llama.cpp's grammars do not bound numbers."""
STRICT_UNSUPPORTED = ("maxLength",)
"""Keywords OpenAI's strict mode does not take; left out of the ``json_schema`` form."""
STRUCTURED_MODES: tuple[str, ...] = get_args(ModelSettings.model_fields["structured"].annotation)
_KEPT = ("type", "enum", "description", "minimum", "maximum", "exclusiveMinimum",
         "exclusiveMaximum", "anyOf")  # fmt: skip


def plan_schema(
    skills: Sequence[str],
    objects: Sequence[str],
    max_steps: int,
    goals: Sequence[str] | None = None,
    composites: Sequence[tuple[str, Mapping[str, str]]] = (),
    arms: Sequence[str] = (),
) -> dict[str, Any]:
    """The JSON schema of an answer (goal, steps, error) for a scene with ``objects``; with
    ``goals``, the goal's predicates are one of those (goal mode); ``composites`` (name, typed
    parameters) are offered as steps too, each parameter an object of its type or a region;
    with two ``arms``, each step may name its arm."""
    longest = max((len(o) for o in objects), default=0)
    predicate = len("not(stacked())") + len(objects) * (longest + 2)  # the longest a goal can be
    goal = (
        {"type": "string", "enum": list(goals)}
        if goals
        else {"type": "string", "maxLength": max(predicate, 40)}
    )
    kinds = list(get_args(PlanError.model_fields["kind"].annotation))
    message = {"type": "string", "maxLength": MAX_MESSAGE}
    error = {
        "type": "object",
        "properties": {"kind": {"type": "string", "enum": kinds}, "message": message},
        "required": ["kind", "message"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "goal": {"type": "array", "items": goal},
            "steps": {
                "type": "array",
                "items": {
                    "anyOf": [_step(name, list(objects), arms) for name in skills]
                    + [_composite_step(name, params, objects) for name, params in composites]
                },
                "maxItems": max_steps,
            },
            "error": {"anyOf": [error, {"type": "null"}]},
        },
        "required": ["goal", "steps", "error"],
        "additionalProperties": False,
    }


def _step(name: str, objects: list[str], arms: Sequence[str] = ()) -> dict[str, Any]:
    """One skill's branch: its name, and its parameters narrowed to the scene; with two
    ``arms``, a one-arm skill's optional ``arm``."""
    skill = get_skill(name)
    params = skill.Params
    properties = params.model_json_schema().get("properties", {})
    args = {
        key: _param(properties[key], field.metadata, field.is_required(), objects)
        for key, field in params.model_fields.items()
    }
    if len(arms) > 1 and skill.arms == 1:
        args[ARM_ARG] = {"anyOf": [{"type": "string", "enum": list(arms)}, {"type": "null"}]}
    return _branch(name, args)


def _branch(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A step naming ``name`` whose ``args`` are exactly ``args`` (every key required)."""
    return {
        "type": "object",
        "properties": {
            "skill": {"type": "string", "enum": [name]},
            "args": {
                "type": "object",
                "properties": args,
                "required": list(args),
                "additionalProperties": False,
            },
        },
        "required": ["skill", "args"],
        "additionalProperties": False,
    }


def _composite_step(name: str, params: Mapping[str, str], objects: Sequence[str]) -> dict[str, Any]:
    """A composite's branch: its name, and each parameter one of the scene's names of its type."""
    args = {
        key: {
            "type": "string",
            "enum": list(REGIONS)
            if kind == "region"
            else [o for o in objects if object_type(o) == kind],
        }
        for key, kind in params.items()
    }
    return _branch(name, args)


def _param(
    spec: dict[str, Any], marks: list[Any], required: bool, objects: list[str]
) -> dict[str, Any]:
    """One parameter's schema: an object's or a region's name an enum of the scene's; an
    optional one (strict mode requires every key) may be ``null``."""
    kept = {k: v for k, v in spec.items() if k in _KEPT and k != "anyOf"}
    for mark in marks:
        if isinstance(mark, ObjectRef):
            kept = {"type": "string", "enum": objects}
        elif isinstance(mark, RegionRef):
            places = [*objects, *REGIONS] if mark.objects else list(REGIONS)
            kept = {"type": "string", "enum": places, "description": spec.get("description", "")}
    if required:
        return kept
    kept.setdefault("type", "string")
    return {"anyOf": [kept, {"type": "null"}]}


def response_format(
    mode: str, model: str, api_base: str | None, schema: dict[str, Any], knows_schema: bool
) -> tuple[str, dict[str, Any] | None]:
    """(what is sent, the ``response_format``) for ``mode`` and this provider.

    ``schema`` sends the schema in the form the provider takes: a local OpenAI-compatible server
    (``openai/…`` on an ``api_base``: llama.cpp, LM Studio) as ``json_object`` with ``schema``
    (llama.cpp answers HTTP 500 to ``json_schema``); any other as OpenAI's strict
    ``json_schema``, which litellm turns into Ollama's ``format`` and other providers' own
    forms. ``auto`` sends the schema to those (``knows_schema``: litellm's model map says the
    model takes one), else JSON mode; ``json`` only asks for a JSON object; ``off`` sends none.
    """
    if mode == "off":
        return "off", None
    local = api_base is not None and model.startswith("openai/")
    if mode == "json" or (mode == "auto" and not (local or knows_schema)):
        return "json", {"type": "json_object"}
    if local:
        return "schema:json_object", {"type": "json_object", "schema": _bounded_as_grid(schema)}
    strict = {"name": "plan", "schema": _without(schema, STRICT_UNSUPPORTED), "strict": True}
    return "schema:json_schema", {"type": "json_schema", "json_schema": strict}


def _without(schema: Any, keywords: Sequence[str]) -> Any:
    """``schema`` with ``keywords`` left out wherever they are."""
    if isinstance(schema, dict):
        return {k: _without(v, keywords) for k, v in schema.items() if k not in keywords}
    if isinstance(schema, list):
        return [_without(v, keywords) for v in schema]
    return schema


def _bounded_as_grid(schema: Any) -> Any:
    """``schema`` with every number bounded on both sides made an enum of the values on a grid
    across its range (a grammar enforces an enum; llama.cpp's does not enforce number bounds)."""
    if isinstance(schema, list):
        return [_bounded_as_grid(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    grid = grid_values(schema) if schema.get("type") == "number" else None
    if grid is not None:
        kept = {k: v for k, v in schema.items() if k == "description"}
        return {"type": "number", "enum": grid, **kept}
    return {k: _bounded_as_grid(v) for k, v in schema.items()}


def grid_values(spec: Mapping[str, Any]) -> list[float] | None:
    """The values of a grid across a number's bounds (a power-of-ten step, at most about
    ``GRID_VALUES`` of them; exclusive bounds left out), or None when a side is unbounded."""
    low = spec.get("minimum", spec.get("exclusiveMinimum"))
    high = spec.get("maximum", spec.get("exclusiveMaximum"))
    if low is None or high is None or high <= low:
        return None
    exponent = math.ceil(math.log10((high - low) / GRID_VALUES))
    step, digits = 10.0**exponent, max(0, -exponent)
    first, last = math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9)
    values = [round(i * step, digits) for i in range(first, last + 1)]
    return [
        v
        for v in values
        if not ("exclusiveMinimum" in spec and v <= low)
        and not ("exclusiveMaximum" in spec and v >= high)
    ]
