"""What the LLM planner says to a model and what it takes back: prompts and the reply's shape.

Prompt templates are data files in ``prompts/``; the scene and the skill catalogue are described
from the live env and the skill registry.
"""

from __future__ import annotations

import re
import textwrap
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from claw.common.exceptions import ClawError
from claw.envs.exceptions import UnknownObjectError
from claw.envs.objects import name_parts
from claw.envs.predicates import Predicate, evaluate, held_objects, predicate_signatures
from claw.envs.tabletop import TabletopEnv
from claw.envs.world import held_object
from claw.planner.exceptions import AmbiguousError, UnparseableError, UnsupportedError
from claw.planner.text import clean_text
from claw.skills import SkillCall, get_skill


class PlanError(BaseModel):
    """The model declining: the instruction names no object, asks the impossible, is unclear."""

    kind: Literal["unknown_object", "unsupported", "unparseable", "ambiguous"]
    message: str = ""


class Reply(BaseModel):
    """The JSON object the model must answer with."""

    model_config = ConfigDict(extra="ignore")

    goal: list[str] = Field(default_factory=list)
    steps: list[SkillCall] = Field(default_factory=list)
    error: PlanError | None = None


PROMPT_WIDTH = 99
"""The width the prompt templates are wrapped at (a line filled in is wrapped again to it)."""
_PREDICATES = re.compile(r"^.*\{predicates\}.*$", re.MULTILINE)


def template(name: str) -> str:
    """A prompt template from ``prompts/``; a line with ``{predicates}`` gets the goal
    predicates (:func:`~claw.envs.predicates.predicate_signatures`), wrapped."""
    text = (resources.files("claw.prompts") / f"{name}.md").read_text()
    return _PREDICATES.sub(_predicate_lines, text)


def _predicate_lines(line: re.Match[str]) -> str:
    """A template's ``{predicates}`` line, filled in and wrapped to :data:`PROMPT_WIDTH`."""
    filled = line.group().replace("{predicates}", ", ".join(predicate_signatures()))
    return textwrap.fill(filled, PROMPT_WIDTH, break_long_words=False, break_on_hyphens=False)


def example_turns() -> list[dict[str, str]]:
    """The few-shot examples of ``prompts/examples.md`` as conversation turns: each
    ``Instruction: …`` line a user turn, the JSON line after it the assistant's answer."""
    turns: list[dict[str, str]] = []
    for line in template("examples").splitlines():
        if line.startswith("Instruction:"):
            instruction = line.removeprefix("Instruction:").strip()
            content = template("instruction").format(instruction=instruction).strip()
            turns.append({"role": "user", "content": content})
        elif line.startswith("{"):
            turns.append({"role": "assistant", "content": line.strip()})
    return turns


def describe_scene(env: TabletopEnv) -> str:
    """The scene for the prompt: each object, where it is, what it rests on; what is held."""
    world = env.world_state()
    lines = []
    for name, obj in world.objects.items():
        x, y, z = (round(float(v), 3) for v in obj.position)
        support = next(
            (
                o
                for o in world.objects
                if o != name and evaluate(Predicate.of("on", name, o), world).holds
            ),
            None,
        )
        where = f" on/in {support}" if support else ""
        named = obj.color is None or name_parts(name) == (obj.color, obj.type)
        kind = "" if named else f", a {obj.color} {obj.type}"  # a name given in the scene spec
        lines.append(f"- {name}{kind} ({x}, {y}, {z}){where}")
    if len(world.grippers) < 2:
        lines.append(f"held: {held_object(world) or 'nothing'}")
        return "\n".join(lines)
    held = (f"{arm}: {next(iter(held_objects(world, arm)), 'nothing')}" for arm in world.grippers)
    lines.append(f"held: {'; '.join(held)}")
    bases = ", ".join(f"{arm} at {env.arm_base(arm)}" for arm in world.grippers)
    return "\n".join(lines) + "\n\n" + template("two_arms").format(arms=bases)


def describe_skills(names: list[str]) -> str:
    """The skill catalogue for the prompt: each skill as a signature with its parameters' types
    (an enum's values, a number's bounds), what it does (its description's first clause, up to a
    colon or semicolon), and what a parameter means where its type does not list the values."""
    lines = []
    for name in names:
        skill = get_skill(name)
        schema = skill.Params.model_json_schema()
        required = set(schema.get("required", []))
        params = schema.get("properties", {})
        signature = ", ".join(
            f"{key}{'' if key in required else '?'}: {_param_type(spec)}"
            for key, spec in params.items()
        )
        meanings = "; ".join(
            f"{key}: {spec['description'].rstrip('.')}"
            for key, spec in params.items()
            if "description" in spec and "enum" not in spec
        )
        line = f"- {name}({signature}) — {_first_clause(skill.description)}"
        lines.append(f"{line} ({meanings})" if meanings else line)
    return "\n".join(lines)


def describe_composites(offered: list[tuple[str, str, Any]]) -> str:
    """The learned composites offered for this instruction, one line each: the signature, what
    it does (its abstracted instruction) and the skill calls it runs."""
    lines = []
    for name, description, body in offered:
        steps = "; ".join(
            f"{s.skill}({', '.join(f'{k}={v}' for k, v in s.args.items())})" for s in body.steps
        )
        lines.append(f"- {name}({body.signature()}) — {description} (runs: {steps})")
    return "\n".join(lines)


def _first_clause(text: str) -> str:
    """What a description says first: up to its first colon or semicolon, as a sentence."""
    clause = re.split(r"[:;]\s", text, maxsplit=1)[0].rstrip(". ")
    return clause + "."


def _param_type(spec: dict[str, Any]) -> str:
    """A parameter's JSON type in a few words: ``on|in|next_to``, ``number in (0, 0.3]``."""
    if "enum" in spec:
        return "|".join(str(v) for v in spec["enum"])
    if "anyOf" in spec:
        return " or ".join(_param_type(option) for option in spec["anyOf"])
    kind = str(spec.get("type", "any"))
    low = spec.get("exclusiveMinimum", spec.get("minimum"))
    high = spec.get("exclusiveMaximum", spec.get("maximum"))
    if kind in ("number", "integer") and (low is not None or high is not None):
        left = "(" if "exclusiveMinimum" in spec else "["
        right = ")" if "exclusiveMaximum" in spec else "]"
        low, high = ("" if v is None else v for v in (low, high))
        return f"{kind} in {left}{low}, {high}{right}"
    return kind


def declined_error(error: PlanError) -> ClawError:
    """The error for a model's refusal, of the kind it gave."""
    kinds: dict[str, type[ClawError]] = {
        "unknown_object": UnknownObjectError,
        "unsupported": UnsupportedError,
        "unparseable": UnparseableError,
        "ambiguous": AmbiguousError,
    }
    message = clean_text(error.message) or error.kind
    return kinds[error.kind](message)
