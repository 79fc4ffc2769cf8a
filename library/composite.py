"""Composite skills: a successful plan generalised into a parameterised list of skill calls.

A composite is data, never code: typed parameters (``block``, ``box``, ``region``) and steps,
each a registered primitive skill whose arguments are literals (a relation, a distance) or
references ``{param}`` to the parameters. Expanding it substitutes the arguments and nothing
else; the steps are then bound and judged like any plan's.

``generalise`` turns a plan into a :class:`CompositeBody` (objects → parameters named by their
type in order of first use: ``block``, ``block2``, ``box``, ``region``) with a name and a
description made from the instruction, its object phrases replaced by the parameters ("put
{block} in {box}, then stack {block2} on {block}"). Two plans with the same body have the same
:func:`structure_key`: the library adds an example phrase to the composite it has, not a new one.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from claw.envs.regions import REGIONS
from claw.skills.base import ObjectRef, RegionRef
from claw.skills.exceptions import InvalidParamsError, UnknownSkillError
from claw.skills.plans import SkillCall
from claw.skills.registry import get_skill, skill_names, unknown_skill

COMPOSITE_FORMAT = 1
BODY_FILE = "composite.json"
PARAM_TYPES: tuple[str, ...] = ("block", "box", "region")
ParamType = Literal["block", "box", "region"]
Literal_ = str | int | float | bool | None
_REF = re.compile(r"^\{([a-z]+[0-9]*)\}$")
_OBJECT = re.compile(r"^([a-z]+)_(block|box)(?:_(\d+))?$")
_NOUNS = {
    "block": r"(?:blocks?|cubes?|bricks?)",
    "box": r"(?:box(?:es)?|bins?|containers?|baskets?|trays?)",
}
MAX_NAME = 64
MAX_STEPS = 50
"""The most steps a composite's body may have (the default plan cap): a stored body over it is
refused at load (``artifact_rejected``), never run; a plan longer than it is not learned."""
MAX_BODY_BYTES = 256 * 1024
"""The largest ``composite.json`` read (a body of ``MAX_STEPS`` steps is a few kB)."""


class CompositeStep(BaseModel):
    """One step: a registered primitive skill; arguments are literals or ``{param}`` refs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    skill: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    args: dict[str, Literal_] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _primitive(self) -> CompositeStep:
        if self.skill not in skill_names():
            raise ValueError(
                f"step skill {self.skill!r} is not a registered skill "
                f"(allowed: {', '.join(skill_names())})"
            )
        return self


class CompositeBody(BaseModel):
    """What a composite does: typed parameters and the steps that use them (no code)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: int = COMPOSITE_FORMAT
    params: dict[str, ParamType] = Field(min_length=1)
    steps: list[CompositeStep] = Field(min_length=2, max_length=MAX_STEPS)

    @model_validator(mode="after")
    def _references(self) -> CompositeBody:
        used = {ref for step in self.steps for ref in references(step)}
        unknown = sorted(used - set(self.params))
        if unknown:
            raise ValueError(f"steps refer to undeclared parameters: {', '.join(unknown)}")
        unused = sorted(set(self.params) - used)
        if unused:
            raise ValueError(f"parameters no step uses: {', '.join(unused)}")
        return self

    def params_schema(self) -> dict[str, Any]:
        """The parameters as a JSON schema (each a string naming a scene object or region)."""
        meaning = {"block": "a block of the scene", "box": "a box of the scene",
                   "region": f"a table region: {', '.join(REGIONS)}"}  # fmt: skip
        return {
            "type": "object",
            "properties": {
                k: {"type": "string", "description": meaning[t]} for k, t in self.params.items()
            },
            "required": list(self.params),
        }

    def signature(self) -> str:
        """``name``'s parameters as the prompt shows them: ``block: block, box: box``."""
        return ", ".join(f"{k}: {t}" for k, t in self.params.items())


def references(step: CompositeStep) -> list[str]:
    """The parameters a step refers to."""
    return [m.group(1) for v in step.args.values() if isinstance(v, str) and (m := _REF.match(v))]


