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

from collections.abc import Mapping, Sequence
from typing import Any, get_args

from claw.envs.regions import REGIONS
from claw.library.composite import object_type
from claw.planner.completion import ModelSettings
from claw.planner.prompting import PlanError
from claw.skills.base import ObjectRef, RegionRef, get_skill

STRUCTURED_MODES: tuple[str, ...] = get_args(ModelSettings.model_fields["structured"].annotation)
_KEPT = ("type", "enum", "description", "minimum", "maximum", "exclusiveMinimum",
         "exclusiveMaximum", "anyOf")  # fmt: skip


def plan_schema(
    skills: Sequence[str],
    objects: Sequence[str],
    max_steps: int,
    goals: Sequence[str] | None = None,
    composites: Sequence[tuple[str, Mapping[str, str]]] = (),
) -> dict[str, Any]:
    """The JSON schema of an answer (goal, steps, error) for a scene with ``objects``; with
    ``goals``, the goal's predicates are one of those (goal mode); ``composites`` (name, typed
    parameters) are offered as steps too, each parameter an object of its type or a region."""
    goal = {"type": "string", "enum": list(goals)} if goals else {"type": "string"}
    kinds = list(get_args(PlanError.model_fields["kind"].annotation))
    error = {
        "type": "object",
        "properties": {"kind": {"type": "string", "enum": kinds}, "message": {"type": "string"}},
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
                    "anyOf": [_step(name, list(objects)) for name in skills]
                    + [_composite_step(name, params, objects) for name, params in composites]
                },
                "maxItems": max_steps,
            },
            "error": {"anyOf": [error, {"type": "null"}]},
        },
        "required": ["goal", "steps", "error"],
        "additionalProperties": False,
    }


def _step(name: str, objects: list[str]) -> dict[str, Any]:
    """One skill's branch: its name, and its parameters narrowed to the scene."""
    params = get_skill(name).Params
    properties = params.model_json_schema().get("properties", {})
    args = {
        key: _param(properties[key], field.metadata, field.is_required(), objects)
        for key, field in params.model_fields.items()
    }
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
        return "schema:json_object", {"type": "json_object", "schema": schema}
    strict = {"name": "plan", "schema": schema, "strict": True}
    return "schema:json_schema", {"type": "json_schema", "json_schema": strict}