def structure_key(body: CompositeBody) -> str:
    """The body's sha256 over its canonical JSON: plans with the same structure share it."""
    return hashlib.sha256(canonical(body)).hexdigest()


def canonical(body: CompositeBody) -> bytes:
    """The body as the library stores it: sorted-key JSON, one form per body."""
    return json.dumps(body.model_dump(mode="json"), sort_keys=True, indent=1).encode()


def object_type(name: str) -> str | None:
    """``block`` or ``box`` for a scene object's name (``red_block``, ``blue_box_2``)."""
    match = _OBJECT.match(name)
    return match.group(2) if match else None


def _ref_fields(skill: str) -> dict[str, RegionRef | ObjectRef]:
    """A skill's parameters that name objects or regions, with their marks."""
    fields = get_skill(skill).Params.model_fields
    return {
        key: mark
        for key, field in fields.items()
        for mark in field.metadata
        if isinstance(mark, ObjectRef | RegionRef)
    }


def generalise(steps: Sequence[SkillCall]) -> tuple[CompositeBody, dict[str, str]]:
    """The plan's body, and each parameter's value in it (``{"block": "red_block", ...}``).

    Arguments naming scene objects or regions become parameters named by their type, in order
    of first use; every other argument (a relation, a direction, a distance) is kept as it is.

    Raises:
        InvalidParamsError: a step is not a registered skill, or its arguments cannot be stored.
    """
    names: dict[str, str] = {}  # value -> parameter
    counts: dict[str, int] = {}
    body_steps = []
    for call in steps:
        if call.skill not in skill_names():
            raise InvalidParamsError(f"{call.skill!r} is not a primitive skill")
        refs = _ref_fields(call.skill)
        args: dict[str, Literal_] = {}
        for key, value in call.args.items():
            kind = None
            if key in refs and isinstance(value, str):
                kind = "region" if value in REGIONS else object_type(value)
            if kind is None:
                if not isinstance(value, str | int | float | bool | None):
                    raise InvalidParamsError(f"{call.skill}.{key}: {value!r} cannot be stored")
                args[key] = value
                continue
            if value not in names:
                counts[kind] = counts.get(kind, 0) + 1
                names[value] = kind if counts[kind] == 1 else f"{kind}{counts[kind]}"
            args[key] = "{" + names[value] + "}"
        body_steps.append(CompositeStep(skill=call.skill, args=args))
    params = {p: _type_of(p) for p in names.values()}
    body = CompositeBody(params=params, steps=body_steps)
    return body, {p: v for v, p in names.items()}


def _type_of(param: str) -> str:
    return param.rstrip("0123456789")


def abstract(instruction: str, values: Mapping[str, str]) -> str:
    """The instruction with each parameter's object or region phrase replaced by ``{param}``."""
    text = " ".join(instruction.strip().rstrip(".!").split())
    for param, value in values.items():
        for pattern in _phrases(value):
            text = re.sub(pattern, "{" + param + "}", text, flags=re.IGNORECASE)
    return text


def _phrases(value: str) -> list[str]:
    """Patterns for the ways an instruction names ``value`` (longest first)."""
    if value in REGIONS:
        words = r"\s+".join(map(re.escape, value.split()))
        return [rf"\b(?:the\s+)?{words}(?:\s+(?:region|area|zone))?\b"]
    match = _OBJECT.match(value)
    if not match:
        return [rf"\b{re.escape(value)}\b"]
    color, kind = match.group(1), match.group(2)
    noun = _NOUNS[kind]
    return [
        rf"\b{re.escape(value)}\b",
        rf"\b(?:the\s+|a\s+)?{color}\s+(?:(?:small|big|large|little)\s+)?{noun}\b",
        rf"\b(?:the\s+){color}\s+one\b",
    ]


def composite_name(description: str, taken: Sequence[str] = ()) -> str:
    """A skill name from an abstracted description: its words, lower case, joined by ``_``."""
    words = re.findall(r"[a-z]+[0-9]*", description.lower().replace("{", " ").replace("}", " "))
    words = [w for w in words if w not in ("the", "a", "an")]
    name = "_".join(words)[:MAX_NAME].rstrip("_") or "composite"
    if not name[0].isalpha():
        name = f"do_{name}"
    return f"{name}_composite" if name in taken else name


def expand(
    name: str, body: CompositeBody, args: Mapping[str, Any], object_names: Sequence[str] | None
) -> list[SkillCall]:
    """The body's steps with ``args`` bound: the only thing a composite ever becomes
    (``object_names``: the scene's, to check the arguments against; ``None``: by type only).

    Raises:
        InvalidParamsError: an argument is missing, unknown, or of the wrong type (one line
            naming the parameters and what each takes).
    """
    wanted = ", ".join(f"{k} ({t})" for k, t in body.params.items())
    extra = sorted(set(args) - set(body.params))
    missing = [k for k in body.params if k not in args]
    if extra or missing:
        problem = f"unknown argument {extra[0]!r}" if extra else f"missing argument {missing[0]!r}"
        raise InvalidParamsError(f"{name}: {problem} (parameters: {wanted})")
    for key, kind in body.params.items():
        value = args[key]
        if kind == "region":
            if value not in REGIONS:
                raise InvalidParamsError(
                    f"{name}: {key} must be a region ({', '.join(REGIONS)}), got {value!r}"
                )
            continue
        known = object_names if object_names is not None else [value]
        if not isinstance(value, str) or object_type(value) != kind or value not in known:
            of_kind = [o for o in known if object_type(o) == kind] or ["none"]
            raise InvalidParamsError(
                f"{name}: {key} must name a {kind} of the scene ({', '.join(of_kind)}), "
                f"got {value!r}"
            )
    values = list(args.values())
    if len(set(values)) < len(values):
        raise InvalidParamsError(f"{name}: each parameter must name a different object or region")
    calls = []
    for step in body.steps:
        bound = {
            k: args[m.group(1)] if isinstance(v, str) and (m := _REF.match(v)) else v
            for k, v in step.args.items()
        }
        calls.append(SkillCall(skill=step.skill, args=bound))
    return calls


def unknown_composite(
    name: str, known: Sequence[str], arms: int | None = None
) -> UnknownSkillError:
    """The error for a name that is neither a skill nor a composite, listing both (the skills a
    scene of ``arms`` arms offers, where known)."""
    return unknown_skill(name, arms, known)


def bind_steps(body: CompositeBody, steps: Sequence[SkillCall]) -> dict[str, Any] | None:
    """The arguments that make ``body`` expand into exactly ``steps``, or ``None``."""
    if len(steps) != len(body.steps):
        return None
    args: dict[str, Any] = {}
    for pattern, call in zip(body.steps, steps, strict=True):
        if pattern.skill != call.skill or set(pattern.args) != set(call.args):
            return None
        for key, want in pattern.args.items():
            got = call.args[key]
            ref = _REF.match(want) if isinstance(want, str) else None
            if ref is None:
                if got != want:
                    return None
                continue
            param = ref.group(1)
            kind = body.params[param]
            fits = got in REGIONS if kind == "region" else object_type(str(got)) == kind
            if not fits or args.setdefault(param, got) != got:
                return None
    return args if len(set(map(str, args.values()))) == len(args) else None


def compress(
    steps: Sequence[SkillCall], composites: Sequence[tuple[str, CompositeBody]]
) -> list[SkillCall]:
    """``steps`` with each run of them that a composite does replaced by a call of it (longest
    composites first, left to right): how a plan is written through composites."""
    ordered = sorted(composites, key=lambda c: -len(c[1].steps))
    out: list[SkillCall] = []
    i = 0
    while i < len(steps):
        for name, body in ordered:
            args = bind_steps(body, steps[i : i + len(body.steps)])
            if args is not None:
                out.append(SkillCall(skill=name, args=args))
                i += len(body.steps)
                break
        else:
            out.append(steps[i])
            i += 1
    return out
